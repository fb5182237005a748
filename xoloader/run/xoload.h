/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xoload.h - what xoload and its audit module agree on.
 *
 * xoload tells the audit module how it was started with one extra auxv
 * entry (ld.so and libc ignore types they do not know): its presence says
 * "PROG and ld.so are already execute-only", its value carries the flags.
 * Environment: LD_AUDIT, and XOLOAD_PROG (below).
 *
 * The gate (fail closed when the module does not run): ld.so only warns
 * when an LD_AUDIT module cannot be loaded, and then runs the program with
 * every library readable.  So for a dynamically linked PROG, xoload puts
 * the address of a stub of its own into AT_ENTRY (where ld.so jumps when
 * it is done) and the address of a struct xoload_gate into AT_XOLOAD_GATE.
 * The module, when it sees the main program in la_objopen(), sets
 * ->confirmed to XOLOAD_GATE_OK and writes ->entry (PROG's real entry)
 * back into AT_ENTRY, so that getauxval(AT_ENTRY) is PROG's again.  The
 * stub jumps to ->entry if confirmed, else prints one line naming the
 * module and exits 126 (--permissive: prints a warning and runs PROG).
 */
#ifndef XOLOADER_RUN_XOLOAD_H
#define XOLOADER_RUN_XOLOAD_H

#define AT_XOLOAD		0x584f	/* "XO" */
#define AT_XOLOAD_GATE		0x5850	/* &struct xoload_gate */

/*
 * The absolute path of the program xoload runs, in that program's
 * environment: a re-exec of /proc/self/exe (which is xoload) runs it again
 * (xoload.c, reexec_args()).
 */
#define XOLOAD_PROG_ENV		"XOLOAD_PROG"

#define XOF_REPORT		0x1	/* print the report on stderr */
#define XOF_TSV			0x2	/* ... as tab-separated values */
#define XOF_STRICT		0x4	/* refuse what cannot be made execute-only */
#define XOF_NO_INHERIT		0x8	/* exec'd children run normally */
#define XOF_SCAN		0x10	/* run xoscan on every object */
#define XOF_SCAN_TSV		0x20	/* ... with tab-separated output */
#define XOF_JSON		0x40	/* the report as JSON lines */
#define XOF_SCAN_JSON		0x80	/* the scan as JSON lines */
#define XOF_PRESENT		0x100	/* always set: the value is never 0 */
#define XOF_PERMISSIVE		0x200	/* run and report what cannot be protected */
#define XOF_TIMES		0x400	/* XOLOAD_TIMES: print the phases' clocks (make bench) */

/*
 * XOLOAD_TIMES in xoload's environment: xoload and the audit module print
 * "xoload: time: EVENT NS" on stderr at each phase (CLOCK_MONOTONIC, ns),
 * for the benchmark's breakdown (bench.c).
 */
#define XOLOAD_TIMES_ENV	"XOLOAD_TIMES"

/*
 * XOLOAD_CHILDREN: how the audit module protects a program that one under
 * xoload executed (it inherited LD_AUDIT; no AT_XOLOAD, no xonly mode):
 * "inplace" (the default, also unset or empty) protects it where it is,
 * "reexec" runs it under xoload again (audit.c, protect_child()).
 */
#define XOLOAD_CHILDREN_ENV	"XOLOAD_CHILDREN"
#define XOLOAD_CHILDREN_INPLACE	0
#define XOLOAD_CHILDREN_REEXEC	1

#define XOLOAD_GATE_OK		0x6b6f2d6574616758ull	/* "Xgate-ok" */
#define XOLOAD_GATE_OK_STR	"0x6b6f2d6574616758"

#ifndef __ASSEMBLER__
#include <stdint.h>

#include "../rule/str.h"

/*
 * XOLOAD_CHILDREN's value @v (NULL: unset): XOLOAD_CHILDREN_INPLACE or
 * _REEXEC, or -1 for a value neither xoload nor the module takes.  One
 * parser, so that xoload refuses at its start exactly what the module
 * would refuse in a child.
 */
static inline int xoload_children_mode(const char *v)
{
	if (!v || !*v || !rt_strcmp(v, "inplace"))
		return XOLOAD_CHILDREN_INPLACE;
	return rt_strcmp(v, "reexec") ? -1 : XOLOAD_CHILDREN_REEXEC;
}

struct xoload_gate {
	uint64_t entry;		/* PROG's entry point (load address) */
	uint64_t confirmed;	/* XOLOAD_GATE_OK once the module ran */
	uint64_t *auxv_entry;	/* the AT_ENTRY value slot of the new auxv */
	uint64_t permissive;	/* --permissive: run PROG anyway */
	uint64_t msglen;	/* the line the stub prints if not confirmed */
	char msg[4096 + 200];
	uint64_t net;		/* the preloader's net table (run/net.h): PROG's and ld.so's net pages */
	uint64_t tunables;	/* XOLOAD_TUNABLES_*: what the first GLIBC_TUNABLES is, under the module */
};
/* The module's GLIBC_TUNABLES entry (runpath.c's build_env()), for --no-inherit to take it out again. */
#define XOLOAD_TUNABLES_NONE	0	/* none of ours */
#define XOLOAD_TUNABLES_OURS	1	/* ours alone */
#define XOLOAD_TUNABLES_JOINED	2	/* the user's, ":" and ours */
#endif

/*
 * Where xoload, its audit module and xoscan find each other: relative to
 * the directory of the one looking (xoload: its resolved /proc/self/exe;
 * the module: its path as ld.so loaded it), so that an installed tree
 * works wherever it was put.  The defaults are the VM image's layout
 * (/xonly/bin, /xonly/lib); `make install` builds xoload and the module
 * again with the layout of BINDIR and LIBDIR (build/inst/paths.h).
 */
/*
 * The static TLS surplus asked for wherever the module goes into
 * LD_AUDIT (runpath.c's tls_tunables()), for the initial-exec TLS of
 * the libraries a program starts with under an audit module; each
 * thread's static TLS area grows by it, out of its stack.  Measured with
 * glibc 2.36: rustc 1.95 (librustc_driver's 23 KB) needs 22 KiB or more,
 * node 20 fails to create a thread (a 32 KiB stack) at 27 KiB or more.
 */
#define XO_TLS_TUNABLE_NAME	"glibc.rtld.optional_static_tls"
#define XO_TLS_TUNABLE		XO_TLS_TUNABLE_NAME "=24576"
#define XO_TLS_TUNABLES_ENV	"GLIBC_TUNABLES=" XO_TLS_TUNABLE

#ifndef XO_AUDIT_FROM_XOLOAD
#define XO_AUDIT_FROM_XOLOAD	"../lib/xoaudit.so"
#endif
#ifndef XO_XOSCAN_FROM_XOLOAD
#define XO_XOSCAN_FROM_XOLOAD	"xoscan"
#endif
/*
 * xoplan: xoload.c, which xoload (preload.c) executes for --plan, --report
 * and --scan; not a command of its own (libexec).  It finds the module and
 * xoscan from its own directory.
 */
#ifndef XO_XOPLAN_FROM_XOLOAD
#define XO_XOPLAN_FROM_XOLOAD	"../lib/xoplan"
#endif
#ifndef XO_AUDIT_FROM_XOPLAN
#define XO_AUDIT_FROM_XOPLAN	"xoaudit.so"
#endif
#ifndef XO_XOSCAN_FROM_XOPLAN
#define XO_XOSCAN_FROM_XOPLAN	"../bin/xoscan"
#endif
#ifndef XO_XOLOAD_FROM_AUDIT
#define XO_XOLOAD_FROM_AUDIT	"../bin/xoload"
#endif
#ifndef XO_XOSCAN_FROM_AUDIT
#define XO_XOSCAN_FROM_AUDIT	"../bin/xoscan"
#endif

#endif
