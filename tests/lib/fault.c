// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "pkru.h"

static __thread sigjmp_buf *fault_jump;
static __thread struct fault *fault_out;

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!fault_jump) {
		/* Not probing: an unexpected fault must still kill the test. */
		signal(sig, SIG_DFL);
		return;
	}
	fault_out->hit = true;
	fault_out->signo = sig;
	fault_out->code = si->si_code;
	fault_out->addr = si->si_addr;
	fault_out->pkey = si->si_code == SEGV_PKUERR ? (int)si->si_pkey : -1;
	fault_out->pkru = pkru_supported() ? rdpkru() : 0;
	siglongjmp(*fault_jump, 1);
}

void fault_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

bool fault_catch(void (*fn)(void *arg), void *arg, struct fault *f)
{
	sigjmp_buf jb;
	/* siglongjmp restores the signal mask, but not PKRU: keep it. */
	volatile uint32_t pkru = pkru_supported() ? rdpkru() : 0;

	memset(f, 0, sizeof(*f));
	f->pkey = -1;
	fault_out = f;
	if (sigsetjmp(jb, 1) == 0) {
		fault_jump = &jb;
		fn(arg);
	} else if (pkru_supported()) {
		wrpkru(pkru);
	}
	fault_jump = NULL;
	return f->hit;
}

static void do_read8(void *p)
{
	(void)*(const volatile unsigned char *)p;
}

static void do_write8(void *p)
{
	volatile unsigned char *b = p;

	*b = *b;
}

bool fault_read8(const volatile void *p, struct fault *f)
{
	return fault_catch(do_read8, (void *)p, f);
}

bool fault_write8(volatile void *p, struct fault *f)
{
	return fault_catch(do_write8, (void *)p, f);
}

struct store8 {
	volatile unsigned char *p;
	unsigned char v;
};

static void do_store8(void *arg)
{
	struct store8 *st = arg;

	*st->p = st->v;
}

bool fault_store8(volatile void *p, unsigned char v, struct fault *f)
{
	struct store8 st = { p, v };

	return fault_catch(do_store8, &st, f);
}

bool fault_is_pkuerr(const struct fault *f, int pkey, const volatile void *addr)
{
	return f->hit && f->signo == SIGSEGV && f->code == SEGV_PKUERR && f->pkey == pkey &&
	       f->addr == (const void *)addr;
}

const char *fault_str(const struct fault *f)
{
	static __thread char buf[96];

	if (!f->hit)
		return "no fault";
	snprintf(buf, sizeof(buf), "signal %d code %d pkey %d at %p", f->signo, f->code, f->pkey, f->addr);
	return buf;
}
