// SPDX-License-Identifier: GPL-2.0
/*
 * run/rtplan.c - elfplan_build()'s plan from a minimal ELF reader, without
 * libc or libelf (see rtplan.h).  Where libelf is lenient with a corrupt
 * file (a program header table that runs past the end of the file is cut
 * to what fits, a section header table that does not fit is no table,
 * a section name that is not a string is no name), this reader does the
 * same thing on purpose: the two must agree on every file.
 */
#include <elf.h>

#include "../rule/admit.h"
#include "../rule/crtcode.h"
#include "../rule/ehframe.h"
#include "../rule/fill.h"
#include "../rule/str.h"
#include "rtplan.h"
#include "sys.h"

#define MAX_SECTS	512

/* What the admission check read: the ELF header, the program headers. */
static struct admit_buf b;

/*
 * The run path's reads, which the rule's admission check goes through (a
 * compound literal on the stack: no data pointers for ld.so to relocate).
 */
static long io_fsize(int fd) { return rt_fsize(fd); }
static long io_pread(int fd, void *buf, size_t n, uint64_t off) { return rt_pread(fd, buf, n, off); }
#define RT_IO (&(const struct admit_io){ io_fsize, io_pread })

static void fail(struct plan *p, const char *msg)
{
	rt_strlcpy(p->err, msg, sizeof(p->err));
}

