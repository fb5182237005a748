// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_learn_plan - from learn mode to plans, on a real program (issue
 * 24): "xonly=learn without plans: openssl dgst runs, the log names
 * libcrypto's table pages, and the plan derived from the log, set as the
 * attribute, makes the same command run under xonly=on; a program without
 * data in its code logs nothing."
 *
 * In learn mode (from the boot, xonly=learn; in a plain boot this test
 * enters it with PR_SET_XONLY 3, and its children inherit it), proves:
 *  - openssl dgst -sha256 runs and prints sha256sum's digest, although
 *    libcrypto 3.0 has tables in .text;
 *  - the kernel log has "xonly learn:" lines for that pid naming
 *    libcrypto.so.3 (its table pages);
 *  - /usr/bin/true (no data in its code) runs and logs nothing;
 *  - xoload --set-xattr --from-log LOG --log-only, LOG being the openssl
 *    run's learn lines, sets a plan on every file they name (libcrypto's
 *    among them) with nothing refused, and --get-xattr says each fits;
 *  - on a kernel that applies plans (detected as tests/kernel/xonly_plan
 *    does: a malformed plan is logged "xonly plan:"; else these rows are
 *    skipped, with that reason): a child raised to PR_SET_XONLY 1, which
 *    ends learn mode, runs the same openssl dgst and prints the same
 *    digest with those plans, the pages of the log alone, and logs no
 *    learn line and no ignored plan;
 *  - with the plans cleared again (--clear-xattr, --get-xattr: no plan),
 *    the same child at level 1 dies of SIGSEGV: the plans made the
 *    difference (on any kernel: xonly mode alone kills it).
 * Skipped: without PKU; at level 1 or 2 (xonly=on, xonly=strict), which
 * learn mode ranks below; without /usr/bin/openssl in the image.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xonly/uapi.h>

#include "boot.h"
#include "child.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define OPENSSL		"/usr/bin/openssl"
#define TRUE		"/usr/bin/true"
#define XOLOAD		"/xonly/bin/xoload"
#define LOG		"/tmp/xonly_learn_plan.log"
#define PROBE		"/tmp/xonly_learn_plan.probe"

static char want[128];		/* sha256sum's digest of TRUE */
static char files[8192];	/* the files the plans were set on, space-separated */
static char pidtag[32];

/* Level 1 from learn mode (which it ends), and nothing else. */
static int enter_level1(void)
{
	return xonly_set(XONLY_PR_XONLY_ON, 0, 0, 0) || xonly_get(0, 0, 0, 0) != XONLY_PR_XONLY_ON;
}

/* Run @argv in a child, at level 1 if @xo; its wait status, the first line of its stdout in @out. */
static int run(char *const argv[], bool xo, pid_t *pidp, char *out, size_t outlen)
{
	int st = child_run(argv[0], argv, xo ? enter_level1 : NULL, 60, out, outlen, pidp);

	out[strcspn(out, "\n")] = 0;
	return st;
}

/* openssl dgst -sha256 of TRUE: its wait status; true if it printed the digest. */
static bool dgst(bool xo, int *st, pid_t *pid, char *out, size_t outlen)
{
	char *argv[] = { (char *)OPENSSL, (char *)"dgst", (char *)"-sha256", (char *)TRUE, NULL };
	const char *hex;

	*st = run(argv, xo, pid, out, outlen);
	hex = strstr(out, "= ");
	return WIFEXITED(*st) && !WEXITSTATUS(*st) && hex && !strcmp(hex + 2, want);
}

/* The kernel log's lines that have @what and " pid=@pid ", into @f if not NULL: their number. */
static int log_lines(const char *what, pid_t pid, FILE *f)
{
	static char buf[1 << 20];
	int len = klogctl(3, buf, sizeof(buf) - 1), n = 0;
	char *p, *end;

	if (len < 0)
		tap_bail("klogctl: %s", errname(errno));
	buf[len] = 0;
	snprintf(pidtag, sizeof(pidtag), " pid=%d ", (int)pid);
	for (p = buf; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (memmem(p, (size_t)(end - p), what, strlen(what)) && memmem(p, (size_t)(end - p), pidtag, strlen(pidtag))) {
			n++;
			if (f)
				fprintf(f, "%.*s\n", (int)(end - p), p);
		}
	}
	return n;
}

static bool any_plan_line(const char *line)
{
	return strstr(line, "xonly plan: ") && strstr(line, pidtag);
}

/*
 * Does this kernel apply plans?  A malformed one on a copy of TRUE, run at
 * level 1: a kernel that reads plans logs "xonly plan: ... ignored".
 */
static bool kernel_has_plans(void)
{
	char *argv[] = { (char *)PROBE, NULL }, out[64];
	pid_t pid;
	bool has;

	if (system("cp " TRUE " " PROBE) || setxattr(PROBE, XONLY_PLAN_XATTR, "XOPX\0\0\0\0\0\0\0\0\0\0\0\0", 16, 0))
		tap_bail("setup: %s with a malformed plan: %s", PROBE, errname(errno));
	run(argv, true, &pid, out, sizeof(out));
	snprintf(pidtag, sizeof(pidtag), " pid=%d ", (int)pid);
	has = klog_line(any_plan_line) != NULL;
	unlink(PROBE);
	return has;
}

