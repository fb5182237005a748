/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rule/str.h - the few string functions of the freestanding code: the
 * rule's (admit.c) and the run path's.  Named rt_* so that the host
 * programs that link the same code with a libc
 * (tests/host/xoload_plandiff.sh) see no clash.
 */
#ifndef XOLOADER_RULE_STR_H
#define XOLOADER_RULE_STR_H

#include <stddef.h>
#include <stdint.h>

static inline size_t rt_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static inline int rt_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

static inline int rt_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

/*
 * Eight bytes at a time, unaligned (x86-64), none past @n: the run path
 * compares and clears whole pages per object (a file's first page, the
 * rest of a segment's last file page), where a byte loop was most of its
 * own CPU time.
 */
typedef uint64_t __attribute__((may_alias, aligned(1))) rt_word_u;

static inline int rt_memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	while (i + 8 <= n && *(const rt_word_u *)(x + i) == *(const rt_word_u *)(y + i))
		i += 8;
	for (; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
}

/* Volatile stores: no call to memset from the compiler, and not dropped as dead (a wipe). */
static inline void rt_memzero(void *p, size_t n)
{
	unsigned char *c = p;
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(volatile rt_word_u *)(c + i) = 0;
	for (; i < n; i++)
		*(volatile unsigned char *)(c + i) = 0;
}

/* @src into @dst[@len] like snprintf("%s"): truncated, always terminated. */
static inline void rt_strlcpy(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	if (len)
		dst[i] = 0;
}

/* The value of "@name=..." in the NULL-ended @env (an envp), or NULL: getenv without a libc. */
static inline const char *rt_env_in(char *const *env, const char *name)
{
	size_t n = rt_strlen(name);

	for (; env && *env; env++)
		if (!rt_strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

#endif
