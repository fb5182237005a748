// SPDX-License-Identifier: GPL-2.0
/*
 * proven.c - the proven-code rule (proven.h): roots, the recursive descent
 * and the read check, then elfplan_build_extra() turns the proven ranges
 * and the read pages into a plan exactly as the FDE rule's reference
 * planner does (the same gaps, fill, pages and reasons).
 *
 * Every byte of each executable section has a state: unknown, code by FDE
 * (or a runtime-code section: .init, .plt...), the start or the rest of a
 * proven instruction, and the same two for the descent under way, so that
 * a root that fails leaves nothing behind.
 */
#include <ctype.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ref/elfplan.h"
#include "../rule/ehframe.h"
#include "../rule/fill.h"
#include "fdes.h"
#include "proven.h"

enum { ST_NONE, ST_FDE, ST_START, ST_CONT, ST_LSTART, ST_LCONT };

#define MAX_XSECT 64

struct xsect { uint64_t addr, size; const uint8_t *b; uint8_t *st; };

struct vec { uint64_t *v; size_t n, cap; };

struct ctx {
	struct xsect x[MAX_XSECT];
	size_t nx, ps;
	struct dec *d;
	const struct proven_opts *o;
	struct proven_stats *st;
	struct vec roots[NROOT], reads, lreads, stack, path, go, arrays;
	bool oom;
};

static void push(struct ctx *c, struct vec *v, uint64_t a)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 256;
		uint64_t *n = realloc(v->v, cap * sizeof(*n));

		if (!n) {
			c->oom = true;
			return;
		}
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = a;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void sort_unique(struct vec *v)
{
	size_t i, k = 0;

	if (!v->n)
		return;
	qsort(v->v, v->n, sizeof(*v->v), cmp_u64);
	for (i = 1; i < v->n; i++)
		if (v->v[i] != v->v[k])
			v->v[++k] = v->v[i];
	v->n = k + 1;
}

static struct xsect *sect_of(struct ctx *c, uint64_t a)
{
	size_t i;

	for (i = 0; i < c->nx; i++)
		if (a >= c->x[i].addr && a - c->x[i].addr < c->x[i].size)
			return &c->x[i];
	return NULL;
}

/* The pages of [@a, @a + @n) are read by the code. */
static void read_seen(struct ctx *c, uint64_t a, uint64_t n)
{
	uint64_t p;

	for (p = a & ~(uint64_t)(c->ps - 1); p < a + n; p += c->ps)
		push(c, &c->reads, p);
}

/* --trace: one line per read seen: "read KIND FROM TARGET" (hex). */
static void trace(struct ctx *c, const char *kind, uint64_t from, uint64_t to)
{
	if (c->o->trace)
		fprintf(c->o->trace, "read\t%s\t%llx\t%llx\n", kind, (unsigned long long)from,
			(unsigned long long)to);
}

/* The 64-bit register that "lea REG, [rip ...]" (@text) writes, into @reg. */
static bool lea_reg(const char *text, char reg[8])
{
	const char *s = strchr(text, ' ');
	size_t n;

	if (!s)
		return false;
	n = strcspn(++s, ",");
	if (n == 0 || n >= 8 || s[0] != 'r')
		return false;	/* eax, ax: not an address register */
	memcpy(reg, s, n);
	reg[n] = 0;
	return true;
}

/* Does @text name @reg inside the brackets of a memory operand? */
static bool addresses_with(const char *text, const char *reg)
{
	size_t n = strlen(reg);
	const char *b, *e, *q;

	for (b = strchr(text, '['); b && (e = strchr(b, ']')); b = strchr(e, '[')) {
		for (q = b + 1; q + n <= e; q++)
			if (!strncmp(q, reg, n) && (q[-1] == '[' || q[-1] == ' ') && (q[n] == ']' || q[n] == ' '))
				return true;
	}
	return false;
}

