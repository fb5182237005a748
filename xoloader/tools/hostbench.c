// SPDX-License-Identifier: GPL-2.0
/*
 * hostbench.c - xoload's startup on this machine's own CPU (make bench-host).
 *
 * Why: make bench measures in the VM, and here that is TCG, where a start
 * is mostly QEMU translating code that runs once (xoloader/README.md).  A
 * user runs xoload on a CPU, where what counts is xoload's exec, its
 * system calls and its page faults.  Protection keys cannot be had on
 * such a host without PKU, so this runs a build of xoload whose only
 * change is that it does not check for them (-DXOLOAD_BENCH_NO_PKEYS,
 * run/pkeys.h; its module too): every step is the same, PROT_EXEC just stays readable.
 * That build is made for this benchmark only, under build/hostbench/, and
 * is never installed.
 *
 *   hostbench XOLOAD HELLO EXECTHROUGH NULLLOAD [RUNS]   (default 200 runs)
 *
 * For /usr/bin/true, HELLO, `python3 -c pass` and `node -e 0` (those two
 * where installed), RUNS interleaved runs of each variant: native; xoload
 * (ld.so's hook, the plan cache of XOLOAD_CACHE_DIR if the caller filled
 * one); XOLOAD_NO_CACHE=1; XOLOAD_HOOK=0 (the audit module); and
 * EXECTHROUGH PROG, a static program that only execve()s PROG: the cost of
 * one more exec, which any command in front of PROG pays, but not a
 * preloader: xoload is exec()ed in place of PROG and maps PROG and ld.so
 * itself; and NULLLOAD PROG, a preloader that maps them and protects
 * nothing (tests/xoload/lib/nullload.c): the floor of xoload's design,
 * what is above it is xoload's own work.  Then a shell
 * (/bin/sh -c) that runs /usr/bin/true 20 times: under xoload each child
 * loads the audit module, which protects it in place (the default) or
 * with XOLOAD_CHILDREN=reexec runs it under xoload again.  Prints the
 * median and fastest wall time, their ratios to native, what the median
 * adds to native's in microseconds (a small program's ratio says little
 * by itself: one more exec is 10% of /usr/bin/true) and the median of
 * each round's difference to native's run (paired: steadier when the
 * host's speed drifts), and the median of the run's minor page faults.
 * Then where the time of `xoload HELLO` goes:
 * with XOLOAD_TIMES set, xoload, its hook and its module print the clock
 * at each step (xoload.h); the median of each step over RUNS runs, from
 * the fork to the exit.  Each step's line costs two system calls of its
 * own, so the sum runs above the xoload row.  Exit 0 unless a run failed.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchrun.h"

#define NVARIANTS	6
#define MAXRUNS		2000
#define MAXSTEPS	64
/* The children row: a shell that runs /usr/bin/true this many times. */
#define CHILDREN_N	"20"
#define CHILDREN_LIST	"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"

/* The variants of a row: its name and what is added to the environment; 1-3 run under xoload. */
struct variants {
	const char *name[NVARIANTS];
	const char *env[NVARIANTS];
};

static const struct variants start_variants = {
	{ "native", "xoload", "xoload, no cache", "XOLOAD_HOOK=0", "execthrough", "nullload" },
	{ NULL, NULL, "XOLOAD_NO_CACHE=1", "XOLOAD_HOOK=0", NULL, NULL },
};

