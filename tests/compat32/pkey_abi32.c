// SPDX-License-Identifier: GPL-2.0
/*
 * pkey_abi32 - the pkey system calls and execute-only memory in a 32-bit
 * process: a -m32 static program, run under IA32_EMULATION, so every call
 * goes through the i386 entry (syscall_32.tbl, patch 0050) and every
 * signal through the ia32 signal frame.
 *
 * Proves, with pkeys:
 *  - pkey_alloc(), pkey_mprotect() and pkey_free() (380-382) work through
 *    the i386 ABI and refuse bad arguments with EINVAL;
 *  - pkey_get() and pkey_set() (1000/1001 in both tables) are wired: through
 *    the vDSO's __kernel_vsyscall (what glibc's syscall() uses) and through
 *    int $0x80 alike, with the documented errnos: EINVAL for flags, rights
 *    and keys outside 0..15, EBADF for an unallocated key and for the
 *    execute-only key; a refused pkey_set() leaves PKRU alone;
 *  - pkey_set() writes exactly the key's PKRU bits, pkey_get() reads them
 *    back (also after a WRPKRU of its own), and the MMU enforces them: a
 *    load faults SEGV_PKUERR with the key and the exact address in the
 *    32-bit siginfo;
 *  - the handler of a signal runs with the default PKRU and rt_sigreturn of
 *    the ia32 frame restores the interrupted one;
 *  - mprotect(PROT_EXEC) of a page of this program's code gives it the
 *    execute-only key: a read faults SEGV_PKUERR with that key and the exact
 *    address, a call still runs, pkey_set() cannot open the key, and
 *    PROT_READ|PROT_EXEC makes the page readable again (except in xonly
 *    mode, where that request is execute-only too).
 * Without pkeys (the nopku boot): pkey_alloc() fails ENOSPC, pkey_get() and
 * pkey_set() refuse every key but 0 with EINVAL, and mprotect(PROT_EXEC)
 * leaves the code page readable with no key in smaps: nothing claims a
 * protection that is not there.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#ifndef __i386__
#error "pkey_abi32 tests the i386 ABI: build it with -m32"
#endif

#define PKRU_DEFAULT	0x55555554u	/* the kernel's init_pkru_value */
#define OFF		0x123		/* probe inside the page: si_addr must be exact */
#define CODE_MAGIC	0x600dc0de

/*
 * One page of code that nothing else shares: mprotect() of it cannot
 * take away anything the rest of the program reads or runs.
 */
__asm__(".pushsection .text.xo_page, \"ax\", @progbits\n"
	".balign 4096\n"
	".globl xo_page_code\n"
	"xo_page_code:\n"
	"	movl $0x600dc0de, %eax\n"	/* CODE_MAGIC */
	"	ret\n"
	".balign 4096\n"
	".popsection\n");
int xo_page_code(void);

/* The two ways into the i386 entry; both return -errno like the kernel. */
static long int80(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

static long vsyscall(long nr, long a, long b, long c)
{
	void *entry = (void *)getauxval(AT_SYSINFO);
	long r;

	__asm__ volatile("call *%[entry]" : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), [entry] "S"(entry) : "memory");
	return r;
}

static void expect_err(int r, int err, const char *what)
{
	int e = errno;

	tap_ok(r == -1 && e == err, "%s -> %s (got %d, %s)", what, errname(err), r, errname(e));
}

/* A call that must succeed (return 0); the errno is named if it did not. */
static bool call_ok(int r, const char *what)
{
	return tap_ok(r == 0, "%s (%s)", what, errname(r ? errno : 0));
}

static void get_err(int pkey, unsigned long flags, int err, const char *why)
{
	char what[128];

	errno = 0;
	snprintf(what, sizeof(what), "pkey_get(%d, %#lx): %s", pkey, flags, why);
	expect_err(sys_pkey_get(pkey, flags), err, what);
}

