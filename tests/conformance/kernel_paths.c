// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_paths - the kernel does not read execute-only memory for anyone
 * but a tracer, on every kind of mapping (tests/lib/xomap.c).
 *
 * Proves, per mapping kind:
 *  - write(2) from, read(2) into and futex(FUTEX_WAIT) on the code fail
 *    EFAULT: the kernel's user accesses obey the caller's PKRU;
 *  - pread() of /proc/self/mem at the code fails EIO where the VMA has
 *    the execute-only key (series v2, patch 0007: a forced read of such a
 *    VMA is for a tracer of a task using that mm only; stock kernels return
 *    the bytes, v1 failed EACCES), and a read from the page below that crosses into the code
 *    returns only the bytes before it; a pkey kind is no execute-only-key
 *    VMA, so there the bytes come back (pkeys alone do not cover FOLL_FORCE);
 *  - process_vm_readv() of its own code fails EFAULT where the VMA has no
 *    VM_READ, and returns the bytes where it has (remote access ignores PKRU);
 *  - a forked child (not a tracer) gets the same answers for the parent's
 *    /proc/PID/mem and process_vm_readv();
 *  - a tracer's PTRACE_PEEKTEXT and /proc/PID/mem read of a stopped tracee
 *    return the code bytes.
 * On a stock kernel under make check-hw (tests/lib/stock.h) the rows of the
 * /proc/PID/mem rule on execute-only-key kinds are skipped, with that
 * reason; the others hold there too.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "stock.h"

#define PROBE 16	/* bytes each read asks for */

/* "EFAULT", or "bytes" if @r bytes equal to the code came back. */
static const char *result(ssize_t r, int err, const void *buf, size_t want)
{
	static char s[32];

	if (r < 0)
		return errname(err);
	if ((size_t)r == want && !memcmp(buf, conf_blob, want))
		return "bytes";
	snprintf(s, sizeof(s), (size_t)r == want ? "wrong bytes" : "%zdB", r);
	return s;
}

static const char *procmem_want(const struct xomap *m)
{
	return m->kind->xo_key ? "EIO" : "bytes";
}

/*
 * On a stock kernel (make check-hw) the rule of patch 0007 is not there:
 * a forced read of an execute-only-key VMA returns the bytes.  Those rows
 * are skipped there; a pkey kind's ("bytes") are the same on both.
 */
#define PROCMEM_STOCK STOCK_SKIP ": the /proc/PID/mem rule (patch 0007)"
static bool procmem_stock(const struct xomap *m)
{
	return m->kind->xo_key && stock_kernel();
}

static const char *vm_readv_want(const struct xomap *m)
{
	return m->kind->vm_read ? "bytes" : "EFAULT";
}

static ssize_t pread_mem(pid_t pid, void *buf, size_t n, const void *at, int *err)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	r = pread(fd, buf, n, (off_t)(uintptr_t)at);
	*err = errno;
	close(fd);
	return r;
}

static ssize_t vm_readv(pid_t pid, void *buf, size_t n, const void *at, int *err)
{
	struct iovec l = { buf, n }, r = { (void *)at, n };
	ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);

	*err = errno;
	return got;
}

