/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/sys.h - the raw Linux x86-64 system calls of xoload's run-time code
 * (the freestanding audit module xoaudit.so and the minimal ELF reader).
 *
 * That code runs inside ld.so's audit namespace without a libc: no errno,
 * a call returns the kernel's value (-errno on failure).  Only what the
 * module needs is here.
 */
#ifndef XOLOADER_RUN_SYS_H
#define XOLOADER_RUN_SYS_H

#include <stddef.h>
#include <stdint.h>

#define RT_NR_read		0
#define RT_NR_write		1
#define RT_NR_open		2
#define RT_NR_close		3
#define RT_NR_fstat		5
#define RT_NR_pread64		17
#define RT_NR_mmap		9
#define RT_NR_rt_sigprocmask	14
#define RT_NR_mprotect		10
#define RT_NR_munmap		11
#define RT_NR_mincore		27
#define RT_NR_madvise		28
#define RT_NR_fork		57
#define RT_NR_execve		59
#define RT_NR_exit		60
#define RT_NR_wait4		61
#define RT_NR_dup2		33
#define RT_NR_prctl		157
#define RT_NR_exit_group	231
#define RT_NR_stat		4
#define RT_NR_lstat		6
#define RT_NR_access		21
#define RT_NR_getpid		39
#define RT_NR_getcwd		79
#define RT_NR_getrlimit		97
#define RT_NR_readlink		89
#define RT_NR_geteuid		107
#define RT_NR_getegid		108
#define RT_NR_fgetxattr		193
#define RT_NR_clock_gettime	228
#define RT_NR_rt_sigaction	13
#define RT_NR_rt_sigreturn	15
#define RT_NR_openat2		437
#define RT_NR_gettid		186
#define RT_NR_sched_yield	24
#define RT_NR_tgkill		234
#define RT_NR_pkey_mprotect	329

#define RT_O_RDONLY		0
#define RT_O_CLOEXEC		02000000
#define RT_O_DIRECTORY		0200000
#define RT_O_PATH		010000000
#define RT_O_NONBLOCK		04000
#define RT_O_NOCTTY		0400
#define RT_PROT_READ		1
#define RT_PROT_WRITE		2
#define RT_PROT_EXEC		4
#define RT_MAP_PRIVATE		0x02
#define RT_MAP_ANONYMOUS	0x20
#define RT_MAP_FIXED		0x10
#define RT_PAGE_SIZE		4096	/* x86-64's base page */
#define RT_MAP_FIXED_NOREPLACE	0x100000
#define RT_MADV_NOHUGEPAGE	15
#define RT_R_OK			4
#define RT_X_OK			1
#define RT_ENOENT		2
#define RT_ESRCH		3
#define RT_EINTR		4
#define RT_ENOTDIR		20
#define RT_EINVAL		22
#define RT_EFAULT		14

static inline long rt_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define rt_syscall(n, a, b, c) rt_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)

static inline long rt_open(const char *path, int flags)
{
	return rt_syscall(RT_NR_open, path, flags, 0);
}

static inline long rt_close(int fd) { return rt_syscall(RT_NR_close, fd, 0, 0); }

static inline long rt_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return rt_syscall6(RT_NR_pread64, fd, (long)buf, (long)n, (long)off, 0, 0);
}

/* The size of the file open on @fd, or -errno (struct stat: st_size at byte 48). */
static inline long rt_fsize(int fd)
{
	uint64_t st[18];
	long r = rt_syscall(RT_NR_fstat, fd, st, 0);

	return r < 0 ? r : (long)st[6];
}

/* What of struct stat (x86-64 layout) xoload uses. */
struct rt_stat {
	uint32_t mode, uid, gid;
	uint64_t size;
};

static inline long rt_stat_of(long nr, long arg, struct rt_stat *out)
{
	uint64_t st[18];
	long r = rt_syscall(nr, arg, st, 0);

	if (r < 0)
		return r;
	out->mode = (uint32_t)st[3];		/* st_mode at byte 24 */
	out->uid = (uint32_t)(st[3] >> 32);	/* st_uid at 28 */
	out->gid = (uint32_t)st[4];		/* st_gid at 32 */
	out->size = st[6];			/* st_size at 48 */
	return 0;
}

static inline long rt_fstat(int fd, struct rt_stat *st) { return rt_stat_of(RT_NR_fstat, fd, st); }
static inline long rt_stat(const char *path, struct rt_stat *st) { return rt_stat_of(RT_NR_stat, (long)path, st); }
static inline long rt_lstat(const char *path, struct rt_stat *st) { return rt_stat_of(RT_NR_lstat, (long)path, st); }

