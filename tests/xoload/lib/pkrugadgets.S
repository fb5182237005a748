/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkrugadgets.S - code with instructions that can change PKRU, at known
 * symbols, for the xoload --scan tests (tests/xoload/dyn/xo_scan.c knows
 * these names and what the scan must say at each):
 *
 *   scan_wrpkru     wrpkru on an instruction boundary
 *   scan_hidden     mov $0xef010f, %eax: 0f 01 ef at +1, inside the mov
 *   scan_xrstor     xrstor (%rdi) on a boundary
 *   scan_xrstor64   xrstor64 (%rdi): REX.W 0f ae /5, reported at its REX
 *   scan_xrstors    xrstors (%rdi) on a boundary
 *   scan_lfence     lfence (0f ae e8): same opcode bytes, not a finding
 *   scan_data       0f 01 ef in .rodata: executable only where .rodata
 *                   shares the R+X segment (-z noseparate-code): "data"
 *
 * Nothing here is ever called; it is only scanned.  Linked into a shared
 * object (libpkrugadgets.so, a DT_NEEDED library of xo_scan) and into the
 * main program of xo_scan itself.
 */
	.text
	.globl scan_wrpkru, scan_hidden, scan_xrstor, scan_xrstor64, scan_xrstors, scan_lfence
	.p2align 4
scan_wrpkru:
	xor	%ecx, %ecx
	xor	%edx, %edx
	.byte	0x0f, 0x01, 0xef	/* wrpkru: binutils knows it, capstone 4 does not */
	ret
	.p2align 4
scan_hidden:
	mov	$0xef010f, %eax
	ret
	.p2align 4
scan_xrstor:
	xrstor	(%rdi)
	ret
	.p2align 4
scan_xrstor64:
	xrstor64 (%rdi)
	ret
	.p2align 4
scan_xrstors:
	xrstors	(%rdi)
	ret
	.p2align 4
scan_lfence:
	lfence
	ret

	.section .rodata
	.globl scan_data
	.type scan_data, @object
scan_data:
	.byte	0x0f, 0x01, 0xef
	.size scan_data, 3
	.section .note.GNU-stack, "", @progbits
