// SPDX-License-Identifier: GPL-2.0
/*
 * xoload - run an unmodified ELF program with all of its code execute-only.
 *
 * xoload is a static preloader in the style of Wine's loader/preloader.c:
 * it maps PROG and its PT_INTERP (ld.so) itself, turns the code-only pages
 * of their executable segments into PROT_EXEC mappings (the kernel gives
 * them the execute-only pkey), builds a new initial stack whose auxv
 * describes PROG instead of xoload, and jumps to ld.so's entry point (or
 * PROG's, for a static program).  The first instruction of ld.so already
 * runs from execute-only memory.  Objects ld.so maps later (DT_NEEDED,
 * dlopen) are handled by the audit module xoaudit.so, which xoload names
 * in LD_AUDIT.  See README.md for why, and for what stays readable.
 */
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "deps.h"
#include "load.h"
#include "report.h"
#include "rt/rtplan.h"
#include "xoload.h"
#include "xonly/uapi.h"

#ifndef XOLOAD_AUDIT_DEFAULT
#define XOLOAD_AUDIT_DEFAULT "/xonly/lib/xoaudit.so"
#endif
#ifndef XOLOAD_XOSCAN_DEFAULT
#define XOLOAD_XOSCAN_DEFAULT "/xonly/bin/xoscan"
#endif

#ifndef XONLY_VERSION
#define XONLY_VERSION "unknown"	/* the Makefile sets it from packaging/debian/changelog */
#endif

static const char usage[] =
"usage: xoload [OPTIONS] PROG [ARGS...]\n"
"\n"
"Run PROG (searched on PATH when it has no '/') so that all of its code -\n"
"the program, its ELF interpreter, every DT_NEEDED library and every\n"
"library it dlopens - is mapped execute-only (PROT_EXEC without PROT_READ,\n"
"backed by the kernel's execute-only protection key) before any of that\n"
"code runs.  Pages of an executable segment that also hold data (ELF\n"
"headers, .rodata, .eh_frame: binaries linked without -z separate-code;\n"
"tables in .text that no .eh_frame FDE covers: OpenSSL) stay readable;\n"
"objects with text relocations stay readable (warning).\n"
"The vDSO stays readable: ld.so reads its symbol tables.\n"
"\n"
"options:\n"
"  --report[=human|tsv|json]\n"
"                        print one line per executable range on stderr:\n"
"                        object, address range, 'xo' or 'readable', why\n"
"                        (json: one JSON object per line)\n"
"  --plan[=human|tsv|json]\n"
"                        print the plan on stdout and exit without running\n"
"                        anything (needs no pkeys): PROG, its interpreter and\n"
"                        every library of its closure as ld.so would resolve\n"
"                        it (DT_NEEDED, DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH,\n"
"                        /etc/ld.so.cache, the default directories), like\n"
"                        ldd without running PROG.  PROG may be any object:\n"
"                        a library or plugin too, found as ld.so finds one\n"
"                        when PATH does not have it (libcrypto.so.3)\n"
"  --no-deps             with --plan: PROG and its interpreter only\n"
"  --scan[=human|tsv|json]\n"
"                        scan the code of every loaded object (PROG, its\n"
"                        interpreter, each library, xoload's own runtime,\n"
"                        the vDSO) for instructions that can change PKRU:\n"
"                        WRPKRU, XRSTOR, XRSTOR64, XRSTORS, XRSTORS64, at\n"
"                        every byte offset; one line each on stderr (object,\n"
"                        offset, section, on an instruction boundary or not)\n"
"  --strict              refuse (exit 126) an object of which no code can be\n"
"                        made execute-only (TEXTREL, no section headers)\n"
"  --permissive          run PROG even when its code cannot all be protected\n"
"                        (the audit module did not run, an object cannot be\n"
"                        planned or protected), with a warning for each;\n"
"                        without it xoload stops PROG before any of its code\n"
"                        runs (exit 126, one line naming the object)\n"
"  --no-inherit          programs PROG execs run normally (default: they are\n"
"                        run under xoload again, see xoload(1))\n"
"  --kernel              let the kernel do it: set the xonly exec mode\n"
"                        (prctl PR_SET_XONLY, see xonly(7)) and\n"
"                        execve PROG; every file-backed PROT_READ|PROT_EXEC\n"
"                        mapping, PROG's, ld.so's and each library's, is then\n"
"                        execute-only, and so are all descendants (the flag\n"
"                        cannot be cleared).  The audit module gives each\n"
"                        object's data pages (tables in .text, headers)\n"
"                        their read back: pkey_mprotect(..., 0).  Not with\n"
"                        --report, --plan, --scan, --strict, --no-inherit,\n"
"                        --permissive, --audit\n"
"  --argv0=NAME          pass NAME as argv[0] instead of PROG\n"
"  --audit=PATH          the audit module (default: " XO_AUDIT_FROM_XOLOAD "\n"
"                        from xoload's directory, else\n"
"                        " XOLOAD_AUDIT_DEFAULT ")\n"
"  -h, --help            this text\n"
"      --version         print xoload's version and exit\n"
"\n"
"exit status: PROG's own; PROG is not a child, so a death by signal is\n"
"seen by the caller as that signal (a shell reports 128+N).  xoload's own\n"
"errors: 127 PROG or its interpreter not found, 126 not executable or\n"
"malformed, or set-user-ID, set-group-ID or with file capabilities (xoload\n"
"cannot carry those privileges), or no protection keys on this machine, or\n"
"the audit module did not run, or an object cannot be planned (before any\n"
"of PROG's code runs),\n"
"2 usage error (also: --report and --plan with different formats).  Errors\n"
"are one line on stderr.\n";

