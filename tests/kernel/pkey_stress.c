// SPDX-License-Identifier: GPL-2.0
/*
 * pkey_stress - threads racing pkey_alloc / pkey_free / pkey_mprotect /
 * mprotect(PROT_EXEC) / thread creation / fork / execve for a bounded
 * time (-t SECONDS, default 6), with the invariants checked throughout.
 *
 * Who does what (every thread runs until the time is up):
 *  - OWNERS threads allocate keys with random rights (up to KEYS_PER_OWNER
 *    each, so that together they can exhaust the 14 free keys), tag pages
 *    with them by pkey_mprotect (PROT_READ|PROT_WRITE or PROT_EXEC), and
 *    free them, sometimes leaving the pages tagged with the freed key;
 *  - a flipper turns pages execute-only with mprotect(PROT_EXEC) and back;
 *  - READERS long-lived threads, the short-lived threads a spawner keeps
 *    creating, and fork children load from every page, and call the
 *    execute-only code;
 *  - an exec-er forks children that lift every key with WRPKRU (at the
 *    strict level every key but the execute-only one) and exec this
 *    program (--exec-check), which checks its start from the inside;
 *  - an auditor takes the key lock exclusively now and then and checks the
 *    kernel's view of the keys against the owners' bookkeeping.
 * Readers never allocate a key nor write PKRU, and their creators (main,
 * the spawner, the forker) neither: their PKRU is the default 0x55555554,
 * which denies keys 1-15.  Pages carry a sequence count that their changer
 * makes odd around each change, so a reader knows which state a load saw.
 *
 * Proves:
 *  - no thread can read execute-only code: every load a reader made of a
 *    page that was execute-only (mprotect(PROT_EXEC), static or flipped)
 *    or tagged with a key (held, or freed but still on the page) for the
 *    whole load faulted SEGV_PKUERR with si_pkey = that key and si_addr =
 *    the byte loaded; per context: long-lived threads, freshly created
 *    threads (which also start with the default PKRU), fork children; and
 *    loads of the same pages while readable succeed (the probe is real);
 *  - the execute-only code still runs (calls return 42) in all of them;
 *  - key bookkeeping: pkey_alloc() never returns a key another thread
 *    holds, key 0 or the execute-only key (smaps ProtectionKey of an
 *    mprotect(PROT_EXEC) page); it fails only with ENOSPC; the owner's
 *    pkey_mprotect() with its key succeeds, pkey_get(2) (the series'
 *    syscall) returns the rights it allocated the key with, and its own
 *    load faults exactly when those rights deny access;
 *  - under the auditor's lock (no allocation or free in flight, every
 *    other race going on): pkey_get(2) is EBADF exactly for the free keys
 *    and the execute-only key, and returns the auditor's own PKRU rights
 *    for the held ones; pkey_alloc() succeeds iff fewer than 14 keys are
 *    held and then gives a free key, which pkey_free() frees once (0) and
 *    not twice (EINVAL); pkey_mprotect() with a key another thread freed
 *    fails EINVAL (upstream's mm_pkey_is_allocated() check; the page keeps
 *    its key);
 *  - pkey_free() and pkey_mprotect(PROT_READ|PROT_WRITE) of the
 *    execute-only key fail EINVAL while the storm goes on;
 *  - execve from a child whose PKRU had every key open: the new image
 *    starts with the default PKRU 0x55555554, and its own execute-only
 *    page runs and faults SEGV_PKUERR with its smaps key;
 *  - afterwards every held key frees (once), and then exactly 14 keys (16
 *    minus key 0 minus the execute-only key) can be allocated, all
 *    distinct, and the 15th attempt fails ENOSPC;
 *  - the kernel log gained no WARNING, BUG or Oops during the run (the
 *    harness also checks the whole console).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define PKRU_DEFAULT	0x55555554u	/* the kernel's init_pkru_value */
#define NKEYS		16
#define FREE_KEYS	14		/* NKEYS minus key 0 minus the execute-only key */
#define OWNERS		4
#define KEYS_PER_OWNER	4		/* 16 slots > 14 keys: ENOSPC happens */
#define READERS		2
#define FLIPS		2
#define FILL		0xa5		/* what a readable page holds */
#define RET42		"\xb8\x2a\x00\x00\x00\xc3"	/* mov eax, 42; ret */

