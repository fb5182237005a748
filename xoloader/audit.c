// SPDX-License-Identifier: GPL-2.0
/*
 * audit.c - xoaudit.so, the ld.so audit module of xoload (rtld-audit(7)).
 *
 * ld.so calls la_objopen() for every object it maps - DT_NEEDED libraries
 * and dlopen()ed ones - right after mapping it and before relocating it or
 * running any of its constructors.  That is where the object's code-only
 * pages become PROT_EXEC.  PROG and ld.so itself were made execute-only
 * by xoload before ld.so started; the AT_XOLOAD auxv entry says so.
 *
 * The module itself lives in its own link namespace with its own copies of
 * libc, libelf and libz (that is why LD_AUDIT needs those libraries to be
 * findable, see README.md); la_version() makes their code execute-only too.
 *
 * Inheritance: LD_AUDIT stays in the environment, so a program PROG execs
 * loads this module again, without AT_XOLOAD.  la_version() then re-executes
 * it under xoload (before any of its code or its libraries' ran); if that
 * is impossible it protects main and ld.so in place (ld.so's own startup
 * then ran readable).  With --no-inherit, LD_AUDIT is removed from the
 * environment before the program starts.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "elfplan.h"
#include "report.h"
#include "xoload.h"

extern char **environ;

static unsigned long flags;	/* AT_XOLOAD value; 0 if not started by xoload */
static bool first_base = true;
static char xoscan[PATH_MAX];	/* ../bin/xoscan next to this module */

static void say(const char *a, const char *b)
{
	char line[PATH_MAX + 256];
	int n = snprintf(line, sizeof(line), "xoload: %s%s\n", a, b), i;

	/* One line: a control character in an object's name becomes '?'. */
	for (i = 0; n > 0 && i < n - 1 && i < (int)sizeof(line) - 2; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	if (n > 0)
		(void)!write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Plan and protect one object mapped at @bias; @tag prefixes its report name. */
static void protect(const char *path, uint64_t bias, const char *tag)
{
	static struct plan p;	/* no recursion: ld.so holds its lock around la_objopen */
	char name[PATH_MAX + 32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t ps = (size_t)getpagesize();

	snprintf(name, sizeof(name), "%s%s", tag, path);
	if (fd < 0 || elfplan_build(fd, ps, &p)) {
		if (fd >= 0)
			close(fd);
		say(name, ": cannot read it: its code stays readable");
		if (flags & XOF_STRICT)
			_exit(126);
		return;
	}
	close(fd);
	if (elfplan_xo_pages(&p, ps) == 0 && p.n) {
		say(name, flags & XOF_STRICT ? ": no page can be execute-only; refused (--strict)" :
			  ": warning: no page can be execute-only: kept readable");
		if (flags & XOF_STRICT)
			_exit(126);
	}
	if (plan_apply(&p, bias))
		say(name, ": mprotect(PROT_EXEC) failed: its code stays readable");
	if (flags & XOF_REPORT)
		report_plan(name, &p, bias, report_fmt(flags));
	if ((flags & XOF_SCAN) && *xoscan) {
		const char *files[] = { path, NULL };

		scan_run(xoscan, tag, scan_fmtopt(flags), files);
	}
}

/* xoscan sits at XO_XOSCAN_FROM_AUDIT relative to this module (xoload.h). */
static void find_xoscan(void)
{
	Dl_info di;
	char *s;

	if (!dladdr((void *)find_xoscan, &di) || !di.dli_fname)
		return;
	snprintf(xoscan, sizeof(xoscan), "%s", di.dli_fname);
	s = strrchr(xoscan, '/');
	if (!s) {
		xoscan[0] = 0;
		return;
	}
	snprintf(s, sizeof(xoscan) - (size_t)(s - xoscan), "/" XO_XOSCAN_FROM_AUDIT);
	if (access(xoscan, X_OK)) {
		say(xoscan, ": not found: --scan skips the libraries");
		xoscan[0] = 0;
	}
}

static int protect_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	/* Our namespace's objects; ld.so is shared with the base namespace. */
	if (info->dlpi_name && info->dlpi_name[0] && info->dlpi_addr != getauxval(AT_BASE))
		protect(info->dlpi_name, info->dlpi_addr, "[xoload runtime] ");
	return 0;
}

/* Re-run this process under xoload; returns only if that is impossible. */
static void reexec_under_xoload(void)
{
	static char buf[256 << 10], xo[PATH_MAX], a0[PATH_MAX + 16];
	static char *argv[4096];
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	Dl_info di;
	ssize_t n = 0, r;
	int fd, argc = 0;
	char *s;

	if (!execfn || !dladdr((void *)reexec_under_xoload, &di) || !di.dli_fname)
		return;
	snprintf(xo, sizeof(xo), "%s", di.dli_fname);
	s = strrchr(xo, '/');
	if (!s)
		return;
	snprintf(s, sizeof(xo) - (size_t)(s - xo), "/" XO_XOLOAD_FROM_AUDIT);
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	if (n <= 0 || n >= (ssize_t)sizeof(buf) - 1)
		return;
	buf[n] = 0;
	argv[argc++] = xo;
	snprintf(a0, sizeof(a0), "--argv0=%s", buf);
	argv[argc++] = a0;
	argv[argc++] = "--";
	argv[argc++] = (char *)execfn;
	for (s = buf + strlen(buf) + 1; s < buf + n && argc < 4095; s += strlen(s) + 1)
		argv[argc++] = s;
	argv[argc] = NULL;
	execve(xo, argv, environ);
}

static void drop_ld_audit(void)
{
	char **r, **w;

	if (!environ)
		return;
	for (r = w = environ; *r; r++)
		if (strncmp(*r, "LD_AUDIT=", 9))
			*w++ = *r;
	*w = NULL;
}

unsigned int la_version(unsigned int version)
{
	flags = getauxval(AT_XOLOAD);
	if (!flags)
		reexec_under_xoload();
	if (flags & XOF_NO_INHERIT)
		drop_ld_audit();
	if (flags & XOF_SCAN)
		find_xoscan();
	dl_iterate_phdr(protect_own, NULL);
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	bool is_main = lmid == LM_ID_BASE && first_base;

	(void)cookie;
	if (lmid == LM_ID_BASE)
		first_base = false;
	if (map->l_addr && map->l_addr == getauxval(AT_SYSINFO_EHDR)) {
		if ((flags & XOF_REPORT) && report_fmt(flags) == REPORT_JSON)
			report_json_note("[vdso]", "kept readable: ld.so and libc read its symbol tables");
		else if (flags & XOF_REPORT)
			say("[vdso] kept readable: ld.so and libc read its symbol tables", "");
		return 0;
	}
	if (is_main || map->l_addr == getauxval(AT_BASE)) {
		/* Done by xoload before ld.so ran (AT_XOLOAD), else do it now. */
		if (!flags)
			protect(is_main ? (const char *)getauxval(AT_EXECFN) : map->l_name, map->l_addr, "");
		return 0;
	}
	if (map->l_name && map->l_name[0])
		protect(map->l_name, map->l_addr, "");
	return 0;
}
