// SPDX-License-Identifier: GPL-2.0
/*
 * hookctor.c - code that runs before main reads libc's code
 * (tests/xoload/hook_edges.sh).  A byte of libc's getpid is read by
 *   - hookctor's preinit_array entry (before any library's constructor),
 *   - the constructor of libhookctor.so, in hookctor's DT_NEEDED,
 *   - hookctor's own constructor,
 * all through hookctor_probe() (hookctorlib.c), and by
 *   - an IFUNC resolver of hookctor, which ld.so runs while it relocates
 *     hookctor, after libc (raw system calls only: it is not relocated yet).
 * main prints one line each, in the order they ran:
 *   "WHO: SEGV_PKUERR"   the read faulted so, at getpid, with the key that
 *                        /proc/self/smaps gives getpid's page;
 *   "WHO: readable"      the byte was read;
 *   "WHO: fault ..."     another fault.
 * Exits 0 if the three reads from the preinit_array entry and the
 * constructors faulted SEGV_PKUERR (under xoload, hooked or not, libc is
 * execute-only before any of them runs); the resolver's line only records
 * what it saw (the hook protects libc after relocation: the README's
 * window).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "hookctor.h"
#include "mapping.h"

/* --- the IFUNC resolver: raw system calls, its own SIGSEGV handler -------- */

#define SA_RESTORER_	0x04000000	/* not in glibc's headers */

struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};

static struct {
	int ran, signo, code, pkey;
	void *addr;
	const void *target;
} rs;

static long raw_sigaction(int sig, const struct ksigaction *act, struct ksigaction *old)
{
	register long r10 __asm__("r10") = 8;	/* sizeof(sigset_t) as the kernel has it */
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"(13L), "D"((long)sig), "S"(act), "d"(old), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

void hookctor_restorer(void);
__asm__(".text\n"
	".type hookctor_restorer, @function\n"
	"hookctor_restorer:\n\t"
	".cfi_startproc\n\t"	/* covered by an FDE: else xoload keeps its page readable */
	"mov $15, %eax\n\t"	/* rt_sigreturn */
	"syscall\n\t"
	"ud2\n\t"
	".cfi_endproc\n\t"
	".size hookctor_restorer, .-hookctor_restorer\n");

/* Records the fault and resumes where the probe left its address (rcx). */
static void resolver_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	rs.signo = sig;
	rs.code = si->si_code;
	rs.addr = si->si_addr;
	rs.pkey = si->si_code == SEGV_PKUERR ? (int)si->si_pkey : -1;
	uc->uc_mcontext.gregs[REG_RIP] = uc->uc_mcontext.gregs[REG_RCX];
}

static int ifunc_impl(void)
{
	return 42;
}

static int (*resolve_ifunc(void))(void)
{
	struct ksigaction sa = { (void *)resolver_segv, SA_SIGINFO | SA_RESTORER_ | SA_NODEFER,
				 (void *)hookctor_restorer, 0 };
	struct ksigaction old_segv, old_bus;
	const void *p = (const void *)getpid;	/* hookctor's GOT: ld.so defers IRELATIVE to the end */
	unsigned int v = 0x100;

	rs.ran = 1;
	rs.target = p;
	if (raw_sigaction(SIGSEGV, &sa, &old_segv) || raw_sigaction(SIGBUS, &sa, &old_bus)) {
		rs.signo = -1;
		return ifunc_impl;
	}
	__asm__ volatile("lea 1f(%%rip), %%rcx\n\t"
			 "movzbl (%1), %0\n"
			 "1:"
			 : "+r"(v)
			 : "r"(p)
			 : "rcx", "memory");
	raw_sigaction(SIGSEGV, &old_segv, NULL);
	raw_sigaction(SIGBUS, &old_bus, NULL);
	return ifunc_impl;
}

int hookctor_ifunc(void) __attribute__((ifunc("resolve_ifunc")));

/* --- the preinit_array entry and the constructor -------------------------- */

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	hookctor_probe("hookctor's preinit_array entry");
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit_entry)(int, char **, char **) = preinit;

__attribute__((constructor)) static void ctor(void)
{
	hookctor_probe("hookctor's constructor");
}

static const char *verdict(int signo, int code, int pkey, const void *addr, const void *target, int key, char *buf,
			   size_t len)
{
	if (!signo)
		return "readable";
	if (signo == SIGSEGV && code == SEGV_PKUERR && pkey == key && addr == target)
		return "SEGV_PKUERR";
	snprintf(buf, len, "fault: signal %d code %d pkey %d at %p (getpid %p, its key %d)", signo, code, pkey, addr,
		 target, key);
	return buf;
}

int main(void)
{
	const void *gp = (const void *)getpid;
	int key = smaps_pkey(gp), i, good = 0;
	char buf[160];

	for (i = 0; i < hookctor_n; i++) {
		struct hookctor_seen *s = &hookctor_seen[i];
		const char *v = verdict(s->signo, s->code, s->pkey, s->addr, s->target, key, buf, sizeof(buf));

		printf("%s: %s\n", s->who, s->target == gp ? v : "read another address than libc's getpid");
		good += s->target == gp && !strcmp(v, "SEGV_PKUERR");
	}
	if (!rs.ran)
		printf("hookctor's IFUNC resolver: did not run\n");
	else if (rs.target != gp || rs.signo < 0)
		printf("hookctor's IFUNC resolver: %s\n",
		       rs.signo < 0 ? "rt_sigaction failed" : "read another address than libc's getpid");
	else
		printf("hookctor's IFUNC resolver: %s\n",
		       verdict(rs.signo, rs.code, rs.pkey, rs.addr, rs.target, key, buf, sizeof(buf)));
	return hookctor_ifunc() == 42 && hookctor_n == 3 && good == 3 ? 0 : 1;
}
