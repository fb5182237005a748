// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static const char *tap_suite = "test";
static int tap_count, tap_failed;
/* Results may come from helper threads; keep each line whole. */
static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;

void tap_init(const char *suite)
{
	tap_suite = suite;
	setvbuf(stdout, NULL, _IONBF, 0);
}

static void tap_line(const char *status, const char *directive, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&tap_lock);
	tap_count++;
	printf("%s %d - %s: ", status, tap_count, tap_suite);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	putchar('\n');
	pthread_mutex_unlock(&tap_lock);
}

bool tap_ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(pass ? "ok" : "not ok", NULL, fmt, ap);
	va_end(ap);
	if (!pass)
		__atomic_add_fetch(&tap_failed, 1, __ATOMIC_RELAXED);
	return pass;
}

void tap_skip(const char *reason, const char *fmt, ...)
{
	char directive[256];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", reason);
	va_start(ap, fmt);
	tap_line("ok", directive, fmt, ap);
	va_end(ap);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&tap_lock);
	printf("# %s: ", tap_suite);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	pthread_mutex_unlock(&tap_lock);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line("not ok", NULL, fmt, ap);
	va_end(ap);
	tap_failed++;
	exit(tap_done());
}

const char *errname(int err)
{
	const char *s = err ? strerrorname_np(err) : NULL;

	return s ? s : err ? "unknown errno" : "0";
}

int tap_done(void)
{
	printf("1..%d\n", tap_count);
	printf("# %s: %d passed, %d failed\n", tap_suite, tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}
