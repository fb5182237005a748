// SPDX-License-Identifier: GPL-2.0
/*
 * tools/sametest.c - xosametest, the host tests' view of the audit
 * module's identity check (run/sameobj.c, tests/host/sameobj.sh):
 *
 *   xosametest [-n] LIB FILE
 *       dlopen()s LIB (ld.so maps it, as it does for the module) and asks
 *       xo_same_object() whether FILE is the object mapped: prints "same"
 *       (status 0) or "differs: WHY" (status 1); 2 if LIB or FILE cannot
 *       be opened.  -n first makes LIB's first page unreadable
 *       (PROT_NONE), as xoload --kernel leaves the header page of a
 *       -z noseparate-code object, so that the dynamic-section comparison
 *       is what answers.
 *
 * LIB is relocated by the time the check runs here (la_objopen() sees it
 * before): only read-only, non-TEXTREL objects compare whole.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../run/sameobj.h"

int main(int argc, char **argv)
{
	struct link_map *map = NULL;
	const char *why = "";
	int noread = argc > 1 && !strcmp(argv[1], "-n"), fd, r;
	void *h, *first = NULL;

	if (argc != 3 + noread) {
		fputs("usage: xosametest [-n] LIB FILE\n", stderr);
		return 2;
	}
	h = dlopen(argv[1 + noread], RTLD_NOW | RTLD_LOCAL);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) || !map) {
		fprintf(stderr, "xosametest: %s: %s\n", argv[1 + noread], dlerror());
		return 2;
	}
	fd = open(argv[2 + noread], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[2 + noread]);
		return 2;
	}
	if (noread) {
		/* The page ld.so mapped the ELF header to: the lowest PT_LOAD's. */
		const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map->l_addr;
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(map->l_addr + eh->e_phoff);

		for (int i = 0; i < eh->e_phnum && !first; i++)
			if (ph[i].p_type == PT_LOAD && !ph[i].p_offset)
				first = (void *)(map->l_addr + ph[i].p_vaddr);
		if (!first || mprotect(first, 4096, PROT_NONE)) {
			perror("xosametest: mprotect");
			return 2;
		}
	}
	r = xo_same_object(fd, map->l_addr, (uint64_t)map->l_ld, &why);
	if (first)
		mprotect(first, 4096, PROT_READ);
	if (r)
		printf("differs: %s\n", why);
	else
		puts("same");
	return r ? 1 : 0;
}
