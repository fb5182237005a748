/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fill.h - is a run of bytes in an executable section padding (the fill
 * that assemblers and linkers put between functions), or data?
 *
 * Freestanding (no libc): the run-time planner may link it as it is.
 * The fill units are listed in fill.c and in /work/coord/plan-rule.md.
 */
#ifndef XOLOADER_RULE_FILL_H
#define XOLOADER_RULE_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * True if the @n bytes at @b decode, greedily from the first, as fill
 * units.  @code_follows: the byte after the run is code (an FDE starts
 * there), so the last unit may be cut short by it.
 */
bool fill_is_padding(const uint8_t *b, size_t n, bool code_follows);
/*
 * The number of leading bytes of @b[0..@n) that decode as whole fill units:
 * where the data of a run that is not padding begins (the alignment after
 * the function before it is padding, not data).
 */
size_t fill_lead(const uint8_t *b, size_t n);
/*
 * True if code follows and @b[0..@n) is zero bytes to the end, fewer than
 * FILL_ZERO_MAX, or whole NOPs then zero bytes to the end, at least one
 * and fewer than FILL_ZERO_AFTER_NOPS: the linker's zero fill between two
 * functions, alone or after the alignment the assembler put at the end of
 * the first.
 */
#define FILL_ZERO_MAX 64
#define FILL_ZERO_AFTER_NOPS 16
bool fill_is_zero_pad(const uint8_t *b, size_t n, bool code_follows);

#endif