enum pstate { ST_RW, ST_XO, ST_KEY };

/* A page readers load from; its changer makes seq odd around each change. */
struct page {
	unsigned char *addr;
	atomic_uint seq;
	atomic_int state;	/* enum pstate */
	atomic_int key;		/* the key loads must fault with (ST_XO, ST_KEY) */
};

#define NPAGES (1 + FLIPS + OWNERS * KEYS_PER_OWNER)

/* Reader contexts, each with its own counts. */
enum ctx { CTX_LONG, CTX_FRESH, CTX_FORK, NCTX };
static const char *const ctx_name[NCTX] = { "long-lived reader threads", "freshly created threads",
					    "fork children" };

/* One kind of check: attempts, passes, and the first failure's story. */
struct count {
	atomic_ulong n, good;
	atomic_int told;
	char first_bad[200];
};

/* Shared with fork children (MAP_SHARED), so they count into it directly. */
struct stats {
	struct count xo[NCTX];		/* loads of execute-only pages */
	struct count keyed[NCTX];	/* loads of key-tagged pages */
	struct count rw[NCTX];		/* loads of readable pages (the probe is real) */
	struct count calls[NCTX];	/* calls of the execute-only code */
	struct count pkru[NCTX];	/* the reader started with the default PKRU */
	atomic_ulong raced;		/* loads discarded: the page changed meanwhile */
	struct count alloc, mprot_own, get_own, own_load, free_ok;
	atomic_ulong enospc;
	struct count snap_get, snap_alloc, double_free, mprot_freed, xo_refused, flip;
	struct count exec, fork_ok, threads;
	atomic_ulong freed_by_other;	/* of mprot_freed: keys an owner had freed */
	atomic_ulong snap_full;		/* snapshots with all 14 keys held */
};

static struct stats *st;
static struct page pages[NPAGES];
static int xo_key;
static bool have_pkey_get;
static atomic_bool stop;
static atomic_int owner[NKEYS];		/* 0 free, else the holder's id */
static atomic_int last_freer[NKEYS];
/*
 * Allocation and free, with their bookkeeping, run under the read side,
 * so owners race each other; the auditor's write side sees the kernel's
 * allocation map and owner[] agree.  Writers first: no starvation.
 */
static pthread_rwlock_t keys_lock;

#define AUDITOR_ID 100