/* A refused pkey_set() must not have changed PKRU on the way (@pkru). */
static void set_err(int pkey, unsigned long rights, unsigned long flags, int err, bool pkru, const char *why)
{
	uint32_t before = pkru ? rdpkru() : 0, after;
	int r, e;

	errno = 0;
	r = sys_pkey_set(pkey, rights, flags);
	e = errno;
	after = pkru ? rdpkru() : 0;
	tap_ok(r == -1 && e == err && after == before,
	       "pkey_set(%d, %#lx, %#lx) -> %s, PKRU unchanged: %s (got %d, %s, PKRU %#x -> %#x)",
	       pkey, rights, flags, errname(err), why, r, errname(e), before, after);
}

static void test_alloc(int *k, int *free_k)
{
	int r;

	errno = 0;
	expect_err(pkey_alloc(1, 0), EINVAL, "pkey_alloc(flags 1, 0)");
	expect_err(pkey_alloc(0, 4), EINVAL, "pkey_alloc(0, init_val 4)");
	*k = pkey_alloc(0, PKEY_DISABLE_WRITE);
	tap_ok(*k >= 1 && *k <= 15, "pkey_alloc(0, PKEY_DISABLE_WRITE) -> key %d in 1..15 (%s)", *k, errname(*k < 0 ? errno : 0));
	if (*k < 1)
		tap_bail("no key to test with");
	tap_ok(pkru_rights(rdpkru(), *k) == PKEY_DISABLE_WRITE, "pkey_alloc's init_val is in PKRU (PKRU %#x)", rdpkru());
	r = sys_pkey_get(*k, 0);
	tap_ok(r == PKEY_DISABLE_WRITE, "pkey_get(%d) reads init_val back (%d, %s)", *k, r, errname(r < 0 ? errno : 0));

	/* A key in range that is not allocated: allocate and free one. */
	*free_k = pkey_alloc(0, 0);
	tap_ok(*free_k > 0 && pkey_free(*free_k) == 0, "setup: a second key %d, allocated and freed", *free_k);
	expect_err(pkey_free(*free_k), EINVAL, "pkey_free() of a freed key");
	expect_err(pkey_free(16), EINVAL, "pkey_free(16)");
}

static void test_entries(int k)
{
	long r;

	sys_pkey_set(k, PKEY_DISABLE_ACCESS, 0);
	r = int80(XONLY_NR_pkey_get, k, 0, 0);
	tap_ok(r == PKEY_DISABLE_ACCESS, "int $0x80 reaches pkey_get (%ld)", r);
	r = int80(XONLY_NR_pkey_get, k, 1, 0);
	tap_ok(r == -EINVAL, "int $0x80 pkey_get with flags 1 -> -EINVAL (%ld)", r);
	r = int80(XONLY_NR_pkey_set, k, 0, 0);
	tap_ok(r == 0 && pkru_rights(rdpkru(), k) == 0, "int $0x80 reaches pkey_set (%ld, PKRU %#x)", r, rdpkru());
	if (!getauxval(AT_SYSINFO)) {
		tap_skip("no AT_SYSINFO", "the vDSO's __kernel_vsyscall reaches pkey_get and pkey_set");
		return;
	}
	r = vsyscall(XONLY_NR_pkey_set, k, PKEY_DISABLE_WRITE, 0);
	tap_ok(r == 0 && pkru_rights(rdpkru(), k) == PKEY_DISABLE_WRITE,
	       "__kernel_vsyscall reaches pkey_set (%ld, PKRU %#x)", r, rdpkru());
	r = vsyscall(XONLY_NR_pkey_get, k, 0, 0);
	tap_ok(r == PKEY_DISABLE_WRITE, "__kernel_vsyscall reaches pkey_get (%ld)", r);
}

