/* SPDX-License-Identifier: GPL-2.0 */
/*
 * apply.h - xoload's side of a plan: apply it (mprotect), print it
 * (--report, through run/report.h), scan the objects (--scan, xoscan).
 */
#ifndef XOLOADER_RUN_APPLY_H
#define XOLOADER_RUN_APPLY_H

#include <stdint.h>

#include "../rule/plan.h"
#include "report.h"

/* The --report format that the XOF_* @flags ask for. */
enum report_fmt report_fmt(unsigned long flags);
/*
 * One line per range of @p (link-time addresses + @bias) to stderr:
 *   human: "xoload: OBJECT 0xSTART-0xEND xo|readable WHY"
 *   tsv:   "OBJECT\tSTART\tEND\txo|readable\tWHY" (hex without 0x)
 *   json:  {"object":"OBJECT","start":START,"end":END,"xo":true|false,"why":"WHY"}
 * A range kept readable for data in text ("not covered by any FDE") also
 * names the first data gap in it: " (SECTION+0xOFFSET, SIZE bytes)",
 * "\tSECTION\tOFFSET(hex)\tSIZE", ',"section":"S","offset":N,"size":N'.
 */
void report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt);
/* Apply @p: mprotect(PROT_EXEC) on every xo range.  Returns 0 or -errno. */
int plan_apply(const struct plan *p, uint64_t bias);
/*
 * --scan: run the scanner @xoscan (a program: see xoscan.c for why) on the
 * NULL-terminated @files with its output on our stderr, and wait for it.
 * @tag prefixes the object names, @fmtopt is NULL (human), "--tsv" or
 * "--json" (xoscan's options).  Returns 0, or -1 if it could not run or
 * failed (it printed why, or we did).
 */
/* xoscan's option for the scan format the XOF_* @flags ask for (NULL: human). */
const char *scan_fmtopt(unsigned long flags);
int scan_run(const char *xoscan, const char *tag, const char *fmtopt, const char *const *files);

#endif
