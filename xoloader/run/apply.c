// SPDX-License-Identifier: GPL-2.0
/*
 * apply.c - xoload's side of applying and printing a plan: plan_apply()
 * (the run path) and the --report and --scan glue of xoload's options
 * (which leave the run path in the next step of issue 23).  The lines
 * themselves come from run/report.c, which the freestanding audit module
 * uses too (one write(2) per line: no stdio involved).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "xoload.h"

enum report_fmt report_fmt(unsigned long flags)
{
	return flags & XOF_JSON ? REPORT_JSON : flags & XOF_TSV ? REPORT_TSV : REPORT_HUMAN;
}

void report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt)
{
	rt_report_plan(obj, p, bias, fmt);
}

int plan_apply(const struct plan *p, uint64_t bias)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->r[i].xo && mprotect((void *)(p->r[i].start + bias), p->r[i].end - p->r[i].start, PROT_EXEC))
			return -errno;
	return 0;
}

const char *scan_fmtopt(unsigned long flags)
{
	return flags & XOF_SCAN_JSON ? "--json" : flags & XOF_SCAN_TSV ? "--tsv" : NULL;
}

int scan_run(const char *xoscan, const char *tag, const char *fmtopt, const char *const *files)
{
	static char tagopt[4096 + 16];
	const char *argv[16], *first;
	posix_spawn_file_actions_t fa;
	char line[4096 + 128];
	int n = 0, st, rc;
	pid_t pid;

	argv[n++] = xoscan;
	argv[n++] = "--prefix=xoload: scan: ";
	if (fmtopt)
		argv[n++] = fmtopt;
	snprintf(tagopt, sizeof(tagopt), "--tag=%s", tag);
	argv[n++] = tagopt;
	argv[n++] = "--";
	first = files[0] ? files[0] : "?";
	while (*files && n < 15)
		argv[n++] = *files++;
	argv[n] = NULL;
	/*
	 * posix_spawn, not fork: no atfork handlers of the program run, and it
	 * is safe inside ld.so's la_objopen.  xoscan is static: LD_AUDIT in
	 * the environment does not apply to it.
	 */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawn(&pid, xoscan, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		n = snprintf(line, sizeof(line), "xoload: scan: cannot run %s: %s\n", xoscan, strerror(rc));
		if (n > 0)
			(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno == EINTR)
			continue;
		/* Reaped by someone else (SIGCHLD ignored, a waitpid(-1) thread). */
		n = snprintf(line, sizeof(line), "xoload: scan: lost track of %s (%s): the scan of %s may be incomplete\n",
			     xoscan, strerror(errno), first);
		if (n > 0)
			(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		return -1;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
