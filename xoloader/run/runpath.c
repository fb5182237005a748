// SPDX-License-Identifier: GPL-2.0
/*
 * runpath.c - xoload's run path (runpath.h): find, validate, plan, map, protect,
 * hand over.  No libc (sys.h): the same code runs in the freestanding
 * preloader (preload.c) and in xoplan (tools/xoplan.c), which has one.
 */
#include <stdarg.h>

#include "../rule/str.h"
#include "carve.h"
#include "fmt.h"
#include "hook.h"
#include "net.h"
#include "origin.h"
#include "pkeys.h"
#include "plancache.h"
#include "report.h"
#include "runpath.h"
#include "sys.h"
#include "xonly/uapi.h"

#define PR_SET_NAME_	15
/* glibc's elf/dl-load.c: ld.so ignores an LD_AUDIT or LD_PRELOAD entry this long or longer. */
#define LDSO_SECURE_NAME_LIMIT	255u
/*
 * The stack limit below which run_kernel_early() leaves PROG to the full
 * path: its own use (24 KiB), a quarter of the limit that execve() allows
 * the arguments and environment, and the up to 8 KiB by which the kernel
 * moves the stack's top at random all fit with room to spare.
 */
#define EARLY_MIN_STACK		(64u << 10)
#define RT_RLIMIT_STACK		3

char prog_path[PATH_MAX];
char audit_path[PATH_MAX];
char xoscan_path[PATH_MAX];
static char audit_env[PATH_MAX + 32];
static char prog_env[PATH_MAX + 32];	/* XOLOAD_PROG=PROG, see reexec_args() */
/*
 * glibc's ld.so sets static TLS up before it loads an audit module, so
 * under LD_AUDIT the libraries a program starts with must fit their
 * initial-exec TLS in the surplus it keeps for dlopen() (512 bytes by
 * default): one with more fails to load, "cannot allocate memory in
 * static TLS block" (Rust's librustc_driver, 23 KB: cargo's rustc
 * children), with any LD_AUDIT, natively too.  Wherever xoload puts the
 * module in LD_AUDIT it asks for more, after the user's own tunables
 * unless they set this one: ours in .data (the hook renames it in place),
 * or joined to the user's.
 */
static char tunables_env[] = XO_TLS_TUNABLES_ENV;
static char tunables_joined[PATH_MAX + sizeof(XO_TLS_TUNABLE)];
static char *tunables_ours RT_HOT, *tunables_user RT_HOT;	/* in the last build_env()'s output */

static char **environ_ RT_HOT;
static Elf64_auxv_t *auxv_ RT_HOT;

/*
 * PROG's and ld.so's plans, and their net pages, each right after the
 * one before and as long as it holds: a run writes the first page of
 * each space, not a page of each of four buffers of 480 KB and 64 KB (a
 * fresh page is a fault and a page cleared: 1-3 us on a CPU, some 50 us
 * under TCG).  The hook plans each library at their start once xoload
 * has handed over: PROG's and ld.so's are in the safety net's table by
 * then, and their plans are not read again.
 */
static unsigned char plan_space[2 * sizeof(struct plan) + 64] RT_PAGE_ALIGNED;
static unsigned char net_space[2 * sizeof(struct xoc_net) + 64] RT_PAGE_ALIGNED;

static void *after(const void *prev, size_t len)
{
	return (unsigned char *)prev + ((len + 63) & ~(size_t)63);
}

struct plan *run_plan(const struct plan *prev)
{
	if (!prev)
		return (struct plan *)plan_space;
	return after(prev, __builtin_offsetof(struct plan, r) + (size_t)prev->n * sizeof(prev->r[0]));
}

struct xoc_net *run_net(const struct xoc_net *prev)
{
	if (!prev)
		return (struct xoc_net *)net_space;
	return after(prev, __builtin_offsetof(struct xoc_net, r) + (size_t)prev->n * sizeof(prev->r[0]));
}

void run_init(char **envp)
{
	char **e = envp;

	while (*e)
		e++;
	environ_ = envp;
	auxv_ = (Elf64_auxv_t *)(e + 1);
	xoc_setup(run_env(XOC_DIR_ENV), run_env(XOC_OFF_ENV) != NULL, run_env(XOC_VERBOSE_ENV) != NULL, 0);
}

/* --no-cache: plan every object here, and (XOLOAD_NO_CACHE) in the audit module and children. */
static bool no_cache_env RT_HOT;

void run_no_cache(void)
{
	xoc_setup(run_env(XOC_DIR_ENV), true, run_env(XOC_VERBOSE_ENV) != NULL, 0);
	no_cache_env = !run_env(XOC_OFF_ENV);
}

const char *run_env(const char *name)
{
	return rt_env_in(environ_, name);
}

long run_xonly_level(void)
{
	static long level RT_HOT;
	static bool asked RT_HOT;

	if (!asked) {
		level = rt_syscall6(RT_NR_prctl, XONLY_PR_GET_XONLY, 0, 0, 0, 0, 0);
		asked = true;
	}
	return level;
}

uint64_t run_auxval(uint64_t type)
{
	Elf64_auxv_t *a;

	for (a = auxv_; a && a->a_type != AT_NULL; a++)
		if (a->a_type == type)
			return a->a_un.a_val;
	return 0;
}

/* --- messages ------------------------------------------------------------- */

/*
 * One line on stderr.  Paths in it come from the command line and from the
 * files (PT_INTERP): control characters (and bytes that are not valid
 * UTF-8) go out as \xNN, or a newline in an interpreter name would make an
 * error two lines.
 */
void line(const char *prefix, const char *msg)
{
	static struct rt_line l;

	l.n = 0;
	rt_put(&l, prefix);
	rt_put_safe(&l, msg);
	rt_flush_fd(&l, 2);
}

void die(int code, const char *msg)
{
	line("xoload: ", msg);
	rt_exit_group(code);
}

