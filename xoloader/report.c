// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - print and apply a plan.  Written with one write(2) per line:
 * the audit module runs before the program's stdio is set up.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report.h"

void report_plan(const char *obj, const struct plan *p, uint64_t bias, int tsv)
{
	char line[4096 + 128];
	int i, n;

	for (i = 0; i < p->n; i++) {
		const struct plan_range *r = &p->r[i];

		n = snprintf(line, sizeof(line), tsv ? "%s\t%llx\t%llx\t%s\t%s\n" :
			     "xoload: %s 0x%llx-0x%llx %s %s\n", obj,
			     (unsigned long long)(r->start + bias), (unsigned long long)(r->end + bias),
			     r->xo ? "xo" : "readable", r->why);
		if (n > 0)
			(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

int plan_apply(const struct plan *p, uint64_t bias)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->r[i].xo && mprotect((void *)(p->r[i].start + bias), p->r[i].end - p->r[i].start, PROT_EXEC))
			return -errno;
	return 0;
}
