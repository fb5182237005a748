// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_strict - the strict level of xonly mode, PR_SET_XONLY 2 and
 * xonly=strict (kernel/patches/0060-0066; issue 28).
 *
 * Each bypass of plain xonly mode is tried twice, in a child at level 1
 * (plain) and in one at level 2 (strict), from a memfd page of code that
 * xonly mode maps execute-only.  Proves that each works in plain mode
 * (the row would prove nothing otherwise) and is stopped in strict mode:
 *  - WRPKRU gadget + write(2) of the code: plain, the bytes come out;
 *    strict, the process dies of SIGSEGV at the write, its SIGSEGV handler
 *    never runs, nothing is written, and the kernel logged the kill with
 *    the command, pid, system call and key;
 *  - a crafted sigreturn frame (the handler clears the key's AD bit in the
 *    frame's xstate): plain, the thread comes back with the key open and
 *    reads and writes out its code; strict, the key is closed again, the
 *    read faults SEGV_PKUERR and write(2) of the code is EFAULT;
 *  - PTRACE_SETREGSET NT_X86_XSTATE from a tracer, the same two outcomes;
 *  - WRPKRU + a system call under a PTRACE_SYSEMU tracer: plain, the
 *    tracer sees the call's entry stop; strict, the process is killed
 *    before any stop (0076) and the kill logged; a sigreturn whose frame
 *    opens the key, under a tracer that stops at system call exits: at
 *    the exit stop of rt_sigreturn the tracer reads PKRU with the key
 *    open (plain) or closed (strict: closed before the stop, 0076);
 *  - mprotect(PROT_READ), pkey_mprotect(PROT_EXEC, key 0) and
 *    pkey_mprotect(PROT_READ|PROT_EXEC, key 0): plain, 0 and the code
 *    reads; strict, EPERM and the code still faults SEGV_PKUERR;
 *  - WRPKRU + a page fault (the first touch of a page) and WRPKRU + an
 *    invalid opcode (0074): plain, the fault is handled and the key stays
 *    open, ud2 raises SIGILL as usual; strict, the process dies of
 *    SIGSEGV before the exception is handled, no handler runs, and the
 *    kernel logged the kill with the command, pid, vector and key;
 *  - the key opened with WRPKRU and not used, in a loop that makes no
 *    system call and touches no new page: plain, it stays open; strict,
 *    the next interrupt (the timer) closes it.
 * The rule chosen for mremap() and mmap(MAP_FIXED) over code, at both
 * levels: mremap() moves it and it stays execute-only with its key;
 * mmap(MAP_FIXED, PROT_READ|PROT_EXEC) of the file over it is execute-only
 * again; mmap(MAP_FIXED, PROT_READ) of the file over it is allowed and
 * shows the file's bytes (what read(2) of the file shows).  Growing a
 * readable page of file code (pkey_mprotect(PROT_READ|PROT_EXEC, 0) at the
 * plain level, the carve at the strict level) over the next page of the
 * file is EPERM (0067): it would map that page readable; growing the
 * execute-only page is allowed and stays execute-only, so is growing
 * shared anonymous PROT_READ|PROT_EXEC memory (a JIT's), and growing the
 * program's own first mapping (of the file execve() opened) is EPERM.
 * The carve-out of loaders: a program exec'd after PR_XONLY_EXEC_CARVE
 * may pkey_mprotect(PROT_READ|PROT_EXEC, 0) its code at the strict level,
 * the process that asked for it may not.
 * And, in strict mode: PROT_READ, PROT_READ|PROT_WRITE and PROT_RWX of the
 * code are EPERM, PROT_EXEC and PROT_READ|PROT_EXEC pass and leave it
 * execute-only and callable, PROT_NONE passes and keeps the key (0075), and
 * then the same rule holds (EPERM, EPERM, EPERM, pkey 0 EPERM, and
 * PROT_READ|PROT_EXEC execute-only again), anonymous code may still be made readable, a
 * key of the process's own (pkey_alloc) may be open across system calls;
 * the window that remains is real (after WRPKRU the code reads, until the
 * next entry to the kernel: an interrupt closes the key, a system call or
 * an exception kills); the
 * levels (raise 1 -> 2, 0 -> 2, lower is EPERM, 4 is EINVAL, GET and
 * "Xonly:" say 2); a fork()ed child, a thread that existed before the
 * prctl and a program exec'd after it are all strict (each killed by its
 * WRPKRU + write); the dynamically linked probe runs unchanged at the
 * strict level (main, ld.so, libc, a dlopen()ed library execute-only, a
 * fork+exec'd child too), and so does a busybox pipeline.
 * With xonly=strict on the command line: the test starts at level 2, pid
 * 1 has "Xonly: 2", kthreadd 0, the boot message was logged, and the
 * strict rows pass; the plain ones are skipped (a level cannot be
 * lowered).
 */
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "codepage.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define PROBE		"/xonly/lib/kernel/xonly_probe"
#define CODE_RET	CODE_PAGE_RET
#define XSTATE_BV	512		/* the XSAVE header, after the legacy area */
#define XFEATURE_PKRU	9
#define OUT_LEN		64		/* bytes of code a bypass writes out */

static int level;		/* what the child sets: 1 plain, 2 strict */
static size_t pkru_off;		/* PKRU's offset in the XSAVE layout */
static unsigned char page_img[4096];
static pid_t last_pid;		/* run_raw()'s child */

static const char *lname(void)
{
	return level == 2 ? "strict" : "plain";
}

/* In a child: enter @level; the boot may have given one already. */
static bool enter_level(void)
{
	int cur = xonly_get(0, 0, 0, 0);

	/* Learn mode (3, xonly=learn) ranks below level 1: it is raised. */
	return ((cur >= level && cur != XONLY_PR_XONLY_LEARN) || xonly_set(level, 0, 0, 0) == 0) &&
	       xonly_get(0, 0, 0, 0) == level;
}

/*
 * One page of code in a memfd, mapped PROT_READ|PROT_EXEC, which xonly
 * mode makes execute-only: "mov $42, %eax; ret" and a pattern.  Returns
 * NULL unless it is execute-only with a key > 0 and runs.
 */
static unsigned char *map_code(int *key)
{
	return code_page_map(page_img, sizeof(page_img), key);
}

/* Is @key's access-disable bit clear in PKRU? */
static bool key_open(int key)
{
	return !(rdpkru() & PKRU_AD(key));
}

/*
 * Fork @fn(wfd) at @level and collect what it writes to wfd, up to @len
 * bytes, and its wait status.  @fn does not print: it may die with a
 * system call half made.  Its exit codes: 90 setup, others its own.
 */
/* Fork @fn(wfd); this side gets the pipe's read end in *@rfd. */
static pid_t fork_row(void (*fn)(int wfd), int *rfd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		tap_bail("setup: pipe: %s", errname(errno));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		fn(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	*rfd = fds[0];
	return pid;
}

static size_t run_raw(void (*fn)(int wfd), unsigned char *buf, size_t len, int *status)
{
	size_t got = 0;
	ssize_t n;
	int rfd;
	pid_t pid = fork_row(fn, &rfd);

	last_pid = pid;
	while (got < len && (n = read(rfd, buf + got, len - got)) > 0)
		got += n;
	close(rfd);
	*status = -1;
	waitpid(pid, status, 0);
	return got;
}

static void segv_marks(int sig)
{
	(void)sig;
	/* if this ran, the kill could be caught: say so and leave */
	_exit(3);
}

/* Open the key with WRPKRU, the gadget, and write the code out. */
static void gadget_write(int wfd, const unsigned char *code, int key)
{
	int tries = 0;
	ssize_t n;

	/*
	 * At the strict level an interrupt between the WRPKRU and the call
	 * closes the key, and the call is EFAULT: open it again.  A kernel
	 * that let the call run with the key open shows as a write.
	 */
	do {
		wrpkru(pkru_with(rdpkru(), key, 0));
		n = write(wfd, code, OUT_LEN);
	} while (n < 0 && errno == EFAULT && ++tries < 20);
	_exit(n == OUT_LEN ? 0 : 4);
}

/*
 * The start of a raw row: the level, the code page, its key sent to the
 * parent as the first byte, and a SIGSEGV handler that would give away a
 * kill that could be caught.
 */
static unsigned char *row_start(int wfd, int *key)
{
	unsigned char *code;
	unsigned char k;

	if (!enter_level() || !(code = map_code(key)))
		_exit(90);
	k = *key;
	if (write(wfd, &k, 1) != 1)
		_exit(90);
	signal(SIGSEGV, segv_marks);
	return code;
}

static void row_gadget(int wfd)
{
	int key;
	unsigned char *code = row_start(wfd, &key);

	gadget_write(wfd, code, key);
}

static char kill_want[160];

static bool kill_logged(const char *line)
{
	return strstr(line, kill_want) != NULL;
}

/* The result of a child that is to have been killed for its write(2). */
static void expect_killed(const char *what, size_t got, int st)
{
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && got == 1,
	       "%s: killed by SIGSEGV at the write(2), no handler ran, no byte written (status %#x, %zu bytes)",
	       what, st, got ? got - 1 : 0);
}

/* ... or that is to have written the code out. */
static void expect_wrote(const char *what, const unsigned char *buf, size_t got, int st)
{
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && got == 1 + OUT_LEN && !memcmp(buf + 1, page_img, OUT_LEN),
	       "%s: the %d bytes of code came out (status %#x, %zu bytes)", what, OUT_LEN, st,
	       got ? got - 1 : 0);
}

static void test_gadget(void)
{
	unsigned char buf[1 + OUT_LEN];
	char comm[17] = "";
	size_t got;
	int st;

	got = run_raw(row_gadget, buf, sizeof(buf), &st);
	if (level == 1) {
		expect_wrote("plain: WRPKRU + write(2) of the code", buf, got, st);
		return;
	}
	expect_killed("strict: WRPKRU + write(2) of the code", got, st);
	prctl(PR_GET_NAME, comm);
	snprintf(kill_want, sizeof(kill_want), "xonly: %s[%d] made system call 1 with the execute-only key %d open",
		 comm, (int)last_pid, got ? buf[0] : -1);
	tap_ok(klog_line(kill_logged) != NULL, "strict: the kernel logged \"%s ...\"", kill_want);
}

/* --- exceptions taken with the key open (0074) ---------------------------- */

static sigjmp_buf trap_jump;

/*
 * SIGILL from ud2: at the plain level the usual outcome; at the strict
 * level it means an interrupt closed the key before the ud2 (the kernel
 * let the exception through): try again.
 */
static void trap_sigill(int sig)
{
	(void)sig;
	if (level == 1)
		_exit(5);
	siglongjmp(trap_jump, 1);
}

/*
 * Open the key with WRPKRU and take an exception right after: a page
 * fault (the first touch of a fresh page) or, with @ud, an invalid
 * opcode.  At the strict level an interrupt between the two closes the
 * key and lets the exception through; the child then tries again.
 */
static void row_trap(int wfd, bool ud)
{
	static volatile int tries;
	struct sigaction sa;
	volatile unsigned char *fresh;
	int key;

	row_start(wfd, &key);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = trap_sigill;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGILL, &sa, NULL);
	/* no mask saved: sigsetjmp() makes no system call */
	sigsetjmp(trap_jump, 0);
	while (++tries <= 20) {
		fresh = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fresh == MAP_FAILED)
			_exit(90);
		wrpkru(pkru_with(rdpkru(), key, 0));
		if (ud)
			__asm__ volatile("ud2");
		*fresh = 1;
		if (key_open(key))
			_exit(0);	/* handled with the key open, and still open */
	}
	_exit(6);
}

