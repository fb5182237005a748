/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/carve.h - a plan applied to mapped memory: its execute-only ranges
 * (xoload, the module), our own code, and for xoload --kernel the
 * readable parts given back their read permission after the kernel mapped
 * a whole PF_X segment execute-only (xonly exec mode, kernel/patches).
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
/* mprotect(PROT_EXEC) every execute-only range of @p (+ @bias); 0, or the first -errno. */
long rt_apply(const struct plan *p, uint64_t bias);
/*
 * The calling object's own PF_X segments (found through __ehdr_start)
 * made execute-only; 0, or the first -errno.  Linked -z separate-code,
 * they hold code only.
 */
long rt_protect_self(void);

#endif