static void test_errors(int k, int free_k)
{
	get_err(-1, 0, EINVAL, "negative key");
	get_err(16, 0, EINVAL, "past the 16 hardware keys");
	get_err(k, 1, EINVAL, "flags must be 0");
	get_err(k, 0x80000000ul, EINVAL, "flags must be 0 (the 32-bit sign bit)");
	get_err(free_k, 1, EINVAL, "flags are checked before the key");
	get_err(free_k, 0, EBADF, "in range but not allocated");

	/* k open, so that rights applied in part would show in PKRU. */
	sys_pkey_set(k, 0, 0);
	set_err(-1, 0, 0, EINVAL, true, "negative key");
	set_err(16, 0, 0, EINVAL, true, "past the 16 hardware keys");
	set_err(k, 0, 1, EINVAL, true, "flags must be 0");
	set_err(k, 4, 0, EINVAL, true, "rights bit 2 is not PKEY_DISABLE_*");
	set_err(k, 0xffffffff, 0, EINVAL, true, "rights ~0 (32 bits) is refused whole, not masked");
	set_err(free_k, PKEY_DISABLE_ACCESS, 0, EBADF, true, "in range but not allocated");
}

static void test_rights(int k)
{
	char *p = map_anon_page();
	unsigned int rights;
	struct fault f;
	bool ok = true;
	int r, tag;

	r = pkey_mprotect(p, page_size(), PROT_READ | PROT_WRITE, k);
	tag = smaps_pkey(p);
	tap_ok(r == 0 && tag == k, "pkey_mprotect(page, RW, %d) tags it (%d, smaps ProtectionKey %d)", k, r, tag);
	for (rights = 0; rights < 4; rights++) {
		uint32_t before = rdpkru();

		ok &= sys_pkey_set(k, rights, 0) == 0 && rdpkru() == pkru_with(before, k, rights) &&
		      sys_pkey_get(k, 0) == (int)rights;
	}
	tap_ok(ok, "pkey_set() writes exactly key %d's two PKRU bits and pkey_get() reads them, all four rights", k);
	wrpkru(pkru_with(rdpkru(), k, PKEY_DISABLE_WRITE));
	tap_ok(sys_pkey_get(k, 0) == PKEY_DISABLE_WRITE, "pkey_get() reads the register, not a copy: WRPKRU's WD shows");

	sys_pkey_set(k, PKEY_DISABLE_ACCESS, 0);
	fault_read8(p + OFF, &f);
	tap_ok(fault_is_pkuerr(&f, k, p + OFF), "after pkey_set(AD) a load faults in the 32-bit siginfo: %s", fault_str(&f));
	tap_ok(f.pkru == PKRU_DEFAULT, "the SIGSEGV handler ran with the default PKRU (%#x)", f.pkru);
	sys_pkey_set(k, PKEY_DISABLE_WRITE, 0);
	ok = !fault_read8(p + OFF, &f) && fault_store8(p + OFF, 1, &f);
	tap_ok(ok && fault_is_pkuerr(&f, k, p + OFF), "after pkey_set(WD) loads work and a store faults: %s", fault_str(&f));
	sys_pkey_set(k, 0, 0);
	ok = !fault_write8(p + OFF, &f);
	tap_ok(ok, "after pkey_set(0) loads and stores work: %s", fault_str(&f));
	munmap(p, page_size());
}

static volatile uint32_t handler_pkru;

static void record_pkru(int sig)
{
	(void)sig;
	handler_pkru = rdpkru();
}

static void test_sigreturn(int k)
{
	uint32_t mine;

	signal(SIGUSR1, record_pkru);
	sys_pkey_set(k, PKEY_DISABLE_WRITE, 0);
	mine = rdpkru();
	raise(SIGUSR1);
	tap_ok(handler_pkru == PKRU_DEFAULT && rdpkru() == mine,
	       "a handler runs with the default PKRU (%#x) and the ia32 rt_sigreturn restores the interrupted one (%#x, want %#x)",
	       handler_pkru, rdpkru(), mine);
	signal(SIGUSR1, SIG_DFL);
}

