// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_plans bench - what xonly mode with plans costs (issue 24: target
 * <= 1.01x, the kernel does the work once per mapping), measured side by
 * side in one plain boot.
 *
 * xonly mode cannot be left once entered, so each sample is a fresh child
 * that either execs the program as it is ("plain") or first enters xonly
 * mode (PR_SET_XONLY 1) and then execs it, alternating, and the medians and
 * the fastest runs are compared.  The programs' closures (what xoload
 * --plan=tsv lists) get plans, the trusted.xonly attribute, from xoload
 * --set-xattr first, so that programs with data in their code (openssl's
 * libcrypto) run in xonly mode at all; the attributes are cleared at the
 * end.  Rows:
 *  - startup of /usr/bin/true and of python3 -c pass: wall time from fork
 *    to exit;
 *  - openssl speed -seconds 1 sha256: the throughput on 16 KiB blocks
 *    (its last column), the ratio plain / xonly, so that above 1 is slower
 *    as for the times.
 * Then, with the plans cleared, the same again for the programs that still
 * run in xonly mode without plans (true: it has no data in its code): its
 * ratio beside the one with plans shows what the plans cost on top.
 * The targets are printed, not enforced (make bench: ratios, never timed
 * tests; under TCG only the ratios mean anything).
 *
 * Skipped, with a line saying why: without xonly mode, without PKU, in a
 * process already in xonly mode (an xonly= boot: no plain run), and on a
 * kernel without plans (a malformed plan logs no "xonly plan:" line, as
 * tests/kernel/xonly_plan.c detects it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "bench.h"
#include "pkru.h"
#include "xonly_sys.h"

#define XOLOAD		"/xonly/bin/xoload"
#define PROBE		"/tmp/xonly-plans-bench.probe"
#define MAX_ROUNDS	15
#define KLOG_READ_ALL	3

enum { PLAIN, XONLY };

struct prog {
	const char *label;
	char *argv[8];
	int rounds;
	int speed;		/* openssl speed: a throughput, parsed from -mr output */
	double xo_ratio;	/* the median ratio with plans, for the row without */
};

static struct prog progs[] = {
	{ "/usr/bin/true", { "/usr/bin/true", NULL }, 15, 0, 0 },
	{ "python3 -c pass", { "/usr/bin/python3", "-c", "pass", NULL }, 9, 0, 0 },
	{ "openssl speed -seconds 1 sha256", { "/usr/bin/openssl", "speed", "-seconds", "1", "-mr", "sha256", NULL }, 5, 1,
	  0 },
};

#define NPROGS	(sizeof(progs) / sizeof(progs[0]))

/* The files of every closure, space-separated, for xoload --set/--clear-xattr. */
static char files[16384];

/*
 * One run of @argv in a fresh child, in xonly mode if @mode is XONLY; its
 * stdout in @out if @out, else discarded.  Returns the wall time from fork
 * to exit, or -1 if the child did not exit 0 (its wait status in *@stp).
 */
static double run(char *const argv[], int mode, char *out, size_t outlen, int *stp, pid_t *pidp)
{
	double t0 = now();
	int p[2], st = -1;
	ssize_t n = 0, k;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(out ? p[1] : null, 1);
		dup2(null, 2);
		close(p[0]);
		if (mode == XONLY && xonly_enter())
			_exit(125);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (out && (size_t)n < outlen - 1 && (k = read(p[0], out + n, outlen - 1 - (size_t)n)) > 0)
		n += k;
	if (out)
		out[n] = 0;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	if (stp)
		*stp = st;
	if (pidp)
		*pidp = pid;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? now() - t0 : -1;
}

/* openssl speed -mr: bytes per second on its largest block, the last field of "+F:". */
static double speed_of(const char *out)
{
	const char *f = strstr(out, "+F:"), *last;

	if (!f)
		return -1;
	last = strrchr(f, ':');
	return last ? strtod(last + 1, NULL) : -1;
}

/* One sample of @p: seconds for a startup row, seconds per GB for the speed row (so bigger is slower). */
static double sample(const struct prog *p, int mode, int *stp)
{
	static char out[8192];
	double t = run(p->argv, mode, p->speed ? out : NULL, sizeof(out), stp, NULL), v;

	if (t < 0 || !p->speed)
		return t;
	v = speed_of(out);
	return v > 0 ? 1e9 / v : -1;
}

static const char *status_str(int st)
{
	static char buf[64];

	if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, sizeof(buf), "exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return buf;
}

/*
 * Interleaved rounds of @p, plain then in xonly mode; prints the medians,
 * the fastest runs and their ratios under @how.  Returns the median ratio,
 * or -1 if a run failed.
 */
static double compare(const struct prog *p, const char *how)
{
	double t[2][MAX_ROUNDS], m[2], scale = p->speed ? 1 : 1e3;
	const char *unit = p->speed ? "s/GB" : "ms";
	int st;

	for (int r = 0; r < p->rounds; r++)
		for (int mode = PLAIN; mode <= XONLY; mode++)
			if ((t[mode][r] = sample(p, mode, &st)) < 0) {
				printf("%s, %s: FAILED: a %s run: %s\n", p->label, how, mode ? "xonly" : "plain", status_str(st));
				return -1;
			}
	m[PLAIN] = median(t[PLAIN], p->rounds);
	m[XONLY] = median(t[XONLY], p->rounds);
	printf("%s, %s, median of %d interleaved runs: plain %.2f %s, xonly %.2f %s: ratio %.3fx (target <= 1.01x); fastest: %.2f, %.2f %s: ratio %.3fx\n",
	       p->label, how, p->rounds, m[PLAIN] * scale, unit, m[XONLY] * scale, unit, m[XONLY] / m[PLAIN],
	       t[PLAIN][0] * scale, t[XONLY][0] * scale, unit, t[XONLY][0] / t[PLAIN][0]);
	return m[XONLY] / m[PLAIN];
}

static bool copy_file(const char *from, const char *to)
{
	static char buf[1 << 16];
	int in = open(from, O_RDONLY), o = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n = 0;

	while (in >= 0 && o >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(o, buf, n) != n)
			n = -1;
	close(in);
	return close(o) == 0 && n == 0;
}

/* Does a line of @buf (the kernel log) name "xonly plan: " and @pid?  Cuts @buf into lines. */
static bool names_plan(char *buf, pid_t pid)
{
	char want[32];

	snprintf(want, sizeof(want), " pid=%d ", pid);
	for (char *l = buf, *e; *l; l = e + 1) {
		bool last;

		e = strchrnul(l, '\n');
		last = !*e;
		*e = 0;
		if (strstr(l, "xonly plan: ") && strstr(l, want) && !strcasestr(l, "command line"))
			return true;
		if (last)
			break;
	}
	return false;
}

static bool logged_plan(pid_t pid)
{
	static char buf[1 << 20];
	int len = klogctl(KLOG_READ_ALL, buf, sizeof(buf) - 1);

	if (len < 0)
		return false;
	buf[len] = 0;
	return names_plan(buf, pid);
}

/* Does this kernel apply plans?  Then one with a bad magic is logged when exec'd in xonly mode. */
static bool kernel_has_plans(void)
{
	static const char bad[XONLY_PLAN_HDR] = "XOPX";
	char *argv[] = { (char *)PROBE, NULL };
	pid_t pid = -1;
	bool has;

	if (!copy_file("/usr/bin/true", PROBE) || setxattr(PROBE, XONLY_PLAN_XATTR, bad, sizeof(bad), 0)) {
		printf("xonly_plans: cannot make the probe %s with a malformed plan: %s\n", PROBE, strerror(errno));
		unlink(PROBE);
		return false;
	}
	run(argv, XONLY, NULL, 0, NULL, &pid);
	has = logged_plan(pid);
	unlink(PROBE);
	if (!has)
		printf("xonly_plans: skipped: the kernel has no plans (no \"xonly plan:\" line for a malformed one)\n");
	return has;
}

/* Adds the files of @p's closure, from xoload --plan=tsv, to files[], each once. */
static bool closure(const struct prog *p)
{
	char cmd[256], line[4096], key[4100];
	size_t len;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), XOLOAD " --plan=tsv %s 2>/dev/null | cut -f1 | sort -u", p->argv[0]);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(key, sizeof(key), " %s ", line);
		len = strlen(files);
		n++;
		/* files[] starts with a space and ends each name with one */
		if (!*line || strstr(files, key))
			continue;
		if (len + strlen(key) >= sizeof(files)) {
			pclose(f);
			return false;
		}
		strcpy(files + (len ? len - 1 : 0), key);
	}
	return pclose(f) == 0 && n > 0;
}

