/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xonly_sys.h - raw wrappers for the system calls the xonly series adds.
 *
 * glibc's pkey_get()/pkey_set() emulate the calls with RDPKRU/WRPKRU in
 * user space; these enter the kernel.  They return -1 and set errno
 * (ENOSYS on a kernel without the series), like syscall(2).
 */
#ifndef XONLY_SYS_H
#define XONLY_SYS_H

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xonly/uapi.h>

static inline int sys_pkey_get(int pkey, unsigned long flags)
{
	return (int)syscall(XONLY_NR_pkey_get, pkey, flags);
}

static inline int sys_pkey_set(int pkey, unsigned long rights, unsigned long flags)
{
	return (int)syscall(XONLY_NR_pkey_set, pkey, rights, flags);
}

/* prctl(XONLY_PR_SET_XONLY, ...) and prctl(XONLY_PR_GET_XONLY, ...) */
static inline int xonly_set(unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	return prctl(XONLY_PR_SET_XONLY, a2, a3, a4, a5);
}

static inline int xonly_get(unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	return prctl(XONLY_PR_GET_XONLY, a2, a3, a4, a5);
}

/*
 * Enter xonly mode: PR_SET_XONLY 1, or 2 at the strict level (xonly=strict,
 * which cannot be lowered: SET 1 is EPERM there).  Learn mode (3, under
 * xonly=learn) ranks below 1 and is ended by it: the code is then
 * execute-only for good, as the callers expect.  Returns what PR_SET_XONLY
 * returns.
 */
static inline int xonly_enter(void)
{
	int level = xonly_get(0, 0, 0, 0);

	return xonly_set(level == 2 ? 2 : 1, 0, 0, 0);
}

#endif