static void check_syscalls(const struct xomap *m)
{
	const struct xomap_kind *k = m->kind;
	struct timespec ts = { 0, 1000000 };
	char buf[PROBE];
	int p[2], e;
	long r;

	if (pipe(p))
		tap_bail("setup: pipe: %s", strerror(errno));
	errno = 0;
	r = write(p[1], m->code, PROBE);
	e = errno;
	conf_check("write(2) from XO", k, r < 0 && e == EFAULT, "EFAULT", r < 0 ? errname(e) : "wrote",
		   "write(pipe, code, %d) returns %ld", PROBE, r);
	if (write(p[1], "0123456789abcdef", PROBE) != PROBE)
		tap_bail("setup: write to a pipe: %s", strerror(errno));
	errno = 0;
	r = read(p[0], m->code, PROBE);
	e = errno;
	conf_check("read(2) into XO", k, r < 0 && e == EFAULT, "EFAULT", r < 0 ? errname(e) : "read",
		   "read(pipe, code, %d) returns %ld", PROBE, r);
	close(p[0]);
	close(p[1]);
	errno = 0;
	r = syscall(SYS_futex, m->code, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	e = errno;
	conf_check("futex(FUTEX_WAIT) on XO", k, r < 0 && e == EFAULT, "EFAULT", r < 0 ? errname(e) : "waited",
		   "futex(code, FUTEX_WAIT_PRIVATE, 0, 1 ms) returns %ld", r);
	(void)buf;
}

static void check_self_reads(const struct xomap *m)
{
	const struct xomap_kind *k = m->kind;
	char buf[2 * PROBE];
	const char *got, *want;
	ssize_t r;
	int e;

	memset(buf, 0, sizeof(buf));
	if (procmem_stock(m)) {
		conf_skip("/proc/self/mem pread", k, PROCMEM_STOCK);
		conf_skip("/proc/self/mem pread crossing", k, PROCMEM_STOCK);
		goto vm_readv;
	}
	r = pread_mem(getpid(), buf, PROBE, m->code, &e);
	got = result(r, e, buf, PROBE);
	want = procmem_want(m);
	conf_check("/proc/self/mem pread", k, !strcmp(got, want), want, got,
		   "pread(/proc/self/mem, %d bytes at the code) returns %zd (%s)", PROBE, r, got);

	/* From the readable page below into the code: the bytes before it only. */
	r = pread_mem(getpid(), buf, sizeof(buf), m->code - PROBE, &e);
	{
		char g[48], w[48];
		bool ok;

		snprintf(w, sizeof(w), "%dB", k->xo_key ? PROBE : 2 * PROBE);
		if (r < 0)
			snprintf(g, sizeof(g), "%s", errname(e));
		else
			snprintf(g, sizeof(g), "%zdB", r);
		ok = !strcmp(g, w) && buf[0] == 0x5a && buf[PROBE - 1] == 0x5a;
		conf_check("/proc/self/mem pread crossing", k, ok, w, g,
			   "pread(/proc/self/mem, %zu bytes from code-%d) returns %zd, the page below intact", sizeof(buf),
			   PROBE, r);
	}

vm_readv:
	memset(buf, 0, sizeof(buf));
	r = vm_readv(getpid(), buf, PROBE, m->code, &e);
	got = result(r, e, buf, PROBE);
	want = vm_readv_want(m);
	conf_check("process_vm_readv self", k, !strcmp(got, want), want, got,
		   "process_vm_readv(self, %d bytes at the code) returns %zd (%s)", PROBE, r, got);
}

/* What a forked child, not a tracer, gets for the parent's code. */
struct child_view {
	ssize_t mem_r, vm_r, ctl_r;
	int mem_e, vm_e, ctl_e;
	char mem_buf[PROBE], vm_buf[PROBE];
	unsigned char ctl_buf[PROBE];
};

static void check_child_reads(const struct xomap *m)
{
	const struct xomap_kind *k = m->kind;
	struct child_view *v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t parent = getpid(), pid;
	const char *got, *want;
	int st = -1;

	if (v == MAP_FAILED)
		tap_bail("setup: shared mmap: %s", strerror(errno));
	memset(v, 0, sizeof(*v));
	pid = fork();
	if (pid == 0) {
		v->mem_r = pread_mem(parent, v->mem_buf, PROBE, m->code, &v->mem_e);
		v->vm_r = vm_readv(parent, v->vm_buf, PROBE, m->code, &v->vm_e);
		/* Control: the readable page below, through the same file. */
		v->ctl_r = pread_mem(parent, v->ctl_buf, PROBE, m->before + page_size() - PROBE, &v->ctl_e);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (!tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: setup: the reading child ran (status %#x)",
		    k->name, st))
		goto out;
	/*
	 * Without this a refusal below could come from ptrace access checks
	 * (Yama, dumpable) rather than from the execute-only rule.
	 */
	tap_ok(v->ctl_r == PROBE && v->ctl_buf[0] == 0x5a && v->ctl_buf[PROBE - 1] == 0x5a,
	       "%s: control: the child's pread(/proc/%d/mem) of the readable page below the code returns its bytes (%zd, %s)",
	       k->name, (int)parent, v->ctl_r, errname(v->ctl_r < 0 ? v->ctl_e : 0));
	got = result(v->mem_r, v->mem_e, v->mem_buf, PROBE);
	want = procmem_want(m);
	if (procmem_stock(m))
		conf_skip("child: /proc/PARENT/mem pread", k, PROCMEM_STOCK);
	else
		conf_check("child: /proc/PARENT/mem pread", k, !strcmp(got, want), want, got,
			   "a fork child's pread(/proc/%d/mem, the code) returns %zd (%s)", (int)parent, v->mem_r,
			   got);
	got = result(v->vm_r, v->vm_e, v->vm_buf, PROBE);
	want = vm_readv_want(m);
	conf_check("child: process_vm_readv parent", k, !strcmp(got, want), want, got,
		   "a fork child's process_vm_readv(parent, the code) returns %zd (%s)", v->vm_r, got);
out:
	munmap(v, sizeof(*v));
}

/* The parent traces a fork child, stopped at its SIGSTOP; the code is at the same address there. */
static void check_tracer(const struct xomap *m)
{
	const struct xomap_kind *k = m->kind;
	unsigned char buf[PROBE];
	const char *got;
	int st = -1, e;
	long word[2];
	ssize_t r;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		tap_ok(false, "%s: setup: a traced child stopped (status %#x)", k->name, st);
		if (pid > 0)
			kill(pid, SIGKILL), waitpid(pid, NULL, 0);
		return;
	}
	errno = 0;
	word[0] = ptrace(PTRACE_PEEKTEXT, pid, m->code, NULL);
	word[1] = ptrace(PTRACE_PEEKTEXT, pid, m->code + 8, NULL);
	e = errno;
	got = result(e ? -1 : PROBE, e, word, PROBE);
	conf_check("tracer: PTRACE_PEEKTEXT", k, !strcmp(got, "bytes"), "bytes", got,
		   "the tracer's two PTRACE_PEEKTEXT of the tracee's code return its first %d bytes (%s)", PROBE, got);
	r = pread_mem(pid, buf, PROBE, m->code, &e);
	got = result(r, e, buf, PROBE);
	conf_check("tracer: /proc/TRACEE/mem pread", k, !strcmp(got, "bytes"), "bytes", got,
		   "the tracer's pread(/proc/%d/mem, the code) returns %zd (%s)", (int)pid, r, got);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	tap_init("conformance/kernel_paths");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	for (int i = 0; i < xomap_nkinds; i++) {
		struct xomap m;

		if (!conf_map(&xomap_kinds[i], &m))
			continue;
		check_syscalls(&m);
		check_self_reads(&m);
		check_child_reads(&m);
		check_tracer(&m);
		xomap_unmap(&m);
	}
	conf_table("kernel paths per mapping kind");
	return tap_done();
}
