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
#define RT_NR_mprotect		10
#define RT_NR_munmap		11
#define RT_NR_fork		57
#define RT_NR_execve		59
#define RT_NR_exit		60
#define RT_NR_wait4		61
#define RT_NR_dup2		33
#define RT_NR_prctl		157
#define RT_NR_exit_group	231

#define RT_O_RDONLY		0
#define RT_O_CLOEXEC		02000000
#define RT_PROT_READ		1
#define RT_PROT_WRITE		2
#define RT_PROT_EXEC		4
#define RT_MAP_PRIVATE		0x02
#define RT_MAP_ANONYMOUS	0x20

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

static inline long rt_write(int fd, const void *buf, size_t n)
{
	return rt_syscall(RT_NR_write, fd, buf, n);
}

static inline long rt_mprotect(uint64_t addr, uint64_t len, int prot)
{
	return rt_syscall(RT_NR_mprotect, addr, len, prot);
}

static inline __attribute__((noreturn)) void rt_exit_group(int status)
{
	for (;;)
		rt_syscall(RT_NR_exit_group, status, 0, 0);
}

#endif
