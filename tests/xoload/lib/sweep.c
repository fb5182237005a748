// SPDX-License-Identifier: GPL-2.0
/*
 * sweep [PAGES] - take PAGES (default 512) fresh anonymous pages, write a
 * byte to each, exit: the kernel clears every page it hands out.  No libc,
 * no relocation: a dozen instructions of its own.
 *
 * Why (make bench, tools/bench.c): under TCG a run can leave a cost for
 * the process after it.  QEMU keeps the code it translated per physical
 * page; a page that held translated code and is freed stays marked as
 * code, and the next write into it - the kernel clearing it for the next
 * process that gets it - goes store by store through QEMU's check for
 * self-modifying code until every translation on it is dropped: 1-3 ms
 * a page, measured.  A run under xoload's hook leaves one such
 * page (ld.so's page it patched, a private copy; tests: a program that
 * ran code on 16 anonymous pages made the next `hello` 32-42 ms slower).
 * The bench runs sweep after each timed run and times it: its time after
 * a variant, less its time after the native run of the same round, is
 * what that variant left behind, charged to it and not to the variant
 * timed next.  Small pages: 2 MB in one huge page (THP, which kernels
 * since about 6.7 align such a mapping for) would come in one block, not
 * as the single pages such a run frees.  The guest has two CPUs, each
 * with its own list of free pages, so a sweep takes the freed page most
 * of the time, not always.
 */
#include "../../../xoloader/run/sys.h"

__asm__(".text\n.globl _start\n_start:\n\tmov %rsp, %rdi\n\tcall start_c\n\thlt\n");

void __attribute__((noreturn, used)) start_c(long *sp);
void start_c(long *sp)
{
	const char *a = sp[0] > 1 ? (const char *)sp[2] : "512";
	long pages = 0, i;
	char *p;

	for (; *a >= '0' && *a <= '9' && pages <= 1 << 20; a++)
		pages = pages * 10 + (*a - '0');
	if (*a || pages < 1 || pages > 1 << 20)	/* 4 GB at most */
		rt_exit_group(2);
	p = (char *)rt_syscall6(RT_NR_mmap, 0, pages * 4096, RT_PROT_READ | RT_PROT_WRITE,
				   RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)p > -4096UL)
		rt_exit_group(1);
	rt_syscall(RT_NR_madvise, (long)p, pages * 4096, RT_MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		((volatile char *)p)[i * 4096] = 1;
	rt_exit_group(0);
}
