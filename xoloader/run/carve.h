/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/carve.h - xoload --kernel: give the readable parts of a plan back
 * their read permission after the kernel mapped a whole PF_X segment
 * execute-only (xonly exec mode, kernel/patches).
 */
#ifndef XOLOADER_RUN_CARVE_H
#define XOLOADER_RUN_CARVE_H

#include <stdint.h>

#include "../rule/plan.h"

/*
 * pkey_mprotect(range + @bias, PROT_READ | PROT_EXEC, key 0) for every
 * range of @p that is not execute-only (data in text, headers, .rodata
 * in an R+X page): with an explicit key the xonly mode leaves the mapping
 * alone.  Call it before the object is relocated or any of its code runs
 * (la_objopen).  Returns 0, or the first -errno.  Freestanding.
 */
long rt_carve(const struct plan *p, uint64_t bias);

#endif
