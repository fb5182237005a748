// SPDX-License-Identifier: GPL-2.0
/*
 * rt/rtplan.c - elfplan_build()'s plan from a minimal ELF reader, without
 * libc or libelf (see rtplan.h).  Where libelf is lenient with a corrupt
 * file (a program header table that runs past the end of the file is cut
 * to what fits, a section header table that does not fit is no table,
 * a section name that is not a string is no name), this reader does the
 * same thing on purpose: the two must agree on every file.
 */
#include <elf.h>

#include "rtplan.h"
#include "str.h"
#include "sys.h"

#define MAX_PHNUM	64
#define MAX_SECTS	512

struct sect { uint64_t off, end; uint32_t name; bool exec; };

static struct {
	unsigned char head[4096];	/* ELF header and, usually, the program headers */
	Elf64_Phdr ph[MAX_PHNUM];
	Elf64_Shdr sh[MAX_SECTS + 1];	/* a window of the section header table */
	struct sect s[MAX_SECTS];
	char names[16384];		/* .shstrtab, when it fits */
} b;

static void fail(struct plan *p, const char *msg)
{
	rt_strlcpy(p->err, msg, sizeof(p->err));
}

static void add_range(struct plan *p, uint64_t a, uint64_t e, bool xo, const char *why)
{
	struct plan_range *r = p->n ? &p->r[p->n - 1] : NULL;

	if (r && r->end == a && r->xo == xo && !rt_strcmp(r->why, why)) {
		r->end = e;
		return;
	}
	if (p->n == PLAN_MAX_RANGES) {
		r = &p->r[p->n - 1];
		r->end = e;
		r->xo = false;
		rt_strlcpy(r->why, "too many ranges", sizeof(r->why));
		return;
	}
	r = &p->r[p->n++];
	r->start = a;
	r->end = e;
	r->xo = xo;
	rt_strlcpy(r->why, why, sizeof(r->why));
}

static bool overlaps(uint64_t a, uint64_t e, uint64_t c, uint64_t d)
{
	return a < d && c < e;
}

/* Read exactly @n bytes at @off that lie within the file's @fsize bytes. */
static bool read_at(int fd, void *buf, uint64_t n, uint64_t off, uint64_t fsize)
{
	if (off > fsize || fsize - off < n)
		return false;
	return rt_pread(fd, buf, n, off) == (long)n;
}

/* DT_TEXTREL or DF_TEXTREL in the PT_DYNAMIC at file [off, off+size). */
static bool has_textrel(int fd, uint64_t off, uint64_t size, uint64_t fsize)
{
	Elf64_Dyn d[256];
	uint64_t n = size / sizeof(Elf64_Dyn), i, k;

	if (off > fsize || fsize - off < size)
		return false;	/* libelf's rawchunk fails: no TEXTREL seen */
	for (i = 0; i < n; i += k) {
		k = n - i < 256 ? n - i : 256;
		if (!read_at(fd, d, k * sizeof(Elf64_Dyn), off + i * sizeof(Elf64_Dyn), fsize))
			return false;
		for (uint64_t j = 0; j < k; j++) {
			if (d[j].d_tag == DT_NULL)
				return false;
			if (d[j].d_tag == DT_TEXTREL || (d[j].d_tag == DT_FLAGS && (d[j].d_un.d_val & DF_TEXTREL)))
				return true;
		}
	}
	return false;
}

/* The section name at @off of the string table section @st, as elf_strptr() gives it. */
static const char *sect_name(int fd, const Elf64_Shdr *st, bool names_loaded, uint32_t off,
			     uint64_t fsize, char *buf, size_t len)
{
	uint64_t o, k;

	if (!st || st->sh_type != SHT_STRTAB || off >= st->sh_size)
		return NULL;
	if (st->sh_offset > fsize || fsize - st->sh_offset < st->sh_size)
		return NULL;	/* the table itself is not in the file */
	if (names_loaded) {
		for (o = off; o < st->sh_size; o++)
			if (!b.names[o])
				return b.names + off;
		return NULL;
	}
	/* Too big to keep: read the name (and find its end) in pieces. */
	for (o = off; o < st->sh_size; o += k) {
		k = st->sh_size - o < len ? st->sh_size - o : len;
		if (!read_at(fd, buf, k, st->sh_offset + o, fsize))
			return NULL;
		for (uint64_t i = 0; i < k; i++)
			if (!buf[i]) {
				if (o == off)
					return buf;
				/* A name longer than @buf: the reason is cut to 47 bytes anyway. */
				return read_at(fd, buf, len - 1, st->sh_offset + off, fsize) ?
				       (buf[len - 1] = 0, buf) : NULL;
			}
	}
	return NULL;
}