/* A shell's children: protected in place by the module (the default), or each run under xoload again. */
static const struct variants child_variants = {
	{ "native", "xoload", "CHILDREN=reexec", "XOLOAD_HOOK=0", "execthrough", "nullload" },
	{ NULL, NULL, "XOLOAD_CHILDREN=reexec", "XOLOAD_HOOK=0", NULL, NULL },
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One run of @argv with @env added, output to /dev/null: wall time (us), -1 if it failed. */
static double run_once(char *const argv[], const char *env, long *minflt)
{
	struct rusage ru;
	double t0 = now_us();
	int st;
	pid_t pid = bench_spawn(argv, env, false);

	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	*minflt = ru.ru_minflt;
	return now_us() - t0;
}

/* The programs a variant runs PROG with: argv[0] of variants 1-3, 4 and 5. */
struct tools {
	const char *xoload, *through, *null;
};

/* All variants of one program, interleaved; 0, or -1 if a run failed. */
static int bench_program(const char *label, char *const prog[], const struct variants *vs, const struct tools *tl,
			 int runs)
{
	static double t[NVARIANTS][MAXRUNS], f[NVARIANTS][MAXRUNS], d[MAXRUNS];
	double med[NVARIANTS], fast[NVARIANTS], paired[NVARIANTS];
	char *argv[NVARIANTS][16];
	int v, r, n;

	/* At most 14 of PROG's words: one slot for xoload, EXECTHROUGH or NULLLOAD, one for the NULL. */
	for (n = 0; n < 14 && prog[n]; n++)
		;
	for (v = 0; v < NVARIANTS; v++) {
		int k = 0;

		if (v == 1 || v == 2 || v == 3)
			argv[v][k++] = (char *)tl->xoload;
		else if (v == 4)
			argv[v][k++] = (char *)tl->through;
		else if (v == 5)
			argv[v][k++] = (char *)tl->null;
		memcpy(&argv[v][k], prog, (size_t)n * sizeof(*prog));
		argv[v][k + n] = NULL;
	}
	for (r = 0; r < runs; r++) {
		for (v = 0; v < NVARIANTS; v++) {
			long flt = 0;

			t[v][r] = run_once(argv[v], vs->env[v], &flt);
			if (t[v][r] < 0) {
				fprintf(stderr, "hostbench: %s, %s: run failed\n", label, vs->name[v]);
				return -1;
			}
			f[v][r] = (double)flt;
		}
	}
	/*
	 * Paired: the median of each round's difference to native's run of
	 * the same round, taken before the medians sort the runs.  The host's
	 * speed drifts by 10-20% over minutes; a round's runs are
	 * milliseconds apart, so this difference drifts far less than the
	 * difference of the two medians.
	 */
	for (v = 0; v < NVARIANTS; v++) {
		for (r = 0; r < runs; r++)
			d[r] = t[v][r] - t[0][r];
		paired[v] = bench_median(d, runs);
	}
	for (v = 0; v < NVARIANTS; v++) {
		med[v] = bench_median(t[v], runs);
		fast[v] = t[v][0];
	}
	printf("%s\n", label);
	for (v = 0; v < NVARIANTS; v++)
		printf("  %-18s median %8.1f us %6.3fx %+8.1f us (paired %+8.1f)   fastest %8.1f us %6.3fx   minor faults %4.0f\n",
		       vs->name[v], med[v], med[v] / med[0], med[v] - med[0], paired[v], fast[v], fast[v] / fast[0],
		       bench_median(f[v], runs));
	return 0;
}

/*
 * One run of @argv with XOLOAD_TIMES=1: the steps' names into @name (the
 * event and the object's last path component) and their lengths (us, the
 * first from the fork, the last to the exit) into @len; their number, or
 * -1 if the run failed.
 */
static int timed_steps(char *const argv[], char name[][64], double *len)
{
	static char out[1 << 16];
	size_t used = 0;
	double t0, prev, ns;
	char *line, *end;
	int p[2], st, n = 0;
	ssize_t k;
	pid_t pid;

	if (pipe(p))
		return -1;
	t0 = now_us() * 1e3;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(p[1], 2);
		close(p[0]);
		putenv("XOLOAD_TIMES=1");
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && used < sizeof(out) - 1 && (k = read(p[0], out + used, sizeof(out) - 1 - used)) > 0)
		used += (size_t)k;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	out[used] = 0;
	prev = t0;
	for (line = out; (end = strchr(line, '\n')) && n < MAXSTEPS - 1; line = end + 1) {
		char *ev = line + strlen("xoload: time: "), *sp, *slash;

		*end = 0;
		if (strncmp(line, "xoload: time: ", strlen("xoload: time: ")) || !(sp = strrchr(ev, ' ')))
			continue;
		ns = strtod(sp + 1, NULL);
		*sp = 0;
		slash = strrchr(ev, '/');
		if (slash && strchr(ev, ' ') && strchr(ev, ' ') < slash)
			snprintf(name[n], 64, "%.*s %s", (int)(strchr(ev, ' ') - ev), ev, slash + 1);
		else
			snprintf(name[n], 64, "%s", ev);
		len[n++] = (ns - prev) / 1e3;
		prev = ns;
	}
	snprintf(name[n], 64, "to the exit");
	len[n++] = (now_us() * 1e3 - prev) / 1e3;
	return n;
}

