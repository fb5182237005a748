// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - print and apply a plan.  Written with one write(2) per line:
 * the audit module runs before the program's stdio is set up.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "xoload.h"

enum report_fmt report_fmt(unsigned long flags)
{
	return flags & XOF_JSON ? REPORT_JSON : flags & XOF_TSV ? REPORT_TSV : REPORT_HUMAN;
}

char *json_str(char *out, size_t len, const char *s)
{
	size_t k = 0;

	if (len < 3)
		return out[0] = 0, out;
	out[k++] = '"';
	/* Bytes >= 0x80 go out as they are: paths are bytes, JSON wants UTF-8. */
	for (; *s && k + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			k += (size_t)snprintf(out + k, len - k, "\\%c", c);
		else if (c < 0x20)
			k += (size_t)snprintf(out + k, len - k, "\\u%04x", c);
		else
			out[k++] = (char)c;
	}
	out[k++] = '"';
	out[k] = 0;
	return out;
}

static void emit(const char *line, int n, size_t size)
{
	if (n > 0)
		(void)!write(2, line, (size_t)n < size ? (size_t)n : size - 1);
}

void report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt)
{
	char line[3 * 4096 + 512], o[2 * 4096 + 8], w[128], sn[2 * 64], where[256];
	int i;

	if (fmt == REPORT_JSON)
		json_str(o, sizeof(o), obj);
	for (i = 0; i < p->n; i++) {
		const struct plan_range *r = &p->r[i];
		unsigned long long a = r->start + bias, b = r->end + bias;
		unsigned long long so = r->soff, sz = r->ssize;

		/* Data in text: which section, where in it and how much. */
		where[0] = 0;
		if (r->sect[0] && fmt == REPORT_JSON)
			snprintf(where, sizeof(where), ",\"section\":%s,\"offset\":%llu,\"size\":%llu",
				 json_str(sn, sizeof(sn), r->sect), so, sz);
		else if (r->sect[0] && fmt == REPORT_TSV)
			snprintf(where, sizeof(where), "\t%s\t%llx\t%llu", r->sect, so, sz);
		else if (r->sect[0])
			snprintf(where, sizeof(where), " (%s+0x%llx, %llu bytes)", r->sect, so, sz);
		if (fmt == REPORT_JSON)
			emit(line, snprintf(line, sizeof(line),
					    "{\"object\":%s,\"start\":%llu,\"end\":%llu,\"xo\":%s,\"why\":%s%s}\n",
					    o, a, b, r->xo ? "true" : "false", json_str(w, sizeof(w), r->why), where),
			     sizeof(line));
		else
			emit(line, snprintf(line, sizeof(line), fmt == REPORT_TSV ? "%s\t%llx\t%llx\t%s\t%s%s\n" :
					    "xoload: %s 0x%llx-0x%llx %s %s%s\n", obj, a, b,
					    r->xo ? "xo" : "readable", r->why, where), sizeof(line));
	}
}

void report_json_note(const char *obj, const char *why)
{
	char line[3 * 4096 + 256], o[2 * 4096 + 8], w[2 * 256];

	emit(line, snprintf(line, sizeof(line), "{\"object\":%s,\"xo\":false,\"why\":%s}\n",
			    json_str(o, sizeof(o), obj), json_str(w, sizeof(w), why)), sizeof(line));
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
