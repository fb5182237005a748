// SPDX-License-Identifier: GPL-2.0
/*
 * run/carve.c - plans applied to memory (see carve.h); the --kernel carve-out.
 *
 * In the kernel's xonly exec mode every file-backed PROT_READ|PROT_EXEC
 * mapping gets the execute-only key, including the pages of libcrypto's
 * .text that hold its tables: SHA-256 would fault on its first K256
 * load.  mprotect(PROT_READ|PROT_EXEC) would be turned execute-only again
 * by the same mode; pkey_mprotect() with key 0 is not (the mode leaves an
 * explicit key alone), so the data pages get the default key back and
 * read.  No libc: this runs inside ld.so's audit namespace.
 */
#include <elf.h>

#include "carve.h"
#include "sys.h"

#define PROT_READ_EXEC		(RT_PROT_READ | RT_PROT_EXEC)

long rt_carve(const struct plan *p, uint64_t bias)
{
	long r;
	int i;

	for (i = 0; i < p->n; i++) {
		if (p->r[i].xo)
			continue;
		r = rt_pkey_mprotect(p->r[i].start + bias, p->r[i].end - p->r[i].start, PROT_READ_EXEC, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

long rt_apply(const struct plan *p, uint64_t bias)
{
	long r;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->r[i].xo && (r = rt_mprotect(p->r[i].start + bias, p->r[i].end - p->r[i].start, RT_PROT_EXEC)))
			return r;
	return 0;
}

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));

long rt_protect_self(void)
{
	const Elf64_Ehdr *eh = &__ehdr_start;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	uint64_t base = (uint64_t)eh, a, e;
	long r;
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		a = rt_page_down(base + ph[i].p_vaddr);
		e = rt_page_up(base + ph[i].p_vaddr + ph[i].p_memsz);
		r = rt_mprotect(a, e - a, RT_PROT_EXEC);
		if (r)
			return r;
	}
	return 0;
}
