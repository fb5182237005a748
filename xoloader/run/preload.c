// SPDX-License-Identifier: GPL-2.0
/*
 * preload.c - what runs when a user types "xoload PROG ARGS" or
 * "xoload --kernel PROG ARGS": a freestanding static-pie (no libc, its own
 * system calls, only R_X86_64_RELATIVE relocations, which it applies
 * itself, no TLS, no IRELATIVE), in the style of Wine's
 * loader/preloader.c.  It finds PROG, validates and maps it and its
 * PT_INTERP (load.c), plans them (rtplan.c), makes their code-only pages
 * execute-only, builds PROG's initial stack and jumps to ld.so; or, for
 * --kernel, sets the xonly exec mode and executes PROG (--kernel-plans:
 * without the audit module; the kernel's plans keep data in text readable).
 *
 * --plan, which prints the closure's plans and runs nothing, is analysis:
 * xoload executes xoplan (tools/xoplan.c, with a libc) for it, so that a run
 * pays nothing for it.  --report and --scan print with report.c and run
 * xoscan, code that is not touched unless asked for.
 *
 * Messages and exit statuses are those of the libc xoload this replaces
 * (the tests under tests/xoload/ compare them).
 */
#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rule/str.h"
#include "fmt.h"
#include "pkeys.h"
#include "report.h"
#include "runpath.h"
#include "sys.h"
#include "usage.h"

/* The compiler may call these for struct copies and zeroing: no libc has them here. */
void *memset(void *p, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

void *memset(void *p, int c, size_t n)
{
	volatile unsigned char *b = p;

	while (n--)
		*b++ = (unsigned char)c;
	return p;
}

void *memcpy(void *d, const void *s, size_t n)
{
	volatile unsigned char *a = d;
	const unsigned char *b = s;

	while (n--)
		*a++ = *b++;
	return d;
}

static void say(const char *s)
{
	rt_write(1, s, rt_strlen(s));
}

/* --- options -------------------------------------------------------------- */

struct opts {
	unsigned int flags;		/* XOF_* for the audit module */
	bool kernel, kernel_plans;	/* --kernel; --kernel-plans: and no audit module */
	bool module_only;		/* --no-cache or --no-net: options of the audit module */
	const char *argv0, *audit;
	int prog;			/* argv index of PROG */
};

enum { OPT_NONE, OPT_REQUIRED, OPT_OPTIONAL };

static const struct { const char *name; int arg; char id; } options[] = {
	{ "report", OPT_OPTIONAL, 'r' }, { "plan", OPT_OPTIONAL, 'p' }, { "no-deps", OPT_NONE, 'D' },
	{ "scan", OPT_OPTIONAL, 'S' }, { "strict", OPT_NONE, 's' }, { "permissive", OPT_NONE, 'P' },
	{ "no-inherit", OPT_NONE, 'n' }, { "kernel", OPT_NONE, 'k' }, { "kernel-plans", OPT_NONE, 'L' },
	{ "argv0", OPT_REQUIRED, '0' },
	{ "audit", OPT_REQUIRED, 'a' }, { "help", OPT_NONE, 'h' }, { "version", OPT_NONE, 'V' },
	{ "no-cache", OPT_NONE, 'C' }, { "update-cache", OPT_NONE, 'U' }, { "no-wait", OPT_NONE, 'W' },
	{ "rule", OPT_REQUIRED, 'R' }, { "no-net", OPT_NONE, 'N' },
	{ "set-xattr", OPT_NONE, 'X' }, { "get-xattr", OPT_NONE, 'G' }, { "clear-xattr", OPT_NONE, 'K' },
};
#define NOPTIONS ((int)(sizeof(options) / sizeof(options[0])))

/* getopt_long's complaint, "ARGV0: BEFORE WHAT AFTER", then the usage line: status 2. */
static void __attribute__((noreturn)) usage_error(const char *argv0, const char *before, const char *what,
						  const char *after)
{
	const char *part[] = { argv0 ? argv0 : "xoload", ": ", before, what, after,
			       "\nusage: xoload [OPTIONS] PROG [ARGS...]  (see --help)\n" };
	size_t i;

	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		rt_write(2, part[i], rt_strlen(part[i]));
	rt_exit_group(2);
}

/* One long option "--NAME[=VALUE]" as getopt_long reads it: a unique prefix will do. */
static int long_option(char **argv, int *i, const char **val)
{
	const char *a = argv[*i] + 2, *eq = a;
	size_t n;
	int k, found = -1, matches = 0;

	while (*eq && *eq != '=')
		eq++;
	n = (size_t)(eq - a);
	for (k = 0; k < NOPTIONS; k++) {
		if (rt_strncmp(options[k].name, a, n))
			continue;
		if (rt_strlen(options[k].name) == n) {
			found = k;
			matches = 1;
			break;
		}
		found = k;
		matches++;
	}
	if (matches == 0)
		usage_error(argv[0], "unrecognized option '", argv[*i], "'");
	if (matches > 1) {
		/* glibc's words: the option, then each one it could be. */
		static char list[512];
		size_t l = (size_t)rt_fmt(list, sizeof(list), "' is ambiguous; possibilities:");

		for (k = 0; k < NOPTIONS && l < sizeof(list); k++)
			if (!rt_strncmp(options[k].name, a, n))
				l += (size_t)rt_fmt(list + l, sizeof(list) - l, " '--%s'", options[k].name);
		usage_error(argv[0], "option '", argv[*i], list);
	}
	*val = *eq ? eq + 1 : NULL;
	if (*val && options[found].arg == OPT_NONE)
		usage_error(argv[0], "option '--", options[found].name, "' doesn't allow an argument");
	if (!*val && options[found].arg == OPT_REQUIRED) {
		if (!argv[*i + 1])
			usage_error(argv[0], "option '--", options[found].name, "' requires an argument");
		*val = argv[++*i];
	}
	return options[found].id;
}

static void __attribute__((noreturn)) run_analysis(char **argv, char **envp);

static void parse_options(int argc, char **argv, char **envp, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		int id;

		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-' && !a[2]) {
			i++;
			break;
		}
		if (a[1] != '-') {
			static char c[2];

			if (a[1] == 'h') {	/* the only short option */
				say(usage);
				rt_exit_group(0);
			}
			c[0] = a[1];
			usage_error(argv[0], "invalid option -- '", c, "'");
		}
		id = long_option(argv, &i, &val);
		switch (id) {
		case 'X': case 'G': case 'K':
			/* xoplan's (tools/xattr.c), which reads them as argv[1] only. */
			if (i != 1)
				usage_error(argv[0], "option '", a, "' must be the first argument");
			run_analysis(argv, envp);
		case 'r': case 'p': case 'S': case 'D': case 'U': case 'W': case 'R':
			run_analysis(argv, envp);	/* xoplan's: it parses them all again, with getopt */
		case 's': o->flags |= XOF_STRICT; break;
		case 'P': o->flags |= XOF_PERMISSIVE; break;
		case 'n': o->flags |= XOF_NO_INHERIT; break;
		case 'k': o->kernel = true; break;
		case 'L': o->kernel = o->kernel_plans = true; break;
		case 'C': run_no_cache(); o->module_only = true; break;
		case 'N': run_no_net(); o->module_only = true; break;
		case '0': o->argv0 = val; break;
		case 'a': o->audit = val; break;
		case 'h': say(usage); rt_exit_group(0);
		case 'V': say("xoload (xonly) " XONLY_VERSION "\n"); rt_exit_group(0);
		}
	}
	o->prog = i;
}

