/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn.h - x86-64 instruction boundaries with capstone, and a fault mode
 * that skips the faulting instruction and goes on.
 *
 * The boundaries let a test jump into the middle of a function at a real
 * instruction, and find function entries in a code buffer it is about to
 * make execute-only (afterwards it cannot read it).
 *
 * The skip mode is for probing a sequence of accesses without a
 * sigsetjmp per access: the SIGSEGV handler records the fault, decodes
 * the instruction at the faulting RIP and resumes after it.  The faulting
 * instruction must itself be readable (ordinary program text), or lie in
 * an execute-only range registered with insn_skip_shadow() together with a
 * readable copy of its bytes; any other fault that cannot be decoded takes
 * the default action, which kills the program.
 */
#ifndef XONLY_INSN_H
#define XONLY_INSN_H

#include <stdbool.h>
#include <stddef.h>

#include "fault.h"

/*
 * Offsets of the instructions of @code[0..len), at most @max of them in
 * @off.  Decoding stops at the first byte capstone cannot decode.
 * Returns how many were found.
 */
int insn_boundaries(const void *code, size_t len, size_t *off, int max);
/*
 * Function entries of @code[0..len): offset 0, and after each ret or
 * unconditional jmp the first instruction that is not padding (int3, nop).
 */
int insn_entries(const void *code, size_t len, size_t *off, int max);

struct insn_skip {
	int n;			/* faults skipped */
	struct fault first;	/* the first and the last of them */
	struct fault last;
	size_t first_len;	/* length of the first skipped instruction */
};

/* Install the skip handler for SIGSEGV and SIGBUS (process-wide). */
void insn_skip_setup(void);
/*
 * From now on this thread's faults are skipped and counted in @log
 * (zeroed here).  Returns false if capstone cannot be opened.
 */
bool insn_skip_begin(struct insn_skip *log);
/*
 * Faults at a RIP in [@xo, @xo + len) decode from @copy, a readable copy
 * of those bytes (this thread; @xo NULL forgets it).
 */
void insn_skip_shadow(const void *xo, const void *copy, size_t len);
/* Stop skipping on this thread: a fault is then fatal again. */
void insn_skip_end(void);

#endif
