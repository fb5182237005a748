/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xonly/uapi.h - the one header through which user space reaches the
 * interfaces that the xonly kernel series adds (kernel/patches/).
 *
 * The numbers here must equal the ones in the series'
 * arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/linux/prctl.h;
 * scripts/build-kernel checks them against the patched kernel's generated
 * asm/unistd_64.h and its prctl.h.
 */
#ifndef XONLY_UAPI_H
#define XONLY_UAPI_H

/*
 * pkey_get(pkey, flags) and pkey_set(pkey, access_rights, flags): read and
 * change the calling thread's PKEY_DISABLE_ACCESS / PKEY_DISABLE_WRITE
 * rights for one key.  The original series used 332 and 333, which are
 * statx and io_pgetevents upstream; 1000 and 1001 are far above every
 * number an upstream kernel has assigned.
 *
 * Errors: EINVAL for flags != 0, rights outside PKEY_ACCESS_MASK or a key
 * outside the hardware range; EBADF for a key in range that the process
 * has not allocated; ENOSYS on a kernel without the series.
 */
#define XONLY_NR_pkey_get	1000
#define XONLY_NR_pkey_set	1001

#if defined(__NR_pkey_get) && __NR_pkey_get != XONLY_NR_pkey_get
#error "__NR_pkey_get from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(__NR_pkey_set) && __NR_pkey_set != XONLY_NR_pkey_set
#error "__NR_pkey_set from the kernel headers disagrees with xonly/uapi.h"
#endif

/*
 * xonly mode: prctl(XONLY_PR_SET_XONLY, 1, 0, 0, 0) makes the calling
 * task's file-backed code execute-only from then on: mmap() and mprotect()
 * of a file with PROT_READ|PROT_EXEC (and without PROT_WRITE) give the
 * process's execute-only key instead, and so does execve() for the PF_X
 * segments of the program and its interpreter.  The flag is per task, like
 * no_new_privs: fork() and clone() copy it, execve() keeps it, so set it
 * before creating threads or just before execve().
 * prctl(XONLY_PR_GET_XONLY, 0, 0, 0, 0) returns 0 or 1.  The boot
 * parameter xonly=on sets it for every task.
 *
 * Errors: EPERM for XONLY_PR_SET_XONLY with 0 once the flag is set (it
 * cannot be cleared); EINVAL for any other argument than 1 (or 0, 0, 0, 0
 * for GET), and on a kernel without the series.
 */
#define XONLY_PR_SET_XONLY	0x584f0001
#define XONLY_PR_GET_XONLY	0x584f0002

#if defined(PR_SET_XONLY) && PR_SET_XONLY != XONLY_PR_SET_XONLY
#error "PR_SET_XONLY from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(PR_GET_XONLY) && PR_GET_XONLY != XONLY_PR_GET_XONLY
#error "PR_GET_XONLY from the kernel headers disagrees with xonly/uapi.h"
#endif

#endif /* XONLY_UAPI_H */
