// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "tap.h"
#include "xonly_sys.h"

/* "SUITE: text" (a tap.c line or diagnostic without its prefix) -> "text" */
static char *unsuite(char *s)
{
	char *colon = strstr(s, ": ");

	return colon && !memchr(s, ' ', (size_t)(colon - s)) ? colon + 2 : s;
}

int child_tap(void (*fn)(void *arg), void *arg, unsigned int secs, int *n)
{
	char line[2048];
	int fds[2], st = -1, count = 0;
	FILE *in;
	pid_t pid;

	if (pipe(fds))
		tap_bail("setup: pipe: %s", errname(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		tap_bail("setup: fork: %s", errname(errno));
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[1]);
		signal(SIGALRM, SIG_DFL);
		alarm(secs);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		bool pass = !strncmp(line, "ok ", 3);
		char *rest;

		line[strcspn(line, "\n")] = 0;
		if (!pass && strncmp(line, "not ok ", 7)) {
			if (line[0] == '#')
				tap_diag("%s", unsuite(line + 1 + (line[1] == ' ')));
			else if (line[0])
				tap_diag("child: %s", line);
			continue;
		}
		/* "ok N - SUITE: text": report "text" under this program's suite */
		rest = strstr(line, " - ");
		tap_ok(pass, "%s", unsuite(rest ? rest + 3 : line));
		count++;
	}
	if (in)
		fclose(in);
	else
		close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n)
		*n = count;
	return st;
}

bool child_tap_ok(const char *what, void (*fn)(void *arg), void *arg, unsigned int secs)
{
	int n = 0, st = child_tap(fn, arg, secs, &n);

	return tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0, "%s: exited normally, status 0, %d results (%s)",
		      what, n, status_str(st));
}

int child_status(int (*fn)(void *arg), void *arg, unsigned int secs)
{
	int st = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		tap_bail("setup: fork: %s", errname(errno));
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		alarm(secs);
		_exit(fn(arg));
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

int child_run(const char *path, char *const argv[], int (*enter)(void), unsigned int secs, char *out,
	      size_t outlen, pid_t *pidp)
{
	int p[2], st;
	ssize_t n = 0, k;
	pid_t pid;

	if (pipe(p))
		tap_bail("pipe: %s", errname(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", errname(errno));
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		alarm(secs);
		if (enter && enter())
			_exit(125);
		execv(path, argv);
		_exit(127);
	}
	close(p[1]);
	while (out && (size_t)n < outlen - 1 && (k = read(p[0], out + n, outlen - 1 - (size_t)n)) > 0)
		n += k;
	if (out)
		out[n] = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	if (pidp)
		*pidp = pid;
	return st;
}

const char *status_str(int st)
{
	static __thread char buf[64];

	if (WIFEXITED(st))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && sigabbrev_np(WTERMSIG(st)))
		snprintf(buf, sizeof(buf), "killed by SIG%s", sigabbrev_np(WTERMSIG(st)));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, sizeof(buf), "wait status %#x", st);
	return buf;
}

int child_exec_xonly(void *argv)
{
	int null = open("/dev/null", O_WRONLY);

	dup2(null, 1);
	dup2(null, 2);
	if (xonly_enter())
		return 125;
	execv("/proc/self/exe", (char **)argv);
	return 127;
}
