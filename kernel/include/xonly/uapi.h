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
 * has not allocated, the execute-only key included; ENOSYS on a kernel
 * without the series.  The calls never change or report the rights of
 * the execute-only key; user space can still change them with WRPKRU
 * (glibc's pkey_set() is one), so the key keeps code from an attacker who
 * can read memory, not from one who has diverted control flow.
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
 * xonly mode: prctl(XONLY_PR_SET_XONLY, 1, 0, 0, 0) makes the file-backed
 * code of the calling process execute-only from then on: mmap() and
 * mprotect() of a regular file (a memfd included) asked to be executable
 * and not writable, PROT_READ|PROT_EXEC among them, give the mapping the
 * process's execute-only key, exactly as PROT_EXEC alone would, and so
 * does execve() for the PF_X segments of the program and its interpreter.
 * Anonymous memory, private or shared, is not affected.  The flag belongs
 * to the address space (MMF_XONLY): all threads share it, fork() copies
 * it, execve() keeps it, and it cannot be cleared.
 *
 * prctl(XONLY_PR_SET_XONLY, XONLY_PR_XONLY_STRICT, 0, 0, 0) enters it at
 * the strict level, or raises it there: no system call runs while the
 * execute-only key is open (the process is killed by SIGSEGV, si_code
 * SEGV_PKUERR, si_pkey the key, and the kernel logs it), the key is
 * closed again on every return to user space (sigreturn frames and
 * PTRACE_SETREGSET cannot open it), and mprotect()/pkey_mprotect() of
 * execute-only file-backed code fail with EPERM unless they keep it
 * execute-only.  With arg3 XONLY_PR_XONLY_EXEC_CARVE, the programs the
 * process executes from then on (not itself) may still give such code the
 * default key back with pkey_mprotect(PROT_READ|PROT_EXEC, 0), as
 * xoload --kernel's audit module does for data in text.
 * prctl(XONLY_PR_GET_XONLY, 0, 0, 0, 0) returns the level,
 * 0, 1, 2 or 3 (learn mode, below).  The boot parameters xonly=on and xonly=strict set it for
 * every process.
 *
 * Errors of XONLY_PR_SET_XONLY: EINVAL for any other argument than 1, 2
 * or 3, arg3 not 0 or XONLY_PR_XONLY_EXEC_CARVE, or arg4, arg5 not 0; EPERM
 * for 0 once the flag is set, and for a level below the one the process
 * has; EOPNOTSUPP on a CPU without protection keys (or booted with nopku); ENOSPC when no
 * execute-only key can be had (pkey_alloc() took all of them; the key is
 * allocated by this call).  In xonly mode, mmap() and mprotect() of code
 * fail with ENOSPC rather than map it readable.  XONLY_PR_GET_XONLY:
 * EINVAL if arg2..arg5 are not 0.  Both: EINVAL on a kernel without the
 * series.
 */
#define XONLY_PR_SET_XONLY	0x584f0001
#define XONLY_PR_GET_XONLY	0x584f0002
#define XONLY_PR_XONLY_OFF	0	/* the levels PR_GET_XONLY returns */
#define XONLY_PR_XONLY_ON	1
#define XONLY_PR_XONLY_STRICT	2
#define XONLY_PR_XONLY_EXEC_CARVE	1	/* arg3 of PR_SET_XONLY */

/*
 * Learn mode (patch 0070): prctl(XONLY_PR_SET_XONLY, XONLY_PR_XONLY_LEARN,
 * 0, 0, 0) is xonly mode, except that a data read by user mode of
 * file-backed code that xonly mode made execute-only does not raise
 * SIGSEGV: the kernel makes that page readable (key 0) in this address
 * space, logs "xonly learn: comm=... pid=... file=... offset=... size=...
 * ip_file=... ip_offset=..." and runs the instruction again.
 * XONLY_PR_GET_XONLY returns XONLY_PR_XONLY_LEARN then.  It ranks below
 * level 1 whatever its number: levels 1 and 2 end it, and asking for it
 * at either is EPERM (there is no strict learn mode); without protection
 * keys EOPNOTSUPP.  fork() and execve() keep it.  The boot parameter
 * xonly=learn sets it for every process; strict, then on, then learn wins.
 */
#define XONLY_PR_XONLY_LEARN	3

/*
 * Plans (kernel/wip/KVER/0072, not in the series yet): the extended
 * attribute XONLY_PLAN_XATTR of a file names the pages of it that xonly
 * mode keeps readable (key 0) when it maps the file as code; only
 * CAP_SYS_ADMIN sets trusted.* attributes.  The value, numbers
 * little-endian: "XOPL", the version (1 byte), the build-id's length L
 * (1 byte, 1 to XONLY_PLAN_ID_MAX), the number of ranges N (16 bits, 1 to
 * XONLY_PLAN_RANGES_MAX), the file's size (64 bits), its GNU build-id (L
 * bytes), then N ranges [start, end) of file offsets (64 bits each):
 * page-aligned, start < end <= the size rounded up to a page, sorted and
 * merged (no two overlap or touch), not all of the file.  Anything else,
 * or a plan whose size or build-id is not the file's, is ignored with the
 * log line "xonly plan: comm=C pid=P file=F ignored: REASON".
 */
#define XONLY_PLAN_XATTR	"trusted.xonly"
#define XONLY_PLAN_MAGIC	"XOPL"
#define XONLY_PLAN_VERSION	1
#define XONLY_PLAN_HDR		16
#define XONLY_PLAN_ID_MAX	64
#define XONLY_PLAN_RANGES_MAX	256

#if defined(PR_SET_XONLY) && PR_SET_XONLY != XONLY_PR_SET_XONLY
#error "PR_SET_XONLY from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(PR_GET_XONLY) && PR_GET_XONLY != XONLY_PR_GET_XONLY
#error "PR_GET_XONLY from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(PR_XONLY_LEARN) && PR_XONLY_LEARN != XONLY_PR_XONLY_LEARN
#error "PR_XONLY_LEARN from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(PR_XONLY_STRICT) && PR_XONLY_STRICT != XONLY_PR_XONLY_STRICT
#error "PR_XONLY_STRICT from the kernel headers disagrees with xonly/uapi.h"
#endif
#if defined(PR_XONLY_EXEC_CARVE) && PR_XONLY_EXEC_CARVE != XONLY_PR_XONLY_EXEC_CARVE
#error "PR_XONLY_EXEC_CARVE from the kernel headers disagrees with xonly/uapi.h"
#endif

#endif /* XONLY_UAPI_H */
