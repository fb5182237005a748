/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codebytes.h - the code-byte measure of a plan (issue 26 step 4): the
 * bytes of an object's executable sections (SHF_ALLOC | SHF_EXECINSTR,
 * not NOBITS) and, of those, the bytes that lie in the plan's
 * execute-only ranges.  Unlike the segment bytes (whole pages of the PF_X
 * segments, headers and .rodata of a -z noseparate-code object included),
 * this counts only what the linker called code, so it is the figure to
 * set beside XOM-Switch's "98.57% of Firefox's code".  xosurvey's headline
 * and xoproven's code-byte columns both come from here.
 */
#ifndef XOLOADER_TOOLS_CODEBYTES_H
#define XOLOADER_TOOLS_CODEBYTES_H

#include <gelf.h>
#include <stdint.h>

#include "../rule/plan.h"

/*
 * Into @code the bytes of @e's executable sections, into xo[k] those of
 * them in execute-only ranges of @p[k], for @n plans.
 */
void code_bytes(Elf *e, const struct plan *const *p, int n, uint64_t *code, uint64_t *xo);

#endif
