// SPDX-License-Identifier: GPL-2.0
/*
 * hookreenter.c - a signal handler that calls _dl_debug_state (ld.so's
 * r_debug.r_brk) while its thread is inside xoload's hook
 * (tests/xoload/hook_edges.sh):
 *   hookreenter call|nocall LIB
 * How the signal lands inside the hook, every time: PROG forks; the child
 * asks to be traced and dlopen()s LIB, which must not be loaded yet; the
 * parent stops it at each system call (PTRACE_SYSCALL) and, at the entry
 * of the first rt_sigprocmask() with the invalid how 99 - which no libc
 * makes and which xoload's identity check (xoloader/run/sameobj.c,
 * readable()) makes while it protects a newly mapped object, under the
 * hook's lock - sends the child a SIGUSR1, delivered when that call
 * returns, inside the hook.  The child's handler counts it; with "call" it
 * first calls r_brk itself: hooked, that is the hook called again from
 * within itself, which xoload refuses (126, its one line).
 * The child prints what it did, a line each, and exits 0 if dlopen()
 * succeeded after one SIGUSR1, 1 otherwise; the parent prints a line if
 * no call was trapped, and exits with the child's status (128 + the
 * signal that killed it).  An alarm (60 s) turns a hang (a hook waiting
 * for its own lock) into the parent's death by SIGALRM, 142, and the
 * child's with it (PTRACE_O_EXITKILL).
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BAD_HOW	99	/* sameobj.c's readable() */

static void (*r_brk)(void);
static volatile sig_atomic_t got, calling;

static void say(const char *s)
{
	ssize_t r = write(1, s, strlen(s));

	(void)r;
}

static void on_usr1(int sig)
{
	(void)sig;
	got++;
	if (calling) {
		say("SIGUSR1 inside the hook: calling r_brk from the handler\n");
		r_brk();
		say("r_brk returned to the handler\n");
	}
}

static int child(const char *lib, bool call)
{
	struct sigaction sa;
	void *h;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL) || ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP)) {
		perror("hookreenter: child");
		return 1;
	}
	calling = call;
	h = dlopen(lib, RTLD_NOW);
	calling = 0;
	printf("dlopen(%s): %s, %d SIGUSR1 while it ran\n", lib, h ? "loaded" : dlerror(), (int)got);
	return h && got == 1 ? 0 : 1;
}

/* Runs the child to its end; its status as an exit status. */
static int tracer(pid_t pid)
{
	struct __ptrace_syscall_info si;
	bool sent = false;
	int st, sig;

	for (;;) {
		if (waitpid(pid, &st, 0) != pid) {
			perror("hookreenter: waitpid");
			return 1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		sig = WSTOPSIG(st);
		if (sig == (SIGTRAP | 0x80)) {
			sig = 0;
			if (!sent && ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == SYS_rt_sigprocmask &&
			    si.entry.args[0] == BAD_HOW) {
				kill(pid, SIGUSR1);
				sent = true;
			}
		} else if (sig == SIGSTOP && !sent) {
			sig = 0;
			ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
		}
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig)) {
			perror("hookreenter: PTRACE_SYSCALL");
			return 1;
		}
	}
	if (!sent)
		printf("no rt_sigprocmask(%d) while the child ran: nothing sent\n", BAD_HOW);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	const struct r_debug *rd;
	pid_t pid;

	if (argc != 3 || (strcmp(argv[1], "call") && strcmp(argv[1], "nocall"))) {
		fprintf(stderr, "usage: hookreenter call|nocall LIB\n");
		return 2;
	}
	alarm(60);
	setvbuf(stdout, NULL, _IONBF, 0);
	/* ld.so's own _r_debug: PROG does not refer to it (no copy relocation). */
	rd = dlsym(RTLD_DEFAULT, "_r_debug");
	if (!rd || !rd->r_brk) {
		printf("no _r_debug or no r_brk in it\n");
		return 1;
	}
	r_brk = (void (*)(void))rd->r_brk;
	if (dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD)) {
		printf("%s is loaded already\n", argv[2]);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("hookreenter: fork");
		return 1;
	}
	if (!pid)
		_exit(child(argv[2], !strcmp(argv[1], "call")));
	return tracer(pid);
}
