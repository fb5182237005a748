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
 * Freestanding: no libc, no DT_NEEDED, no constructors, no relocations
 * that touch code (Makefile: -nostdlib -ffreestanding, -z now; the build
 * checks the result with readelf).  An audit module with DT_NEEDED gets
 * its own copies of them (a second libc, libelf, libz) in ld.so's audit
 * namespace, each relocated and initialised - readable code running -
 * before la_version() could protect it, and that cost a millisecond per
 * process.  This one is the only object of its namespace, and the first
 * thing la_version() does is make the module's own code execute-only: no
 * code of it runs readable after that, and none ran before but the call
 * that does it.  Plans come from the minimal reader run/rtplan.c, which
 * tests/host/xoload_plandiff.sh proves equal to elfplan.c (libelf).
 *
 * What a libc would give - argv, the environment, the auxiliary vector -
 * comes from the initial stack, found through ld.so's exported
 * __libc_stack_end (looked up in ld.so's dynamic symbol table, which is
 * readable).  Through it the module confirms xoload's gate (xoload.h):
 * if this module never runs, PROG does not either.
 *
 * Identity: the module opens an object by its name after ld.so mapped
 * it; the file it opened must be the one mapped (run/sameobj.h), or its
 * plan would be another file's.
 *
 * Fail closed: an object that cannot be planned or protected, or whose
 * file is not the one mapped, stops the process (exit 126, one line naming it) before its code runs, unless
 * xoload was given --permissive (a warning, its code stays readable).
 *
 * Inheritance: LD_AUDIT stays in the environment, so a program PROG execs
 * loads this module again, without AT_XOLOAD.  la_objopen() then protects
 * it in place: the program, ld.so and each library before any of their
 * code runs (ld.so's own start ran readable); XOLOAD_CHILDREN=reexec
 * re-executes it under xoload instead (protect_child()).  With
 * --no-inherit, LD_AUDIT is removed from the environment before the
 * program starts.
 */
#include <elf.h>
#include <link.h>

#include "../rule/str.h"
#include "carve.h"
#include "dynsym.h"
#include "fmt.h"
#include "net.h"
#include "objprotect.h"
#include "pkeys.h"
#include "plancache.h"
#include "report.h"
#include "rtplan.h"
#include "sameobj.h"
#include "sys.h"
#include "xoload.h"
#include "xonly/uapi.h"

#define PATH_MAX_ 4096

static unsigned long flags RT_HOT;	/* AT_XOLOAD value; 0 if not started by xoload */
static struct xoload_gate *gate RT_HOT;
static char **argv RT_HOT, **envp RT_HOT;
static Elf64_auxv_t *auxv RT_HOT;
static uint64_t at_base RT_HOT, at_sysinfo RT_HOT;
static const char *execfn RT_HOT;
static bool started RT_HOT, first_base = true;
static bool kernel_mode RT_HOT;	/* xoload --kernel: the kernel made all code xo; carve data back */
static bool guarding RT_HOT;	/* the load guard (net.h): the kernel makes code xo as ld.so maps it */
static bool net_on RT_HOT;	/* the safety net (net.h): not --no-net, not the strict level */
static uint64_t t_version RT_HOT;	/* la_version()'s clock, for XOLOAD_TIMES (known later) */
static const struct link_map *start_map RT_HOT;	/* the first la_objopen()'s: ld.so's namespaces from it */

/*
 * The module's own code, execute-only before anything else of it runs:
 * its PF_X segment holds .text only (-z separate-code).
 */
static void protect_self(void)
{
	if (rt_protect_self())
		xo_refuse("xoaudit.so: cannot make its own code execute-only: ", "not run");
}

/* Find the initial stack through ld.so's __libc_stack_end, and what is on it. */
static bool find_stack(struct link_map *map)
{
	struct link_map *m;
	void **stack_end = NULL;
	uint64_t *sp;
	long argc;

	while (map && map->l_prev)
		map = map->l_prev;
	/*
	 * The first definition that is set: a program that reads the variable
	 * (node: V8's stack bounds) has a COPY-relocated definition of its own,
	 * still 0 here, before ld.so relocates it; ld.so's own is set already.
	 */
	for (m = map; m && !stack_end; m = m->l_next) {
		const Elf64_Sym *sym = xo_dyn_symbol(m->l_addr, m->l_ld, "__libc_stack_end", NULL, NULL);

		stack_end = sym ? (void **)(m->l_addr + sym->st_value) : NULL;
		if (stack_end && !*stack_end)
			stack_end = NULL;
	}
	if (!stack_end)
		return false;
	sp = *stack_end;
	argc = (long)sp[0];
	argv = (char **)(sp + 1);
	envp = argv + argc + 1;
	for (sp = (uint64_t *)envp; *sp; sp++)
		;
	auxv = (Elf64_auxv_t *)(sp + 1);
	for (Elf64_auxv_t *a = auxv; a->a_type != AT_NULL; a++) {
		switch (a->a_type) {
		case AT_XOLOAD: flags = a->a_un.a_val; break;
		case AT_XOLOAD_GATE: gate = (struct xoload_gate *)a->a_un.a_val; break;
		case AT_BASE: at_base = a->a_un.a_val; break;
		case AT_SYSINFO_EHDR: at_sysinfo = a->a_un.a_val; break;
		case AT_EXECFN: execfn = (const char *)a->a_un.a_val; break;
		}
	}
	return true;
}

static const char *env(const char *name)
{
	return rt_env_in(envp, name);
}

/* This module's dynamic section: its link map is the one whose l_ld is here. */
extern Elf64_Dyn _DYNAMIC[] __attribute__((visibility("hidden")));

/*
 * ld.so's _r_debug, when it chains every namespace (r_version 2, glibc
 * 2.35+; NULL otherwise), found from @map's namespace: ld.so is the
 * object at AT_BASE, or ("ld.so PROG" has none) the first with a set
 * _r_debug, as in find_stack().  @ld_bias gets ld.so's load address.
 */
static const struct r_debug_extended *find_namespaces(const struct link_map *map, uint64_t *ld_bias)
{
	const struct r_debug_extended *r = NULL;
	const struct link_map *m;

	*ld_bias = 0;
	while (map && map->l_prev)
		map = map->l_prev;
	for (m = map; m && !r; m = m->l_next) {
		const Elf64_Sym *sym;

		if (at_base && m->l_addr != at_base)
			continue;
		sym = xo_dyn_symbol(m->l_addr, m->l_ld, "_r_debug", NULL, NULL);
		r = sym ? (const struct r_debug_extended *)(m->l_addr + sym->st_value) : NULL;
		if (r && !r->base.r_version)
			r = NULL;
		*ld_bias = m->l_addr;
	}
	return r && r->base.r_version >= 2 ? r : NULL;
}

/* The object of namespace @r whose dynamic section is @ld, or NULL. */
static const struct link_map *in_namespace(const struct r_debug_extended *r, const Elf64_Dyn *ld)
{
	const struct link_map *m;

	for (m = r->base.r_map; m; m = m->l_next)
		if (m->l_ld == ld)
			return m;
	return NULL;
}

/*
 * This module's own path (xoload and xoscan are beside it): the name of
 * its own link map, found in ld.so's namespace chain by its dynamic
 * section.  Not LD_AUDIT's first entry: a child's own LD_AUDIT may list
 * another module first ("theirs:ours"), and XOLOAD_CHILDREN=reexec then
 * looked for xoload beside that one, found none and ran in place.  With
 * an older ld.so (no chain), LD_AUDIT's first entry, where xoload puts
 * this module.  Found when first asked (--scan, the re-exec): most
 * children never ask, and the buffer is a page fault of its own.
 */
static const char *self_path(void)
{
	static char path[PATH_MAX_];
	const struct r_debug_extended *r;
	const struct link_map *self = NULL;
	const char *name = NULL;
	uint64_t ld_bias;
	char **e;
	size_t i;

	if (path[0])
		return path;
	for (r = find_namespaces(start_map, &ld_bias); r && !self; r = r->r_next)
		self = in_namespace(r, _DYNAMIC);
	if (self && self->l_name && self->l_name[0])
		name = self->l_name;
	for (e = envp; !name && e && *e; e++)
		if (!rt_strncmp(*e, "LD_AUDIT=", 9))
			name = *e + 9;
	for (i = 0; name && name[i] && name[i] != ':' && i < sizeof(path) - 1; i++)
		path[i] = name[i];
	path[i] = 0;
	return path;
}

/* @dst = the module's directory + @rel; false if that directory is unknown. */
static bool beside_self(char *dst, size_t len, const char *rel)
{
	const char *self = self_path();
	size_t n = 0, r = rt_strlen(rel), i;

	for (i = 0; self[i]; i++)
		if (self[i] == '/')
			n = i;
	if (!n || n + r + 1 > len)
		return false;
	rt_strlcpy(dst, self, n + 1);
	rt_strlcpy(dst + n, rel, len - n);
	return true;
}

/* --scan: run xoscan (XO_XOSCAN_FROM_AUDIT from the module, xoload.h) on @path and wait. */
static void scan(const char *path, const char *tag)
{
	static char xoscan[PATH_MAX_], tagopt[PATH_MAX_ + 16];
	const char *av[8];
	int n = 0, st;
	long pid;

	if (!beside_self(xoscan, sizeof(xoscan), "/" XO_XOSCAN_FROM_AUDIT))
		return;
	av[n++] = xoscan;
	av[n++] = "--prefix=xoload: scan: ";
	if (flags & XOF_SCAN_JSON)
		av[n++] = "--json";
	else if (flags & XOF_SCAN_TSV)
		av[n++] = "--tsv";
	rt_strlcpy(tagopt, "--tag=", sizeof(tagopt));
	rt_strlcpy(tagopt + 6, tag, sizeof(tagopt) - 6);
	av[n++] = tagopt;
	av[n++] = "--";
	av[n++] = path;
	av[n] = NULL;
	/* fork, not posix_spawn: no libc here; the child only execs. */
	pid = rt_syscall(RT_NR_fork, 0, 0, 0);
	if (pid == 0) {
		rt_syscall(RT_NR_dup2, 2, 1, 0);
		rt_syscall(RT_NR_execve, xoscan, av, envp);
		xo_say(xoscan, ": cannot run it: --scan skips the libraries");
		rt_syscall(RT_NR_exit, 127, 0, 0);
	}
	while (pid > 0 && rt_syscall6(RT_NR_wait4, pid, (long)&st, 0, 0, 0, 0) == -4)
		;	/* EINTR */
}

/*
 * Plan and protect one object mapped at @bias (@ld: its l_ld), whose file
 * @path is open on @fd (negative: it could not be opened); @tag prefixes
 * its report name.  Returns its safety net cookie (net.h), or 0.
 */
static uint32_t protect(const char *path, long fd, uint64_t bias, uint64_t ld, const char *tag)
{
	static char name[PATH_MAX_ + 32];
	static struct plan plan RT_PAGE_ALIGNED;
	const struct xo_objprotect o = { flags, kernel_mode, net_on, scan, &plan, NULL };

	rt_strlcpy(name, tag, sizeof(name));
	/* The main program opened as /proc/self/exe is named as it was run (messages, the net's lines). */
	rt_strlcpy(name + rt_strlen(name), !rt_strcmp(path, "/proc/self/exe") && execfn ? execfn : path,
		   sizeof(name) - rt_strlen(name));
	return xo_protect_object(&o, path, fd, name, tag, bias, ld);
}

/* Does the file open on @fd (negative: none) start with "#!": a script, whose interpreter the kernel ran? */
static bool is_script(long fd)
{
	char head[2];

	return fd >= 0 && rt_pread((int)fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
}

/*
 * The program to run under xoload again: AT_EXECFN, unless that is a
 * script (#!), whose interpreter the kernel ran (argv holds its
 * arguments: the script's path and the script's own), and which xoload
 * refuses: then the interpreter, /proc/self/exe.  Not /proc/self/exe
 * always: "ld.so PROG" has ld.so there and PROG in AT_EXECFN and argv[0].
 */
static const char *reexec_prog(void)
{
	static char exe[PATH_MAX_];
	long fd = xo_open_object(execfn), n;
	bool script = is_script(fd);

	if (fd >= 0)
		rt_close((int)fd);
	if (!script)
		return execfn;
	n = rt_syscall(RT_NR_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	return exe;
}

/* Every "@prefix..." entry out of the NULL-ended @env, in place. */
static void drop_env(char **env, const char *prefix)
{
	size_t n = rt_strlen(prefix);
	char **r, **w;

	for (r = w = env; *r; r++)
		if (rt_strncmp(*r, prefix, n))
			*w++ = *r;
	*w = NULL;
}

/*
 * --no-inherit: the GLIBC_TUNABLES entry that xoload put in with the
 * module (runpath.c's build_env(): the first, as the gate says) goes with
 * LD_AUDIT: ours alone dropped, ours after the user's cut off (in place:
 * the string is xoload's, or ld.so's copy of it, writable either way).
 */
static void drop_tls_tunable(char **env)
{
	size_t n = sizeof(":" XO_TLS_TUNABLE) - 1, len;
	char **r, **w;

	for (r = env; *r && rt_strncmp(*r, "GLIBC_TUNABLES=", 15); r++)
		;
	if (!*r || !gate)
		return;
	len = rt_strlen(*r);
	if (gate->tunables == XOLOAD_TUNABLES_OURS && !rt_strcmp(*r, XO_TLS_TUNABLES_ENV)) {
		for (w = r++; (*w = *r); w++, r++)
			;
	} else if (gate->tunables == XOLOAD_TUNABLES_JOINED && len > n && !rt_strcmp(*r + len - n, ":" XO_TLS_TUNABLE)) {
		(*r)[len - n] = 0;
	}
}

/* A copy of the environment without its "@prefix..." entries, in pages of its own; NULL if none can be had. */
static char **env_without(const char *prefix)
{
	size_t c = 0, i;
	char **ev;
	long r;

	while (envp[c])
		c++;
	r = rt_mmap(0, (c + 1) * sizeof(*ev), RT_PROT_READ | RT_PROT_WRITE, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
	if (rt_failed(r))
		return NULL;
	ev = (char **)r;
	for (i = 0; i <= c; i++)
		ev[i] = envp[i];
	drop_env(ev, prefix);
	return ev;
}

/* Re-run this process under xoload; returns only if that is impossible. */
static void reexec_under_xoload(void)
{
	static char xo[PATH_MAX_], a0[PATH_MAX_ + 16];
	static char *av[4096];
	char **ev;
	const char *prog;
	int n = 0, i;

	if (!execfn || !argv[0] || !beside_self(xo, sizeof(xo), "/" XO_XOLOAD_FROM_AUDIT))
		return;
	prog = reexec_prog();
	if (!prog)
		return;
	av[n++] = xo;
	rt_strlcpy(a0, "--argv0=", sizeof(a0));
	rt_strlcpy(a0 + 8, argv[0], sizeof(a0) - 8);
	av[n++] = a0;
	av[n++] = "--";
	av[n++] = (char *)prog;
	for (i = 1; argv[i] && n < 4095; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	/*
	 * Without the XOLOAD_PROG of the program that executed this one, in
	 * a copy (if the execve() fails this runs in place with its
	 * environment as it was): where xoload's own name is private
	 * (runpath.c's names_private_self()), xoload executed by it with
	 * XOLOAD_PROG set would take this for that program re-executing
	 * itself.
	 */
	ev = env_without(XOLOAD_PROG_ENV "=");
	if (ev)
		rt_syscall(RT_NR_execve, xo, av, ev);
}

/*
 * A program that one under xoload executed: it inherited LD_AUDIT, and
 * neither xoload (no AT_XOLOAD) nor the kernel's xonly mode made its code
 * execute-only.  By default the module does it in place: ld.so has mapped
 * the program and itself and run only its own start (relocating itself,
 * reading the environment, loading this module), and la_objopen()
 * protects the program, ld.so and each library before any of their code
 * or constructors run, as for xoload --kernel's descendants.  One start,
 * where a re-exec costs a second one: twice a small program's (make
 * bench-host, the children row).  XOLOAD_CHILDREN=reexec runs it under
 * xoload again instead, so that ld.so's own start runs execute-only too;
 * where that is impossible (no xoload beside the module; a script's
 * interpreter without /proc), in place.  Without protection keys nothing
 * could be protected: refused, as xoload refuses.
 */
static void protect_child(void)
{
	static char l[PATH_MAX_ + 200];
	int how = xoload_children_mode(env(XOLOAD_CHILDREN_ENV));
	const char *why = NULL;

	if (how < 0)
		why = "XOLOAD_CHILDREN must be inplace, reexec or unset";
	else if (!rt_have_pkeys())
		why = "no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only";
	if (why) {
		rt_fmt(l, sizeof(l), "%s: %s: not run", execfn ? execfn : "the program", why);
		xo_refuse(l, "");
	}
	if (how == XOLOAD_CHILDREN_REEXEC)
		reexec_under_xoload();
}

/*
 * Under the kernel's xonly mode ld.so reads the headers of what it loads
 * from memory the kernel made execute-only (net.c's load guard): the
 * guard needs ld.so's code, the span of its PF_X segments, from its
 * headers in memory, which ld.so itself reads (its first segment).
 */
static uint64_t ld_code_lo, ld_code_hi;

static void guard_loads(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)at_base;

	if (!ld_code_hi) {
		if (!at_base || rt_memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_phentsize != sizeof(Elf64_Phdr))
			return;
		xonet_code_span(at_base, (const Elf64_Phdr *)(at_base + eh->e_phoff), eh->e_phnum, &ld_code_lo,
				&ld_code_hi);
	}
	/* The program's own handler (a dlopen() after main): not replaced; such a read kills. */
	if (ld_code_hi)
		xonet_guard(ld_code_lo, ld_code_hi);
}

/*
 * ld.so is about to look for an object to load (LA_SER_ORIG: once per
 * object, before it opens and maps it; dlopen() included): the load
 * guard, under the kernel's xonly mode.  The name is not changed.
 */
__attribute__((visibility("default")))
char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (guarding && flag == LA_SER_ORIG)
		guard_loads();
	return (char *)name;
}

/* The first callback with a link map: set up from the initial stack, confirm the gate. */
static void start(struct link_map *map)
{
	long level;

	started = true;
	if (!find_stack(map))
		xo_refuse("xoaudit.so: cannot find the initial stack (__libc_stack_end): ", "not run");
	/* XOLOAD_TIMES: from AT_XOLOAD, or (--kernel, which has none) the environment. */
	rt_times = (flags & XOF_TIMES) || (!flags && env(XOLOAD_TIMES_ENV));
	if (rt_times)
		rt_time("la_version", NULL, t_version);
	rt_step("stack found", NULL);
	start_map = map;
	xoc_setup(env(XOC_DIR_ENV), env(XOC_OFF_ENV) != NULL, env(XOC_VERBOSE_ENV) != NULL, 0);
	rt_step("cache setup", NULL);
	/* xoload --kernel (or a descendant): the kernel's xonly mode is on, level 1 or 2 (strict). */
	level = rt_syscall6(RT_NR_prctl, XONLY_PR_GET_XONLY, 0, 0, 0, 0, 0);
	kernel_mode = !flags && level >= 1;
	/*
	 * The load guard: also xoload's own runs under xonly=on or =strict
	 * (in learn mode reads do not fault: only kernel_mode, which counts
	 * it, puts the guard up there, to no effect).  Asked once: a level
	 * the program raises later (its own prctl) is not seen.
	 */
	guarding = kernel_mode || level == XONLY_PR_XONLY_ON || level == XONLY_PR_XONLY_STRICT;
	if (guarding)
		guard_loads();
	rt_step("mode", NULL);
	if (!flags && !kernel_mode)
		protect_child();
	if (flags & XOF_NO_INHERIT) {
		drop_env(envp, "LD_AUDIT=");
		drop_tls_tunable(envp);
	}
	if ((flags & XOF_SCAN) && self_path()[0])
		scan(self_path(), "[xoload runtime] ");	/* the only object of its namespace */
	/* The preloader's PROG and ld.so (xoload.h): recorded before this module existed. */
	net_on = xonet_on(env(XOLOAD_NO_NET_ENV), level);
	if (gate && gate->net && net_on) {
		/* Fail closed: a table of another layout is not read; its net pages stay execute-only. */
		if (!xonet_import((const struct xonet_table *)gate->net))
			xo_say("the preloader's safety net table is not this module's version: ",
			    "the net pages of the program and ld.so are not watched (a read of one kills)");
		xonet_arm();
	}
	if (gate) {
		/* AT_ENTRY is PROG's again for the program; ld.so already took the gate's. */
		if (gate->auxv_entry)
			*gate->auxv_entry = gate->entry;
		gate->confirmed = XOLOAD_GATE_OK;
	}
}

/*
 * The main program's file by the name it was executed by (AT_EXECFN), if
 * the file there is the one mapped (the identity check, sameobj.h): the
 * descriptor, else -1.  Why not /proc/self/exe at once: it is the first
 * /proc lookup of the process, about 16 us on a CPU (make bench-host's
 * machine), where this is an open and a read of the first page.  A
 * script (AT_EXECFN names it, not its interpreter), a file replaced since
 * the exec or a name under /proc or /dev (a descriptor's link: as costly
 * as /proc/self/exe) is -1, and the caller opens /proc/self/exe.
 */
static long open_by_execfn(struct link_map *map)
{
	const char *why;
	long fd;

	if (!execfn || !*execfn || !rt_strncmp(execfn, "/proc/", 6) || !rt_strncmp(execfn, "/dev/", 5))
		return -1;
	fd = xo_open_object(execfn);
	if (fd < 0)
		return -1;
	if (!xo_same_object((int)fd, map->l_addr, (uint64_t)map->l_ld, &why))
		return fd;
	rt_close((int)fd);
	return -1;
}

/*
 * The main program's file (@map): the file /proc/self/exe names, whatever
 * path ran it, opened by that path where it is the file mapped
 * (open_by_execfn()), else as /proc/self/exe; *@path is "/proc/self/exe"
 * either way (the identity check is done).  Not when ld.so was itself the program the kernel ran ("ld.so PROG": the
 * kernel loaded no interpreter, AT_BASE is 0; or a main link map with a
 * name): /proc/self/exe is ld.so then, and its plan applied at PROG's
 * address left PROG's code readable.  That PROG is opened by its name -
 * l_name if set, else AT_EXECFN, which ld.so pointed at PROG.  Without
 * /proc, AT_EXECFN; but for a script that names the script, and the
 * program is its interpreter, which the kernel put in argv[0] as the #!
 * line gives it.  Every file but /proc/self/exe then goes through the
 * identity check (sameobj.h), as a library does.
 */
static long open_main(struct link_map *map, const char **path)
{
	long fd;

	if (!at_base || (map->l_name && map->l_name[0])) {
		*path = map->l_name && map->l_name[0] ? map->l_name : execfn;
		return *path ? xo_open_object(*path) : -1;
	}
	*path = "/proc/self/exe";
	fd = open_by_execfn(map);
	if (fd >= 0)
		return fd;
	fd = xo_open_object("/proc/self/exe");
	if (fd >= 0)
		return fd;
	*path = execfn;
	fd = xo_open_object(execfn);
	if (is_script(fd) && argv[0] && argv[0][0] == '/') {
		rt_close((int)fd);
		*path = argv[0];
		fd = xo_open_object(argv[0]);
	}
	return fd;
}

__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	rt_bss_small_pages();	/* before anything is written there */
	t_version = rt_clock_ns();
	protect_self();
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/*
 * Objects of another audit module (LD_AUDIT="ours:theirs"): ld.so maps
 * them, in a namespace of their own, before the program, and the initial
 * stack (flags, the gate) is found only through the base namespace, where
 * ld.so is.  They are protected at the first call for the base namespace;
 * the other module's la_version() has run by then, readable.
 */
#define MAX_PENDING 64
static struct { struct link_map *map; uintptr_t *cookie; } pending[MAX_PENDING];
static int npending RT_HOT;

static void protect_pending(void)
{
	int i;

	for (i = 0; i < npending; i++) {
		struct link_map *m = pending[i].map;

		if (m->l_name && m->l_name[0] && m->l_addr != at_base && m->l_addr != at_sysinfo)
			*pending[i].cookie = protect(m->l_name, xo_open_object(m->l_name), m->l_addr, (uint64_t)m->l_ld, "");
	}
	npending = 0;
}

static bool is_pending(const struct link_map *m)
{
	int i;

	for (i = 0; i < npending; i++)
		if (pending[i].map == m)
			return true;
	return false;
}

/*
 * Objects of audit modules listed before this one (LD_AUDIT="theirs:ours",
 * a child's own LD_AUDIT): ld.so loaded each such module, with its
 * DT_NEEDED libraries (its own libc, say), in a namespace of its own before
 * it loaded ours, so la_objopen() never sees them.  They are found through
 * ld.so's _r_debug, whose r_next chain (r_version 2, glibc 2.35+) links
 * every namespace's link map, and protected as any object is (identity
 * check, plan, 126 on failure).  Their code has run readable by now - the
 * libraries' relocation and constructors, the module's la_version() - so
 * what this gains is that it is execute-only for the rest of the run.
 * Skipped: the base namespace (la_objopen() sees each of its objects), this
 * module's own namespace (it protected itself), ld.so (its entry in each
 * namespace has ld.so's l_addr), the vDSO, objects without a name, and
 * those of modules listed after this one (pending: protect_pending()).
 * Without the chain (r_version < 2: an older ld.so) nothing is found and
 * such modules keep their code readable, as before.
 */
static void protect_earlier_audit(struct link_map *map)
{
	const struct r_debug_extended *r;
	const struct link_map *m;
	uint64_t ld_bias;

	r = find_namespaces(map, &ld_bias);
	for (r = r ? r->r_next : NULL; r; r = r->r_next) {
		if (in_namespace(r, _DYNAMIC))
			continue;
		for (m = r->base.r_map; m; m = m->l_next) {
			if (!m->l_name || !m->l_name[0] || m->l_addr == ld_bias || m->l_addr == at_sysinfo ||
			    is_pending(m))
				continue;
			rt_step("earlier audit module", m->l_name);
			/* No la_objclose() for it will come here: its net entries stay, as the object does. */
			protect(m->l_name, xo_open_object(m->l_name), m->l_addr, (uint64_t)m->l_ld, "");
			rt_step("protected", m->l_name);
		}
	}
}

__attribute__((visibility("default")))
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	bool is_main = lmid == LM_ID_BASE && first_base;

	*cookie = 0;	/* no net entry (la_objclose) unless protect() made one */
	if (!started && lmid != LM_ID_BASE) {
		if (npending == MAX_PENDING)
			xo_refuse("xoaudit.so: more objects of other audit modules than it can hold: ", "not run");
		pending[npending].map = map;
		pending[npending++].cookie = cookie;
		return 0;
	}
	if (!started) {
		start(map);
		rt_step("module", NULL);
		protect_earlier_audit(map);
		protect_pending();
	}
	if (lmid == LM_ID_BASE)
		first_base = false;
	if (map->l_addr && map->l_addr == at_sysinfo) {
		if ((flags & XOF_REPORT) && (flags & XOF_JSON))
			rt_report_json_note("[vdso]", "kept readable: ld.so and libc read its symbol tables");
		else if (flags & XOF_REPORT)
			xo_say("[vdso] kept readable: ld.so and libc read its symbol tables", "");
		return 0;
	}
	if (is_main || map->l_addr == at_base) {
		const char *path = map->l_name;
		long fd;

		/* Done by xoload before ld.so ran (AT_XOLOAD), else do it now. */
		if (flags)
			return 0;
		rt_step("objopen", map->l_name);
		fd = is_main ? open_main(map, &path) : xo_open_object(path);
		*cookie = protect(path, fd, map->l_addr, (uint64_t)map->l_ld, "");
		rt_step("protected", map->l_name);
		return 0;
	}
	if (map->l_name && map->l_name[0]) {
		rt_step("objopen", map->l_name);
		*cookie = protect(map->l_name, xo_open_object(map->l_name), map->l_addr, (uint64_t)map->l_ld, "");
		rt_step("protected", map->l_name);
	}
	return 0;
}

/*
 * dlclose, and exit: the object's net entries (net.h) are forgotten at the
 * next la_activity() if it is unmapped by then (dlclose), so that they do
 * not match what may be mapped there next; at exit it stays mapped and its
 * code may still run, so they stay.
 */
__attribute__((visibility("default"))) unsigned int la_objclose(uintptr_t *cookie)
{
	int i;

	/* Another audit module that ld.so unloads again (no la_version, say): its maps are freed. */
	for (i = 0; i < npending; i++)
		if (pending[i].cookie == cookie)
			pending[i--] = pending[--npending];
	xonet_close((uint32_t)*cookie);
	return 0;
}

/*
 * LA_ACT_CONSISTENT ends a dlclose (after the unmapping) and exit's round
 * of la_objclose calls (glibc's _dl_fini, where nothing is unmapped);
 * LA_ACT_ADD starts a load, also in a namespace that a dlclose emptied
 * without a LA_ACT_CONSISTENT.
 */
__attribute__((visibility("default"))) void la_activity(uintptr_t *cookie, unsigned int flag)
{
	static bool loaded RT_HOT;

	(void)cookie;
	/* XOLOAD_TIMES: ld.so's work after the last la_objopen of PROG's load (make bench's phases). */
	if (flag == LA_ACT_CONSISTENT && !loaded) {
		loaded = true;
		rt_step("loaded", NULL);
	}
	if (flag != LA_ACT_DELETE)
		xonet_settle();
	if (guarding && flag == LA_ACT_CONSISTENT)
		xonet_guard_end();
}