static void row_trap_pf(int wfd)
{
	row_trap(wfd, false);
}

static void row_trap_ud(int wfd)
{
	row_trap(wfd, true);
}

static void test_trap(bool ud)
{
	const char *what = ud ? "WRPKRU + an invalid opcode (ud2)" : "WRPKRU + a page fault (first touch of a page)";
	unsigned char buf[1];
	char comm[17] = "";
	size_t got;
	int st;

	got = run_raw(ud ? row_trap_ud : row_trap_pf, buf, sizeof(buf), &st);
	if (level == 1) {
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == (ud ? 5 : 0), "plain: %s: %s (status %#x)", what,
		       ud ? "SIGILL, as without xonly mode" : "handled, and the key is still open after it", st);
		return;
	}
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && got == 1,
	       "strict: %s: killed by SIGSEGV before the exception was handled, no handler ran (status %#x)", what, st);
	prctl(PR_GET_NAME, comm);
	snprintf(kill_want, sizeof(kill_want), "xonly: %s[%d] took exception %d with the execute-only key %d open",
		 comm, (int)last_pid, ud ? 6 : 14, got ? buf[0] : -1);
	tap_ok(klog_line(kill_logged) != NULL, "strict: the kernel logged \"%s ...\"", kill_want);
}

/* --- sigreturn and ptrace ------------------------------------------------- */

