// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_strict bench - what the strict level of xonly mode costs (issue 28:
 * target <= 1.02x per system call), measured side by side in one run.
 *
 * Each sample runs in a fresh child at level 1 (PR_XONLY_ON) or 2
 * (PR_XONLY_STRICT), alternating, and the medians are compared:
 *  - a getpid() loop: the cost per system call of the entry check (the
 *    syscall work path) and of the exit fixup (RDPKRU, and the static key);
 *  - a pread() of 4 KiB loop: the same on a system call that copies data;
 *  - busybox sha256sum of a 64 MiB file in tmpfs: a real program, its
 *    reads and its computing, exec'd at each level.
 * The first getpid() samples, taken before any mm was strict, show what
 * processes that are not strict pay once the exit fixup's static key is on:
 * "level 1, key off" against "level 1, key on".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "xonly_sys.h"

#define GETPID_LOOPS	200000
#define ROUNDS		9
#define FILE_MB		64
#define SHA_FILE	"/tmp/xonly-bench-64M"
#define READ_FILE	"/tmp/xonly-bench-4K"
#define READ_LOOPS	100000

/* What the loop of sample() runs: getpid() or pread() of 4 KiB. */
static int read_loop;

/*
 * Seconds one child at @level takes: for @argv NULL, GETPID_LOOPS raw
 * getpid() calls, timed in the child and passed back through a pipe; else
 * the exec of @argv with its output discarded, timed from fork to exit.
 * Returns a negative value if the child failed.
 */
static double sample(int level, char *const argv[])
{
	double t0 = now(), t = -1;
	int fds[2], st = -1;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (xonly_set(level, 0, 0, 0) || xonly_get(0, 0, 0, 0) != level)
			_exit(90);
		if (argv) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execv(argv[0], argv);
			_exit(127);
		}
		if (read_loop) {
			static char buf[4096];
			int fd = open(READ_FILE, O_RDONLY);

			if (fd < 0)
				_exit(92);
			t0 = now();
			for (int i = 0; i < READ_LOOPS; i++)
				if (pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
					_exit(93);
			t = now() - t0;
		} else {
			t0 = now();
			for (int i = 0; i < GETPID_LOOPS; i++)
				syscall(SYS_getpid);
			t = now() - t0;
		}
		_exit(write(fds[1], &t, sizeof(t)) == sizeof(t) ? 0 : 91);
	}
	close(fds[1]);
	if (!argv && read(fds[0], &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return argv ? now() - t0 : t;
}

/* Alternate ROUNDS samples at level 1 and 2; print the medians and ratio. */
static int compare(const char *what, char *const argv[], double scale, const char *unit, double *m_on)
{
	double on[ROUNDS], strict[ROUNDS], m1, m2;

	for (int r = 0; r < ROUNDS; r++) {
		on[r] = sample(1, argv);
		strict[r] = sample(2, argv);
		if (on[r] < 0 || strict[r] < 0) {
			printf("%s: a sample failed\n", what);
			return 1;
		}
	}
	m1 = median(on, ROUNDS);
	m2 = median(strict, ROUNDS);
	*m_on = m1;
	printf("%-34s level 1 %9.1f %s  strict %9.1f %s  ratio %.3fx (target <= 1.02x)\n", what, m1 * scale, unit,
	       m2 * scale, unit, m2 / m1);
	return 0;
}

/* @path: @mb MiB, or 4 KiB for 0. */
static int make_file(const char *path, int mb)
{
	static char buf[1 << 20];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return -1;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + (i >> 9));
	if (!mb)
		return write(fd, buf, 4096) == 4096 ? close(fd) : (close(fd), -1);
	for (int i = 0; i < mb; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return close(fd), -1;
	return close(fd);
}

int main(void)
{
	char *sha[] = { "/bin/busybox", "sha256sum", SHA_FILE, NULL };
	double off[ROUNDS], m, m_on;
	int bad = 0;

	if (xonly_get(0, 0, 0, 0) < 0 || sample(1, NULL) < 0) {
		printf("xonly_strict: no xonly mode here (%s): nothing measured\n", strerror(errno));
		return 1;
	}
	/* before any mm is strict: the exit fixup is patched out */
	for (int r = 0; r < ROUNDS; r++)
		off[r] = sample(1, NULL);
	m = median(off, ROUNDS);
	printf("getpid() x %d, level 1, before any strict mm: %.1f ns per call\n", GETPID_LOOPS,
	       m * 1e9 / GETPID_LOOPS);
	bad |= compare("getpid() per call", NULL, 1e9 / GETPID_LOOPS, "ns", &m_on);
	if (!bad)
		printf("%-34s key off %9.1f ns  key on %9.1f ns  ratio %.3fx\n", "getpid(), level 1, static key", m * 1e9 / GETPID_LOOPS,
		       m_on * 1e9 / GETPID_LOOPS, m_on / m);
	if (make_file(READ_FILE, 0)) {
		printf("pread(): cannot write %s: %s\n", READ_FILE, strerror(errno));
		return 1;
	}
	read_loop = 1;
	bad |= compare("pread() of 4 KiB per call", NULL, 1e9 / READ_LOOPS, "ns", &m_on);
	read_loop = 0;
	unlink(READ_FILE);
	if (make_file(SHA_FILE, FILE_MB)) {
		printf("sha256sum: cannot write %s: %s\n", SHA_FILE, strerror(errno));
		return 1;
	}
	bad |= compare("busybox sha256sum of 64 MiB", sha, 1e3, "ms", &m_on);
	unlink(SHA_FILE);
	return bad;
}
