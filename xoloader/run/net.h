/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/net.h - the safety net (issue 26 step 3; xoloader/README.md, "The
 * safety net"): a read fault on a page that only the proven-code rule
 * made execute-only (a net page: plancache.h) is reported and the page
 * made readable, instead of killing the program.
 *
 * Who records what: the preloader records PROG and ld.so (it plans them
 * before the audit module exists) and hands its table to the module
 * through the gate (xoload.h); the module records every object it plans,
 * under xoload and under xoload --kernel, and installs the SIGSEGV
 * handler.  A static PROG has no module: the preloader installs it.
 *
 * The table is fixed (no allocation: a signal handler reads it); the
 * slots of forgotten objects are reused (net.c says in which order a slot
 * is written so that the handler never sees half of one).  A writer
 * publishes a new slot whole before it raises the count (release; the
 * handler loads the count with acquire), and only ld.so's lock holder
 * writes.  What does not fit, and the net pages of an object loaded after
 * the program installed a SIGSEGV handler of its own, are made readable
 * at once (fail safe: the program keeps running as under the FDE rule)
 * with one line on stderr.
 *
 * The file: before the handler makes a page readable it looks the page up
 * in /proc/self/maps (raw system calls: async-signal-safe; once per net
 * page, the page stays readable after) and wants the device and inode
 * recorded for the object when its net pages were added (read there the
 * same way): a page that no longer maps that file (munmap or MAP_FIXED
 * over it without dlclose, another object since) is not the net's.  An
 * object whose mapping cannot be looked up when it is added has its net
 * pages made readable at once (one line); a lookup that fails in the
 * handler leaves the fault to kill, as without the net.
 *
 * No net: XOLOAD_NO_NET in the environment (xoload --no-net), or the
 * strict level of the kernel's xonly mode (prctl PR_GET_XONLY == 2),
 * where code is never made readable again.  Then net pages stay
 * execute-only and the first read kills, as before the net.
 */
#ifndef XOLOADER_RUN_NET_H
#define XOLOADER_RUN_NET_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>

#include "../rule/plan.h"
#include "plancache.h"

#define XOLOAD_NO_NET_ENV	"XOLOAD_NO_NET"	/* set (to anything): no safety net */

#define XONET_OBJS		512
#define XONET_RANGES		4096
#define XONET_NAME		200

struct xonet_obj {
	uint64_t bias, lo, hi;	/* [~0, 0): gone (unmapped), the slot free */
	uint64_t dev, ino;	/* its file as /proc/self/maps shows it (major << 32 | minor, inode) */
	char name[XONET_NAME];	/* control characters as '?', truncated */
};

struct xonet_range {
	uint64_t start, end;	/* absolute; [~0, 0): gone, the slot free */
	uint32_t obj, pad;
};

/*
 * The table's layout, which the module checks before it reads the
 * preloader's (gate.net): xoload and a module of another build
 * (--audit=) may disagree.  Raise it with any change of the structs
 * below; a test builds a module with another value (Makefile).
 */
#ifndef XONET_VERSION
#define XONET_VERSION		0x74656e03u	/* "\3net" */
#endif

struct xonet_table {
	uint32_t version, size;	/* XONET_VERSION, sizeof(struct xonet_table): xonet_table() sets them */
	uint32_t nobj, nrange;	/* slots used so far; published with release, read with acquire */
	struct xonet_obj obj[XONET_OBJS];
	struct xonet_range r[XONET_RANGES];
};

/*
 * Whether the net is on in this process: no XOLOAD_NO_NET (@no_net_env
 * NULL), not the strict level (@xonly_level, prctl(XONLY_PR_GET_XONLY)
 * as the caller asked it once).
 */
bool xonet_on(const char *no_net_env, long xonly_level);
/*
 * Record object @name mapped at @bias, planned as @p (its executable
 * extent names the instruction that faults), and its net pages @net
 * (NULL: the net is off, only the object is recorded).  Net pages that
 * do not fit are made readable now (one line).  Returns the object's
 * index + 1 (a cookie for xonet_close()), 0 if the table of objects is
 * full.
 */
uint32_t xonet_add(const char *name, uint64_t bias, const struct plan *p, const struct xoc_net *net);
/*
 * The object of cookie @c is being closed (la_objclose).  Its entries are
 * forgotten by the next xonet_settle() if it is unmapped by then: ld.so
 * calls la_objclose at dlclose, before it unmaps the object, but also at
 * exit (_dl_fini, after the object's destructors), where nothing is
 * unmapped and exit still runs the objects' code (atexit-time stdio
 * flushing, other threads).
 */
void xonet_close(uint32_t c);
/* Objects closed since the last call and no longer mapped are forgotten (la_activity). */
void xonet_settle(void);
/*
 * Net pages recorded since the last call are watched: the handler is
 * installed if SIGSEGV's disposition is the default (or ignored) or ours;
 * if the program installed its own, they are made readable now (one line).
 */
void xonet_arm(void);
/*
 * The load guard, for the kernel's xonly mode (--kernel and its
 * descendants; the module and the hook under xonly=on or =strict), while
 * ld.so loads objects: its reads, by its code
 * [@ld_lo, @ld_hi), of an object's ELF header, program headers or notes
 * that the kernel mapped execute-only make that page readable (net.c).
 * The handler is installed if SIGSEGV's disposition is the default (or
 * ignored) or already ours; false if the program's own is there.
 */
bool xonet_guard(uint64_t ld_lo, uint64_t ld_hi);
/* xonet_guard()'s reader: the span of @phnum program headers' PF_X PT_LOADs at @bias; *@hi 0 if none. */
void xonet_code_span(uint64_t bias, const Elf64_Phdr *ph, int phnum, uint64_t *lo, uint64_t *hi);
/*
 * The load is over (la_activity LA_ACT_CONSISTENT, the hook's
 * RT_CONSISTENT): the disposition the
 * program had is put back if the guard installed the handler and the
 * net does not need it, so that the program starts, and installs its own
 * handlers (Rust's std only over the default), as without xoload.
 */
void xonet_guard_end(void);
/* This process's table (the preloader hands it to the module: gate.net), its version set. */
struct xonet_table *xonet_table(void);
/*
 * Take over the preloader's entries (PROG, ld.so) from @from.  False, and
 * nothing read but its version and size, if they are not this build's:
 * those net pages then stay unwatched (execute-only; a read kills).
 */
bool xonet_import(const struct xonet_table *from);

#endif
