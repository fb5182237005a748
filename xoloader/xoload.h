/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xoload.h - what xoload and its audit module agree on.
 *
 * xoload tells the audit module how it was started with one extra auxv
 * entry (ld.so and libc ignore types they do not know): its presence says
 * "PROG and ld.so are already execute-only", its value carries the flags.
 * No environment variable is added besides LD_AUDIT.
 */
#ifndef XOLOADER_XOLOAD_H
#define XOLOADER_XOLOAD_H

#define AT_XOLOAD		0x584f	/* "XO" */

#define XOF_REPORT		0x1	/* print the report on stderr */
#define XOF_TSV			0x2	/* ... as tab-separated values */
#define XOF_STRICT		0x4	/* refuse what cannot be made execute-only */
#define XOF_NO_INHERIT		0x8	/* exec'd children run normally */
#define XOF_SCAN		0x10	/* run xoscan on every object */
#define XOF_SCAN_TSV		0x20	/* ... with tab-separated output */
#define XOF_JSON		0x40	/* the report as JSON lines */
#define XOF_SCAN_JSON		0x80	/* the scan as JSON lines */
#define XOF_PRESENT		0x100	/* always set: the value is never 0 */

/*
 * Where xoload, its audit module and xoscan find each other: relative to
 * the directory of the one looking (xoload: its resolved /proc/self/exe;
 * the module: its path as ld.so loaded it), so that an installed tree
 * works wherever it was put.  The defaults are the VM image's layout
 * (/xonly/bin, /xonly/lib); `make install` builds xoload and the module
 * again with the layout of BINDIR and LIBDIR (build/inst/paths.h).
 */
#ifndef XO_AUDIT_FROM_XOLOAD
#define XO_AUDIT_FROM_XOLOAD	"../lib/xoaudit.so"
#endif
#ifndef XO_XOSCAN_FROM_XOLOAD
#define XO_XOSCAN_FROM_XOLOAD	"xoscan"
#endif
#ifndef XO_XOLOAD_FROM_AUDIT
#define XO_XOLOAD_FROM_AUDIT	"../bin/xoload"
#endif
#ifndef XO_XOSCAN_FROM_AUDIT
#define XO_XOSCAN_FROM_AUDIT	"../bin/xoscan"
#endif

#endif
