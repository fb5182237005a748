// SPDX-License-Identifier: GPL-2.0
/*
 * xoscan - find the instructions that can change PKRU in the executable
 * mappings of ELF objects: WRPKRU (0f 01 ef) and XRSTOR, XRSTOR64,
 * XRSTORS, XRSTORS64 (any memory operand), at every byte offset.
 *
 *   xoscan [--tsv|--json] [--tag=PREFIX] FILE|[vdso]...   (xoscan(1))
 *
 * xoload --scan runs it for PROG, the interpreter and its own image, and
 * the audit module runs it for every object ld.so maps.  It is a process
 * of its own, not a library linked into the audited program, for two
 * reasons: capstone (and this parser) would otherwise be code in every
 * program run under xoload, with WRPKRU/XRSTOR byte sequences of its own
 * that the scan would then have to report; and the audit module lives in
 * ld.so's audit namespace, where every library it links is loaded again
 * for every process.  It reads the file, not memory: the code is
 * execute-only in memory, and the file bytes are what the mapping holds
 * (text relocations aside, see xoload(1)).  The vDSO has no file: the
 * argument "[vdso]" scans xoscan's own, which is the same in every process.
 *
 * What is scanned: every file byte a PF_X PT_LOAD maps, page-rounded as
 * the kernel and ld.so map it (so the ELF header or .rodata in an R+X page
 * are scanned too: they are executable).  Each occurrence of the opcode
 * bytes is one finding, reported with
 *   - its link-time address (the offset from the object's load base for a
 *     shared object or PIE) and its file offset;
 *   - the section it is in;
 *   - "boundary" if the linear disassembly of that section (from the
 *     section's start, decode.c's decoder, one byte on after undecodable bytes) has
 *     this instruction at that offset (its prefixes included), "inside" if
 *     it lies within or across other instructions (an unaligned gadget), or
 *     "data" if it is not in an SHF_EXECINSTR section (no disassembly).
 * Why decoding only at 0x0f bytes is enough: each of these instructions is
 * 0x0f, an opcode byte, ModRM, after at most some prefixes, and a decode
 * starting at the 0x0f finds it too.  Capstone 4 does not know WRPKRU (or
 * RDPKRU): it calls 0f 01 ef invalid, so those bytes are matched directly,
 * also in the linear disassembly (decode.c).
 *
 * The decoder (decode.h): capstone 4 in the static xoscan; the host build
 * (build/host/xoscan) has LLVM 14's too, its default, and --decoder=
 * picks one.  What it cannot decode is counted: the findings do not
 * depend on it (every byte offset is matched), but "boundary" and
 * "inside" do, since a linear disassembly that rejects a byte goes on at
 * the next one and may then be out of step.  The count covers the part of
 * each section that was disassembled: only as far as the last finding.
 *
 * Output on stdout (xoload hands it its stderr), one line per finding:
 *   human: "xoscan: OBJECT +0xVADDR (file 0xOFF) SECTION BOUNDARY: INSN"
 *          ("xoload: scan: " instead of "xoscan: " when xoload or the audit
 *          module runs it: --prefix, which errors take too)
 *   tsv:   "scan\tOBJECT\tVADDR\tOFF\tSECTION\tBOUNDARY\tINSN" (hex, no 0x)
 * and one summary line per object:
 *   human: "xoscan: OBJECT: N found in B executable bytes (undecodable: U of D disassembled bytes)"
 *   tsv:   "scan-total\tOBJECT\tN\tB" (four columns, as its readers expect)
 *   json (--json, one object a line): {"scan":"finding","object":...,
 *          "vaddr":N,"offset":N,"section":...,"where":...,"insn":...}
 *          and {"scan":"total","object":...,"found":N,"bytes":N,
 *          "undecodable":U,"disassembled":D,"decoder":"capstone"|"llvm"}
 * Exit status: 0; 1 if a file could not be scanned (one line on stderr,
 * the other files are still scanned): a file the planners' admission
 * (rule/admit.c) refuses is not scanned; 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../run/report.h"
#include "../run/rtplan.h"
#include "decode.h"

#define MAX_SECTS	1024

enum { HUMAN, TSV, JSON };

struct sect {
	uint64_t off, end;
	const char *name;
	bool exec;
	uint8_t *starts;	/* bitmap of linear-disassembly starts, lazily */
	uint64_t done;		/* ... computed for [0, done) of the section */
};

