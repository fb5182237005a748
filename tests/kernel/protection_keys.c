// SPDX-License-Identifier: GPL-2.0
/*
 * protection_keys - the upstream pkey interfaces and PKRU behave as the
 * protection keys series specified; a compact rewrite of its selftest.
 *
 * Proves:
 *  - the PKRU helpers of this file change exactly the bits they name (an
 *    earlier port had a no-op WRPKRU helper and a "clear" that cleared
 *    every other bit instead; the first checks catch both);
 *  - pkey_alloc() hands out distinct keys 1..15 until ENOSPC, applies
 *    init_val to the caller, pkey_free() takes them back, and both refuse
 *    bad arguments with EINVAL; pkey_free(0) is refused with EINVAL (the
 *    series, kernel/patches/0002: upstream frees key 0, see
 *    tests/kernel/pkey_free for why that is a hazard);
 *  - pkey_mprotect() refuses an unallocated key and tags the mapping with
 *    an allocated one (smaps "ProtectionKey"), which plain mprotect() keeps;
 *  - AD makes loads and stores fault, WD makes stores fault, with
 *    SEGV_PKUERR, si_pkey and the exact si_addr; rights 0 restores access;
 *  - PKRU is per thread: rights one thread gets from pkey_alloc() or WRPKRU
 *    do not reach another, and a new thread or a fork child starts with a
 *    copy of its creator's PKRU;
 *  - mprotect(PROT_EXEC) makes anonymous memory execute-only: it runs, loads
 *    fault on the mm's execute-only key, which pkey_alloc() never returns
 *    and pkey_free() and pkey_mprotect() refuse;
 *  - signal handlers run with the default PKRU and sigreturn restores the
 *    interrupted one.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

#define PKRU_DEFAULT	0x55555554u	/* the kernel's init_pkru_value */
#define OFF		0x123		/* probe inside the page: si_addr must be exact */

/* @r is the result of @what, a call that must fail with @err. */
static void expect_err(int r, int err, const char *what)
{
	int e = errno;

	tap_ok(r == -1 && e == err, "%s -> %s (got %d, %s)", what, errname(err), r, errname(e));
}

static void set_rights(int k, unsigned int rights)
{
	wrpkru(pkru_with(rdpkru(), k, rights));
}

/* Each section starts from the execve() default: no rights leak between them. */
static void pkru_reset(void)
{
	wrpkru(PKRU_DEFAULT);
}

/* A page tagged with a fresh key, or NULL (reported) if that failed. */
static char *key_page(unsigned int init, int *key)
{
	char *p;

	*key = pkey_alloc(0, init);
	if (!tap_ok(*key > 0, "setup: pkey_alloc(0, %u) -> %d (%s)", init, *key, errname(*key > 0 ? 0 : errno)))
		return NULL;
	p = map_anon_page();
	if (pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, *key) != 0) {
		tap_ok(false, "setup: pkey_mprotect(page, RW, %d) (%s)", *key, errname(errno));
		munmap(p, page_size());
		pkey_free(*key);
		return NULL;
	}
	return p;
}

static void drop_key_page(char *p, int key)
{
	munmap(p, page_size());
	pkey_free(key);
}

/* Allocate every key there is; errno is that of the call that failed. */
static int alloc_all(int keys[16], unsigned int init)
{
	int n = 0, k;

	errno = 0;
	while (n < 16 && (k = pkey_alloc(0, init)) >= 0)
		keys[n++] = k;
	return n;
}

static bool free_all(const int *keys, int n)
{
	bool ok = true;

	for (int i = 0; i < n; i++)
		ok &= pkey_free(keys[i]) == 0;
	return ok;
}

