/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fault.h - run a piece of code and record the fault it takes, if any.
 *
 * The one fault-catching helper of the tests: SIGSEGV and SIGBUS are
 * caught on the calling thread with sigsetjmp/siglongjmp, so a test can
 * probe an access, look at si_code/si_pkey/si_addr, and go on.
 */
#ifndef XONLY_FAULT_H
#define XONLY_FAULT_H

#include <stdbool.h>
#include <stdint.h>

struct fault {
	bool hit;	/* a SIGSEGV or SIGBUS was taken */
	int signo;
	int code;	/* si_code, e.g. SEGV_PKUERR */
	void *addr;	/* si_addr */
	int pkey;	/* si_pkey, valid for SEGV_PKUERR */
	uint32_t pkru;	/* PKRU the handler ran with */
};

/* Install the handlers; once per process (fork keeps them). */
void fault_setup(void);
/* Run fn(arg) on this thread; returns true if it faulted, details in *f. */
bool fault_catch(void (*fn)(void *arg), void *arg, struct fault *f);
/* Probe a 1-byte load from @p. */
bool fault_read8(const volatile void *p, struct fault *f);
/* Probe a 1-byte load then store of the byte already there to @p. */
bool fault_write8(volatile void *p, struct fault *f);
/* Probe a pure 1-byte store of @v (no load first: AD alone faults a load). */
bool fault_store8(volatile void *p, unsigned char v, struct fault *f);
/* @f is a SIGSEGV SEGV_PKUERR for key @pkey at exactly @addr. */
bool fault_is_pkuerr(const struct fault *f, int pkey, const volatile void *addr);
/* "SEGV_PKUERR pkey 3 at 0x..." or "no fault", for diagnostics. */
const char *fault_str(const struct fault *f);

#endif
