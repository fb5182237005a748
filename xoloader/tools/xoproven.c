// SPDX-License-Identifier: GPL-2.0
/*
 * xoproven - the proven-code rule (proven.h) against the FDE rule, per
 * object, on the host (issue 26 step 2; the plans are computed offline,
 * never by xoload).
 *
 *   xoproven [--decoder=capstone|llvm] [--reloc=none|walk] [--lea-roots] [--no-reads] [--trace]
 *            [--plan[=human|tsv|json] | --check] FILE...|-
 *
 * One line per x86-64 executable or shared object (tab-separated):
 *   object FILE exec_pages fde_xo_pages proven_xo_pages code_bytes fde_xo_code proven_xo_code
 *          roots=BRANCH/ENTRY/SYMBOL/RELOC/LEA kept=K dropped=D fde_bytes=F proven_bytes=P read_pages=R
 *          undecodable=U go=FUNCTIONS/BYTES [section-rule|withheld]
 * (withheld: the decoder rejected a byte of the code, nothing is proven)
 * pages: of the PF_X segments; code bytes: of the SHF_EXECINSTR sections,
 * and of those the bytes in execute-only pages under each rule (the
 * survey's code-byte headline, issue 26 step 4).  Then a "total" line.
 * --plan prints the proven-code plan of each file instead (on stderr, in
 * xoload --report's formats).  --reloc=walk adds relocation targets as
 * roots, --lea-roots lea targets and --no-reads drops the read check: all
 * three are unsafe and there for the tests and the measurements.  --trace
 * prints each read the check sees: "read rip|lea FROM TARGET" (hex).
 * --check prints instead the proven plan's safety invariant against the
 * FDE rule's plan (proven.h, check_*): "check FILE lifted=N taken=N
 * violations=N [the first]", then "check-total ...", status 1 if any
 * object breaks it.
 * Files that are not x86-64 executables or shared objects are skipped
 * (counted).  Exit status: 0; 1 if a file could not be opened or planned
 * (one line each on stderr); 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ref/elfplan.h"
#include "apply.h"
#include "codebytes.h"
#include "files.h"
#include "proven.h"

#define PS 4096

static const char usage[] =
"usage: xoproven [--decoder=capstone|llvm] [--reloc=none|walk] [--lea-roots] [--no-reads] [--trace]\n"
"                [--plan[=human|tsv|json] | --check] FILE...|-\n";

static struct plan fde, prv;
static struct dec *dec;
static struct proven_opts opts;
static enum report_fmt plan_fmt;
static bool plan_only;
static unsigned long long tot[6], troots[NROOT], tkept, tdropped, tfde, tproven, treads, tundec;
static unsigned long objects, failed, skipped;
static unsigned long long tlifted, ttaken, tviol, violators;

static void one(const char *file)
{
	const struct plan *const both[2] = { &fde, &prv };
	unsigned long long pages[3] = { 0, 0, 0 }, code[3];
	uint64_t c, cx[2];
	Elf *e;
	struct proven_stats st;
	unsigned char m[20];
	int fd = open(file, O_RDONLY), r;

	if (fd < 0) {
		fprintf(stderr, "xoproven: %s: %s\n", file, strerror(errno));
		failed++;
		return;
	}
	if (pread(fd, m, sizeof(m), 0) != (ssize_t)sizeof(m) || memcmp(m, ELFMAG, SELFMAG) ||
	    m[EI_CLASS] != ELFCLASS64 || m[18] != EM_X86_64 || (m[16] != ET_EXEC && m[16] != ET_DYN)) {
		close(fd);
		skipped++;
		return;	/* not an x86-64 executable or shared object: not ours to plan */
	}
	if (elfplan_build(fd, PS, &fde) || proven_plan(fd, PS, dec, &opts, &prv, &st)) {
		fprintf(stderr, "xoproven: %s: %s\n", file, fde.err[0] ? fde.err : prv.err);
		failed++;
		close(fd);
		return;
	}
	if (plan_only) {
		report_plan(file, &prv, 0, plan_fmt);
		close(fd);
		return;
	}
	if (opts.check) {
		printf("check\t%s\tlifted=%llu\ttaken=%llu\tviolations=%llu%s%s\n", file,
		       (unsigned long long)st.check_lifted, (unsigned long long)st.check_taken,
		       (unsigned long long)st.check_violations, st.check_violations ? "\t" : "", st.check_msg);
		objects++;
		tlifted += st.check_lifted;
		ttaken += st.check_taken;
		tviol += st.check_violations;
		violators += st.check_violations > 0;
		close(fd);
		return;
	}
	objects++;
	for (r = 0; r < fde.n; r++)
		pages[0] += (fde.r[r].end - fde.r[r].start) / PS;
	pages[1] = elfplan_xo_pages(&fde, PS);
	pages[2] = elfplan_xo_pages(&prv, PS);
	/* the survey's headline (xosurvey: the same function on the FDE plan) */
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	code_bytes(e, both, 2, &c, cx);
	if (e)
		elf_end(e);
	code[0] = c, code[1] = cx[0], code[2] = cx[1];
	close(fd);
	printf("object\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\troots=%llu/%llu/%llu/%llu/%llu\tkept=%llu\tdropped=%llu\t"
	       "fde_bytes=%llu\tproven_bytes=%llu\tread_pages=%llu\tundecodable=%llu\tgo=%llu/%llu%s\n",
	       file, pages[0], pages[1], pages[2], code[0], code[1], code[2],
	       (unsigned long long)st.roots[0], (unsigned long long)st.roots[1], (unsigned long long)st.roots[2],
	       (unsigned long long)st.roots[3], (unsigned long long)st.roots[4], (unsigned long long)st.kept, (unsigned long long)st.dropped,
	       (unsigned long long)st.fde_bytes, (unsigned long long)st.proven_bytes,
	       (unsigned long long)st.read_pages, (unsigned long long)st.undecodable,
	       (unsigned long long)st.go_functions, (unsigned long long)st.go_bytes,
	       st.section_rule ? "\tsection-rule" : st.withheld ? "\twithheld" : "");
	for (r = 0; r < 3; r++)
		tot[r] += pages[r], tot[r + 3] += code[r];
	for (r = 0; r < NROOT; r++)
		troots[r] += st.roots[r];
	tkept += st.kept;
	tdropped += st.dropped;
	tfde += st.fde_bytes;
	tproven += st.proven_bytes;
	treads += st.read_pages;
	tundec += st.undecodable;
}

