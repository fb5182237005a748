// SPDX-License-Identifier: GPL-2.0
/*
 * pkey_syscalls - the pkey_get() and pkey_set() system calls that the
 * xonly series adds (kernel/patches/0002) do what its commit message says.
 *
 * Proves: the calls exist (a kernel without the series is reported as one
 * failure, not crashed on); every bad argument is refused with the
 * documented errno, EINVAL for flags, rights and keys outside 0..15, EBADF
 * for a key in range that is not allocated (the execute-only key included,
 * so pkey_set() cannot open it), and a refused pkey_set() leaves PKRU
 * alone; pkey_set() writes exactly the key's two PKRU bits and pkey_get()
 * reads exactly them, for all four rights on every allocatable key;
 * pkey_alloc()'s init_val is what pkey_get() then reports; the MMU enforces
 * what pkey_set() set; both calls act on the calling thread only, and a new
 * thread or a fork child starts with its creator's rights.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define OFF	0x123	/* probe inside the page, not at its start */

static void get_err(int pkey, unsigned long flags, int err, const char *why)
{
	int r, e;

	errno = 0;
	r = sys_pkey_get(pkey, flags);
	e = errno;
	tap_ok(r == -1 && e == err, "pkey_get(%d, %#lx) -> %s: %s (got %d, %s)", pkey, flags, errname(err), why, r, errname(e));
}

static void set_err(int pkey, unsigned long rights, unsigned long flags, int err, const char *why)
{
	uint32_t before = rdpkru(), after;
	int r, e;

	errno = 0;
	r = sys_pkey_set(pkey, rights, flags);
	e = errno;
	after = rdpkru();
	tap_ok(r == -1 && e == err && after == before, "pkey_set(%d, %#lx, %#lx) -> %s, PKRU unchanged: %s (got %d, %s, PKRU %#x -> %#x)",
	       pkey, rights, flags, errname(err), why, r, errname(e), before, after);
}

static void test_errors(int k, int free_k, int xo)
{
	get_err(-1, 0, EINVAL, "negative key");
	get_err(16, 0, EINVAL, "past the 16 hardware keys");
	get_err(INT_MAX, 0, EINVAL, "INT_MAX key");
	get_err(INT_MIN, 0, EINVAL, "INT_MIN key");
	get_err(0, 1, EINVAL, "flags must be 0");
	get_err(0, ~0UL, EINVAL, "flags must be 0");
	get_err(free_k, 1, EINVAL, "flags are checked before the key");
	get_err(free_k, 0, EBADF, "in range but not allocated");
	if (xo > 0)
		get_err(xo, 0, EBADF, "the execute-only key is not the process's to ask about");

	/* k open, so that a rights value applied in part would show in PKRU. */
	sys_pkey_set(k, 0, 0);
	set_err(-1, 0, 0, EINVAL, "negative key");
	set_err(16, 0, 0, EINVAL, "past the 16 hardware keys");
	set_err(INT_MAX, 0, 0, EINVAL, "INT_MAX key");
	set_err(INT_MIN, 0, 0, EINVAL, "INT_MIN key");
	set_err(k, 0, 1, EINVAL, "flags must be 0");
	set_err(k, 0, ~0UL, EINVAL, "flags must be 0");
	set_err(k, 4, 0, EINVAL, "rights bit 2 is not PKEY_DISABLE_*");
	set_err(k, 8, 0, EINVAL, "rights bit 3 is not PKEY_DISABLE_*");
	set_err(k, ~0UL, 0, EINVAL, "rights ~0 is refused whole, not masked");
	set_err(free_k, 0, 0, EBADF, "in range but not allocated");
	if (xo > 0)
		set_err(xo, 0, 0, EBADF, "the execute-only key cannot be opened");
}