/*
 * Does @text put a new value into @reg (64-bit name) or its 32-bit part,
 * one that does not derive from it?  Only plain loads and moves count
 * (mov, movzx, movsx, movsxd, movabs, lea, pop) from something else:
 * after "add rdx, rax" or "lea rdx, [rdx + 8]" the register may still
 * point into the table.
 */
static bool overwrites(const char *text, const char *reg)
{
	static const char *const movs[] = { "mov", "movzx", "movsx", "movsxd", "movabs", "lea", "pop", NULL };
	const char *op = strchr(text, ' ');
	char r32[8];
	size_t n, k;

	if (!op)
		return false;
	for (k = 0; movs[k] && !(strlen(movs[k]) == (size_t)(op - text) && !strncmp(text, movs[k], strlen(movs[k])));
	     k++)
		;
	if (!movs[k])
		return false;
	op++;
	n = strcspn(op, ",");
	/* rdx -> edx, r8 -> r8d */
	if (reg[1] >= '0' && reg[1] <= '9')
		snprintf(r32, sizeof(r32), "%sd", reg);
	else
		snprintf(r32, sizeof(r32), "e%s", reg + 1);
	if ((n != strlen(reg) || strncmp(op, reg, n)) && (n != strlen(r32) || strncmp(op, r32, n)))
		return false;
	/* "lea rdx, [rdx + 8]", "mov rdx, rdx": derived from it */
	for (op += n; (op = strstr(op, reg)); op++)
		if (!isalnum((unsigned char)op[-1]) && !isalnum((unsigned char)op[strlen(reg)]))
			return false;
	return true;
}

/*
 * Linear sweep of the code [lo, hi) (@b its bytes): the direct branch
 * targets outside known code are roots (a) (@roots), and what the code
 * reads is noted; lea targets are roots only with --lea-roots.
 */
static void sweep(struct ctx *c, const uint8_t *b, uint64_t lo, uint64_t hi, bool roots)
{
	uint64_t pos = 0, left = hi - lo, lea_target = 0, lea_at = 0;
	unsigned int last = DEC_STOP;
	int follow = 0;
	char reg[8] = "";
	struct dec_insn in;

	while (pos < left) {
		if (!dec_one(c->d, b + pos, left - pos, lo + pos, &in, follow > 0)) {
			/* A guess at the next boundary could find reads or roots that are not there. */
			c->st->undecodable += left - pos;
			return;
		}
		if (follow > 0) {
			if (in.cls & DEC_BRANCH)
				follow = 0;
			else if (!(in.cls & (DEC_LEA | DEC_NOACCESS)) && addresses_with(in.text, reg))
				push(c, &c->lreads, lea_target), push(c, &c->lreads, lea_at), follow = 0;
			else if (overwrites(in.text, reg))
				follow = 0;
			else
				follow--;
		}
		if ((in.cls & DEC_DIRECT) && roots)
			push(c, &c->roots[ROOT_BRANCH], in.br_target);
		if ((in.cls & DEC_RIPREL) && !(in.cls & (DEC_LEA | DEC_NOACCESS)))
			trace(c, "rip", lo + pos, in.rip_target), read_seen(c, in.rip_target, 64);	/* up to a zmm */
		if ((in.cls & DEC_RIPREL) && (in.cls & DEC_LEA)) {
			if (roots && c->o->lea_roots)
				push(c, &c->roots[ROOT_LEA], in.rip_target);
			dec_one(c->d, b + pos, left - pos, lo + pos, &in, 1);
			if (lea_reg(in.text, reg))
				lea_target = in.rip_target, lea_at = lo + pos, follow = 6;
		}
		last = in.cls;
		pos += in.len;
	}
	/*
	 * A range whose last instruction falls through runs on past its end:
	 * root (a).  Not after a call: one to a noreturn function ends many
	 * FDEs, and what follows it may be anything.
	 */
	if (roots && pos == left && !(last & (DEC_STOP | DEC_CALL)))
		push(c, &c->roots[ROOT_BRANCH], hi);
}

/* Set the state of [a, a + n) (inside @x) to @s. */
static void mark(struct xsect *x, uint64_t a, uint64_t n, uint8_t s)
{
	memset(x->st + (a - x->addr), s, (size_t)n);
}

