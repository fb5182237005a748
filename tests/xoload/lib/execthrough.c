// SPDX-License-Identifier: GPL-2.0
/*
 * execthrough [--xonly] PROG [ARGS...] - execve(PROG, ARGS) and nothing
 * else: no libc, no relocation, two system calls (with --xonly, first
 * prctl(PR_SET_XONLY, 1): the kernel's xonly mode for PROG, as xoload
 * --kernel-plans asks for it).  make bench times both beside `xoload
 * --kernel-plans PROG` (tools/bench.c): what any program that starts
 * another one costs under the same emulation, the floor of every mechanism
 * that is a command in front of PROG, and what xonly mode adds to it.
 * Exit 127 if PROG cannot be executed, 126 if the prctl fails.
 */
#include "xonly/uapi.h"

__asm__(".text\n.globl _start\n_start:\n\tmov %rsp, %rdi\n\tcall start_c\n\thlt\n");

static long sys5(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

void __attribute__((noreturn, used)) start_c(long *sp);
void start_c(long *sp)
{
	long argc = sp[0], i = 1;
	char **argv = (char **)(sp + 1);
	const char *o = argc > 1 ? argv[1] : "---";

	if (o[0] == '-' && o[1] == '-' && o[2] == 'x') {	/* --xonly */
		if (sys5(157, XONLY_PR_SET_XONLY, 1, 0, 0, 0))	/* prctl */
			for (;;)
				sys5(231, 126, 0, 0, 0, 0);
		i = 2;
	}
	if (argc > i)
		sys5(59, (long)argv[i], (long)(argv + i), (long)(argv + argc + 1), 0, 0);	/* execve */
	for (;;)
		sys5(231, 127, 0, 0, 0, 0);	/* exit_group(127) */
}
