// SPDX-License-Identifier: GPL-2.0
/*
 * apply.c - xoplan's and the tools' side of printing a plan: the lines
 * themselves come from run/report.c, which the freestanding audit module
 * uses too (one write(2) per line: no stdio involved).
 */
#include "../run/xoload.h"
#include "apply.h"

enum report_fmt report_fmt(unsigned long flags)
{
	return flags & XOF_JSON ? REPORT_JSON : flags & XOF_TSV ? REPORT_TSV : REPORT_HUMAN;
}

void report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt)
{
	rt_report_plan(obj, p, bias, fmt);
}