/*
 * Undo (@keep false) or commit the descent under way: its instructions are
 * on c->path as (address, length) pairs.
 */
static void settle(struct ctx *c, bool keep)
{
	size_t i;

	for (i = 0; i + 1 < c->path.n; i += 2) {
		struct xsect *x = sect_of(c, c->path.v[i]);

		mark(x, c->path.v[i], c->path.v[i + 1], keep ? ST_CONT : ST_NONE);
		if (keep) {
			mark(x, c->path.v[i], 1, ST_START);
			c->st->proven_bytes += c->path.v[i + 1];
		}
	}
	c->path.n = 0;
}

/* The recursive descent from @root; true if every path from it is proven code. */
static bool descend(struct ctx *c, uint64_t root)
{
	struct dec_insn in;

	c->stack.n = 0;
	push(c, &c->stack, root);
	while (c->stack.n && !c->oom) {
		uint64_t a = c->stack.v[--c->stack.n], off, k;
		struct xsect *x = sect_of(c, a);
		uint8_t s;

		if (!x)
			return false;	/* leaves the executable sections */
		off = a - x->addr;
		s = x->st[off];
		if (s == ST_FDE || s == ST_START || s == ST_LSTART)
			continue;	/* known code, or seen on this descent */
		if (s != ST_NONE)
			return false;	/* into the middle of an instruction */
		if (!dec_one(c->d, x->b + off, x->size - off, a, &in, 0) || (in.cls & DEC_BAD))
			return false;
		for (k = 1; k < in.len; k++)
			if (x->st[off + k] != ST_NONE)
				return false;	/* overlaps code known otherwise */
		mark(x, a, in.len, ST_LCONT);
		mark(x, a, 1, ST_LSTART);
		push(c, &c->path, a);
		push(c, &c->path, in.len);
		if (in.cls & DEC_DIRECT)
			push(c, &c->stack, in.br_target);
		if (!(in.cls & DEC_STOP))
			push(c, &c->stack, a + in.len);
	}
	return !c->oom;
}

/* Roots (b): the functions of @sym (SHT_SYMTAB or SHT_DYNSYM). */
static void symbol_roots(struct ctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (i = 0; d && i < n && gelf_getsym(d, (int)i, &sym); i++) {
		int t = GELF_ST_TYPE(sym.st_info);

		if ((t == STT_FUNC || t == STT_GNU_IFUNC) && sym.st_shndx != SHN_UNDEF &&
		    sym.st_shndx < SHN_LORESERVE)
			push(c, &c->roots[ROOT_SYMBOL], sym.st_value);
	}
}

/* Is @a inside .init_array, .fini_array or .preinit_array? */
static bool in_arrays(const struct ctx *c, uint64_t a)
{
	size_t i;

	for (i = 0; i + 1 < c->arrays.n; i += 2)
		if (a >= c->arrays.v[i] && a < c->arrays.v[i + 1])
			return true;
	return false;
}

/*
 * Roots (e) that need no relocation: e_entry, DT_INIT, DT_FINI and the
 * contents of the init/fini arrays (0 and -1 are no entries; in a PIE the
 * relocations give them, reloc_roots()), whose ranges it keeps.
 */
static void entry_roots(struct ctx *c, Elf *e, const uint8_t *img, size_t fsize)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (gelf_getehdr(e, &eh) && eh.e_entry)
		push(c, &c->roots[ROOT_ENTRY], eh.e_entry);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		size_t k;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNAMIC) {
			Elf_Data *d = elf_getdata(scn, NULL);
			GElf_Dyn dy;

			for (k = 0; d && gelf_getdyn(d, (int)k, &dy) && dy.d_tag != DT_NULL; k++)
				if (dy.d_tag == DT_INIT || dy.d_tag == DT_FINI)
					push(c, &c->roots[ROOT_ENTRY], dy.d_un.d_ptr);
		}
		if (sh.sh_type != SHT_INIT_ARRAY && sh.sh_type != SHT_FINI_ARRAY && sh.sh_type != SHT_PREINIT_ARRAY)
			continue;
		push(c, &c->arrays, sh.sh_addr);
		push(c, &c->arrays, sh.sh_addr + sh.sh_size);
		for (k = 0; k + 8 <= sh.sh_size && sh.sh_offset <= fsize && k + 8 <= fsize - sh.sh_offset; k += 8) {
			uint64_t v;

			memcpy(&v, img + sh.sh_offset + k, 8);
			if (v && v != ~(uint64_t)0)
				push(c, &c->roots[ROOT_ENTRY], v);
		}
	}
}