static char prog_path[PATH_MAX];
static char audit_env[PATH_MAX + 32];
static char audit_path[PATH_MAX];
static char xoscan_path[PATH_MAX];
static char self_path[PATH_MAX];
static char prog_env[PATH_MAX + 32];	/* XOLOAD_PROG=PROG, see reexec_args() */

/*
 * One line on stderr.  Paths in it come from the command line and from the
 * files (PT_INTERP): control characters (and bytes that are not valid
 * UTF-8) go out as \xNN, or a newline in an interpreter name would make an
 * error two lines.
 */
static void line(const char *prefix, const char *msg)
{
	size_t n;

	/* and bytes that are not valid UTF-8, as the report lines (rt/report.c) */
	fputs(prefix, stderr);
	while (*msg) {
		unsigned char c = (unsigned char)*msg;

		if (c < 0x20 || c == 0x7f || !(n = rt_utf8_len(msg))) {
			fprintf(stderr, "\\x%02x", c);
			msg++;
		} else {
			fwrite(msg, 1, n, stderr);
			msg += n;
		}
	}
	fputc('\n', stderr);
}

static void __attribute__((noreturn)) die(int code, const char *msg)
{
	line("xoload: ", msg);
	exit(code);
}

/* Find @name like execvp: on PATH when it has no slash. */
/*
 * Without protection keys (PKU in CPUID, and OSPKE: the kernel enabled
 * them), PROT_EXEC alone is readable on x86: running PROG then would look
 * like success and protect nothing.  CPUID can claim PKU where the kernel
 * left CR4.PKE off, hence both bits.
 */
static bool have_pkeys(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return (ecx & (1u << 3)) && (ecx & (1u << 4));
}

static int find_prog(const char *name, char *out, char *err, size_t errlen)
{
	const char *path = getenv("PATH"), *p, *e;

	if (!*name) {
		snprintf(err, errlen, "empty program name");
		return 127;
	}
	if (strchr(name, '/')) {
		snprintf(out, PATH_MAX, "%s", name);
		return 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = e + 1) {
		struct stat st;
		int n;

		e = strchrnul(p, ':');
		n = snprintf(out, PATH_MAX, "%.*s%s%s", (int)(e - p), p, e == p ? "" : "/", name);
		if (n < PATH_MAX && !stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		if (!*e)
			break;
	}
	snprintf(err, errlen, "%s: command not found", name);
	return 127;
}

/*
 * @out = DIR/@rel, resolved, for xoload's own directory DIR if that
 * exists, else @dflt.  DIR is that of /proc/self/exe, which the kernel
 * has resolved: a symlink to xoload (bin/ -> libexec/) finds what lies
 * next to the real file.
 */
static void next_to_self(char *out, const char *rel, const char *dflt)
{
	char exe[PATH_MAX], cand[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n > 0) {
		exe[n] = 0;
		snprintf(self_path, sizeof(self_path), "%s", exe);
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(cand, sizeof(cand), "%s/%s", exe, rel);
			if (!access(cand, R_OK) && realpath(cand, out))
				return;
		}
	}
	snprintf(out, PATH_MAX, "%s", dflt);
}

/* The flag for --report/--plan/--scan's =FORMAT: human (0), tsv or json. */
static unsigned int format_flag(const char *fmt, unsigned int tsv, unsigned int json)
{
	if (!fmt || !strcmp(fmt, "human"))
		return 0;
	if (!strcmp(fmt, "tsv"))
		return tsv;
	if (!strcmp(fmt, "json"))
		return json;
	die(2, "--report, --plan and --scan take 'human', 'tsv' or 'json'");
}