static void test_helpers(void)
{
	static const uint32_t vals[] = { 0, PKRU_DEFAULT, 0xaaaaaaa8u, 0xfffffffcu };
	uint32_t wrote = 0, got = 0, before = 0;
	bool same = true;
	int bad = -1;

	/* Key 0 stays open in every value: the stack is key 0. */
	for (unsigned int i = 0; i < sizeof(vals) / sizeof(vals[0]) && same; i++) {
		wrpkru(wrote = vals[i]);
		same = (got = rdpkru()) == wrote;
	}
	pkru_reset();
	tap_ok(same, "rdpkru() returns what wrpkru() wrote: 0, 0x55555554, 0xaaaaaaa8, 0xfffffffc (last %#x -> %#x)",
	       wrote, got);

	for (int k = 1; k < 16 && bad < 0; k++) {
		before = rdpkru();
		set_rights(k, 0);
		if ((got = rdpkru()) != (before & ~PKRU_AD(k)))
			bad = k;
		set_rights(k, PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE);
		if (bad < 0 && (got = rdpkru()) != (before | PKRU_WD(k)))
			bad = k;
		set_rights(k, PKEY_DISABLE_ACCESS);
		if (bad < 0 && (got = rdpkru()) != before)
			bad = k;
	}
	pkru_reset();
	tap_ok(bad < 0, "set_rights(k, 0 / AD|WD / AD) changes only key k's AD/WD bits, k = 1..15 (first bad key %d: %#x -> %#x)",
	       bad, before, got);
}

static void test_alloc_free(void)
{
	int keys[16], n, e, r;
	uint16_t seen = 0;
	bool distinct = true;
	uint32_t before;

	pkru_reset();
	n = alloc_all(keys, PKEY_DISABLE_ACCESS);
	e = errno;
	for (int i = 0; i < n; i++) {
		if (keys[i] < 1 || keys[i] > 15 || (seen & (1u << keys[i])))
			distinct = false;
		seen |= 1u << (keys[i] & 15);
	}
	/* 15 keys, less the execute-only key if something already took it. */
	tap_ok(distinct && n >= 14, "pkey_alloc() gave %d distinct keys, all in 1..15 (mask %#x)", n, seen);
	tap_ok(n < 16 && e == ENOSPC, "pkey_alloc() after the last key -> ENOSPC (got %s)", errname(e));
	r = pkey_alloc(0, 0);
	expect_err(r, ENOSPC, "pkey_alloc(0, 0) once more");
	if (r >= 0)
		pkey_free(r);
	tap_ok(free_all(keys, n), "pkey_free() takes back all %d keys", n);

	expect_err(pkey_free(keys[0]), EINVAL, "pkey_free() of the first key again, now free");
	expect_err(pkey_free(-1), EINVAL, "pkey_free(-1)");
	expect_err(pkey_free(16), EINVAL, "pkey_free(16)");
	expect_err(pkey_alloc(1, 0), EINVAL, "pkey_alloc(flags 1, 0)");
	expect_err(pkey_alloc(0, 4), EINVAL, "pkey_alloc(0, init 4)");
	expect_err(pkey_alloc(0, ~0u), EINVAL, "pkey_alloc(0, init ~0)");

	before = rdpkru();
	r = pkey_alloc(0, PKEY_DISABLE_WRITE);
	tap_ok(r > 0 && rdpkru() == pkru_with(before, r, PKEY_DISABLE_WRITE),
	       "pkey_alloc(0, PKEY_DISABLE_WRITE) -> key %d, caller's PKRU %#x -> %#x: only that key, WD", r, before, rdpkru());
	if (r > 0)
		pkey_free(r);

	/*
	 * Upstream's mm_pkey_free() only checks the allocation map, where key
	 * 0 is set at mm creation, so it frees key 0; the series refuses.  On
	 * a kernel that freed it, take it back at once: a later
	 * mprotect(PROT_EXEC) would make a free key 0 the execute-only key and
	 * deny this thread access to all of its memory.
	 */
	r = pkey_free(0);
	e = r ? errno : 0;
	tap_ok(r == -1 && e == EINVAL, "pkey_free(0) -> EINVAL, key 0 stays allocated (got %d, %s)", r, errname(e));
	if (r == 0) {
		r = pkey_alloc(0, 0);
		tap_diag("key 0 was freed; pkey_alloc() took back key %d", r);
		if (r > 0)
			pkey_free(r);
	}
	pkru_reset();
}