static int frame_key;
static volatile int frame_ok;

/* Clear the key's AD bit in the xstate that sigreturn will load. */
static void open_in_frame(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	unsigned char *fx = (unsigned char *)uc->uc_mcontext.fpregs;
	uint32_t magic, size, pkru;
	uint64_t bv;

	(void)sig;
	(void)si;
	if (!fx)
		return;
	/* struct _fpx_sw_bytes in the legacy area's software-reserved bytes */
	memcpy(&magic, fx + 464, 4);
	memcpy(&size, fx + 464 + 16, 4);
	if (magic != FP_XSTATE_MAGIC1 || size < pkru_off + 4)
		return;
	memcpy(&pkru, fx + pkru_off, 4);
	pkru = pkru_with(pkru, frame_key, 0);
	memcpy(fx + pkru_off, &pkru, 4);
	memcpy(&bv, fx + XSTATE_BV, 8);
	bv |= 1ull << XFEATURE_PKRU;
	memcpy(fx + XSTATE_BV, &bv, 8);
	frame_ok = 1;
}

/*
 * After a change of PKRU made behind the thread's back: is the key open,
 * do reads of the code work, does write(2) of it?  Plain: all three;
 * strict: none, the read faults SEGV_PKUERR and write(2) is EFAULT.
 */
static void check_after(const char *how, const unsigned char *code, int key)
{
	bool open = key_open(key);
	struct fault f;
	int fds[2];
	ssize_t n;
	int err;

	if (pipe(fds))
		tap_bail("setup: pipe: %s", errname(errno));
	n = write(fds[1], code, OUT_LEN);
	err = errno;
	close(fds[0]);
	close(fds[1]);
	fault_read8(code, &f);
	if (level == 1)
		tap_ok(open && n == OUT_LEN && !f.hit,
		       "plain: after %s the key is open, write(2) of the code gives %zd, a read %s",
		       how, n, fault_str(&f));
	else
		tap_ok(!open && n == -1 && err == EFAULT && fault_is_pkuerr(&f, key, code),
		       "strict: after %s the key is closed again (PKRU %#x), write(2) of the code is %s, a read %s",
		       how, rdpkru(), n < 0 ? errname(err) : "not refused", fault_str(&f));
	/* whatever happened, the rest of the child runs with it closed */
	wrpkru(rdpkru() | PKRU_AD(key));
}

static void test_sigreturn(void)
{
	struct sigaction sa;
	unsigned char *code;

	if (!enter_level() || !(code = map_code(&frame_key)))
		tap_bail("setup: level %d and an execute-only page", level);
	fault_setup();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = open_in_frame;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	if (!tap_ok(frame_ok, "%s: setup: the signal frame's xstate has PKRU at %zu, rewritten", lname(), pkru_off))
		return;
	check_after("a sigreturn whose frame opens the key", code, frame_key);
}

static void row_ptrace(int wfd)
{
	unsigned char *code;
	unsigned char k;
	int key;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || !enter_level() || !(code = map_code(&key)))
		_exit(90);
	k = key;
	if (write(wfd, &k, 1) != 1)
		_exit(90);
	raise(SIGSTOP);
	/* what the tracer did: 0 open and written, 2 closed and EFAULT */
	if (key_open(key)) {
		ssize_t n = write(wfd, code, OUT_LEN);

		_exit(n == OUT_LEN ? 0 : 5);
	}
	_exit(write(wfd, code, OUT_LEN) == -1 && errno == EFAULT ? 2 : 6);
}

static void test_ptrace(void)
{
	static unsigned char xs[16384];
	unsigned char buf[1 + OUT_LEN];
	struct iovec iov = { xs, sizeof(xs) };
	size_t got = 0;
	bool set = false, readback = false;
	int rfd, st = -1;
	uint32_t pkru, back = 0;
	uint64_t bv;
	ssize_t n;
	pid_t pid = fork_row(row_ptrace, &rfd);

	if (read(rfd, buf, 1) == 1 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st) &&
	    ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) == 0 && iov.iov_len >= pkru_off + 4) {
		got = 1;
		memcpy(&pkru, xs + pkru_off, 4);
		pkru = pkru_with(pkru, buf[0], 0);
		memcpy(xs + pkru_off, &pkru, 4);
		memcpy(&bv, xs + XSTATE_BV, 8);
		bv |= 1ull << XFEATURE_PKRU;
		memcpy(xs + XSTATE_BV, &bv, 8);
		set = ptrace(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, &iov) == 0;
		iov.iov_len = sizeof(xs);
		readback = set && ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) == 0;
		if (readback)
			memcpy(&back, xs + pkru_off, 4);
	}
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	while (got < sizeof(buf) && (n = read(rfd, buf + got, sizeof(buf) - got)) > 0)
		got += n;
	close(rfd);
	waitpid(pid, &st, 0);
	if (!tap_ok(set, "%s: setup: the tracer stopped the child and set PKRU with PTRACE_SETREGSET NT_X86_XSTATE",
		    lname()))
		return;
	tap_ok(readback && !(back & PKRU_AD(buf[0])) == (level == 1),
	       "%s: the tracer's PTRACE_GETREGSET reads back PKRU %#x: the key %s", lname(), back,
	       level == 1 ? "open, as written" : "closed, corrected and not refused");
	if (level == 1)
		expect_wrote("plain: after the tracer opened the key, write(2) of the code", buf, got, st);
	else
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 2 && got == 1,
		       "strict: after the tracer opened the key it is closed again when the child runs, write(2) of the code is EFAULT (status %#x)",
		       st);
}

/*
 * A row that did PTRACE_TRACEME and stopped itself: its key byte read into
 * *@k, and system call stops marked (PTRACE_O_TRACESYSGOOD).
 */
static bool traced_start(pid_t pid, int rfd, unsigned char *k, int *st)
{
	return read(rfd, k, 1) == 1 && waitpid(pid, st, 0) == pid && WIFSTOPPED(*st) &&
	       ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACESYSGOOD) == 0;
}

/* The PKRU of a stopped tracee, as a tracer reads it. */
static bool tracee_pkru(pid_t pid, uint32_t *pkru)
{
	static unsigned char xs[16384];
	struct iovec iov = { xs, sizeof(xs) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) || iov.iov_len < pkru_off + 4)
		return false;
	memcpy(pkru, xs + pkru_off, 4);
	return true;
}

