// SPDX-License-Identifier: GPL-2.0
/*
 * planproof - check elfplan's data-in-text rule against evidence it does
 * not use: what the code itself reads (host tool, tests/host/xoplan_proof.sh).
 *
 *   planproof [-v] [--plan] [--all-code] [--decoder=capstone|llvm]
 *             [--rule=fde|proven [--reloc=walk] [--lea-roots] [--no-reads]] FILE...  (file names on stdin with -)
 *
 * --rule=proven checks the plans of the proven-code rule (proven.h)
 * instead of the FDE rule's; --reloc=walk, --lea-roots and --no-reads are
 * its unsafe variants (the checks must catch --lea-roots in libcrypto:
 * tests/host/proven.sh).
 * For each x86-64 ELF object: plan it with elfplan_build(), then
 *  1. disassemble (decode.c: LLVM 14 by default where built with it, else
 *     capstone 4; linear, from each FDE's start to its end: FDE starts are
 *     instruction boundaries) every FDE-covered range and
 *     the runtime-code sections, and for each RIP-relative memory operand
 *     of an instruction that accesses memory (everything but lea, nop and
 *     prefetch) compute its target: a target in a page the plan makes
 *     execute-only is a VIOLATION (that load would fault);
 *  2. the same for a RIP-relative lea into such a page whose register is
 *     then, within 6 instructions and before a branch, the base or index of
 *     a memory access (libffi 3.2's jump table inside an FDE);
 *  3. look for the first 16 bytes of well-known constant tables (SHA-256
 *     and SHA-512 K, the AES S-box, keccak's iotas, the bswap mask) in the
 *     file bytes of execute-only pages: a hit is a VIOLATION;
 *  4. count the FDEs the walk found against .eh_frame_hdr's fde_count (the
 *     linker's count): a difference is reported (it shows a walk error).
 * One line per object with a violation (and with -v, per object: "file
 * exec_bytes xo_bytes fdes hdr_count"); a summary line, which says how
 * many bytes went unchecked because the decoder rejected an instruction
 * ("undecodable N bytes": from the first rejected instruction to the end
 * of its range; with -v, an "undecodable" line per range); exit 1 if any
 * violation was found.  --plan prints the plan of each file instead;
 * --all-code plans data gaps as code (the old section rule): the checks
 * must then find violations in libcrypto (tests/host/xoplan_proof.sh).
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ref/elfplan.h"
#include "../rule/ehframe.h"
#include "apply.h"
#include "decode.h"
#include "fdes.h"
#include "files.h"
#include "proven.h"

#define PS 4096

static struct plan plan;
/*
 * The sweep decodes with @dec; the lea check (2.) follows registers with
 * capstone's operand detail (@cs), which it asks again for the few
 * instructions after a lea into an execute-only page.
 */
static struct dec *dec;
static enum dec_backend backend = DEC_DEFAULT;
static csh cs;
static cs_insn *insn;
static bool verbose, all_code, rule_proven;
static struct proven_opts popts;
static unsigned long files, objects, violations, bad_files, hdr_mismatch, no_plan;
static unsigned long long all_exec, all_xo, all_insns, unchecked, swept, lea_lost;

static const struct { const char *name; uint8_t b[16]; } tables[] = {
	{ "SHA-256 K", { 0x98, 0x2f, 0x8a, 0x42, 0x91, 0x44, 0x37, 0x71, 0xcf, 0xfb, 0xc0, 0xb5, 0xa5, 0xdb, 0xb5, 0xe9 } },
	{ "SHA-512 K", { 0x22, 0xae, 0x28, 0xd7, 0x98, 0x2f, 0x8a, 0x42, 0xcd, 0x65, 0xef, 0x23, 0x91, 0x44, 0x37, 0x71 } },
	{ "AES S-box", { 0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76 } },
	{ "keccak iota", { 0x01, 0, 0, 0, 0, 0, 0, 0, 0x82, 0x80, 0, 0, 0, 0, 0, 0 } },
	{ "bswap mask", { 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12 } },
	/* perlasm's K_XX_XX: each SHA-1 constant four times */
	{ "SHA-1 K", { 0x99, 0x79, 0x82, 0x5a, 0x99, 0x79, 0x82, 0x5a, 0x99, 0x79, 0x82, 0x5a, 0x99, 0x79, 0x82, 0x5a } },
	{ "AES Te0", { 0xc6, 0x63, 0x63, 0xa5, 0xf8, 0x7c, 0x7c, 0x84, 0xee, 0x77, 0x77, 0x99, 0xf6, 0x7b, 0x7b, 0x8d } },
	{ "P-256 .Lpoly", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 } },
	{ "ChaCha sigma", { 'e', 'x', 'p', 'a', 'n', 'd', ' ', '3', '2', '-', 'b', 'y', 't', 'e', ' ', 'k' } },
};

