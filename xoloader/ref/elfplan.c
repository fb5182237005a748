// SPDX-License-Identifier: GPL-2.0
/*
 * elfplan.c - plan which pages of an ELF object become execute-only.
 *
 * A page of a PF_X PT_LOAD maps one page of the file (and, past p_filesz,
 * zeroes).  It may become execute-only only if every file byte it maps
 * lies in an SHF_EXECINSTR section or in no section at all (padding), is
 * not part of the ELF or program headers, no other PT_LOAD maps part of
 * the same page, and none of its bytes is data in text: bytes of an
 * executable section that no .eh_frame FDE covers and that are not
 * padding (fill.c).  OpenSSL's perlasm keeps its constant tables there,
 * between functions that have FDEs; code loads them RIP-relative.
 * Everything else stays R+X and is reported with the first reason found.
 * Objects with text relocations stay readable: ld.so mprotects their code
 * RW and back to R+X while relocating.  The rule in full, as the minimal
 * run-time reader implements it too: /work/coord/plan-rule.md, README.md.
 */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rule/admit.h"
#include "../rule/crtcode.h"
#include "../rule/ehframe.h"
#include "../rule/fill.h"
#include "elfplan.h"

#define MAX_SECTS 512

struct sect {
	uint64_t off, end, addr;
	const char *name;
	bool exec, eh_frame, runtime_code;
};

/* A data gap: file offsets [off, end) of section @s. */
struct gap { uint64_t off, end; const struct sect *s; };

/* Address ranges covered by FDEs, grown as the walk finds them. */
struct cover { uint64_t (*r)[2]; size_t n, cap; bool oom; };

/*
 * CFI-less code of the C runtime and the linker: crti/crtn's _init/_fini
 * and the PLTs.  Their bytes are code whether an FDE covers them or not.
 */
static const char *const runtime_code[] = { ".init", ".fini", ".plt", ".plt.got", ".plt.sec", ".iplt" };