/*
 * --plan defers its warnings until every object is planned: an error
 * then stays the one line on stderr (xofuzz checks), the warnings are
 * dropped with the plan.
 */
static char *warnings;
static size_t warnlen;
static bool defer_warnings;

static void warn(const char *msg)
{
	size_t n = strlen(msg);
	char *w;

	if (!defer_warnings) {
		line("xoload: warning: ", msg);
		return;
	}
	w = realloc(warnings, warnlen + n + 1);
	if (!w)
		die(126, "out of memory");
	warnings = w;
	memcpy(warnings + warnlen, msg, n + 1);
	warnlen += n + 1;
}

static void flush_warnings(void)
{
	size_t k;

	for (k = 0; k < warnlen; k += strlen(warnings + k) + 1)
		line("xoload: warning: ", warnings + k);
	warnlen = 0;
}

/* Plan @im; warn about (or, --strict, refuse) objects that stay readable. */
static void plan_image(struct image *im, struct plan *p, unsigned int flags)
{
	char err[PATH_MAX + 200];

	if (rtplan_build(im->fd, (size_t)sysconf(_SC_PAGESIZE), p)) {
		snprintf(err, sizeof(err), "%s: cannot be planned: %s", im->path, p->err);
		die(126, err);
	}
	if (rtplan_xo_pages(p, (size_t)sysconf(_SC_PAGESIZE)) == 0) {
		const char *why = p->n ? p->r[0].why : "no executable segment";

		snprintf(err, sizeof(err), "%s: no page can be execute-only (%s)%s", im->path, why,
			 flags & XOF_STRICT ? "; refused (--strict)" : ": kept readable");
		if (flags & XOF_STRICT)
			die(126, err);
		warn(err);
	}
}

/*
 * A set-user-ID or set-group-ID PROG, or one with file capabilities: the
 * kernel grants those when it executes PROG, but here it executed xoload,
 * which maps PROG itself.  Running it without them would be a different
 * program (one that fails, or does something else, without its rights):
 * refuse, unless we have them already (the file's owner or group, root
 * for capabilities).  --plan runs nothing and plans such files.
 */
static void refuse_privileged(const struct image *im)
{
	char err[PATH_MAX + 300];
	const char *what = NULL;
	struct stat st;

	if (fstat(im->fd, &st))
		return;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		what = "set-user-ID";
	else if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
		what = "set-group-ID";	/* S_ISGID without S_IXGRP is no set-group-ID */
	else if (geteuid() != 0 && fgetxattr(im->fd, "security.capability", NULL, 0) >= 0)
		what = "given file capabilities";
	if (!what)
		return;
	snprintf(err, sizeof(err),
		 "%s: %s: xoload cannot run it with those privileges (the kernel executed xoload, not it); "
		 "run it without xoload, or as the user it would run as", im->path, what);
	die(126, err);
}

/*
 * --plan: PROG, its interpreter and (unless --no-deps) every library of
 * PROG's closure, breadth first as ld.so loads them (deps.c resolves the
 * names), each once (by resolved path); the plan lines on stdout, the
 * --scan lines on stderr as always.  A library that cannot be found or
 * planned stops it, as it stops ld.so: one line, 127 or 126.
 */
#define CLOSURE_MAX	1024