static bool xo_at(uint64_t a)
{
	int i;

	for (i = 0; i < plan.n; i++)
		if (a >= plan.r[i].start && a < plan.r[i].end)
			return plan.r[i].xo;
	return false;
}

static void violation(const char *file, const char *what, uint64_t at, uint64_t target)
{
	violations++;
	printf("VIOLATION\t%s\t%s\t%llx\t%llx\n", file, what, (unsigned long long)at, (unsigned long long)target);
}

/* Does @in access memory through an operand with @reg as base or index? */
static bool uses_as_address(const cs_insn *in, x86_reg reg)
{
	const cs_x86 *x = &in->detail->x86;
	int k;

	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    (x->operands[k].mem.base == reg || x->operands[k].mem.index == reg))
			return true;
	return false;
}

/* The general-purpose register family of @r ("c" for rcx/ecx/cx/cl/ch, "9" for r9/r9d...). */
static void family(x86_reg r, char out[4])
{
	const char *n = cs_reg_name(cs, r);
	size_t l;

	out[0] = 0;
	if (!n)
		return;
	l = strlen(n);
	if (n[0] == 'r' && n[1] >= '0' && n[1] <= '9') {
		/* r8..r15 and their d/w/b parts */
		out[0] = n[1];
		out[1] = n[2] >= '0' && n[2] <= '9' ? n[2] : 0;
		out[2] = 0;
		return;
	}
	if (l >= 2 && (n[0] == 'r' || n[0] == 'e') && l == 3)
		n++;		/* rax/eax -> ax, rsi/esi -> si */
	/* ax/al/ah -> a; si/sil -> si; di, bp, sp the same */
	if ((n[1] == 'x' || n[1] == 'l' || n[1] == 'h') && strchr("abcd", n[0]))
		out[0] = n[0], out[1] = 0;
	else
		out[0] = n[0], out[1] = n[1], out[2] = 0;
}

/* Does @in write @reg or a part of it (capstone names the part it writes)? */
static bool writes(const cs_insn *in, x86_reg reg)
{
	cs_regs rd, wr;
	uint8_t nr, nw, k;
	char f[4], g[4];

	if (cs_regs_access(cs, in, rd, &nr, wr, &nw))
		return true;	/* unknown: stop following the register */
	family(reg, f);
	for (k = 0; k < nw; k++) {
		family((x86_reg)wr[k], g);
		if (wr[k] == reg || (f[0] && !strcmp(f, g)))
			return true;
	}
	return false;
}

static bool is_branch(const cs_insn *in)
{
	int g;

	for (g = 0; g < in->detail->groups_count; g++)
		if (in->detail->groups[g] == CS_GRP_JUMP || in->detail->groups[g] == CS_GRP_CALL ||
		    in->detail->groups[g] == CS_GRP_RET)
			return true;
	return false;
}

/* Capstone's detail of the instruction at @p (@left bytes, address @addr), if it decodes it in @len bytes. */
static const cs_insn *detail(const uint8_t *p, size_t left, uint64_t addr, unsigned int len)
{
	if (!cs_disasm_iter(cs, &p, &left, &addr, insn) || insn->size != len)
		return NULL;
	return insn;
}

/*
 * Does the decoder's text of the instruction at @p name @reg (its 64-bit
 * name: an address register) inside a memory operand's brackets?
 */
static bool text_uses_as_address(const uint8_t *p, size_t left, uint64_t addr, x86_reg reg)
{
	const char *name = cs_reg_name(cs, reg), *b;
	struct dec_insn in;
	size_t n;

	if (!name || !dec_one(dec, p, left, addr, &in, 1))
		return false;
	n = strlen(name);
	for (b = strchr(in.text, '['); b; b = strchr(b + 1, '[')) {
		const char *e = strchr(b, ']'), *q;

		for (q = b + 1; e && q + n <= e; q++)
			if (!strncmp(q, name, n) && (q[-1] == '[' || q[-1] == ' ') && (q[n] == ']' || q[n] == ' '))
				return true;
	}
	return false;
}