static void add_range(struct plan *p, uint64_t a, uint64_t b, bool xo, const char *why,
		      const struct gap *g)
{
	struct plan_range *r = p->n ? &p->r[p->n - 1] : NULL;
	uint64_t soff = g ? g->off - g->s->off : 0;

	if (r && r->end == a && r->xo == xo && !strcmp(r->why, why) &&
	    (!g || (!strcmp(r->sect, g->s->name) && r->soff == soff))) {
		r->end = b;
		return;
	}
	if (p->n == PLAN_MAX_RANGES) {
		/* Too fragmented to list: the rest stays readable, never wrongly XO. */
		r = &p->r[p->n - 1];
		r->end = b;
		r->xo = false;
		r->sect[0] = 0;
		r->soff = r->ssize = 0;
		snprintf(r->why, sizeof(r->why), "too many ranges");
		return;
	}
	r = &p->r[p->n++];
	memset(r, 0, sizeof(*r));
	r->start = a;
	r->end = b;
	r->xo = xo;
	snprintf(r->why, sizeof(r->why), "%s", why);
	if (g) {
		snprintf(r->sect, sizeof(r->sect), "%s", g->s->name);
		r->soff = soff;
		r->ssize = g->end - g->off;
	}
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

static void cover_add(void *arg, uint64_t lo, uint64_t hi)
{
	struct cover *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		void *r = realloc(c->r, cap * sizeof(*c->r));

		if (!r) {
			c->oom = true;
			return;
		}
		c->r = r;
		c->cap = cap;
	}
	c->r[c->n][0] = lo;
	c->r[c->n][1] = hi;
	c->n++;
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sort and merge the covered ranges: disjoint, ascending. */
static void cover_merge(struct cover *c)
{
	size_t i, k = 0;

	if (!c->n)
		return;
	qsort(c->r, c->n, sizeof(*c->r), cmp_range);
	for (i = 1; i < c->n; i++) {
		if (c->r[i][0] <= c->r[k][1]) {
			if (c->r[i][1] > c->r[k][1])
				c->r[k][1] = c->r[i][1];
		} else {
			k++;
			c->r[k][0] = c->r[i][0];
			c->r[k][1] = c->r[i][1];
		}
	}
	c->n = k + 1;
}

/*
 * Is the run @b[0..@n) (after its leading fill) the code of GCC's
 * crtbegin*.o - deregister_tm_clones, register_tm_clones,
 * __do_global_dtors_aux, frame_dummy, built without unwind tables -
 * followed by nothing but fill?  It is in the first page of .text of
 * nearly every object; left readable, a small program keeps no code page
 * execute-only at all.  crtcode.h holds the templates (scripts/gen-crtcode).
 */
static bool is_crt_code(const uint8_t *b, size_t n, bool code_follows)
{
	size_t t, i;

	for (t = 0; t < sizeof(crt_templates) / sizeof(crt_templates[0]); t++) {
		const struct crt_template *c = &crt_templates[t];

		if (n < c->len)
			continue;
		for (i = 0; i < c->len; i++)
			if ((b[i] ^ c->bytes[i]) & c->mask[i])
				break;
		if (i == c->len && fill_is_padding(b + c->len, n - c->len, code_follows))
			return true;
	}
	return false;
}

/*
 * The data gaps of executable section @s: its runs of bytes outside
 * @c's ranges that are not padding.  Appends to @g (capacity @cap);
 * returns the new count, or -1 when out of memory.
 */
static long section_gaps(const struct sect *s, const uint8_t *file, size_t fsize,
			 const struct cover *c, struct gap **g, size_t *ng, size_t *cap)
{
	uint64_t a = s->addr, end = s->addr + (s->end - s->off);
	size_t i = 0;

	while (i < c->n && c->r[i][1] <= a)
		i++;
	while (a < end) {
		uint64_t ga = a, gb;

		if (i < c->n && c->r[i][0] <= a) {
			a = c->r[i][1] < end ? c->r[i][1] : end;
			i++;
			continue;
		}
		gb = i < c->n && c->r[i][0] < end ? c->r[i][0] : end;
		a = gb;
		{
			uint64_t fo = s->off + (ga - s->addr), fe = s->off + (gb - s->addr);
			bool pad = fe <= fsize && (fill_is_padding(file + fo, (size_t)(fe - fo), gb < end) ||
						   fill_is_zero_pad(file + fo, (size_t)(fe - fo), gb < end));
			size_t lead = fe <= fsize ? fill_lead(file + fo, (size_t)(fe - fo)) : 0;

			if (pad || (fe <= fsize && is_crt_code(file + fo + lead, (size_t)(fe - fo - lead), gb < end)))
				continue;
			if (*ng == *cap) {
				size_t nc = *cap ? 2 * *cap : 64;
				void *p = realloc(*g, nc * sizeof(**g));

				if (!p)
					return -1;
				*g = p;
				*cap = nc;
			}
			/* The data starts after the fill that aligns it (fe > fsize: all data). */
			(*g)[*ng].off = fo + lead;
			(*g)[*ng].end = fe;
			(*g)[*ng].s = s;
			(*ng)++;
		}
	}
	return (long)*ng;
}

/* Why the page at @va of segment @ph (file window [fo, fo+ps)) must stay readable, or NULL. */
static const char *page_reason(const GElf_Ehdr *eh, const GElf_Phdr *phs, size_t phnum,
			       size_t self, const struct sect *s, size_t ns,
			       const struct gap *g, size_t ng, const struct gap **gfound,
			       uint64_t va, uint64_t fo, size_t ps)
{
	const GElf_Phdr *ph = &phs[self];
	uint64_t fend = fo + ps;
	size_t i;

	*gfound = NULL;
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
	/* The gaps are in file order; the first one that overlaps names the page. */
	for (i = 0; i < ng; i++)
		if (fo < fend && overlaps(fo, fend, g[i].off, g[i].end)) {
			*gfound = &g[i];
			return "not covered by any FDE";
		}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int cmp_gap(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Read the section headers into @s; false if the object has none the rule
 * can use (none at all, out of the file, unreadable, too many).
 */
static bool read_sections(Elf *e, const GElf_Ehdr *eh, size_t fsize, struct sect *s, size_t *ns)
{
	size_t shnum, shstrndx;
	Elf_Scn *scn = NULL;
	unsigned int k;

	*ns = 0;
	if (elf_getshdrnum(e, &shnum) || shnum == 0 || eh->e_shoff == 0 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || shnum > MAX_SECTS ||
	    eh->e_shoff > fsize || (fsize - eh->e_shoff) / sizeof(Elf64_Shdr) < shnum ||
	    elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		s[*ns].off = sh.sh_offset;
		s[*ns].end = sh.sh_offset + sh.sh_size;
		s[*ns].addr = sh.sh_addr;
		s[*ns].exec = sh.sh_flags & SHF_EXECINSTR;
		s[*ns].name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!s[*ns].name)
			s[*ns].name = "unnamed section";
		s[*ns].eh_frame = !strcmp(s[*ns].name, ".eh_frame") &&
				  (sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND);
		s[*ns].runtime_code = false;
		for (k = 0; k < sizeof(runtime_code) / sizeof(runtime_code[0]); k++)
			s[*ns].runtime_code |= !strcmp(s[*ns].name, runtime_code[k]);
		/* Only allocated executable sections are code the loader maps. */
		if (!(sh.sh_flags & SHF_ALLOC))
			s[*ns].exec = s[*ns].eh_frame = false;
		(*ns)++;
	}
	return true;
}

/*
 * The data gaps of the object: returns their number, 0 with *@section_rule
 * when there is no FDE at all, -1 if .eh_frame cannot be read.
 */
static long data_gaps(const struct sect *s, size_t ns, const uint8_t *file, size_t fsize,
		      const uint64_t (*extra)[2], size_t nextra, struct gap **g, bool *section_rule)
{
	struct cover c = { NULL, 0, 0, false };
	size_t i, ng = 0, cap = 0;
	long fdes = 0, r;

	*g = NULL;
	*section_rule = false;
	for (i = 0; i < ns; i++) {
		if (!s[i].eh_frame)
			continue;
		if (s[i].end > fsize || s[i].end < s[i].off)
			goto bad;
		r = ehframe_walk(file + s[i].off, (size_t)(s[i].end - s[i].off), s[i].addr, cover_add, &c);
		if (r < 0 || c.oom)
			goto bad;
		fdes += r;
	}
	if (!fdes && !nextra) {
		free(c.r);
		*section_rule = true;
		return 0;
	}
	/* Code proven otherwise (tools/proven.c) is covered as an FDE's range is. */
	for (i = 0; i < nextra && !c.oom; i++)
		cover_add(&c, extra[i][0], extra[i][1]);
	if (c.oom)
		goto bad;
	cover_merge(&c);
	for (i = 0; i < ns; i++)
		if (s[i].exec && !s[i].runtime_code &&
		    section_gaps(&s[i], file, fsize, &c, g, &ng, &cap) < 0)
			goto bad;
	free(c.r);
	if (ng)
		qsort(*g, ng, sizeof(**g), cmp_gap);
	return (long)ng;
bad:
	free(c.r);
	free(*g);
	*g = NULL;
	return -1;
}

/* The reference's reads for the admission check: libc's. */
static long ref_fsize(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long)st.st_size;
}

static long ref_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off);
}