/* pkey_set() -> RDPKRU, then WRPKRU -> pkey_get(), on every key in @keys. */
static void test_roundtrip(const int *keys, int n)
{
	uint32_t saved = rdpkru();

	for (unsigned int r = 0; r < 4; r++) {
		uint32_t before = 0, after = 0;
		int bad = -1, ret = 0;

		for (int i = 0; i < n && bad < 0; i++) {
			before = rdpkru();
			ret = sys_pkey_set(keys[i], r, 0);
			after = rdpkru();
			if (ret != 0 || after != pkru_with(before, keys[i], r))
				bad = keys[i];
		}
		tap_ok(n > 0 && bad < 0, "pkey_set(k, %u, 0) == 0 sets key k's PKRU bits to %u and no others, all %d keys (first bad key %d: ret %d, %#x -> %#x)",
		       r, r, n, bad, ret, before, after);
	}
	wrpkru(saved);

	for (unsigned int r = 0; r < 4; r++) {
		int bad = -1, got = 0;

		for (int i = 0; i < n && bad < 0; i++) {
			/* Every other key 1..15 gets the opposite rights; key 0 stays open. */
			uint32_t v = pkru_with(0x55555555u * (3 - r), 0, 0);

			wrpkru(pkru_with(v, keys[i], r));
			got = sys_pkey_get(keys[i], 0);
			wrpkru(saved);
			if (got != (int)r)
				bad = keys[i];
		}
		tap_ok(n > 0 && bad < 0, "after WRPKRU gives key k rights %u (the others %u), pkey_get(k, 0) == %u, all %d keys (first bad key %d: got %d)",
		       r, 3 - r, r, n, bad, got);
	}
}

struct peer {
	pthread_barrier_t bar;
	int k;
	int get0, get1, get2, set_ret;
	uint32_t pkru2;
};

static void *peer_fn(void *arg)
{
	struct peer *p = arg;

	p->get0 = sys_pkey_get(p->k, 0);	/* what it got from pthread_create() */
	pthread_barrier_wait(&p->bar);		/* main now changes its own rights */
	pthread_barrier_wait(&p->bar);
	p->get1 = sys_pkey_get(p->k, 0);
	p->set_ret = sys_pkey_set(p->k, PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE, 0);
	p->get2 = sys_pkey_get(p->k, 0);
	p->pkru2 = rdpkru();
	return NULL;
}

static void test_threads(int k)
{
	struct peer p = { .k = k };
	pthread_t t;
	int mine;
	uint32_t pkru;

	/* WD, so that a copy of it is told from the default (AD, 1). */
	sys_pkey_set(k, PKEY_DISABLE_WRITE, 0);
	pthread_barrier_init(&p.bar, NULL, 2);
	if (!tap_ok(pthread_create(&t, NULL, peer_fn, &p) == 0, "setup: pthread_create"))
		return;
	pthread_barrier_wait(&p.bar);
	sys_pkey_set(k, 0, 0);
	pthread_barrier_wait(&p.bar);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&p.bar);
	mine = sys_pkey_get(k, 0);
	pkru = rdpkru();

	tap_ok(p.get0 == PKEY_DISABLE_WRITE,
	       "a new thread starts with its creator's rights: pkey_get(%d) == 2 there, not the default 1 (got %d)", k, p.get0);
	tap_ok(p.get1 == PKEY_DISABLE_WRITE, "main's pkey_set(%d, 0) leaves the other thread's rights at 2 (got %d)", k, p.get1);
	tap_ok(p.set_ret == 0 && p.get2 == 3 && pkru_rights(p.pkru2, k) == 3,
	       "the thread's pkey_set(%d, 3) -> %d shows in its own pkey_get (%d) and RDPKRU (%#x)", k, p.set_ret, p.get2, p.pkru2);
	tap_ok(mine == 0 && pkru_rights(pkru, k) == 0,
	       "and not in main's: pkey_get(%d) == 0 (got %d), PKRU %#x", k, mine, pkru);
}

static void test_fork(int k)
{
	uint32_t pkru;
	int st = -1, after;
	pid_t pid;

	sys_pkey_set(k, PKEY_DISABLE_WRITE, 0);
	pkru = rdpkru();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		/* No TAP output here: the parent reports from the exit status. */
		if (sys_pkey_get(k, 0) != PKEY_DISABLE_WRITE)
			bad |= 1;
		if (rdpkru() != pkru)
			bad |= 2;
		sys_pkey_set(k, PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE, 0);
		_exit(bad);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	after = sys_pkey_get(k, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && !(WEXITSTATUS(st) & 1),
	       "a fork child's pkey_get(%d) is the parent's 2: key allocated and rights copied (wait status %#x)", k, st);
	tap_ok(pid > 0 && WIFEXITED(st) && !(WEXITSTATUS(st) & 2),
	       "a fork child's RDPKRU is the parent's %#x (wait status %#x)", pkru, st);
	tap_ok(after == PKEY_DISABLE_WRITE, "the child's pkey_set(%d, 3) does not reach the parent (pkey_get %d)", k, after);
}

