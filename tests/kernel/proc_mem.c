// SPDX-License-Identifier: GPL-2.0
/*
 * proc_mem - /proc/PID/mem no longer reads execute-only memory for anyone
 * but a ptrace tracer of a task whose mm it is (kernel/patches/0007; issue
 * 12, findings 2 and 4).
 *
 * Proves, on one readable page followed by one execute-only page:
 *  - a self-read that starts in the execute-only page fails EIO (the
 *    stock kernel returns the code bytes: this is the bypass; v1 of the
 *    series gave EACCES, v2 refuses in GUP's FOLL_FORCE path and the file
 *    reports that as EIO, see kernel/README.md);
 *  - a self-read that runs from the readable page into it returns only
 *    the readable bytes (a short read), and reads of readable memory and
 *    writes through the file are unchanged;
 *  - process_vm_readv() of one's own execute-only memory still fails;
 *  - another process that may open the file but does not trace the
 *    target gets EIO;
 *  - the tracer reads the code through /proc/PID/mem and PTRACE_PEEKTEXT,
 *    and loses that again when it detaches (checked on the same open fd);
 *  - finding 2: the exemption is for the mm, not for the file's task.  X
 *    opens /proc/C/mem while C is a CLONE_VM child of a victim V (the fd
 *    holds V's mm), C execs /bin/sleep (C's mm is now another one), and X
 *    PTRACE_SEIZEs C: the read of V's code still fails EIO (v1 read it).
 *    X then seizes V, whose mm it is, and the same fd reads the code;
 *  - finding 4: on a CPU without protection keys (booted with nopku, see
 *    tests/nopku.run) a PROT_EXEC page is readable, and so it reads
 *    through /proc/self/mem and through a non-tracer's /proc/PID/mem (v1
 *    refused: it took every PROT_EXEC-only VMA for execute-only there).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

/* mov eax, 42; ret; then filler the test can recognise */
static const unsigned char code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3, 0xcc, 0xcc };

static unsigned char *data_page, *xo_page;

/* pread of @len bytes at @addr from /proc/@pid/mem: bytes read or -errno. */
static ssize_t mem_pread(int fd, const void *addr, void *buf, size_t len)
{
	ssize_t r = pread(fd, buf, len, (off_t)(uintptr_t)addr);

	return r < 0 ? -errno : r;
}

static int open_mem(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	return open(path, O_RDWR);
}

static const char *result_str(ssize_t r)
{
	static char buf[64];

	if (r < 0)
		snprintf(buf, sizeof(buf), "%s", errname((int)-r));
	else
		snprintf(buf, sizeof(buf), "%zd bytes", r);
	return buf;
}

static void test_self(void)
{
	unsigned char buf[64];
	struct iovec local = { buf, sizeof(code) }, remote = { xo_page, sizeof(code) };
	int fd = open_mem(getpid());
	ssize_t r;

	if (!tap_ok(fd >= 0, "setup: open /proc/self/mem (%s)", errname(fd < 0 ? errno : 0)))
		return;
	r = mem_pread(fd, xo_page, buf, sizeof(code));
	tap_ok(r == -EIO, "self pread at the execute-only page -> EIO (got %s%s)", result_str(r),
	       r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)) ? ": the code bytes, the bypass" : "");
	r = mem_pread(fd, xo_page + 1, buf, 4);
	tap_ok(r == -EIO, "self pread inside the execute-only page (offset 1) -> EIO (got %s)", result_str(r));

	r = mem_pread(fd, xo_page - 16, buf, 32);
	tap_ok(r == 16 && !memcmp(buf, xo_page - 16, 16),
	       "self pread from 16 bytes before the execute-only page, 32 long -> the 16 readable bytes (got %s)",
	       result_str(r));
	r = mem_pread(fd, data_page, buf, sizeof(buf));
	tap_ok(r == (ssize_t)sizeof(buf) && !memcmp(buf, data_page, sizeof(buf)),
	       "self pread of readable memory is unchanged (got %s)", result_str(r));
	r = pwrite(fd, "xonly", 5, (off_t)(uintptr_t)data_page);
	tap_ok(r == 5 && !memcmp(data_page, "xonly", 5), "pwrite through /proc/self/mem is unchanged (got %zd)", r);
	close(fd);

	errno = 0;
	r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	tap_ok(r < 0, "process_vm_readv() of its own execute-only page fails (got %zd, %s)", r, errname(errno));
}