static const struct admit_io ref_io = { ref_fsize, ref_pread };
static struct admit_buf admitted;

int elfplan_build(int fd, size_t ps, struct plan *p)
{
	return elfplan_build_extra(fd, ps, NULL, p);
}

int elfplan_build_extra(int fd, size_t ps, const struct plan_extra *x, struct plan *p)
{
	static struct sect sects[MAX_SECTS];
	struct gap *gaps = NULL;
	GElf_Phdr phs[64];
	GElf_Ehdr eh;
	const uint8_t *file;
	const char *object_why = NULL, *code_why = "code";
	size_t phnum, ns = 0, fsize = 0, i;
	uint64_t admitted_size;
	long ng = 0;
	bool section_rule = false;
	Elf *e;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	/* The same admission as the minimal reader: malformed files alike (rule/admit.c). */
	if (plan_admit(&ref_io, fd, p, &admitted, &admitted_size))
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(p->err, sizeof(p->err), "not an ELF file");
		goto out;
	}
	if (gelf_getclass(e) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
		snprintf(p->err, sizeof(p->err), "not an x86-64 ELF file");
		goto out;
	}
	if (elf_getphdrnum(e, &phnum) || phnum == 0 || phnum > 64) {
		snprintf(p->err, sizeof(p->err), "bad program header count");
		goto out;
	}
	file = (const uint8_t *)elf_rawfile(e, &fsize);
	if (!file) {
		snprintf(p->err, sizeof(p->err), "cannot read the file");
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
	if (p->textrel)
		object_why = "TEXTREL";
	else if (!read_sections(e, &eh, fsize, sects, &ns))
		object_why = "no section headers";
	else if ((ng = data_gaps(sects, ns, file, fsize, x ? x->code : NULL, x ? x->ncode : 0, &gaps, &section_rule)) < 0)
		object_why = ".eh_frame unparsable";
	else if (section_rule)
		code_why = "code (no .eh_frame: section rule)";
	for (i = 0; i < phnum; i++) {
		const GElf_Phdr *ph = &phs[i];
		uint64_t va, va0, vend, fo0;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		va0 = ph->p_vaddr & ~(uint64_t)(ps - 1);
		fo0 = ph->p_offset & ~(uint64_t)(ps - 1);
		vend = (ph->p_vaddr + ph->p_memsz + ps - 1) & ~(uint64_t)(ps - 1);
		for (va = va0; va < vend; va += ps) {
			const struct gap *g = NULL;
			const char *why = object_why;

			if (!why)
				why = page_reason(&eh, phs, phnum, i, sects, ns, gaps, ng > 0 ? (size_t)ng : 0,
						  &g, va, fo0 + (va - va0), ps);
			if (!why && x && x->nreads && !section_rule &&
			    bsearch(&va, x->reads, x->nreads, sizeof(*x->reads), cmp_u64))
				why = "read by its own code";
			add_range(p, va, va + ps, !why, why ? why : code_why, g);
		}
	}
	ret = 0;
out:
	free(gaps);
	if (e)
		elf_end(e);
	return ret;
}

void elfplan_all_readable(struct plan *p, const char *why)
{
	int i;

	for (i = 0; i < p->n; i++) {
		p->r[i].xo = false;
		p->r[i].sect[0] = 0;
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
