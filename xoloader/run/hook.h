/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hook.h - ld.so's _dl_debug_state() calls xoload, which protects each
 * object ld.so maps, in place of the audit module (hook.c): the default.
 */
#ifndef XOLOADER_RUN_HOOK_H
#define XOLOADER_RUN_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rule/plan.h"
#include "load.h"

/*
 * The hook is xoload's default.  This environment variable chooses: "0"
 * the audit module, "1" the hook or an error (126) where this ld.so cannot
 * take it; unset or empty, the hook where it can be installed, else the
 * module.
 */
#define XOLOAD_HOOK_ENV		"XOLOAD_HOOK"

/* hook_install(): this ld.so or this process cannot take the hook; the audit module then. */
#define HOOK_USE_MODULE		(-1)

/*
 * Patch @interp's _dl_debug_state (mapped, not yet protected: rt_apply()
 * applies ld.so's plan next) to call the hook; @vdso: AT_SYSINFO_EHDR or
 * 0; @flags: XOF_*; @net_on: register the objects' net pages with the
 * preloader's net.  0, HOOK_USE_MODULE (ld.so's code as it was), or 126
 * with @err set.  Without @required (XOLOAD_HOOK unset)
 * an ld.so the hook does not fit is HOOK_USE_MODULE too: the module does
 * not need its _dl_debug_state.
 */
int hook_install(const struct image *prog, const struct image *interp, uint64_t vdso, unsigned long flags,
		 bool net_on, bool required, char *err, size_t errlen);
/*
 * @audit_env ("LD_AUDIT=...", or NULL) is the entry of @envp (PROG's
 * environment on its new stack) that ld.so must not see: renamed
 * "XO_AUDIT=..." now, and back (or removed, XOF_NO_INHERIT) by the hook
 * at the first consistent state.  @tunables (or NULL), the GLIBC_TUNABLES
 * entry that goes with the module, likewise ("XOIBC_TUNABLES=..."); it
 * holds @user_tunables (or NULL), the user's entry, which PROG's ld.so
 * reads and the hook then removes (kept, with XOF_NO_INHERIT).
 */
void hook_hide_audit(char *audit_env, char *tunables, char *user_tunables, char **envp);

#endif
