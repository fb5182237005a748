// SPDX-License-Identifier: GPL-2.0
/*
 * admit.c - the admission check of both readers (see admit.h).  Moved from
 * run/rtplan.c, so that the libelf reference no longer calls into the run
 * path for it: both readers call down to the rule.
 */
#include "admit.h"
#include "str.h"

static void fail(struct plan *p, const char *msg)
{
	rt_strlcpy(p->err, msg, sizeof(p->err));
}

/* Read exactly @n bytes at @off that lie within the file's @fsize bytes. */
bool plan_read_at(const struct admit_io *io, int fd, void *buf, uint64_t n, uint64_t off, uint64_t fsize)
{
	if (off > fsize || fsize - off < n)
		return false;
	return io->pread(fd, buf, n, off) == (long)n;
}

/*
 * The admission check (admit.h), as run/rtplan.c had it: what it refuses,
 * in this order, with these messages, is what tests/host/admission.sh and
 * the differential test (both readers refuse alike) pin down.
 */
int plan_admit(const struct admit_io *io, int fd, struct plan *p, struct admit_buf *b, uint64_t *fsizep)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b->head;
	uint64_t fsize, i, k, shnum;
	long n, fs;

	p->err[0] = 0;
	fs = io->fsize(fd);
	n = fs < 0 ? fs : io->pread(fd, b->head, sizeof(b->head), 0);
	if (n < (long)sizeof(Elf64_Ehdr) || b->head[0] != ELFMAG0 || b->head[1] != ELFMAG1 ||
	    b->head[2] != ELFMAG2 || b->head[3] != ELFMAG3 || b->head[EI_VERSION] != EV_CURRENT) {
		fail(p, "not an ELF file");
		return -1;
	}
	fsize = *fsizep = (uint64_t)fs;
	if (b->head[EI_CLASS] != ELFCLASS64 || b->head[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64) {
		fail(p, "not an x86-64 ELF file");
		return -1;
	}
	/*
	 * Only what is mapped can be planned or scanned: a relocatable object
	 * (.o, .ko) has no program headers to say what would be.
	 */
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
		fail(p, eh->e_type == ET_REL ? "a relocatable object (.o): nothing of it is mapped until it is linked" :
			"not an executable or shared object");
		return -1;
	}
	/* libelf: e_phoff 0 is no program header table. */
	if (eh->e_phnum == 0 || eh->e_phnum > ADMIT_MAX_PHNUM || eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phoff) {
		fail(p, "bad program header count");
		return -1;
	}
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= (uint64_t)n && eh->e_phoff < (uint64_t)n) {
		for (i = 0; i < eh->e_phnum * sizeof(Elf64_Phdr); i++)
			((unsigned char *)b->ph)[i] = b->head[eh->e_phoff + i];
	} else if (!plan_read_at(io, fd, b->ph, eh->e_phnum * sizeof(Elf64_Phdr), eh->e_phoff, fsize)) {
		fail(p, "program headers past the end of the file");
		return -1;
	}
	/* The plan walks a PF_X segment page by page: no segment larger than any real one. */
	for (i = 0; i < eh->e_phnum; i++)
		if (b->ph[i].p_type == PT_LOAD && b->ph[i].p_memsz > ADMIT_MAX_SEGMENT) {
			fail(p, "huge PT_LOAD");
			return -1;
		}
	/*
	 * A truncated file (a copy cut short, a download in progress): the
	 * pages past its end would not be what the object claims.  First, so
	 * that such a file gets this message and not that of the first table
	 * the cut happened to hit.
	 */
	for (i = 0; i < eh->e_phnum; i++)
		if (b->ph[i].p_type == PT_LOAD && (b->ph[i].p_offset > fsize || fsize - b->ph[i].p_offset < b->ph[i].p_filesz)) {
			fail(p, "a PT_LOAD extends past the end of the file (truncated?)");
			return -1;
		}
	for (i = 0; i < eh->e_phnum; i++)
		if (b->ph[i].p_type == PT_DYNAMIC &&
		    (b->ph[i].p_offset > fsize || fsize - b->ph[i].p_offset < b->ph[i].p_filesz ||
		     b->ph[i].p_filesz % sizeof(Elf64_Dyn))) {
			fail(p, "bad PT_DYNAMIC");
			return -1;
		}
	if (!eh->e_shoff)
		return 0;	/* no section headers: planned so */
	shnum = eh->e_shnum;
	if (shnum == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= shnum ||
	    eh->e_shoff > fsize || (fsize - eh->e_shoff) / sizeof(Elf64_Shdr) < shnum) {
		fail(p, "bad section header table");
		return -1;
	}
	/* Every section's bytes in the file; .shstrtab a string table that ends in NUL. */
	for (i = 0; i < shnum; i += k) {
		k = shnum - i < ADMIT_MAX_SECTS + 1 ? shnum - i : ADMIT_MAX_SECTS + 1;
		if (!plan_read_at(io, fd, b->sh, k * sizeof(Elf64_Shdr), eh->e_shoff + i * sizeof(Elf64_Shdr), fsize)) {
			fail(p, "bad section header table");
			return -1;
		}
		for (uint64_t j = 0; j < k; j++) {
			const Elf64_Shdr *sh = &b->sh[j];

			if (sh->sh_type != SHT_NOBITS && (sh->sh_offset > fsize || fsize - sh->sh_offset < sh->sh_size)) {
				fail(p, "a section extends past the end of the file");
				return -1;
			}
			if (i + j == eh->e_shstrndx && eh->e_shstrndx) {
				char last = 0;

				/* SHF_COMPRESSED: libelf would read the names decompressed. */
				if (sh->sh_type != SHT_STRTAB || !sh->sh_size || (sh->sh_flags & SHF_COMPRESSED) ||
				    !plan_read_at(io, fd, &last, 1, sh->sh_offset + sh->sh_size - 1, fsize) || last) {
					fail(p, "bad section name table");
					return -1;
				}
			}
		}
	}
	return 0;
}