/*
 * A tracer that asked for system call stops with PTRACE_SYSEMU (the call
 * is then not run): the child opens the key and makes a system call,
 * with no libc code between (its page might fault first), again and
 * again.  Plain: the tracer sees a call's entry stop with the key open.
 * Strict: the check comes before the stop (0076; a stop runs task_work,
 * and SYSEMU skipped the call without the kill): the child is killed, and
 * no stop shows the key open (one may show it closed: an interrupt came
 * between the WRPKRU and the call).
 */
static void row_sysemu(int wfd)
{
	long r;
	int key, i;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(90);
	row_start(wfd, &key);
	raise(SIGSTOP);
	for (i = 0; i < 50; i++) {
		wrpkru(pkru_with(rdpkru(), key, 0));
		__asm__ volatile("syscall" : "=a"(r) : "a"(110L) /* getppid */ : "rcx", "r11", "memory");
	}
	/* every call is skipped under SYSEMU, exit_group too: the tracer ends it */
	for (;;)
		;
}

static void test_sysemu(void)
{
	unsigned char k = 0;
	char comm[17] = "";
	int rfd, st = -1, open_stops = 0, closed_stops = 0;
	uint32_t pkru;
	pid_t pid = fork_row(row_sysemu, &rfd);

	if (!traced_start(pid, rfd, &k, &st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		tap_ok(false, "%s: setup: the traced child stopped (status %#x)", lname(), st);
		close(rfd);
		return;
	}
	while (ptrace(PTRACE_SYSEMU, pid, NULL, NULL) == 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		if (WSTOPSIG(st) != (SIGTRAP | 0x80))
			continue;
		if (tracee_pkru(pid, &pkru) && !(pkru & PKRU_AD(k)))
			open_stops++;
		else
			closed_stops++;
		if (open_stops || closed_stops >= 50)
			break;
	}
	if (WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	close(rfd);
	if (level == 1) {
		tap_ok(open_stops == 1,
		       "plain: WRPKRU + a system call under PTRACE_SYSEMU: the tracer saw its entry stop with the key open (%d such stops, %d with it closed)",
		       open_stops, closed_stops);
		return;
	}
	tap_ok(open_stops == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "strict: WRPKRU + a system call under PTRACE_SYSEMU: killed by SIGSEGV, no stop with the key open (%d, %d with it closed by an interrupt; status %#x)",
	       open_stops, closed_stops, st);
	prctl(PR_GET_NAME, comm);
	snprintf(kill_want, sizeof(kill_want), "xonly: %s[%d] made system call 110 with the execute-only key %d open",
		 comm, (int)pid, k);
	tap_ok(klog_line(kill_logged) != NULL, "strict: the kernel logged \"%s ...\"", kill_want);
}

/*
 * The exit side: a sigreturn whose frame opens the key, under a tracer
 * that stops at system call exits.  What PKRU the tracer reads at the
 * exit stop of rt_sigreturn is what the thread had there (a stop runs
 * task_work): plain, the frame's open key; strict, closed before the stop
 * (0076).
 */
static void row_sigreturn_stop(int wfd)
{
	struct sigaction sa;
	int key;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(90);
	row_start(wfd, &key);
	frame_key = key;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = open_in_frame;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGSTOP);
	raise(SIGUSR1);
	_exit(frame_ok ? 0 : 8);
}

static void test_sigreturn_stop(void)
{
	struct __ptrace_syscall_info info;
	unsigned char k = 0;
	uint64_t last_nr = -1;
	uint32_t pkru = 0;
	int rfd, st = -1, sig = 0;
	bool seen = false;
	pid_t pid = fork_row(row_sigreturn_stop, &rfd);

	if (!traced_start(pid, rfd, &k, &st))
		sig = -1;
	while (sig >= 0 && ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) == 0 &&
	       waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		sig = 0;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st) == SIGUSR1 ? SIGUSR1 : 0;
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) <= 0)
			continue;
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
			last_nr = info.entry.nr;
		if (info.op == PTRACE_SYSCALL_INFO_EXIT && last_nr == 15 /* rt_sigreturn */ && !seen)
			seen = tracee_pkru(pid, &pkru);
	}
	if (sig < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	close(rfd);
	if (!tap_ok(seen && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "%s: setup: the tracer stopped at the exit of the rt_sigreturn whose frame opens the key (status %#x)",
		    lname(), st))
		return;
	tap_ok(!(pkru & PKRU_AD(k)) == (level == 1),
	       "%s: at that exit stop the thread's PKRU is %#x: the key %s", lname(), pkru,
	       level == 1 ? "open, as the frame set it" : "closed before the stop (0076)");
}

/* --- mprotect -------------------------------------------------------------- */

static void try_protect(const char *how, int prot, int pkey)
{
	unsigned char *code;
	struct fault f;
	int key, r, err;

	if (!enter_level() || !(code = map_code(&key)))
		tap_bail("setup: level %d and an execute-only page", level);
	fault_setup();
	r = pkey < 0 ? mprotect(code, sizeof(page_img), prot) : pkey_mprotect(code, sizeof(page_img), prot, pkey);
	err = errno;
	fault_read8(code, &f);
	if (level == 1)
		tap_ok(r == 0 && !f.hit && code[0] == page_img[0], "plain: %s of the code: 0, and it reads (%s)", how,
		       fault_str(&f));
	else
		tap_ok(r == -1 && err == EPERM && fault_is_pkuerr(&f, key, code) && !strcmp(maps_perms(code), "--xp"),
		       "strict: %s of the code: %s, and a read still %s", how, r ? errname(err) : "0", fault_str(&f));
}

static void test_mprotect_read(void)
{
	try_protect("mprotect(PROT_READ)", PROT_READ, -1);
}

static void test_pkey_mprotect0(void)
{
	try_protect("pkey_mprotect(PROT_EXEC, key 0)", PROT_EXEC, 0);
}

static void test_pkey_mprotect0_rx(void)
{
	try_protect("pkey_mprotect(PROT_READ|PROT_EXEC, key 0)", PROT_READ | PROT_EXEC, 0);
}

/*
 * The key opened with WRPKRU and left so, in a loop that makes no system
 * call and touches no new page: only an interrupt enters the kernel.
 * Strict: it is closed on the way back from one (the timer's, at the
 * latest); plain: it stays open for as long as it spins.
 */
#define SPIN_MAX	2000000000UL

