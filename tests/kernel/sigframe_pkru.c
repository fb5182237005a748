// SPDX-License-Identifier: GPL-2.0
/*
 * sigframe_pkru - a signal whose frame cannot be written leaves PKRU as
 * it was (issue 12, finding 1; kernel/patches/0001).
 *
 * 6.12's get_sigframe() opens every key (sig_prepare_pkru() writes PKRU
 * 0) so that XSAVE can write the fpstate to a pkey-protected sigaltstack,
 * and puts the old value back only when that fpstate write fails.  When
 * the fpstate fits but the rt_sigframe below it does not, handle_signal()
 * goes to force_sigsegv() with PKRU still 0; the SIGSEGV handler's frame
 * saves that 0 and its sigreturn loads it: the thread runs on with every
 * key open and reads its execute-only code.
 *
 * Proves, for a sigaltstack whose upper page(s) (the fpstate) are writable
 * and whose lower page (the rt_sigframe) is read-only, and for one that is
 * wholly read-only (the fpstate write fails, the path that was already
 * restored): the SA_ONSTACK handler does not run and a SIGSEGV (SI_KERNEL)
 * is delivered instead (the layout did what it is meant to: without this
 * row the others prove nothing); once that SIGSEGV handler has returned,
 * PKRU is exactly what it was before the signal; and a load of the
 * execute-only page still faults SEGV_PKUERR.
 */
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

static unsigned char *xo_code;
static volatile sig_atomic_t usr1_ran, segv_count;
static volatile int segv_code;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_ran = 1;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	segv_count++;
	segv_code = si->si_code;
}

/*
 * The size of the fpstate the kernel puts on a 64-bit signal frame: the
 * XSAVE area of the features XCR0 enables (CPUID 0xD.0 EBX) and the 4-byte
 * FP_XSTATE_MAGIC2 after it (fpu__alloc_mathframe()).
 */
static size_t sigframe_fpstate_size(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d) || b < 512)
		tap_bail("setup: CPUID 0xD.0 gives no XSAVE area size");
	return b + 4;
}

/*
 * Raise a SIGUSR1 whose handler runs on a sigaltstack of one read-only
 * page followed by @rw_pages writable pages (@rw_pages == 0: all of it
 * read-only).  The top of the stack is set so that the fpstate starts just
 * above the read-only page: it fits, and the rt_sigframe, which
 * get_sigframe() puts right below it, lands in the read-only page.
 */
static void run_case(const char *what, size_t rw_pages, int key)
{
	size_t ps = page_size(), fps = sigframe_fpstate_size();
	size_t npages = 1 + (rw_pages ? rw_pages : 1);
	struct sigaction sa;
	struct fault f;
	uint32_t before, after;
	unsigned char *stk;
	stack_t ss;

	stk = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stk == MAP_FAILED)
		tap_bail("setup: mmap of the signal stack: %s", errname(errno));
	if (mprotect(stk, rw_pages ? ps : npages * ps, PROT_READ))
		tap_bail("setup: mprotect(PROT_READ) of the signal stack: %s", errname(errno));
	ss.ss_sp = stk;
	/* fpstate = round_down(top - fps, 64): 64 bytes above the RO page */
	ss.ss_size = ps + ((fps + 63) & ~(size_t)63) + 64;
	ss.ss_flags = 0;
	if (ss.ss_size > npages * ps)
		tap_bail("setup: an fpstate of %zu bytes does not fit %zu pages", fps, npages - 1);
	if (sigaltstack(&ss, NULL))
		tap_bail("setup: sigaltstack: %s", errname(errno));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	/* on the thread's own stack, and not SA_NODEFER: no nesting */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);

	usr1_ran = 0;
	segv_count = 0;
	segv_code = 0;
	before = rdpkru();
	raise(SIGUSR1);
	after = rdpkru();
	/* back to the probing handlers before anything can fault */
	fault_setup();
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);

	tap_ok(!usr1_ran && segv_count == 1 && segv_code == SI_KERNEL,
	       "%s: the frame could not be written: handler ran %d, SIGSEGVs %d, si_code %d (want 0, 1, SI_KERNEL %d)",
	       what, (int)usr1_ran, (int)segv_count, segv_code, SI_KERNEL);
	tap_ok(after == before && (after & PKRU_AD(key)),
	       "%s: after the SIGSEGV handler returned PKRU is %#x as before (got %#x)", what, before, after);
	fault_read8(xo_code, &f);
	tap_ok(fault_is_pkuerr(&f, key, xo_code), "%s: a load of the execute-only page faults SEGV_PKUERR (%s)", what,
	       fault_str(&f));
	/* whatever the kernel left, the next case starts from the same PKRU */
	wrpkru(before);
	munmap(stk, npages * ps);
}

int main(void)
{
	int key;

	tap_init("sigframe_pkru");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present");
	fault_setup();
	xo_code = (unsigned char *)map_anon_page();
	xo_code[0] = 0xc3;	/* ret */
	if (mprotect(xo_code, page_size(), PROT_EXEC))
		tap_bail("setup: mprotect(PROT_EXEC): %s", errname(errno));
	key = smaps_pkey(xo_code);
	if (!tap_ok(key > 0 && key < 16 && (rdpkru() & PKRU_AD(key)),
		    "setup: execute-only key %d, access-disabled in PKRU %#x", key, rdpkru()))
		return tap_done();
	tap_diag("fpstate on the signal frame: %zu bytes", sigframe_fpstate_size());

	run_case("fpstate writable, rt_sigframe read-only", 2, key);
	run_case("whole sigaltstack read-only", 0, key);
	return tap_done();
}
