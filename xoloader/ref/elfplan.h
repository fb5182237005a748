/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfplan.h - the libelf reference planner: the plan (rule/plan.h) of an
 * object's executable segments, read with libelf.
 *
 * The analysis tools plan with it (xosurvey, planproof), and it is what the
 * minimal reader of the run path (run/rtplan.c) is checked against
 * (xoplandiff over /usr, xofuzz -D over mutants).  It reads program and
 * section headers with libelf; a page is execute-only only if everything
 * the mapping puts in it comes from SHF_EXECINSTR sections: no ELF or
 * program headers, no .rodata/.eh_frame/... bytes, no part of a
 * non-executable segment - and no data inside those sections: bytes that
 * no .eh_frame FDE covers and that are not padding (the rule:
 * /work/coord/plan-rule.md, README.md).
 */
#ifndef XOLOADER_REF_ELFPLAN_H
#define XOLOADER_REF_ELFPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../rule/plan.h"

/*
 * Plan the executable segments of the ELF file open on @fd.  Returns 0, or
 * -1 with p->err set (not an ELF file, no program headers, ...).
 */
int elfplan_build(int fd, size_t pagesz, struct plan *p);
/*
 * What the proven-code rule (tools/proven.c) adds: address ranges [lo, hi)
 * of code proven otherwise, covered as an FDE's range is; and the sorted
 * page addresses that the object's own code is seen to read, which stay
 * readable ("read by its own code").  An object without any FDE keeps the
 * section rule unless @code has ranges (Go's pclntab: proven.c).
 */
struct plan_extra {
	const uint64_t (*code)[2];
	size_t ncode;
	const uint64_t *reads;
	size_t nreads;
};
/* elfplan_build() with @x (NULL: elfplan_build() itself). */
int elfplan_build_extra(int fd, size_t pagesz, const struct plan_extra *x, struct plan *p);
/* Force every range of @p readable with reason @why. */
void elfplan_all_readable(struct plan *p, const char *why);
/* The number of pages of @p that are execute-only. */
size_t elfplan_xo_pages(const struct plan *p, size_t pagesz);

#endif
