// SPDX-License-Identifier: GPL-2.0
/*
 * movephdrs IN OUT [--property] - a copy of the ELF object IN whose
 * program headers lie in code, as BOLT leaves Rust's librustc_driver and
 * libLLVM: the table is copied, with one more entry, to a page of its own
 * at the end of the file, and that entry is a PT_LOAD with PF_R|PF_X that
 * maps the page past the highest segment; e_phoff points there, PT_PHDR
 * (if any) too.  ld.so then reads the program headers from that code
 * segment (l_phdr), and in the kernel's xonly mode it maps it
 * execute-only like any other (tests/xoload/kernel_headers.sh).  With
 * --property the PT_GNU_PROPERTY note (and the PT_NOTE that shows the
 * same bytes) is copied to a second page of that segment, which ld.so
 * reads next.  A build-time tool: exit 1 with a line on anything it does
 * not expect.
 */
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096ul

static void die(const char *what)
{
	fprintf(stderr, "movephdrs: %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph, *np;
	unsigned char *d;
	size_t n, off, i, j, last = 0;
	uint64_t end = 0;
	FILE *f;

	bool prop = argc == 4 && !strcmp(argv[3], "--property");
	Elf64_Phdr gp = { 0 };

	if (argc != 3 && !prop)
		die("usage: movephdrs IN OUT [--property]");
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(n = (size_t)ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read IN");
	d = malloc(n);
	if (!d || fread(d, 1, n, f) != n)
		die("cannot read IN");
	fclose(f);
	if (n < sizeof(eh))
		die("IN is too short");
	memcpy(&eh, d, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum || eh.e_phoff > n ||
	    n - eh.e_phoff < (size_t)eh.e_phnum * sizeof(Elf64_Phdr))
		die("IN is not a 64-bit ELF object with program headers");
	ph = (Elf64_Phdr *)(d + eh.e_phoff);
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_GNU_PROPERTY)
			gp = ph[i];
	if (prop && (!gp.p_filesz || gp.p_filesz > PAGE || gp.p_offset > n || n - gp.p_offset < gp.p_filesz))
		die("--property: IN has no PT_GNU_PROPERTY of at most a page");
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			last = i;
			if (ph[i].p_vaddr + ph[i].p_memsz > end)
				end = ph[i].p_vaddr + ph[i].p_memsz;
		}
	if (!end)
		die("IN has no PT_LOAD");

	/* The new table: the old one with a PT_LOAD after the last one. */
	off = (n + PAGE - 1) & ~(PAGE - 1);
	np = calloc(eh.e_phnum + 1u, sizeof(*np));
	if (!np)
		die("out of memory");
	for (i = j = 0; i < eh.e_phnum; i++) {
		np[j++] = ph[i];
		if (i == last) {
			np[j].p_type = PT_LOAD;
			np[j].p_flags = PF_R | PF_X;
			np[j].p_offset = off;
			np[j].p_vaddr = np[j].p_paddr = (end + PAGE - 1) & ~(PAGE - 1);
			np[j].p_filesz = np[j].p_memsz = prop ? PAGE + gp.p_filesz : (eh.e_phnum + 1u) * sizeof(*np);
			np[j].p_align = PAGE;
			j++;
		}
	}
	for (i = 0; i < j; i++)
		if (np[i].p_type == PT_PHDR) {
			np[i].p_offset = off;
			np[i].p_vaddr = np[i].p_paddr = (end + PAGE - 1) & ~(PAGE - 1);
			np[i].p_filesz = np[i].p_memsz = j * sizeof(*np);
		}
	/* The note on the segment's second page: PT_GNU_PROPERTY and the PT_NOTE of the same bytes. */
	for (i = 0; prop && i < j; i++)
		if ((np[i].p_type == PT_GNU_PROPERTY || np[i].p_type == PT_NOTE) && np[i].p_offset == gp.p_offset) {
			np[i].p_offset = off + PAGE;
			np[i].p_vaddr = np[i].p_paddr = ((end + PAGE - 1) & ~(PAGE - 1)) + PAGE;
		}
	eh.e_phoff = off;
	eh.e_phnum++;
	memcpy(d, &eh, sizeof(eh));

	f = fopen(argv[2], "wb");
	if (!f || fwrite(d, 1, n, f) != n)
		die("cannot write OUT");
	for (i = n; i < off; i++)
		if (fputc(0, f) == EOF)
			die("cannot write OUT");
	if (fwrite(np, sizeof(*np), j, f) != j)
		die("cannot write OUT");
	for (i = j * sizeof(*np); prop && i < PAGE; i++)
		if (fputc(0, f) == EOF)
			die("cannot write OUT");
	if ((prop && fwrite(d + gp.p_offset, 1, gp.p_filesz, f) != gp.p_filesz) || fclose(f))
		die("cannot write OUT");
	return 0;
}
