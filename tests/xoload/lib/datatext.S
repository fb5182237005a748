/* SPDX-License-Identifier: GPL-2.0 */
/*
 * datatext.S - data in .text between two functions that have CFI, the way
 * OpenSSL's perlasm lays out its tables: the functions load the table
 * RIP-relative.  Each piece sits on its own page(s), so that the plan can
 * make the functions' pages execute-only and must keep the table's page
 * readable.  Linked into /xonly/lib/xoload/datatext, and built as
 * libdatatext.so, which that program dlopen()s (Makefile).
 *
 *   dt_sum():    the sum of the 8 table words, loaded RIP-relative (36)
 *   dt_second(): the table's address, through lea (data pointer)
 *   dt_table:    8 words 1..8 (global, so the C side can read it)
 */
	.text
	.p2align 12
	.globl	dt_sum
	.type	dt_sum, @function
dt_sum:
	.cfi_startproc
	xorl	%eax, %eax
	addl	.Ltable(%rip), %eax
	addl	.Ltable+4(%rip), %eax
	addl	.Ltable+8(%rip), %eax
	addl	.Ltable+12(%rip), %eax
	movdqa	.Ltable+16(%rip), %xmm0	/* the kind of load that faulted in libcrypto */
	movd	%xmm0, %ecx
	addl	%ecx, %eax
	addl	.Ltable+20(%rip), %eax
	addl	.Ltable+24(%rip), %eax
	addl	.Ltable+28(%rip), %eax
	ret
	.cfi_endproc
	.size	dt_sum, .-dt_sum

	.p2align 12
	.globl	dt_table
	.type	dt_table, @object
dt_table:
.Ltable:
	.long	1, 2, 3, 4, 5, 6, 7, 8
	.size	dt_table, .-dt_table

	.p2align 12
	.globl	dt_second
	.type	dt_second, @function
dt_second:
	.cfi_startproc
	leaq	.Ltable(%rip), %rax
	ret
	.cfi_endproc
	.size	dt_second, .-dt_second
	.section .note.GNU-stack, "", @progbits
