/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmt.h - the little of snprintf and strerror that the freestanding run
 * path needs for its one-line messages (no libc there: see README.md).
 */
#ifndef XOLOADER_RT_FMT_H
#define XOLOADER_RT_FMT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * snprintf for %s, %.*s, %c, %d, %u, %x, %lu, %lx, %llu, %llx and %%:
 * truncates, always terminates; returns the length it wanted (as snprintf).
 */
int rt_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rt_vfmt(char *buf, size_t len, const char *fmt, va_list ap);
/*
 * The strings up to a NULL, joined into @buf[@len]: rt_fmt("%s%s...")
 * without the formatter.  The run path's steps that succeed join strings
 * with this: under emulation (make bench's TCG VM) every instruction a run
 * executes is translated again at xoload's random address, so a run pays
 * for the formatter only when it has a message to print.
 */
int rt_cat(char *buf, size_t len, ...) __attribute__((sentinel));
/* @v in decimal, ended by @end (at least 21 bytes before it): the first digit. */
char *rt_dec(char *end, unsigned long long v);
/* glibc's text for @err, else "Unknown error N", as strerror(3). */
const char *rt_strerror(int err);

#endif
