// SPDX-License-Identifier: GPL-2.0
/*
 * ehframe.c - read the CIEs and FDEs of .eh_frame (LSB 5.0 "Exception
 * Frames"), only as far as the FDE address ranges need.
 *
 * Strict on purpose: whatever this does not understand (64-bit lengths, a
 * pointer encoding other than absolute or pc-relative, an augmentation
 * that is neither empty nor "z...", a read past a record) makes the whole
 * section unreadable for the rule, and the object stays readable.  Every
 * object of Debian's /usr uses "zR" with pcrel|sdata4 (0x1b).
 */
#include <stdbool.h>

#include "ehframe.h"

struct rd {
	const uint8_t *b;
	size_t i, end;		/* read position and end of the record */
	bool bad;
};

static uint64_t rd_fixed(struct rd *r, unsigned int len)
{
	uint64_t v = 0;
	unsigned int k;

	if (r->bad || r->end - r->i < len) {
		r->bad = true;
		return 0;
	}
	for (k = 0; k < len; k++)
		v |= (uint64_t)r->b[r->i + k] << (8 * k);
	r->i += len;
	return v;
}

static uint64_t rd_leb(struct rd *r, bool sign)
{
	uint64_t v = 0;
	unsigned int shift = 0, k;
	uint8_t c = 0x80;

	for (k = 0; k < 10 && (c & 0x80); k++) {
		c = (uint8_t)rd_fixed(r, 1);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (c & 0x80) {
		r->bad = true;
		return 0;
	}
	if (sign && shift < 64 && (c & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/* A value in pointer encoding @enc (format part only; the caller applies pcrel). */
static uint64_t rd_enc(struct rd *r, uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x0: case 0x4: return rd_fixed(r, 8);
	case 0x1: return rd_leb(r, false);
	case 0x2: return rd_fixed(r, 2);
	case 0x3: return rd_fixed(r, 4);
	case 0x9: return rd_leb(r, true);
	case 0xa: return (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
	case 0xb: return (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
	case 0xc: return rd_fixed(r, 8);
	}
	r->bad = true;
	return 0;
}

/* Only absolute (0x00) and pc-relative (0x10) values, never indirect. */
static bool enc_ok(uint8_t enc)
{
	return (enc & 0x70) <= 0x10 && !(enc & 0x80);
}

/* Start record at @o: its end in *@end, its id field's offset in *@id_at; false if malformed or a terminator. */
static bool record(const uint8_t *b, size_t n, size_t o, size_t *end, size_t *id_at, bool *term)
{
	struct rd r = { b, o, n, false };
	uint64_t len = rd_fixed(&r, 4);

	*term = false;
	if (r.bad)
		return false;
	if (len == 0) {
		*term = true;
		return false;
	}
	if (len == 0xffffffff || len > n - r.i || len < 4)
		return false;
	*id_at = r.i;
	*end = r.i + (size_t)len;
	return true;
}

/* The FDE pointer encoding of the CIE at @o; false if it is no CIE the rule reads. */
static bool cie_encoding(const uint8_t *b, size_t n, size_t o, uint8_t *fde_enc)
{
	struct rd r = { b, 0, 0, false };
	size_t end, id_at, auglen_end, a;
	const char *aug;
	uint8_t ver;
	bool term;

	if (!record(b, n, o, &end, &id_at, &term))
		return false;
	r.i = id_at;
	r.end = end;
	if (rd_fixed(&r, 4) != 0)
		return false;
	ver = (uint8_t)rd_fixed(&r, 1);
	if (r.bad || (ver != 1 && ver != 3))
		return false;
	aug = (const char *)b + r.i;
	for (a = 0; r.i + a < end && aug[a]; a++)
		;
	if (r.i + a >= end)
		return false;
	r.i += a + 1;
	rd_leb(&r, false);			/* code alignment */
	rd_leb(&r, true);			/* data alignment */
	if (ver == 1)
		rd_fixed(&r, 1);		/* return address register */
	else
		rd_leb(&r, false);
	*fde_enc = 0x00;
	if (r.bad)
		return false;
	if (!aug[0])
		return true;
	if (aug[0] != 'z')
		return false;
	auglen_end = (size_t)rd_leb(&r, false);
	if (r.bad || auglen_end > end - r.i)
		return false;
	auglen_end += r.i;
	r.end = auglen_end;
	for (a = 1; aug[a]; a++) {
		uint8_t e;

		switch (aug[a]) {
		case 'R':
			*fde_enc = (uint8_t)rd_fixed(&r, 1);
			break;
		case 'P':
			e = (uint8_t)rd_fixed(&r, 1);
			if ((e & 0x70) == 0x50)
				return false;
			rd_enc(&r, e);
			break;
		case 'L':
			rd_fixed(&r, 1);
			break;
		case 'S': case 'B': case 'G':
			break;
		default:
			return !r.bad && enc_ok(*fde_enc);
		}
		if (r.bad)
			return false;
	}
	return enc_ok(*fde_enc);
}

long ehframe_walk(const uint8_t *b, size_t n, uint64_t addr,
		  void (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg)
{
	size_t o = 0, end, id_at, cached = (size_t)-1;
	uint8_t enc = 0;
	long fdes = 0;
	bool term;

	while (o < n) {
		struct rd r = { b, 0, 0, false };
		uint64_t id, lo, len;
		size_t cie;

		if (!record(b, n, o, &end, &id_at, &term))
			return term ? fdes : -1;
		r.i = id_at;
		r.end = end;
		id = rd_fixed(&r, 4);
		if (id) {
			if (id > id_at)
				return -1;
			cie = id_at - (size_t)id;
			if (cie != cached) {
				if (!cie_encoding(b, n, cie, &enc))
					return -1;
				cached = cie;
			}
			if (enc == 0xff)
				return -1;
			lo = rd_enc(&r, enc);
			if ((enc & 0x70) == 0x10)
				lo += addr + id_at + 4;
			len = rd_enc(&r, enc & 0x0f);
			if (r.bad)
				return -1;
			if (len && lo + len > lo)
				fn(arg, lo, lo + len);
			fdes++;
		}
		o = end;
	}
	return fdes;
}
