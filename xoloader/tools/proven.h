/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proven.h - the proven-code rule (issue 26 step 2): code without CFI that
 * a recursive descent from known entry points proves to be code counts as
 * code, as FDE-covered bytes do; a page the object's own code is seen to
 * read stays readable.  Offline only: analysis tools compute these plans
 * (with a decoder), the run path never does.
 *
 * Roots of the descent, each outside FDE-covered code:
 *  (a) direct call/jmp/jcc targets in FDE-covered code (and, by descent,
 *      in proven code), and the byte after an FDE range whose last
 *      instruction falls through (not a jmp, ret, call...);
 *  (e) where the loader or the CPU jumps: e_entry, DT_INIT, DT_FINI, the
 *      entries of .init_array, .fini_array and .preinit_array (their
 *      contents or the relocations that fill them), IRELATIVE resolvers
 *      and JUMP_SLOT targets defined in the object (called through the
 *      PLT);
 *  (b) STT_FUNC and STT_GNU_IFUNC symbols of .dynsym and .symtab;
 *  (c) other relocation targets (RELATIVE, 64, GLOB_DAT):
 *      only with PROVEN_RELOC_WALK, not by default - a table in .text that
 *      .data.rel.ro points at is reached by one and may decode as code
 *      (tests/host/proven.sh);
 * never RIP-relative lea targets (they point at tables as often as at
 * code: libcrypto's SHA1 K_XX_XX decodes as cdq; jns; pop rdx).  The
 * descent follows fall-through and direct targets and stops at ret, jmp,
 * ud0/1/2, hlt, int3 and at code already known; a root whose path meets
 * an undecodable, privileged or obsolete instruction (decode.h DEC_BAD),
 * leaves the executable sections, runs into FDE-covered code mid-way or
 * overlaps another instruction is dropped whole.
 *
 * An object whose FDE-covered or proven code the decoder cannot sweep
 * whole (a byte it rejects) gets no proven code: the reads after that
 * byte went unseen.  With LLVM 14 no object of /usr/bin, /usr/sbin and
 * /usr/lib/x86_64-linux-gnu has one; Go programs do (data inside Go
 * functions: kubectl jumps over 30 bytes at 0x610ac2), and keep Go's
 * function ranges only without FDEs, where the FDE rule's section rule
 * makes all of .text execute-only anyway.
 *
 * Go: the function table of .gopclntab (Go 1.18 and later) gives the
 * exact ranges of Go's functions, which have no FDEs; they count as FDE
 * ranges do (also in a Go program without any FDE, which the FDE rule
 * plans by the section rule).
 *
 * Reads: every RIP-relative memory access (not lea, nop, prefetch) in
 * FDE-covered and proven code, and a RIP-relative lea whose register a
 * memory operand of one of the next 6 instructions (before a branch) uses,
 * mark the page(s) it reads; those stay readable.  Absence of a seen read
 * proves nothing (the code bytes are proven, not the reads), so this only
 * ever removes pages from the execute-only set.
 */
#ifndef XOLOADER_TOOLS_PROVEN_H
#define XOLOADER_TOOLS_PROVEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../rule/plan.h"
#include "decode.h"

enum proven_reloc { PROVEN_RELOC_NONE, PROVEN_RELOC_WALK };

struct proven_opts {
	enum proven_reloc reloc;
	bool lea_roots;		/* unsafe, for the tests: lea targets as roots */
	bool no_reads;		/* unsafe, for the tests: no read check */
	FILE *trace;		/* if set: each read seen, "read\tKIND\tFROM\tTARGET" */
	bool check;		/* check the plan against the FDE rule's and the proof (below) */
};

enum { ROOT_BRANCH, ROOT_ENTRY, ROOT_SYMBOL, ROOT_RELOC, ROOT_LEA, NROOT };

struct proven_stats {
	uint64_t roots[NROOT];		/* distinct roots outside FDE-covered code, by kind */
	uint64_t kept, dropped;		/* roots whose descent proved code / was dropped */
	uint64_t fde_bytes;		/* FDE-covered bytes (and the runtime-code sections) */
	uint64_t proven_bytes;		/* bytes proven outside them */
	uint64_t read_pages;		/* pages the code is seen to read */
	uint64_t undecodable;		/* FDE-covered bytes not swept: a byte the decoder rejected */
	uint64_t go_functions, go_bytes;	/* Go's function table (.gopclntab): functions, bytes */
	bool section_rule;		/* no FDE, no Go table: the section rule, nothing proven */
	bool withheld;			/* undecodable bytes: nothing proven (Go's functions without FDEs kept) */
	/*
	 * With proven_opts.check, the safety invariant of the plan against
	 * the FDE rule's plan of the same file, page by page:
	 *  - lifted: execute-only here, readable under the FDE rule.  Each
	 *    such page must be one the FDE rule keeps readable only for data
	 *    in text ("not covered by any FDE"), and every byte of its
	 *    executable sections must be FDE-covered or proven code, or in a
	 *    run of padding (rule/fill.h, as the page rule reads it);
	 *  - taken: readable here, execute-only under the FDE rule; each such
	 *    page must be one the code is seen to read (or, in a Go program
	 *    without FDEs, outside Go's functions);
	 *  - no page the code is seen to read is execute-only.
	 * A page that breaks it counts in violations; check_msg says the first.
	 */
	uint64_t check_lifted, check_taken, check_violations;
	char check_msg[160];
};

/*
 * The proven-code plan of the object open on @fd, decoding with @d (opened
 * with operands).  Returns 0, or -1 with p->err set (what elfplan_build()
 * refuses).
 */
int proven_plan(int fd, size_t pagesz, struct dec *d, const struct proven_opts *o,
		struct plan *p, struct proven_stats *st);

#endif