/* Linear sweep of [lo, hi) (file bytes @code at address @lo). */
static void sweep(const char *file, const uint8_t *code, uint64_t lo, uint64_t hi)
{
	size_t left = (size_t)(hi - lo), pos = 0;
	x86_reg lea_reg = X86_REG_INVALID;
	uint64_t lea_at = 0, lea_target = 0;
	int lea_left = 0;
	struct dec_insn in;

	swept += left;
	while (pos < left) {
		const cs_insn *ci;
		bool lea, noacc;

		if (!dec_one(dec, code + pos, left - pos, lo + pos, &in, 0)) {
			/*
			 * Undecodable for the decoder (capstone 4 lacks some AVX2,
			 * AVX-512 and newer encodings): a resync would guess
			 * instruction boundaries, and a wrong guess "finds" loads
			 * that are not there.  The rest of this range goes
			 * unchecked, and is counted.
			 */
			unchecked += left - pos;
			if (verbose)
				printf("undecodable\t%s\t%llx\t%llu\n", file, (unsigned long long)(lo + pos),
				       (unsigned long long)(left - pos));
			return;
		}
		all_insns++;
		lea = in.cls & DEC_LEA;
		noacc = lea || (in.cls & DEC_NOACCESS);
		if (lea_left > 0) {
			ci = detail(code + pos, left - pos, lo + pos, in.len);
			if (!ci) {
				/*
				 * One capstone cannot decode (LLVM did): its text says
				 * whether it addresses memory with the register; what it
				 * writes the text does not say, so the follow ends there.
				 */
				if (!lea && !noacc && text_uses_as_address(code + pos, left - pos, lo + pos, lea_reg))
					violation(file, "lea-based access", lea_at, lea_target);
				else
					lea_lost++;
				lea_left = 0;
			} else if (!lea && !noacc && uses_as_address(ci, lea_reg))
				violation(file, "lea-based access", lea_at, lea_target), lea_left = 0;
			else if (is_branch(ci) || writes(ci, lea_reg))
				lea_left = 0;
			else
				lea_left--;
		}
		if ((in.cls & DEC_RIPREL) && xo_at(in.rip_target)) {
			if (!noacc)
				violation(file, "rip-relative access", lo + pos, in.rip_target);
			else if (lea && (ci = detail(code + pos, left - pos, lo + pos, in.len)) &&
				 ci->detail->x86.operands[0].type == X86_OP_REG) {
				lea_reg = ci->detail->x86.operands[0].reg;
				lea_at = lo + pos;
				lea_target = in.rip_target;
				lea_left = 6;
			}
		}
		pos += in.len;
	}
}

/* .eh_frame_hdr's fde_count, or -1 if it has none we can read. */
static long hdr_count(const uint8_t *b, size_t n)
{
	unsigned int skip;
	uint32_t v;

	if (n < 12 || b[0] != 1 || b[2] == 0xff)
		return -1;
	skip = (b[1] & 0x0f) == 0x3 || (b[1] & 0x0f) == 0xb ? 4 : (b[1] & 0x0f) == 0x4 || (b[1] & 0x0f) == 0xc ? 8 : 0;
	if (!skip || (b[2] & 0x0f) != 0x3 || n < 4 + skip + 4)
		return -1;
	memcpy(&v, b + 4 + skip, 4);
	return v;
}

