/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfplan.h - the one ELF reader of xoload: which pages of an object's
 * executable segments can become execute-only, and why the others cannot.
 *
 * Used by xoload (for PROG and its interpreter) and by the audit module
 * (for every object ld.so maps).  It reads program and section headers
 * with libelf; a page is execute-only only if everything the mapping puts
 * in it comes from SHF_EXECINSTR sections: no ELF or program headers, no
 * .rodata/.eh_frame/... bytes, no part of a non-executable segment - and
 * no data inside those sections: bytes that no .eh_frame FDE covers and
 * that are not padding (the rule: /work/coord/plan-rule.md, README.md).
 */
#ifndef XOLOADER_REF_ELFPLAN_H
#define XOLOADER_REF_ELFPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLAN_MAX_RANGES 4096

struct plan_range {
	uint64_t start, end;	/* link-time addresses, page-aligned; add the load bias */
	bool xo;		/* execute-only, or kept readable (R+X) */
	char why[48];		/* "code", "ELF header", ".rodata", "TEXTREL", ... */
	/*
	 * why == "not covered by any FDE": the first data gap in the range,
	 * as section name, offset in the section and size in bytes; sect[0]
	 * is 0 for every other reason.
	 */
	char sect[32];
	uint64_t soff, ssize;
};

struct plan {
	int n;
	struct plan_range r[PLAN_MAX_RANGES];
	bool textrel;		/* DT_TEXTREL/DF_TEXTREL: ld.so rewrites its code */
	char err[160];		/* why elfplan_build failed */
};

/*
 * Plan the executable segments of the ELF file open on @fd.  Returns 0, or
 * -1 with p->err set (not an ELF file, no program headers, ...).
 */
int elfplan_build(int fd, size_t pagesz, struct plan *p);
/* Force every range of @p readable with reason @why. */
void elfplan_all_readable(struct plan *p, const char *why);
/* The number of pages of @p that are execute-only. */
size_t elfplan_xo_pages(const struct plan *p, size_t pagesz);

#endif