static void test_mprotect(void)
{
	char *p = map_anon_page();
	int free_k, k, r, sk;

	/* Allocated and freed: a key in range known not to be allocated. */
	free_k = pkey_alloc(0, 0);
	pkey_free(free_k);
	if (free_k > 0)
		expect_err(pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, free_k), EINVAL,
			   "pkey_mprotect() with a freed key");
	expect_err(pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, 16), EINVAL, "pkey_mprotect() with key 16");

	k = pkey_alloc(0, 0);
	r = pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, k);
	sk = smaps_pkey(p);
	tap_ok(k > 0 && r == 0 && sk == k, "pkey_mprotect(key %d) -> %d, smaps ProtectionKey %d", k, r, sk);
	r = mprotect(p, page_size(), PROT_READ);
	sk = smaps_pkey(p);
	tap_ok(k > 0 && r == 0 && sk == k, "a plain mprotect() keeps key %d: smaps ProtectionKey %d", k, sk);
	drop_key_page(p, k);
	pkru_reset();
}

static void test_access(void)
{
	struct fault f;
	char *p, *a;
	bool rd, wr;
	int k;

	pkru_reset();
	p = key_page(0, &k);
	if (!p)
		return;
	a = p + OFF;
	*a = 0x33;

	set_rights(k, PKEY_DISABLE_ACCESS);
	fault_read8(a, &f);
	tap_ok(fault_is_pkuerr(&f, k, a), "AD on key %d: a load at page+%#x faults SEGV_PKUERR, si_pkey %d, exact si_addr (%s)",
	       k, OFF, k, fault_str(&f));
	fault_store8(a, 0x5a, &f);
	tap_ok(fault_is_pkuerr(&f, k, a), "AD on key %d: a store faults SEGV_PKUERR the same way (%s)", k, fault_str(&f));

	set_rights(k, PKEY_DISABLE_WRITE);
	fault_read8(a, &f);
	tap_ok(!f.hit, "WD on key %d: a load works (%s)", k, fault_str(&f));
	fault_store8(a, 0x5a, &f);
	tap_ok(fault_is_pkuerr(&f, k, a), "WD on key %d: a store faults SEGV_PKUERR, si_pkey %d, exact si_addr (%s)",
	       k, k, fault_str(&f));

	set_rights(k, 0);
	rd = !fault_read8(a, &f);
	wr = rd && *a == 0x33 && !fault_store8(a, 0x5a, &f) && *a == 0x5a;
	tap_ok(rd && wr, "rights 0 on key %d: the blocked accesses work, the data intact (%s)", k, fault_str(&f));
	drop_key_page(p, k);
	pkru_reset();
}

struct peer {
	pthread_barrier_t bar;
	char *a;
	int k;
	uint32_t pkru0, pkru1;
	struct fault rd0, rd1, wr1;
};

/* Started before main allocates the key: it keeps the rights it had. */
static void *peer_fn(void *arg)
{
	struct peer *p = arg;

	pthread_barrier_wait(&p->bar);	/* main has allocated k and tagged the page */
	if (p->k < 0)
		return NULL;
	p->pkru0 = rdpkru();
	fault_read8(p->a, &p->rd0);
	set_rights(p->k, PKEY_DISABLE_WRITE);
	p->pkru1 = rdpkru();
	fault_read8(p->a, &p->rd1);
	fault_store8(p->a, 0x5a, &p->wr1);
	return NULL;
}

