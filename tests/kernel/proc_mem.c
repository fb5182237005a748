// SPDX-License-Identifier: GPL-2.0
/*
 * proc_mem - /proc/PID/mem no longer reads execute-only memory for anyone
 * but the target's ptrace tracer (kernel/patches/0005).
 *
 * Proves, on one readable page followed by one execute-only page:
 *  - a self-read that starts in the execute-only page fails EACCES (the
 *    stock kernel returns the code bytes: this is the bypass);
 *  - a self-read that runs from the readable page into it returns only
 *    the readable bytes (a short read), and reads of readable memory and
 *    writes through the file are unchanged;
 *  - process_vm_readv() of one's own execute-only memory still fails;
 *  - another process that may open the file but does not trace the
 *    target gets EACCES;
 *  - the tracer reads the code through /proc/PID/mem and PTRACE_PEEKTEXT,
 *    and loses that again when it detaches (checked on the same open fd).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mapping.h"
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
	tap_ok(r == -EACCES, "self pread at the execute-only page -> EACCES (got %s%s)", result_str(r),
	       r == (ssize_t)sizeof(code) && !memcmp(buf, code, sizeof(code)) ? ": the code bytes, the bypass" : "");
	r = mem_pread(fd, xo_page + 1, buf, 4);
	tap_ok(r == -EACCES, "self pread inside the execute-only page (offset 1) -> EACCES (got %s)", result_str(r));

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
		_exit(r == -EACCES ? 0 : 103);
	}
	waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a process that is not the tracer gets EACCES for the parent's execute-only page (child status %d: %s)",
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
	tap_ok(r == -EACCES, "before attaching, the parent gets EACCES for the child's execute-only page (got %s)",
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
		tap_ok(r == -EACCES, "after PTRACE_DETACH the same fd gets EACCES again (got %s)", result_str(r));
	}
	if (fd >= 0)
		close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

int main(void)
{
	unsigned char *two;
	int (*fn)(void);

	tap_init("proc_mem");
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
	tap_ok(smaps_pkey(xo_page) > 0 && fn() == 42,
	       "setup: the second page is execute-only (smaps key %d) and runs", smaps_pkey(xo_page));

	test_self();
	test_other_process();
	test_tracer();
	return tap_done();
}