struct obj {
	const char *name;
	const uint8_t *img;	/* the file, mapped; or the vDSO in memory */
	uint64_t fsize;
	struct sect s[MAX_SECTS];
	size_t ns;
	int fmt;		/* HUMAN, TSV, JSON */
	unsigned long found;
	uint64_t undec;		/* bytes the linear disassembly could not decode */
};

static struct dec *dec;
static enum dec_backend backend = DEC_DEFAULT;
/* Before each human line and error: "xoscan: ", or --prefix's (xoload's "xoload: scan: "). */
static const char *pfx = "xoscan: ";

static bool is_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0xf0 || b == 0x2e ||
	       b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 || (b & 0xf0) == 0x40;
}

/*
 * Decode one instruction at @p; its size, or 0 if undecodable.  *@pkru:
 * whether it can set PKRU (decode.h's DEC_PKRU).  Its text in @txt.
 */
static size_t decode(const uint8_t *p, size_t left, uint64_t addr, bool *pkru,
		     char *txt, size_t txtlen)
{
	struct dec_insn in;

	if (!dec_one(dec, p, left, addr, &in, txt != NULL))
		return 0;
	*pkru = in.cls & DEC_PKRU;
	if (txt)
		snprintf(txt, txtlen, "%s", in.text);
	return in.len;
}

/*
 * The bitmap of instruction starts of section @s (linear disassembly),
 * computed as far as offset @upto of the section: only as far as needed,
 * since the disassembly is by far the slowest part (minutes for a libc
 * under TCG if done whole, for every object).
 */
static const uint8_t *starts_of(struct obj *o, struct sect *s, uint64_t upto)
{
	uint64_t len = s->end - s->off;
	const uint8_t *buf = o->img + s->off;
	bool pkru;

	if (!s->starts && !(s->starts = calloc(len / 8 + 1, 1)))
		return NULL;
	while (s->done < len && s->done <= upto) {
		size_t n = decode(buf + s->done, len - s->done, s->done, &pkru, NULL, 0);

		if (n)
			s->starts[s->done / 8] |= (uint8_t)(1u << (s->done % 8));
		else
			o->undec++;
		s->done += n ? n : 1;
	}
	return s->starts;
}

static bool is_start(const uint8_t *bm, uint64_t i)
{
	return bm[i / 8] & (1u << (i % 8));
}

static struct sect *sect_at(struct obj *o, uint64_t off)
{
	size_t i;

	for (i = 0; i < o->ns; i++)
		if (off >= o->s[i].off && off < o->s[i].end)
			return &o->s[i];
	return NULL;
}

/* @s as a JSON string: run/report.c's escaping (valid JSON for any bytes). */
static void json_put(const char *s)
{
	static struct rt_line l;

	l.n = 0;
	rt_put_json(&l, s);
	fwrite(l.b, 1, l.n, stdout);
}

static void finding(struct obj *o, uint64_t vaddr, uint64_t off, const char *sect,
		    const char *where, const char *txt)
{
	o->found++;
	if (o->fmt == JSON) {
		printf("{\"scan\":\"finding\",\"object\":");
		json_put(o->name);
		printf(",\"vaddr\":%llu,\"offset\":%llu,\"section\":", (unsigned long long)vaddr,
		       (unsigned long long)off);
		json_put(sect);
		printf(",\"where\":\"%s\",\"insn\":", where);
		json_put(txt);
		printf("}\n");
	} else if (o->fmt == TSV)
		printf("scan\t%s\t%llx\t%llx\t%s\t%s\t%s\n", o->name, (unsigned long long)vaddr,
		       (unsigned long long)off, sect, where, txt);
	else
		printf("%s%s +0x%llx (file 0x%llx) %s %s: %s\n", pfx, rt_safe(o->name),
		       (unsigned long long)vaddr, (unsigned long long)off, sect, where, txt);
}