int rtplan_build(int fd, size_t ps, struct plan *p)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b.head;
	const Elf64_Shdr *strsh = NULL;
	uint64_t fsize, shnum = 0, shstrndx = 0, ns = 0, i, phnum;
	bool have_shdrs = true, names_loaded = false, more = false;
	char namebuf[64];
	long n, fs;

	p->n = 0;
	p->textrel = false;
	p->err[0] = 0;
	fs = rt_fsize(fd);
	n = fs < 0 ? fs : rt_pread(fd, b.head, sizeof(b.head), 0);
	if (n < EI_NIDENT || b.head[0] != ELFMAG0 || b.head[1] != ELFMAG1 || b.head[2] != ELFMAG2 ||
	    b.head[3] != ELFMAG3 || (b.head[EI_CLASS] != ELFCLASS32 && b.head[EI_CLASS] != ELFCLASS64) ||
	    (b.head[EI_DATA] != ELFDATA2LSB && b.head[EI_DATA] != ELFDATA2MSB) ||
	    b.head[EI_VERSION] != EV_CURRENT ||
	    n < (b.head[EI_CLASS] == ELFCLASS64 ? (long)sizeof(Elf64_Ehdr) : (long)sizeof(Elf32_Ehdr))) {
		fail(p, "not an ELF file");
		return -1;
	}
	fsize = (uint64_t)fs;
	if (b.head[EI_CLASS] != ELFCLASS64 || b.head[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64) {
		fail(p, "not an x86-64 ELF file");
		return -1;
	}

	/* Section headers first: PN_XNUM program header counts live in section 0. */
	if (eh->e_shoff) {
		Elf64_Shdr s0;

		shnum = eh->e_shnum;
		if (read_at(fd, &s0, sizeof(s0), eh->e_shoff, fsize)) {
			if (!shnum)
				shnum = s0.sh_size;
		} else {
			shnum = 0;
		}
		if (eh->e_shoff > fsize || (fsize - eh->e_shoff) / sizeof(Elf64_Shdr) < shnum)
			shnum = 0;	/* libelf: a table that does not fit is no table */
	}

	phnum = eh->e_phnum;
	if (phnum == PN_XNUM && shnum) {
		Elf64_Shdr s0;

		phnum = read_at(fd, &s0, sizeof(s0), eh->e_shoff, fsize) ? s0.sh_info : 0;
	}
	/* libelf cuts a table that runs past the end of the file to what fits. */
	if (eh->e_phoff > fsize)
		phnum = 0;
	else if ((fsize - eh->e_phoff) / sizeof(Elf64_Phdr) < phnum)
		phnum = (fsize - eh->e_phoff) / sizeof(Elf64_Phdr);
	if (phnum == 0 || phnum > MAX_PHNUM) {
		fail(p, "bad program header count");
		return -1;
	}
	if (eh->e_phoff + phnum * sizeof(Elf64_Phdr) <= (uint64_t)n) {
		for (i = 0; i < phnum * sizeof(Elf64_Phdr); i++)
			((unsigned char *)b.ph)[i] = b.head[eh->e_phoff + i];
	} else if (!read_at(fd, b.ph, phnum * sizeof(Elf64_Phdr), eh->e_phoff, fsize)) {
		fail(p, "unreadable program header 0");
		return -1;
	}
	for (i = 0; i < phnum; i++)
		if (b.ph[i].p_type == PT_DYNAMIC && has_textrel(fd, b.ph[i].p_offset, b.ph[i].p_filesz, fsize))
			p->textrel = true;

	/* The section header table, 512 kept sections at most (elfplan's limit). */
	if (shnum) {
		shstrndx = eh->e_shstrndx;
		if (shstrndx == SHN_XINDEX) {
			Elf64_Shdr s0;

			if (read_at(fd, &s0, sizeof(s0), eh->e_shoff, fsize))
				shstrndx = s0.sh_link;
			else
				have_shdrs = false;
		}
	}
	if (have_shdrs && shnum > 1) {
		uint64_t done = 1, want;

		while (done < shnum && !more) {
			want = shnum - done < MAX_SECTS + 1 ? shnum - done : MAX_SECTS + 1;
			if (!read_at(fd, b.sh, want * sizeof(Elf64_Shdr), eh->e_shoff + done * sizeof(Elf64_Shdr), fsize))
				break;
			for (i = 0; i < want; i++) {
				const Elf64_Shdr *sh = &b.sh[i];

				if (ns == MAX_SECTS) {
					more = true;
					break;
				}
				if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
					continue;
				b.s[ns].off = sh->sh_offset;
				b.s[ns].end = sh->sh_offset + sh->sh_size;
				b.s[ns].exec = sh->sh_flags & SHF_EXECINSTR;
				b.s[ns].name = sh->sh_name;
				ns++;
			}
			done += want;
		}
		if (more)
			have_shdrs = false;	/* more sections than we track: be safe */
	}
	/* .shstrtab: one more pread if it fits the buffer, else names are read one by one. */
	static Elf64_Shdr strhdr;
	if (have_shdrs && shstrndx && shstrndx < shnum &&
	    read_at(fd, &strhdr, sizeof(strhdr), eh->e_shoff + shstrndx * sizeof(Elf64_Shdr), fsize)) {
		strsh = &strhdr;
		if (strhdr.sh_size <= sizeof(b.names) &&
		    read_at(fd, b.names, strhdr.sh_size, strhdr.sh_offset, fsize))
			names_loaded = true;
	}

	for (i = 0; i < phnum; i++) {
		const Elf64_Phdr *ph = &b.ph[i];
		uint64_t va, va0, vend, fo0;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		va0 = ph->p_vaddr & ~(uint64_t)(ps - 1);
		fo0 = ph->p_offset & ~(uint64_t)(ps - 1);
		vend = (ph->p_vaddr + ph->p_memsz + ps - 1) & ~(uint64_t)(ps - 1);
		for (va = va0; va < vend; va += ps) {
			uint64_t fo = fo0 + (va - va0), fend = fo + ps;
			const char *why = NULL;
			uint64_t k;

			if (fend > ph->p_offset + ph->p_filesz)
				fend = ph->p_offset + ph->p_filesz;
			if (p->textrel)
				why = "TEXTREL";
			else if (!have_shdrs || !shnum)
				why = "no section headers";
			for (k = 0; !why && k < phnum; k++)
				if (k != i && b.ph[k].p_type == PT_LOAD && !(b.ph[k].p_flags & PF_X) &&
				    overlaps(va, va + ps, b.ph[k].p_vaddr & ~(uint64_t)(ps - 1),
					     b.ph[k].p_vaddr + b.ph[k].p_memsz))
					why = "shares page with data segment";
			if (!why && fo < fend && overlaps(fo, fend, 0, eh->e_ehsize))
				why = "ELF header";
			if (!why && fo < fend &&
			    overlaps(fo, fend, eh->e_phoff, eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize))
				why = "program headers";
			for (k = 0; !why && k < ns; k++)
				if (!b.s[k].exec && fo < fend && overlaps(fo, fend, b.s[k].off, b.s[k].end)) {
					why = sect_name(fd, strsh, names_loaded, b.s[k].name, fsize,
							namebuf, sizeof(namebuf));
					if (!why)
						why = "unnamed section";
				}
			add_range(p, va, va + ps, !why, why ? why : "code");
		}
	}
	return 0;
}

size_t rtplan_xo_pages(const struct plan *p, size_t ps)
{
	size_t n = 0;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->r[i].xo)
			n += (p->r[i].end - p->r[i].start) / ps;
	return n;
}
