// SPDX-License-Identifier: GPL-2.0
/*
 * codebytes.c - the code-byte measure of a plan (codebytes.h).
 */
#include <stddef.h>

#include "codebytes.h"

void code_bytes(Elf *e, const struct plan *const *p, int n, uint64_t *code, uint64_t *xo)
{
	Elf_Scn *scn = NULL;
	int k, r;

	*code = 0;
	for (k = 0; k < n; k++)
		xo[k] = 0;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		*code += sh.sh_size;
		for (k = 0; k < n; k++)
			for (r = 0; r < p[k]->n; r++) {
				uint64_t a = p[k]->r[r].start > sh.sh_addr ? p[k]->r[r].start : sh.sh_addr;
				uint64_t b = p[k]->r[r].end < sh.sh_addr + sh.sh_size ? p[k]->r[r].end
										   : sh.sh_addr + sh.sh_size;

				if (p[k]->r[r].xo && a < b)
					xo[k] += b - a;
			}
	}
}