/* Scan the file window [off, off+len) that a PF_X segment maps at @vaddr. */
static void scan_window(struct obj *o, const uint8_t *b, uint64_t off, uint64_t len, uint64_t vaddr)
{
	uint64_t pos;

	for (pos = 0; pos + 2 < len; pos++) {
		uint64_t at = pos, fo = off + pos;
		struct sect *s;
		const char *where = "data", *sname;
		char txt[256];
		bool pkru;
		size_t n;

		if (b[pos] != 0x0f)
			continue;
		if (b[pos + 1] == 0x01 && b[pos + 2] == 0xef) {
			snprintf(txt, sizeof(txt), "wrpkru");
		} else if ((b[pos + 1] == 0xae && (b[pos + 2] & 0x38) == 0x28 && b[pos + 2] < 0xc0) ||
			   (b[pos + 1] == 0xc7 && (b[pos + 2] & 0x38) == 0x18 && b[pos + 2] < 0xc0)) {
			/* 0f ae /5 and 0f c7 /3 with a memory operand; capstone decides */
			n = decode(b + pos, len - pos, vaddr + pos, &pkru, txt, sizeof(txt));
			if (!n || !pkru)
				continue;
		} else {
			continue;
		}
		s = sect_at(o, fo);
		sname = s ? s->name : "(no section)";
		if (s && s->exec) {
			const uint8_t *bm = starts_of(o, s, fo - s->off);
			uint64_t j = fo, lo = fo - s->off > 14 ? fo - 14 : s->off;

			where = "inside";
			/* The linear instruction may start at a prefix before the 0x0f. */
			while (bm) {
				if (is_start(bm, j - s->off)) {
					char t2[256];

					/*
					 * Prefixed: the linear instruction at j must be this
					 * one, prefixes and all; report it whole.
					 */
					if (j < fo && !((n = decode(b + (j - off), len - (j - off), 0, &pkru, t2,
								     sizeof(t2))) > fo - j && pkru))
						break;
					if (j < fo)
						snprintf(txt, sizeof(txt), "%s", t2);
					at = j - off;
					where = "boundary";
					break;
				}
				if (j == lo || j <= off || !is_prefix(b[j - 1 - off]))
					break;
				j--;
			}
			if (!bm)
				where = "unknown";
		}
		finding(o, vaddr + at, off + at, sname, where, txt);
	}
}

/* Scan the ELF image @img of @size bytes (a mapped file, or the vDSO). */
static int scan_image(const uint8_t *img, uint64_t size, const char *name, int fmt)
{
	static struct obj o;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t phnum, shstrndx, i;
	uint64_t bytes = 0, dis = 0, ps = (uint64_t)sysconf(_SC_PAGESIZE);
	Elf *e;

	for (i = 0; i < o.ns; i++)
		free(o.s[i].starts);
	memset(&o, 0, sizeof(o));
	o.name = name;
	o.fmt = fmt;
	o.img = img;
	o.fsize = size;
	/* libelf only reads @img: the cast drops a const it does not need. */
	e = elf_memory((char *)img, size);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || gelf_getclass(e) != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(e, &phnum)) {
		fprintf(stderr, "%s%s: not an x86-64 ELF file\n", pfx, rt_safe(name));
		if (e)
			elf_end(e);
		return 1;
	}
	if (!elf_getshdrstrndx(e, &shstrndx)) {
		while ((scn = elf_nextscn(e, scn)) && o.ns < MAX_SECTS) {
			GElf_Shdr sh;
			struct sect *s = &o.s[o.ns];

			if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0 ||
			    sh.sh_offset > size || size - sh.sh_offset < sh.sh_size)
				continue;
			s->off = sh.sh_offset;
			s->end = sh.sh_offset + sh.sh_size;
			s->exec = sh.sh_flags & SHF_EXECINSTR;
			s->name = elf_strptr(e, shstrndx, sh.sh_name);
			if (!s->name)
				s->name = "(unnamed)";
			o.ns++;
		}
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t lo, hi;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    ph.p_filesz == 0 || ph.p_offset >= size)
			continue;
		/* What the mapping holds: whole pages of the file. */
		lo = ph.p_offset & ~(ps - 1);
		hi = ph.p_filesz > size - ph.p_offset ? size : ph.p_offset + ph.p_filesz;
		hi = (hi + ps - 1) & ~(ps - 1);
		if (hi > size)
			hi = size;
		scan_window(&o, img + lo, lo, hi - lo, ph.p_vaddr - (ph.p_offset - lo));
		bytes += hi - lo;
	}
	for (i = 0; i < o.ns; i++)
		dis += o.s[i].done;
	if (fmt == JSON) {
		printf("{\"scan\":\"total\",\"object\":");
		json_put(name);
		printf(",\"found\":%lu,\"bytes\":%llu,\"undecodable\":%llu,\"disassembled\":%llu,\"decoder\":\"%s\"}\n",
		       o.found, (unsigned long long)bytes, (unsigned long long)o.undec, (unsigned long long)dis,
		       dec_name(backend));
	} else if (fmt == TSV)
		printf("scan-total\t%s\t%lu\t%llu\n", name, o.found, (unsigned long long)bytes);
	else
		printf("%s%s: %lu found in %llu executable bytes (undecodable: %llu of %llu disassembled bytes)\n",
		       pfx, rt_safe(name), o.found, (unsigned long long)bytes, (unsigned long long)o.undec,
		       (unsigned long long)dis);
	fflush(stdout);
	elf_end(e);
	return 0;
}

