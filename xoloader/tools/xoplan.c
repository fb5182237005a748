// SPDX-License-Identifier: GPL-2.0
/*
 * xoplan.c - xoplan: xoload with a libc, for what a run does not need.
 * xoload (preload.c, freestanding) executes it, with the same arguments,
 * for --plan (the closure's plans, deps.c; nothing runs), --report and
 * --scan (a run that prints: report.c, xoscan).  The run path itself is
 * run/runpath.c's, which both link; `xoload --help` is run/usage.h.
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../run/load.h"
#include "../run/pkeys.h"
#include "../run/plancache.h"
#include "../run/report.h"
#include "../run/runpath.h"
#include "../run/usage.h"
#include "apply.h"
#include "cachewrite.h"
#include "deps.h"
#include "xattr.h"

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

static void defer_warning(const char *msg)
{
	size_t n = strlen(msg);
	char *w = realloc(warnings, warnlen + n + 1);

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
			plan_image(&im, pplan, NULL, flags);
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
 * --update-cache --rule=proven: the proven-code rule needs a decoder and
 * libelf, which xoplan does not carry; xoplan-proven (tools/provenwrite.c),
 * installed beside it, does the same with that rule.
 */
static void __attribute__((noreturn)) exec_proven_writer(char **argv)
{
	static char path[PATH_MAX];
	char err[PATH_MAX + 200];

	next_to_self(path, "xoplan-proven", XOLOAD_XOPLAN_DEFAULT "-proven");
	execv(path, argv);
	snprintf(err, sizeof(err), "--update-cache --rule=proven needs %s: %s", path, strerror(errno));
	die(errno == ENOENT ? 127 : 126, err);
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
		{ "kernel-plans", no_argument, NULL, 'L' },
		{ "argv0", required_argument, NULL, '0' },
		{ "audit", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "no-cache", no_argument, NULL, 'C' },
		{ "no-net", no_argument, NULL, 'N' },
		{ "update-cache", no_argument, NULL, 'U' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ "rule", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	static struct image prog, interp;
	static struct plan pplan, iplan;
	static struct xoc_net pnet, inet;
	char err[PATH_MAX + 200];
	unsigned int flags = 0;
	bool plan_only = false, kernel_mode = false, kernel_plans = false, no_deps = false, update_cache = false, no_wait = false;
	const char *argv0 = NULL, *rfmt = NULL, *sfmt = NULL, *rule = NULL;
	int c, rc;

	/* --set-xattr, --get-xattr, --clear-xattr FILE...: nothing runs (xattr.c). */
	rc = xattr_main(argc, argv);
	if (rc >= 0)
		return rc;
	run_init(envp);
	{
		/* A re-exec of /proc/self/exe under --report or --scan lands here. */
		char **nv = calloc((size_t)argc + 4, sizeof(*nv)), **re = nv ? reexec_args(&argc, argv, nv) : NULL;

		if (re)
			argv = re;
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
		case 'L': kernel_mode = kernel_plans = true; break;
		case 'C': run_no_cache(); break;
		case 'N': run_no_net(); break;
		case 'U': update_cache = true; break;
		case 'W': no_wait = true; break;
		case 'R': rule = optarg; break;
		case '0': argv0 = optarg; break;
		case 'a': snprintf(audit_path, sizeof(audit_path), "%s", optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("xoload (xonly) %s\n", XONLY_VERSION); return 0;
		default: fputs("usage: xoload [OPTIONS] PROG [ARGS...]  (see --help)\n", stderr); return 2;
		}
	}
	if (no_wait && !update_cache)
		die(2, "--no-wait: only with --update-cache (see --help)");
	if (rule && !update_cache)
		die(2, "--rule: only with --update-cache (see --help)");
	if (rule && strcmp(rule, "fde") && strcmp(rule, "proven"))
		die(2, "--rule takes 'fde' (the default) or 'proven'");
	if (update_cache && rule && !strcmp(rule, "proven"))
		exec_proven_writer(argv);
	if (update_cache)
		return cache_update_cmd(argc - optind, argv + optind, !no_wait, NULL);
	if (optind >= argc)
		die(2, "no program given (see --help)");
	if (no_deps && !plan_only)
		die(2, "--no-deps: only with --plan (see --help)");
	/* The kernel maps everything: nothing of xoload's own machinery applies. */
	if (kernel_mode && ((flags & ~XOF_PRESENT) || plan_only || *audit_path))
		dief(2, "%s: not with --report, --plan, --scan, --strict, --no-inherit or --audit (see --help)",
		     kernel_plans ? "--kernel-plans" : "--kernel");
	rc = find_prog(argv[optind], prog_path, err, sizeof(err));
	/* --plan plans any object: a library is searched as ld.so searches. */
	if (rc && plan_only && *argv[optind] && !dep_find_lib(argv[optind], prog_path))
		rc = 0;
	if (rc)
		die_prog(rc, err, plan_only);
	open_images(&prog, &interp, !plan_only);
	if (kernel_mode)	/* alone: xoload (preload.c) does it, and executes xoplan only for the rest */
		die(2, "--kernel: that is xoload's (see --help)");
	if (plan_only)
		run_warn = defer_warning;
	plan_image(&prog, &pplan, &pnet, flags);
	if (prog.has_interp)
		plan_image(&interp, &iplan, &inet, flags);
	if (flags & XOF_SCAN) {
		next_to_self(xoscan_path, XO_XOSCAN_FROM_XOPLAN, XOLOAD_XOSCAN_DEFAULT);
		if (access(xoscan_path, X_OK)) {
			snprintf(err, sizeof(err), "--scan: %s: %s", xoscan_path, strerror(errno));
			die(127, err);
		}
	}
	if (plan_only)
		return plan_closure(&prog, &pplan, &iplan, flags, no_deps);

	/* --report, --scan: the run path of preload.c, with the reports in it. */
	refuse_privileged(&prog);
	if (!rt_have_pkeys())
		die(126, "no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only");
	if (!*audit_path)
		next_to_self(audit_path, XO_AUDIT_FROM_XOPLAN, XOLOAD_AUDIT_DEFAULT);
	use_audit_module(prog.has_interp, flags & XOF_PERMISSIVE);
	prepare_handover(flags);
	map_and_protect(&prog, &pplan, &pnet, &interp, &iplan, &inet);
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
		static char self_path[PATH_MAX];
		const char *self[] = { self_path, NULL };

		scan_run(xoscan_path, "", scan_fmtopt(flags), files);
		if (self_file(self_path))
			scan_run(xoscan_path, "[xoload runtime] ", scan_fmtopt(flags), self);
	}
	if (argv0)
		argv[optind] = (char *)argv0;
	handover(prog.has_interp ? interp.eh.e_entry + interp.bias : prog.eh.e_entry + prog.bias,
		 argc - optind, argv + optind, envp, flags, &prog, prog.has_interp ? &interp : NULL);
}
