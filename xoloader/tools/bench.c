// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - /xonly/bench.d/xoload, the xoload benchmark of `make bench`.
 *
 * Both figures are measured side by side in this one VM run, native and
 * under xoload interleaved (native, xoload, native, ...), so that drift of
 * the (TCG-emulated, shared) machine hits both alike:
 *   startup  N runs each of a small dynamically linked program (hello),
 *            /usr/bin/true, `python3 -c pass` and `node -e 0` (if the
 *            image has them):
 *            the median wall time of one run, native vs `xoload PROG`
 *            (ld.so's hook, the default; target <= 1.10x) vs `xoload
 *            --kernel PROG` (<= 1.05x), and vs `XOLOAD_HOOK=0 xoload PROG`
 *            (the audit module in place of the hook), and
 *            vs `xoload --kernel-plans PROG` (no audit module: the kernel's
 *            plans, which this benchmark sets on the programs' closures
 *            with xoload --set-xattr and clears at the end), and vs
 *            `execthrough PROG` (a static program that only execve()s
 *            PROG: the floor of any command in front of PROG) and
 *            `execthrough --xonly PROG` (the same after prctl(PR_SET_XONLY,
 *            1): the floor of --kernel-plans); two more floors, what
 *            each design costs before any of xoload's own work: nullload
 *            PROG (tests/xoload/lib/nullload.c: a preloader that maps
 *            PROG and ld.so as the kernel would and protects nothing,
 *            the floor of xoload in user mode, which is exec()ed in place
 *            of PROG) and `execthrough --xonly PROG` with LD_AUDIT set to
 *            a module that does nothing (the floor of --kernel: a command
 *            in front of PROG, and ld.so's audit namespace); and a pair apart, native
 *            and xoload both with personality(ADDR_NO_RANDOMIZE): under
 *            TCG a start without ASLR takes a fifth of the time (hello),
 *            as QEMU reuses the code it translated in an earlier run only
 *            where it lies at the same address (measured, xoloader/README.md;
 *            how QEMU keys it was not looked at); the pair splits what
 *            xoload adds into what ASLR costs under TCG and the rest;
 *            each run followed by a timed sweep of fresh pages
 *            (tests/xoload/lib/sweep.c): under TCG a run that leaves a
 *            freed page with translated code on it slows the next process
 *            by milliseconds (the hook's copy of ld.so's patched page does),
 *            so each variant's share is printed apart and charged to it,
 *            and the variant after it starts clean (mostly: the guest has
 *            two CPUs, each with its own free pages); the main variants
 *            and the floors are also paired with native's run of the same
 *            round (the median of the differences);
 *   scripts  a shell running PROG 10 times, natively, under `xoload --kernel`
 *            and under `--kernel-plans`: what each descendant of a
 *            process in xonly mode pays (the audit module in LD_AUDIT is
 *            inherited; with --kernel-plans nothing is); a sweep after
 *            each run, untimed;
 *   steady   sha256sum of a 64 MiB file on tmpfs: R runs each, native vs
 *            under xoload (target <= 1.01x).
 *            Each run is paired with one on an empty file, whose time is
 *            the startup: the ratio net of it is the steady state proper.
 * Prints the ratios of the sums, of the medians and of the fastest runs
 * (on a shared, emulated machine the fastest run is the least disturbed);
 * the targets are printed, not enforced (TCG makes everything slow and
 * startup-heavy).
 *   phases   (a sweep after each run, untimed)
 *            where the time of `xoload hello` goes (hooked, with and
 *            without the plan cache, with the module, and under
 *            --kernel): xoload, its hook
 *            and its audit module print their clock at each step when XOLOAD_TIMES is
 *            set (xoload.h); the median of each phase over the startup
 *            runs, from the fork to the exit; beside them, PROG run
 *            natively with an LD_AUDIT module that does nothing: what
 *            ld.so's audit namespace costs by itself; and natively with
 *            one that prints the clock at its callbacks (libtimeaudit.so),
 *            ld.so's own time to the points where the module's steps
 *            begin: what of a module phase is ld.so's, not ours.
 * Exit 0 unless a run failed.
 *
 *   xoload-bench [STARTUP_RUNS [STEADY_RUNS [MIB]]]   (default 25 5 64)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchrun.h"

#define XOLOAD		"/xonly/bin/xoload"
#define HELLO		"/xonly/lib/xoload/hello"
#define SHA256SUM	"/usr/bin/sha256sum"
#define TRUE		"/usr/bin/true"
#define PYTHON3		"/usr/bin/python3"
#define NODE		"/usr/bin/node"
#define TIMES		"/tmp/xoload-bench.times"
#define NULLAUDIT	"/xonly/lib/xoload/libnullaudit.so"
#define TIMEAUDIT	"/xonly/lib/xoload/libtimeaudit.so"	/* the same, printing its clock (nullaudit.c) */
#define DATA		"/tmp/xoload-bench.data"
#define EMPTY		"/tmp/xoload-bench.empty"
#define EXECTHROUGH	"/xonly/lib/xoload/execthrough"
#define NULLLOAD	"/xonly/lib/xoload/nullload"
#define SWEEP		"/xonly/lib/xoload/sweep"	/* 512 fresh pages: what a run left for the next (sweep.c) */
#define NVARIANTS	13	/* native, xoload, --kernel, the two --no-cache, --kernel-plans, execthrough (--xonly), the module,
			   native and xoload without ASLR, the two floors */
#define MODULE_ENV	"XOLOAD_HOOK=0"	/* the audit module in place of ld.so's hook, xoload's default */
#define NOASLR_NATIVE	9	/* the variants run with personality(ADDR_NO_RANDOMIZE) */
#define NOASLR_XOLOAD	10
#define FLOOR_PRELOADER	11	/* nullload PROG */
#define FLOOR_MODULE	12	/* execthrough --xonly PROG with LD_AUDIT=libnullaudit.so */

/* The closures' files (xoload --plan=tsv), for --set-xattr / --clear-xattr; "" if unset. */
static char plan_files[16384];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wall time of one run of @argv (output to /dev/null) with @env
 * ("NAME=VALUE") added and, if @fixed, without address randomisation; -1
 * if it failed.
 */
static double timed_as(char *const argv[], const char *env, bool fixed)
{
	double t0 = now();
	int st;
	pid_t pid = bench_spawn(argv, env, fixed);

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return now() - t0;
}

static double timed(char *const argv[])
{
	return timed_as(argv, NULL, false);
}

/* @mib MiB of deterministic, incompressible-looking bytes. */
static int make_data(int mib)
{
	static uint64_t blk[1 << 17];	/* 1 MiB */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int fd = open(DATA, O_WRONLY | O_CREAT | O_TRUNC, 0644), i;
	size_t k;

	if (fd < 0)
		return -1;
	for (i = 0; i < mib; i++) {
		for (k = 0; k < sizeof(blk) / sizeof(blk[0]); k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			blk[k] = x;
		}
		if (write(fd, blk, sizeof(blk)) != (ssize_t)sizeof(blk)) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

/* `xoload OP FILES` for the files of plan_files (--set-xattr, --clear-xattr); 0 if it passed. */
static int xattrs(const char *op)
{
	char cmd[sizeof(plan_files) + 128];

	snprintf(cmd, sizeof(cmd), XOLOAD " %s %s >/dev/null", op, plan_files);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * Setting or removing an attribute changes the file's ctime, and with it
 * the identity its plan-cache entry was made for: the entries are planned
 * again (xoload --update-cache without a PATH re-plans stale entries,
 * waiting out the cache's 2 s margin), or every later xoload run would
 * miss the cache.
 */
static void refresh_cache(void)
{
	if (system(XOLOAD " --update-cache >/dev/null 2>&1"))
		printf("xoload startup: xoload --update-cache failed: later rows may miss the plan cache\n");
}

/* At exit: the plans set by set_plans() removed again, the cache fresh. */
static void clear_plans(void)
{
	if (!plan_files[0])
		return;
	xattrs("--clear-xattr");
	plan_files[0] = 0;
	refresh_cache();
}

/*
 * The kernel's plans on the closure of each program of @progs (what
 * xoload --plan=tsv lists), as an administrator sets them for xonly=on:
 * 0 if set, else -1 and --kernel-plans is left out.
 */
static int set_plans(const char *const *progs)
{
	char cmd[256], line[4096], needle[4100];
	size_t len = 0;
	FILE *f;

	for (; *progs; progs++) {
		if (access(*progs, X_OK))
			continue;
		snprintf(cmd, sizeof(cmd), XOLOAD " --plan=tsv %s 2>/dev/null | cut -f1 | sort -u", *progs);
		if (!(f = popen(cmd, "r")))
			return -1;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(needle, sizeof(needle), " %s ", line);	/* plan_files: " a b ... " */
			if (line[0] != '/' || strstr(plan_files, needle) || len + strlen(line) + 3 > sizeof(plan_files))
				continue;
			len += (size_t)snprintf(plan_files + len, sizeof(plan_files) - len, "%s%s ", len ? "" : " ", line);
		}
		if (pclose(f))
			return -1;
	}
	if (!len)
		return -1;
	atexit(clear_plans);
	if (xattrs("--set-xattr")) {
		clear_plans();
		return -1;
	}
	refresh_cache();
	return 0;
}

/* Whether startup()'s variant @j runs: --kernel's need PR_SET_XONLY, --kernel-plans the plans too. */
static bool variant_runs(int j, bool kernel_ok, bool plans_ok)
{
	return (kernel_ok || (j != 2 && j != 4 && j != 7 && j != FLOOR_MODULE)) && (plans_ok || j != 5);
}

/* The environment startup()'s variant @j runs with ("NAME=VALUE"), or NULL. */
static const char *variant_env(int j)
{
	return j == 8 ? MODULE_ENV : j == FLOOR_MODULE ? "LD_AUDIT=" NULLAUDIT : NULL;
}

/*
 * Startup of @argv natively, under xoload and under xoload --kernel, with
 * the plan cache and without it (--no-cache), and under --kernel-plans
 * (if the plans are set), @n runs each interleaved (native, xoload,
 * --kernel, xoload --no-cache, --kernel --no-cache, --kernel-plans, ...,
 * native and xoload without ASLR, the two floors, native, ...): medians
 * and ratios in six lines (the medians; --no-cache; without ASLR; the
 * floors; the variants paired with native round by round; what each
 * left for the next process),
 * @t[NVARIANTS][n] the times.  Returns 1 if a run failed.
 */
static int startup(const char *label, char *const argv[], int n, double *t[NVARIANTS])
{
	static const char *const pre[NVARIANTS][3] = {
		{ NULL }, { XOLOAD }, { XOLOAD, "--kernel" }, { XOLOAD, "--no-cache" }, { XOLOAD, "--kernel", "--no-cache" },
		{ XOLOAD, "--kernel-plans" }, { EXECTHROUGH }, { EXECTHROUGH, "--xonly" }, { XOLOAD },
		{ NULL }, { XOLOAD }, { NULLLOAD }, { EXECTHROUGH, "--xonly" },
	};
	static const char *const name[NVARIANTS] = {
		"native", "xoload", "--kernel", NULL, NULL, "--kernel-plans", "execve() only", "prctl + execve()",
		"XOLOAD_HOOK=0", NULL, NULL, "nullload", "prctl + execve() + null module",
	};
	char *v[NVARIANTS][16];
	double m[NVARIANTS], paired[NVARIANTS], left[NVARIANTS], *d, *ts[NVARIANTS];
	int i, k, j, np, kernel_ok, plans_ok = plan_files[0] != 0;

	for (j = 0; j < NVARIANTS; j++) {
		for (np = 0; np < 3 && pre[j][np]; np++)
			v[j][np] = (char *)pre[j][np];
		for (k = 0; argv[k] && k < 12; k++)
			v[j][np + k] = argv[k];
		v[j][np + k] = NULL;
	}
	/* --kernel needs the patched kernel's PR_SET_XONLY: without it, leave it out. */
	kernel_ok = timed(v[2]) >= 0;
	timed(v[0]);
	timed(v[1]);
	timed(v[FLOOR_PRELOADER]);
	if (kernel_ok)
		timed_as(v[FLOOR_MODULE], variant_env(FLOOR_MODULE), false);
	timed((char *[]){ SWEEP, NULL });	/* the hooked warm-up's page not left for round 0's native run */
	plans_ok = plans_ok && kernel_ok;
	if (!(d = calloc((size_t)n * (NVARIANTS + 1), sizeof(*d))))
		return 1;
	for (j = 0; j < NVARIANTS; j++)
		ts[j] = d + (size_t)n * (j + 1);
	/*
	 * After each run, the sweep (sweep.c), timed: what the run left for
	 * the next process under TCG is paid there, not by the next variant.
	 */
	for (i = 0; i < n; i++)
		for (j = 0; j < NVARIANTS; j++) {
			t[j][i] = variant_runs(j, kernel_ok, plans_ok) ?
				  timed_as(v[j], variant_env(j), j == NOASLR_NATIVE || j == NOASLR_XOLOAD) : 1;
			ts[j][i] = timed((char *[]){ SWEEP, NULL });
			if (t[j][i] < 0 || ts[j][i] < 0) {
				free(d);
				return 1;
			}
		}
	/* Each round's difference to native's run of the same round, before the medians sort the runs. */
	for (j = 0; j < NVARIANTS; j++) {
		int base = j >= NOASLR_NATIVE && j <= NOASLR_XOLOAD ? NOASLR_NATIVE : 0;

		for (i = 0; i < n; i++)
			d[i] = t[j][i] - t[base][i];
		paired[j] = bench_median(d, n);
		for (i = 0; i < n; i++)
			d[i] = ts[j][i] - ts[base][i];
		left[j] = bench_median(d, n);
	}
	free(d);
	for (j = 0; j < NVARIANTS; j++)
		m[j] = bench_median(t[j], n);
	printf("xoload startup: %s, median of %d interleaved runs: native %.2f ms, xoload (ld.so's hook) %.2f ms: ratio %.3f (target <= 1.10)",
	       label, n, m[0] * 1e3, m[1] * 1e3, m[1] / m[0]);
	if (kernel_ok)
		printf(", xoload --kernel %.2f ms: ratio %.3f (target <= 1.05)", m[2] * 1e3, m[2] / m[0]);
	else
		printf(", xoload --kernel: not on this kernel");
	if (plans_ok)
		printf(", xoload --kernel-plans %.2f ms: ratio %.3f", m[5] * 1e3, m[5] / m[0]);
	printf(", xoload with XOLOAD_HOOK=0 (the audit module) %.2f ms: ratio %.3f", m[8] * 1e3,
	       m[8] / m[0]);
	printf(", a static program that only execve()s PROG %.2f ms: ratio %.3f", m[6] * 1e3, m[6] / m[0]);
	if (kernel_ok)
		printf(", the same after prctl(PR_SET_XONLY, 1) %.2f ms: ratio %.3f", m[7] * 1e3, m[7] / m[0]);
	printf("; fastest: native %.2f, xoload %.2f ms, XOLOAD_HOOK=0 %.2f ms", t[0][0] * 1e3, t[1][0] * 1e3,
	       t[8][0] * 1e3);
	if (kernel_ok)
		printf(", --kernel %.2f ms", t[2][0] * 1e3);
	if (plans_ok)
		printf(", --kernel-plans %.2f ms", t[5][0] * 1e3);
	printf(", execve() only %.2f ms", t[6][0] * 1e3);
	if (kernel_ok)
		printf(", prctl + execve() %.2f ms", t[7][0] * 1e3);
	printf("\n");
	printf("xoload startup: %s, the same runs without the plan cache (--no-cache): xoload %.2f ms: ratio %.3f",
	       label, m[3] * 1e3, m[3] / m[0]);
	if (kernel_ok)
		printf(", xoload --kernel %.2f ms: ratio %.3f", m[4] * 1e3, m[4] / m[0]);
	printf("; fastest: xoload %.2f ms\n", t[3][0] * 1e3);
	printf("xoload startup: %s, the same runs without address randomisation (ADDR_NO_RANDOMIZE, both): native %.2f ms, "
	       "xoload %.2f ms: ratio %.3f; fastest: native %.2f, xoload %.2f ms\n", label,
	       m[NOASLR_NATIVE] * 1e3, m[NOASLR_XOLOAD] * 1e3, m[NOASLR_XOLOAD] / m[NOASLR_NATIVE],
	       t[NOASLR_NATIVE][0] * 1e3, t[NOASLR_XOLOAD][0] * 1e3);
	printf("xoload startup: %s, the floors in the same runs: a preloader that maps PROG and ld.so and protects nothing "
	       "(nullload, xoload's design without its work) %.2f ms: ratio %.3f",
	       label, m[FLOOR_PRELOADER] * 1e3, m[FLOOR_PRELOADER] / m[0]);
	if (kernel_ok)
		printf(", prctl + execve() with an audit module that does nothing (--kernel's design without its work) "
		       "%.2f ms: ratio %.3f", m[FLOOR_MODULE] * 1e3, m[FLOOR_MODULE] / m[0]);
	printf("; fastest: nullload %.2f ms", t[FLOOR_PRELOADER][0] * 1e3);
	if (kernel_ok)
		printf(", prctl + execve() + null module %.2f ms", t[FLOOR_MODULE][0] * 1e3);
	printf("\n");
	/*
	 * The median of each round's difference to native: steadier than the
	 * difference of the medians when the emulated machine's speed drifts
	 * within the run; the ratio is native's median plus it, to native's.
	 */
	printf("xoload startup: %s, paired (median of each round's difference to native's run):", label);
	for (j = 1, k = 0; j < NVARIANTS; j++)
		if (name[j] && variant_runs(j, kernel_ok, plans_ok))
			printf("%s %s %+.2f ms (%.3f)", k++ ? "," : "", name[j], paired[j] * 1e3,
			       (m[0] + paired[j]) / m[0]);
	printf("\n");
	/*
	 * What each run left for the next process: the sweep after it, less
	 * the sweep after native's run of the same round (sweep.c: pages that
	 * held translated code, cleared store by store under TCG); and the
	 * paired ratio with it counted in, what a run of it costs in a
	 * sequence of such runs (a script).
	 */
	printf("xoload startup: %s, left for the next process (the sweep of 512 fresh pages after each run, paired with "
	       "the one after native's run), and the paired ratio with it:", label);
	for (j = 1, k = 0; j < NVARIANTS; j++)
		if (name[j] && variant_runs(j, kernel_ok, plans_ok))
			printf("%s %s %+.2f ms (%.3f)", k++ ? "," : "", name[j], left[j] * 1e3,
			       (m[0] + paired[j] + left[j]) / m[0]);
	printf("\n");
	fflush(stdout);
	return 0;
}

/*
 * The phases of one `XOLOAD_TIMES=1 xoload @prog`: the events xoload and
 * the module print ("xoload: time: EVENT[ OBJ] NS", CLOCK_MONOTONIC, as
 * ours) between our fork and the end of our wait.
 */
#define MAX_EV 64
struct run_ev { int n; char name[MAX_EV][160]; double t[MAX_EV]; };

static int timed_events(char *const argv[], const char *env1, const char *env2, struct run_ev *ev)
{
	char line[512];
	double t0, t1;
	FILE *f;
	int st;
	pid_t pid;

	t0 = now();
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY), e = open(TIMES, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(e, 2);
		setenv("XOLOAD_TIMES", "1", 1);
		if (env1)
			putenv((char *)env1);
		if (env2)
			putenv((char *)env2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	t1 = now();
	ev->n = 0;
	snprintf(ev->name[ev->n], sizeof(ev->name[0]), "fork");
	ev->t[ev->n++] = t0;
	f = fopen(TIMES, "r");
	while (f && fgets(line, sizeof(line), f) && ev->n < MAX_EV - 1) {
		char *sp;
		unsigned long long ns;

		if (strncmp(line, "xoload: time: ", 14))
			continue;
		line[strcspn(line, "\n")] = 0;
		sp = strrchr(line, ' ');
		if (!sp || sscanf(sp + 1, "%llu", &ns) != 1)
			continue;
		*sp = 0;
		snprintf(ev->name[ev->n], sizeof(ev->name[0]), "%s", line + 14);
		ev->t[ev->n++] = (double)ns / 1e9;
	}
	if (f)
		fclose(f);
	snprintf(ev->name[ev->n], sizeof(ev->name[0]), "exit");
	ev->t[ev->n++] = t1;
	return 0;
}

/* What the interval that ends at event @to is, in words. */
static const char *phase_name(const char *to, char *buf, size_t len)
{
	/* An event with an object ("validated PATH") matches its word and names the object. */
	static const char *const words[][2] = {
		/* xoload (run/preload.c, runpath.c, load.c, plancache.c) */
		{ "entry", "fork + exec of xoload (freestanding: no libc to start)" },
		{ "relocated", "xoload relocates itself (R_X86_64_RELATIVE)" },
		{ "start", "environment, auxv, the plan cache's settings" },
		{ "options", "the options" },
		{ "found", "find PROG (PATH)" },
		{ "validated", "open and validate %s (ELF header, program headers)" },
		{ "cache dir", "plan cache: the directory chain is root's (once)" },
		{ "cache fstat", "plan cache: fstat the object, name its entry" },
		{ "cache open", "plan cache: open the entry" },
		{ "cache read", "plan cache: fstat and read the entry" },
		{ "planned", "plan %s: check the entry, decode the plan (a miss: rtplan)" },
		{ "privileges", "set-ID and capabilities, protection keys" },
		{ "module found", "find the audit module next to xoload (/proc/self/exe)" },
		{ "module checked", "validate the audit module" },
		{ "prepared", "XOLOAD_PROG, the gate's message, comm" },
		{ "reserved", "reserve the address range of %s" },
		{ "mapped", "map the segments of %s" },
		{ "applied", "mprotect(PROT_EXEC): the code pages of the plans" },
		{ "net", "the safety net's table" },
		{ "handover", "close the files" },
		{ "exec", "--kernel: validate the audit module" },
		{ "env", "--kernel: the environment (LD_AUDIT)" },
		{ "prctl", "--kernel: prctl(PR_SET_XONLY)" },
		/* the audit module (run/audit.c) */
		{ "la_version", "ld.so starts and loads the audit module, until la_version" },
		{ "stack found", "ld.so until the first la_objopen; the module finds the initial stack" },
		{ "cache setup", "module: its directory, the plan cache's settings" },
		{ "mode", "module: the kernel's xonly level" },
		{ "module", "module: the gate, the safety net" },
		{ "objopen", "ld.so maps %s, until its la_objopen" },
		{ "loaded", "ld.so ends the load (symbol versions, TLS), until LA_ACT_CONSISTENT" },
		/* libtimeaudit.so only (a native run's baseline) */
		{ "preinit", "ld.so relocates, until la_preinit" },
		/* ld.so's hook (run/hook.c), the default */
		{ "hook", "ld.so starts, maps and relocates the libraries, calls the hook" },
		{ "hooked", "the hook, until it plans %s" },
		/* both: run/objprotect.c */
		{ "opened", "la_objopen or the hook: open the object's file" },
		{ "same object", "la_objopen or the hook: is it the file ld.so mapped (sameobj)" },
		{ "carved", "la_objopen: --kernel: data in text readable again (pkey_mprotect)" },
		{ "protected", "la_objopen or the hook: the safety net, the report for %s" },
		{ "exit", "the rest: what ld.so has left (relocation, constructors), PROG, exit, our wait" },
	};
	const char *obj = "";
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i][0]);
		if (strncmp(to, words[i][0], n) || (to[n] && to[n] != ' '))
			continue;
		obj = to[n] ? to + n + 1 : "";
		if (!strstr(words[i][1], "%s"))
			return words[i][1];
		snprintf(buf, len, words[i][1], *obj ? obj : "it");
		return buf;
	}
	snprintf(buf, len, "until %s", to);
	return buf;
}

/* How phases() runs PROG. */
enum how { HOOKED, HOOKED_NO_CACHE, MODULE, KERNEL, NATIVE_TIMED };

static int phases(const char *label, const char *prog, enum how how, int n)
{
	static const char *const what[] = {
		[HOOKED] = "under xoload (XOLOAD_TIMES), with the plan cache",
		[HOOKED_NO_CACHE] = "under xoload (XOLOAD_TIMES), without the plan cache (XOLOAD_NO_CACHE)",
		[MODULE] = "under xoload with XOLOAD_HOOK=0 (the audit module) (XOLOAD_TIMES), with the plan cache",
		[KERNEL] = "under xoload --kernel (XOLOAD_TIMES, which takes xoload's full path where a run "
			   "without it takes the early one), with the plan cache",
		[NATIVE_TIMED] = "natively, with an audit module that does nothing but print the clock at each "
				 "callback (libtimeaudit.so): ld.so's own time to the points where the module's "
				 "steps above begin",
	};
	char *argv[] = { XOLOAD, how == KERNEL ? "--kernel" : (char *)prog, how == KERNEL ? (char *)prog : "bench",
			 how == KERNEL ? "bench" : NULL, NULL };
	const char *env = how == HOOKED_NO_CACHE ? "XOLOAD_NO_CACHE=1" : how == MODULE ? MODULE_ENV :
			  how == NATIVE_TIMED ? "LD_AUDIT=" TIMEAUDIT : NULL;
	static struct run_ev ev[64];
	double d[64], total[64];
	char buf[256];
	int i, k;

	if (n > 64)
		n = 64;
	/* The sweep after each run: each run's phases without what the one before left (sweep.c). */
	for (i = 0; i < n; i++)
		if (timed_events(how == NATIVE_TIMED ? argv + 1 : argv, env, NULL, &ev[i]) ||
		    timed((char *[]){ SWEEP, NULL }) < 0)
			return 1;
	unlink(TIMES);
	printf("xoload phases: %s %s, median of %d runs:\n", label, what[how], n);
	for (k = 1; k < ev[0].n; k++) {
		int m = 0;

		for (i = 0; i < n; i++)
			if (ev[i].n == ev[0].n && !strcmp(ev[i].name[k], ev[0].name[k]))
				d[m++] = ev[i].t[k] - ev[i].t[k - 1];
		if (m)
			printf("xoload phases:   %8.3f ms  %s\n", bench_median(d, m) * 1e3, phase_name(ev[0].name[k], buf, sizeof(buf)));
	}
	for (i = 0; i < n; i++)
		total[i] = ev[i].t[ev[i].n - 1] - ev[i].t[0];
	printf("xoload phases:   %8.3f ms  in all, from the fork to the end of the wait\n", bench_median(total, n) * 1e3);
	if (how != HOOKED)
		return 0;
	/* The same program natively, without and with an audit module that does nothing, interleaved. */
	for (i = 0; i < n; i++) {
		d[i] = timed((char *[]){ (char *)prog, "bench", NULL });
		setenv("LD_AUDIT", NULLAUDIT, 1);
		total[i] = timed((char *[]){ (char *)prog, "bench", NULL });
		unsetenv("LD_AUDIT");
		if (d[i] < 0 || total[i] < 0)
			return 1;
	}
	printf("xoload phases: %s natively %.3f ms, with an LD_AUDIT module that does nothing (ld.so's audit namespace alone) %.3f ms\n",
	       label, bench_median(d, n) * 1e3, bench_median(total, n) * 1e3);
	fflush(stdout);
	return 0;
}

/*
 * A shell running @prog 10 times, natively, under xoload (its children
 * protected in place by the module), xoload with XOLOAD_CHILDREN=reexec
 * (each child run under xoload again), xoload --kernel and --kernel-plans,
 * @n runs each interleaved: the medians, and the ratios per run of the
 * script (each of its 10 programs is a descendant of the process xoload
 * started).
 */
static int scripts(const char *label, const char *prog, int n, double *t[NVARIANTS])
{
	char script[512];
	char *v[5][8] = {
		{ "/bin/sh", "-c", script, NULL },
		{ XOLOAD, "/bin/sh", "-c", script, NULL },
		{ XOLOAD, "/bin/sh", "-c", script, NULL },
		{ XOLOAD, "--kernel", "/bin/sh", "-c", script, NULL },
		{ XOLOAD, "--kernel-plans", "/bin/sh", "-c", script, NULL },
	};
	static const char *const env[5] = { NULL, NULL, "XOLOAD_CHILDREN=reexec", NULL, NULL };
	int i, j;

	snprintf(script, sizeof(script), "for i in 1 2 3 4 5 6 7 8 9 10; do %s >/dev/null || exit 1; done", prog);
	/* The sweep after each: a hooked shell leaves a page for the next variant (sweep.c). */
	for (i = 0; i < n; i++)
		for (j = 0; j < 5; j++)
			if ((t[j][i] = timed_as(v[j], env[j], false)) < 0 || timed((char *[]){ SWEEP, NULL }) < 0)
				return 1;
	for (j = 0; j < 5; j++)
		t[j][n] = bench_median(t[j], n);
	printf("xoload scripts: sh running %s 10 times, median of %d interleaved runs: native %.1f ms, "
	       "xoload %.1f ms: ratio %.3f (children in place), XOLOAD_CHILDREN=reexec %.1f ms: ratio %.3f, "
	       "xoload --kernel %.1f ms: ratio %.3f (module inherited), xoload --kernel-plans %.1f ms: ratio %.3f "
	       "(no module)\n", label, n, t[0][n] * 1e3, t[1][n] * 1e3, t[1][n] / t[0][n], t[2][n] * 1e3,
	       t[2][n] / t[0][n], t[3][n] * 1e3, t[3][n] / t[0][n], t[4][n] * 1e3, t[4][n] / t[0][n]);
	fflush(stdout);
	return 0;
}

/* How many of the plan lookups of `xoload hello` and `xoload --kernel hello` are hits. */
static void cache_state(void)
{
	static const char *const how[] = { "xoload", "xoload --kernel" };
	char line[512];
	int k;

	for (k = 0; k < 2; k++) {
		int hits = 0, all = 0;
		pid_t pid = fork();
		FILE *f;

		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY), e = open(TIMES, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(fd, 1);
			dup2(e, 2);
			setenv("XOLOAD_CACHE_VERBOSE", "1", 1);
			if (k)
				execl(XOLOAD, XOLOAD, "--kernel", HELLO, (char *)NULL);
			else
				execl(XOLOAD, XOLOAD, HELLO, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		f = fopen(TIMES, "r");
		while (f && fgets(line, sizeof(line), f)) {
			all += !strncmp(line, "xoload: plan cache: ", 20);
			hits += !strncmp(line, "xoload: plan cache: ", 20) && strstr(line, ": hit\n");
		}
		if (f)
			fclose(f);
		printf("xoload plan cache: %s hello: %d of %d plan lookups are hits\n", how[k], hits, all);
	}
	unlink(TIMES);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int nstart = argc > 1 ? atoi(argv[1]) : 25, nsteady = argc > 2 ? atoi(argv[2]) : 5;
	int mib = argc > 3 ? atoi(argv[3]) : 64, i, failed = 0;
	double *t[NVARIANTS], *sn, *sx, sumn = 0, sumx = 0, en = 0, ex = 0, mn, mx;
	static const char *const planned[] = { HELLO, TRUE, PYTHON3, NODE, "/bin/sh", NULL };

	if (nstart < 1 || nsteady < 1 || mib < 1) {
		fprintf(stderr, "usage: xoload-bench [STARTUP_RUNS [STEADY_RUNS [MIB]]]\n");
		return 2;
	}
	for (i = 0; i < NVARIANTS; i++)
		if (!(t[i] = calloc((size_t)nstart + 1, sizeof(*t[i]))))
			return 1;
	sn = calloc((size_t)nsteady, sizeof(*sn));
	sx = calloc((size_t)nsteady, sizeof(*sx));
	if (!sn || !sx)
		return 1;

	/* One run each first: page cache and the like warm for both. */
	if (timed((char *[]){ HELLO, NULL }) < 0 || timed((char *[]){ XOLOAD, HELLO, NULL }) < 0) {
		printf("xoload startup: FAILED: %s or %s %s does not run\n", HELLO, XOLOAD, HELLO);
		return 1;
	}
	if (set_plans(planned))
		printf("xoload startup: --kernel-plans left out: xoload --set-xattr failed (no plans in this kernel?)\n");
	cache_state();
	failed |= startup("hello", (char *[]){ HELLO, "bench", NULL }, nstart, t);
	failed |= startup("true", (char *[]){ TRUE, NULL }, nstart, t);
	if (access(PYTHON3, X_OK))
		printf("xoload startup: python3 -c pass: skipped: no %s in this image\n", PYTHON3);
	else
		failed |= startup("python3 -c pass", (char *[]){ PYTHON3, "-c", "pass", NULL }, nstart, t);
	if (access(NODE, X_OK))
		printf("xoload startup: node -e 0: skipped: no %s in this image\n", NODE);
	else
		failed |= startup("node -e 0", (char *[]){ NODE, "-e", "0", NULL }, nstart, t);
	if (!failed && plan_files[0]) {
		failed |= scripts("hello", HELLO, nstart / 5 + 1, t);
		failed |= scripts("true", TRUE, nstart / 5 + 1, t);
	}
	if (failed) {
		printf("xoload startup: FAILED: a run exited non-zero\n");
		return 1;
	}
	if (phases("hello", HELLO, HOOKED, nstart) || phases("hello", HELLO, HOOKED_NO_CACHE, nstart) ||
	    phases("hello", HELLO, MODULE, nstart) || phases("hello", HELLO, NATIVE_TIMED, nstart) ||
	    (timed((char *[]){ XOLOAD, "--kernel", HELLO, NULL }) >= 0 && phases("hello", HELLO, KERNEL, nstart))) {
		printf("xoload phases: FAILED: XOLOAD_TIMES=1 %s %s exited non-zero\n", XOLOAD, HELLO);
		return 1;
	}

	close(open(EMPTY, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (make_data(mib)) {
		printf("xoload steady: FAILED: cannot write %d MiB to %s: %s\n", mib, DATA, strerror(errno));
		return 1;
	}
	timed((char *[]){ SHA256SUM, DATA, NULL });	/* warm-up */
	for (i = 0; i < nsteady; i++) {
		sn[i] = timed((char *[]){ SHA256SUM, DATA, NULL });
		sx[i] = timed((char *[]){ XOLOAD, SHA256SUM, DATA, NULL });
		if (sn[i] < 0 || sx[i] < 0) {
			printf("xoload steady: FAILED: %s exited non-zero\n", SHA256SUM);
			unlink(DATA);
			return 1;
		}
		{
			double a = timed((char *[]){ SHA256SUM, EMPTY, NULL });
			double b = timed((char *[]){ XOLOAD, SHA256SUM, EMPTY, NULL });

			if (a < 0 || b < 0) {
				printf("xoload steady: FAILED: %s of an empty file exited non-zero\n", SHA256SUM);
				return 1;
			}
			en += a;
			ex += b;
		}
		printf("xoload steady: run %d: native %.2f s, under xoload %.2f s\n", i + 1, sn[i], sx[i]);
		fflush(stdout);
		sumn += sn[i];
		sumx += sx[i];
	}
	unlink(DATA);
	unlink(EMPTY);
	printf("xoload steady: sha256sum of %d MiB (tmpfs), %d interleaved runs: native %.2f s, under xoload %.2f s: ratio %.3f (target <= 1.01)\n",
	       mib, nsteady, sumn, sumx, sumx / sumn);
	printf("xoload steady: net of startup (minus sha256sum of an empty file, %.3f s native, %.3f s under xoload): ratio %.3f\n",
	       en / nsteady, ex / nsteady, (sumx - ex) / (sumn - en));
	mn = bench_median(sn, nsteady);
	mx = bench_median(sx, nsteady);
	printf("xoload steady: median: native %.2f s, under xoload %.2f s: ratio %.3f; fastest: native %.2f s, under xoload %.2f s: ratio %.3f\n",
	       mn, mx, mx / mn, sn[0], sx[0], sx[0] / sn[0]);
	return 0;
}
