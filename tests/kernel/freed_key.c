// SPDX-License-Identifier: GPL-2.0
/*
 * freed_key - the execute-only key is never a key that pkey_alloc() handed
 * out in this mm, since such a key may still be open in some thread's PKRU
 * (issue 22, item 1; series v3).
 *
 * pkey_free() does not touch any thread's PKRU: a key that thread A
 * allocated with rights 0 stays open in A and in every thread created from
 * A while it was allocated.  v2's __execute_only_pkey() took the lowest
 * free key and closed it in the calling thread only, so such a thread read
 * the "execute-only" code.
 *
 * Proves, each in a forked child (a fresh mm that has no execute-only key
 * yet; the parent never makes one):
 *  - A pkey_alloc(0, 0)s key k, starts thread B (which inherits k open),
 *    pkey_free(k)s, then PR_SET_XONLY 1 and maps its own file
 *    PROT_READ|PROT_EXEC: the mapping is execute-only with a key other than
 *    k, A's load faults SEGV_PKUERR and B's load faults too (v2: key k, B
 *    reads the code);
 *  - the same with the first mprotect(PROT_EXEC) of an anonymous page
 *    instead (no xonly mode): the key given is not k while 14 keys that
 *    pkey_alloc() never handed out are free, and B's load faults;
 *  - with all 15 keys allocated and freed again, PR_SET_XONLY 1 fails
 *    ENOSPC and PR_GET_XONLY stays 0 (v2: 0, with a handed-out key);
 *  - with all 15 keys allocated and freed, the first mprotect(PROT_EXEC)
 *    keeps upstream's behaviour (0, the page runs; its key, if any, may be
 *    a formerly handed-out one), and PR_SET_XONLY 1 after it fails ENOSPC,
 *    since that key may be open in some thread (v2: 0);
 *  - the pkey_set() race, bounded: in each of ROUNDS children thread T
 *    loops pkey_set(k, 0, 0) while thread U pkey_free(k)s and makes the
 *    first mprotect(PROT_EXEC); afterwards T's PKRU has access-disable for
 *    the page's key (v2: the key is k, open in T, in every round).  With
 *    v3's rule (never a handed-out key) the key cannot be k, so this also
 *    holds without v3's locking fix in pkey_set(): user space cannot tell
 *    the two apart;
 *  - a program exec'd in xonly mode (prctl, then execve of this program)
 *    gets its execute-only key before any pkey_alloc(): its main runs with
 *    a key, loads of it fault, and pkey_alloc() then hands out the 14 other
 *    keys (what v2 already did, and v3 must keep).
 * Booted with xonly=on (or strict, or learn), every process has its
 * execute-only key from exec:
 * the first two scenarios and the race run (and must pass, the key is
 * never k), the two all-keys scenarios, which need an mm without the key,
 * report SKIP.  Without PKU (a nopku boot) the whole test is SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define ROUNDS	100
#define NKEYS	15

/* Its address is this static program's code, mapped by execve(). */
int main(int argc, char **argv);

static bool boot_on;	/* xonly=on: every mm has its execute-only key from exec */
static int self_fd = -1;

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

/* --- A and B ------------------------------------------------------------------- */

/* Thread B: started while key k was open in A, so k is open in B. */
struct peer {
	pthread_barrier_t started, mapped, done;
	const volatile void *p;
	struct fault f;
	uint32_t pkru;
};

static void *peer_thread(void *arg)
{
	struct peer *b = arg;

	pthread_barrier_wait(&b->started);
	pthread_barrier_wait(&b->mapped);
	b->pkru = rdpkru();
	fault_read8(b->p, &b->f);
	pthread_barrier_wait(&b->done);
	return NULL;
}

enum how { BY_PRCTL, BY_MPROTECT };