static bool overlaps(uint64_t a, uint64_t e, uint64_t c, uint64_t d)
{
	return a < d && c < e;
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
		if (!plan_read_at(RT_IO, fd, d, k * sizeof(Elf64_Dyn), off + i * sizeof(Elf64_Dyn), fsize))
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

int rtplan_admit(int fd, struct plan *p)
{
	uint64_t fsize;

	return plan_admit(RT_IO, fd, p, &b, &fsize);
}

/* CFI-less code of the C runtime and the linker (elfplan.c's list). */
static const char *const runtime_code[] = { ".init", ".fini", ".plt", ".plt.got", ".plt.sec", ".iplt" };

struct rsect {
	uint64_t off, end, addr;
	const char *name;
	bool exec, eh_frame, runtime_code;
};

struct gap { uint64_t off, end; const struct rsect *s; };

static struct rsect rs[MAX_SECTS];

/* Scratch memory for one plan: anonymous pages, unmapped when done. */
static void *scratch_map(uint64_t len)
{
	long r = rt_syscall6(RT_NR_mmap, 0, (long)len, RT_PROT_READ | RT_PROT_WRITE,
			     RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);

	return r < 0 && r > -4096 ? NULL : (void *)r;
}

struct cover { uint64_t (*r)[2]; size_t n, cap; bool oom; };

static void cover_add(void *arg, uint64_t lo, uint64_t hi)
{
	struct cover *c = arg;

	if (c->n == c->cap) {
		c->oom = true;
		return;
	}
	c->r[c->n][0] = lo;
	c->r[c->n][1] = hi;
	c->n++;
}

/* Heapsort of @n elements of @size bytes by the uint64_t key at their start. */
static void swap_el(unsigned char *a, unsigned char *b, size_t size)
{
	while (size--) {
		unsigned char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

static void sift(unsigned char *v, size_t size, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1, m = i;

		if (c < n && *(uint64_t *)(v + c * size) > *(uint64_t *)(v + m * size))
			m = c;
		if (c + 1 < n && *(uint64_t *)(v + (c + 1) * size) > *(uint64_t *)(v + m * size))
			m = c + 1;
		if (m == i)
			return;
		swap_el(v + i * size, v + m * size, size);
		i = m;
	}
}

static void sort_by_key(void *base, size_t n, size_t size)
{
	unsigned char *v = base;
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift(v, size, i, n);
	for (i = n - 1; i > 0; i--) {
		swap_el(v, v + i * size, size);
		sift(v, size, 0, i);
	}
}

static void cover_merge(struct cover *c)
{
	size_t i, k = 0;

	if (!c->n)
		return;
	sort_by_key(c->r, c->n, sizeof(*c->r));
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

/* elfplan.c's is_crt_code(): GCC's crtbegin*.o functions, then only fill. */
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

/* The data gaps of executable section @s (elfplan.c's section_gaps()). */
static bool section_gaps(const struct rsect *s, const uint8_t *file, uint64_t fsize,
			 const struct cover *c, struct gap *g, size_t *ng, size_t cap)
{
	uint64_t a = s->addr, end = s->addr + (s->end - s->off);
	size_t i = 0;

	while (i < c->n && c->r[i][1] <= a)
		i++;
	while (a < end) {
		uint64_t ga = a, gb, fo, fe;
		bool pad;
		size_t lead;

		if (i < c->n && c->r[i][0] <= a) {
			a = c->r[i][1] < end ? c->r[i][1] : end;
			i++;
			continue;
		}
		gb = i < c->n && c->r[i][0] < end ? c->r[i][0] : end;
		a = gb;
		fo = s->off + (ga - s->addr);
		fe = s->off + (gb - s->addr);
		pad = fe <= fsize && (fill_is_padding(file + fo, (size_t)(fe - fo), gb < end) ||
				      fill_is_zero_pad(file + fo, (size_t)(fe - fo), gb < end));
		lead = fe <= fsize ? fill_lead(file + fo, (size_t)(fe - fo)) : 0;
		if (pad || (fe <= fsize && is_crt_code(file + fo + lead, (size_t)(fe - fo - lead), gb < end)))
			continue;
		if (*ng == cap)
			return false;
		g[*ng].off = fo + lead;
		g[*ng].end = fe;
		g[*ng].s = s;
		(*ng)++;
	}
	return true;
}

/* The sections as elfplan.c's read_sections() sees them; false: none usable. */
static bool read_sections(const Elf64_Ehdr *eh, const uint8_t *file, uint64_t fsize, size_t *ns)
{
	const Elf64_Shdr *sh, *st;
	uint64_t shnum = eh->e_shnum, i;
	unsigned int k;

	*ns = 0;
	if (shnum == 0 || eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || shnum > MAX_SECTS ||
	    eh->e_shoff > fsize || (fsize - eh->e_shoff) / sizeof(Elf64_Shdr) < shnum)
		return false;
	sh = (const Elf64_Shdr *)(file + eh->e_shoff);
	st = eh->e_shstrndx ? &sh[eh->e_shstrndx] : NULL;	/* admitted: a NUL-ended SHT_STRTAB */
	for (i = 1; i < shnum; i++) {
		struct rsect *r = &rs[*ns];

		if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_size == 0)
			continue;
		r->off = sh[i].sh_offset;
		r->end = sh[i].sh_offset + sh[i].sh_size;
		r->addr = sh[i].sh_addr;
		r->exec = sh[i].sh_flags & SHF_EXECINSTR;
		r->name = st && sh[i].sh_name < st->sh_size ? (const char *)file + st->sh_offset + sh[i].sh_name :
			  "unnamed section";
		r->eh_frame = !rt_strcmp(r->name, ".eh_frame") &&
			      (sh[i].sh_type == SHT_PROGBITS || sh[i].sh_type == SHT_X86_64_UNWIND);
		r->runtime_code = false;
		for (k = 0; k < sizeof(runtime_code) / sizeof(runtime_code[0]); k++)
			r->runtime_code |= !rt_strcmp(r->name, runtime_code[k]);
		if (!(sh[i].sh_flags & SHF_ALLOC))
			r->exec = r->eh_frame = false;
		(*ns)++;
	}
	return true;
}

/*
 * The data gaps (elfplan.c's data_gaps()), in scratch memory that the
 * caller unmaps (*@mem, *@memlen): their number, 0 with *@section_rule
 * when there is no FDE at all, -1 if .eh_frame cannot be read.
 */
static long data_gaps(size_t ns, const uint8_t *file, uint64_t fsize, struct gap **gp,
		      bool *section_rule, void **mem, uint64_t *memlen)
{
	struct cover c = { NULL, 0, 0, false };
	uint64_t ehsize = 0, len;
	size_t i, ng = 0, gcap;
	long fdes = 0, r;
	struct gap *g;

	*gp = NULL;
	*section_rule = false;
	for (i = 0; i < ns; i++)
		if (rs[i].eh_frame) {
			if (rs[i].end > fsize || rs[i].end < rs[i].off)
				return -1;
			ehsize += rs[i].end - rs[i].off;
		}
	if (!ehsize) {
		*section_rule = true;
		return 0;
	}
	/* An FDE record is at least 8 bytes: at most one range per 8. */
	c.cap = ehsize / 8 + 1;
	gcap = c.cap + ns + 1;
	len = (c.cap * sizeof(*c.r) + gcap * sizeof(*g) + 4095) & ~4095ull;
	*mem = scratch_map(len);
	if (!*mem)
		return -1;
	*memlen = len;
	c.r = *mem;
	g = (struct gap *)(c.r + c.cap);
	for (i = 0; i < ns; i++) {
		if (!rs[i].eh_frame)
			continue;
		r = ehframe_walk(file + rs[i].off, (size_t)(rs[i].end - rs[i].off), rs[i].addr, cover_add, &c);
		if (r < 0 || c.oom)
			return -1;
		fdes += r;
	}
	if (!fdes) {
		*section_rule = true;
		return 0;
	}
	cover_merge(&c);
	for (i = 0; i < ns; i++)
		if (rs[i].exec && !rs[i].runtime_code && !section_gaps(&rs[i], file, fsize, &c, g, &ng, gcap))
			return -1;
	sort_by_key(g, ng, sizeof(*g));
	*gp = g;
	return (long)ng;
}

static void add_range_gap(struct plan *p, uint64_t a, uint64_t e, bool xo, const char *why,
			  const struct gap *g)
{
	struct plan_range *r = p->n ? &p->r[p->n - 1] : NULL;
	uint64_t soff = g ? g->off - g->s->off : 0;

	if (r && r->end == a && r->xo == xo && !rt_strcmp(r->why, why) &&
	    (!g || (!rt_strcmp(r->sect, g->s->name) && r->soff == soff))) {
		r->end = e;
		return;
	}
	if (p->n == PLAN_MAX_RANGES) {
		r = &p->r[p->n - 1];
		r->end = e;
		r->xo = false;
		r->sect[0] = 0;
		r->soff = r->ssize = 0;
		rt_strlcpy(r->why, "too many ranges", sizeof(r->why));
		return;
	}
	r = &p->r[p->n++];
	r->start = a;
	r->end = e;
	r->xo = xo;
	rt_strlcpy(r->why, why, sizeof(r->why));
	r->sect[0] = 0;
	r->soff = r->ssize = 0;
	if (g) {
		rt_strlcpy(r->sect, g->s->name, sizeof(r->sect));
		r->soff = soff;
		r->ssize = g->end - g->off;
	}
}

int rtplan_build(int fd, size_t ps, struct plan *p)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b.head;
	const char *object_why = NULL, *code_why = "code";
	const uint8_t *file;
	struct gap *gaps = NULL;
	void *mem = NULL;
	uint64_t fsize, memlen = 0, i, phnum;
	size_t ns = 0;
	long ng = 0, r;
	bool section_rule;

	p->n = 0;
	p->textrel = false;
	if (plan_admit(RT_IO, fd, p, &b, &fsize))
		return -1;
	phnum = eh->e_phnum;
	/* The whole file, read-only and private, while planning: libelf's view of it. */
	r = rt_syscall6(RT_NR_mmap, 0, (long)fsize, RT_PROT_READ, RT_MAP_PRIVATE, fd, 0);
	if (r < 0 && r > -4096) {
		fail(p, "cannot read the file");
		return -1;
	}
	file = (const uint8_t *)r;
	for (i = 0; i < phnum; i++)
		if (b.ph[i].p_type == PT_DYNAMIC && has_textrel(fd, b.ph[i].p_offset, b.ph[i].p_filesz, fsize))
			p->textrel = true;
	if (p->textrel)
		object_why = "TEXTREL";
	else if (!read_sections(eh, file, fsize, &ns))
		object_why = "no section headers";
	else if ((ng = data_gaps(ns, file, fsize, &gaps, &section_rule, &mem, &memlen)) < 0)
		object_why = ".eh_frame unparsable";
	else if (section_rule)
		code_why = "code (no .eh_frame: section rule)";

	for (i = 0; i < phnum; i++) {
		const Elf64_Phdr *ph = &b.ph[i];
		uint64_t va, va0, vend, fo0;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || ph->p_memsz == 0)
			continue;
		va0 = ph->p_vaddr & ~(uint64_t)(ps - 1);
		fo0 = ph->p_offset & ~(uint64_t)(ps - 1);
		vend = (ph->p_vaddr + ph->p_memsz + ps - 1) & ~(uint64_t)(ps - 1);
		for (va = va0; va < vend; va += ps) {
			uint64_t fo = fo0 + (va - va0), fend = fo + ps, k;
			const struct gap *g = NULL;
			const char *why = object_why;

			if (fend > ph->p_offset + ph->p_filesz)
				fend = ph->p_offset + ph->p_filesz;
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
				if (!rs[k].exec && fo < fend && overlaps(fo, fend, rs[k].off, rs[k].end))
					why = rs[k].name;
			for (k = 0; !why && k < (uint64_t)(ng > 0 ? ng : 0); k++)
				if (fo < fend && overlaps(fo, fend, gaps[k].off, gaps[k].end)) {
					g = &gaps[k];
					why = "not covered by any FDE";
				}
			add_range_gap(p, va, va + ps, !why, why ? why : code_why, g);
		}
	}
	if (mem)
		rt_syscall(RT_NR_munmap, mem, memlen, 0);
	rt_syscall(RT_NR_munmap, file, fsize, 0);
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
