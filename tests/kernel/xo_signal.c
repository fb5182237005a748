// SPDX-License-Identifier: GPL-2.0
/*
 * xo_signal - a signal handler never starts with execute-only code
 * readable, even when the interrupted thread had lifted the execute-only
 * key with WRPKRU (which the kernel cannot prevent).
 *
 * Proves, for a handler on the thread's stack and one on a sigaltstack:
 * the handler's PKRU has access-disable set for the execute-only key (and
 * a load of the code inside the handler faults SEGV_PKUERR), and after
 * sigreturn the thread's own PKRU, with the key open, is back.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

static unsigned char *xo_code;
static volatile uint32_t handler_pkru;
static volatile int handler_on_altstack;
static struct fault handler_fault;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	stack_t ss;

	(void)sig;
	(void)si;
	(void)uc;
	handler_pkru = rdpkru();
	sigaltstack(NULL, &ss);
	handler_on_altstack = !!(ss.ss_flags & SS_ONSTACK);
	fault_read8(xo_code + 3, &handler_fault);
}

static void run_case(int key, bool altstack)
{
	const char *where = altstack ? "on a sigaltstack" : "on the thread stack";
	struct sigaction sa;
	uint32_t open_pkru, after;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | (altstack ? SA_ONSTACK : 0);
	sigaction(SIGUSR1, &sa, NULL);

	/* Lift the execute-only key the way an attacker's WRPKRU gadget would. */
	open_pkru = pkru_with(rdpkru(), key, 0);
	wrpkru(open_pkru);
	handler_pkru = 0;
	raise(SIGUSR1);
	after = rdpkru();
	wrpkru(pkru_with(after, key, PKEY_DISABLE_ACCESS));

	tap_ok(handler_on_altstack == altstack, "the handler ran %s", where);
	tap_ok(handler_pkru & PKRU_AD(key),
	       "handler %s: PKRU %#x has access-disable for execute-only key %d, though the thread had lifted it (%#x)",
	       where, handler_pkru, key, open_pkru);
	tap_ok(fault_is_pkuerr(&handler_fault, key, xo_code + 3),
	       "handler %s: a load of the execute-only code faults SEGV_PKUERR (%s)", where, fault_str(&handler_fault));
	tap_ok(after == open_pkru, "after sigreturn from the handler %s the thread's PKRU %#x is back (got %#x)",
	       where, open_pkru, after);
}

int main(void)
{
	stack_t ss;
	int key;

	tap_init("xo_signal");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present");
	fault_setup();
	xo_code = (unsigned char *)map_anon_page();
	memcpy(xo_code, (const unsigned char[]){ 0xb8, 0x2a, 0, 0, 0, 0xc3 }, 6);	/* mov eax, 42; ret */
	if (mprotect(xo_code, page_size(), PROT_EXEC))
		tap_bail("setup: mprotect(PROT_EXEC) failed");
	key = smaps_pkey(xo_code);
	if (!tap_ok(key > 0 && key < 16, "setup: execute-only key %d", key))
		return tap_done();

	run_case(key, false);

	ss.ss_sp = malloc(SIGSTKSZ * 4);
	ss.ss_size = SIGSTKSZ * 4;
	ss.ss_flags = 0;
	if (tap_ok(ss.ss_sp && sigaltstack(&ss, NULL) == 0, "setup: sigaltstack"))
		run_case(key, true);
	return tap_done();
}