/* Roots (c), and (e): where the dynamic relocations of @scn (SHT_RELA) point. */
static void reloc_roots(struct ctx *c, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL), *sd = NULL;
	Elf_Scn *symscn = elf_getscn(e, sh->sh_link);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Rela r;

	if (symscn)
		sd = elf_getdata(symscn, NULL);
	for (i = 0; d && i < n && gelf_getrela(d, (int)i, &r); i++) {
		unsigned int t = (unsigned int)GELF_R_TYPE(r.r_info);
		GElf_Sym sym;

		uint64_t to;

		if (t == R_X86_64_RELATIVE || t == R_X86_64_IRELATIVE)
			to = (uint64_t)r.r_addend;
		else if ((t == R_X86_64_64 || t == R_X86_64_GLOB_DAT || t == R_X86_64_JUMP_SLOT) && sd &&
			 gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) && sym.st_shndx != SHN_UNDEF &&
			 sym.st_shndx < SHN_LORESERVE)
			to = sym.st_value + (t == R_X86_64_64 ? (uint64_t)r.r_addend : 0);
		else
			continue;
		/* Called by ld.so, through the PLT, or from an init/fini array: (e). */
		push(c, &c->roots[t == R_X86_64_IRELATIVE || t == R_X86_64_JUMP_SLOT ||
				  in_arrays(c, r.r_offset) ? ROOT_ENTRY : ROOT_RELOC], to);
	}
}

/*
 * Go's function table (.gopclntab, Go 1.18 and later: magic 0xfffffff0 or
 * 0xfffffff1): nfunc + 1 entry offsets from textStart, the last one the
 * end of the text; each function runs from its entry to the next one's.
 * The exact ranges of Go's code, which has no FDEs: added to @f as FDE
 * ranges are.  Returns the number of functions, 0 if this is no table
 * it knows.
 */
static long go_functions(const uint8_t *b, uint64_t n, struct fdes *f)
{
	uint64_t nfunc, text, pcln, k;
	uint32_t magic, e0, e1;

	if (n < 72)
		return 0;
	memcpy(&magic, b, 4);
	if ((magic != 0xfffffff0 && magic != 0xfffffff1) || b[4] || b[5] || b[6] != 1 || b[7] != 8)
		return 0;
	memcpy(&nfunc, b + 8, 8);
	memcpy(&text, b + 24, 8);
	memcpy(&pcln, b + 64, 8);
	if (!nfunc || pcln > n || nfunc > (n - pcln) / 8 - 1)
		return 0;
	for (k = 0; k < nfunc; k++) {
		memcpy(&e0, b + pcln + 8 * k, 4);
		memcpy(&e1, b + pcln + 8 * (k + 1), 4);
		if (e1 < e0)
			return 0;
		if (e1 > e0)
			fdes_add(f, text + e0, text + e1);
	}
	return (long)nfunc;
}

static const char *const runtime_code[] = { ".init", ".fini", ".plt", ".plt.got", ".plt.sec", ".iplt" };

/* Keep Go's function ranges (@f from @before on) for the plan: they are code as FDE ranges are. */
static void st_go(struct ctx *c, long nfunc, const struct fdes *f, size_t before)
{
	size_t i;

	c->st->go_functions += nfunc > 0 ? (uint64_t)nfunc : 0;
	for (i = before; i < f->n; i++) {
		push(c, &c->go, f->r[i][0]);
		push(c, &c->go, f->r[i][1]);
		c->st->go_bytes += f->r[i][1] - f->r[i][0];
	}
}

