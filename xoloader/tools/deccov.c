// SPDX-License-Identifier: GPL-2.0
/*
 * xodeccov - how much of the code that the rule calls code (the ranges
 * of .eh_frame's FDEs) a decoder cannot decode (issue 26: measure before
 * trusting a decoder; host tool).
 *
 *   xodeccov [-v] [--sections] [--decoder=capstone|llvm]... FILE...|-   (names on stdin with -)
 *   xodeccov [--decoder=...]... --hex HEX...             (decode these bytes)
 *
 * For each x86-64 ELF object and each decoder: a linear sweep of every FDE
 * range (an FDE starts at a function's first instruction, so the sweep
 * starts on a boundary), bytes outside all FDEs untouched.  On a byte the
 * decoder rejects, the sweep counts one undecodable byte and goes on at
 * the next byte ("resync at the next byte": the count is the number of
 * rejected start bytes, an under-estimate of the bytes a tool misreads
 * after a failure, which "lost" bounds from above); it also counts "lost",
 * the bytes from the first failure to the end of its FDE, which is what
 * planproof leaves unchecked (it stops there rather than guess).  An
 * instruction that would run past its FDE's end is rejected too.
 * --sections sweeps each whole SHF_EXECINSTR section instead, from its
 * start: what a proof of code without CFI (issue 26 step 2) has to decode,
 * and where hand-written assembly without FDEs lives (libx265); there a
 * rejected byte may also be data, so the count is an upper bound of what
 * the decoder gets wrong.
 * Output, tab-separated:
 *   deccov  DECODER FILE FDE_BYTES UNDECODABLE LOST FIRST   (objects with UNDECODABLE > 0, or all with -v)
 *   deccov-total  DECODER objects N fde-bytes B undecodable U lost L   (section-bytes with --sections)
 * FIRST is the address and bytes of the first rejected instruction.
 * --hex: one line per HEX and decoder, decoded at address 0x1000:
 * "DECODER HEX LEN CLASSES TEXT" (LEN 0 and "undecodable" if rejected),
 * CLASSES the decode.h bits the tools use, comma-separated: pkru, lea,
 * noaccess, branch, stop, call, bad, rip=TARGET, to=TARGET (a direct branch's;
 * hex), or "-"; exit 1 if any was rejected.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rule/ehframe.h"
#include "decode.h"
#include "fdes.h"
#include "files.h"

#define MAX_DEC 2

struct count { unsigned long long objects, fde, undec, lost; };

static struct dec *decs[MAX_DEC];
static enum dec_backend kinds[MAX_DEC];
static struct count totals[MAX_DEC];
static int ndec;
static bool verbose, sections;

/* Sweep [lo, hi) (bytes @code) with decoder @k; @first gets the first failure. */
static void sweep(int k, const uint8_t *code, uint64_t lo, uint64_t hi, struct count *c, char *first, size_t flen)
{
	uint64_t pos = 0, len = hi - lo;
	bool failed = false;
	struct dec_insn in;

	c->fde += len;
	while (pos < len) {
		unsigned int n = dec_one(decs[k], code + pos, (size_t)(len - pos), lo + pos, &in, 0);

		if (n) {
			pos += n;
			continue;
		}
		if (!failed) {
			c->lost += len - pos;
			failed = true;
		}
		if (!first[0]) {
			size_t j, o = (size_t)snprintf(first, flen, "%llx:", (unsigned long long)(lo + pos));

			for (j = 0; j < 8 && pos + j < len && o + 4 < flen; j++)
				o += (size_t)snprintf(first + o, flen - o, " %02x", code[pos + j]);
		}
		c->undec++;
		pos++;
	}
}

static void measure(const char *file)
{
	struct fdes f = { NULL, 0, 0 };
	const uint8_t *img;
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;
	struct stat st;
	Elf *e = NULL;
	int fd, k;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 64) {
		if (fd >= 0)
			close(fd);
		return;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	if (memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64 ||
	    ((const Elf64_Ehdr *)img)->e_machine != EM_X86_64)
		goto out;
	e = elf_memory((char *)img, (size_t)st.st_size);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_offset > (uint64_t)st.st_size ||
		    sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sections && (sh.sh_flags & SHF_ALLOC) && (sh.sh_flags & SHF_EXECINSTR))
			fdes_add(&f, sh.sh_addr, sh.sh_addr + sh.sh_size);
		else if (!sections && name && !strcmp(name, ".eh_frame") && (sh.sh_flags & SHF_ALLOC))
			ehframe_walk(img + sh.sh_offset, sh.sh_size, sh.sh_addr, fdes_add, &f);
	}
	if (!f.n)
		goto out;
	for (k = 0; k < ndec; k++) {
		struct count c = { 0, 0, 0, 0 };
		char first[64] = "";

		for (i = 0; i < f.n; i++) {
			const uint8_t *code = fdes_bytes(e, img, (uint64_t)st.st_size, f.r[i][0], f.r[i][1]);

			if (code)
				sweep(k, code, f.r[i][0], f.r[i][1], &c, first, sizeof(first));
		}
		if (c.undec || verbose)
			printf("deccov\t%s\t%s\t%llu\t%llu\t%llu\t%s\n", dec_name(kinds[k]), file, c.fde, c.undec,
			       c.lost, first[0] ? first : "-");
		totals[k].objects++;
		totals[k].fde += c.fde;
		totals[k].undec += c.undec;
		totals[k].lost += c.lost;
	}
	fflush(stdout);
