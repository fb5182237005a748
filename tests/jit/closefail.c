// SPDX-License-Identifier: GPL-2.0
/*
 * closefail - a write window that cannot be closed stops the process: a
 * JIT must not go on with writable code.
 *
 * Proves, each in a forked child (so the abort is observed, not suffered):
 *  - mprotect strategy: when cm_end()'s mprotect(RX) fails (the pages were
 *    unmapped inside the window: ENOMEM), the child dies of SIGABRT after
 *    one line on stderr naming the strategy and the failed call;
 *  - pkey-syscall strategy: when cm_end()'s pkey_set(2) fails (the key was
 *    freed inside the window: EBADF), the same;
 *  - the control: the same child without the sabotage exits 0, so the
 *    abort comes from the failed close and not from the harness.
 * WRPKRU (the pkey strategy) cannot fail, so it has no such case.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit.h"
#include "stock.h"
#include "tap.h"

struct outcome {
	int status;		/* wait status */
	char err[512];		/* the child's stderr */
};

static void child(enum cm_strategy s, bool sabotage)
{
	char err[256];
	struct codemem *cm = cm_create(s, 4096, err, sizeof(err));
	uint8_t *wr, *code;

	if (!cm) {
		fprintf(stderr, "setup: %s\n", err);
		_exit(3);
	}
	code = cm_begin(cm, 16, &wr);
	if (!code) {
		fprintf(stderr, "setup: cm_begin: %s\n", strerror(errno));
		_exit(3);
	}
	memset(wr, 0xcc, 16);
	if (sabotage && s == CM_MPROTECT)
		munmap(cm_base(cm), 4096);
	if (sabotage && s == CM_PKEY_SYSCALL)
		pkey_free(cm_pkey(cm));
	cm_end(cm, code, 16);
	_exit(0);
}

static void run(enum cm_strategy s, bool sabotage, struct outcome *o)
{
	int fds[2];
	ssize_t r;
	size_t n = 0;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	if (pipe(fds))
		tap_bail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		child(s, sabotage);
	}
	close(fds[1]);
	while (n + 1 < sizeof(o->err) && (r = read(fds[0], o->err + n, sizeof(o->err) - 1 - n)) > 0)
		n += (size_t)r;
	close(fds[0]);
	o->err[strcspn(o->err, "\n")] = 0;
	waitpid(pid, &o->status, 0);
}

static void check(enum cm_strategy s, const char *call)
{
	struct outcome o;
	const char *name = cm_strategy_name(s);

	if (s == CM_PKEY_SYSCALL && stock_kernel()) {
		tap_skip(STOCK_SKIP, "%s: a window that cannot be closed aborts", name);
		return;
	}
	run(s, false, &o);
	tap_ok(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0, "%s: control: a window that closes normally, exit 0 (status %#x, '%s')",
	       name, o.status, o.err);
	run(s, true, &o);
	tap_ok(WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGABRT && strstr(o.err, name) && strstr(o.err, call) &&
	       strstr(o.err, "cannot close the window"),
	       "%s: cm_end whose %s fails aborts with a message (status %#x, stderr '%s')", name, call, o.status, o.err);
}

int main(void)
{
	tap_init("jit closefail");
	check(CM_MPROTECT, "mprotect");
	check(CM_PKEY_SYSCALL, "pkey_set");
	return tap_done();
}
