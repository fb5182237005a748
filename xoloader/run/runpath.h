/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runpath.h - xoload's run path: from PROG's name to the jump into ld.so.
 * Freestanding (run/ and rule/ only): preload.c, the xoload that users run, has no
 * libc; xoplan (tools/xoplan.c: --plan, --report, --scan, with a libc)
 * links the same code.
 */
#ifndef XOLOADER_RUNPATH_H
#define XOLOADER_RUNPATH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "load.h"
#include "plancache.h"
#include "rtplan.h"
#include "xoload.h"

#ifndef XOLOAD_AUDIT_DEFAULT
#define XOLOAD_AUDIT_DEFAULT "/xonly/lib/xoaudit.so"
#endif
#ifndef XOLOAD_XOSCAN_DEFAULT
#define XOLOAD_XOSCAN_DEFAULT "/xonly/bin/xoscan"
#endif
/* xoplan; xoplan-proven (--update-cache --rule=proven) is in the same directory. */
#ifndef XOLOAD_XOPLAN_DEFAULT
#define XOLOAD_XOPLAN_DEFAULT "/xonly/lib/xoplan"
#endif

extern char prog_path[PATH_MAX];	/* PROG as found */
extern char audit_path[PATH_MAX];	/* the audit module */
extern char xoscan_path[PATH_MAX];	/* --scan's scanner */
extern struct xoload_gate gate;

/* The environment and auxiliary vector of the process (from envp). */
void run_init(char **envp);
const char *run_env(const char *name);
/* --no-cache: no plan from the plan cache, here and in the module and children (plancache.h). */
void run_no_cache(void);
uint64_t run_auxval(uint64_t type);
/* prctl(XONLY_PR_GET_XONLY) as the preloader first found it (-errno on a kernel without it). */
long run_xonly_level(void);

/* One line "PREFIX MSG" on stderr, control characters escaped. */
void line(const char *prefix, const char *msg);
void __attribute__((noreturn)) die(int code, const char *msg);
void __attribute__((noreturn, format(printf, 2, 3))) dief(int code, const char *fmt, ...);
/* Warnings of the planner: a line by default; xoload --plan defers them. */
extern void (*run_warn)(const char *msg);

/* A re-exec of /proc/self/exe by a program under xoload: the argv to parse instead, in @nv[argc + 4], or NULL. */
char **reexec_args(int *argc, char **argv, char **nv);
/* Find @name like execvp; 0 or 127 with @err set. */
int find_prog(const char *name, char *out, char *err, size_t errlen);
/* PROG cannot be run: the line, with a hint when run from a program under xoload. */
void __attribute__((noreturn)) die_prog(int code, const char *err, bool plan_only);
/* A value of XOLOAD_CHILDREN the module would refuse in PROG's children: die (2). */
void check_children_env(void);
/* Open PROG (@prog_path) and its interpreter, or die. */
void open_images(struct image *prog, struct image *interp, bool need_entry);
/*
 * What the kernel says the file open on @fd is: its absolute path,
 * resolved (readlink of /proc/self/fd/N) into @out (PATH_MAX); false
 * without /proc or for a name that does not fit.
 */
bool fd_path(int fd, char *out);
/* @exe (PATH_MAX) = this program's own file, as next_to_self() finds it; false (empty) if not found. */
bool self_file(char *exe);
/* @out = DIR/@rel resolved, DIR being xoload's own directory, else @dflt. */
void next_to_self(char *out, const char *rel, const char *dflt);
/* The audit module for a dynamically linked PROG: readable and whole, or die; sets LD_AUDIT. */
void use_audit_module(bool dynamic, bool permissive);
/*
 * Where a plan and its net pages go: the first (@prev NULL), then each
 * right after @prev as @prev now is (it must not grow after), so that
 * PROG's and ld.so's share one page of each space.  The hook's go at the
 * start again, xoload's being done with (runpath.c).
 */
struct plan *run_plan(const struct plan *prev);
struct xoc_net *run_net(const struct xoc_net *prev);
/*
 * Plan @im; warn about (--strict: refuse) an object that stays readable.
 * @net (may be NULL): the plan's net pages (plancache.h), none after a miss.
 */
void plan_image(struct image *im, struct plan *p, struct xoc_net *net, unsigned int flags);
/* Refuse a set-user-ID, set-group-ID or capability-carrying PROG. */
void refuse_privileged(const struct image *im);
/*
 * The default (hook.h; XOLOAD_HOOK=0 asks for the module): ld.so calls
 * xoload's hook in place of loading the audit module, for a dynamically
 * linked PROG without --audit=, --report, --scan or another LD_AUDIT
 * module, not at the kernel's strict level.  True if so; map_and_protect()
 * then installs it, or leaves the job to the module (ld.so older than glibc
 * 2.35, memory-deny-write-execute, and unless XOLOAD_HOOK=1, an ld.so the
 * hook does not fit).  A value of XOLOAD_HOOK other than 0, 1 or empty is
 * a usage error (2).  Call after use_audit_module(), and prepare_handover()
 * after map_and_protect().
 */
bool use_hook(const struct image *prog, unsigned int flags, bool audit_given);
/*
 * Map PROG and its interpreter and make their code execute-only, or die.
 * @pnet, @inet: their net pages, recorded for the safety net (run/net.h)
 * unless the net is off (--no-net, the strict level): the audit module
 * takes them over (gate.net), or for a static PROG the handler is
 * installed here.
 */
void map_and_protect(struct image *prog, struct plan *pplan, const struct xoc_net *pnet, struct image *interp,
		     struct plan *iplan, const struct xoc_net *inet);
/* --no-net: no safety net here, nor in the module and children (XOLOAD_NO_NET=1). */
void run_no_net(void);
/* XOLOAD_PROG and the gate's line, for the handover. */
void prepare_handover(unsigned int flags);
/*
 * --scan: run the scanner @xoscan (a program: see xoscan.c for why) on the
 * NULL-terminated @files with its output on our stderr, and wait for it.
 * @tag prefixes the object names, @fmtopt is NULL (human), "--tsv" or
 * "--json" (xoscan's options, scan_fmtopt()).  Returns 0, or -1 if it
 * could not run or failed (it printed why, or we did).
 */
int scan_run(const char *xoscan, const char *tag, const char *fmtopt, const char *const *files);
const char *scan_fmtopt(unsigned long flags);
/* --kernel: PR_SET_XONLY and execve PROG. */
void __attribute__((noreturn)) run_kernel_mode(char **argv, char **envp, bool module);
/*
 * --kernel, a dynamically linked PROG and its interpreter: exit 126 with
 * a line if ld.so would read @im's program
 * headers or notes from a code segment (load_headers_in_code()) and the
 * file has no plan the kernel applies: the kernel's xonly mode makes that
 * page execute-only before the audit module exists, and ld.so would die
 * of SIGSEGV without a word.  (Libraries: the module's load guard, net.h.)
 */
void refuse_code_headers(const struct image *im);
/* "xoload --kernel PROG ..." and "--kernel-plans PROG ...": execve() PROG at once, before xoload relocates itself; returns if it cannot. */
void run_kernel_early(int argc, char **argv, char **envp, const void *own_first_page);
/* Switch to PROG's initial stack and jump to @entry (ld.so's, or PROG's if static). */
void __attribute__((noreturn)) handover(uint64_t entry, int argc, char **argv, char **envp, unsigned int flags,
					const struct image *prog, const struct image *interp);

#endif