/*
 * The executable sections, their FDE-covered bytes, the roots of symbols
 * and relocations.  Returns the number of FDEs, -1 if .eh_frame cannot be
 * read.
 */
static long read_object(struct ctx *c, Elf *e, const uint8_t *img, size_t fsize)
{
	struct fdes f = { NULL, 0, 0 };
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;
	long fdes = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return -1;
	entry_roots(c, e, img, fsize);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		size_t k;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			symbol_roots(c, scn, &sh);
		if (sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC))
			reloc_roots(c, e, scn, &sh);
		if (sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) || sh.sh_offset > fsize ||
		    sh.sh_size > fsize - sh.sh_offset)
			continue;
		if (!strcmp(name, ".gopclntab")) {
			size_t before = f.n;

			st_go(c, go_functions(img + sh.sh_offset, sh.sh_size, &f), &f, before);
		}
		if (!strcmp(name, ".eh_frame")) {
			long r = ehframe_walk(img + sh.sh_offset, sh.sh_size, sh.sh_addr, fdes_add, &f);

			if (r < 0) {
				free(f.r);
				return -1;
			}
			fdes += r;
		}
		if (!(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size || c->nx == MAX_XSECT)
			continue;
		c->x[c->nx].addr = sh.sh_addr;
		c->x[c->nx].size = sh.sh_size;
		c->x[c->nx].b = img + sh.sh_offset;
		c->x[c->nx].st = calloc(1, sh.sh_size);
		if (!c->x[c->nx].st)
			c->oom = true;
		else
			c->nx++;
		for (k = 0; k < sizeof(runtime_code) / sizeof(runtime_code[0]); k++)
			if (!strcmp(name, runtime_code[k]))
				fdes_add(&f, sh.sh_addr, sh.sh_addr + sh.sh_size);
	}
	/* Mark FDE-covered bytes, then sweep them for roots (a) and reads. */
	for (i = 0; i < f.n; i++) {
		uint64_t a;

		for (a = f.r[i][0]; a < f.r[i][1];) {
			struct xsect *x = sect_of(c, a);
			uint64_t end;

			if (!x)
				break;
			end = x->addr + x->size < f.r[i][1] ? x->addr + x->size : f.r[i][1];
			mark(x, a, end - a, ST_FDE);
			a = end;
		}
	}
	for (i = 0; i < f.n; i++) {
		struct xsect *x = sect_of(c, f.r[i][0]);

		if (x && f.r[i][1] - x->addr <= x->size) {
			c->st->fde_bytes += f.r[i][1] - f.r[i][0];
			sweep(c, x->b + (f.r[i][0] - x->addr), f.r[i][0], f.r[i][1], true);
		}
	}
	free(f.r);
	return fdes;
}

/*
 * A table a lea points at, read through the register: how long it is the
 * code does not say.  One inside code (libffi 3.2's jump table in an FDE)
 * may run on into the next page, which then holds no data the page rule
 * sees: that page is read too.  One outside code keeps its own pages
 * readable as data; its first 64 bytes are read.
 */
static void lea_reads(struct ctx *c)
{
	size_t i;

	for (i = 0; i + 1 < c->lreads.n; i += 2) {
		uint64_t t = c->lreads.v[i];
		struct xsect *x = sect_of(c, t);

		trace(c, "lea", c->lreads.v[i + 1], t);
		read_seen(c, t, x && x->st[t - x->addr] != ST_NONE ? c->ps : 64);
	}
}

/* Append Go's function ranges to the @n ranges of *@r (a struct fdes' array). */
static void go_ranges(struct ctx *c, uint64_t (**r)[2], size_t *n)
{
	struct fdes f = { *r, *n, *n };
	size_t i;

	for (i = 0; i + 1 < c->go.n; i += 2)
		fdes_add(&f, c->go.v[i], c->go.v[i + 1]);
	*r = f.r;
	*n = f.n;
}