static int plan_closure(struct image *prog, struct plan *pplan0, struct plan *iplan, unsigned int flags,
			bool no_deps)
{
	static struct image im;
	static struct plan scratch;
	struct plan *pplan = &scratch;
	static struct {
		char path[PATH_MAX], real[PATH_MAX], origin[PATH_MAX];
		char *rpath;	/* DT_RPATH, if it counts (no DT_RUNPATH), else NULL */
		int loader;
		struct plan_range *r;	/* its plan, printed when all are planned */
		int nr;
	} *o;
	const char *files[12];
	int n = 0, i, k, nf = 0;
	char err[3 * PATH_MAX + 200];

	o = calloc(CLOSURE_MAX, sizeof(*o));
	if (!o)
		die(126, "out of memory");
	snprintf(o[n].path, PATH_MAX, "%s", prog_path);
	o[n++].loader = -1;
	if (prog->has_interp) {
		snprintf(o[n].path, PATH_MAX, "%s", prog->interp);
		o[n++].loader = -1;
	}
	for (i = 0; i < n; i++) {
		if (!realpath(o[i].path, o[i].real))
			snprintf(o[i].real, PATH_MAX, "%s", o[i].path);
		dep_origin(o[i].path, o[i].origin);
	}
	for (i = 0; i < n && !no_deps; i++) {
		struct dyninfo d;
		struct rpath rp[CLOSURE_MAX];
		int nrp = 0, l;

		if (i == 1 && prog->has_interp)
			continue;	/* ld.so's own DT_NEEDED are none */
		if (i == 0) {
			im = *prog;
		} else {
			int rc = image_open_obj(&im, o[i].path, false, err, sizeof(err));

			if (rc)
				die(rc, err);
		}
		if ((k = dyn_read(&im, &d, err, sizeof(err))))
			die(k, err);
		if (d.rpath && !d.runpath)
			o[i].rpath = strdup(d.rpath);
		if (i > 0) {
			plan_image(&im, pplan, flags);
			o[i].nr = pplan->n;
			o[i].r = malloc(sizeof(*o[i].r) * (size_t)(pplan->n ? pplan->n : 1));
			if (!o[i].r)
				die(126, "out of memory");
			memcpy(o[i].r, pplan->r, sizeof(*o[i].r) * (size_t)pplan->n);
		}
		/* DT_RPATH: this object's and its loaders', unless it has a DT_RUNPATH. */
		for (l = d.runpath ? -1 : i; l >= 0 && nrp < CLOSURE_MAX; l = o[l].loader)
			if (o[l].rpath) {
				rp[nrp].origin = o[l].origin;
				rp[nrp++].path = o[l].rpath;
			}
		for (k = 0; k < d.nneeded; k++) {
			const char *name = d.strtab + d.needed[k];
			char found[PATH_MAX], real[PATH_MAX];
			int j;

			if (dep_find(name, rp, nrp, o[i].origin, d.runpath, found)) {
				snprintf(err, sizeof(err), "%s: %s: not found (needed by %s)", prog_path, name, o[i].path);
				die(127, err);
			}
			if (!realpath(found, real))
				snprintf(real, sizeof(real), "%s", found);
			for (j = 0; j < n && strcmp(o[j].real, real); j++)
				;
			if (j < n)
				continue;
			if (n == CLOSURE_MAX) {
				snprintf(err, sizeof(err), "%s: more than %d objects in its closure", prog_path, CLOSURE_MAX);
				die(126, err);
			}
			snprintf(o[n].path, PATH_MAX, "%s", found);
			snprintf(o[n].real, PATH_MAX, "%s", real);
			dep_origin(found, o[n].origin);
			o[n++].loader = i;
		}
		free(d.strtab);
		if (i > 0)
			close(im.fd);
	}
	/* All found and planned: the warnings, then the plans in order. */
	flush_warnings();
	rt_report_fd = 1;
	report_plan(prog_path, pplan0, 0, report_fmt(flags));
	if (prog->has_interp)
		report_plan(prog->interp, iplan, 0, report_fmt(flags));
	for (i = prog->has_interp ? 2 : 1; i < n; i++) {
		pplan->n = o[i].nr;
		memcpy(pplan->r, o[i].r, sizeof(*o[i].r) * (size_t)o[i].nr);
		report_plan(o[i].path, pplan, 0, report_fmt(flags));
	}
	fflush(NULL);
	if (flags & XOF_SCAN) {
		int st = 0;

		for (i = 0; i < n; i++) {
			files[nf++] = o[i].path;
			if (nf == 10 || i == n - 1) {
				files[nf] = NULL;
				st |= scan_run(xoscan_path, "", scan_fmtopt(flags), files);
				nf = 0;
			}
		}
		(void)st;
	}
	return 0;
}

/*
 * xoload's own code: never run again after the handover, so execute-only
 * as well (the handover itself runs fine from it).  It is linked with
 * -z separate-code, so its PF_X segment holds code only.
 */
static int protect_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	int i;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		uint64_t a = (info->dlpi_addr + ph->p_vaddr) & ~(ps - 1);
		uint64_t b = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + ps - 1) & ~(ps - 1);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			mprotect((void *)a, b - a, PROT_EXEC);
	}
	return 1;	/* the first object is xoload itself */
}

/*
 * The gate (xoload.h): PROG's AT_ENTRY while ld.so runs.  Entered from
 * ld.so's _dl_start_user with PROG's initial stack and rdx = _dl_fini,
 * both kept; the other registers are free at a program's entry.  Raw
 * system calls only: xoload's libc is not ours to use any more.
 */
struct xoload_gate gate;
_Static_assert(offsetof(struct xoload_gate, entry) == 0 && offsetof(struct xoload_gate, confirmed) == 8 &&
	       offsetof(struct xoload_gate, permissive) == 24 && offsetof(struct xoload_gate, msglen) == 32 &&
	       offsetof(struct xoload_gate, msg) == 40, "the gate stub's offsets");