static void test_exec_only(bool xonly)
{
	char *page = (char *)xo_page_code, *data;
	struct fault f;
	bool faulted;
	int xo;

	/*
	 * The control: before the mprotect() the page is readable, unless
	 * xonly mode mapped the program's code execute-only at exec.
	 */
	faulted = fault_read8(page + OFF, &f);
	if (xonly)
		tap_ok(faulted && f.code == SEGV_PKUERR, "xonly mode: the code page is execute-only from exec: %s", fault_str(&f));
	else
		tap_ok(!faulted, "control: the code page is readable before mprotect(): %s", fault_str(&f));
	if (!call_ok(mprotect(page, page_size(), PROT_EXEC), "mprotect(code page, PROT_EXEC)"))
		return;
	xo = smaps_pkey(page);
	tap_ok(xo > 0, "it has the execute-only key (smaps ProtectionKey %d)", xo);
	fault_read8(page + OFF, &f);
	tap_ok(fault_is_pkuerr(&f, xo, page + OFF), "a read of it faults: %s", fault_str(&f));
	tap_ok(xo_page_code() == CODE_MAGIC, "a call into it still runs");
	get_err(xo, 0, EBADF, "the execute-only key is not the process's to ask about");
	set_err(xo, 0, 0, EBADF, true, "pkey_set() cannot open the execute-only key");
	faulted = fault_read8(page + OFF, &f);
	tap_ok(faulted && f.code == SEGV_PKUERR, "... and the page still faults: %s", fault_str(&f));
	data = map_anon_page();
	expect_err(pkey_mprotect(data, page_size(), PROT_READ, xo), EINVAL, "pkey_mprotect() with the execute-only key");
	munmap(data, page_size());
	expect_err(pkey_free(xo), EINVAL, "pkey_free() of the execute-only key");

	if (!call_ok(mprotect(page, page_size(), PROT_READ | PROT_EXEC), "mprotect(code page, R|X)"))
		return;
	faulted = fault_read8(page + OFF, &f);
	xo = smaps_pkey(page);
	if (xonly)
		tap_ok(faulted && f.code == SEGV_PKUERR, "xonly mode: R|X of file-backed code stays execute-only: %s",
		       fault_str(&f));
	else
		tap_ok(!faulted && xo == 0, "R|X makes it readable again, key 0 (%s, key %d)", fault_str(&f), xo);
	tap_ok(xo_page_code() == CODE_MAGIC, "and it still runs");
}

/* What a kernel gives a 32-bit process on a CPU without (enabled) pkeys. */
static void test_nopkeys(void)
{
	char *page = (char *)xo_page_code;
	struct fault f;
	bool faulted;
	int key;

	errno = 0;
	expect_err(pkey_alloc(0, 0), ENOSPC, "without pkeys pkey_alloc(0, 0)");
	get_err(1, 0, EINVAL, "without pkeys only key 0 is in range");
	get_err(15, 0, EINVAL, "without pkeys only key 0 is in range");
	set_err(1, 0, 0, EINVAL, false, "without pkeys only key 0 is in range");
	get_err(0, 1, EINVAL, "flags must be 0");
	call_ok(mprotect(page, page_size(), PROT_EXEC), "mprotect(code page, PROT_EXEC)");
	faulted = fault_read8(page + OFF, &f);
	key = smaps_pkey(page);
	tap_ok(!faulted && key == -1, "without pkeys it stays readable and smaps names no key (%s, key %d)",
	       fault_str(&f), key);
	tap_ok(xo_page_code() == CODE_MAGIC, "and it still runs");
}

int main(void)
{
	bool xonly;
	int k, free_k;

	tap_init("compat32/pkey_abi32");
	fault_setup();
	errno = 0;
	if (sys_pkey_get(0, 0) == -1 && errno == ENOSYS)
		tap_bail("pkey_get is ENOSYS through the i386 ABI: no syscall_32.tbl entry (patch 0050)?");
	if (!pkru_supported()) {
		tap_diag("no PKU/OSPKE: testing what a 32-bit process gets without pkeys");
		test_nopkeys();
		return tap_done();
	}
	xonly = xonly_get(0, 0, 0, 0) >= 1;	/* 1, or 2 at the strict level */
	tap_diag("PKRU %#x at start, xonly mode %s", rdpkru(), xonly ? "on" : "off");

	test_alloc(&k, &free_k);
	test_entries(k);
	test_errors(k, free_k);
	test_rights(k);
	test_sigreturn(k);
	call_ok(pkey_free(k), "pkey_free() of the test's key");
	get_err(k, 0, EBADF, "a freed key");
	test_exec_only(xonly);
	return tap_done();
}