int main(void)
{
	static const char *const rname[] = { "0", "PKEY_DISABLE_ACCESS", "PKEY_DISABLE_WRITE", "ACCESS|WRITE" };
	int keys[16], n = 0, k, free_k, xo, r, e;
	struct fault f;
	char *code, *p, *a;
	bool ok;

	tap_init("pkey_syscalls");
	errno = 0;
	r = sys_pkey_get(0, 0);
	e = errno;
	if (r == -1 && e == ENOSYS) {
		tap_ok(false, "pkey_get/pkey_set present (kernel lacks the xonly series: ENOSYS)");
		return tap_done();
	}
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	tap_ok(r == 0, "pkey_get(0, 0) == 0: key 0 is allocated and open under the default PKRU (got %d, %s)", r, errname(e));
	fault_setup();

	/* An execute-only mapping takes the mm's execute-only key. */
	code = map_anon_page();
	mprotect(code, page_size(), PROT_EXEC);
	xo = smaps_pkey(code);
	tap_ok(xo > 0 && xo < 16, "setup: mprotect(PROT_EXEC) gave the execute-only key %d", xo);

	k = pkey_alloc(0, 0);
	free_k = pkey_alloc(0, 0);
	pkey_free(free_k);	/* a key in range that is known to be free */
	if (!tap_ok(k > 0 && free_k > 0, "setup: pkey_alloc() -> %d and %d", k, free_k))
		return tap_done();
	test_errors(k, free_k, xo);
	errno = 0;
	r = sys_pkey_set(0, 0, 0);
	tap_ok(r == 0 && pkru_rights(rdpkru(), 0) == 0, "pkey_set(0, 0, 0) == 0: key 0 is always allocated (got %d, %s)",
	       r, errname(r ? errno : 0));

	/* Every key there is: the bit arithmetic must hold at each position. */
	keys[n++] = k;
	while (n < 16 && (r = pkey_alloc(0, PKEY_DISABLE_ACCESS)) > 0)
		keys[n++] = r;
	test_roundtrip(keys, n);
	for (int i = 1; i < n; i++)
		pkey_free(keys[i]);

	for (unsigned int init = 0; init < 4; init++) {
		int key = pkey_alloc(0, init), got = sys_pkey_get(key, 0);

		tap_ok(key > 0 && got == (int)init, "a key from pkey_alloc(0, %s) has pkey_get() == %u (key %d, got %d)",
		       rname[init], init, key, got);
		if (key > 0)
			pkey_free(key);
	}

	/* The rights pkey_set() gives are the ones the MMU enforces. */
	p = map_anon_page();
	a = p + OFF;
	if (tap_ok(pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, k) == 0, "setup: pkey_mprotect(page, RW, %d)", k)) {
		sys_pkey_set(k, PKEY_DISABLE_ACCESS, 0);
		fault_read8(a, &f);
		tap_ok(fault_is_pkuerr(&f, k, a), "after pkey_set(%d, PKEY_DISABLE_ACCESS) a load faults SEGV_PKUERR, si_pkey %d (%s)",
		       k, k, fault_str(&f));
		sys_pkey_set(k, PKEY_DISABLE_WRITE, 0);
		fault_read8(a, &f);
		tap_ok(!f.hit, "after pkey_set(%d, PKEY_DISABLE_WRITE) a load works (%s)", k, fault_str(&f));
		fault_store8(a, 0x5a, &f);
		tap_ok(fault_is_pkuerr(&f, k, a), "... and a store faults SEGV_PKUERR, si_pkey %d (%s)", k, fault_str(&f));
		sys_pkey_set(k, 0, 0);
		ok = !fault_read8(a, &f) && !fault_store8(a, 0x5a, &f) && *a == 0x5a;
		tap_ok(ok, "after pkey_set(%d, 0) loads and stores work (%s)", k, fault_str(&f));
	}

	test_threads(k);
	test_fork(k);

	munmap(p, page_size());
	munmap(code, page_size());
	pkey_free(k);
	return tap_done();
}
