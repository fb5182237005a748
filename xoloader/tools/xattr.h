/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xattr.h - xoload --set-xattr, --get-xattr, --clear-xattr (xoplan): the
 * plan the kernel applies, trusted.xonly (kernel/include/xonly/uapi.h);
 * --set-xattr --from-log (fromlog.c) builds on the rest of this.
 */
#ifndef XOLOADER_TOOLS_XATTR_H
#define XOLOADER_TOOLS_XATTR_H

#include <stddef.h>
#include <stdint.h>

#define XATTR_PAGE	4096u	/* the plan's unit: x86-64's page, as the kernel's */
#define XATTR_NOT_ELF	"not a 64-bit little-endian ELF file with at most 128 program headers"

struct xrange {
	uint64_t start, end;	/* file offsets, [start, end) */
};

/*
 * If argv[1] is one of the three options, do it for every FILE after it
 * and return the exit status (0, 1 if any FILE failed, 2 usage); else -1.
 */
int xattr_main(int argc, char **argv);

uint64_t xattr_page_up(uint64_t x);

/*
 * The pages of @fd (@size bytes) that the FDE planner keeps readable, by
 * file offset, sorted and merged, in @r (XONLY_PLAN_RANGES_MAX of them):
 * their number, or -1 with a reason in @err.
 */
int xattr_fde_ranges(int fd, uint64_t size, struct xrange *r, char *err, size_t errlen);

/*
 * The file ranges of @fd's PF_X PT_LOAD segments, ends rounded up to a
 * page, in @seg (at most @max): their number, or -1 if @fd is not an ELF
 * file as the kernel reads a build-id from (XATTR_NOT_ELF).
 */
int xattr_exec_segments(int fd, struct xrange *seg, int max);

/*
 * Set @r (@n ranges, page-aligned, sorted and merged) as the plan of @fd
 * (@size bytes), bound to its size and build-id, and say so on stdout as
 * "NAME: plan set, readable: ..."; no range removes the plan.  0, or 1
 * after a one-line error on stderr (no build-id, every page, too many
 * ranges, setxattr's errno: EPERM without CAP_SYS_ADMIN).
 */
int xattr_write_plan(const char *name, int fd, uint64_t size, const struct xrange *r, int n);

/* xoload --set-xattr --from-log LOG [--log-only] [FILE...]: argv from "--from-log" on (fromlog.c). */
int fromlog_main(int argc, char **argv);

#endif
