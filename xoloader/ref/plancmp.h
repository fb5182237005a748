/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plancmp.h - compare two plans of one file: elfplan_build()'s (libelf)
 * and rtplan_build()'s (the minimal reader).  Used by the differential
 * test (plandiff.c over /usr, fuzz.c -D over mutants).
 */
#ifndef XOLOADER_REF_PLANCMP_H
#define XOLOADER_REF_PLANCMP_H

#include "elfplan.h"

/*
 * The first difference between plan @a (return value @ra) and @b (@rb) as
 * a few words, or NULL if they are the same: both refused with the same
 * message, or the same ranges, execute-only bits, reasons and TEXTREL.
 */
const char *plan_differs(int ra, const struct plan *a, int rb, const struct plan *b);

#endif