#define RT_S_IFMT	0170000
#define RT_S_IFREG	0100000
#define RT_S_IFDIR	0040000
#define RT_S_ISUID	04000
#define RT_S_ISGID	02000
#define RT_S_IXGRP	00010

static inline long rt_mmap(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t off)
{
	return rt_syscall6(RT_NR_mmap, (long)addr, (long)len, prot, flags, fd, (long)off);
}

/* A system call's result that is an error (-4095..-1), not an address. */
static inline int rt_failed(long r) { return r < 0 && r > -4096; }

static inline long rt_munmap(uint64_t addr, uint64_t len) { return rt_syscall(RT_NR_munmap, addr, len, 0); }

static inline long rt_read(int fd, void *buf, size_t n)
{
	return rt_syscall(RT_NR_read, fd, buf, n);
}

static inline long rt_write(int fd, const void *buf, size_t n)
{
	return rt_syscall(RT_NR_write, fd, buf, n);
}

static inline long rt_mprotect(uint64_t addr, uint64_t len, int prot)
{
	return rt_syscall(RT_NR_mprotect, addr, len, prot);
}

/*
 * pkey_mprotect() with an explicit key: the kernel's xonly mode leaves
 * such a mapping alone (carve.c), and key 0 makes a page readable again.
 */
static inline long rt_pkey_mprotect(uint64_t addr, uint64_t len, int prot, int pkey)
{
	return rt_syscall6(RT_NR_pkey_mprotect, (long)addr, (long)len, prot, pkey, 0, 0);
}

/* CLOCK_MONOTONIC in ns (a system call: no vDSO here). */
static inline uint64_t rt_clock_ns(void)
{
	uint64_t ts[2] = { 0, 0 };

	rt_syscall(RT_NR_clock_gettime, 1, ts, 0);
	return ts[0] * 1000000000ull + ts[1];
}

/* @a rounded down, and up, to x86-64's base page. */
static inline uint64_t rt_page_down(uint64_t a) { return a & ~(uint64_t)(RT_PAGE_SIZE - 1); }
static inline uint64_t rt_page_up(uint64_t a) { return rt_page_down(a + RT_PAGE_SIZE - 1); }

/* The linker's bounds of this object's .bss (xoload's, or the module's). */
extern char __bss_start[] __attribute__((visibility("hidden")));
extern char _end[] __attribute__((visibility("hidden")));

/*
 * Small state that every run reads and writes, put in .data instead of
 * .bss: .data is a few hundred bytes on one page that ld.so writes anyway
 * (it clears the rest of that page, where .bss begins), whereas in .bss
 * each file's scalars sit between its big static buffers, on pages of
 * their own - one page fault each, two where the first access is a read
 * (the zero page, then a copy).  For scalars only: not for buffers.
 */
#define RT_HOT __attribute__((section(".data.rt_hot")))

/*
 * For a big static buffer of which a run writes the head (a plan, an
 * image, an entry): page-aligned, the head lies on one page of .bss, not
 * across two as at most other addresses (one fault less per buffer).
 */
#define RT_PAGE_ALIGNED __attribute__((aligned(4096)))

/*
 * Small pages for this object's .bss, asked before the first write to it.
 * The .bss holds the static buffers of a code without malloc (plans, the
 * safety net's pages: 3.5 MB in xoload, 2 MB in the module), of which a
 * run writes a few pages.  Where transparent huge pages are "always"
 * (Debian's kernels), the first write into a 2 MB-aligned stretch of it
 * faults in a whole huge page that the kernel clears: 2 MB written and
 * kept for a few bytes, in most runs of xoload (whether the stretch is
 * there depends on the load address).  Under TCG that was 4-8 ms in
 * about half the starts.  Ignored if it fails: only the cost depends on
 * it, and a kernel without THP says EINVAL.
 */
static inline void rt_bss_small_pages(void)
{
	uint64_t start = rt_page_down((uint64_t)__bss_start), end = rt_page_up((uint64_t)_end);

	rt_syscall(RT_NR_madvise, start, end - start, RT_MADV_NOHUGEPAGE);
}

static inline __attribute__((noreturn)) void rt_exit_group(int status)
{
	for (;;)
		rt_syscall(RT_NR_exit_group, status, 0, 0);
}

#endif