/* xoload @args: its exit status (-1 if it did not exit), its stdout in @out. */
static int xoload(const char *args, char *out, size_t outlen)
{
	char cmd[sizeof(files) + 256];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), XOLOAD " %s 2>&1", args);
	f = popen(cmd, "r");
	if (!f)
		tap_bail("popen %s: %s", cmd, errname(errno));
	n = fread(out, 1, outlen - 1, f);
	while (n && out[n - 1] == '\n')
		n--;
	out[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	static char out[16384], line[256], cmd[sizeof(files) + 32];
	char *argv_true[] = { (char *)TRUE, NULL }, *p, *end;
	int level, st, n, ncrypto, r, nfiles;
	pid_t pid;
	FILE *f;
	bool ok;

	tap_init("xonly_learn_plan");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "learn mode to plans");
		return tap_done();
	}
	level = xonly_get(0, 0, 0, 0);
	if (level == XONLY_PR_XONLY_ON || level == XONLY_PR_XONLY_STRICT) {
		tap_skip("this process is at level 1 or 2 (xonly=on, xonly=strict): learn mode ranks below",
			 "learn mode to plans (level %d)", level);
		return tap_done();
	}
	if (level == 0 && xonly_set(XONLY_PR_XONLY_LEARN, 0, 0, 0))
		tap_bail("PR_SET_XONLY 3: %s (a kernel without learn mode?)", errname(errno));
	tap_ok(xonly_get(0, 0, 0, 0) == XONLY_PR_XONLY_LEARN, "in learn mode (%s)",
	       level ? "from the boot: xonly=learn" : "entered with PR_SET_XONLY 3");
	if (access(OPENSSL, X_OK)) {
		tap_skip("no " OPENSSL " in this image", "learn mode to plans");
		return tap_done();
	}
	f = popen("sha256sum " TRUE, "r");
	if (!f || !fgets(want, sizeof(want), f))
		tap_bail("sha256sum " TRUE);
	pclose(f);
	want[strcspn(want, " ")] = 0;

	/* Learn lines are rate-limited (100 in 5 s, all processes): let the tests before this one's go by. */
	sleep(5);
	ok = dgst(false, &st, &pid, line, sizeof(line));
	tap_ok(ok, "learn mode, no plans: openssl dgst -sha256 prints sha256sum's digest (%s: %s)", status_str(st), line);
	n = log_lines("xonly learn: ", pid, NULL);
	ncrypto = log_lines("/libcrypto.so.3 offset=", pid, NULL);
	tap_ok(ncrypto > 0, "the log names libcrypto.so.3's pages for its pid %d (%d of its %d learn lines)", (int)pid,
	       ncrypto, n);
	if (n >= 90)
		tap_diag("%d learn lines: near the rate limit, some may be missing", n);
	f = fopen(LOG, "w");
	if (!f || log_lines("xonly learn: ", pid, f) != n || fclose(f))
		tap_bail("setup: write %s: %s", LOG, errname(errno));

	st = run(argv_true, false, &pid, line, sizeof(line));
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st) && log_lines("xonly learn: ", pid, NULL) == 0,
	       TRUE " (no data in its code) runs in learn mode and logs nothing (%s, %d lines)", status_str(st),
	       log_lines("xonly learn: ", pid, NULL));

	/* Plans from the log alone: the pages openssl was seen to read. */
	r = xoload("--set-xattr --from-log " LOG " --log-only", out, sizeof(out));
	ok = r == 0 && strstr(out, "/libcrypto.so.3: plan set, readable: ");
	for (p = out; *p; p = *end ? end + 1 : end) {
		char *colon;

		end = strchrnul(p, '\n');
		colon = memmem(p, (size_t)(end - p), ": plan set, readable: ", 22);
		ok &= colon != NULL;
		if (colon && strlen(files) + (size_t)(colon - p) + 2 < sizeof(files))
			snprintf(files + strlen(files), sizeof(files) - strlen(files), "%.*s ", (int)(colon - p), p);
	}
	tap_ok(ok, "xoload --set-xattr --from-log (the openssl run's lines) --log-only: a plan on each file, "
	       "libcrypto's among them, none refused (exit %d): %s", r, out);
	snprintf(cmd, sizeof(cmd), "--get-xattr %s", files);
	r = xoload(cmd, out, sizeof(out));
	tap_ok(*files && r == 0, "xoload --get-xattr: each fits its file (exit %d): %s", r, out);

	if (!kernel_has_plans()) {
		tap_skip("the kernel does not apply plans (no \"xonly plan:\" line for a malformed one: patch 0072 "
			 "not in it)", "level 1 with the log's plans: openssl dgst runs");
	} else {
		ok = dgst(true, &st, &pid, line, sizeof(line));
		tap_ok(ok, "PR_SET_XONLY 1 (ends learn mode) with the log's plans: openssl dgst -sha256 prints "
		       "sha256sum's digest (%s: %s)", status_str(st), line);
		n = log_lines("xonly learn: ", pid, NULL);
		tap_ok(n == 0 && !klog_line(any_plan_line),
		       "... it learned nothing (%d lines) and no plan was ignored", n);
	}

	snprintf(cmd, sizeof(cmd), "--clear-xattr %s", files);
	r = xoload(cmd, out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "--get-xattr %s", files);
	xoload(cmd, out, sizeof(out));
	for (n = 0, p = out; (p = strstr(p, ": no plan")); p++)
		n++;
	for (nfiles = 0, p = files; (p = strchr(p, ' ')); p++)
		nfiles++;
	tap_ok(r == 0 && nfiles > 0 && n == nfiles, "xoload --clear-xattr: the plans are gone (%d of %d files: %s)", n,
	       nfiles, out);
	ok = dgst(true, &st, &pid, line, sizeof(line));
	tap_ok(!ok && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "without the plans, at level 1: openssl dgst dies of SIGSEGV (%s)", status_str(st));
	unlink(LOG);
	return tap_done();
}