static void two_threads(void *arg)
{
	enum how how = (enum how)(intptr_t)arg;
	const char *what = how == BY_PRCTL ? "PR_SET_XONLY 1, then a file PROT_READ|PROT_EXEC mmap()"
					   : "the first mprotect(PROT_EXEC) of an anonymous page";
	struct peer b;
	struct fault fa;
	unsigned char *p = NULL;
	pthread_t t;
	int k, key, r;

	k = pkey_alloc(0, 0);
	if (!tap_ok(k > 0 && pkru_rights(rdpkru(), k) == 0, "setup: A pkey_alloc(0, 0) -> %d, open in A's PKRU %#x",
		    k, rdpkru()))
		return;
	pthread_barrier_init(&b.started, NULL, 2);
	pthread_barrier_init(&b.mapped, NULL, 2);
	pthread_barrier_init(&b.done, NULL, 2);
	b.p = NULL;
	if (pthread_create(&t, NULL, peer_thread, &b))
		tap_bail("setup: pthread_create");
	pthread_barrier_wait(&b.started);
	r = pkey_free(k);
	tap_ok(r == 0, "setup: A started B (key %d open in B too), then pkey_free(%d) -> 0 (got %d, %s)", k, k, r,
	       errname(err_of(r)));

	if (how == BY_PRCTL) {
		r = xonly_enter();
		tap_ok(r == 0, "A: PR_SET_XONLY 1 -> 0 (got %d, %s)", r, errname(err_of(r)));
		p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, self_fd, 0);
		if (p == MAP_FAILED)
			p = NULL;
	} else {
		p = (unsigned char *)map_anon_page();
		p[0] = 0xc3;
		if (mprotect(p, page_size(), PROT_EXEC))
			p = NULL;
	}
	key = p ? smaps_pkey(p) : -1;
	tap_ok(p && key > 0 && key != k && !strncmp(maps_perms(p), "--x", 3),
	       "%s: execute-only (%s) with key %d, not the freed key %d (%s)", what, p ? maps_perms(p) : "not mapped",
	       key, k, boot_on ? "xonly=on: the key came with exec" : "14 never handed-out keys are free");
	if (p)
		fault_read8(p, &fa);
	tap_ok(p && fault_is_pkuerr(&fa, key, p), "%s: A's load faults SEGV_PKUERR (A's PKRU %#x, %s)", what, rdpkru(),
	       p ? fault_str(&fa) : "-");

	b.p = p;
	pthread_barrier_wait(&b.mapped);
	pthread_barrier_wait(&b.done);
	pthread_join(t, NULL);
	tap_ok(p && fault_is_pkuerr(&b.f, key, p),
	       "%s: B, started while key %d was open, cannot read it either: its load faults SEGV_PKUERR (B's PKRU %#x, %s)",
	       what, k, b.pkru, p ? fault_str(&b.f) : "-");
}

/* --- every key handed out once ------------------------------------------------ */

/* pkey_alloc() until it fails, then pkey_free() all; the number allocated. */
static int alloc_free_all(int *err)
{
	int keys[16], n = 0, k;

	while (n < 16 && (k = pkey_alloc(0, 0)) > 0)
		keys[n++] = k;
	*err = errno;
	for (k = 0; k < n; k++)
		pkey_free(keys[k]);
	return n;
}

static void all_freed_prctl(void *arg)
{
	int n, e, r;

	(void)arg;
	n = alloc_free_all(&e);
	if (!tap_ok(n == NKEYS && e == ENOSPC, "setup: pkey_alloc() handed out all %d keys (then %s), all freed again",
		    n, errname(e)))
		return;
	r = xonly_set(1, 0, 0, 0);
	e = err_of(r);
	tap_ok(r == -1 && e == ENOSPC,
	       "every key handed out once: PR_SET_XONLY 1 -> ENOSPC, no key is safe as the execute-only key (got %d, %s)",
	       r, errname(e));
	tap_ok(xonly_get(0, 0, 0, 0) == 0 && proc_status_int(getpid(), "Xonly") == 0,
	       "... and the flag stays clear: PR_GET_XONLY %d, status Xonly: %d", xonly_get(0, 0, 0, 0),
	       proc_status_int(getpid(), "Xonly"));
}