/* Started after main made k write-disabled: what did it inherit? */
static void *child_fn(void *arg)
{
	struct peer *p = arg;

	p->pkru0 = rdpkru();
	fault_read8(p->a, &p->rd0);
	fault_store8(p->a, 0x5a, &p->wr1);
	return NULL;
}

static void test_threads(void)
{
	struct peer pr = { .k = -1 }, ch = { .k = -1 };
	struct fault f;
	pthread_t t;
	uint32_t mine;
	bool stored;
	char *p;
	int k;

	pkru_reset();
	pthread_barrier_init(&pr.bar, NULL, 2);
	if (!tap_ok(pthread_create(&t, NULL, peer_fn, &pr) == 0, "setup: pthread_create"))
		return;
	p = key_page(0, &k);
	pr.k = p ? k : -1;
	pr.a = p ? p + OFF : NULL;
	pthread_barrier_wait(&pr.bar);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&pr.bar);
	if (!p)
		return;
	mine = rdpkru();

	tap_ok((pr.pkru0 & PKRU_AD(k)) && fault_is_pkuerr(&pr.rd0, k, pr.a),
	       "main's pkey_alloc(init 0) opened key %d for main only: an older thread still has AD (PKRU %#x), its load faults (%s)",
	       k, pr.pkru0, fault_str(&pr.rd0));
	tap_ok(pr.pkru1 == pkru_with(pr.pkru0, k, PKEY_DISABLE_WRITE) && !pr.rd1.hit && fault_is_pkuerr(&pr.wr1, k, pr.a),
	       "that thread's WRPKRU (key %d WD) rules its accesses: load ok, store faults (PKRU %#x, %s)",
	       k, pr.pkru1, fault_str(&pr.wr1));
	stored = !fault_store8(pr.a, 0x5a, &f);
	tap_ok(!(mine & (PKRU_AD(k) | PKRU_WD(k))) && stored,
	       "that thread's WRPKRU is not seen by main: main's PKRU %#x leaves key %d open, its store works (%s)",
	       mine, k, fault_str(&f));

	/* clone() copies the creator's PKRU: WD, unlike the AD default. */
	set_rights(k, PKEY_DISABLE_WRITE);
	mine = rdpkru();
	ch.a = pr.a;
	ch.k = k;
	if (tap_ok(pthread_create(&t, NULL, child_fn, &ch) == 0, "setup: pthread_create"))
		pthread_join(t, NULL);
	tap_ok(ch.pkru0 == mine && !ch.rd0.hit && fault_is_pkuerr(&ch.wr1, k, ch.a),
	       "a new thread starts with its creator's PKRU %#x (got %#x): key %d load ok, store faults (%s)",
	       mine, ch.pkru0, k, fault_str(&ch.wr1));
	drop_key_page(p, k);
	pkru_reset();
}

static void test_fork(void)
{
	struct fault f;
	uint32_t mine;
	char *p, *a;
	int k, st = -1;
	pid_t pid;

	pkru_reset();
	p = key_page(0, &k);
	if (!p)
		return;
	a = p + OFF;
	set_rights(k, PKEY_DISABLE_WRITE);
	mine = rdpkru();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		/* No TAP output here: the parent reports from the exit status. */
		if (rdpkru() != mine)
			bad |= 1;
		if (fault_read8(a, &f))
			bad |= 2;
		if (!fault_store8(a, 0x5a, &f) || !fault_is_pkuerr(&f, k, a))
			bad |= 4;
		_exit(bad);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && !(WEXITSTATUS(st) & 1),
	       "a fork child starts with the parent's PKRU %#x (wait status %#x)", mine, st);
	tap_ok(pid > 0 && WIFEXITED(st) && !(WEXITSTATUS(st) & 6),
	       "in the fork child key %d stays write-disabled: load ok, store faults SEGV_PKUERR (wait status %#x)", k, st);
	drop_key_page(p, k);
	pkru_reset();
}

static volatile uint32_t handler_pkru;
static volatile sig_atomic_t handler_ran;

