/* SPDX-License-Identifier: GPL-2.0 */
/* apply.h - the --report lines of xoplan and the tools; run/carve.h has rt_apply(), run/runpath.h scan_run(). */
#ifndef XOLOADER_APPLY_H
#define XOLOADER_APPLY_H

#include <stdint.h>

#include "../rule/plan.h"
#include "../run/report.h"

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

#endif
