/* SPDX-License-Identifier: GPL-2.0 */
/*
 * objprotect.h - plan and protect one object that ld.so mapped: what the
 * audit module does in la_objopen() (audit.c) and xoload's ld.so hook does
 * at each consistent link map (hook.c).
 */
#ifndef XOLOADER_RUN_OBJPROTECT_H
#define XOLOADER_RUN_OBJPROTECT_H

#include <stdbool.h>
#include <stdint.h>

#include "sys.h"

struct plan;
struct xoc_net;

struct xo_objprotect {
	unsigned long flags;	/* XOF_* (xoload.h) */
	bool kernel_mode;	/* the kernel made the code execute-only: carve data back */
	bool net_on;		/* watch the net pages (net.h) */
	void (*scan)(const char *path, const char *tag);	/* --scan, or NULL */
	struct plan *plan;	/* where each object's plan is made: the user's, to share its pages */
	struct xoc_net *net;	/* and its net pages (NULL: the plan cache's own buffer) */
};

/* One line "xoload: A B" on stderr; control characters become '?'. */
void xo_say(const char *a, const char *b);
/* That line, then exit status 126. */
void xo_refuse(const char *a, const char *b) __attribute__((noreturn));

/*
 * An object's file, opened read-only for xo_protect_object(): its
 * descriptor or -errno.  O_NONBLOCK: a FIFO put at the object's path after
 * ld.so mapped the file would otherwise block the open until a writer came
 * (a hang); opened, it fails the plan's reads and the process stops (126).
 */
static inline long xo_open_object(const char *path)
{
	return rt_open(path, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
}

/*
 * Plan the file @path, open on @fd (negative: it could not be opened;
 * closed here), named @name in messages (@tag prefixes the report), and
 * apply the plan to its mapping at @bias with dynamic section @ld.
 * Fail closed: an object that cannot be opened, planned, identified as the
 * file ld.so mapped or protected stops the process (126, one line), unless
 * XOF_PERMISSIVE (a warning; its code stays readable).  Returns its safety
 * net cookie (net.h), or 0.  Not reentrant: ld.so calls both users under
 * its lock.
 */
uint32_t xo_protect_object(const struct xo_objprotect *o, const char *path, long fd, const char *name,
			   const char *tag, uint64_t bias, uint64_t ld);

#endif
