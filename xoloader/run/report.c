// SPDX-License-Identifier: GPL-2.0
/* run/report.c - the --report lines without libc (see report.h). */
#include "../rule/str.h"
#include "report.h"
#include "sys.h"

static void put_c(struct rt_line *l, char c)
{
	if (l->n < sizeof(l->b) - 1)
		l->b[l->n++] = c;
}

void rt_put(struct rt_line *l, const char *s)
{
	while (*s)
		put_c(l, *s++);
}

void rt_put_hex(struct rt_line *l, uint64_t v)
{
	char d[16];
	int k = 0;

	do
		d[k++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	while (k)
		put_c(l, d[--k]);
}

void rt_put_dec(struct rt_line *l, uint64_t v)
{
	char d[20];
	int k = 0;

	do
		d[k++] = (char)('0' + v % 10);
	while (v /= 10);
	while (k)
		put_c(l, d[--k]);
}

size_t rt_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL ends it too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, a surrogate, past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

static void put_esc(struct rt_line *l, const char *pre, unsigned char c)
{
	rt_put(l, pre);
	put_c(l, "0123456789abcdef"[c >> 4]);
	put_c(l, "0123456789abcdef"[c & 15]);
}

void rt_put_json(struct rt_line *l, const char *s)
{
	size_t n;

	put_c(l, '"');
	/*
	 * Paths are bytes, JSON is UTF-8: a byte that is not part of a valid
	 * UTF-8 sequence goes out as \udcXX, a lone surrogate, as Python's
	 * surrogateescape (PEP 383) decodes it, and json.loads() reads it back
	 * that way (os.fsencode() gives the original bytes).
	 */
	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			put_c(l, '\\');
			put_c(l, (char)c);
			s++;
		} else if (c < 0x20 || c == 0x7f) {
			put_esc(l, "\\u00", c);
			s++;
		} else if (!(n = rt_utf8_len(s))) {
			put_esc(l, "\\udc", c);
			s++;
		} else {
			while (n--)
				put_c(l, *s++);
		}
	}
	put_c(l, '"');
}

void rt_put_safe(struct rt_line *l, const char *s)
{
	size_t n;

	while (*s) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || !(n = rt_utf8_len(s))) {
			put_esc(l, "\\x", c);
			s++;
		} else {
			while (n--)
				put_c(l, *s++);
		}
	}
}

const char *rt_safe(const char *s)
{
	static struct rt_line l[2];
	static int k;
	struct rt_line *b = &l[k ^= 1];

	b->n = 0;
	rt_put_safe(b, s);
	b->b[b->n] = 0;
	return b->b;
}

int rt_report_fd = 2;

void rt_flush_fd(struct rt_line *l, int fd)
{
	l->b[l->n++] = '\n';
	(void)rt_write(fd, l->b, l->n);
	l->n = 0;
}

void rt_flush(struct rt_line *l)
{
	rt_flush_fd(l, rt_report_fd);
}

void rt_report_plan(const char *obj, const struct plan *p, uint64_t bias, enum report_fmt fmt)
{
	static struct rt_line l;
	int i;

	for (i = 0; i < p->n; i++) {
		const struct plan_range *r = &p->r[i];

		l.n = 0;
		if (fmt == REPORT_JSON) {
			rt_put(&l, "{\"object\":");
			rt_put_json(&l, obj);
			rt_put(&l, ",\"start\":");
			rt_put_dec(&l, r->start + bias);
			rt_put(&l, ",\"end\":");
			rt_put_dec(&l, r->end + bias);
			rt_put(&l, r->xo ? ",\"xo\":true,\"why\":" : ",\"xo\":false,\"why\":");
			rt_put_json(&l, r->why);
			if (r->sect[0]) {
				/* Data in text: which section, where in it and how much. */
				rt_put(&l, ",\"section\":");
				rt_put_json(&l, r->sect);
				rt_put(&l, ",\"offset\":");
				rt_put_dec(&l, r->soff);
				rt_put(&l, ",\"size\":");
				rt_put_dec(&l, r->ssize);
			}
			rt_put(&l, "}");
		} else if (fmt == REPORT_TSV) {
			rt_put(&l, obj);
			rt_put(&l, "\t");
			rt_put_hex(&l, r->start + bias);
			rt_put(&l, "\t");
			rt_put_hex(&l, r->end + bias);
			rt_put(&l, r->xo ? "\txo\t" : "\treadable\t");
			rt_put(&l, r->why);
			if (r->sect[0]) {
				rt_put(&l, "\t");
				rt_put(&l, r->sect);
				rt_put(&l, "\t");
				rt_put_hex(&l, r->soff);
				rt_put(&l, "\t");
				rt_put_dec(&l, r->ssize);
			}
		} else {
			rt_put(&l, "xoload: ");
			rt_put_safe(&l, obj);
			rt_put(&l, " 0x");
			rt_put_hex(&l, r->start + bias);
			rt_put(&l, "-0x");
			rt_put_hex(&l, r->end + bias);
			rt_put(&l, r->xo ? " xo " : " readable ");
			rt_put(&l, r->why);
			if (r->sect[0]) {
				rt_put(&l, " (");
				rt_put(&l, r->sect);
				rt_put(&l, "+0x");
				rt_put_hex(&l, r->soff);
				rt_put(&l, ", ");
				rt_put_dec(&l, r->ssize);
				rt_put(&l, " bytes)");
			}
		}
		rt_flush(&l);
	}
}

void rt_report_json_note(const char *obj, const char *why)
{
	static struct rt_line l;

	l.n = 0;
	rt_put(&l, "{\"object\":");
	rt_put_json(&l, obj);
	rt_put(&l, ",\"xo\":false,\"why\":");
	rt_put_json(&l, why);
	rt_put(&l, "}");
	rt_flush(&l);
}

void rt_time(const char *event, const char *obj, uint64_t ns)
{
	static struct rt_line l;

	l.n = 0;
	rt_put(&l, "xoload: time: ");
	rt_put(&l, event);
	if (obj) {
		rt_put(&l, " ");
		rt_put_safe(&l, obj);
	}
	rt_put(&l, " ");
	rt_put_dec(&l, ns);
	rt_flush_fd(&l, 2);
}

bool rt_times RT_HOT;

void rt_step(const char *event, const char *obj)
{
	if (rt_times)
		rt_time(event, obj, rt_clock_ns());
}