/* --- the run ------------------------------------------------------------------ */

/*
 * --plan, --report, --scan, --update-cache, --rule, --set-xattr, --get-xattr,
 * --clear-xattr: xoplan (tools/xoplan.c, with a libc) does those, with the
 * same arguments.
 */
static void __attribute__((noreturn)) run_analysis(char **argv, char **envp)
{
	static char xoplan[PATH_MAX];
	long r;

	next_to_self(xoplan, XO_XOPLAN_FROM_XOLOAD, XOLOAD_XOPLAN_DEFAULT);
	r = rt_syscall(RT_NR_execve, xoplan, argv, envp);
	dief(r == -RT_ENOENT ? 127 : 126, "--plan, --report, --scan, --*-xattr need %s: %s", xoplan,
	     rt_strerror((int)-r));
}

static void need_pkeys(void)
{
	if (!rt_have_pkeys())
		die(126, "no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only");
}

/*
 * XOLOAD_TIMES: the clock at each step, for make bench's breakdown
 * (xoload.h); runpath.c and the plan cache add theirs with rt_step().
 * xo_start() reads the clock before and after relocating xoload.
 */
#define STEP(event) rt_step(event, NULL)
static RT_HOT uint64_t t_entry, t_relocated;

/* The steps of "xoload [OPTIONS] PROG [ARGS]", in order. */
static void __attribute__((noreturn)) xoload(int argc, char **argv, char **envp)
{
	static RT_PAGE_ALIGNED struct image prog, interp;
	struct plan *pplan = run_plan(NULL), *iplan = NULL;
	struct xoc_net *pnet = run_net(NULL), *inet = NULL;
	static char err[PATH_MAX + 200];
	struct opts o = { 0 };
	char *nv[argc + 4], **re;
	int rc;

	run_init(envp);
	re = reexec_args(&argc, argv, nv);
	if (re)
		argv = re;
	if (run_env(XOLOAD_TIMES_ENV)) {
		o.flags |= XOF_TIMES;
		rt_times = true;
		rt_time("entry", NULL, t_entry);
		rt_time("relocated", NULL, t_relocated);
	}
	STEP("start");
	parse_options(argc, argv, envp, &o);
	check_children_env();
	STEP("options");
	if (o.prog >= argc)
		die(2, "no program given (see --help)");
	/* The kernel maps everything: nothing of xoload's own machinery applies. */
	if (o.kernel && ((o.flags & ~XOF_TIMES) || o.audit))
		dief(2, "%s: not with --report, --plan, --scan, --strict, --no-inherit or --audit (see --help)",
		     o.kernel_plans ? "--kernel-plans" : "--kernel");
	/* Both reach PROG only through the module's environment, which --kernel-plans does not set. */
	if (o.kernel_plans && o.module_only)
		die(2, "--kernel-plans: not with --no-cache or --no-net, which only the audit module reads (see --help)");

	rc = find_prog(argv[o.prog], prog_path, err, sizeof(err));
	if (rc)
		die_prog(rc, err, false);
	STEP("found");
	open_images(&prog, &interp, true);
	if (o.argv0)
		argv[o.prog] = (char *)o.argv0;
	if (o.kernel) {
		need_pkeys();
		if (!o.kernel_plans) {
			/* A static PROG has no ld.so to read them (Go's headers lie in its code). */
			if (prog.has_interp) {
				refuse_code_headers(&prog);
				refuse_code_headers(&interp);
			}
			next_to_self(audit_path, XO_AUDIT_FROM_XOLOAD, XOLOAD_AUDIT_DEFAULT);
			STEP("module found");
			use_audit_module(prog.has_interp, false);
		}
		STEP("exec");
		run_kernel_mode(argv + o.prog, envp, !o.kernel_plans);
	}

	plan_image(&prog, pplan, pnet, o.flags);
	if (prog.has_interp) {
		iplan = run_plan(pplan);
		inet = run_net(pnet);
		plan_image(&interp, iplan, inet, o.flags);
	}
	refuse_privileged(&prog);
	need_pkeys();
	STEP("privileges");
	if (o.audit && *o.audit)	/* --audit= is the default, as it was */
		rt_strlcpy(audit_path, o.audit, sizeof(audit_path));
	else
		next_to_self(audit_path, XO_AUDIT_FROM_XOLOAD, XOLOAD_AUDIT_DEFAULT);
	STEP("module found");
	use_audit_module(prog.has_interp, o.flags & XOF_PERMISSIVE);
	STEP("module checked");
	use_hook(&prog, o.flags, o.audit && *o.audit);
	map_and_protect(&prog, pplan, pnet, &interp, iplan, inet);
	STEP("net");
	prepare_handover(o.flags);	/* after: the gate's line says hook or module */
	STEP("prepared");
	rt_close(prog.fd);
	if (prog.has_interp)
		rt_close(interp.fd);
	STEP("handover");
	handover(prog.has_interp ? interp.eh.e_entry + interp.bias : prog.eh.e_entry + prog.bias,
		 argc - o.prog, argv + o.prog, envp, o.flags, &prog, prog.has_interp ? &interp : NULL);
}