static unsigned long spin_open(int key, unsigned long max)
{
	unsigned long i;

	wrpkru(pkru_with(rdpkru(), key, 0));
	for (i = 0; i < max && key_open(key); i++)
		__asm__ volatile("" ::: "memory");
	return i;
}

/*
 * The plain row spins this long: seconds under TCG, so many timer ticks
 * (the strict row's first interrupt closes the key).
 */
#define SPIN_PLAIN	50000000UL

static void test_timer(void)
{
	unsigned char *code;
	unsigned long n;
	int key;

	if (!enter_level() || !(code = map_code(&key)))
		tap_bail("setup: level %d and an execute-only page", level);
	if (level == 2) {
		n = spin_open(key, SPIN_MAX);
		tap_ok(n < SPIN_MAX && !key_open(key),
		       "strict: the key opened and not used is closed again by an interrupt, after %lu spins with no system call",
		       n);
		return;
	}
	n = spin_open(key, SPIN_PLAIN);
	tap_ok(key_open(key) && n == SPIN_PLAIN,
	       "plain: the key opened and not used stays open for %lu spins with no system call, interrupts and all", n);
	wrpkru(rdpkru() | PKRU_AD(key));
}

/* --- mremap() and mmap(MAP_FIXED) over code: the rule at both levels ----- */

static void test_remap(void)
{
	unsigned char *code, *moved, *over;
	struct fault f;
	int key, fd;
	void *r;

	if (!enter_level() || !(code = map_code(&key)))
		tap_bail("setup: level %d and an execute-only page", level);
	fault_setup();
	moved = mmap(NULL, 2 * sizeof(page_img), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = moved == MAP_FAILED ? MAP_FAILED :
	    mremap(code, sizeof(page_img), sizeof(page_img), MREMAP_MAYMOVE | MREMAP_FIXED, moved);
	if (tap_ok(r == moved, "%s: setup: mremap() of the code to a new place: %s", lname(),
		   r == MAP_FAILED ? errname(errno) : "moved")) {
		fault_read8(moved, &f);
		tap_ok(fault_is_pkuerr(&f, key, moved) && smaps_pkey(moved) == key &&
		       ((int (*)(void))moved)() == CODE_RET,
		       "%s: mremap()ed code stays execute-only with key %d and runs; a read %s", lname(),
		       smaps_pkey(moved), fault_str(&f));
		code = moved;
	}

	/* the file again, MAP_FIXED over the code */
	fd = memfd_create("xonly_strict_over", 0);
	if (fd < 0 || write(fd, page_img, sizeof(page_img)) != (ssize_t)sizeof(page_img))
		tap_bail("setup: memfd: %s", errname(errno));
	over = mmap(code, sizeof(page_img), PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0);
	fault_read8(code, &f);
	tap_ok(over == code && fault_is_pkuerr(&f, key, code) && smaps_pkey(code) == key,
	       "%s: mmap(MAP_FIXED, PROT_READ|PROT_EXEC) of a file over the code: allowed, execute-only again (key %d), a read %s",
	       lname(), smaps_pkey(code), fault_str(&f));
	over = mmap(code, sizeof(page_img), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	fault_read8(code, &f);
	tap_ok(over == code && !f.hit && code[0] == page_img[0],
	       "%s: mmap(MAP_FIXED, PROT_READ) of the file over the code: allowed, shows the file's bytes (a read %s), as read(2) of the file would",
	       lname(), fault_str(&f));
	close(fd);
}

/* The first page of the program's file as execve() mapped it: offset 0. */
static unsigned char *first_exe_mapping(void)
{
	char exe[256], line[512], path[256];
	unsigned long lo, hi, off;
	unsigned char *at = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n <= 0 || !f)
		return NULL;
	exe[n] = 0;
	while (!at && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &lo, &hi, &off, path) == 4 && off == 0 &&
		    !strcmp(path, exe))
			at = (unsigned char *)lo;
	fclose(f);
	return at;
}

/*
 * Two pages of file code, the first made readable: mremap() must not grow
 * it over the second, which it would map readable; the second, execute-only,
 * may grow and stays so.  Plain level: there pkey_mprotect(..., 0) makes a
 * page readable (the strict level's carve is tried in try_carve()).
 */