static void all_freed_mprotect(void *arg)
{
	unsigned char *p = (unsigned char *)map_anon_page();
	struct fault f;
	int n, e, r, key;

	(void)arg;
	n = alloc_free_all(&e);
	if (!tap_ok(n == NKEYS && e == ENOSPC, "setup: pkey_alloc() handed out all %d keys (then %s), all freed again",
		    n, errname(e)))
		return;
	p[0] = 0xc3;
	r = mprotect(p, page_size(), PROT_EXEC);
	e = err_of(r);
	key = smaps_pkey(p);
	fault_read8(p, &f);
	if (r == 0)
		((void (*)(void))(uintptr_t)p)();
	tap_ok(r == 0, "then the first mprotect(PROT_EXEC) of an anonymous page -> 0 and the page runs (upstream: %s, key %d, load: %s)",
	       maps_perms(p), key, fault_str(&f));
	r = xonly_set(1, 0, 0, 0);
	e = err_of(r);
	tap_ok(r == -1 && e == ENOSPC,
	       "... then PR_SET_XONLY 1 -> ENOSPC: the execute-only key (%d) was handed out before and may be open in some thread (got %d, %s)",
	       key, r, errname(e));
	tap_ok(xonly_get(0, 0, 0, 0) == 0, "... and the flag stays clear (PR_GET_XONLY %d)", xonly_get(0, 0, 0, 0));
}

/* --- the pkey_set() race ----------------------------------------------------- */

struct race {
	int start, running, stop;	/* atomics */
	int k;
	uint32_t t_pkru;
	long sets_ok;
};

/* One round's outcome, in memory shared with the parent. */
struct round {
	int done, k, key;
	uint32_t t_pkru;
	long sets_ok;
};

static struct round *rounds;

static void *race_setter(void *arg)
{
	struct race *r = arg;
	long i;

	while (!__atomic_load_n(&r->start, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < 2000000 && !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++)
		if (sys_pkey_set(r->k, 0, 0) == 0 && r->sets_ok++ == 0)
			__atomic_store_n(&r->running, 1, __ATOMIC_RELEASE);
	r->t_pkru = rdpkru();
	return NULL;
}

static int race_round(void *arg)
{
	int i = (int)(intptr_t)arg;
	unsigned char *p = (unsigned char *)map_anon_page();
	struct race r = { 0 };
	pthread_t t;

	p[0] = 0xc3;
	r.k = pkey_alloc(0, 0);
	if (r.k <= 0)
		return 2;
	if (pthread_create(&t, NULL, race_setter, &r))
		return 3;
	__atomic_store_n(&r.start, 1, __ATOMIC_RELEASE);
	/* until T's pkey_set() works (bounded), then a different head start each round */
	for (long j = 0; j < 20000000 && !__atomic_load_n(&r.running, __ATOMIC_ACQUIRE); j++)
		;
	for (volatile int j = 0; j < (i % 10) * 300; j++)
		;
	pkey_free(r.k);
	if (mprotect(p, page_size(), PROT_EXEC))
		return 4;
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	rounds[i].k = r.k;
	rounds[i].key = smaps_pkey(p);
	rounds[i].t_pkru = r.t_pkru;
	rounds[i].sets_ok = r.sets_ok;
	rounds[i].done = 1;
	return 0;
}

static void test_race(void)
{
	int i, ok = 0, was_k = 0, open = 0, first_open = -1;
	long sets = 0;

	rounds = mmap(NULL, ROUNDS * sizeof(*rounds), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rounds == MAP_FAILED)
		tap_bail("setup: shared mmap: %s", errname(errno));
	for (i = 0; i < ROUNDS; i++) {
		int st = child_status(race_round, (void *)(intptr_t)i, 20);
		struct round *r = &rounds[i];

		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0 && r->done)) {
			tap_diag("race round %d: %s", i, status_str(st));
			continue;
		}
		ok++;
		sets += r->sets_ok;
		was_k += r->key == r->k;
		if (r->key <= 0 || !(r->t_pkru & PKRU_AD(r->key))) {
			open++;
			if (first_open < 0)
				first_open = i;
		}
	}
	tap_ok(ok == ROUNDS && sets >= ok,
	       "pkey_set race: %d of %d rounds ran to the end, T's pkey_set(k, 0, 0) was working when U freed k (%ld calls succeeded)",
	       ok, ROUNDS, sets);
	tap_ok(ok > 0 && was_k == 0, "pkey_set race: the execute-only key was never the freed key k (it was in %d rounds)",
	       was_k);
	if (first_open >= 0)
		tap_diag("race round %d: k %d, page key %d, T's PKRU %#x", first_open, rounds[first_open].k,
			 rounds[first_open].key, rounds[first_open].t_pkru);
	tap_ok(ok > 0 && open == 0,
	       "pkey_set race: afterwards T's PKRU has access-disable for the page's execute-only key (open in %d of %d rounds)",
	       open, ok);
}

