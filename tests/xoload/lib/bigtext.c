// SPDX-License-Identifier: GPL-2.0
/*
 * bigtext.c - a program whose code segment is larger than ld.so's and
 * starts where ld.so's does (tests/xoload/children.sh): a first,
 * read-only segment of one page, then 256 KiB of code, bigtext_tail at
 * its end.  Run as "ld.so bigtext", /proc/self/exe is ld.so: a module
 * that planned /proc/self/exe applied ld.so's plan here, which
 * mprotect()s without error, made the first 152 KiB execute-only and
 * left the rest readable.  Prints its own lines of /proc/self/maps, then
 * whether a read of bigtext_tail's first byte faults:
 *   tail: SEGV_PKUERR | tail: fault (signal S, code C) | tail: readable
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__asm__(".pushsection .text\n"
	".p2align 12\n"
	".type bigtext_big, @function\n"
	"bigtext_big: .cfi_startproc\n"
	".rept 0x10000\n\tlea 1(%rax), %rax\n.endr\n"
	"\tret\n.cfi_endproc\n"
	".size bigtext_big, . - bigtext_big\n"
	".globl bigtext_tail\n.hidden bigtext_tail\n.type bigtext_tail, @function\n"
	"bigtext_tail: .cfi_startproc\n\tret\n.cfi_endproc\n"
	".size bigtext_tail, . - bigtext_tail\n"
	".popsection\n");
extern void bigtext_tail(void);

static sigjmp_buf jb;
static volatile int sig, code;

static void on_fault(int s, siginfo_t *si, void *uc)
{
	(void)uc;
	sig = s;
	code = si->si_code;
	siglongjmp(jb, 1);
}

int main(void)
{
	static char buf[1 << 16];
	ssize_t n, got = 0;
	struct sigaction sa;
	int fd = open("/proc/self/maps", O_RDONLY);

	while (fd >= 0 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	for (char *l = buf, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			break;
		*e = 0;
		if (strstr(l, "/bigtext"))
			printf("%s\n", l);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(jb, 1)) {
		volatile unsigned char c = *(volatile unsigned char *)bigtext_tail;

		(void)c;
		printf("tail: readable\n");
	} else if (sig == SIGSEGV && code == 4)
		printf("tail: SEGV_PKUERR\n");
	else
		printf("tail: fault (signal %d, code %d)\n", sig, code);
	bigtext_tail();
	return 0;
}