void xoload_gate_entry(void);
__asm__(".text\n"
	".globl xoload_gate_entry\n"
	".hidden xoload_gate_entry\n"
	"xoload_gate_entry:\n\t"
	"movabs $" XOLOAD_GATE_OK_STR ", %rax\n\t"
	"cmp %rax, gate+8(%rip)\n\t"
	"je 2f\n\t"
	"mov %rdx, %r12\n\t"
	"mov $1, %eax\n\t"			/* write(2, gate.msg, gate.msglen) */
	"mov $2, %edi\n\t"
	"lea gate+40(%rip), %rsi\n\t"
	"mov gate+32(%rip), %rdx\n\t"
	"syscall\n\t"
	"cmpq $0, gate+24(%rip)\n\t"
	"jne 1f\n\t"
	"mov $231, %eax\n\t"			/* exit_group(126) */
	"mov $126, %edi\n\t"
	"syscall\n\t"
	"ud2\n"
	"1:\tmov %r12, %rdx\n"
	"2:\tjmp *gate(%rip)\n");

static void __attribute__((noreturn)) handover(uint64_t entry, int argc, char **argv,
					       char **envp, unsigned int flags,
					       const struct image *prog, const struct image *interp)
{
	Elf64_auxv_t *av;
	char **e;
	size_t envc = 0, auxc = 0, n, i, k = 0;
	bool audit_done = false;

	for (e = envp; *e; e++)
		envc++;
	for (av = (Elf64_auxv_t *)(e + 1); av[auxc].a_type != AT_NULL; auxc++)
		;
	n = 1 + (size_t)argc + 1 + envc + 3 + 2 * (auxc + 3);
	n = (n + 1) & ~(size_t)1;	/* keep the new stack pointer 16-byte aligned */
	{
		/* The new initial stack lives below this frame, on the real stack. */
		uint64_t blk[n] __attribute__((aligned(16)));

		blk[k++] = (uint64_t)argc;
		for (i = 0; i < (size_t)argc; i++)
			blk[k++] = (uint64_t)argv[i];
		blk[k++] = 0;
		for (i = 0; i < envc; i++) {
			if (!strncmp(envp[i], XOLOAD_PROG_ENV "=", sizeof(XOLOAD_PROG_ENV)))
				continue;	/* ours replaces the parent's */
			if (!strncmp(envp[i], "LD_AUDIT=", 9)) {
				if (audit_done || !*audit_env)
					continue;
				/* Keep the user's modules, after ours; ours only once. */
				if (strcmp(envp[i] + 9, audit_path) &&
				    strncmp(envp[i] + 9, audit_path, strlen(audit_path))) {
					snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s:%s", audit_path, envp[i] + 9);
				}
				blk[k++] = (uint64_t)audit_env;
				audit_done = true;
				continue;
			}
			blk[k++] = (uint64_t)envp[i];
		}
		if (!audit_done && *audit_env)
			blk[k++] = (uint64_t)audit_env;
		if (*prog_env)
			blk[k++] = (uint64_t)prog_env;
		blk[k++] = 0;
		for (i = 0; i < auxc; i++) {
			uint64_t v = av[i].a_un.a_val;

			switch (av[i].a_type) {
			case AT_PHDR: v = prog->phdr_va + prog->bias; break;
			case AT_PHENT: v = sizeof(Elf64_Phdr); break;
			case AT_PHNUM: v = prog->eh.e_phnum; break;
			case AT_ENTRY:
				v = prog->eh.e_entry + prog->bias;
				if (interp) {
					/* ld.so jumps to the gate; the module restores this slot. */
					gate.entry = v;
					gate.auxv_entry = &blk[k + 1];
					v = (uint64_t)xoload_gate_entry;
				}
				break;
			case AT_BASE: v = interp ? interp->bias + interp->lo : 0; break;
			case AT_EXECFN: v = (uint64_t)prog_path; break;
			case AT_XOLOAD: continue;	/* we were run under xoload: replace it */
			}
			blk[k++] = av[i].a_type;
			blk[k++] = v;
		}
		blk[k++] = AT_XOLOAD;
		blk[k++] = flags | XOF_PRESENT;
		if (interp) {
			blk[k++] = AT_XOLOAD_GATE;
			blk[k++] = (uint64_t)&gate;
		}
		blk[k++] = AT_NULL;
		blk[k++] = 0;
		dl_iterate_phdr(protect_self, NULL);
		/* rdx = 0: no rtld_fini for a static program's _start (x86-64 psABI). */
		__asm__ volatile("mov %0, %%rsp\n\t"
				 "xor %%edx, %%edx\n\t"
				 "xor %%ebp, %%ebp\n\t"
				 "jmp *%1"
				 : : "r"(blk), "r"(entry) : "memory");
		__builtin_unreachable();
	}
}