/* A child that is not a tracer reads its parent's /proc/PID/mem. */
static void test_other_process(void)
{
	pid_t parent = getpid(), pid;
	int st = 0;

	pid = fork();
	if (pid == 0) {
		unsigned char buf[sizeof(code)];
		int fd = open_mem(parent);
		ssize_t r;

		if (fd < 0)
			_exit(100);
		r = mem_pread(fd, xo_page, buf, sizeof(buf));
		if (r == (ssize_t)sizeof(buf))
			_exit(memcmp(buf, code, sizeof(buf)) ? 101 : 102);
		_exit(r == -EIO ? 0 : 103);
	}
	waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a process that is not the tracer gets EIO for the parent's execute-only page (child status %d: %s)",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	       WEXITSTATUS(st) == 102 ? "it read the code" : WEXITSTATUS(st) == 100 ? "open failed" : "see status");
}

/* The parent traces a child (which inherited the execute-only page). */
static void test_tracer(void)
{
	unsigned char buf[sizeof(code)];
	long word;
	int st, fd;
	ssize_t r;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	if (!tap_ok(pid > 0, "setup: fork a child to trace"))
		return;
	fd = open_mem(pid);
	r = fd < 0 ? -errno : mem_pread(fd, xo_page, buf, sizeof(buf));
	tap_ok(r == -EIO, "before attaching, the parent gets EIO for the child's execute-only page (got %s)",
	       result_str(r));

	if (tap_ok(ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st),
		   "setup: PTRACE_ATTACH to the child")) {
		r = mem_pread(fd, xo_page, buf, sizeof(buf));
		tap_ok(r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)),
		       "the tracer reads the child's execute-only code through /proc/PID/mem, same fd (got %s)",
		       result_str(r));
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, pid, xo_page, NULL);
		tap_ok(errno == 0 && !memcmp(&word, code, sizeof(word)),
		       "PTRACE_PEEKTEXT by the tracer returns the code bytes (%s)", errname(errno));
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		r = mem_pread(fd, xo_page, buf, sizeof(buf));
		tap_ok(r == -EIO, "after PTRACE_DETACH the same fd gets EIO again (got %s)", result_str(r));
	}
	if (fd >= 0)
		close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* --- finding 2: the fd's mm, not the file's task ---------------------------- */

static int clone_go_fd = -1;

/* C: shares V's mm until it execs /bin/sleep, which it does when told to. */
static int clone_child(void *arg)
{
	char c;

	(void)arg;
	if (read(clone_go_fd, &c, 1) != 1)
		_exit(1);
	execl("/bin/sleep", "sleep", "1000", (char *)NULL);
	_exit(127);
}

/*
 * V: has the execute-only page (fork kept it), starts C, reports C's pid.
 * C gets its own copy of @exec_out, close-on-exec; V closes its own.
 */
static void victim(int pid_out, int go_in, int exec_out)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	pid_t c;

	clone_go_fd = go_in;
	c = clone(clone_child, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	close(exec_out);
	if (write(pid_out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	for (;;)
		pause();
}

static bool comm_is(pid_t pid, const char *want)
{
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	return !strcmp(comm, want);
}

static void test_exec_seize(void)
{
	int pid_pipe[2], go_pipe[2], exec_pipe[2], st, fd = -1;
	unsigned char buf[sizeof(code)];
	pid_t v, c = -1;
	ssize_t r;
	char x;

	/* exec_pipe is close-on-exec: its read end sees EOF once C has exec'd */
	if (pipe(pid_pipe) || pipe(go_pipe) || pipe2(exec_pipe, O_CLOEXEC))
		tap_bail("setup: pipe: %s", errname(errno));
	v = fork();
	if (v == 0) {
		close(pid_pipe[0]);
		close(go_pipe[1]);
		close(exec_pipe[0]);
		victim(pid_pipe[1], go_pipe[0], exec_pipe[1]);
	}
	close(pid_pipe[1]);
	close(go_pipe[0]);
	close(exec_pipe[1]);
	if (v < 0 || read(pid_pipe[0], &c, sizeof(c)) != sizeof(c))
		c = -1;
	if (!tap_ok(v > 0 && c > 0, "setup: victim V %d started a CLONE_VM child C %d", (int)v, (int)c))
		goto out;
	fd = open_mem(c);
	r = fd < 0 ? -errno : mem_pread(fd, xo_page, buf, sizeof(buf));
	tap_ok(r == -EIO, "X opened /proc/C/mem while C shares V's mm; reading V's execute-only page -> EIO (got %s)",
	       result_str(r));
	if (write(go_pipe[1], "x", 1) != 1 || read(exec_pipe[0], &x, 1) != 0 || !comm_is(c, "sleep")) {
		tap_ok(false, "setup: C execs /bin/sleep");
		goto out;
	}
	r = ptrace(PTRACE_SEIZE, c, NULL, NULL) ? -errno : 0;
	if (!tap_ok(r == 0, "setup: X PTRACE_SEIZEs C, now running sleep (%s)", errname((int)-r)))
		goto out;
	r = mem_pread(fd, xo_page, buf, sizeof(buf));
	tap_ok(r == -EIO,
	       "X, tracer of C but not of V, reads V's execute-only page through the old fd -> EIO (got %s%s)",
	       result_str(r),
	       r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)) ? ": V's code bytes, the bypass" : "");
	kill(c, SIGKILL);
	waitpid(c, &st, __WALL);
	c = -1;
	r = ptrace(PTRACE_SEIZE, v, NULL, NULL) ? -errno : 0;
	if (tap_ok(r == 0, "setup: X PTRACE_SEIZEs V (%s)", errname((int)-r))) {
		r = mem_pread(fd, xo_page, buf, sizeof(buf));
		tap_ok(r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)),
		       "X, tracer of V whose mm the fd holds, reads V's execute-only code through it (got %s)",
		       result_str(r));
	}