/* The proven bytes (and Go's functions) as ranges, and a sweep of each proven one for what it reads. */
static uint64_t (*proven_ranges(struct ctx *c, size_t *n))[2]
{
	struct fdes r = { NULL, 0, 0 };
	size_t i;
	uint64_t k;

	for (i = 0; i < c->nx; i++) {
		struct xsect *x = &c->x[i];

		for (k = 0; k < x->size;) {
			uint64_t e = k;

			if (x->st[k] != ST_START) {
				k++;
				continue;
			}
			while (e < x->size && (x->st[e] == ST_START || x->st[e] == ST_CONT))
				e++;
			fdes_add(&r, x->addr + k, x->addr + e);
			sweep(c, x->b + k, x->addr + k, x->addr + e, false);
			k = e;
		}
	}
	*n = r.n;
	go_ranges(c, &r.r, n);
	return r.r;
}

/* --- the check (proven_opts.check, proven.h) ------------------------------ */

/* Byte @a of @x is code: FDE-covered (Go's functions, runtime-code sections), or proven if @proven. */
static bool covered(const struct xsect *x, uint64_t a, bool proven)
{
	uint8_t s = x->st[a - x->addr];

	return s == ST_FDE || (proven && (s == ST_START || s == ST_CONT));
}

/*
 * Data in [@lo, @hi) of @x: a byte of a run that is not code, after the
 * run's leading fill, unless the whole run is padding.
 */
static bool data_on(const struct xsect *x, uint64_t lo, uint64_t hi, bool proven)
{
	uint64_t a = lo, end = x->addr + x->size;

	while (a < hi) {
		uint64_t ga = a, gb = a;
		const uint8_t *b;
		size_t n;

		if (covered(x, a, proven)) {
			a++;
			continue;
		}
		while (ga > x->addr && !covered(x, ga - 1, proven))
			ga--;
		while (gb < end && !covered(x, gb, proven))
			gb++;
		b = x->b + (ga - x->addr);
		n = (size_t)(gb - ga);
		if (!fill_is_padding(b, n, gb < end) && !fill_is_zero_pad(b, n, gb < end)) {
			uint64_t d = ga + fill_lead(b, n);

			if ((d > lo ? d : lo) < (gb < hi ? gb : hi))
				return true;
		}
		a = gb;
	}
	return false;
}

static const struct plan_range *range_at(const struct plan *p, uint64_t a)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (a >= p->r[i].start && a < p->r[i].end)
			return &p->r[i];
	return NULL;
}

static void violation(struct proven_stats *st, uint64_t page, const char *what)
{
	if (!st->check_violations++)
		snprintf(st->check_msg, sizeof(st->check_msg), "page 0x%llx: %s", (unsigned long long)page, what);
}

static void check_plan(struct ctx *c, const struct plan *fde, const struct plan *p, bool proven, bool go_only,
		       const uint64_t *reads, size_t nreads)
{
	struct proven_stats *st = c->st;
	uint64_t a;
	size_t i;
	int r;

	for (r = 0; r < p->n; r++)
		for (a = p->r[r].start; a < p->r[r].end; a += c->ps) {
			const struct plan_range *f = range_at(fde, a);
			bool read = reads && bsearch(&a, reads, nreads, sizeof(*reads), cmp_u64);

			if (read && p->r[r].xo)
				violation(st, a, "its code reads it, and it is execute-only");
			if (p->r[r].xo && !(f && f->xo)) {
				st->check_lifted++;
				if (!f || strcmp(f->why, "not covered by any FDE"))
					violation(st, a, "execute-only, and the FDE rule keeps it readable for more than data in text");
				for (i = 0; i < c->nx; i++) {
					const struct xsect *x = &c->x[i];
					uint64_t lo = a > x->addr ? a : x->addr, hi = x->addr + x->size;

					if (hi > a + c->ps)
						hi = a + c->ps;
					if (lo < hi && data_on(x, lo, hi, proven))
						violation(st, a, "execute-only, with bytes on it that are neither code nor padding");
				}
			}
			if (!p->r[r].xo && f && f->xo) {
				st->check_taken++;
				if (!read && !go_only)
					violation(st, a, "readable, execute-only under the FDE rule, and no read of it seen");
			}
		}
}