/*
 * --kernel: the kernel's xonly exec mode does what xoload does by hand,
 * from the execve() on: binfmt_elf maps PROG's and ld.so's PF_X segments
 * execute-only, ld.so's mmap()s of libraries get the same, and the flag is
 * inherited by every descendant.  xoload only checks PROG (so that bad
 * input gets the same errors as without --kernel) and sets the flag.
 */
static void __attribute__((noreturn)) run_kernel_mode(char **argv, char **envp)
{
	char err[PATH_MAX + 200], **env;
	size_t envc = 0, i, k = 0;
	bool audit_done = false;
	int level;

	/*
	 * The audit module goes into LD_AUDIT (ours first, the user's kept):
	 * it gives the data in text of each object back its read permission
	 * (rt/carve.c) before the object is relocated.  The kernel's mode makes
	 * whole PF_X segments execute-only, and libcrypto's tables are in them.
	 */
	for (; envp[envc]; envc++)
		;
	env = calloc(envc + 2, sizeof(*env));
	if (!env)
		die(126, "--kernel: out of memory");
	for (i = 0; i < envc; i++) {
		if (!strncmp(envp[i], "LD_AUDIT=", 9)) {
			if (audit_done)
				continue;
			if (strcmp(envp[i] + 9, audit_path) && strncmp(envp[i] + 9, audit_path, strlen(audit_path)))
				snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s:%s", audit_path, envp[i] + 9);
			env[k++] = audit_env;
			audit_done = true;
			continue;
		}
		env[k++] = envp[i];
	}
	if (!audit_done)
		env[k++] = audit_env;
	env[k] = NULL;
	envp = env;
	/*
	 * Level 1, or the level the process has (xonly=strict: 2, which cannot
	 * be lowered).  PR_XONLY_EXEC_CARVE lets PROG and its descendants keep
	 * the carve-out at the strict level, where pkey_mprotect() of their
	 * code is refused otherwise; a kernel without the strict level refuses
	 * the flag (EINVAL), and does not need it.
	 */
	level = prctl(XONLY_PR_GET_XONLY, 0, 0, 0, 0);
	if (level < 1)
		level = 1;
	if (prctl(XONLY_PR_SET_XONLY, level, XONLY_PR_XONLY_EXEC_CARVE, 0, 0) &&
	    (errno != EINVAL || prctl(XONLY_PR_SET_XONLY, level, 0, 0, 0))) {
		snprintf(err, sizeof(err),
			 "--kernel: prctl(PR_SET_XONLY): %s (EINVAL: this kernel has no xonly exec mode, see xonly(7))",
			 strerror(errno));
		die(126, err);
	}
	execve(prog_path, argv, envp);
	snprintf(err, sizeof(err), "%s: %s", prog_path, strerror(errno));
	die(errno == ENOENT ? 127 : 126, err);
}

/*
 * A program run under xoload that re-executes itself through /proc/self/exe
 * (busybox, runc, Chromium, `os.execv('/proc/self/exe', ...)`) executes
 * xoload, the process's executable, with the program's own arguments.
 * xoload recognises that case by what the kernel put in AT_EXECFN, the
 * name passed to execve: /proc/self/exe, /proc/thread-self/exe or
 * /proc/PID/exe of this very process - a name under which nobody runs
 * xoload on purpose - and by XOLOAD_PROG, the program it stood for, which
 * it put into that program's environment.  It then runs that program
 * again, under xoload, with argv as given (argv[0] included).  Returns the
 * argv to parse instead, or NULL.
 */
static char **reexec_args(int *argc, char **argv)
{
	const char *fn = (const char *)getauxval(AT_EXECFN), *prog = getenv(XOLOAD_PROG_ENV), *p;
	static char a0[PATH_MAX + 16];
	char pid[32], **nv;
	int i, k = 0;

	if (!fn || !prog || *prog != '/' || strncmp(fn, "/proc/", 6))
		return NULL;
	p = fn + 6;
	snprintf(pid, sizeof(pid), "%d/", (int)getpid());
	if (!strncmp(p, "self/", 5))
		p += 5;
	else if (!strncmp(p, "thread-self/", 12))
		p += 12;
	else if (!strncmp(p, pid, strlen(pid)))
		p += strlen(pid);
	else
		return NULL;
	if (strcmp(p, "exe"))
		return NULL;
	nv = calloc((size_t)*argc + 4, sizeof(*nv));
	if (!nv)
		return NULL;
	nv[k++] = argv[0];
	if (*argc > 0) {
		snprintf(a0, sizeof(a0), "--argv0=%s", argv[0]);
		nv[k++] = a0;
	}
	nv[k++] = "--";
	nv[k++] = (char *)prog;
	for (i = 1; i < *argc; i++)
		nv[k++] = argv[i];
	nv[k] = NULL;
	*argc = k;
	return nv;
}