/*
 * What a file the admission refused as "not an ELF file" is, if its first
 * bytes say: a script (and its interpreter) or an ar archive.  Else @why.
 */
static const char *what_is(int fd, const char *why, char *out, size_t outlen)
{
	char b[96] = { 0 };
	ssize_t n;
	size_t i, k;

	if (strcmp(why, "not an ELF file"))
		return why;
	n = pread(fd, b, sizeof(b) - 1, 0);
	if (n >= 2 && b[0] == '#' && b[1] == '!') {
		/* the interpreter, up to the first blank; printable bytes only */
		for (i = 2; i < (size_t)n && (b[i] == ' ' || b[i] == '\t'); i++)
			;
		for (k = i; k < (size_t)n && (unsigned char)b[k] > 0x20 && (unsigned char)b[k] < 0x7f; k++)
			;
		snprintf(out, outlen, "a script (#!%.*s), not an ELF file", (int)(k - i), b + i);
		return out;
	}
	if (n >= 8 && !memcmp(b, "!<arch>\n", 8))
		return "an ar archive (a static library: scan its members once linked), not an ELF file";
	for (i = 0; i < (size_t)n; i++)
		if (((unsigned char)b[i] < 0x20 && !strchr("\t\n\r\f", b[i])) || b[i] == 0x7f)
			return why;
	return n > 0 ? "text, not an ELF file" : why;
}

static int scan_file(const char *path, const char *tag, int fmt)
{
	static struct plan admission;
	char name[4096 + 64];
	struct stat st;
	void *img;
	int fd, ret;

	snprintf(name, sizeof(name), "%s%s", tag, path);
	/* O_NONBLOCK: a FIFO must not wait for a writer before fstat() refuses it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		fprintf(stderr, "%s%s: %s\n", pfx, rt_safe(name),
			fd < 0 ? strerror(errno) : S_ISDIR(st.st_mode) ? "a directory, not a file" :
			S_ISFIFO(st.st_mode) ? "not a regular file: a FIFO" :
			S_ISCHR(st.st_mode) ? "not a regular file: a character device" :
			S_ISBLK(st.st_mode) ? "not a regular file: a block device" :
			S_ISSOCK(st.st_mode) ? "not a regular file: a socket" :
			S_ISREG(st.st_mode) ? "an empty file" : "not a regular file");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/*
	 * The planners' admission (rule/admit.c, through run/rtplan.c): what xoload and the audit
	 * module refuse to plan - a truncated or malformed file, a .o - is
	 * not scanned either, rather than scanned in part and reported with
	 * a count that looks like an answer.
	 */
	if (rtplan_admit(fd, &admission)) {
		char what[160];

		fprintf(stderr, "%s%s: not scanned: %s\n", pfx, rt_safe(name), what_is(fd, admission.err, what, sizeof(what)));
		close(fd);
		return 1;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		fprintf(stderr, "%s%s: %s\n", pfx, rt_safe(name), strerror(errno));
		return 1;
	}
	ret = scan_image(img, (uint64_t)st.st_size, name, fmt);
	munmap(img, (size_t)st.st_size);
	return ret;
}