int proven_plan(int fd, size_t ps, struct dec *d, const struct proven_opts *o,
		struct plan *p, struct proven_stats *st)
{
	static const enum proven_reloc walk_needed[NROOT] = { 0, 0, 0, PROVEN_RELOC_WALK, 0 };
	struct ctx c;
	struct plan_extra x = { NULL, 0, NULL, 0 };
	struct plan *fde = NULL;	/* the FDE rule's plan, for the check */
	uint64_t (*code)[2] = NULL;
	size_t ncode = 0;
	const uint8_t *img;
	size_t fsize, i, k;
	long fdes;
	Elf *e;
	int ret;

	memset(st, 0, sizeof(*st));
	/* The FDE rule first: the admission check, and its plan where nothing is proven. */
	if (elfplan_build(fd, ps, p))
		return -1;
	memset(&c, 0, sizeof(c));
	c.ps = ps;
	c.d = d;
	c.o = o;
	c.st = st;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	img = e ? (const uint8_t *)elf_rawfile(e, &fsize) : NULL;
	fdes = img ? read_object(&c, e, img, fsize) : -1;
	if (fdes < 0 || (fdes == 0 && !c.go.n) || c.oom) {
		/*
		 * No FDE and no Go function table: the section rule;
		 * .eh_frame unreadable: readable (elfplan says which).
		 */
		st->section_rule = fdes == 0;
		ret = 0;
		goto out;
	}
	for (k = 0; k < NROOT; k++) {
		sort_unique(&c.roots[k]);
		for (i = 0; i < c.roots[k].n; i++) {
			struct xsect *xs = sect_of(&c, c.roots[k].v[i]);

			if (!xs || xs->st[c.roots[k].v[i] - xs->addr] == ST_FDE)
				continue;	/* not in code, or known code */
			st->roots[k]++;
			if (o->reloc < walk_needed[k] || (k == ROOT_LEA && !o->lea_roots))
				continue;
			if (descend(&c, c.roots[k].v[i]))
				st->kept++, settle(&c, true);
			else
				st->dropped++, settle(&c, false);
		}
	}
	code = proven_ranges(&c, &ncode);
	if (st->undecodable) {
		/*
		 * Code the decoder could not sweep whole may read what the
		 * check did not see: nothing is proven.  Go's functions stay
		 * code in a Go program without FDEs, where the FDE rule's
		 * section rule takes all of .text anyway.
		 */
		free(code);
		code = NULL;
		ncode = 0;
		st->withheld = true;
		if (fdes == 0)
			go_ranges(&c, &code, &ncode);
	}
	x.code = (const uint64_t (*)[2])code;
	x.ncode = ncode;
	lea_reads(&c);
	sort_unique(&c.reads);
	if (!o->no_reads) {
		x.reads = c.reads.v;
		x.nreads = c.reads.n;
	}
	st->read_pages = c.reads.n;
	if (o->check && !(fde = malloc(sizeof(*fde))))
		c.oom = true;
	else if (fde)
		memcpy(fde, p, sizeof(*fde));
	ret = c.oom ? -1 : elfplan_build_extra(fd, ps, &x, p);
	if (c.oom)
		snprintf(p->err, sizeof(p->err), "out of memory");
	if (!ret && fde)
		check_plan(&c, fde, p, !st->withheld, st->withheld && fdes == 0, x.reads, x.nreads);
	free(fde);
	free(code);
out:
	for (k = 0; k < NROOT; k++)
		free(c.roots[k].v);
	free(c.reads.v);
	free(c.lreads.v);
	free(c.go.v);
	free(c.arrays.v);
	free(c.stack.v);
	free(c.path.v);
	for (i = 0; i < c.nx; i++)
		free(c.x[i].st);
	if (e)
		elf_end(e);
	return ret;
}