static double pct(unsigned long long a, unsigned long long b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

int main(int argc, char **argv)
{
	enum dec_backend backend = DEC_DEFAULT;
	const char *err;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--decoder=", 10) && dec_backend_of(a + 10) >= 0)
			backend = (enum dec_backend)dec_backend_of(a + 10);
		else if (!strcmp(a, "--reloc=none") || !strcmp(a, "--reloc=walk"))
			opts.reloc = a[8] == 'w' ? PROVEN_RELOC_WALK : PROVEN_RELOC_NONE;
		else if (!strcmp(a, "--lea-roots"))
			opts.lea_roots = true;
		else if (!strcmp(a, "--no-reads"))
			opts.no_reads = true;
		else if (!strcmp(a, "--trace"))
			opts.trace = stdout;
		else if (!strcmp(a, "--check"))
			opts.check = true;
		else if (!strcmp(a, "--plan") || !strcmp(a, "--plan=human"))
			plan_only = true, plan_fmt = REPORT_HUMAN;
		else if (!strcmp(a, "--plan=tsv"))
			plan_only = true, plan_fmt = REPORT_TSV;
		else if (!strcmp(a, "--plan=json"))
			plan_only = true, plan_fmt = REPORT_JSON;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return fputs(usage, stdout), 0;
		else
			return fprintf(stderr, "xoproven: unknown option %s\n%s", a, usage), 2;
	}
	if (i == argc)
		return fputs(usage, stderr), 2;
	elf_version(EV_CURRENT);
	if (!(dec = dec_open(backend, 1, &err))) {
		fprintf(stderr, "xoproven: --decoder=%s: %s\n", dec_name(backend), err);
		return 2;
	}
	each_file(argc - i, argv + i, one);
	if (opts.check) {
		printf("check-total\tdecoder %s\tobjects %lu\tskipped %lu\tfailed %lu\tlifted %llu\ttaken %llu\t"
		       "violations %llu in %llu objects\n", dec_name(backend), objects, skipped, failed, tlifted, ttaken,
		       tviol, violators);
		dec_close(dec);
		return failed || tviol ? 1 : 0;
	}
	if (!plan_only)
		printf("total\tdecoder %s\treloc %s\tobjects %lu\tskipped %lu\tfailed %lu\tpages %llu\tfde-xo %llu (%.2f%%)\t"
		       "proven-xo %llu (%.2f%%)\tcode-bytes %llu\tfde-xo %llu (%.2f%%)\tproven-xo %llu (%.2f%%)\t"
		       "roots %llu/%llu/%llu/%llu/%llu\tkept %llu\tdropped %llu\tfde-bytes %llu\tproven-bytes %llu\t"
		       "read-pages %llu\tundecodable %llu\n",
		       dec_name(backend), opts.reloc == PROVEN_RELOC_WALK ? "walk" : "none", objects, skipped, failed,
		       tot[0], tot[1], pct(tot[1], tot[0]), tot[2], pct(tot[2], tot[0]),
		       tot[3], tot[4], pct(tot[4], tot[3]), tot[5], pct(tot[5], tot[3]),
		       troots[0], troots[1], troots[2], troots[3], troots[4], tkept, tdropped, tfde, tproven, treads, tundec);
	dec_close(dec);
	return failed ? 1 : 0;
}