void dief(int code, const char *fmt, ...)
{
	static char msg[3 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	rt_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die(code, msg);
}

static void warn_line(const char *msg)
{
	line("xoload: warning: ", msg);
}

void (*run_warn)(const char *msg) = warn_line;

/* --- finding things --------------------------------------------------------- */

/* /proc/self/exe, /proc/thread-self/exe or /proc/PID/exe of this very process. */
static bool names_proc_exe(const char *fn)
{
	const char *p = fn + 6;
	char pid[32];

	if (rt_strncmp(fn, "/proc/", 6))
		return false;
	rt_fmt(pid, sizeof(pid), "%d/", (int)rt_syscall(RT_NR_getpid, 0, 0, 0));
	if (!rt_strncmp(p, "self/", 5))
		p += 5;
	else if (!rt_strncmp(p, "thread-self/", 12))
		p += 12;
	else if (!rt_strncmp(p, pid, rt_strlen(pid)))
		p += rt_strlen(pid);
	else
		return false;
	return !rt_strcmp(p, "exe");
}

static bool names_private_self(const char *fn);
static bool is_xoload(const char *path);
static bool resolve(const char *path, char *out, bool readable);

/*
 * A program run under xoload that re-executes itself through /proc/self/exe
 * (busybox, runc, Chromium, `os.execv('/proc/self/exe', ...)`) executes
 * xoload, the process's executable, with the program's own arguments.
 * xoload recognises that case by what the kernel put in AT_EXECFN, the
 * name passed to execve: /proc/self/exe, /proc/thread-self/exe or
 * /proc/PID/exe of this very process - a name under which nobody runs
 * xoload on purpose - or, in an installation whose xoload is not the
 * command (names_private_self()), that file's own name, which is what
 * readlink() of /proc/self/exe gives (clang's -cc1, node's
 * process.execPath); and by XOLOAD_PROG, the program it stood for, which
 * it put into that program's environment.  It then runs that program
 * again, under xoload, with argv as given (argv[0] included, but for
 * xoload's private name there, which natively would have been PROG's).
 * Returns the argv to parse instead (in @nv, room for *@argc + 4), or
 * NULL.
 */
char **reexec_args(int *argc, char **argv, char **nv)
{
	const char *fn = (const char *)run_auxval(AT_EXECFN), *prog = run_env(XOLOAD_PROG_ENV);
	static char a0[PATH_MAX + 16];
	bool private;
	int i, k = 0;

	if (!fn || !prog || *prog != '/')
		return NULL;
	private = !names_proc_exe(fn);
	/* PROG was xoload run by that name ("xoload /usr/libexec/xonly/xoload PROG"): no loop (review s45). */
	if (private && (!names_private_self(fn) || is_xoload(prog)))
		return NULL;
	nv[k++] = argv[0];
	if (*argc > 0) {
		/* Natively that name, readlink() of /proc/self/exe, was PROG's, resolved. */
		static char real[PATH_MAX];
		bool mine = private && !rt_strcmp(argv[0], fn);

		rt_fmt(a0, sizeof(a0), "--argv0=%s", !mine ? argv[0] : resolve(prog, real, false) ? real : prog);
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

static bool is_executable_file(const char *path)
{
	struct rt_stat st;

	return !rt_stat(path, &st) && (st.mode & RT_S_IFMT) == RT_S_IFREG &&
	       !rt_syscall(RT_NR_access, path, RT_X_OK, 0);
}

/*
 * PROG as execvp() finds it, into @out (PATH_MAX), without messages:
 * find_prog()'s search, and run_kernel_plans_early()'s before xoload is
 * relocated (string literals and system calls only).
 */
static bool find_prog_early(const char *name, const char *path, char *out)
{
	const char *p, *e, *c;
	size_t n;

	for (c = name; *c && *c != '/'; c++)
		;
	if (*c) {
		if (rt_strlen(name) >= PATH_MAX)
			return false;
		rt_strlcpy(out, name, PATH_MAX);
		return true;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = e + 1) {
		for (e = p; *e && *e != ':'; e++)
			;
		n = (size_t)(e - p);
		if (n + 1 + rt_strlen(name) < PATH_MAX) {
			for (c = p; c < e; c++)
				out[c - p] = *c;
			if (n)
				out[n++] = '/';
			rt_strlcpy(out + n, name, PATH_MAX - n);
			if (is_executable_file(out))
				return true;
		}
		if (!*e)
			return false;
	}
}

/* Find @name like execvp: on PATH when it has no slash. */
int find_prog(const char *name, char *out, char *err, size_t errlen)
{
	const char *p;

	if (!*name) {
		rt_fmt(err, errlen, "empty program name");
		return 127;
	}
	for (p = name; *p && *p != '/'; p++)
		;
	/* Cut short, it could name another program that exists. */
	if (*p && rt_strlen(name) >= PATH_MAX) {
		rt_fmt(err, errlen, "%.*s...: File name too long", 64, name);
		return 126;
	}
	if (find_prog_early(name, run_env("PATH"), out))
		return 0;
	rt_fmt(err, errlen, "%s: command not found", name);
	return 127;
}

/*
 * PROG cannot be run.  Under a program that xoload runs (XOLOAD_PROG in
 * the environment), the likely cause is that program executing the target
 * of /proc/self/exe, which is xoload, with its own arguments: node's
 * child_process.fork() runs process.execPath SCRIPT.  Where xoload is the
 * command itself, it cannot tell that from a deliberate "xoload ARGS"
 * (reexec_args() knows the /proc names, and the real file's where it is
 * not the command), so it says what to do instead.
 */
void die_prog(int code, const char *err, bool plan_only)
{
	const char *parent = run_env(XOLOAD_PROG_ENV);

	if (plan_only || !parent || !*parent)
		die(code, err);
	dief(code, "%s (run from %s under xoload: a program that executes its own "
	     "executable's path, as node's child_process.fork() does, executes xoload; "
	     "run it with xoload --kernel, see xoload(1))", err, parent);
}

/* PROG as open_images() opened it: prepare_handover() names that file. */
static const struct image *opened_prog RT_HOT;

void open_images(struct image *prog, struct image *interp, bool need_entry)
{
	static char err[PATH_MAX + 200], ierr[PATH_MAX + 100];
	int rc = image_open_obj(prog, prog_path, need_entry, err, sizeof(err));

	if (rc)
		die_prog(rc, err, !need_entry);
	opened_prog = prog;
	rt_step("validated", prog->path);
	if (!prog->has_interp)
		return;
	rc = image_open(interp, prog->interp, ierr, sizeof(ierr));
	if (rc)
		dief(rc, "%s: bad interpreter: %s", prog_path, ierr);
	rt_step("validated", interp->path);
	if (interp->has_interp || interp->eh.e_type != ET_DYN)
		dief(126, "%s: bad interpreter %s: not a shared object", prog_path, prog->interp);
}

bool fd_path(int fd, char *out)
{
	char fdlink[48], num[24];
	long n;

	rt_cat(fdlink, sizeof(fdlink), "/proc/self/fd/", rt_dec(num + sizeof(num) - 1, (unsigned int)fd), NULL);
	n = rt_syscall(RT_NR_readlink, fdlink, out, PATH_MAX - 1);
	if (n <= 0 || n >= PATH_MAX - 1 || *out != '/')
		return false;
	out[n] = 0;
	return true;
}

/* realpath(3) of an existing file; with @readable, only if it can be opened for reading. */
static bool resolve(const char *path, char *out, bool readable)
{
	long fd = rt_open(path, readable ? RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY
					 : RT_O_PATH | RT_O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = fd_path((int)fd, out);
	rt_close((int)fd);
	return ok;
}

/*
 * A ':' in @s: LD_AUDIT is a list that ld.so splits at ':' (with no way to
 * quote one), so a module whose path has one cannot be named there: ld.so
 * would look for two files, find neither, and run every child without it.
 */
static bool has_colon(const char *s)
{
	for (; *s; s++)
		if (*s == ':')
			return true;
	return false;
}

/* A "." or ".." component anywhere in @path, or an empty one ("//"). */
static bool has_dot_component(const char *path)
{
	const char *c;

	for (c = path; *c; c++) {
		if (*c == '/' && c[1] == '/')
			return true;
		if (*c == '.' && (c == path || c[-1] == '/') &&
		    (!c[1] || c[1] == '/' || (c[1] == '.' && (!c[2] || c[2] == '/'))))
			return true;
	}
	return false;
}

/*
 * @dir (absolute; none of the directories that @rel's leading "../" take
 * off it a symlink) with those taken away as the kernel would take them,
 * then the rest of @rel: into @out, true; false if @rel has "." or ".."
 * after its start, where the components before could be symlinks.  No
 * system call: realpath(3) of the result would cost an open and a
 * readlink of /proc/self/fd/N, whose first lookup in a process is about
 * 10 us on a CPU (make bench-host).
 */
static bool join_below(char *out, const char *dir, const char *rel)
{
	size_t n = rt_strlen(dir);

	while (!rt_strncmp(rel, "../", 3)) {
		while (n > 0 && dir[n - 1] != '/')
			n--;
		if (n > 1)
			n--;	/* the slash, unless it is the root's */
		rel += 3;
	}
	if (has_dot_component(rel))
		return false;
	if (n + 1 + rt_strlen(rel) + 1 > PATH_MAX)
		return false;
	rt_strlcpy(out, dir, n + 1);
	if (n > 1)
		out[n++] = '/';
	rt_strlcpy(out + n, rel, PATH_MAX - n);
	return true;
}

/* openat2(2)'s (Linux 5.6): no libc here to have the header. */
struct rt_open_how {
	uint64_t flags, mode, resolve;
};
#define RT_RESOLVE_NO_SYMLINKS	0x04	/* no symlink anywhere in the path, magic links included */
#define RT_AT_FDCWD		(-100)

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));

/*
 * Each field stored apart: the compiler would otherwise load the constant
 * fields from .rodata in one move, which scripts/check-early refuses
 * before relocation (it tells no constant from a pointer).
 */
static void open_how_no_symlinks(struct rt_open_how *how)
{
	how->flags = RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY;
	__asm__ volatile("" ::: "memory");
	how->mode = 0;
	__asm__ volatile("" ::: "memory");
	how->resolve = RT_RESOLVE_NO_SYMLINKS;
}

/* The file open on @fd (closed here; none if negative) has @own's first page, read into @page. */
static bool own_first_page(long fd, void *page, const void *own)
{
	long got;

	if (fd < 0)
		return false;
	got = rt_pread((int)fd, page, RT_PAGE_SIZE, 0);
	rt_close((int)fd);
	return got == RT_PAGE_SIZE && !rt_memcmp(page, own, RT_PAGE_SIZE);
}

/*
 * @path (absolute), opened with no symlink anywhere in it, is xoload: its
 * first page, read into @page (RT_PAGE_SIZE bytes, the caller's: the
 * stack is small), is ours, @own, byte for byte.  The first page is the
 * first PT_LOAD's (offset 0, read-only: relocation does not write it).
 */
static bool is_own_file(const char *path, void *page, const void *own)
{
	struct rt_open_how how;

	open_how_no_symlinks(&how);
	return own_first_page(rt_syscall6(RT_NR_openat2, RT_AT_FDCWD, (long)path, (long)&how, sizeof(how), 0, 0),
			      page, own);
}

/*
 * xoload's own file by the name execve() was given (@fn, AT_EXECFN), made
 * absolute with the working directory, which nothing has changed since:
 * into @exe, true, when that name is what /proc/self/exe would give (its
 * readlink is the first /proc lookup of the process: 16 us on a CPU, make
 * bench-host's machine, paired runs).  So the name must be canonical: no
 * ".", ".." or empty component (a leading "./" aside) and no symlink
 * anywhere in it (openat2() with RESOLVE_NO_SYMLINKS, which refuses magic
 * links too).  LD_AUDIT is built from it and every descendant resolves it
 * again in its own context: /proc/self/cwd/bin/xoload or /dev/fd/3/bin/xoload
 * would name another directory in each, and a symlink above bin/ could
 * point at one (review s43).  And the file must be xoload: its first page
 * ours, byte for byte (the kernel puts a #! script's name there, and
 * PROG's when binfmt_misc runs xoload as PROG's interpreter).  Anything
 * else, or a kernel without openat2(), is false: the caller reads
 * /proc/self/exe.  @own is our first page, mapped (&__ehdr_start, which
 * the caller takes: scripts/check-early refuses the address of anything
 * outside .text and .rodata in early code).  System calls only
 * (run_kernel_early() calls it before relocation).
 */
static bool self_from_execfn(char *exe, const char *fn, const void *own)
{
	unsigned char page[RT_PAGE_SIZE];
	size_t n = 0;

	if (!fn || !*fn)
		return false;
	while (fn[0] == '.' && fn[1] == '/' && fn[2] != '/')
		fn += 2;
	if (has_dot_component(fn))
		return false;
	if (*fn != '/') {
		if (rt_syscall(RT_NR_getcwd, exe, PATH_MAX, 0) <= 0 || *exe != '/')
			return false;
		n = rt_strlen(exe);
		if (n > 1)
			exe[n++] = '/';
	}
	if (n + rt_strlen(fn) + 1 > PATH_MAX)
		return false;
	rt_strlcpy(exe + n, fn, PATH_MAX - n);
	return is_own_file(exe, page, own);
}

/*
 * self_from_execfn() where @fn, absolute, names a symlink to xoload: the
 * command of an installation whose xoload lies elsewhere (bin/xoload ->
 * ../libexec/xonly/xoload, XO_SELF_PRIVATE), which the kernel followed.
 * The link's target is joined to @fn's directory, which must be canonical
 * itself (its "../" would otherwise mean something else), and the result
 * is checked as self_from_execfn() checks a name: canonical, xoload's
 * first page.  A readlink() and an openat2() of the directory, where
 * /proc/self/exe would cost the process's first lookup in /proc.  System
 * calls only, as self_from_execfn().
 */
static bool self_from_link(char *exe, const char *fn, const void *own)
{
	struct rt_open_how how;
	char path[PATH_MAX];
	size_t n = 0, i;
	long len, fd;

	if (!fn || *fn != '/' || has_dot_component(fn))
		return false;
	/*
	 * One buffer of our own, as the stack may be small (review s45): the
	 * target goes into @path, the name into @exe, and @path then takes
	 * the first page.
	 */
	len = rt_syscall(RT_NR_readlink, fn, path, sizeof(path) - 1);
	if (len <= 0)
		return false;
	path[len] = 0;
	if (*path == '/') {
		rt_strlcpy(exe, path, PATH_MAX);
	} else {
		for (i = 0; fn[i]; i++)
			if (fn[i] == '/')
				n = i;
		if (!n || n >= PATH_MAX)	/* a link in / itself: /proc/self/exe */
			return false;
		rt_strlcpy(exe, fn, n + 1);
		open_how_no_symlinks(&how);
		how.flags = RT_O_PATH | RT_O_DIRECTORY | RT_O_CLOEXEC;
		fd = rt_syscall6(RT_NR_openat2, RT_AT_FDCWD, (long)exe, (long)&how, sizeof(how), 0, 0);
		if (fd < 0)
			return false;
		rt_close((int)fd);
		/* @exe is both join_below()'s directory and its result: it copies the directory onto itself first. */
		if (!join_below(exe, exe, path))
			return false;
	}
	/* The whole name, as self_from_execfn() checks it: a "//" where the two joined (review s45b) too. */
	return !has_dot_component(exe) && is_own_file(exe, path, own);
}

/*
 * @fn names xoload's own file canonically, in an installation that puts
 * xoload where nobody runs it by hand and its command, a symlink to it,
 * on PATH (XO_SELF_PRIVATE, the Makefile's paths.h: the end of the real
 * file's name, "/libexec/xonly/xoload").  The kernel sets a process's
 * /proc/self/exe to the file it executed, symlinks resolved: PROG's names
 * this file, and so does what a program takes for its own path from
 * readlink() of it.  The command, a symlink, is no such name, nor is a
 * copy, a hard link or a bind mount of the file under another name
 * (review s45: under one on PATH, a nested xoload would run the wrong
 * program).  Elsewhere (a build tree, xoload itself in bin/) xoload's
 * name is the command's, and a program that executes it runs xoload
 * (xoload(1)).
 */
static bool names_private_self(const char *fn)
{
#ifdef XO_SELF_PRIVATE
	static char exe[PATH_MAX];
	size_t n = rt_strlen(fn), t = sizeof(XO_SELF_PRIVATE) - 1;

	return n >= t && !rt_strcmp(fn + n - t, XO_SELF_PRIVATE) && self_from_execfn(exe, fn, &__ehdr_start);
#else
	(void)fn;
	return false;
#endif
}

/* @path is xoload itself (its first page ours), where PROG would be: "xoload xoload PROG". */
static bool is_xoload(const char *path)
{
	static unsigned char page[RT_PAGE_SIZE];

	return own_first_page(rt_open(path, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY), page,
			      &__ehdr_start);
}

/* xoload's own file by the name it was executed by, or by the symlink that name is: see both. */
static bool self_from_name(char *exe, const char *fn, const void *own)
{
	return self_from_execfn(exe, fn, own) || self_from_link(exe, fn, own);
}

/* The directory of @exe (absolute), in place: "/xoload" gives "/"; false without a slash. */
static bool dir_of(char *exe)
{
	char *slash = NULL, *c;

	for (c = exe; *c; c++)
		if (*c == '/')
			slash = c;
	if (!slash)
		return false;
	slash[slash == exe] = 0;
	return true;
}

/*
 * next_to_self()'s common case, with system calls and PC-relative
 * addresses only (run_kernel_early() calls it): @rel next to
 * xoload's own file as @fn names it (self_from_execfn(), @own), readable, into
 * @out; false if @fn cannot stand for /proc/self/exe or the file is not
 * there.  @exe gets xoload's own path.
 */
static bool next_to_execfn(char *out, char *exe, const char *rel, const char *fn, const void *own)
{
	char dir[PATH_MAX];

	if (!self_from_name(exe, fn, own))
		return false;
	rt_strlcpy(dir, exe, sizeof(dir));
	return dir_of(dir) && join_below(out, dir, rel) && !rt_syscall(RT_NR_access, out, RT_R_OK, 0);
}

/* This program's own file, as next_to_self() finds its directory (below). */
bool self_file(char *exe)
{
	long n;

	if (self_from_name(exe, (const char *)run_auxval(AT_EXECFN), &__ehdr_start))
		return true;
	n = rt_syscall(RT_NR_readlink, "/proc/self/exe", exe, PATH_MAX - 1);
	if (n <= 0) {
		*exe = 0;
		return false;
	}
	exe[n] = 0;
	return true;
}

/*
 * @out = DIR/@rel for xoload's own directory DIR if that file is readable
 * (as access(R_OK) says: xoload is no set-ID program), else @dflt.  DIR is
 * that of xoload's own file as the kernel found it: by the name it was
 * executed by where that is canonical and names xoload
 * (self_from_execfn()), else by /proc/self/exe, which the kernel has
 * resolved: a symlink to xoload (bin/ -> libexec/) finds what lies next to
 * the real file.  @rel's own
 * components are not resolved: a module that is a symlink is named by the
 * link (ld.so follows it).
 */
void next_to_self(char *out, const char *rel, const char *dflt)
{
	char exe[PATH_MAX], cand[PATH_MAX];

	if (!self_file(exe)) {
		rt_strlcpy(out, dflt, PATH_MAX);
		return;
	}
	if (dir_of(exe)) {
		if (join_below(cand, exe, rel)) {
			if (!rt_syscall(RT_NR_access, cand, RT_R_OK, 0)) {
				rt_strlcpy(out, cand, PATH_MAX);
				return;
			}
		} else {
			rt_cat(cand, sizeof(cand), exe, "/", rel, NULL);
			if (resolve(cand, out, true))
				return;
		}
	}
	rt_strlcpy(out, dflt, PATH_MAX);
}

/* --- the audit module ---------------------------------------------------- */

/*
 * The audit module goes to ld.so, which maps it trusting its program
 * headers: a module cut short (an interrupted copy, a full disk) dies with
 * SIGBUS inside ld.so, before the gate at AT_ENTRY can say why.  So what
 * is an ELF file is validated here as the preloader validates PROG: every
 * PT_LOAD within the file, and what is no regular file is refused.  What
 * is not ELF at all ld.so refuses with a warning, and the gate stops PROG
 * (or warns, --permissive).  0 for a module that may be handed over;
 * else @err is set and the status is 127 (it cannot be opened) or 126.
 */
static int audit_module_refused(const char *path, char *err, size_t errlen)
{
	struct image mod;	/* on the stack, within the depth next_to_self() reached: no page of its own */
	static char why[PATH_MAX + 100];
	int rc = image_open_obj(&mod, path, false, why, sizeof(why));

	if (mod.fd < 0) {
		rt_cat(err, errlen, "audit module ", why, NULL);	/* "PATH: strerror" */
		return 127;
	}
	rt_close(mod.fd);
	/*
	 * One open: image_open_obj() read the ELF header before it refused
	 * anything but a file it cannot open or that is no regular file.
	 * Whatever does not start with the ELF magic (or could not be read)
	 * goes to ld.so, which says what it is.  Not what is no regular file:
	 * ld.so opens the module without O_NONBLOCK, so a FIFO would hang
	 * PROG (or, for the hook, its children) before the gate could speak.
	 */
	if (!rc || (!mod.not_regular && rt_memcmp(mod.eh.e_ident, ELFMAG, SELFMAG)))
		return 0;
	rt_fmt(err, errlen, "audit module %s", why);
	return 126;
}

/*
 * The audit module for a dynamically linked PROG: readable (127 if not)
 * and whole (126 if not; with --permissive a warning, and PROG runs
 * without it, as for a module ld.so cannot load).  Sets LD_AUDIT's value.
 */
void use_audit_module(bool dynamic, bool permissive)
{
	static char err[2 * PATH_MAX + 200];
	size_t len = rt_strlen(audit_path);
	int rc;

	rt_cat(audit_env, sizeof(audit_env), "LD_AUDIT=", audit_path, NULL);
	/*
	 * glibc's ld.so skips an LD_AUDIT entry of SECURE_NAME_LIMIT bytes or
	 * more: every program PROG executes would run without the module,
	 * its code readable, and under the hook (the default) nothing would
	 * say so.
	 */
	if (len >= LDSO_SECURE_NAME_LIMIT || has_colon(audit_path)) {
		if (len >= LDSO_SECURE_NAME_LIMIT)
			rt_fmt(err, sizeof(err),
			       "audit module %s: a path of %u bytes, which ld.so ignores in LD_AUDIT (at most %u)",
			       audit_path, (unsigned int)len, LDSO_SECURE_NAME_LIMIT - 1);
		else
			rt_fmt(err, sizeof(err), "audit module %s: a ':' in its path, where ld.so splits LD_AUDIT",
			       audit_path);
		if (!permissive)
			die(126, err);
		line("xoload: warning: ", err);
		*audit_env = 0;
		return;
	}
	if (!dynamic)
		return;
	rc = audit_module_refused(audit_path, err, sizeof(err));
	if (!rc)
		return;
	if (rc == 127 || !permissive)
		die(rc, err);
	line("xoload: warning: ", err);
	*audit_env = 0;		/* ld.so would die of it: PROG runs without */
}

/* --- plan and protect ------------------------------------------------------- */

void plan_image(struct image *im, struct plan *p, struct xoc_net *net, unsigned int flags)
{
	static char err[PATH_MAX + 200];
	const char *note;

	if (xoc_plan(im->fd, im->path, RT_PAGE_SIZE, p, net, &note))
		dief(126, "%s: cannot be planned: %s", im->path, p->err);
	rt_step("planned", im->path);
	if (note && (flags & XOF_REPORT)) {
		rt_fmt(err, sizeof(err), "%s: %s: planned again", im->path, note);
		line("xoload: plan cache: ", err);
	}
	if (xoc_last_hit() && xoc_last_rule() == XOC_RULE_PROVEN && (flags & XOF_REPORT)) {
		rt_fmt(err, sizeof(err), "%s: the proven-code rule's plan", im->path);
		line("xoload: plan cache: ", err);
	}
	if (rtplan_xo_pages(p, RT_PAGE_SIZE) == 0) {
		const char *why = p->n ? p->r[0].why : "no executable segment";

		rt_fmt(err, sizeof(err), "%s: no page can be execute-only (%s)%s", im->path, why,
		       flags & XOF_STRICT ? "; refused (--strict)" : ": kept readable");
		if (flags & XOF_STRICT)
			die(126, err);
		run_warn(err);
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
void refuse_privileged(const struct image *im)
{
	uint64_t euid = (uint64_t)rt_syscall(RT_NR_geteuid, 0, 0, 0);
	const char *what = NULL;
	struct rt_stat st;

	if (rt_fstat(im->fd, &st))
		return;
	if ((st.mode & RT_S_ISUID) && st.uid != euid)
		what = "set-user-ID";
	else if ((st.mode & RT_S_ISGID) && (st.mode & RT_S_IXGRP) &&
		 st.gid != (uint64_t)rt_syscall(RT_NR_getegid, 0, 0, 0))
		what = "set-group-ID";	/* S_ISGID without S_IXGRP is no set-group-ID */
	else if (euid != 0 && rt_syscall6(RT_NR_fgetxattr, im->fd, (long)"security.capability", 0, 0, 0, 0) >= 0)
		what = "given file capabilities";
	if (!what)
		return;
	dief(126, "%s: %s: xoload cannot run it with those privileges (the kernel executed xoload, not it); "
	     "run it without xoload, or as the user it would run as", im->path, what);
}

void refuse_code_headers(const struct image *im)
{
	/* A plan the kernel applies may keep them readable (only root sees trusted.*). */
	if (!load_headers_in_code(&im->eh, im->ph, im->phdr_va) ||
	    rt_syscall6(RT_NR_fgetxattr, im->fd, (long)"trusted.xonly", 0, 0, 0, 0) >= 0)
		return;
	dief(126, "%s: its program headers or notes lie in a code segment (-z noseparate-code), which --kernel maps "
	     "execute-only before ld.so reads them: ld.so would die of SIGSEGV; run it under xoload without --kernel, "
	     "or give it a plan the kernel applies (xoload --set-xattr) and use --kernel-plans", im->path);
}

/* --no-net: see run_no_cache(). */
static bool no_net_env RT_HOT;

void run_no_net(void)
{
	no_net_env = !run_env(XOLOAD_NO_NET_ENV);
}

/*
 * XOLOAD_CHILDREN is read by the audit module in the programs PROG
 * executes (xoload.h); a value it would refuse there is refused here,
 * before PROG runs.
 */
void check_children_env(void)
{
	if (xoload_children_mode(run_env(XOLOAD_CHILDREN_ENV)) < 0)
		die(2, "XOLOAD_CHILDREN: must be inplace (the default), reexec or unset (see --help)");
}

/* The hook: the flags for it (XOF_PRESENT set), or 0: the audit module (also after HOOK_USE_MODULE). */
static unsigned long hook_flags RT_HOT;
/* XOLOAD_HOOK=1: an ld.so the hook does not fit is refused, not given the module. */
static bool hook_required RT_HOT;

bool use_hook(const struct image *prog, unsigned int flags, bool audit_given)
{
	const char *h = run_env(XOLOAD_HOOK_ENV), *a = run_env("LD_AUDIT");

	if (h && *h && rt_strcmp(h, "0") && rt_strcmp(h, "1"))
		die(2, "XOLOAD_HOOK: must be 0 (the audit module), 1 (the hook) or unset (see --help)");
	hook_required = h && !rt_strcmp(h, "1");
	/*
	 * Another audit module than ours needs ld.so's audit interface
	 * anyway, and --report/--scan are the module's; at the kernel's
	 * strict level no code may be made writable, so ld.so's cannot be
	 * patched: then the module.
	 */
	if ((h && !rt_strcmp(h, "0")) || !prog->has_interp || audit_given || (flags & (XOF_REPORT | XOF_SCAN)) ||
	    (a && rt_strcmp(a, audit_path)) ||
	    run_xonly_level() == XONLY_PR_XONLY_STRICT)
		return false;
	hook_flags = flags | XOF_PRESENT;
	return true;
}

void map_and_protect(struct image *prog, struct plan *pplan, const struct xoc_net *pnet, struct image *interp,
		     struct plan *iplan, const struct xoc_net *inet)
{
	static char err[PATH_MAX + 200];
	bool net = !no_net_env && xonet_on(run_env(XOLOAD_NO_NET_ENV), run_xonly_level());
	int rc;

	if ((rc = image_map(prog, err, sizeof(err))) || (prog->has_interp && (rc = image_map(interp, err, sizeof(err)))))
		die(rc, err);
	/* Before ld.so reads PROG's dynamic section: it would take $ORIGIN from /proc/self/exe, xoload. */
	if ((rc = origin_expand(prog, err, sizeof(err))))
		die(rc, err);
	/* ld.so's code is patched before it is made execute-only. */
	if (hook_flags) {
		rc = hook_install(prog, interp, run_auxval(AT_SYSINFO_EHDR), hook_flags, net, hook_required, err, sizeof(err));
		if (rc == HOOK_USE_MODULE)
			hook_flags = 0;
		else if (rc)
			die(rc, err);
	}
	if ((rc = (int)rt_apply(pplan, prog->bias)) || (prog->has_interp && (rc = (int)rt_apply(iplan, interp->bias))))
		dief(126, "mprotect(PROT_EXEC): %s", rt_strerror(-rc));
	rt_step("applied", NULL);
	if (!net)
		return;
	xonet_add(prog->path, prog->bias, pplan, pnet);
	if (prog->has_interp) {
		xonet_add(interp->path, interp->bias, iplan, inet);
		if (!hook_flags) {
			gate.net = (uint64_t)xonet_table();	/* the module takes them over and installs the handler */
			return;
		}
	}
	xonet_arm();	/* no module: the preloader's handler watches PROG (and, hooked, the libraries) */
}

void prepare_handover(unsigned int flags)
{
	char abs[PATH_MAX];
	int m;

	/*
	 * Absolute: PROG as found (a search of PATH gives an absolute path),
	 * else from the working directory.  Not resolved as realpath(3)
	 * would: the readlink of /proc/self/fd/N that would take is about
	 * 10 us on a CPU, and a re-exec follows the same symlinks.
	 */
	if (*prog_path == '/') {
		rt_cat(prog_env, sizeof(prog_env), XOLOAD_PROG_ENV "=", prog_path, NULL);
	} else if (rt_syscall(RT_NR_getcwd, abs, sizeof(abs), 0) > 0 && *abs == '/') {
		const char *rel = prog_path;

		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		rt_cat(prog_env, sizeof(prog_env), XOLOAD_PROG_ENV "=", abs, abs[1] ? "/" : "", rel, NULL);
	}
	/*
	 * A name of this process's own (/dev/fd/N, /proc/self/fd/N,
	 * /dev/stdin, a working directory under /proc) names whatever the
	 * process has there when it re-executes: PROG may have opened
	 * another file on that descriptor by then, and that file would run.
	 * For those, the file PROG is open on, as the kernel names it (the
	 * readlink is paid only here).
	 */
	if (*prog_env && opened_prog && opened_prog->fd >= 0 &&
	    (!rt_strncmp(prog_env + sizeof(XOLOAD_PROG_ENV), "/proc/", 6) ||
	     !rt_strncmp(prog_env + sizeof(XOLOAD_PROG_ENV), "/dev/", 5)) &&
	    fd_path(opened_prog->fd, abs))
		rt_cat(prog_env, sizeof(prog_env), XOLOAD_PROG_ENV "=", abs, NULL);
	gate.permissive = !!(flags & XOF_PERMISSIVE);
	if (hook_flags && (flags & XOF_PERMISSIVE))
		m = rt_cat(gate.msg, sizeof(gate.msg), "xoload: warning: ld.so never called xoload's hook ",
			   "(_dl_debug_state) with a consistent link map: the libraries' code is readable (--permissive)\n",
			   NULL);
	else if (hook_flags)
		m = rt_cat(gate.msg, sizeof(gate.msg), "xoload: ld.so never called xoload's hook ",
			   "(_dl_debug_state) with a consistent link map: ", prog_path, " not run\n", NULL);
	else if (flags & XOF_PERMISSIVE)
		m = rt_cat(gate.msg, sizeof(gate.msg), "xoload: warning: audit module ", audit_path,
			   " did not run: the libraries' code is readable (--permissive)\n", NULL);
	else
		m = rt_cat(gate.msg, sizeof(gate.msg), "xoload: audit module ", audit_path,
			   " did not run (ld.so could not load it): ", prog_path, " not run\n", NULL);
	gate.msglen = m > 0 && (size_t)m < sizeof(gate.msg) ? (size_t)m : sizeof(gate.msg) - 1;
	/* One line: a newline in a path would make it two. */
	for (m = 0; (size_t)m + 1 < gate.msglen; m++)
		if ((unsigned char)gate.msg[m] < 0x20 || gate.msg[m] == 0x7f)
			gate.msg[m] = '?';
	/* comm as if PROG had been exec'd (ps, pidof); /proc/PID/exe stays xoload. */
	{
		const char *base = prog_path, *c;

		for (c = prog_path; *c; c++)
			if (*c == '/')
				base = c + 1;
		rt_syscall(RT_NR_prctl, PR_SET_NAME_, base, 0);
	}
}

/* --- --scan ------------------------------------------------------------------ */

const char *scan_fmtopt(unsigned long flags)
{
	return flags & XOF_SCAN_JSON ? "--json" : flags & XOF_SCAN_TSV ? "--tsv" : NULL;
}

int scan_run(const char *xoscan, const char *tag, const char *fmtopt, const char *const *files)
{
	static char tagopt[PATH_MAX + 16];
	const char *argv[16], *first = files[0] ? files[0] : "?";
	int n = 0, st = 0;
	long pid, r;

	argv[n++] = xoscan;
	argv[n++] = "--prefix=xoload: scan: ";
	if (fmtopt)
		argv[n++] = fmtopt;
	rt_fmt(tagopt, sizeof(tagopt), "--tag=%s", tag);
	argv[n++] = tagopt;
	argv[n++] = "--";
	while (*files && n < 15)
		argv[n++] = *files++;
	argv[n] = NULL;
	/* fork: the child only execs (xoscan is static: LD_AUDIT does not apply to it). */
	pid = rt_syscall(RT_NR_fork, 0, 0, 0);
	if (pid == 0) {
		rt_syscall(RT_NR_dup2, 2, 1, 0);
		static char msg[PATH_MAX + 100];

		r = rt_syscall(RT_NR_execve, xoscan, argv, environ_);
		rt_fmt(msg, sizeof(msg), "cannot run %s: %s", xoscan, rt_strerror((int)-r));
		line("xoload: scan: ", msg);
		rt_syscall(RT_NR_exit, 127, 0, 0);
	}
	if (pid < 0) {
		static char msg[PATH_MAX + 100];

		/* As posix_spawn's failure was: a line, and PROG runs. */
		rt_fmt(msg, sizeof(msg), "cannot run %s: %s", xoscan, rt_strerror((int)-pid));
		line("xoload: scan: ", msg);
		return -1;
	}
	while ((r = rt_syscall6(RT_NR_wait4, pid, (long)&st, 0, 0, 0, 0)) < 0) {
		static char msg[PATH_MAX * 2 + 100];

		if (r == -RT_EINTR)
			continue;
		/* Reaped by someone else (SIGCHLD ignored, a waitpid(-1) thread). */
		rt_fmt(msg, sizeof(msg), "lost track of %s (%s): the scan of %s may be incomplete",
		       xoscan, rt_strerror((int)-r), first);
		line("xoload: scan: ", msg);
		return -1;
	}
	return (st & 0x7f) == 0 && ((st >> 8) & 0xff) == 0 ? 0 : -1;
}

/* --- leaving --------------------------------------------------------------- */

/* Whether the GLIBC_TUNABLES value @v sets glibc.rtld.optional_static_tls. */
static bool sets_tls_surplus(const char *v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if ((i == 0 || v[i - 1] == ':') && !rt_strncmp(v + i, XO_TLS_TUNABLE_NAME "=", sizeof(XO_TLS_TUNABLE_NAME)))
			return true;
	return false;
}

/*
 * The GLIBC_TUNABLES entry that goes with the module, for a process whose
 * first one is @user (NULL: none): ours alone, or the user's with ours
 * after it; NULL where the user's stays as it is: it sets the surplus
 * itself, or ours does not fit after it (said).
 */
static char *tls_tunables(const char *user)
{
	const char *v = user ? user + sizeof("GLIBC_TUNABLES=") - 1 : "";

	if (!*v)
		return tunables_env;
	if (sets_tls_surplus(v))
		return NULL;
	if ((size_t)rt_cat(tunables_joined, sizeof(tunables_joined), user, ":", XO_TLS_TUNABLE, NULL) >=
	    sizeof(tunables_joined)) {
		run_warn("GLIBC_TUNABLES is too long to add " XO_TLS_TUNABLE " to it: under the audit module "
			 "a library with much initial-exec TLS may not load");
		return NULL;
	}
	return tunables_joined;
}

/*
 * LD_AUDIT with our module first and the user's kept after it, once;
 * with the module, GLIBC_TUNABLES with room for initial-exec TLS
 * (tls_tunables(): in place of the user's first entry; under the hook at
 * the end, hidden, and the hook puts it in that place); XOLOAD_PROG (ours
 * replaces the parent's); XOLOAD_NO_CACHE after --no-cache, XOLOAD_NO_NET
 * after --no-net.  @out has room for every entry of @envp and five more.
 */
static size_t build_env(char **envp, char **out, bool with_prog)
{
	size_t i, k = 0, n = rt_strlen(audit_path);
	bool audit_done = false;

	/* gate.tunables is written only where it is not 0: its page is one a hooked start never writes. */
	tunables_ours = tunables_user = NULL;
	for (i = 0; envp[i]; i++) {
		if (with_prog && !rt_strncmp(envp[i], XOLOAD_PROG_ENV "=", sizeof(XOLOAD_PROG_ENV)))
			continue;
		/* The hook keeps the user's for PROG's ld.so; without it, ours goes in its place. */
		if (*audit_env && !tunables_user && !rt_strncmp(envp[i], "GLIBC_TUNABLES=", 15)) {
			tunables_user = envp[i];
			tunables_ours = tls_tunables(envp[i]);
			if (!hook_flags && tunables_ours) {
				gate.tunables = tunables_ours == tunables_env ? XOLOAD_TUNABLES_OURS :
						XOLOAD_TUNABLES_JOINED;
				out[k++] = tunables_ours;
				continue;
			}
		}
		if (!rt_strncmp(envp[i], "LD_AUDIT=", 9)) {
			if (audit_done || !*audit_env)
				continue;
			/* Ours already first ("ours" or "ours:theirs"): keep it as it is. */
			if (rt_strncmp(envp[i] + 9, audit_path, n) || (envp[i][9 + n] && envp[i][9 + n] != ':'))
				rt_fmt(audit_env, sizeof(audit_env), "LD_AUDIT=%s:%s", audit_path, envp[i] + 9);
			out[k++] = audit_env;
			audit_done = true;
			continue;
		}
		out[k++] = envp[i];
	}
	if (!audit_done && *audit_env)
		out[k++] = audit_env;
	if (*audit_env && !tunables_user) {
		tunables_ours = tls_tunables(NULL);
		if (!hook_flags)
			gate.tunables = XOLOAD_TUNABLES_OURS;
	}
	if (tunables_ours && (hook_flags || !tunables_user))
		out[k++] = tunables_ours;
	if (with_prog && *prog_env)
		out[k++] = prog_env;
	if (no_cache_env)
		out[k++] = (char *)XOC_OFF_ENV "=1";
	if (no_net_env)
		out[k++] = (char *)XOLOAD_NO_NET_ENV "=1";
	out[k] = NULL;
	return k;
}

/*
 * The level --kernel asks for: 1, or the level the process has
 * (xonly=strict: 2, which cannot be lowered; learn mode, which lets code
 * be read, is raised to 1).  Only system calls: run_kernel_plans_early()
 * calls it before xoload is relocated.
 */
static long xonly_exec_level(void)
{
	long level = rt_syscall6(RT_NR_prctl, XONLY_PR_GET_XONLY, 0, 0, 0, 0, 0);

	return level < 1 || level == XONLY_PR_XONLY_LEARN ? 1 : level;
}

/*
 * The xonly exec mode at the level --kernel asks for, with
 * PR_XONLY_EXEC_CARVE for the audit module's carve-out if @carve, which
 * lets PROG and its descendants keep it at the strict level, where
 * pkey_mprotect() of their code is refused otherwise (a kernel without
 * the strict level refuses the flag, EINVAL, and does not need it: asked
 * again without).  0 or -errno.  System calls only (run_kernel_early()).
 */
static long set_xonly_mode(bool carve)
{
	long level = xonly_exec_level(), r = -RT_EINVAL;

	if (carve)
		r = rt_syscall6(RT_NR_prctl, XONLY_PR_SET_XONLY, level, XONLY_PR_XONLY_EXEC_CARVE, 0, 0, 0);
	if (r == -RT_EINVAL)
		r = rt_syscall6(RT_NR_prctl, XONLY_PR_SET_XONLY, level, 0, 0, 0, 0);
	return r;
}

/*
 * --kernel: the kernel's xonly exec mode does what xoload does by hand,
 * from the execve() on: binfmt_elf maps PROG's and ld.so's PF_X segments
 * execute-only, ld.so's mmap()s of libraries get the same, and the flag is
 * inherited by every descendant.  The audit module goes into LD_AUDIT
 * (ours first, the user's kept): it gives the data in text of each object
 * back its read permission (carve.c) before the object is relocated.
 *
 * --kernel-plans (@module false): no module; the environment goes as it
 * is.  The kernel's plans (trusted.xonly, xoload --set-xattr) are then the
 * only thing that keeps data in text readable: an object that needs one
 * and has none faults on its first read of it, and nothing is read.  No
 * PR_XONLY_EXEC_CARVE either: nothing of ours needs to carve, so at the
 * strict level PROG and its descendants may not.
 */
void run_kernel_mode(char **argv, char **envp, bool module)
{
	size_t envc = 0;
	long r;

	while (envp[envc])
		envc++;
	{
		char *env[envc + 6];	/* build_env(): five more and the NULL */

		if (module)
			build_env(envp, env, false);
		rt_step("env", NULL);
		r = set_xonly_mode(module);
		if (r)
			dief(126, "%s: prctl(PR_SET_XONLY): %s (EINVAL: this kernel has no xonly exec mode, see xonly(7))",
			     module ? "--kernel" : "--kernel-plans", rt_strerror((int)-r));
		rt_step("prctl", NULL);
		r = rt_syscall(RT_NR_execve, prog_path, argv, module ? env : envp);
	}
	dief(r == -RT_ENOENT ? 127 : 126, "%s: %s", prog_path, rt_strerror((int)-r));
}

/*
 * The ELF header and program headers of the file open on @fd, @fsize
 * bytes long, as the early path needs them: what load.c's ehdr_check()
 * admits (as image_open_obj() does), of @type (0: either of the two it
 * admits).  System calls and arithmetic only.
 */
static bool early_headers(long fd, uint64_t fsize, uint16_t type, Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	long n = rt_pread((int)fd, eh, sizeof(*eh), 0);

	if (ehdr_check(eh, n, fsize) != EHDR_OK || (type && eh->e_type != type))
		return false;
	n = rt_pread((int)fd, ph, eh->e_phnum * sizeof(Elf64_Phdr), eh->e_phoff);
	return n == (long)(eh->e_phnum * sizeof(Elf64_Phdr));
}

/*
 * The early path's check of an object open on @fd: a regular file, a
 * 64-bit x86-64 ELF file of @type (0: ET_EXEC or ET_DYN) whose program
 * headers pass load_check() (with @need_entry), as image_open_obj() would
 * admit it but for PT_INTERP's string; its headers into @eh and @ph.
 * System calls and arithmetic only.
 */
static bool early_object(long fd, uint16_t type, bool need_entry, bool module, Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	struct load_span span;
	struct rt_stat st;
	int at;

	/*
	 * --kernel: headers in code, of a dynamically linked PROG or of its
	 * interpreter (ET_DYN here), go to the full path, which refuses them
	 * or finds their plan (refuse_code_headers()).
	 */
	return !rt_fstat((int)fd, &st) && (st.mode & RT_S_IFMT) == RT_S_IFREG && early_headers(fd, st.size, type, eh, ph) &&
	       load_check(eh, ph, st.size, need_entry, &span, &at) == LOAD_OK &&
	       !(module && (span.has_interp || type == ET_DYN) && load_headers_in_code(eh, ph, span.phdr_va));
}

/*
 * PROG's interpreter as the early path checks it: PT_INTERP's string (NUL
 * at its end, none before), a shared object that early_object() admits
 * and that names no interpreter itself (open_images()'s "not a shared
 * object").  System calls and arithmetic only.
 */
static bool early_interp(long fd, bool module, const Elf64_Ehdr *eh, const Elf64_Phdr *ph)
{
	Elf64_Phdr iph[LOAD_MAX_PHNUM];
	char name[PATH_MAX];
	Elf64_Ehdr ieh;
	long ifd;
	bool ok;
	int i;

	for (i = 0; i < eh->e_phnum && ph[i].p_type != PT_INTERP; i++)
		;
	if (i == eh->e_phnum)
		return true;	/* static */
	if (rt_pread((int)fd, name, ph[i].p_filesz, ph[i].p_offset) != (long)ph[i].p_filesz ||
	    name[ph[i].p_filesz - 1] || rt_strlen(name) != ph[i].p_filesz - 1)
		return false;
	ifd = rt_open(name, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
	if (ifd < 0)
		return false;
	ok = early_object(ifd, ET_DYN, true, module, &ieh, iph);
	rt_close((int)ifd);
	for (i = 0; ok && i < ieh.e_phnum; i++)
		if (iph[i].p_type == PT_INTERP)
			ok = false;
	return ok;
}

/*
 * AT_EXECFN of the auxiliary vector past @envp (the early path has no
 * run_auxval(): it runs before preload.c's run_init()), or NULL.
 */
static const char *early_execfn(char *const *envp)
{
	const Elf64_auxv_t *a;
	const char *fn = NULL;

	while (*envp)
		envp++;
	for (a = (const Elf64_auxv_t *)(envp + 1); a->a_type != AT_NULL; a++)
		if (a->a_type == AT_EXECFN)
			fn = (const char *)a->a_un.a_val;
	return fn;
}

/*
 * --kernel's audit module for the early path: found next to xoload by the
 * name xoload was run by (next_to_execfn(), the common case), no longer
 * than ld.so takes in LD_AUDIT, no ':' in it, and what
 * audit_module_refused() admits of an ELF file (early_object(): load.c's
 * load_check(); use_audit_module()'s point is a module cut short, which
 * ld.so maps and dies of SIGBUS before anything can say why).  False for
 * anything else: the full path finds and checks the module and says what
 * is wrong, in its words.  Into @out.
 */
static bool early_module(char *const *envp, char *out, const void *own)
{
	Elf64_Phdr ph[LOAD_MAX_PHNUM];
	char exe[PATH_MAX];
	Elf64_Ehdr eh;
	const char *fn = early_execfn(envp);
	bool ok;
	long fd;
	int i;

	if (!next_to_execfn(out, exe, XO_AUDIT_FROM_XOLOAD, fn, own) || has_colon(out) ||
	    rt_strlen(out) >= LDSO_SECURE_NAME_LIMIT)
		return false;
	fd = rt_open(out, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
	if (fd < 0)
		return false;
	ok = early_object(fd, ET_DYN, false, false, &eh, ph);
	rt_close((int)fd);
	/* A PT_INTERP, whose string image_open_obj() would read: the full path decides. */
	for (i = 0; ok && i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_INTERP)
			ok = false;
	return ok;
}

/*
 * "xoload --kernel PROG [ARGS]" and "xoload --kernel-plans PROG [ARGS]",
 * the common forms, before anything else: what the kernel's xonly mode
 * does at PROG's exec is most of --kernel, and relocating xoload, reading
 * its environment and options and validating PROG and ld.so cost about as
 * much again under emulation (make bench: "a static program that only
 * execve()s PROG" is the floor of --kernel-plans).  So this does only what
 * the kernel does not: find PROG on PATH, refuse what the full path
 * refuses of PROG and its interpreter (early_object(), early_interp():
 * load.c's load_check(), which image_open_obj() runs too; the kernel
 * maps some of what they refuse, and PROG would crash where the full
 * path names the fault), check for protection keys; for --kernel find
 * and check the audit module (early_module()) and append it to the
 * environment in LD_AUDIT, with GLIBC_TUNABLES' room for TLS, as
 * run_kernel_mode() does; set the xonly exec mode (--kernel with
 * PR_XONLY_EXEC_CARVE) and execve().
 *
 * It runs before preload.c relocates xoload: string literals (PC-relative)
 * and system calls only, no pointer kept in data, nothing printed
 * (scripts/check-early checks the code of every function it calls).
 * Anything else -- another option first, XOLOAD_PROG (a re-exec through
 * /proc/self/exe, reexec_args()), XOLOAD_TIMES or XOLOAD_CHILDREN (whose
 * value the full path checks) set, for --kernel LD_AUDIT (ours goes
 * first, build_env()) or GLIBC_TUNABLES (ours joins it) set, a stack
 * limit under EARLY_MIN_STACK, PROG not found or not such an ELF file, no
 * protection keys, the module not found as above or refused, the
 * prctl() or the execve() failing -- returns, and the full path does it
 * all again and says why, in the words it always had.
 */
static void __attribute__((noinline)) kernel_early(int argc, char **argv, char **envp, const void *own)
{
	Elf64_Phdr ph[LOAD_MAX_PHNUM];
	char path[PATH_MAX], module[PATH_MAX], audit[PATH_MAX + 16];
	Elf64_Ehdr eh;
	size_t envc = 0;
	bool with_module, ok;
	long fd;
	int i;

	if (argc < 3 || argv[2][0] == '-' || !argv[2][0] || rt_env_in(envp, XOLOAD_PROG_ENV) ||
	    rt_env_in(envp, XOLOAD_TIMES_ENV))
		return;
	if (!rt_strcmp(argv[1], "--kernel"))
		with_module = true;
	else if (!rt_strcmp(argv[1], "--kernel-plans"))
		with_module = false;
	else
		return;
	/* XOLOAD_CHILDREN: the full path checks its value (2 if bad), whichever mode. */
	/* The user's LD_AUDIT or GLIBC_TUNABLES to join with the module's: the full path does it. */
	if ((with_module && (rt_env_in(envp, "LD_AUDIT") || rt_env_in(envp, "GLIBC_TUNABLES"))) ||
	    rt_env_in(envp, XOLOAD_CHILDREN_ENV))
		return;
	if (!find_prog_early(argv[2], rt_env_in(envp, "PATH"), path))
		return;
	fd = rt_open(path, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
	if (fd < 0)
		return;
	/*
	 * What image_open_obj() and open_images() refuse, refused here too (a
	 * shared library with the execute bit, a file cut short, segments the
	 * kernel maps anyway and PROG then crashes on: review s43), but for
	 * their words: the full path says them.
	 */
	ok = early_object(fd, 0, true, with_module, &eh, ph) && early_interp(fd, with_module, &eh, ph);
	rt_close((int)fd);
	if (!ok || !rt_have_pkeys() || (with_module && !early_module(envp, module, own)))
		return;
	while (envp[envc])
		envc++;
	{
		char *env[envc + 3];

		for (i = 0; (size_t)i < envc; i++)
			env[i] = envp[i];
		env[envc] = env[envc + 1] = env[envc + 2] = NULL;
		if (with_module) {
			rt_strlcpy(audit, "LD_AUDIT=", sizeof(audit));
			rt_strlcpy(audit + 9, module, sizeof(audit) - 9);
			env[envc] = audit;
			env[envc + 1] = (char *)XO_TLS_TUNABLES_ENV;	/* as build_env(): tls_tunables() */
		}
		if (set_xonly_mode(with_module))
			return;
		rt_syscall(RT_NR_execve, path, argv + 2, env);
	}
}

/*
 * How much of the stack the process has used at @sp: from AT_EXECFN's
 * string, the last the kernel put at the top, down to @sp; the arguments
 * and the environment count against the limit too (review s45: some 40
 * KB of environment under a 64 KiB limit crashed the early path, which
 * had looked at the limit alone).  The random gap above that string is
 * left to EARLY_MIN_STACK's margin.  All of it, where the vector has no
 * AT_EXECFN: the full path then.
 */
static uint64_t stack_used(char **envp, const void *sp)
{
	const char *fn = early_execfn(envp);

	return (uint64_t)fn > (uint64_t)sp ? (uint64_t)fn - (uint64_t)sp : ~0ull >> 1;
}

void run_kernel_early(int argc, char **argv, char **envp, const void *own)
{
	uint64_t lim[2];	/* struct rlimit: the soft limit, the hard one */

	/* Not one of its forms: no system call (every other run of xoload comes here first). */
	if (argc < 3 || (rt_strcmp(argv[1], "--kernel") && rt_strcmp(argv[1], "--kernel-plans")))
		return;
	/*
	 * kernel_early()'s buffers (some 24 KiB, with early_module()'s) are on
	 * the stack, where the full path keeps its own in .bss: under a small
	 * stack limit (ulimit -s) it died of SIGSEGV where the full path ran
	 * PROG (review s43b).  The full path runs there instead.  Asked out
	 * here, in a small frame: kernel_early()'s is reserved on its entry.
	 */
	if (rt_syscall(RT_NR_getrlimit, RT_RLIMIT_STACK, lim, 0) || lim[0] < stack_used(envp, lim) + EARLY_MIN_STACK)
		return;
	kernel_early(argc, argv, envp, own);
}

/*
 * The gate (xoload.h): PROG's AT_ENTRY while ld.so runs.  Entered from
 * ld.so's _dl_start_user with PROG's initial stack and rdx = _dl_fini,
 * both kept; the other registers are free at a program's entry.  Raw
 * system calls only.
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

void handover(uint64_t entry, int argc, char **argv, char **envp, unsigned int flags,
	      const struct image *prog, const struct image *interp)
{
	Elf64_auxv_t *av;
	char **e;
	size_t envc = 0, auxc = 0, n, i, k = 0;

	for (e = envp; *e; e++)
		envc++;
	for (av = (Elf64_auxv_t *)(e + 1); av[auxc].a_type != AT_NULL; auxc++)
		;
	n = 1 + (size_t)argc + 1 + envc + 6 + 2 * (auxc + 3);	/* build_env(): five more */
	n = (n + 1) & ~(size_t)1;	/* keep the new stack pointer 16-byte aligned */
	{
		/* The new initial stack lives below this frame, on the real stack. */
		uint64_t blk[n] __attribute__((aligned(16)));

		blk[k++] = (uint64_t)argc;
		for (i = 0; i < (size_t)argc; i++)
			blk[k++] = (uint64_t)argv[i];
		blk[k++] = 0;
		size_t nenv = build_env(envp, (char **)&blk[k], true);

		if (hook_flags)
			hook_hide_audit(*audit_env ? audit_env : NULL, tunables_ours, tunables_ours ? tunables_user : NULL,
					(char **)&blk[k]);
		k += nenv + 1;
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
		/*
		 * xoload's own code: only the gate, the hook and the net's
		 * handler run from it after the handover, so execute-only as
		 * well (the handover itself runs fine from it).  Else PROG
		 * would run with readable code beside its own: not run.
		 */
		if (rt_protect_self())
			die(126, "mprotect(PROT_EXEC) of xoload's own code failed: not run");
		/* rdx = 0: no rtld_fini for a static program's _start (x86-64 psABI). */
		__asm__ volatile("mov %0, %%rsp\n\t"
				 "xor %%edx, %%edx\n\t"
				 "xor %%ebp, %%ebp\n\t"
				 "jmp *%1"
				 : : "c"(blk), "a"(entry) : "memory");
		__builtin_unreachable();
	}
}
