/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xonly/uapi.h - the one header through which user space reaches the
 * interfaces that the xonly kernel series adds (kernel/patches/).
 *
 * The numbers here must equal the ones in the series'
 * arch/x86/entry/syscalls/syscall_64.tbl; scripts/build-kernel checks
 * them against the patched kernel's generated asm/unistd_64.h.
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

#endif /* XONLY_UAPI_H */
