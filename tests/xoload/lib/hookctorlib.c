// SPDX-License-Identifier: GPL-2.0
/*
 * hookctorlib.c - libhookctor.so, in hookctor's DT_NEEDED
 * (tests/xoload/hook_edges.sh): its constructor reads a byte of libc's
 * getpid, and hookctor_probe() does that for hookctor's preinit_array
 * entry and constructor.  Each read is recorded (hookctor_seen[]) for
 * hookctor's main to judge.  Its own fault catching (sigsetjmp), no test
 * library: it runs before PROG's constructors, and the test library is
 * not built to be linked into a shared object.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "hookctor.h"

struct hookctor_seen hookctor_seen[HOOKCTOR_MAX];
int hookctor_n;

static sigjmp_buf jb;
static volatile struct hookctor_seen *cur;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	cur->signo = sig;
	cur->code = si->si_code;
	cur->addr = si->si_addr;
	cur->pkey = si->si_code == SEGV_PKUERR ? (int)si->si_pkey : -1;
	siglongjmp(jb, 1);
}

void hookctor_probe(const char *who)
{
	/* libc's getpid, from this library's GOT (relocated: libc's address). */
	const volatile unsigned char *p = (const volatile unsigned char *)(void *)getpid;
	struct sigaction sa, old_segv, old_bus;

	if (hookctor_n == HOOKCTOR_MAX)
		return;
	cur = &hookctor_seen[hookctor_n++];
	memset((void *)cur, 0, sizeof(*cur));
	cur->who = who;
	cur->target = (const void *)p;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (!sigsetjmp(jb, 1))
		cur->byte = *p;
	/* What was there before (the preloader's safety net, SIG_DFL) is back. */
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
}

__attribute__((constructor)) static void lib_ctor(void)
{
	hookctor_probe("the constructor of libhookctor.so (DT_NEEDED)");
}