out:
	if (e)
		elf_end(e);
	free(f.r);
	munmap((void *)img, (size_t)st.st_size);
}

/* The classes of @in as "pkru,lea,noaccess,branch,stop,call,bad,rip=TARGET,to=TARGET" (those it has), or "-". */
static void classes(const struct dec_insn *in, char *out, size_t len)
{
	static const struct { unsigned int bit; const char *name; } names[] = {
		{ DEC_PKRU, "pkru" }, { DEC_LEA, "lea" }, { DEC_NOACCESS, "noaccess" }, { DEC_BRANCH, "branch" },
		{ DEC_STOP, "stop" }, { DEC_CALL, "call" }, { DEC_BAD, "bad" },
	};
	size_t i, o = 0;

	out[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (in->cls & names[i].bit)
			o += (size_t)snprintf(out + o, len - o, "%s%s", o ? "," : "", names[i].name);
	if (in->cls & DEC_RIPREL)
		o += (size_t)snprintf(out + o, len - o, "%srip=%llx", o ? "," : "", (unsigned long long)in->rip_target);
	if (in->cls & DEC_DIRECT)
		snprintf(out + o, len - o, "%sto=%llx", o ? "," : "", (unsigned long long)in->br_target);
	if (!out[0])
		snprintf(out, len, "-");
}

/* Decode the bytes of the hex string @hex with every decoder; 1 if any rejects them. */
static int hex(const char *hexstr)
{
	uint8_t b[32];
	size_t n = 0;
	int k, bad = 0;

	while (hexstr[0] && hexstr[1] && n < sizeof(b)) {
		unsigned int v;

		if (sscanf(hexstr, "%2x", &v) != 1)
			break;
		b[n++] = (uint8_t)v;
		hexstr += 2;
		while (*hexstr == ' ')
			hexstr++;
	}
	for (k = 0; k < ndec; k++) {
		struct dec_insn in;
		unsigned int len = dec_one(decs[k], b, n, 0x1000, &in, 1);
		char cls[64];
		size_t j;

		printf("%s\t", dec_name(kinds[k]));
		for (j = 0; j < n; j++)
			printf("%02x", b[j]);
		classes(&in, cls, sizeof(cls));
		printf("\t%u\t%s\t%s\n", len, cls, len ? in.text : "undecodable");
		bad |= !len;
	}
	return bad;
}

int main(int argc, char **argv)
{
	bool hexmode = false;
	int i, k, ret = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strncmp(argv[i], "--decoder=", 10) && ndec < MAX_DEC && dec_backend_of(argv[i] + 10) >= 0)
			kinds[ndec++] = (enum dec_backend)dec_backend_of(argv[i] + 10);
		else if (!strcmp(argv[i], "--hex"))
			hexmode = true;
		else if (!strcmp(argv[i], "--sections"))
			sections = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else {
			fprintf(stderr, "usage: xodeccov [-v] [--sections] [--decoder=capstone|llvm]... FILE...|-\n"
					"       xodeccov [--decoder=capstone|llvm]... --hex HEX...\n");
			return 2;
		}
	}
	if (!ndec)
		kinds[ndec++] = DEC_CAPSTONE;
	for (k = 0; k < ndec; k++) {
		const char *err;

		/* --hex prints the operand classes too; the sweep needs lengths only */
		if (!(decs[k] = dec_open(kinds[k], hexmode, &err))) {
			fprintf(stderr, "xodeccov: %s: %s\n", dec_name(kinds[k]), err);
			return 2;
		}
	}
	if (hexmode) {
		for (; i < argc; i++)
			ret |= hex(argv[i]);
		return ret;
	}
	elf_version(EV_CURRENT);
	each_file(argc - i, argv + i, measure);
	for (k = 0; k < ndec; k++)
		printf("deccov-total\t%s\tobjects %llu\t%s %llu\tundecodable %llu\tlost %llu\n", dec_name(kinds[k]),
		       totals[k].objects, sections ? "section-bytes" : "fde-bytes", totals[k].fde, totals[k].undec,
		       totals[k].lost);
	return 0;
}