static void test_remap_grow(void)
{
	unsigned char *code, *r;
	struct fault f = { 0 };
	int fd, key, e;

	if (!enter_level())
		tap_bail("setup: level %d", level);
	fd = memfd_create("xonly_strict_grow", 0);
	if (fd < 0 || write(fd, page_img, sizeof(page_img)) != (ssize_t)sizeof(page_img) ||
	    write(fd, page_img, sizeof(page_img)) != (ssize_t)sizeof(page_img))
		tap_bail("setup: memfd: %s", errname(errno));
	code = mmap(NULL, 2 * sizeof(page_img), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (code == MAP_FAILED || (key = smaps_pkey(code)) <= 0 ||
	    pkey_mprotect(code, sizeof(page_img), PROT_READ | PROT_EXEC, 0))
		tap_bail("setup: two pages of code, the first readable: %s", errname(errno));
	fault_setup();
	r = mremap(code, sizeof(page_img), 2 * sizeof(page_img), MREMAP_MAYMOVE);
	e = errno;
	if (r != MAP_FAILED)
		fault_read8(r + sizeof(page_img), &f);
	tap_ok(r == MAP_FAILED && e == EPERM,
	       "plain: mremap() growing a readable page of file code over the next page of the file: EPERM (got %s%s)",
	       r == MAP_FAILED ? errname(e) : "0, the new page ", r == MAP_FAILED ? "" : f.hit ? "faults" : "READS");
	r = mremap(code + sizeof(page_img), sizeof(page_img), 2 * sizeof(page_img), MREMAP_MAYMOVE);
	e = errno;
	if (r != MAP_FAILED)
		fault_read8(r, &f);
	tap_ok(r != MAP_FAILED && fault_is_pkuerr(&f, key, r) && smaps_pkey(r) == key,
	       "plain: mremap() growing the execute-only page: allowed, execute-only with key %d (%s, a read %s)",
	       r == MAP_FAILED ? -1 : smaps_pkey(r), r == MAP_FAILED ? errname(e) : "moved",
	       r == MAP_FAILED ? "-" : fault_str(&f));

	/* Anonymous shared memory (a JIT's) is the program's own: it grows. */
	code = mmap(NULL, sizeof(page_img), PROT_READ | PROT_EXEC, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	r = code == MAP_FAILED ? MAP_FAILED : mremap(code, sizeof(page_img), 2 * sizeof(page_img), MREMAP_MAYMOVE);
	e = errno;
	tap_ok(code != MAP_FAILED && r != MAP_FAILED,
	       "plain: mremap() growing shared anonymous PROT_READ|PROT_EXEC memory: allowed (%s)",
	       r == MAP_FAILED ? errname(e) : "grown");

	/* The program's own file, which execve() may have mapped unreadable to the user. */
	r = first_exe_mapping();
	if (!r)
		tap_bail("setup: no mapping of /proc/self/exe at offset 0");
	r = mremap(r, sizeof(page_img), 2 * sizeof(page_img), MREMAP_MAYMOVE);
	e = errno;
	tap_ok(r == MAP_FAILED && e == EPERM,
	       "plain: mremap() growing the first mapping of the program's file (execve()'s, offset 0): EPERM (got %s)",
	       r == MAP_FAILED ? errname(e) : "grown");
}

/* --- the carve-out of loaders (PR_XONLY_EXEC_CARVE) ----------------------- */

/* On a new page of code: 0 if pkey_mprotect(PROT_READ|PROT_EXEC, 0) works and it reads and runs. */
static int try_carve(void)
{
	unsigned char *code;
	struct fault f;
	int key, r;

	if (!(code = map_code(&key)))
		return 90;
	fault_setup();
	r = pkey_mprotect(code, sizeof(page_img), PROT_READ | PROT_EXEC, 0);
	if (r)
		return errno == EPERM ? 10 : 11;
	fault_read8(code, &f);
	if (f.hit || code[0] != page_img[0] || ((int (*)(void))code)() != CODE_RET)
		return 12;
	/* the carved page may not grow over more of the file (0067) */
	if (mremap(code, sizeof(page_img), 2 * sizeof(page_img), MREMAP_MAYMOVE) != MAP_FAILED || errno != EPERM)
		return 13;
	return 0;
}

static void row_carve(int wfd)
{
	(void)wfd;
	if (!enter_level())
		_exit(90);
	if (xonly_set(2, XONLY_PR_XONLY_EXEC_CARVE, 0, 0))
		_exit(91);
	/* the process that asked does not get it for its own code */
	if (try_carve() != 10)
		_exit(80);
	execl("/proc/self/exe", "xonly_strict", "--carve", (char *)NULL);
	_exit(92);
}

static void row_no_carve(int wfd)
{
	(void)wfd;
	if (!enter_level())
		_exit(90);
	execl("/proc/self/exe", "xonly_strict", "--carve", (char *)NULL);
	_exit(92);
}

static void test_carve(void)
{
	unsigned char buf[4];
	int st, r, e;

	run_raw(row_no_carve, buf, sizeof(buf), &st);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 10,
	       "strict: a program exec'd without PR_XONLY_EXEC_CARVE: pkey_mprotect(PROT_READ|PROT_EXEC, 0) of its code is EPERM (exit %d: 10 EPERM, 0 allowed)",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	run_raw(row_carve, buf, sizeof(buf), &st);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "strict: after PR_XONLY_EXEC_CARVE the caller's own pkey_mprotect(PROT_READ|PROT_EXEC, 0) is still EPERM, the program it exec's may, and mremap() cannot grow the carved page (exit %d: 0 yes, 80 caller allowed, 10 exec'd one refused, 13 the carved page grew)",
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	r = xonly_set(2, 2, 0, 0);
	e = errno;
	tap_ok(r == -1 && e == EINVAL, "strict: PR_SET_XONLY 2 with arg3 2 (no such flag) -> EINVAL (got %d, %s)", r,
	       r ? errname(e) : "0");
}

static sigjmp_buf window_jump;
static volatile int window_tries;

/* An interrupt closed the key before the read: try again. */
static void window_closed(int sig)
{
	(void)sig;
	siglongjmp(window_jump, 1);
}

/*
 * The window: after WRPKRU the code reads until the next entry to the
 * kernel (an interrupt closes the key; a system call or an exception
 * kills, test_gadget() and test_trap()); the thread closes it itself
 * here.  No system call in between, no printing; an interrupt that
 * closes the key before the read makes it fault, and it is tried again.
 */
static void test_window(const unsigned char *code, int key)
{
	static volatile bool opened, closed;
	static volatile unsigned char seen;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = window_closed;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	do {
		/* no mask saved: sigsetjmp() makes no system call */
		if (sigsetjmp(window_jump, 0))
			continue;
		wrpkru(pkru_with(rdpkru(), key, 0));
		opened = key_open(key);
		seen = *(volatile const unsigned char *)code;
		wrpkru(rdpkru() | PKRU_AD(key));
		closed = !key_open(key);
		break;
	} while (++window_tries < 20);
	fault_setup();
	tap_ok(window_tries < 20 && opened && seen == page_img[0] && closed,
	       "strict: the window is real: after WRPKRU the code reads (%#x) until the key is closed again (%d interrupted tries)",
	       seen, window_tries);
}

/* Strict only: what mprotect() may and may not do, and what stays free. */
static void test_strict_rules(void)
{
	static const struct {
		const char *name;
		int prot;
	} refused[] = {
		{ "PROT_READ", PROT_READ },
		{ "PROT_READ|PROT_WRITE", PROT_READ | PROT_WRITE },
		{ "PROT_READ|PROT_WRITE|PROT_EXEC", PROT_READ | PROT_WRITE | PROT_EXEC },
	}, kept[] = {
		{ "PROT_EXEC", PROT_EXEC },
		{ "PROT_READ|PROT_EXEC", PROT_READ | PROT_EXEC },
	};
	unsigned char *code, *anon;
	struct fault f;
	int key, k, r, err, fds[2];
	bool syscalls;
	size_t i;

	if (!enter_level() || !(code = map_code(&key)))
		tap_bail("setup: level %d and an execute-only page", level);
	fault_setup();
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		r = mprotect(code, sizeof(page_img), refused[i].prot);
		err = errno;
		fault_read8(code, &f);
		tap_ok(r == -1 && err == EPERM && fault_is_pkuerr(&f, key, code),
		       "strict: mprotect(%s) of the code: %s, still execute-only", refused[i].name,
		       r ? errname(err) : "0");
	}
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		r = mprotect(code, sizeof(page_img), kept[i].prot);
		fault_read8(code, &f);
		tap_ok(r == 0 && fault_is_pkuerr(&f, key, code) && smaps_pkey(code) == key &&
		       ((int (*)(void))code)() == CODE_RET,
		       "strict: mprotect(%s) of the code: %s, execute-only with key %d and callable", kept[i].name,
		       r ? errname(errno) : "0", smaps_pkey(code));
	}

	/*
	 * PROT_NONE passes and keeps the key (0075: ld.so makes the holes of
	 * an object PROT_NONE over its first segment's mapping), and the
	 * mapping is still judged as code: only the kept ones pass.
	 */
	r = mprotect(code, sizeof(page_img), PROT_NONE);
	err = errno;
	tap_ok(r == 0 && smaps_pkey(code) == key && !strcmp(maps_perms(code), "---p"),
	       "strict: mprotect(PROT_NONE) of the code: %s, %s with key %d", r ? errname(err) : "0",
	       maps_perms(code), smaps_pkey(code));
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		r = mprotect(code, sizeof(page_img), refused[i].prot);
		err = errno;
		tap_ok(r == -1 && err == EPERM && !strcmp(maps_perms(code), "---p"),
		       "strict: then mprotect(%s) of it: %s, still %s", refused[i].name, r ? errname(err) : "0",
		       maps_perms(code));
	}
	r = pkey_mprotect(code, sizeof(page_img), PROT_READ | PROT_EXEC, 0);
	err = errno;
	tap_ok(r == -1 && err == EPERM && !strcmp(maps_perms(code), "---p"),
	       "strict: then pkey_mprotect(PROT_READ|PROT_EXEC, 0) of it: %s", r ? errname(err) : "0");
	r = mprotect(code, sizeof(page_img), PROT_READ | PROT_EXEC);
	fault_read8(code, &f);
	tap_ok(r == 0 && fault_is_pkuerr(&f, key, code) && smaps_pkey(code) == key &&
	       ((int (*)(void))code)() == CODE_RET,
	       "strict: then mprotect(PROT_READ|PROT_EXEC) of it: %s, execute-only again with key %d and callable",
	       r ? errname(errno) : "0", smaps_pkey(code));

	/* anonymous code is the program's own (a JIT's) */
	anon = (unsigned char *)map_anon_page();
	anon[0] = 0xc3;
	r = mprotect(anon, page_size(), PROT_EXEC);
	k = smaps_pkey(anon);
	tap_ok(r == 0 && k == key && mprotect(anon, page_size(), PROT_READ) == 0 && anon[0] == 0xc3,
	       "strict: anonymous memory made PROT_EXEC (key %d) may still be made readable again", k);

	/* a key of the process's own may be open across system calls */
	k = pkey_alloc(0, PKEY_DISABLE_ACCESS);
	if (tap_ok(k > 0, "strict: setup: pkey_alloc() -> %d", k)) {
		bool still_open;

		wrpkru(pkru_with(rdpkru(), k, 0));
		syscalls = getppid() > 0 && pipe(fds) == 0 && write(fds[1], "x", 1) == 1;
		still_open = key_open(k) && !key_open(key);
		wrpkru(pkru_with(rdpkru(), k, PKEY_DISABLE_ACCESS));
		tap_ok(syscalls && still_open,
		       "strict: with its own key %d open, system calls run, and it is still open after them (only the execute-only key %d is held closed)",
		       k, key);
		pkey_free(k);
	}

	test_window(code, key);
}