static int xattrs(const char *op)
{
	static char cmd[sizeof(files) + 64];
	int r;

	snprintf(cmd, sizeof(cmd), XOLOAD " %s %s >/dev/null", op, files);
	r = system(cmd);
	if (r)
		printf("xonly_plans: xoload %s on the closures failed (%d): %s\n", op, r, files);
	return r;
}

int main(void)
{
	int bad = 0, st;

	if (xonly_get(0, 0, 0, 0) < 0) {
		printf("xonly_plans: skipped: no xonly mode here (%s)\n", strerror(errno));
		return 0;
	}
	if (!pkru_supported()) {
		printf("xonly_plans: skipped: no PKU/OSPKE (a nopku boot?)\n");
		return 0;
	}
	if (xonly_get(0, 0, 0, 0) != XONLY_PR_XONLY_OFF) {
		printf("xonly_plans: skipped: this process is in xonly mode (an xonly= boot): no plain run to compare with\n");
		return 0;
	}
	if (!kernel_has_plans())
		return 0;
	for (size_t i = 0; i < NPROGS; i++)
		if (access(progs[i].argv[0], X_OK)) {
			printf("%s: skipped: no %s in this image\n", progs[i].label, progs[i].argv[0]);
			progs[i].rounds = 0;
		} else if (!closure(&progs[i])) {
			printf("xonly_plans: FAILED: xoload --plan=tsv %s\n", progs[i].argv[0]);
			return 1;
		}
	printf("xonly_plans: plans set by xoload --set-xattr on: %s\n", files);
	if (xattrs("--set-xattr")) {
		xattrs("--clear-xattr");
		return 1;
	}
	for (size_t i = 0; i < NPROGS; i++)
		if (progs[i].rounds && (progs[i].xo_ratio = compare(&progs[i], "with plans")) < 0)
			bad = 1;
	if (xattrs("--clear-xattr"))
		return 1;
	for (size_t i = 0; i < NPROGS; i++) {
		struct prog *p = &progs[i];
		double r;

		if (!p->rounds || p->xo_ratio < 0)
			continue;
		if (sample(p, XONLY, &st) < 0) {
			printf("%s, no plans: skipped: does not run in xonly mode without plans (%s)\n", p->label,
			       status_str(st));
			continue;
		}
		r = compare(p, "no plans");
		if (r < 0)
			bad = 1;
		else
			printf("%s: what the plans cost on top of xonly mode: ratio %.3fx (with plans %.3fx / without %.3fx)\n",
			       p->label, p->xo_ratio / r, p->xo_ratio, r);
	}
	return bad;
}
