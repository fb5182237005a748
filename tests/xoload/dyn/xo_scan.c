// SPDX-License-Identifier: GPL-2.0
/*
 * xo_scan.c - xoload --scan finds exactly the instructions that can change
 * PKRU, at the right offsets, with the right instruction-boundary flag.
 *
 * This program's own code and its DT_NEEDED library libpkrugadgets.so hold
 * the gadgets of tests/xoload/lib/pkrugadgets.S at known symbols.  It runs
 * itself under `xoload --scan=tsv` (the child dlopen()s libxoprobe.so and
 * exits) and checks the scan lines against the symbol addresses it sees:
 *   - main program (-z noseparate-code, so .rodata is executable too):
 *     wrpkru at scan_wrpkru+4 (boundary), wrpkru at scan_hidden+1 (inside
 *     the mov), xrstor/xrstor64/xrstors at their symbols (boundary), the
 *     0f 01 ef bytes of scan_data in .rodata ("data"), and nothing else;
 *   - the library (separate code): the five code ones, not scan_data;
 *   - libc: the wrpkru of pkey_set(), on a boundary, inside pkey_set;
 *     ld.so: at least one xrstor (its _dl_runtime_resolve_xsave*);
 *   - the dlopen()ed library, the vDSO and xoload's runtime (xoload, xoaudit.so) are scanned
 *     (a total line each), and a clean program (hello) has 0 findings
 *     (with --plan, which scans PROG and ld.so without running them);
 *   - the human format names the same finding.
 * Offsets are link-time addresses (= offset from the load base, l_addr),
 * and for these objects equal to the file offset.
 * In xonly mode (the xonly=on and xonly=strict boots) this program starts
 * only with its plan, which initramfs/init sets (xonly.plans=1): without
 * one its whole PF_X segment is execute-only and ld.so's first read of
 * its headers dies of SIGSEGV.  Nothing here reads its own code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define AT_XOLOAD	0x584f
#define XOLOAD		"/xonly/bin/xoload"
#define GADGET_LIB	"libpkrugadgets.so"
#define PROBE_LIB	"/xonly/lib/xoload/libxoprobe.so"
#define HELLO		"/xonly/lib/xoload/hello"

extern char scan_wrpkru[], scan_hidden[], scan_xrstor[], scan_xrstor64[], scan_xrstors[];
extern char scan_lfence[], scan_data[];

struct want {
	const char *sym;
	uint64_t vaddr;
	const char *where, *insn;
	int seen;
};

static char out[1 << 20];

/* Run xoload ARGS... with stderr captured in out[]; returns the exit status. */
static int run(char *const argv[])
{
	char path[] = "/tmp/xo_scan.XXXXXX";
	int fd = mkstemp(path), st = -1;
	ssize_t n;
	pid_t pid;

	if (fd < 0)
		tap_bail("mkstemp: %s", errname(errno));
	unlink(path);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		close(1);
		open("/dev/null", O_WRONLY);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	n = pread(fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = 0;
	close(fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static uint64_t base_of(void *handle)
{
	struct link_map *lm = NULL;

	return handle && !dlinfo(handle, RTLD_DI_LINKMAP, &lm) && lm ? lm->l_addr : 0;
}

/* Is @name (an object column) the object we mean by @suffix, not a tagged copy? */
static bool is_obj(const char *name, const char *suffix)
{
	size_t a = strlen(name), b = strlen(suffix);

	return name[0] == '/' && a >= b && !strcmp(name + a - b, suffix);
}

/* The tab-separated fields of the scan lines in out[]. */
struct rec { char *f[7]; int nf; };
static struct rec recs[8192];
static int nrecs;
static char outcopy[sizeof(out)];

static void parse(void)
{
	char *save, *line;

	memcpy(outcopy, out, sizeof(out));
	nrecs = 0;
	for (line = strtok_r(outcopy, "\n", &save); line && nrecs < 8192; line = strtok_r(NULL, "\n", &save)) {
		struct rec *r = &recs[nrecs++];
		char *s = line;

		r->nf = 0;
		while (r->nf < 7 && (r->f[r->nf] = strsep(&s, "\t")))
			r->nf++;
	}
}

/* The count of the scan-total line of @obj, or -1. */
static long total_of(const char *obj)
{
	for (int i = 0; i < nrecs; i++)
		if (recs[i].nf == 4 && !strcmp(recs[i].f[0], "scan-total") && is_obj(recs[i].f[1], obj))
			return strtol(recs[i].f[2], NULL, 10);
	return -1;
}

/* Every scan line of @obj must be one of @w, each of @w seen once; @total the count. */
static void check_object(const char *what, const char *obj, struct want *w, int nw, long total)
{
	int extra = 0, i, k;

	for (k = 0; k < nrecs; k++) {
		char **f = recs[k].f;

		if (recs[k].nf != 7 || strcmp(f[0], "scan") || !is_obj(f[1], obj))
			continue;
		for (i = 0; i < nw; i++)
			if (strtoull(f[2], NULL, 16) == w[i].vaddr && strtoull(f[3], NULL, 16) == w[i].vaddr &&
			    !strcmp(f[5], w[i].where) && !strcmp(f[6], w[i].insn))
				break;
		if (i < nw) {
			w[i].seen++;
		} else {
			extra++;
			tap_diag("%s: unexpected finding: %s %s %s %s %s", what, f[2], f[3], f[4], f[5], f[6]);
		}
	}
	for (i = 0; i < nw; i++)
		tap_ok(w[i].seen == 1, "%s: %s at +0x%llx: %s, %s (seen %d times)", what, w[i].sym,
		       (unsigned long long)w[i].vaddr, w[i].insn, w[i].where, w[i].seen);
	tap_ok(extra == 0 && total_of(obj) == total,
	       "%s: nothing else found (%d unexpected; total line says %ld, want %ld)", what, extra,
	       total_of(obj), total);
}

/* A scan line of @obj in [lo, hi) in section @sect, @where, @insn (prefix)? */
static bool found_in(const char *obj, uint64_t lo, uint64_t hi, const char *sect,
		     const char *where, const char *insn)
{
	for (int k = 0; k < nrecs; k++) {
		char **f = recs[k].f;
		uint64_t v;

		if (recs[k].nf != 7 || strcmp(f[0], "scan") || !is_obj(f[1], obj))
			continue;
		v = strtoull(f[2], NULL, 16);
		if (v >= lo && v < hi && !strcmp(f[4], sect) && !strcmp(f[5], where) &&
		    !strncmp(f[6], insn, strlen(insn)))
			return true;
	}
	return false;
}

/* A scan-total line whose object column starts with @prefix and ends with @suffix? */
static bool total_line(const char *prefix, const char *suffix)
{
	for (int k = 0; k < nrecs; k++) {
		const char *o = recs[k].f[1];

		if (recs[k].nf == 4 && !strcmp(recs[k].f[0], "scan-total") && !strncmp(o, prefix, strlen(prefix)) &&
		    strlen(o) >= strlen(suffix) && !strcmp(o + strlen(o) - strlen(suffix), suffix))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n;
	void *lib, *mainh, *ps;
	uint64_t mb, lb;
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	int st;

	if (getauxval(AT_XOLOAD)) {
		/* The child under xoload: a dlopen to be scanned, then done. */
		(void)argc;
		(void)argv;
		return dlopen(PROBE_LIB, RTLD_NOW) ? 0 : 3;
	}
	tap_init("xoload-scan");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	mainh = dlopen(NULL, RTLD_NOW);
	lib = dlopen(GADGET_LIB, RTLD_NOW | RTLD_NOLOAD);
	if (!mainh || !lib)
		tap_bail("dlopen of self / %s: %s", GADGET_LIB, dlerror());
	mb = base_of(mainh);
	lb = base_of(lib);

	st = run((char *[]){ XOLOAD, "--scan=tsv", self, "child", NULL });
	tap_ok(st == 0, "xoload --scan=tsv %s: status %d", self, st);
	parse();
	{
		struct want w[] = {
			{ "scan_wrpkru+4", (uintptr_t)scan_wrpkru + 4 - mb, "boundary", "wrpkru", 0 },
			{ "scan_hidden+1", (uintptr_t)scan_hidden + 1 - mb, "inside", "wrpkru", 0 },
			{ "scan_xrstor", (uintptr_t)scan_xrstor - mb, "boundary", "xrstor ptr [rdi]", 0 },
			{ "scan_xrstor64", (uintptr_t)scan_xrstor64 - mb, "boundary", "xrstor64 ptr [rdi]", 0 },
			{ "scan_xrstors", (uintptr_t)scan_xrstors - mb, "boundary", "xrstors ptr [rdi]", 0 },
			{ "scan_data", (uintptr_t)scan_data - mb, "data", "wrpkru", 0 },
		};
		check_object("main program", self, w, 6, 6);
	}
	{
		struct want w[] = {
			{ "scan_wrpkru+4", (uintptr_t)dlsym(lib, "scan_wrpkru") + 4 - lb, "boundary", "wrpkru", 0 },
			{ "scan_hidden+1", (uintptr_t)dlsym(lib, "scan_hidden") + 1 - lb, "inside", "wrpkru", 0 },
			{ "scan_xrstor", (uintptr_t)dlsym(lib, "scan_xrstor") - lb, "boundary", "xrstor ptr [rdi]", 0 },
			{ "scan_xrstor64", (uintptr_t)dlsym(lib, "scan_xrstor64") - lb, "boundary", "xrstor64 ptr [rdi]", 0 },
			{ "scan_xrstors", (uintptr_t)dlsym(lib, "scan_xrstors") - lb, "boundary", "xrstors ptr [rdi]", 0 },
		};
		check_object("DT_NEEDED " GADGET_LIB, "/" GADGET_LIB, w, 5, 5);
	}
	/* libc: pkey_set() is glibc's WRPKRU. */
	ps = dlsym(RTLD_DEFAULT, "pkey_set");
	if (ps && dladdr1(ps, &di, (void **)&sym, RTLD_DL_SYMENT) && sym) {
		uint64_t lo = (uintptr_t)ps - (uintptr_t)di.dli_fbase, hi = lo + sym->st_size;

		tap_ok(found_in("/libc.so.6", lo, hi, ".text", "boundary", "wrpkru"),
		       "libc: wrpkru on a boundary inside pkey_set [0x%llx, 0x%llx)",
		       (unsigned long long)lo, (unsigned long long)hi);
	} else {
		tap_ok(false, "libc's pkey_set and its size: %s", dlerror());
	}
	tap_ok(found_in("/ld-linux-x86-64.so.2", 0, UINT64_MAX, ".text", "boundary", "xrstor ptr ["),
	       "ld.so: xrstor on a boundary (its lazy-binding trampolines)");
	tap_ok(total_of(PROBE_LIB) >= 0, "the dlopen()ed %s is scanned (%ld found)", PROBE_LIB, total_of(PROBE_LIB));
	tap_ok(total_line("[vdso]", "[vdso]"), "the vDSO is scanned");
	/* --scan runs under xoplan, the xoload with a libc for the options that print (xoload.1). */
	tap_ok(total_line("[xoload runtime] ", "/xoplan") && total_line("[xoload runtime] ", "/xoaudit.so"),
	       "xoload's runtime (the image that ran, xoplan, and the audit module, which has no libc) is scanned");

	/* --plan --scan: PROG and ld.so only, nothing runs (and it is faster under TCG). */
	st = run((char *[]){ XOLOAD, "--plan", "--scan=tsv", HELLO, NULL });
	parse();
	tap_ok(st == 0 && total_of(HELLO) == 0 && !found_in(HELLO, 0, UINT64_MAX, ".text", "boundary", ""),
	       "a clean program (%s): status %d, total line says %ld found (want 0)", HELLO, st, total_of(HELLO));

	st = run((char *[]){ XOLOAD, "--plan", "--scan", self, NULL });
	{
		char pat[4200];

		snprintf(pat, sizeof(pat), "xoload: scan: %s +0x%llx (file 0x%llx) .text inside: wrpkru\n", self,
			 (unsigned long long)((uintptr_t)scan_hidden + 1 - mb),
			 (unsigned long long)((uintptr_t)scan_hidden + 1 - mb));
		tap_ok(st == 0 && strstr(out, pat), "human format: '%.*s'", (int)strlen(pat) - 1, pat);
	}
	(void)scan_lfence;
	return tap_done();
}