/* --- entry: no libc, so no crt1.o --------------------------------------------- */

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));
extern Elf64_Dyn _DYNAMIC[] __attribute__((visibility("hidden")));

/*
 * A static-pie is loaded anywhere: before anything reads a pointer that
 * lies in data (option names, messages' tables), apply its
 * R_X86_64_RELATIVE relocations, the only kind it has (the Makefile
 * checks).  Only PC-relative addressing until then.
 */
static void relocate_self(void)
{
	uint64_t base = (uint64_t)&__ehdr_start, rela = 0, relasz = 0, i;
	const Elf64_Dyn *d;

	for (d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_RELA)
			rela = d->d_un.d_ptr;
		else if (d->d_tag == DT_RELASZ)
			relasz = d->d_un.d_val;
	}
	for (i = 0; i < relasz / sizeof(Elf64_Rela); i++) {
		const Elf64_Rela *r = (const Elf64_Rela *)(base + rela) + i;

		if (ELF64_R_TYPE(r->r_info) == R_X86_64_RELATIVE)
			*(uint64_t *)(base + r->r_offset) = base + (uint64_t)r->r_addend;
	}
}

void xo_start(uint64_t *sp) __attribute__((noreturn, used));

/* The kernel's initial stack: argc, argv[], NULL, envp[], NULL, auxv. */
void xo_start(uint64_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);

	run_kernel_early(argc, argv, argv + argc + 1, &__ehdr_start);	/* execve()s, or returns */
	/* Before anything is written there (the early path cannot: scripts/check-early). */
	rt_bss_small_pages();
	if (rt_env_in(argv + argc + 1, XOLOAD_TIMES_ENV))
		t_entry = rt_clock_ns();
	relocate_self();
	/* Nothing that reads relocated data may move above the stores. */
	__asm__ volatile("" ::: "memory");
	if (t_entry)
		t_relocated = rt_clock_ns();
	xoload(argc, argv, argv + argc + 1);
}

__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n\t"
	"xor %ebp, %ebp\n\t"
	"mov %rsp, %rdi\n\t"
	"and $-16, %rsp\n\t"
	"call xo_start\n\t"
	"ud2\n");
