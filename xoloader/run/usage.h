/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usage.h - xoload --help: one text for the preloader (preload.c) and for
 * xoplan (tools/xoplan.c), which --plan executes.
 */
#ifndef XOLOADER_USAGE_H
#define XOLOADER_USAGE_H

#include "runpath.h"

#ifndef XONLY_VERSION
#define XONLY_VERSION "unknown"	/* the Makefile sets it from packaging/debian/changelog */
#endif

static const char usage[] =
"usage: xoload [OPTIONS] PROG [ARGS...]\n"
"\n"
"Run PROG (searched on PATH when it has no '/') so that all of its code -\n"
"the program, its ELF interpreter, every DT_NEEDED library and every\n"
"library it dlopens - is mapped execute-only (PROT_EXEC without PROT_READ,\n"
"backed by the kernel's execute-only protection key) before any of that\n"
"code runs.  Pages of an executable segment that also hold data (ELF\n"
"headers, .rodata, .eh_frame: binaries linked without -z separate-code;\n"
"tables in .text that no .eh_frame FDE covers: OpenSSL) stay readable;\n"
"objects with text relocations stay readable (warning).\n"
"The vDSO stays readable: ld.so reads its symbol tables.\n"
"\n"
"options:\n"
"  --report[=human|tsv|json]\n"
"                        print one line per executable range on stderr:\n"
"                        object, address range, 'xo' or 'readable', why\n"
"                        (json: one JSON object per line)\n"
"  --plan[=human|tsv|json]\n"
"                        print the plan on stdout and exit without running\n"
"                        anything (needs no pkeys): PROG, its interpreter and\n"
"                        every library of its closure as ld.so would resolve\n"
"                        it (DT_NEEDED, DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH,\n"
"                        /etc/ld.so.cache, the default directories), like\n"
"                        ldd without running PROG.  PROG may be any object:\n"
"                        a library or plugin too, found as ld.so finds one\n"
"                        when PATH does not have it (libcrypto.so.3)\n"
"  --no-deps             with --plan: PROG and its interpreter only\n"
"  --scan[=human|tsv|json]\n"
"                        scan the code of every loaded object (PROG, its\n"
"                        interpreter, each library, xoload's own runtime,\n"
"                        the vDSO) for instructions that can change PKRU:\n"
"                        WRPKRU, XRSTOR, XRSTOR64, XRSTORS, XRSTORS64, at\n"
"                        every byte offset; one line each on stderr (object,\n"
"                        offset, section, on an instruction boundary or not)\n"
"  --strict              refuse (exit 126) an object of which no code can be\n"
"                        made execute-only (TEXTREL, no section headers)\n"
"  --permissive          run PROG even when its code cannot all be protected\n"
"                        (the audit module did not run, an object cannot be\n"
"                        planned or protected), with a warning for each;\n"
"                        without it xoload stops PROG before any of its code\n"
"                        runs (exit 126, one line naming the object)\n"
"  --no-inherit          programs PROG execs run normally (default: they are\n"
"                        run under xoload again, see xoload(1))\n"
"  --kernel              let the kernel do it: set the xonly exec mode\n"
"                        (prctl PR_SET_XONLY, see xonly(7)) and\n"
"                        execve PROG; every file-backed PROT_READ|PROT_EXEC\n"
"                        mapping, PROG's, ld.so's and each library's, is then\n"
"                        execute-only, and so are all descendants (the flag\n"
"                        cannot be cleared).  The audit module gives each\n"
"                        object's data pages (tables in .text, headers)\n"
"                        their read back: pkey_mprotect(..., 0).  Not with\n"
"                        --report, --plan, --scan, --strict, --no-inherit,\n"
"                        --permissive, --audit\n"
"  --argv0=NAME          pass NAME as argv[0] instead of PROG\n"
"  --audit=PATH          the audit module (default: " XO_AUDIT_FROM_XOLOAD "\n"
"                        from xoload's directory, else\n"
"                        " XOLOAD_AUDIT_DEFAULT ")\n"
"  -h, --help            this text\n"
"      --version         print xoload's version and exit\n"
"\n"
"exit status: PROG's own; PROG is not a child, so a death by signal is\n"
"seen by the caller as that signal (a shell reports 128+N).  xoload's own\n"
"errors: 127 PROG or its interpreter not found, 126 not executable or\n"
"malformed, or set-user-ID, set-group-ID or with file capabilities (xoload\n"
"cannot carry those privileges), or no protection keys on this machine, or\n"
"the audit module is damaged or did not run, or an object cannot be\n"
"planned (before any of PROG's code runs),\n"
"2 usage error (also: --report and --plan with different formats).  Errors\n"
"are one line on stderr.\n";

#endif
