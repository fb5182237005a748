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

static inline int rt_memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

static inline void rt_memzero(void *p, size_t n)
{
	volatile char *c = p;	/* volatile: no call to memset from the compiler */

	while (n--)
		*c++ = 0;
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
