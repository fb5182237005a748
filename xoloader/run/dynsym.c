// SPDX-License-Identifier: GPL-2.0
/* dynsym.c - a dynamic symbol of a mapped object (dynsym.h). */
#include "dynsym.h"

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

const Elf64_Sym *xo_dyn_symbol(uint64_t bias, const Elf64_Dyn *dyn, const char *name)
{
	const Elf64_Dyn *d;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const uint32_t *hash = NULL, *gnu = NULL;
	uint64_t nsym = 0, i;

	if (!dyn)
		return NULL;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			str = (const char *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_HASH)
			hash = (const uint32_t *)dyn_ptr(bias, d->d_un.d_ptr);
		else if (d->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)dyn_ptr(bias, d->d_un.d_ptr);
	}
	if (!sym || !str)
		return NULL;
	if (hash) {
		nsym = hash[1];
	} else if (gnu) {
		/* The symbol count: past the last chain of the highest bucket. */
		const uint32_t *buckets = gnu + 4 + 2 * gnu[2], *chain;
		uint32_t top = 0;

		for (i = 0; i < gnu[0]; i++)
			if (buckets[i] > top)
				top = buckets[i];
		if (top) {
			chain = buckets + gnu[0] - gnu[1];
			while (!(chain[top] & 1))
				top++;
			nsym = top + 1;
		}
	}
	for (i = 1; i < nsym; i++)
		if (sym[i].st_shndx != SHN_UNDEF && sym[i].st_value && !rt_strcmp(str + sym[i].st_name, name))
			return &sym[i];
	return NULL;
}