/* The median of each step of `xoload HELLO` over @runs runs; runs whose steps differ from the first are left out. */
static int bench_steps(const char *xoload, const char *hello, int runs)
{
	static double len[MAXSTEPS][MAXRUNS];
	static char name[MAXSTEPS][64], first[MAXSTEPS][64];
	char *argv[] = { (char *)xoload, (char *)hello, NULL };
	double one[MAXSTEPS], sum = 0;
	int nfirst = -1, kept = 0, r, i, n;

	for (r = 0; r < runs; r++) {
		n = timed_steps(argv, name, one);
		if (n < 0) {
			fprintf(stderr, "hostbench: xoload hello with XOLOAD_TIMES: run failed\n");
			return -1;
		}
		if (nfirst < 0) {
			nfirst = n;
			memcpy(first, name, sizeof(first));
		}
		for (i = 0; n == nfirst && i < n && !strcmp(name[i], first[i]); i++)
			;
		if (i != nfirst)
			continue;
		for (i = 0; i < n; i++)
			len[i][kept] = one[i];
		kept++;
	}
	printf("where the time of xoload hello goes (XOLOAD_TIMES; each line the time until that step, us, median of %d runs of %d alike):\n", kept, runs);
	for (i = 0; kept && i < nfirst; i++) {
		double m = bench_median(len[i], kept);

		sum += m;
		printf("  %-48s %8.1f\n", i ? first[i] : "fork and exec of xoload", m);
	}
	printf("  %-48s %8.1f\n", "sum of the medians", sum);
	return 0;
}

int main(int argc, char **argv)
{
	char *true_argv[] = { "/usr/bin/true", NULL };
	char *hello_argv[] = { NULL, NULL };
	char *python_argv[] = { "/usr/bin/python3", "-c", "pass", NULL };
	char *node_argv[] = { "/usr/bin/node", "-e", "0", NULL };
	char *sh_argv[] = { "/bin/sh", "-c", "for i in " CHILDREN_LIST "; do /usr/bin/true; done", NULL };
	int runs = argc > 5 ? atoi(argv[5]) : 200, bad = 0;
	struct tools tl = { argv[1], argv[3], argv[4] };

	if (argc < 5 || argc > 6 || runs < 1 || runs > MAXRUNS) {
		fprintf(stderr, "usage: hostbench XOLOAD HELLO EXECTHROUGH NULLLOAD [RUNS (1-%d)]\n", MAXRUNS);
		return 2;
	}
	hello_argv[0] = argv[2];
	printf("xoload's startup on this CPU, %d interleaved runs of each variant (us)\n", runs);
	bad |= bench_program("/usr/bin/true", true_argv, &start_variants, &tl, runs);
	bad |= bench_program("hello", hello_argv, &start_variants, &tl, runs);
	if (access(python_argv[0], X_OK) == 0)
		bad |= bench_program("python3 -c pass", python_argv, &start_variants, &tl, runs / 4 + 1);
	if (access(node_argv[0], X_OK) == 0)
		bad |= bench_program("node -e 0", node_argv, &start_variants, &tl, runs / 4 + 1);
	bad |= bench_program("children: sh runs /usr/bin/true " CHILDREN_N " times", sh_argv, &child_variants, &tl,
			     runs / 10 + 1);
	bad |= bench_steps(argv[1], argv[2], runs);
	return bad ? 1 : 0;
}
