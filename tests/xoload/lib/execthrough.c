// SPDX-License-Identifier: GPL-2.0
/*
 * execthrough [--xonly|--strict] PROG [ARGS...] - execve(PROG, ARGS) and
 * nothing else: no libc, no relocation, two system calls (with --xonly,
 * first prctl(PR_SET_XONLY, 1): the kernel's xonly mode for PROG, as
 * xoload --kernel-plans asks for it; with --strict, level 2, for the
 * safety net's row that it is off there: tests/xoload/net.sh).  make bench times both beside `xoload
 * --kernel-plans PROG` (tools/bench.c): what any program that starts
 * another one costs under the same emulation, the floor of every mechanism
 * that is a command in front of PROG, and what xonly mode adds to it.
 * Exit 127 if PROG cannot be executed, 126 if the prctl fails.  System
 * calls: the run path's raw wrappers (xoloader/run/sys.h).
 */
#include "xonly/uapi.h"
#include "../../../xoloader/run/sys.h"

__asm__(".text\n.globl _start\n_start:\n\tmov %rsp, %rdi\n\tcall start_c\n\thlt\n");

void __attribute__((noreturn, used)) start_c(long *sp);
void start_c(long *sp)
{
	long argc = sp[0], i = 1;
	char **argv = (char **)(sp + 1);
	const char *o = argc > 1 ? argv[1] : "---";

	if (o[0] == '-' && o[1] == '-' && (o[2] == 'x' || o[2] == 's')) {	/* --xonly, --strict */
		if (rt_syscall6(RT_NR_prctl, XONLY_PR_SET_XONLY, o[2] == 'x' ? 1 : XONLY_PR_XONLY_STRICT, 0, 0, 0, 0))
			rt_exit_group(126);
		i = 2;
	}
	if (argc > i)
		rt_syscall(RT_NR_execve, argv[i], argv + i, argv + argc + 1);
	rt_exit_group(127);
}
