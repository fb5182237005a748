/* SPDX-License-Identifier: GPL-2.0 */
/*
 * child.h - run part of a test in a forked child, bounded by alarm(), so
 * that what it does for good (PR_SET_XONLY, pkey_alloc of every key), a
 * crash or a hang stays there.
 */
#ifndef XONLY_CHILD_H
#define XONLY_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Fork; the child gets alarm(@secs) (SIGALRM's default action ends it),
 * runs @fn(@arg) with its stdout and stderr in a pipe and _exit(0)s.  The
 * "ok"/"not ok" lines it prints (tap_ok()) are reported here again as
 * this program's results, renumbered, and its "#" lines as diagnostics.
 * Returns the child's wait status; *@n (if not NULL) gets the number of
 * its results.
 */
int child_tap(void (*fn)(void *arg), void *arg, unsigned int secs, int *n);
/*
 * The same, and one more result: "@what: exited normally, status 0, N
 * results" (a child killed by a signal, by the alarm among them, fails it).
 */
bool child_tap_ok(const char *what, void (*fn)(void *arg), void *arg, unsigned int secs);
/*
 * Fork; the child gets alarm(@secs) and _exit(@fn(@arg))s, its output
 * goes where this program's goes.  Returns the child's wait status.
 */
int child_status(int (*fn)(void *arg), void *arg, unsigned int secs);
/*
 * For child_status(): enter xonly mode (xonly_enter(): PR_SET_XONLY 1, or 2
 * at the strict level) and execve() this program again with @argv (a
 * NULL-terminated char *[]), its output to /dev/null.  Returns 125 if the
 * prctl fails, 127 if the exec does.
 */
int child_exec_xonly(void *argv);
/*
 * Fork; the child gets alarm(@secs), runs @enter() if not NULL (a non-zero
 * return: _exit(125)) and execv()s @path with @argv (127 if it cannot),
 * its stdout in a pipe.  Returns its wait status; *@pidp (if not NULL) its
 * pid; @out (if not NULL) what it printed, up to @outlen - 1 bytes.
 */
int child_run(const char *path, char *const argv[], int (*enter)(void), unsigned int secs, char *out,
	      size_t outlen, pid_t *pidp);
/* "exit 0", "killed by SIGSEGV": a wait status for diagnostics. */
const char *status_str(int st);

#endif