int main(int argc, char **argv, char **envp)
{
	static const struct option opts[] = {
		{ "report", optional_argument, NULL, 'r' },
		{ "plan", optional_argument, NULL, 'p' },
		{ "no-deps", no_argument, NULL, 'D' },
		{ "scan", optional_argument, NULL, 'S' },
		{ "strict", no_argument, NULL, 's' },
		{ "permissive", no_argument, NULL, 'P' },
		{ "no-inherit", no_argument, NULL, 'n' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "argv0", required_argument, NULL, '0' },
		{ "audit", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct image prog, interp;
	static struct plan pplan, iplan;
	char err[PATH_MAX + 200];
	unsigned int flags = 0;
	bool plan_only = false, kernel_mode = false, no_deps = false;
	const char *argv0 = NULL, *rfmt = NULL, *sfmt = NULL;
	int c, rc;

	{
		char **nv = reexec_args(&argc, argv);

		if (nv)
			argv = nv;
	}
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'p':
			/* Two formats for the same lines: an error, not "the last one wins". */
			if (optarg && rfmt && strcmp(optarg, rfmt)) {
				snprintf(err, sizeof(err), "--%s=%s: the report format is already '%s'",
					 c == 'p' ? "plan" : "report", optarg, rfmt);
				die(2, err);
			}
			flags = (flags & ~(XOF_TSV | XOF_JSON)) | XOF_REPORT |
				format_flag(optarg ? optarg : rfmt, XOF_TSV, XOF_JSON);
			if (optarg)
				rfmt = optarg;
			plan_only |= c == 'p';
			break;
		case 'S':
			if (optarg && sfmt && strcmp(optarg, sfmt)) {
				snprintf(err, sizeof(err), "--scan=%s: the scan format is already '%s'", optarg, sfmt);
				die(2, err);
			}
			flags = (flags & ~(XOF_SCAN_TSV | XOF_SCAN_JSON)) | XOF_SCAN |
				format_flag(optarg ? optarg : sfmt, XOF_SCAN_TSV, XOF_SCAN_JSON);
			if (optarg)
				sfmt = optarg;
			break;
		case 'D': no_deps = true; break;
		case 's': flags |= XOF_STRICT; break;
		case 'P': flags |= XOF_PERMISSIVE; break;
		case 'n': flags |= XOF_NO_INHERIT; break;
		case 'k': kernel_mode = true; break;
		case '0': argv0 = optarg; break;
		case 'a': snprintf(audit_path, sizeof(audit_path), "%s", optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("xoload (xonly) %s\n", XONLY_VERSION); return 0;
		default: fputs("usage: xoload [OPTIONS] PROG [ARGS...]  (see --help)\n", stderr); return 2;
		}
	}
	if (optind >= argc)
		die(2, "no program given (see --help)");
	if (no_deps && !plan_only)
		die(2, "--no-deps: only with --plan (see --help)");
	/* The kernel maps everything: nothing of xoload's own machinery applies. */
	if (kernel_mode && ((flags & ~XOF_PRESENT) || plan_only || *audit_path))
		die(2, "--kernel: not with --report, --plan, --scan, --strict, --no-inherit or --audit (see --help)");
	rc = find_prog(argv[optind], prog_path, err, sizeof(err));
	/* --plan plans any object: a library is searched as ld.so searches. */
	if (rc && plan_only && *argv[optind] && !dep_find_lib(argv[optind], prog_path))
		rc = 0;
	if (rc)
		die(rc, err);
	rc = image_open_obj(&prog, prog_path, !plan_only, err, sizeof(err));
	if (rc)
		die(rc, err);
	if (prog.has_interp) {
		char ierr[PATH_MAX + 100];

		rc = image_open(&interp, prog.interp, ierr, sizeof(ierr));
		if (rc) {
			snprintf(err, sizeof(err), "%s: bad interpreter: %s", prog_path, ierr);
			die(rc, err);
		}
		if (interp.has_interp || interp.eh.e_type != ET_DYN) {
			snprintf(err, sizeof(err), "%s: bad interpreter %s: not a shared object", prog_path, prog.interp);
			die(126, err);
		}
	}
	if (kernel_mode) {
		if (!have_pkeys())
			die(126, "no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only");
		if (argv0)
			argv[optind] = (char *)argv0;
		next_to_self(audit_path, XO_AUDIT_FROM_XOLOAD, XOLOAD_AUDIT_DEFAULT);
		if (prog.has_interp && access(audit_path, R_OK)) {
			snprintf(err, sizeof(err), "audit module %s: %s", audit_path, strerror(errno));
			die(127, err);
		}
		snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s", audit_path);
		run_kernel_mode(argv + optind, envp);
	}
	defer_warnings = plan_only;
	plan_image(&prog, &pplan, flags);
	if (prog.has_interp)
		plan_image(&interp, &iplan, flags);
	if (flags & XOF_SCAN) {
		next_to_self(xoscan_path, XO_XOSCAN_FROM_XOLOAD, XOLOAD_XOSCAN_DEFAULT);
		if (access(xoscan_path, X_OK)) {
			snprintf(err, sizeof(err), "--scan: %s: %s", xoscan_path, strerror(errno));
			die(127, err);
		}
	}
	if (plan_only)
		return plan_closure(&prog, &pplan, &iplan, flags, no_deps);
	refuse_privileged(&prog);
	if (!have_pkeys())
		die(126, "no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only");
	if (!*audit_path)
		next_to_self(audit_path, XO_AUDIT_FROM_XOLOAD, XOLOAD_AUDIT_DEFAULT);
	if (prog.has_interp && access(audit_path, R_OK)) {
		snprintf(err, sizeof(err), "audit module %s: %s", audit_path, strerror(errno));
		die(127, err);
	}
	snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s", audit_path);
	{
		char abs[PATH_MAX];

		if (realpath(prog_path, abs))
			snprintf(prog_env, sizeof(prog_env), "%s=%s", XOLOAD_PROG_ENV, abs);
	}
	gate.permissive = !!(flags & XOF_PERMISSIVE);
	{
		int m = snprintf(gate.msg, sizeof(gate.msg),
				 flags & XOF_PERMISSIVE ?
				 "xoload: warning: audit module %s did not run: the libraries' code is readable (--permissive)\n" :
				 "xoload: audit module %s did not run (ld.so could not load it): %s not run\n",
				 audit_path, prog_path);

		gate.msglen = m > 0 && (size_t)m < sizeof(gate.msg) ? (size_t)m : sizeof(gate.msg) - 1;
		/* One line: a newline in a path would make it two. */
		for (m = 0; (size_t)m + 1 < gate.msglen; m++)
			if ((unsigned char)gate.msg[m] < 0x20 || gate.msg[m] == 0x7f)
				gate.msg[m] = '?';
	}

	if ((rc = image_map(&prog, err, sizeof(err))) ||
	    (prog.has_interp && (rc = image_map(&interp, err, sizeof(err)))))
		die(rc, err);
	if ((rc = plan_apply(&pplan, prog.bias)) ||
	    (prog.has_interp && (rc = plan_apply(&iplan, interp.bias)))) {
		snprintf(err, sizeof(err), "mprotect(PROT_EXEC): %s", strerror(-rc));
		die(126, err);
	}
	if (flags & XOF_REPORT) {
		report_plan(prog_path, &pplan, prog.bias, report_fmt(flags));
		if (prog.has_interp)
			report_plan(prog.interp, &iplan, interp.bias, report_fmt(flags));
	}
	close(prog.fd);
	if (prog.has_interp)
		close(interp.fd);
	fflush(NULL);
	if (flags & XOF_SCAN) {
		/* From the files: the code is execute-only now.  See xoscan.c. */
		const char *files[] = { prog_path, prog.has_interp ? prog.interp : "[vdso]",
					prog.has_interp ? "[vdso]" : NULL, NULL };
		const char *self[] = { self_path, NULL };

		scan_run(xoscan_path, "", scan_fmtopt(flags), files);
		if (*self_path)
			scan_run(xoscan_path, "[xoload runtime] ", scan_fmtopt(flags), self);
	}
	if (argv0)
		argv[optind] = (char *)argv0;
	/* comm as if PROG had been exec'd (ps, pidof); /proc/PID/exe stays xoload. */
	prctl(PR_SET_NAME, strrchr(prog_path, '/') ? strrchr(prog_path, '/') + 1 : prog_path);
	handover(prog.has_interp ? interp.eh.e_entry + interp.bias : prog.eh.e_entry + prog.bias,
		 argc - optind, argv + optind, envp, flags, &prog, prog.has_interp ? &interp : NULL);
}
