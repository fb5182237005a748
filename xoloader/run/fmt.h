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
/* glibc's text for @err, else "Unknown error N", as strerror(3). */
const char *rt_strerror(int err);

#endif