static void on_usr1(int sig)
{
	(void)sig;
	handler_pkru = rdpkru();
	handler_ran = 1;
}

static void test_signal(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct fault f;
	uint32_t before, after;
	char *p;
	int k;

	pkru_reset();
	p = key_page(0, &k);
	if (!p)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	before = rdpkru();
	raise(SIGUSR1);
	after = rdpkru();
	tap_ok(handler_ran && handler_pkru == PKRU_DEFAULT && !(before & PKRU_AD(k)),
	       "a SIGUSR1 handler runs with the default PKRU %#x (got %#x), though the thread had opened key %d (%#x)",
	       PKRU_DEFAULT, handler_pkru, k, before);
	tap_ok(after == before, "after the handler returns the thread's PKRU is back: %#x (got %#x)", before, after);

	/* The SIGSEGV of a PKU fault too: the handler could not touch key k. */
	set_rights(k, PKEY_DISABLE_WRITE);
	fault_store8(p + OFF, 0x5a, &f);
	tap_ok(fault_is_pkuerr(&f, k, p + OFF) && f.pkru == PKRU_DEFAULT,
	       "the SIGSEGV handler of a key %d fault runs with the default PKRU too (got %#x, %s)", k, f.pkru, fault_str(&f));
	signal(SIGUSR1, SIG_DFL);
	drop_key_page(p, k);
	pkru_reset();
}

static void test_execute_only(void)
{
	static const unsigned char ret42[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };	/* mov $42, %eax; ret */
	char *code = map_anon_page(), *other = map_anon_page();
	int (*fn)(void) = (int (*)(void))(void *)code;
	int keys[16], n, xo, r;
	bool handed_out = false;
	struct fault f;
	uint32_t pkru;

	memcpy(code, ret42, sizeof(ret42));
	__builtin___clear_cache(code, code + sizeof(ret42));
	/* All keys open, so that the AD the kernel sets for the key shows. */
	wrpkru(0);
	r = mprotect(code, page_size(), PROT_EXEC);
	pkru = rdpkru();
	xo = smaps_pkey(code);
	if (!tap_ok(r == 0 && xo > 0 && xo < 16, "mprotect(PROT_EXEC) -> %d gives the mapping a non-zero key: smaps ProtectionKey %d",
		    r, xo))
		goto out;
	tap_ok(fn() == 42, "the execute-only code runs: it returns 42");
	tap_ok(pkru == PKRU_AD(xo), "mprotect(PROT_EXEC) set AD for key %d, and only that, in the caller's PKRU (0 -> %#x)",
	       xo, pkru);
	fault_read8(code + 2, &f);
	tap_ok(fault_is_pkuerr(&f, xo, code + 2), "a load of the code faults SEGV_PKUERR with si_pkey %d at code+2 (%s)",
	       xo, fault_str(&f));

	expect_err(pkey_free(xo), EINVAL, "pkey_free() of the execute-only key");
	expect_err(pkey_mprotect(other, page_size(), PROT_READ | PROT_WRITE, xo), EINVAL,
		   "pkey_mprotect() with the execute-only key");
	n = alloc_all(keys, PKEY_DISABLE_ACCESS);
	for (int i = 0; i < n; i++)
		handed_out |= keys[i] == xo;
	free_all(keys, n);
	tap_ok(n == 14 && !handed_out, "pkey_alloc() until ENOSPC gives the other 14 keys, never %d (got %d keys%s)",
	       xo, n, handed_out ? ", including it" : "");
out:
	munmap(code, page_size());
	munmap(other, page_size());
	pkru_reset();
}

int main(void)
{
	tap_init("protection_keys");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	fault_setup();

	test_helpers();
	test_alloc_free();
	test_mprotect();
	test_access();
	test_threads();
	test_fork();
	test_signal();
	/* Last: the execute-only key, once taken, stays taken. */
	test_execute_only();
	return tap_done();
}