static void count(struct count *c, bool pass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void count(struct count *c, bool pass, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&c->n, 1);
	if (pass) {
		atomic_fetch_add(&c->good, 1);
		return;
	}
	if (atomic_exchange(&c->told, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(c->first_bad, sizeof(c->first_bad), fmt, ap);
	va_end(ap);
}

/* A check that must have run at least @min times and never failed. */
static bool report(const struct count *c, unsigned long min, const char *what)
{
	unsigned long n = atomic_load(&c->n), good = atomic_load(&c->good);

	if (tap_ok(n >= min && good == n, "%s: %lu of %lu%s", what, good, n, n < min ? " (too few runs)" : ""))
		return true;
	if (good != n)
		tap_diag("  first failure: %s", c->first_bad);
	return false;
}

static unsigned int rnd(unsigned int *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- pages and their changes --------------------------------------------------- */

static void page_begin(struct page *p)
{
	atomic_fetch_add(&p->seq, 1);	/* odd: changing */
}

static void page_end(struct page *p, enum pstate s, int key)
{
	atomic_store(&p->key, key);
	atomic_store(&p->state, s);
	atomic_fetch_add(&p->seq, 1);	/* even: stable */
}

struct load {
	const volatile unsigned char *p;
	unsigned char v;
};

static void do_load(void *arg)
{
	struct load *l = arg;

	l->v = *l->p;
}

/* ---- readers -------------------------------------------------------------------- */

/* One load of page @i at a random offset, judged by the state it saw throughout. */
static void read_page(enum ctx c, int i, unsigned int *seed)
{
	struct page *p = &pages[i];
	unsigned int s1, s2;
	struct load l;
	struct fault f;
	int state, key;
	bool hit;

	s1 = atomic_load(&p->seq);
	if (s1 & 1) {
		atomic_fetch_add(&st->raced, 1);
		return;
	}
	state = atomic_load(&p->state);
	key = atomic_load(&p->key);
	l.p = p->addr + (rnd(seed) % page_size());
	l.v = 0;
	hit = fault_catch(do_load, &l, &f);
	s2 = atomic_load(&p->seq);
	if (s1 != s2) {
		atomic_fetch_add(&st->raced, 1);
		return;
	}
	switch (state) {
	case ST_RW:
		count(&st->rw[c], !hit && l.v == FILL, "page %d readable: load at %p got %#x, %s", i, (void *)l.p,
		      l.v, fault_str(&f));
		break;
	case ST_XO:
		count(&st->xo[c], fault_is_pkuerr(&f, key, l.p), "page %d execute-only (key %d): load at %p: %s%s",
		      i, key, (void *)l.p, fault_str(&f), hit ? "" : " (READ SUCCEEDED)");
		break;
	case ST_KEY:
		count(&st->keyed[c], fault_is_pkuerr(&f, key, l.p), "page %d tagged with key %d: load at %p: %s%s", i,
		      key, (void *)l.p, fault_str(&f), hit ? "" : " (READ SUCCEEDED)");
		break;
	}
}

static void call_code(enum ctx c)
{
	int (*fn)(void) = (int (*)(void))(void *)pages[0].addr;
	int r = fn();

	count(&st->calls[c], r == 42, "the execute-only code returned %d, want 42", r);
}

/* @rounds passes over every page (0: until stop). */
static void reader_loop(enum ctx c, unsigned int seed, int rounds)
{
	uint32_t pkru = rdpkru();

	count(&st->pkru[c], pkru == PKRU_DEFAULT, "a reader started with PKRU %#x, want %#x", pkru, PKRU_DEFAULT);
	for (int r = 0; rounds ? r < rounds : !atomic_load(&stop); r++) {
		for (int i = 0; i < NPAGES; i++)
			read_page(c, i, &seed);
		call_code(c);
	}
}

static void *reader_main(void *arg)
{
	reader_loop(CTX_LONG, (unsigned int)(uintptr_t)arg * 7919 + 1, 0);
	return NULL;
}

static void *fresh_main(void *arg)
{
	reader_loop(CTX_FRESH, (unsigned int)(uintptr_t)arg * 104729 + 3, 3);
	return NULL;
}

/* Keeps creating short-lived readers: thread creation races everything else. */
static void *spawner_main(void *unused)
{
	uintptr_t n = 0;

	(void)unused;
	while (!atomic_load(&stop)) {
		pthread_t t[2];
		int made = 0;

		for (int i = 0; i < 2; i++)
			if (pthread_create(&t[made], NULL, fresh_main, (void *)++n) == 0)
				made++;
		count(&st->threads, made == 2, "pthread_create failed");
		for (int i = 0; i < made; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

/* ---- key owners ------------------------------------------------------------------ */

struct owner_arg {
	int id;			/* 1..OWNERS */
	int key[KEYS_PER_OWNER];
	unsigned int rights[KEYS_PER_OWNER];
};

static struct page *owner_page(int id, int slot)
{
	return &pages[1 + FLIPS + (id - 1) * KEYS_PER_OWNER + slot];
}

static void owner_alloc(struct owner_arg *o, int slot, unsigned int *seed)
{
	static const unsigned int rights_of[3] = { PKEY_DISABLE_ACCESS, PKEY_DISABLE_WRITE, 0 };
	unsigned int rights = rights_of[rnd(seed) % 3];
	int prot = rnd(seed) & 1 ? PROT_EXEC : PROT_READ | PROT_WRITE;
	struct page *p = owner_page(o->id, slot);
	struct load l = { p->addr + 8, 0 };
	struct fault f;
	bool hit;
	int k, e, prev = 0, r;

	pthread_rwlock_rdlock(&keys_lock);
	k = pkey_alloc(0, rights);
	e = errno;
	if (k >= 0 && k < NKEYS)
		prev = atomic_exchange(&owner[k], o->id);
	pthread_rwlock_unlock(&keys_lock);
	if (k < 0) {
		/* Whether it was right to fail is the auditor's check. */
		if (e == ENOSPC)
			atomic_fetch_add(&st->enospc, 1);
		else
			count(&st->alloc, false, "owner %d: pkey_alloc failed %s, not ENOSPC", o->id, errname(e));
		return;
	}
	if (!(k > 0 && k < NKEYS && k != xo_key && prev == 0)) {
		count(&st->alloc, false, "owner %d: pkey_alloc returned %d (execute-only key %d), held by %d", o->id, k,
		      xo_key, prev);
		return;	/* not ours to use: leave it */
	}
	count(&st->alloc, true, "ok");
	o->key[slot] = k;
	o->rights[slot] = rights;

	page_begin(p);
	r = pkey_mprotect(p->addr, page_size(), prot, k);
	e = errno;
	page_end(p, r == 0 ? ST_KEY : ST_RW, r == 0 ? k : 0);
	count(&st->mprot_own, r == 0, "owner %d: pkey_mprotect(prot %#x, its key %d) = %d %s", o->id, prot, k, r,
	      errname(e));
	if (have_pkey_get) {
		r = sys_pkey_get(k, 0);
		e = errno;
		count(&st->get_own, r == (int)rights, "owner %d: pkey_get(its key %d) = %d %s, allocated with rights %u",
		      o->id, k, r, r < 0 ? errname(e) : "", rights);
	}
	hit = fault_catch(do_load, &l, &f);
	if (rights & PKEY_DISABLE_ACCESS)
		count(&st->own_load, fault_is_pkuerr(&f, k, l.p), "owner %d: own load, key %d rights %u: %s", o->id,
		      k, rights, fault_str(&f));
	else
		count(&st->own_load, !hit && l.v == FILL, "owner %d: own load, key %d rights %u: %s, got %#x", o->id,
		      k, rights, fault_str(&f), l.v);
}

static void owner_free(struct owner_arg *o, int slot, unsigned int *seed)
{
	struct page *p = owner_page(o->id, slot);
	int k = o->key[slot], r, e;

	/* Half the time the page keeps the key past its free: it must stay unreadable. */
	if (rnd(seed) & 1) {
		page_begin(p);
		r = pkey_mprotect(p->addr, page_size(), PROT_READ | PROT_WRITE, 0);
		e = errno;
		page_end(p, ST_RW, 0);
		count(&st->mprot_own, r == 0, "owner %d: pkey_mprotect(key 0) = %d %s", o->id, r, errname(e));
	}
	pthread_rwlock_rdlock(&keys_lock);
	/* Clear first: once freed, the key may be someone else's at once. */
	atomic_store(&owner[k], 0);
	atomic_store(&last_freer[k], o->id);
	r = pkey_free(k);
	e = errno;
	pthread_rwlock_unlock(&keys_lock);
	count(&st->free_ok, r == 0, "owner %d: pkey_free(its key %d) = %d %s", o->id, k, r, errname(e));
	o->key[slot] = -1;
}

static void *owner_main(void *arg)
{
	struct owner_arg *o = arg;
	unsigned int seed = (unsigned int)o->id * 2654435761u;

	for (int s = 0; s < KEYS_PER_OWNER; s++)
		o->key[s] = -1;
	while (!atomic_load(&stop)) {
		int s = rnd(&seed) % KEYS_PER_OWNER;

		/* Free a quarter of the time: the owners' 16 slots press on the 14 keys. */
		if (o->key[s] < 0)
			owner_alloc(o, s, &seed);
		else if (rnd(&seed) % 4 == 0)
			owner_free(o, s, &seed);
	}
	return NULL;
}

/* ---- flipper: mprotect(PROT_EXEC) and back, and the execute-only key refused ---- */

static void *flipper_main(void *unused)
{
	unsigned char *mine = (unsigned char *)map_anon_page();
	unsigned int seed = 12345, n = 0;
	int r, e;

	(void)unused;
	while (!atomic_load(&stop)) {
		struct page *p = &pages[1 + rnd(&seed) % FLIPS];
		bool xo = atomic_load(&p->state) != ST_XO;

		page_begin(p);
		r = mprotect(p->addr, page_size(), xo ? PROT_EXEC : PROT_READ | PROT_WRITE);
		e = errno;
		page_end(p, xo && !r ? ST_XO : ST_RW, xo && !r ? xo_key : 0);
		count(&st->flip, r == 0, "mprotect(%s) = %d %s", xo ? "PROT_EXEC" : "RW", r, errname(e));
		if (xo && !r && ++n % 16 == 0) {
			/* smaps is slow: now and then, the key the kernel gave it. */
			int k = smaps_pkey(p->addr);

			count(&st->flip, k == xo_key, "a page mprotect(PROT_EXEC)ed mid-storm has key %d, want %d", k,
			      xo_key);
		}
		r = pkey_free(xo_key);
		e = errno;
		count(&st->xo_refused, r == -1 && e == EINVAL, "pkey_free(execute-only key %d) = %d %s", xo_key, r,
		      errname(e));
		r = pkey_mprotect(mine, page_size(), PROT_READ | PROT_WRITE, xo_key);
		e = errno;
		count(&st->xo_refused, r == -1 && e == EINVAL,
		      "pkey_mprotect(PROT_READ|PROT_WRITE, execute-only key %d) = %d %s", xo_key, r,
		      r < 0 ? errname(e) : "");
		if (r == 0)	/* wrong: do not leave a readable page with that key */
			pkey_mprotect(mine, page_size(), PROT_READ | PROT_WRITE, 0);
	}
	return NULL;
}

/* ---- auditor -------------------------------------------------------------------- */

static void audit(unsigned char *mine)
{
	uint32_t pkru = rdpkru();
	int held = 0, k, r, e;

	pthread_rwlock_wrlock(&keys_lock);
	for (k = 1; k < NKEYS; k++) {
		int who = atomic_load(&owner[k]);

		if (k != xo_key && who) {
			held++;
			if (have_pkey_get) {
				r = sys_pkey_get(k, 0);
				count(&st->snap_get, r == (int)pkru_rights(pkru, k),
				      "pkey_get(key %d, held by %d) = %d %s, the auditor's PKRU %#x says %u", k, who, r,
				      r < 0 ? errname(errno) : "", pkru, pkru_rights(pkru, k));
			}
			continue;
		}
		if (have_pkey_get) {
			r = sys_pkey_get(k, 0);
			count(&st->snap_get, r == -1 && errno == EBADF, "pkey_get(%s key %d) = %d %s, want EBADF",
			      k == xo_key ? "execute-only" : "free", k, r, r < 0 ? errname(errno) : "");
		}
		if (k == xo_key)
			continue;
		r = pkey_mprotect(mine, page_size(), PROT_READ | PROT_WRITE, k);
		e = errno;
		count(&st->mprot_freed, r == -1 && e == EINVAL, "pkey_mprotect(free key %d, last freed by %d) = %d %s",
		      k, atomic_load(&last_freer[k]), r, r < 0 ? errname(e) : "");
		if (r == 0)	/* wrong, and the page must not keep it */
			pkey_mprotect(mine, page_size(), PROT_READ | PROT_WRITE, 0);
		if (atomic_load(&last_freer[k]) && atomic_load(&last_freer[k]) != AUDITOR_ID)
			atomic_fetch_add(&st->freed_by_other, 1);
	}
	k = pkey_alloc(0, PKEY_DISABLE_ACCESS);
	e = errno;
	if (held == FREE_KEYS) {
		atomic_fetch_add(&st->snap_full, 1);
		count(&st->snap_alloc, k == -1 && e == ENOSPC, "all %d keys held: pkey_alloc = %d %s, want ENOSPC",
		      held, k, k < 0 ? errname(e) : "");
	} else {
		count(&st->snap_alloc, k > 0 && k < NKEYS && k != xo_key && !atomic_load(&owner[k]),
		      "%d keys held: pkey_alloc = %d %s, want a free key", held, k, k < 0 ? errname(e) : "");
	}
	if (k > 0 && k < NKEYS) {
		int r1 = pkey_free(k), e1 = errno, r2 = pkey_free(k), e2 = errno;

		atomic_store(&last_freer[k], AUDITOR_ID);
		count(&st->double_free, r1 == 0 && r2 == -1 && e2 == EINVAL,
		      "pkey_free(key %d) twice = %d %s, %d %s; want 0, EINVAL", k, r1, errname(e1), r2, errname(e2));
	}
	pthread_rwlock_unlock(&keys_lock);
	/* The refused calls left the auditor's page (its own: no lock needed) with key 0. */
	r = smaps_pkey(mine);
	count(&st->mprot_freed, r == 0, "after pkey_mprotect with free keys was refused the page has key %d, want 0", r);
}

static void *auditor_main(void *unused)
{
	unsigned char *mine = (unsigned char *)map_anon_page();

	(void)unused;
	while (!atomic_load(&stop)) {
		audit(mine);
		usleep(20000);
	}
	return NULL;
}

/* ---- fork children and execve --------------------------------------------------- */

/* What --exec-check exits with: 0 all good, else the first thing wrong. */
enum { EX_OK, EX_PKRU = 10, EX_MAP, EX_KEY, EX_LOAD, EX_CALL };

static int exec_check(void)
{
	unsigned char *code;
	struct fault f;
	int k;

	if (rdpkru() != PKRU_DEFAULT)
		return EX_PKRU;
	fault_setup();
	code = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return EX_MAP;
	memcpy(code, RET42, 6);
	if (mprotect(code, page_size(), PROT_EXEC))
		return EX_MAP;
	k = smaps_pkey(code);
	if (k < 1 || k >= NKEYS)
		return EX_KEY;
	fault_read8(code + 1, &f);
	if (!fault_is_pkuerr(&f, k, code + 1))
		return EX_LOAD;
	if (((int (*)(void))(void *)code)() != 42)
		return EX_CALL;
	return EX_OK;
}

static void *forker_main(void *unused)
{
	unsigned int n = 0;

	(void)unused;
	while (!atomic_load(&stop)) {
		bool do_exec = n++ & 1;
		int status = -1;
		pid_t pid = fork();

		if (pid == 0) {
			if (do_exec) {
				/*
				 * Every key open, the execute-only one too: execve
				 * must not pass it on.  At the strict level that key
				 * cannot be open at a kernel entry (the page fault of
				 * execl()'s first touch kills, patch 0074): every
				 * other key then.
				 */
				wrpkru(xonly_get(0, 0, 0, 0) == 2 ? PKRU_AD(xo_key) : 0);
				execl("/proc/self/exe", "pkey_stress", "--exec-check", (char *)NULL);
				_exit(127);
			}
			/* A copy of the mm mid-storm; nobody changes it here. */
			reader_loop(CTX_FORK, n * 31 + 7, 20);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, &status, 0);
		if (do_exec)
			count(&st->exec, pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == EX_OK,
			      "the exec'd image exited with status %#x (10 PKRU not default, 11 map, 12 key, 13 load did "
			      "not fault, 14 call)", status);
		else
			count(&st->fork_ok, pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "a reading fork child ended with status %#x", status);
	}
	return NULL;
}

/* ---- the kernel log ------------------------------------------------------------- */

/* WARNING/BUG/Oops lines in the kernel log buffer, -1 if it cannot be read. */
static int klog_trouble(char *last, size_t lastlen)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *buf, *line;

	if (len <= 0 || !(buf = malloc(len + 1)))
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "WARNING:") || strstr(line, "BUG:") || strstr(line, "Oops") ||
		    strstr(line, "general protection")) {
			n++;
			snprintf(last, lastlen, "%s", line);
		}
	free(buf);
	return n;
}

/* ---- main ----------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: pkey_stress [-t SECONDS]   (default 6; prints TAP)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t owners[OWNERS], readers[READERS], flipper, spawner, forker, auditor;
	struct owner_arg oargs[OWNERS];
	pthread_rwlockattr_t rwa;
	double secs = 6, t0, took;
	char klast[256] = "";
	int klog0, klog1, k, r, e;
	int got[NKEYS], ngot = 0;
	bool distinct = true;
	struct fault f;

	if (argc == 2 && !strcmp(argv[1], "--exec-check"))
		return exec_check();
	if (argc == 3 && !strcmp(argv[1], "-t"))
		secs = atof(argv[2]);
	else if (argc != 1)
		usage();
	if (secs <= 0)
		usage();

	tap_init("pkey_stress");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present");
	fault_setup();
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		tap_bail("setup: shared mmap: %s", strerror(errno));
	memset(st, 0, sizeof(*st));
	klog0 = klog_trouble(klast, sizeof(klast));

	/* The execute-only key exists before any thread can take all the keys. */
	for (int i = 0; i < NPAGES; i++) {
		pages[i].addr = (unsigned char *)map_anon_page();
		memset(pages[i].addr, FILL, page_size());
	}
	memcpy(pages[0].addr, RET42, 6);
	if (mprotect(pages[0].addr, page_size(), PROT_EXEC))
		tap_bail("setup: mprotect(PROT_EXEC): %s", strerror(errno));
	xo_key = smaps_pkey(pages[0].addr);
	pages[0].state = ST_XO;
	pages[0].key = xo_key;
	if (!tap_ok(xo_key > 0 && xo_key < NKEYS && rdpkru() == PKRU_DEFAULT,
		    "setup: the execute-only key is %d (smaps), main's PKRU is the default %#x (got %#x)", xo_key,
		    PKRU_DEFAULT, rdpkru()))
		return tap_done();
	errno = 0;
	have_pkey_get = sys_pkey_get(1, 0) >= 0 || errno != ENOSYS;
	if (!have_pkey_get)
		tap_diag("pkey_get(2) is ENOSYS: a kernel without the series; its checks are skipped");

	pthread_rwlockattr_init(&rwa);
	pthread_rwlockattr_setkind_np(&rwa, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&keys_lock, &rwa);

	t0 = now();
	for (int i = 0; i < OWNERS; i++) {
		oargs[i].id = i + 1;
		if (pthread_create(&owners[i], NULL, owner_main, &oargs[i]))
			tap_bail("setup: pthread_create");
	}
	for (int i = 0; i < READERS; i++)
		if (pthread_create(&readers[i], NULL, reader_main, (void *)(uintptr_t)(i + 1)))
			tap_bail("setup: pthread_create");
	if (pthread_create(&flipper, NULL, flipper_main, NULL) || pthread_create(&spawner, NULL, spawner_main, NULL) ||
	    pthread_create(&forker, NULL, forker_main, NULL) || pthread_create(&auditor, NULL, auditor_main, NULL))
		tap_bail("setup: pthread_create");
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, true);
	for (int i = 0; i < OWNERS; i++)
		pthread_join(owners[i], NULL);
	for (int i = 0; i < READERS; i++)
		pthread_join(readers[i], NULL);
	pthread_join(flipper, NULL);
	pthread_join(spawner, NULL);
	pthread_join(forker, NULL);
	pthread_join(auditor, NULL);
	took = now() - t0;
	tap_diag("storm of %.1f s (asked %.1f s): %lu loads discarded because the page changed during them", took, secs,
		 atomic_load(&st->raced));

	for (int c = 0; c < NCTX; c++) {
		char what[160];

		snprintf(what, sizeof(what), "%s: loads of execute-only pages faulted SEGV_PKUERR, key %d, exact si_addr",
			 ctx_name[c], xo_key);
		report(&st->xo[c], 1, what);
		snprintf(what, sizeof(what), "%s: loads of key-tagged pages faulted SEGV_PKUERR with the page's key",
			 ctx_name[c]);
		report(&st->keyed[c], 1, what);
		snprintf(what, sizeof(what), "%s: loads of the same pages while readable returned their bytes",
			 ctx_name[c]);
		report(&st->rw[c], 1, what);
		snprintf(what, sizeof(what), "%s: calls of the execute-only code returned 42", ctx_name[c]);
		report(&st->calls[c], 1, what);
		snprintf(what, sizeof(what), "%s: started with the default PKRU %#x", ctx_name[c], PKRU_DEFAULT);
		report(&st->pkru[c], 1, what);
	}
	report(&st->threads, 1, "thread creation during the storm (pairs of fresh readers)");
	report(&st->fork_ok, 1, "reading fork children exited 0");
	report(&st->alloc, 1, "pkey_alloc by owners: never a held key, key 0 or the execute-only key; no errno but ENOSPC");
	tap_diag("owners' pkey_alloc failed ENOSPC %lu times (all keys taken)", atomic_load(&st->enospc));
	report(&st->mprot_own, 1, "owners' pkey_mprotect with their own keys (and back to key 0) succeeded");
	if (have_pkey_get)
		report(&st->get_own, 1, "owners' pkey_get(2) of their keys returned the rights they allocated them with");
	else
		tap_skip("no pkey_get(2)", "owners' pkey_get(2) of their keys");
	report(&st->own_load, 1, "owners' own loads faulted exactly when their rights deny access");
	report(&st->free_ok, 1, "owners' pkey_free of their keys succeeded");
	if (have_pkey_get)
		report(&st->snap_get, 1,
		       "auditor: pkey_get(2) EBADF exactly for free keys and the execute-only key, own rights for held ones");
	else
		tap_skip("no pkey_get(2)", "auditor: pkey_get(2) of every key");
	report(&st->snap_alloc, 1, "auditor: pkey_alloc gave a free key while fewer than 14 were held, ENOSPC at 14");
	tap_diag("auditor: %lu of its snapshots had all 14 keys held", atomic_load(&st->snap_full));
	report(&st->double_free, 1, "auditor: pkey_free of a key succeeds once, then fails EINVAL");
	report(&st->mprot_freed, 1, "auditor: pkey_mprotect with a free key fails EINVAL, and the page keeps key 0");
	tap_ok(atomic_load(&st->freed_by_other) > 0,
	       "auditor: %lu of those keys had last been freed by another thread (an owner)",
	       atomic_load(&st->freed_by_other));
	report(&st->xo_refused, 1, "pkey_free and pkey_mprotect(PROT_READ|PROT_WRITE) of the execute-only key fail EINVAL");
	report(&st->flip, 1, "mprotect(PROT_EXEC) and back mid-storm succeeded, with the execute-only key (smaps)");
	report(&st->exec, 1, "execve from a child with every key open: the new image starts with PKRU 0x55555554, "
		"its execute-only page runs and faults");

	/* The storm is over: every held key frees once, then all 14 allocate. */
	{
		int nfree = 0, bad = 0;

		for (k = 1; k < NKEYS; k++) {
			if (!atomic_load(&owner[k]))
				continue;
			nfree++;
			r = pkey_free(k);
			e = pkey_free(k) == -1 ? errno : 0;
			if (r != 0 || e != EINVAL) {
				bad++;
				tap_diag("pkey_free(%d) after the storm: %d, then %s", k, r, errname(e));
			}
			atomic_store(&owner[k], 0);
		}
		tap_ok(!bad, "after the storm: the %d keys still held each freed once (0, then EINVAL)", nfree);
	}
	for (k = pkey_alloc(0, PKEY_DISABLE_ACCESS); k >= 0 && ngot < NKEYS; k = pkey_alloc(0, PKEY_DISABLE_ACCESS)) {
		for (int i = 0; i < ngot; i++)
			distinct &= got[i] != k;
		distinct &= k > 0 && k < NKEYS && k != xo_key;
		got[ngot++] = k;
	}
	e = errno;
	tap_ok(ngot == FREE_KEYS && distinct && k == -1 && e == ENOSPC,
	       "after the storm: %d keys allocated (want %d), distinct and neither 0 nor %d: %s; the next fails %s",
	       ngot, FREE_KEYS, xo_key, distinct ? "yes" : "no", errname(e));
	for (int i = 0; i < ngot; i++)
		pkey_free(got[i]);
	fault_read8(pages[0].addr + 2, &f);
	tap_ok(fault_is_pkuerr(&f, xo_key, pages[0].addr + 2), "after the storm: main's load of the code faults (%s)",
	       fault_str(&f));

	klog1 = klog_trouble(klast, sizeof(klast));
	if (klog0 < 0 || klog1 < 0)
		tap_skip("klogctl cannot read the kernel log", "no kernel WARNING/BUG/Oops during the storm");
	else
		tap_ok(klog1 == klog0, "no kernel WARNING/BUG/Oops during the storm (%d lines before, %d after%s%s)",
		       klog0, klog1, klog1 != klog0 ? "; last: " : "", klog1 != klog0 ? klast : "");
	return tap_done();
}