/* --- the levels -------------------------------------------------------------- */

static void test_levels(void)
{
	int r1, g1, r2, g2, e1, e0, r22, e4, st;

	r1 = xonly_set(1, 0, 0, 0);
	g1 = xonly_get(0, 0, 0, 0);
	r2 = xonly_set(2, 0, 0, 0);
	g2 = xonly_get(0, 0, 0, 0);
	st = proc_status_int(getpid(), "Xonly");
	tap_ok(r1 == 0 && g1 == 1 && r2 == 0 && g2 == 2 && st == 2,
	       "levels: SET 1 -> %d (GET %d), SET 2 raises it -> %d (GET %d, Xonly: %d)", r1, g1, r2, g2, st);
	e1 = xonly_set(1, 0, 0, 0) == -1 ? errno : 0;
	e0 = xonly_set(0, 0, 0, 0) == -1 ? errno : 0;
	r22 = xonly_set(2, 0, 0, 0);
	e4 = xonly_set(4, 0, 0, 0) == -1 ? errno : 0;
	tap_ok(e1 == EPERM && e0 == EPERM && r22 == 0 && e4 == EINVAL && xonly_get(0, 0, 0, 0) == 2,
	       "levels: at 2, SET 1 is %s, SET 0 %s, SET 2 again %d, SET 4 %s; GET stays 2", errname(e1), errname(e0),
	       r22, errname(e4));
}

static void test_level_direct(void)
{
	int r = xonly_set(2, 0, 0, 0);

	tap_ok(r == 0 && xonly_get(0, 0, 0, 0) == 2, "levels: SET 2 from level 0 -> %d, GET %d", r,
	       xonly_get(0, 0, 0, 0));
}

/* --- inheritance ------------------------------------------------------------- */

static void row_fork(int wfd)
{
	int st = -1;
	pid_t pid;

	if (!enter_level())
		_exit(90);
	pid = fork();
	if (pid == 0) {
		unsigned char *code;
		int key;

		if (xonly_get(0, 0, 0, 0) != 2 || !(code = map_code(&key)) || write(wfd, "R", 1) != 1)
			_exit(7);
		gadget_write(wfd, code, key);
	}
	waitpid(pid, &st, 0);
	_exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? 0 : 8);
}

static int thread_rfd, thread_wfd, thread_key;
static unsigned char *thread_code;

static void *thread_gadget(void *arg)
{
	char c;

	(void)arg;
	/* waits in read(2) while the main thread raises the mm to strict */
	if (read(thread_rfd, &c, 1) != 1 || write(thread_wfd, "R", 1) != 1)
		_exit(91);
	gadget_write(thread_wfd, thread_code, thread_key);
	return NULL;
}

static void row_thread(int wfd)
{
	int go[2];
	pthread_t t;

	thread_wfd = wfd;
	/* thread_rfd before the thread starts: it reads it at once */
	if (pipe(go))
		_exit(90);
	thread_rfd = go[0];
	if (pthread_create(&t, NULL, thread_gadget, NULL))
		_exit(90);
	if (!enter_level() || !(thread_code = map_code(&thread_key)) || write(go[1], "g", 1) != 1)
		_exit(90);
	pthread_join(t, NULL);
	_exit(9);
}

