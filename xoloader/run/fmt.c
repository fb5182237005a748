// SPDX-License-Identifier: GPL-2.0
/*
 * fmt.c - rt_fmt() and rt_strerror(): the messages of the freestanding run
 * path read as they did when xoload had a libc (the tests compare them).
 */
#include "fmt.h"

#include <stdint.h>

struct out { char *b; size_t len, n; };

static void put(struct out *o, char c)
{
	if (o->n + 1 < o->len)
		o->b[o->n] = c;
	o->n++;
}

static void put_u(struct out *o, unsigned long long v, unsigned int base)
{
	char d[24];
	int i = 0;

	do {
		d[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i)
		put(o, d[--i]);
}

int rt_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
	struct out o = { buf, len, 0 };

	for (; *fmt; fmt++) {
		int lng = 0, prec = -1;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		if (fmt[0] == '.' && fmt[1] == '*') {
			prec = va_arg(ap, int);
			fmt += 2;
		}
		while (*fmt == 'l') {
			lng++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			while (*s && prec--)
				put(&o, *s++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			long long v = lng ? (lng > 1 ? va_arg(ap, long long) : va_arg(ap, long)) : va_arg(ap, int);

			if (v < 0) {
				put(&o, '-');
				put_u(&o, 0ull - (unsigned long long)v, 10);
			} else {
				put_u(&o, (unsigned long long)v, 10);
			}
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = lng ? (lng > 1 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned long))
						   : va_arg(ap, unsigned int);

			put_u(&o, v, *fmt == 'x' ? 16 : 10);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:	/* not ours to format: show it, do not guess */
			put(&o, '%');
			if (!*fmt)
				fmt--;
			else
				put(&o, *fmt);
		}
	}
	if (len)
		buf[o.n < len ? o.n : len - 1] = 0;
	return (int)o.n;
}

int rt_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vfmt(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

const char *rt_strerror(int err)
{
	static const struct { int n; const char *s; } t[] = {
		{ 1, "Operation not permitted" },
		{ 2, "No such file or directory" },
		{ 4, "Interrupted system call" },
		{ 5, "Input/output error" },
		{ 7, "Argument list too long" },
		{ 8, "Exec format error" },
		{ 9, "Bad file descriptor" },
		{ 11, "Resource temporarily unavailable" },
		{ 12, "Cannot allocate memory" },
		{ 13, "Permission denied" },
		{ 14, "Bad address" },
		{ 16, "Device or resource busy" },
		{ 17, "File exists" },
		{ 19, "No such device" },
		{ 20, "Not a directory" },
		{ 21, "Is a directory" },
		{ 22, "Invalid argument" },
		{ 23, "Too many open files in system" },
		{ 24, "Too many open files" },
		{ 26, "Text file busy" },
		{ 27, "File too large" },
		{ 28, "No space left on device" },
		{ 36, "File name too long" },
		{ 38, "Function not implemented" },
		{ 40, "Too many levels of symbolic links" },
		{ 61, "No data available" },
		{ 75, "Value too large for defined data type" },
		{ 95, "Operation not supported" },
	};
	static char other[24];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].n == err)
			return t[i].s;
	rt_fmt(other, sizeof(other), "Unknown error %d", err);
	return other;
}
