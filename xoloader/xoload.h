/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xoload.h - what xoload and its audit module agree on.
 *
 * xoload tells the audit module how it was started with one extra auxv
 * entry (ld.so and libc ignore types they do not know): its presence says
 * "PROG and ld.so are already execute-only", its value carries the flags.
 * Environment: LD_AUDIT, and XOLOAD_PROG (below).
 */
#ifndef XOLOADER_XOLOAD_H
#define XOLOADER_XOLOAD_H

#define AT_XOLOAD		0x584f	/* "XO" */

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

#endif
