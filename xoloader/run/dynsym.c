// SPDX-License-Identifier: GPL-2.0
/* dynsym.c - a dynamic symbol of a mapped object (dynsym.h). */
#include "dynsym.h"

#include <stdbool.h>

#include "../rule/str.h"

/*
 * A dynamic-table address: ld.so relocates its own table and those of the
 * objects it maps in place on x86-64 (absolute then), the preloader sees
 * ld.so's before that (relative to @bias).
 */
static uint64_t dyn_ptr(uint64_t bias, uint64_t v)
{
	return v < bias ? v + bias : v;
}

/*
 * [lo, hi): the last range @end said may be read.  The tables lie in one
 * or two segments and are read entry by entry: asking @end (a walk of the
 * program headers) for each entry was a tenth of what xoload runs.
 */
struct bounds { xo_readable_end_fn end; const void *ctx; uint64_t lo, hi; };

/* [@p, @p + @n) may be read, or nothing is checked. */
static bool inside(const void *p, uint64_t n, struct bounds *b)
{
	uint64_t a = (uint64_t)p, e;

	if (!b->end)
		return true;
	if (a >= b->lo && a < b->hi && n <= b->hi - a)
		return true;
	e = b->end(b->ctx, a);
	if (e <= a)
		return false;
	b->lo = a;
	b->hi = e;
	return n <= e - a;
}

/* A NUL-ended string at @s that may be read whole. */
static bool string_inside(const char *s, struct bounds *b)
{
	uint64_t e;

	if (!b->end)
		return true;
	if (!inside(s, 1, b))
		return false;
	for (e = b->hi; (uint64_t)s < e; s++)
		if (!*s)
			return true;
	return false;
}

const Elf64_Sym *xo_dyn_symbol(uint64_t bias, const Elf64_Dyn *dyn, const char *name,
			       xo_readable_end_fn readable_end, const void *ctx)
{
	struct bounds b = { readable_end, ctx, 0, 0 };
	const Elf64_Dyn *d;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const uint32_t *hash = NULL, *gnu = NULL;
	uint64_t nsym = 0, i;

	if (!dyn)
		return NULL;
	for (d = dyn; inside(d, sizeof(*d), &b) && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			str = (const char *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_HASH)
			hash = (const uint32_t *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)dyn_ptr(bias, d->d_un.d_ptr);
	}
	if (!inside(d, sizeof(*d), &b) || !sym || !str)
		return NULL;
	if (hash) {
		if (!inside(hash, 8, &b))
			return NULL;
		nsym = hash[1];
	} else if (gnu) {
		/* The symbol count: past the last chain of the highest bucket. */
		const uint32_t *buckets, *chain;
		uint32_t top = 0;

		if (!inside(gnu, 16, &b))
			return NULL;
		buckets = gnu + 4 + 2 * (uint64_t)gnu[2];
		if (!inside(buckets, 4 * (uint64_t)gnu[0], &b))
			return NULL;
		for (i = 0; i < gnu[0]; i++)
			if (buckets[i] > top)
				top = buckets[i];
		if (top) {
			if (top < gnu[1])
				return NULL;
			chain = buckets + gnu[0] - gnu[1];
			while (inside(&chain[top], 4, &b) && !(chain[top] & 1))
				top++;
			if (!inside(&chain[top], 4, &b))
				return NULL;
			nsym = top + 1;
		}
	}
	for (i = 1; i < nsym; i++) {
		if (!inside(&sym[i], sizeof(sym[i]), &b))
			return NULL;
		if (sym[i].st_shndx == SHN_UNDEF || !sym[i].st_value || !string_inside(str + sym[i].st_name, &b))
			continue;
		if (!rt_strcmp(str + sym[i].st_name, name))
			return &sym[i];
	}
	return NULL;
}
