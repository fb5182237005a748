// SPDX-License-Identifier: GPL-2.0
/*
 * ldpatch.c - a copy of ld.so that xoload's hook (XOLOAD_HOOK=1) must
 * refuse, and that still runs programs without it (tests/xoload/hook.sh):
 *   ldpatch name SRC DST   _dl_debug_state renamed in .dynstr (nothing
 *                          imports it: ld.so calls it directly);
 *   ldpatch slot SRC DST   a second "ret" right after the function's
 *                          "ret": the byte the hook would overwrite is no
 *                          longer padding;
 *   ldpatch old SRC DST    __rseq_offset renamed (libc imports only
 *                          __rseq_size): an ld.so that looks older than
 *                          glibc 2.35 to the hook, which then leaves the
 *                          job to the audit module;
 *   ldpatch nocall SRC DST every direct call (e8 rel32) to _dl_debug_state
 *                          in ld.so's code made a 5-byte nop: an ld.so that
 *                          never calls the hook, whose gate must stop PROG
 *                          (tests/xoload/hook_edges.sh);
 *   ldpatch nocons SRC DST only the calls right after a store of
 *                          RT_CONSISTENT (0) into r_state ("movl $0,
 *                          0x18(%reg)": r_debug's r_state is at 24): ld.so
 *                          calls the hook with RT_ADD, never consistent.
 * nocall and nocons print how many calls they took out.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char *buf;
static size_t len;

static int die(const char *msg)
{
	fprintf(stderr, "ldpatch: %s\n", msg);
	return 1;
}

/*
 * Every "call rel32" in an executable PT_LOAD whose target is @target (a
 * virtual address of the file), or (@consistent_only) only those right
 * after "movl $0, 0x18(%reg)" ([REX] c7 4r 18 00 00 00 00), made
 * "nopl 0x0(%rax,%rax,1)".  The number of calls patched.
 */
static int nop_calls(uint64_t target, int consistent_only)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
	int k, n = 0;

	for (k = 0; k < eh->e_phnum; k++) {
		uint64_t off, end;

		if (ph[k].p_type != PT_LOAD || !(ph[k].p_flags & PF_X) || ph[k].p_offset + ph[k].p_filesz > len)
			continue;
		end = ph[k].p_offset + ph[k].p_filesz;
		for (off = ph[k].p_offset + 7; off + 5 <= end; off++) {
			const unsigned char *p = buf + off;
			int32_t rel;

			if (p[0] != 0xe8)
				continue;
			memcpy(&rel, p + 1, 4);
			if (ph[k].p_vaddr + (off - ph[k].p_offset) + 5 + (int64_t)rel != target)
				continue;
			if (consistent_only && !(p[-7] == 0xc7 && (p[-6] & 0xf8) == 0x40 && p[-6] != 0x44 && p[-5] == 0x18 &&
						 !p[-4] && !p[-3] && !p[-2] && !p[-1]))
				continue;
			memcpy(buf + off, nop5, sizeof(nop5));
			n++;
		}
	}
	printf("ldpatch: %d calls to _dl_debug_state taken out\n", n);
	return n;
}

int main(int argc, char **argv)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *dynsym = NULL;
	const Elf64_Phdr *ph;
	const Elf64_Sym *sym;
	const char *str;
	struct stat st;
	size_t i, n;
	int fd;

	const char *want;

	if (argc != 4 || (strcmp(argv[1], "name") && strcmp(argv[1], "slot") && strcmp(argv[1], "old") &&
			  strcmp(argv[1], "nocall") && strcmp(argv[1], "nocons")))
		return die("usage: ldpatch name|slot|old|nocall|nocons SRC DST");
	want = strcmp(argv[1], "old") ? "_dl_debug_state" : "__rseq_offset";
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size)) || read(fd, buf, st.st_size) != st.st_size)
		return die("cannot read SRC");
	close(fd);
	len = (size_t)st.st_size;
	eh = (const Elf64_Ehdr *)buf;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_shoff + eh->e_shnum * sizeof(*sh) > len)
		return die("SRC is not an ELF file with section headers");
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	if (!dynsym || dynsym->sh_link >= eh->e_shnum)
		return die("SRC has no .dynsym");
	sym = (const Elf64_Sym *)(buf + dynsym->sh_offset);
	str = (const char *)buf + sh[dynsym->sh_link].sh_offset;
	n = dynsym->sh_size / sizeof(*sym);
	for (i = 1; i < n && strcmp(str + sym[i].st_name, want); i++)
		;
	if (i == n)
		return die("SRC does not export the symbol to patch");
	if (!strcmp(argv[1], "nocall") || !strcmp(argv[1], "nocons")) {
		if (!nop_calls(sym[i].st_value, !strcmp(argv[1], "nocons")))
			return die("no call to _dl_debug_state found");
	} else if (strcmp(argv[1], "slot")) {
		/* _dl_debug_statf, __rseq_offsef */
		buf[sh[dynsym->sh_link].sh_offset + sym[i].st_name + strlen(want) - 1] = 'f';
	} else {
		ph = (const Elf64_Phdr *)(buf + eh->e_phoff);
		for (n = 0; n < eh->e_phnum; n++)
			if (ph[n].p_type == PT_LOAD && sym[i].st_value >= ph[n].p_vaddr &&
			    sym[i].st_value - ph[n].p_vaddr < ph[n].p_filesz)
				break;
		if (n == eh->e_phnum)
			return die("_dl_debug_state is in no PT_LOAD");
		n = sym[i].st_value - ph[n].p_vaddr + ph[n].p_offset;
		if (buf[n + sym[i].st_size - 1] != 0xc3)
			return die("_dl_debug_state does not end in ret");
		buf[n + sym[i].st_size] = 0xc3;
	}
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd))
		return die("cannot write DST");
	return 0;
}