out:
	if (fd >= 0)
		close(fd);
	close(pid_pipe[0]);
	close(go_pipe[1]);
	close(exec_pipe[0]);
	if (c > 0) {
		kill(c, SIGKILL);
		waitpid(c, &st, __WALL);
	}
	if (v > 0) {
		kill(v, SIGKILL);
		waitpid(v, &st, 0);
	}
}

/* --- finding 4: no protection keys, nothing to refuse ---------------------------- */

static void test_nopku(void)
{
	unsigned char buf[sizeof(code)];
	struct fault f;
	pid_t parent = getpid(), pid;
	int fd = open_mem(getpid()), st = -1;
	ssize_t r;

	fault_read8(xo_page, &f);
	tap_ok(!f.hit && xo_page[0] == code[0],
	       "without PKU a PROT_EXEC page is readable, the CPU cannot make it execute-only (read: %s)", fault_str(&f));
	r = fd < 0 ? -errno : mem_pread(fd, xo_page, buf, sizeof(buf));
	tap_ok(r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)),
	       "without PKU self pread of that PROT_EXEC page returns its bytes (got %s)", result_str(r));
	if (fd >= 0)
		close(fd);

	pid = fork();
	if (pid == 0) {
		int pfd = open_mem(parent);

		r = pfd < 0 ? -errno : mem_pread(pfd, xo_page, buf, sizeof(buf));
		_exit(r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)) ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "without PKU a non-tracer child reads the parent's PROT_EXEC page through /proc/PID/mem (status %#x)", st);
}

int main(void)
{
	unsigned char *two;
	int (*fn)(void);
	bool pku = pkru_supported();

	tap_init("proc_mem");
	fault_setup();
	two = mmap(NULL, 2 * page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (two == MAP_FAILED)
		tap_bail("setup: mmap two pages: %s", strerror(errno));
	data_page = two;
	xo_page = two + page_size();
	memset(data_page, 0x5a, page_size());
	memcpy(xo_page, code, sizeof(code));
	if (mprotect(xo_page, page_size(), PROT_EXEC))
		tap_bail("setup: mprotect(PROT_EXEC): %s", strerror(errno));
	fn = (int (*)(void))(uintptr_t)xo_page;
	if (!pku) {
		tap_diag("no PKU/OSPKE (a nopku boot?): only the rows of a CPU without protection keys");
		tap_ok(fn() == 42 && smaps_pkey(xo_page) <= 0, "setup: the PROT_EXEC page runs (smaps key %d)",
		       smaps_pkey(xo_page));
		test_nopku();
		return tap_done();
	}
	tap_ok(smaps_pkey(xo_page) > 0 && fn() == 42,
	       "setup: the second page is execute-only (smaps key %d) and runs", smaps_pkey(xo_page));

	test_self();
	test_other_process();
	test_tracer();
	test_exec_seize();
	return tap_done();
}
