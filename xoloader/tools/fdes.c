// SPDX-License-Identifier: GPL-2.0
/*
 * fdes.c - see fdes.h.  A range that no single PF_X segment maps whole is
 * not swept: its bytes would be a guess (it is not code the kernel maps
 * executable from one file window).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fdes.h"

void fdes_add(void *arg, uint64_t lo, uint64_t hi)
{
	struct fdes *f = arg;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		f->r = realloc(f->r, f->cap * sizeof(*f->r));
		if (!f->r) {
			perror("fdes");
			exit(2);
		}
	}
	f->r[f->n][0] = lo;
	f->r[f->n][1] = hi;
	f->n++;
}

const uint8_t *fdes_bytes(Elf *e, const uint8_t *img, uint64_t size, uint64_t lo, uint64_t hi)
{
	size_t k, phnum;

	if (elf_getphdrnum(e, &phnum))
		return NULL;
	for (k = 0; k < phnum; k++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)k, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (lo >= ph.p_vaddr && hi <= ph.p_vaddr + ph.p_filesz && ph.p_offset + ph.p_filesz <= size)
			return img + ph.p_offset + (lo - ph.p_vaddr);
	}
	return NULL;
}