/* --- exec'd in xonly mode --------------------------------------------------- */

/* This program again, as child_exec_xonly() runs it in xonly mode. */
static char *exec_argv[] = { "freed_key", "execd", NULL };

/* The program exec'd in xonly mode: exit 0 if its key came first. */
static int report_execd(void)
{
	struct fault f;
	int key = smaps_pkey((const void *)main), n = 0, k, bad = 0;

	fault_setup();
	fault_read8((const void *)main, &f);
	if (key <= 0 || !fault_is_pkuerr(&f, key, (const void *)main))
		return 1;
	while (n < 16 && (k = pkey_alloc(0, 0)) > 0) {
		n++;
		bad |= k == key;
	}
	return bad ? 2 : n != NKEYS - 1 ? 3 : 0;
}

int main(int argc, char **argv)
{
	int st;

	if (argc > 1 && !strcmp(argv[1], "execd"))
		return report_execd();
	tap_init("freed_key");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "a freed key never becomes the execute-only key");
		return tap_done();
	}
	fault_setup();
	/* xonly=on, strict or learn: in xonly mode from exec, with the key. */
	boot_on = xonly_get(0, 0, 0, 0) > 0;
	self_fd = open("/proc/self/exe", O_RDONLY);
	if (self_fd < 0)
		tap_bail("setup: open /proc/self/exe: %s", errname(errno));
	if (boot_on)
		tap_diag("xonly=on: every process has its execute-only key from exec, before any pkey_alloc()");

	child_tap_ok("freed key, thread B, PR_SET_XONLY", two_threads, (void *)(intptr_t)BY_PRCTL, 30);
	child_tap_ok("freed key, thread B, first mprotect(PROT_EXEC)", two_threads, (void *)(intptr_t)BY_MPROTECT, 30);
	if (boot_on) {
		tap_skip("xonly=on: the mm has its execute-only key from exec", "all keys freed, then PR_SET_XONLY");
		tap_skip("xonly=on: the mm has its execute-only key from exec",
			 "all keys freed, first mprotect(PROT_EXEC), then PR_SET_XONLY");
	} else {
		child_tap_ok("all keys freed, PR_SET_XONLY", all_freed_prctl, NULL, 30);
		child_tap_ok("all keys freed, mprotect(PROT_EXEC), PR_SET_XONLY", all_freed_mprotect, NULL, 30);
	}
	test_race();
	st = child_status(child_exec_xonly, exec_argv, 30);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "exec'd in xonly mode: main has its execute-only key and faults, pkey_alloc() then hands out the 14 other keys (%s)",
	       status_str(st));
	return tap_done();
}
