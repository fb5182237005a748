/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hook.h - XOLOAD_HOOK=1: ld.so's _dl_debug_state() calls xoload, which
 * protects each object ld.so maps, in place of the audit module (hook.c).
 */
#ifndef XOLOADER_RUN_HOOK_H
#define XOLOADER_RUN_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rule/plan.h"
#include "load.h"

/* The environment variable that asks for the hook ("1"). */
#define XOLOAD_HOOK_ENV		"XOLOAD_HOOK"

/* hook_install(): this ld.so or this process cannot take the hook; the audit module then. */
#define HOOK_USE_MODULE		(-1)

/*
 * Patch @interp's _dl_debug_state (mapped, not yet protected) to call the
 * hook; @iplan: ld.so's plan, which rt_apply() applies next (a page it
 * makes execute-only is left to it); @vdso: AT_SYSINFO_EHDR or 0; @flags: XOF_*; @net_on: register the
 * objects' net pages with the preloader's net.  0, HOOK_USE_MODULE (nothing
 * changed), or 126 with @err set.
 */
int hook_install(const struct image *prog, const struct image *interp, const struct plan *iplan, uint64_t vdso,
		 unsigned long flags, bool net_on, char *err, size_t errlen);
/*
 * @audit_env ("LD_AUDIT=...", or NULL) is the entry of @envp (PROG's
 * environment on its new stack) that ld.so must not see: renamed
 * "XO_AUDIT=..." now, and back (or removed, XOF_NO_INHERIT) by the hook
 * at the first consistent state.
 */
void hook_hide_audit(char *audit_env, char **envp);

#endif
