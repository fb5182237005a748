// SPDX-License-Identifier: GPL-2.0
/*
 * denyexecmod.c - denyexecmod PROG [ARGS]: run PROG where mprotect(ADDR,
 * 4096, PROT_READ|PROT_EXEC) fails with EACCES, and so does every later
 * mprotect() with PROT_EXEC of that page until an mmap(MAP_FIXED) maps it
 * anew: as a policy that refuses execute permission to code written to
 * (SELinux without execmod) refuses xoload's restoring of the page of
 * ld.so it patched, and then its execute-only protection.
 * tests/xoload/hook.sh: by default xoload maps the file's page back and
 * takes the audit module; XOLOAD_HOOK=1 refuses (126).
 *
 * The test kernel has no seccomp filters (tinyconfig), so this is a
 * tracer: at each such mprotect's entry it turns the call into an invalid
 * one, and at its exit sets the result to -EACCES.  PROG must be single-
 * threaded (entry and exit stops alternate).  Exits with PROG's status.
 *
 * denyexecmod --self-of PATH PROG [ARGS]: another policy, one that
 * refuses xoload (or xoaudit.so) making its own code execute-only: every
 * mprotect() and pkey_mprotect() with PROT_EXEC whose range overlaps an
 * executable mapping of the file PATH (its /proc/PID/maps line, read at
 * the call's entry; PATH as realpath() resolves it) fails with EACCES.
 * Nothing else is refused; a PATH that PROG never maps refuses nothing.
 * Says on stderr how many it refused.  tests/xoload/selfprotect.sh.
 * In both forms PROG is looked up on PATH (execvp()).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

/* [addr, addr + len) overlaps an executable mapping of @path in @pid's maps. */
static int in_exec_mapping(pid_t pid, const char *path, unsigned long long addr, unsigned long long len)
{
	char name[64], line[PATH_MAX + 128], perms[8];
	unsigned long long start, end;
	int off, hit = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "r");
	if (!f)
		return 0;
	while (!hit && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		off = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &start, &end, perms, &off) < 3 || !off)
			continue;
		hit = strchr(perms, 'x') && !strcmp(line + off, path) && addr < end && start < addr + len;
	}
	fclose(f);
	return hit;
}

/* --self-of: a PROT_EXEC mprotect()/pkey_mprotect() of @path's code (entry registers @r). */
static int refuse_self_of(pid_t pid, const char *path, const struct user_regs_struct *r)
{
	return (r->orig_rax == SYS_mprotect || r->orig_rax == SYS_pkey_mprotect) && (r->rdx & PROT_EXEC) &&
	       in_exec_mapping(pid, path, r->rdi, r->rsi);
}

/*
 * The default: mprotect(ADDR, 4096, R+X), which sets *@page, then PROT_EXEC
 * on *@page until an mmap(MAP_FIXED) of it clears it.
 */
static int refuse_execmod(const struct user_regs_struct *r, unsigned long long *page)
{
	if (r->orig_rax == SYS_mprotect && r->rsi == 4096 && r->rdx == (PROT_READ | PROT_EXEC)) {
		*page = r->rdi;
		return 1;
	}
	if (*page && r->orig_rax == SYS_mprotect && (r->rdx & PROT_EXEC) && r->rdi <= *page && *page - r->rdi < r->rsi)
		return 1;
	if (*page && r->orig_rax == SYS_mmap && r->rdi == *page && (r->r10 & MAP_FIXED))
		*page = 0;
	return 0;
}

int main(int argc, char **argv)
{
	static char self[PATH_MAX];
	const char *self_of = NULL;
	struct user_regs_struct r;
	unsigned long long page = 0;	/* the page refused R+X, until mapped anew */
	int st, entry = 1, deny = 0, sig = 0, denied = 0;
	pid_t pid;

	if (argc >= 2 && !strcmp(argv[1], "--self-of")) {
		if (argc < 4) {
			fprintf(stderr, "usage: denyexecmod --self-of PATH PROG [ARGS]\n");
			return 2;
		}
		self_of = realpath(argv[2], self) ? self : argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: denyexecmod PROG [ARGS]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execvp(argv[1], argv + 1);
		perror("denyexecmod: execvp");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))) {
		perror("denyexecmod: ptrace");
		return 125;
	}
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) || waitpid(pid, &st, 0) != pid)
			return 125;
		sig = 0;
		if (WIFEXITED(st)) {
			if (self_of)
				fprintf(stderr, "denyexecmod: %d mprotect(PROT_EXEC) of %s refused\n", denied, self_of);
			else
				fprintf(stderr, "denyexecmod: %d mprotect(4096, PROT_READ|PROT_EXEC) refused\n", denied);
			return WEXITSTATUS(st);
		}
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* The SIGTRAP after execve is ptrace's own; others go to PROG. */
			sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
			continue;
		}
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
			return 125;
		if (entry) {
			deny = self_of ? refuse_self_of(pid, self_of, &r) : refuse_execmod(&r, &page);
			if (deny) {
				r.orig_rax = -1;	/* no such call: skipped */
				ptrace(PTRACE_SETREGS, pid, NULL, &r);
			}
		} else if (deny) {
			r.rax = -EACCES;
			ptrace(PTRACE_SETREGS, pid, NULL, &r);
			denied++;
			deny = 0;
		}
		entry = !entry;
	}
}