static void check(const char *file)
{
	struct fdes f = { NULL, 0, 0 };
	struct proven_stats pst;
	unsigned long long exec = 0, xo = 0;
	long walked = 0, hdr = -1;
	struct stat st;
	const uint8_t *img;
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *e;
	int fd, r;

	files++;
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < 64) {
		if (fd >= 0)
			close(fd);
		return;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		close(fd);
		return;
	}
	if (memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64 ||
	    ((const Elf64_Ehdr *)img)->e_machine != EM_X86_64 ||
	    (((const Elf64_Ehdr *)img)->e_type != ET_EXEC && ((const Elf64_Ehdr *)img)->e_type != ET_DYN))
		goto out;
	objects++;
	if (rule_proven ? proven_plan(fd, PS, dec, &popts, &plan, &pst) : elfplan_build(fd, PS, &plan)) {
		no_plan++;
		if (verbose)
			printf("noplan\t%s\t%s\n", file, plan.err);
		goto out;
	}
	/* --all-code: the v0 section rule, to show that the checks catch it. */
	for (r = 0; all_code && r < plan.n; r++)
		if (!strcmp(plan.r[r].why, "not covered by any FDE"))
			plan.r[r].xo = true;
	for (r = 0; r < plan.n; r++) {
		exec += plan.r[r].end - plan.r[r].start;
		if (plan.r[r].xo)
			xo += plan.r[r].end - plan.r[r].start;
	}
	all_exec += exec;
	all_xo += xo;
	e = elf_memory((char *)img, (size_t)st.st_size);
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
		if (e)
			elf_end(e);
		goto out;
	}
	/* FDE ranges with the planner's own walk; counted against the linker's table. */
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_offset + sh.sh_size > (uint64_t)st.st_size)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame") && (sh.sh_flags & SHF_ALLOC))
			walked += ehframe_walk(img + sh.sh_offset, sh.sh_size, sh.sh_addr, fdes_add, &f);
		else if (!strcmp(name, ".eh_frame_hdr"))
			hdr = hdr_count(img + sh.sh_offset, sh.sh_size);
		else if ((sh.sh_flags & SHF_EXECINSTR) && (!strcmp(name, ".init") || !strcmp(name, ".fini") ||
			 !strncmp(name, ".plt", 4)))
			fdes_add(&f, sh.sh_addr, sh.sh_addr + sh.sh_size);
	}
	if (hdr >= 0 && hdr != walked) {
		hdr_mismatch++;
		printf("FDECOUNT\t%s\twalked %ld, .eh_frame_hdr %ld\n", file, walked, hdr);
	}
	/* Sweep each covered range: addresses to file bytes through the PF_X segments. */
	for (i = 0; i < f.n; i++) {
		const uint8_t *code = fdes_bytes(e, img, (uint64_t)st.st_size, f.r[i][0], f.r[i][1]);

		if (code)
			sweep(file, code, f.r[i][0], f.r[i][1]);
	}
	/* Known tables in execute-only pages (file bytes of each xo range). */
	for (r = 0; r < plan.n; r++) {
		size_t k, phnum, t;

		if (!plan.r[r].xo || elf_getphdrnum(e, &phnum))
			continue;
		for (k = 0; k < phnum; k++) {
			GElf_Phdr ph;
			uint64_t a, b, o;

			if (!gelf_getphdr(e, k, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			a = plan.r[r].start > ph.p_vaddr ? plan.r[r].start : ph.p_vaddr;
			b = plan.r[r].end < ph.p_vaddr + ph.p_filesz ? plan.r[r].end : ph.p_vaddr + ph.p_filesz;
			for (o = a; o + 16 <= b; o += 4) {
				const uint8_t *q = img + ph.p_offset + (o - ph.p_vaddr);

				if ((uint64_t)(q - img) + 16 > (uint64_t)st.st_size)
					break;
				for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
					if (q[0] == tables[t].b[0] && !memcmp(q, tables[t].b, 16))
						violation(file, tables[t].name, o, o);
			}
		}
	}
	elf_end(e);
	if (verbose)
		printf("object\t%s\t%llu\t%llu\t%ld\t%ld\n", file, exec, xo, walked, hdr);
out:
	free(f.r);
	munmap((void *)img, (size_t)st.st_size);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *err;
	bool plan_only = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--all-code"))
			all_code = true;
		else if (!strcmp(argv[i], "--plan"))
			plan_only = true;
		else if (!strcmp(argv[i], "--rule=proven") || !strcmp(argv[i], "--rule=fde"))
			rule_proven = argv[i][7] == 'p';
		else if (!strcmp(argv[i], "--reloc=walk"))
			popts.reloc = PROVEN_RELOC_WALK;
		else if (!strcmp(argv[i], "--lea-roots"))
			popts.lea_roots = true;
		else if (!strcmp(argv[i], "--no-reads"))
			popts.no_reads = true;
		else if (!strncmp(argv[i], "--decoder=", 10) && dec_backend_of(argv[i] + 10) >= 0)
			backend = (enum dec_backend)dec_backend_of(argv[i] + 10);
		else {
			fprintf(stderr, "usage: planproof [-v] [--plan] [--all-code] [--decoder=capstone|llvm] "
				"[--rule=fde|proven [--reloc=walk] [--lea-roots] [--no-reads]] FILE...|-\n");
			return 2;
		}
	}
	elf_version(EV_CURRENT);
	if (plan_only) {
		for (; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY);

			if (fd < 0 || elfplan_build(fd, PS, &plan)) {
				fprintf(stderr, "planproof: %s: %s\n", argv[i], fd < 0 ? "cannot open" : plan.err);
				return 1;
			}
			close(fd);
			report_plan(argv[i], &plan, 0, REPORT_HUMAN);
		}
		return 0;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK || cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) ||
	    !(insn = cs_malloc(cs))) {
		fprintf(stderr, "planproof: capstone\n");
		return 2;
	}
	if (!(dec = dec_open(backend, 1, &err))) {
		fprintf(stderr, "planproof: --decoder=%s: %s\n", dec_name(backend), err);
		return 2;
	}
	each_file(argc - i, argv + i, check);
	fflush(stdout);
	printf("summary\trule %s\tdecoder %s\tfiles %lu\tobjects %lu\tunplanned %lu\tinsns %llu\tswept %llu\tundecodable %llu bytes\tlea-unfollowed %llu\texec %llu\txo %llu (%.2f%%)\tfdecount-mismatch %lu\tviolations %lu\n",
	       rule_proven ? "proven" : "fde", dec_name(backend), files, objects, no_plan, all_insns, swept, unchecked, lea_lost, all_exec, all_xo,
	       all_exec ? 100.0 * (double)all_xo / (double)all_exec : 0.0, hdr_mismatch, violations);
	(void)bad_files;
	return violations ? 1 : 0;
}