static void row_exec(int wfd)
{
	char fd[16];

	if (!enter_level())
		_exit(90);
	snprintf(fd, sizeof(fd), "%d", wfd);
	execl("/proc/self/exe", "xonly_strict", "--exec-gadget", fd, (char *)NULL);
	_exit(92);
}

/* The program exec'd by row_exec(): strict from its parent, then the gadget. */
static int exec_gadget(int wfd)
{
	unsigned char *code;
	int key;

	if (xonly_get(0, 0, 0, 0) != 2 || !(code = map_code(&key)) || write(wfd, "R", 1) != 1)
		return 7;
	gadget_write(wfd, code, key);
	return 0;
}

static void test_inherit(void)
{
	unsigned char buf[1 + OUT_LEN];
	size_t got;
	int st;

	/* each writes "R" when its code is mapped and runs: a crash before that is no pass */
	got = run_raw(row_fork, buf, sizeof(buf), &st);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && got == 1 && buf[0] == 'R',
	       "strict: a fork()ed child is strict: its WRPKRU + write(2) killed it by SIGSEGV (status %#x, %zu bytes)",
	       st, got);
	got = run_raw(row_thread, buf, sizeof(buf), &st);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && got == 1 && buf[0] == 'R',
	       "strict: a thread from before PR_SET_XONLY 2 is strict: its WRPKRU + write(2) killed the process (status %#x, %zu bytes)",
	       st, got);
	got = run_raw(row_exec, buf, sizeof(buf), &st);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && got == 1 && buf[0] == 'R',
	       "strict: a program exec'd after PR_SET_XONLY 2 is strict: its WRPKRU + write(2) killed it (status %#x, %zu bytes)",
	       st, got);
}

/* In a child_tap() child: strict, then the probe, its TAP lines ours. */
static void exec_probe_strict(void *arg)
{
	level = 2;
	if (!enter_level()) {
		printf("not ok 1 - setup: level 2\n");
		return;
	}
	execl(PROBE, PROBE, (const char *)arg, (char *)NULL);
	printf("not ok 1 - exec %s: %s\n", PROBE, errname(errno));
}

/* A busybox pipeline at the strict level, its output compared. */
static void row_pipeline(int wfd)
{
	if (!enter_level())
		_exit(90);
	dup2(wfd, 1);
	execl("/bin/sh", "sh", "-c", "echo strict level | tr a-z A-Z | sed s/LEVEL/works/", (char *)NULL);
	_exit(92);
}

static void test_real(void)
{
	unsigned char buf[64] = "";
	size_t got;
	int st;

	child_tap_ok("strict: the dynamically linked probe", exec_probe_strict, "xo-strict", 120);
	got = run_raw(row_pipeline, buf, sizeof(buf) - 1, &st);
	buf[got] = 0;
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !strcmp((char *)buf, "STRICT works\n"),
	       "strict: a busybox pipeline runs (status %#x, output \"%.*s\")", st, (int)strcspn((char *)buf, "\n"),
	       (char *)buf);
}

/* --- the boot parameter -------------------------------------------------------- */

static bool strict_boot_logged(const char *line)
{
	return strstr(line, "xonly=strict: file-backed code of every process is execute-only, and stays so") != NULL;
}

static void test_boot(void)
{
	int g = xonly_get(0, 0, 0, 0);

	tap_ok(g == 2, "xonly=strict: this test starts at level 2 (GET %d)", g);
	tap_ok(proc_status_int(1, "Xonly") == 2 && proc_status_int(2, "Xonly") == 0,
	       "xonly=strict: pid 1 has Xonly: %d (want 2), kthreadd %d (want 0)", proc_status_int(1, "Xonly"),
	       proc_status_int(2, "Xonly"));
	tap_ok(klog_line(strict_boot_logged) != NULL, "xonly=strict: the boot message was logged");
}

static void (*level_fn)(void);

static void run_level_fn(void *arg)
{
	(void)arg;
	level_fn();
}

/* Run @fn in a child at @lvl, reported as this process's results. */
static void at_level(int lvl, const char *what, void (*fn)(void))
{
	level = lvl;
	level_fn = fn;
	child_tap_ok(what, run_level_fn, NULL, 120);
}

static void pkru_offset(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(0xd, XFEATURE_PKRU, &a, &b, &c, &d) || a < 4 || b < 576)
		tap_bail("setup: CPUID 0xD.9 gives no PKRU state in the XSAVE layout");
	pkru_off = b;
}

int main(int argc, char **argv)
{
	bool strict_boot = cmdline_has("xonly=strict");

	code_page_img(page_img, sizeof(page_img));
	if (argc == 3 && !strcmp(argv[1], "--exec-gadget"))
		return exec_gadget(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "--carve"))
		return xonly_get(0, 0, 0, 0) == 2 ? try_carve() : 93;
	tap_init("xonly_strict");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present");
	pkru_offset();

	if (strict_boot)
		test_boot();
	for (level = 1; level <= 2; level++) {
		if (level == 1 && strict_boot) {
			tap_skip("xonly=strict: a level cannot be lowered", "plain: the bypasses at level 1");
			continue;
		}
		test_gadget();
		test_trap(false);
		test_trap(true);
		at_level(level, level == 1 ? "plain: sigreturn child" : "strict: sigreturn child", test_sigreturn);
		test_ptrace();
		test_sysemu();
		test_sigreturn_stop();
		at_level(level, level == 1 ? "plain: mprotect child" : "strict: mprotect child", test_mprotect_read);
		at_level(level, level == 1 ? "plain: pkey_mprotect child" : "strict: pkey_mprotect child",
			 test_pkey_mprotect0);
		at_level(level, level == 1 ? "plain: pkey_mprotect RX child" : "strict: pkey_mprotect RX child",
			 test_pkey_mprotect0_rx);
		at_level(level, level == 1 ? "plain: remap child" : "strict: remap child", test_remap);
	}
	at_level(2, "strict: timer child", test_timer);
	if (!strict_boot) {
		at_level(1, "plain: timer child", test_timer);
		at_level(1, "plain: remap grow child", test_remap_grow);
	}
	at_level(2, "strict: carve child", test_carve);
	level = 2;
	at_level(2, "strict: rules child", test_strict_rules);
	if (!strict_boot)
		at_level(2, "levels child", test_levels);
	if (!strict_boot && xonly_get(0, 0, 0, 0) == 0)
		at_level(2, "levels 0 -> 2 child", test_level_direct);
	test_inherit();
	test_real();
	return tap_done();
}
