/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ehframe.h - the address ranges that the FDEs of an .eh_frame section
 * cover (the code that has unwind information).
 */
#ifndef XOLOADER_RULE_EHFRAME_H
#define XOLOADER_RULE_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/*
 * Walk the .eh_frame bytes @b[0..@n), loaded at link-time address @addr,
 * and call @fn(@arg, lo, hi) for each FDE's range [lo, hi) (empty and
 * wrapping ranges are skipped).  Returns the number of FDEs, or -1 if the
 * section is not what the rule can read (then nothing it covers is known:
 * the caller keeps the object readable).
 */
long ehframe_walk(const uint8_t *b, size_t n, uint64_t addr,
		  void (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg);

#endif
