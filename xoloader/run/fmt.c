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

int rt_cat(char *buf, size_t len, ...)
{
	struct out o = { buf, len, 0 };
	const char *s;
	va_list ap;

	va_start(ap, len);
	while ((s = va_arg(ap, const char *)))
		while (*s)
			put(&o, *s++);
	va_end(ap);
	if (len)
		buf[o.n < len ? o.n : len - 1] = 0;
	return (int)o.n;
}

char *rt_dec(char *end, unsigned long long v)
{
	*end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

const char *rt_strerror(int err)
{
	/* glibc 2.36's texts, errno 1 to 133 (tests/host/fmt.sh compares them with strerror). */
	static const struct { int n; const char *s; } t[] = {
		{ 1, "Operation not permitted" },
		{ 2, "No such file or directory" },
		{ 3, "No such process" },
		{ 4, "Interrupted system call" },
		{ 5, "Input/output error" },
		{ 6, "No such device or address" },
		{ 7, "Argument list too long" },
		{ 8, "Exec format error" },
		{ 9, "Bad file descriptor" },
		{ 10, "No child processes" },
		{ 11, "Resource temporarily unavailable" },
		{ 12, "Cannot allocate memory" },
		{ 13, "Permission denied" },
		{ 14, "Bad address" },
		{ 15, "Block device required" },
		{ 16, "Device or resource busy" },
		{ 17, "File exists" },
		{ 18, "Invalid cross-device link" },
		{ 19, "No such device" },
		{ 20, "Not a directory" },
		{ 21, "Is a directory" },
		{ 22, "Invalid argument" },
		{ 23, "Too many open files in system" },
		{ 24, "Too many open files" },
		{ 25, "Inappropriate ioctl for device" },
		{ 26, "Text file busy" },
		{ 27, "File too large" },
		{ 28, "No space left on device" },
		{ 29, "Illegal seek" },
		{ 30, "Read-only file system" },
		{ 31, "Too many links" },
		{ 32, "Broken pipe" },
		{ 33, "Numerical argument out of domain" },
		{ 34, "Numerical result out of range" },
		{ 35, "Resource deadlock avoided" },
		{ 36, "File name too long" },
		{ 37, "No locks available" },
		{ 38, "Function not implemented" },
		{ 39, "Directory not empty" },
		{ 40, "Too many levels of symbolic links" },
		{ 42, "No message of desired type" },
		{ 43, "Identifier removed" },
		{ 44, "Channel number out of range" },
		{ 45, "Level 2 not synchronized" },
		{ 46, "Level 3 halted" },
		{ 47, "Level 3 reset" },
		{ 48, "Link number out of range" },
		{ 49, "Protocol driver not attached" },
		{ 50, "No CSI structure available" },
		{ 51, "Level 2 halted" },
		{ 52, "Invalid exchange" },
		{ 53, "Invalid request descriptor" },
		{ 54, "Exchange full" },
		{ 55, "No anode" },
		{ 56, "Invalid request code" },
		{ 57, "Invalid slot" },
		{ 59, "Bad font file format" },
		{ 60, "Device not a stream" },
		{ 61, "No data available" },
		{ 62, "Timer expired" },
		{ 63, "Out of streams resources" },
		{ 64, "Machine is not on the network" },
		{ 65, "Package not installed" },
		{ 66, "Object is remote" },
		{ 67, "Link has been severed" },
		{ 68, "Advertise error" },
		{ 69, "Srmount error" },
		{ 70, "Communication error on send" },
		{ 71, "Protocol error" },
		{ 72, "Multihop attempted" },
		{ 73, "RFS specific error" },
		{ 74, "Bad message" },
		{ 75, "Value too large for defined data type" },
		{ 76, "Name not unique on network" },
		{ 77, "File descriptor in bad state" },
		{ 78, "Remote address changed" },
		{ 79, "Can not access a needed shared library" },
		{ 80, "Accessing a corrupted shared library" },
		{ 81, ".lib section in a.out corrupted" },
		{ 82, "Attempting to link in too many shared libraries" },
		{ 83, "Cannot exec a shared library directly" },
		{ 84, "Invalid or incomplete multibyte or wide character" },
		{ 85, "Interrupted system call should be restarted" },
		{ 86, "Streams pipe error" },
		{ 87, "Too many users" },
		{ 88, "Socket operation on non-socket" },
		{ 89, "Destination address required" },
		{ 90, "Message too long" },
		{ 91, "Protocol wrong type for socket" },
		{ 92, "Protocol not available" },
		{ 93, "Protocol not supported" },
		{ 94, "Socket type not supported" },
		{ 95, "Operation not supported" },
		{ 96, "Protocol family not supported" },
		{ 97, "Address family not supported by protocol" },
		{ 98, "Address already in use" },
		{ 99, "Cannot assign requested address" },
		{ 100, "Network is down" },
		{ 101, "Network is unreachable" },
		{ 102, "Network dropped connection on reset" },
		{ 103, "Software caused connection abort" },
		{ 104, "Connection reset by peer" },
		{ 105, "No buffer space available" },
		{ 106, "Transport endpoint is already connected" },
		{ 107, "Transport endpoint is not connected" },
		{ 108, "Cannot send after transport endpoint shutdown" },
		{ 109, "Too many references: cannot splice" },
		{ 110, "Connection timed out" },
		{ 111, "Connection refused" },
		{ 112, "Host is down" },
		{ 113, "No route to host" },
		{ 114, "Operation already in progress" },
		{ 115, "Operation now in progress" },
		{ 116, "Stale file handle" },
		{ 117, "Structure needs cleaning" },
		{ 118, "Not a XENIX named type file" },
		{ 119, "No XENIX semaphores available" },
		{ 120, "Is a named type file" },
		{ 121, "Remote I/O error" },
		{ 122, "Disk quota exceeded" },
		{ 123, "No medium found" },
		{ 124, "Wrong medium type" },
		{ 125, "Operation canceled" },
		{ 126, "Required key not available" },
		{ 127, "Key has expired" },
		{ 128, "Key has been revoked" },
		{ 129, "Key was rejected by service" },
		{ 130, "Owner died" },
		{ 131, "State not recoverable" },
		{ 132, "Operation not possible due to RF-kill" },
		{ 133, "Memory page has hardware error" },
	};
	static char other[24];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].n == err)
			return t[i].s;
	rt_fmt(other, sizeof(other), "Unknown error %d", err);
	return other;
}
