// SPDX-License-Identifier: GPL-2.0
/*
 * elfplan.c - plan which pages of an ELF object become execute-only.
 *
 * A page of a PF_X PT_LOAD maps one page of the file (and, past p_filesz,
 * zeroes).  It may become execute-only only if every file byte it maps
 * lies in an SHF_EXECINSTR section or in no section at all (padding), is
 * not part of the ELF or program headers, and no other PT_LOAD maps part
 * of the same page.  Everything else stays R+X and is reported with the
 * first reason found.  Objects with text relocations stay readable: ld.so
 * mprotects their code RW and back to R+X while relocating.
 */
#include <gelf.h>
#include <stdio.h>
#include <string.h>

#include "elfplan.h"

struct sect { uint64_t off, end; const char *name; bool exec; };

static void add_range(struct plan *p, uint64_t a, uint64_t b, bool xo, const char *why)
{
	struct plan_range *r = p->n ? &p->r[p->n - 1] : NULL;

	if (r && r->end == a && r->xo == xo && !strcmp(r->why, why)) {
		r->end = b;
		return;
	}
	if (p->n == PLAN_MAX_RANGES) {
		/* Too fragmented to list: the rest stays readable, never wrongly XO. */
		r = &p->r[p->n - 1];
		r->end = b;
		r->xo = false;
		snprintf(r->why, sizeof(r->why), "too many ranges");
		return;
	}
	r = &p->r[p->n++];
	r->start = a;
	r->end = b;
	r->xo = xo;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static bool overlaps(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return a < d && c < b;
}

static bool has_textrel(Elf *e, const GElf_Phdr *dyn)
{
	Elf_Data *d;
	GElf_Dyn dy;
	size_t i, n;

	d = elf_getdata_rawchunk(e, dyn->p_offset, dyn->p_filesz, ELF_T_DYN);
	if (!d)
		return false;
	n = dyn->p_filesz / sizeof(Elf64_Dyn);
	for (i = 0; i < n && gelf_getdyn(d, i, &dy); i++) {
		if (dy.d_tag == DT_NULL)
			break;
		if (dy.d_tag == DT_TEXTREL ||
		    (dy.d_tag == DT_FLAGS && (dy.d_un.d_val & DF_TEXTREL)))
			return true;
	}
	return false;
}

/* Why the page at @va of segment @ph (file window [fo, fo+ps)) must stay readable, or NULL. */
static const char *page_reason(const GElf_Ehdr *eh, const GElf_Phdr *phs, size_t phnum,
			       size_t self, const struct sect *s, size_t ns,
			       uint64_t va, uint64_t fo, size_t ps)
{
	const GElf_Phdr *ph = &phs[self];
	uint64_t fend = fo + ps;
	size_t i;

	/* File bytes past the segment's end are mapped too; count only the segment's own. */
	if (fend > ph->p_offset + ph->p_filesz)
		fend = ph->p_offset + ph->p_filesz;
	for (i = 0; i < phnum; i++) {
		if (i == self || phs[i].p_type != PT_LOAD || (phs[i].p_flags & PF_X))
			continue;
		if (overlaps(va, va + ps, phs[i].p_vaddr & ~(uint64_t)(ps - 1),
			     phs[i].p_vaddr + phs[i].p_memsz))
			return "shares page with data segment";
	}
	if (fo < fend && overlaps(fo, fend, 0, eh->e_ehsize))
		return "ELF header";
	if (fo < fend && overlaps(fo, fend, eh->e_phoff, eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize))
		return "program headers";
	for (i = 0; i < ns; i++)
		if (!s[i].exec && fo < fend && overlaps(fo, fend, s[i].off, s[i].end))
			return s[i].name;
	return NULL;
}

int elfplan_build(int fd, size_t ps, struct plan *p)
{
	static struct sect sects[512];
	GElf_Phdr phs[64];
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t phnum, shstrndx, shnum, ns = 0, i;
	bool have_shdrs;
	Elf *e;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(p->err, sizeof(p->err), "not an ELF file");
		goto out;
	}
	if (gelf_getclass(e) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		snprintf(p->err, sizeof(p->err), "not an x86-64 ELF file");
		goto out;
	}
	if (elf_getphdrnum(e, &phnum) || phnum == 0 || phnum > 64) {
		snprintf(p->err, sizeof(p->err), "bad program header count");
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(e, i, &phs[i])) {
			snprintf(p->err, sizeof(p->err), "unreadable program header %zu", i);
			goto out;
		}
		if (phs[i].p_type == PT_DYNAMIC && has_textrel(e, &phs[i]))
			p->textrel = true;
	}
	/*
	 * e_shnum 0 is no section headers, even though elf_getshdrstrndx()
	 * succeeds then (with SHN_UNDEF): without sections every page would
	 * look like padding, and padding may be execute-only.
	 */
	have_shdrs = !elf_getshdrstrndx(e, &shstrndx) && !elf_getshdrnum(e, &shnum) && shnum > 1;
	while (have_shdrs && (scn = elf_nextscn(e, scn)) && ns < sizeof(sects) / sizeof(sects[0])) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		sects[ns].off = sh.sh_offset;
		sects[ns].end = sh.sh_offset + sh.sh_size;
		sects[ns].exec = sh.sh_flags & SHF_EXECINSTR;
		sects[ns].name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sects[ns].name)
			sects[ns].name = "unnamed section";
		ns++;
	}
	if (have_shdrs && scn) {
		have_shdrs = false;	/* more sections than we track: be safe */
	}
	for (i = 0; i < phnum; i++) {
		const GElf_Phdr *ph = &phs[i];
		uint64_t va, va0, vend, fo0;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		va0 = ph->p_vaddr & ~(uint64_t)(ps - 1);
		fo0 = ph->p_offset & ~(uint64_t)(ps - 1);
		vend = (ph->p_vaddr + ph->p_memsz + ps - 1) & ~(uint64_t)(ps - 1);
		for (va = va0; va < vend; va += ps) {
			const char *why;

			if (p->textrel)
				why = "TEXTREL";
			else if (!have_shdrs)
				why = "no section headers";
			else
				why = page_reason(&eh, phs, phnum, i, sects, ns, va, fo0 + (va - va0), ps);
			add_range(p, va, va + ps, !why, why ? why : "code");
		}
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	return ret;
}

void elfplan_all_readable(struct plan *p, const char *why)
{
	int i;

	for (i = 0; i < p->n; i++) {
		p->r[i].xo = false;
		snprintf(p->r[i].why, sizeof(p->r[i].why), "%s", why);
	}
}

size_t elfplan_xo_pages(const struct plan *p, size_t ps)
{
	size_t n = 0;
	int i;

	for (i = 0; i < p->n; i++)
		if (p->r[i].xo)
			n += (p->r[i].end - p->r[i].start) / ps;
	return n;
}