/*
 * The vDSO has no file, but it is readable and the same in every process:
 * scan our own.  Its image is a whole ELF file, section headers included.
 */
static int scan_vdso(const char *tag, int fmt)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	char name[4096 + 64];
	uint64_t size;
	int i;

	snprintf(name, sizeof(name), "%s[vdso]", tag);
	if (!eh) {
		fprintf(stderr, "%s%s: no vDSO\n", pfx, rt_safe(name));
		return 1;
	}
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	ph = (const Elf64_Phdr *)((const uint8_t *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	return scan_image((const uint8_t *)eh, size, name, fmt);
}

#ifndef XONLY_VERSION
#define XONLY_VERSION "unknown"	/* the Makefile sets it from packaging/debian/changelog */
#endif

static const char usage[] =
"usage: xoscan [--tsv|--json] [--decoder=capstone|llvm] [--tag=TAG] [--prefix=PREFIX] FILE|[vdso]...\n"
"\n"
"Find the instructions that can change PKRU - WRPKRU, XRSTOR, XRSTOR64,\n"
"XRSTORS, XRSTORS64 - in the bytes the executable segments of each ELF\n"
"FILE map, at every byte offset, and say for each whether it lies on an\n"
"instruction boundary of its section's linear disassembly ('boundary'),\n"
"inside other instructions ('inside') or outside code sections ('data').\n"
"'[vdso]' scans the vDSO.  One line per finding, then one total line per\n"
"object, on stdout.  xoload --scan runs it for every loaded object.\n"
"\n"
"options:\n"
"  --tsv           tab-separated values\n"
"  --json          one JSON object per line\n"
"  --decoder=NAME  the linear disassembly's decoder: capstone, or llvm where\n"
"                  built with it (the host build's default); the total line\n"
"                  says how many bytes it could not decode\n"
"  --tag=TAG       put TAG before each object's name\n"
"  --prefix=PREFIX begin human lines and errors with PREFIX instead of\n"
"                  'xoscan: ' (xoload passes 'xoload: scan: ')\n"
"  -h, --help      this text\n"
"      --version   print xoscan's version and exit\n"
"\n"
"exit status: 0; 1 if a file could not be scanned (the others still are):\n"
"not a regular file, or refused by xoload's planner (a .o, a truncated or\n"
"malformed file); 2 usage error.\n";

int main(int argc, char **argv)
{
	const char *tag = "", *err;
	int fmt = HUMAN, i, ret = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--tsv"))
			fmt = TSV;
		else if (!strcmp(argv[i], "--json"))
			fmt = JSON;
		else if (!strncmp(argv[i], "--decoder=", 10) && dec_backend_of(argv[i] + 10) >= 0)
			backend = (enum dec_backend)dec_backend_of(argv[i] + 10);
		else if (!strncmp(argv[i], "--tag=", 6))
			tag = argv[i] + 6;
		else if (!strncmp(argv[i], "--prefix=", 9))
			pfx = argv[i] + 9;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("xoscan (xonly) %s\n", XONLY_VERSION);
			return 0;
		}
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else {
			fprintf(stderr, "usage: xoscan [--tsv|--json] [--tag=TAG] [--prefix=PREFIX] FILE|[vdso]...\n");
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: xoscan [--tsv|--json] [--tag=TAG] [--prefix=PREFIX] FILE|[vdso]...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	if (!(dec = dec_open(backend, 0, &err))) {
		fprintf(stderr, "%s--decoder=%s: %s\n", pfx, dec_name(backend), err);
		return 1;
	}
	for (; i < argc; i++)
		ret |= strcmp(argv[i], "[vdso]") ? scan_file(argv[i], tag, fmt) : scan_vdso(tag, fmt);
	return ret;
}
