/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plan.h - the plan of one ELF object: which pages of its executable
 * segments become execute-only, and why the others stay readable.
 *
 * The type both readers fill in, the same for every file page for page and
 * reason for reason (tests/host/xoload_plandiff.sh): run/rtplan.c, the
 * minimal reader of the run path, and ref/elfplan.c, the libelf reference.
 * The run path applies a plan (mprotect, carve), the tools print and
 * compare plans; nothing reads a plan back into the rule.
 */
#ifndef XOLOADER_RULE_PLAN_H
#define XOLOADER_RULE_PLAN_H

#include <stdbool.h>
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

/*
 * The small fields first: r[] is 480 KB, of which a run writes the first
 * few entries, so that a field after it would fault in a page of its own
 * for every plan in a static buffer (one more fault per object).
 */
struct plan {
	int n;
	bool textrel;		/* DT_TEXTREL/DF_TEXTREL: ld.so rewrites its code */
	char err[160];		/* why the reader refused the file */
	struct plan_range r[PLAN_MAX_RANGES];
};

#endif
