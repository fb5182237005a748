// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_plan - plans the kernel applies: the trusted.xonly attribute of a
 * file names the pages of it that xonly mode keeps readable (kernel/patches/
 * KVER/0072, issue 24 step 2), written by xoload --set-xattr (xoplan).
 *
 * The target, /xonly/lib/kernel/xoplan_target copied to /tmp (tmpfs, with
 * trusted.* attributes: CONFIG_TMPFS_XATTR), has a table page in its PF_X
 * segment and a function on the next page.  Proves, each run of the
 * target in a fresh child in xonly mode (level 1, or 2 under xonly=strict):
 *  - without a plan, reading the table faults SEGV_PKUERR (what a plan
 *    changes);
 *  - xoplan --set-xattr (the FDE planner) sets a plan naming the table's
 *    page and not the function's, and --get-xattr says it fits the file;
 *    with it, exec'd by binfmt_elf: the table reads, /proc/self/maps has
 *    the table's page r-xp with key 0 and the function's --xp with the
 *    execute-only key, and reading the function faults SEGV_PKUERR;
 *  - the same file mmap()ed PROT_READ|PROT_EXEC by this program (the mmap
 *    path, as ld.so maps libraries): the table page reads, the function
 *    page faults SEGV_PKUERR;
 *  - refused or ignored, each with its "xonly plan: comm=xoplan.target
 *    pid=P file=/tmp/xoplan.target ignored: REASON" line for that pid (comm: the copy's name), and
 *    the table read faulting as without a plan: a truncated plan and one
 *    with a byte too many ("bad length"), one larger than the kernel reads
 *    ("too large"), a bad magic ("bad header"), a range past the file and
 *    two out of order ("bad range"), a plan naming every page ("names
 *    every page"), the plan copied onto a file of the same size whose
 *    build-id differs ("build-id is not the plan's"), and the file
 *    rewritten after the plan (one byte appended: "size is not the
 *    plan's"), which --get-xattr calls stale too;
 *  - mapped PROT_EXEC alone (asking for execute-only code), the plan does
 *    not apply: the table page faults too;
 *  - the table page, readable by the plan, cannot be grown over the
 *    function's with mremap() (EPERM): a plan's pages stay the pages it
 *    names (kernel/patches/KVER/0067);
 *  - a planned file opened O_WRONLY and mmap()ed PROT_EXEC: EACCES, as
 *    without a plan, and the kernel neither reads the plan (no line) nor
 *    WARNs (the plan is read before do_mmap() checks the file mode);
 *  - through an overlay (lower layers only) the plan of the lower file
 *    applies: overlayfs puts the real file in the VMA, which the kernel
 *    must not take for another file;
 *  - on a tmpfs mounted in a user namespace the plan, set by root of the
 *    initial namespace, is refused with its line ("mounted in a user
 *    namespace"): such a filesystem's image or server could supply any
 *    trusted.xonly;
 *  - an unprivileged user (uid 65534, no capabilities) can neither set nor
 *    remove the attribute (EPERM), and xoplan --set-xattr fails for it;
 *  - outside xonly mode a plan changes nothing: the function reads.
 * Skipped without PKU (nopku), and on a kernel without plans (a malformed
 * plan logs nothing there).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xonly/uapi.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define TARGET_SRC	"/xonly/lib/kernel/xoplan_target"
#define TARGET		"/tmp/xoplan.target"
#define OTHER		"/tmp/xoplan.other"
#define XOPLAN		"/xonly/lib/xoplan"
#define PAGE		4096u

static long long table_off, fn_off;
static char want_pid[32], want_reason[96];

/* PR_SET_XONLY 1, or 2 at the strict level: never learn mode. */
static int enter_xonly(void)
{
	return xonly_set(xonly_get(0, 0, 0, 0) == 2 ? 2 : 1, 0, 0, 0);
}

/* Run @path with @argv in a child, in xonly mode if @xo; its wait status, its stdout in @out. */
static int run_prog(const char *path, char *const argv[], bool xo, char *out, size_t outlen, pid_t *pidp)
{
	return child_run(path, argv, xo ? enter_xonly : NULL, 30, out, outlen, pidp);
}

static int run_target(const char *arg, bool xo, char *out, size_t outlen, pid_t *pidp)
{
	char *argv[] = { (char *)"xoplan_target", (char *)arg, NULL };

	return run_prog(TARGET, argv, xo, out, outlen, pidp);
}

/* Run the target at @path with @what in xonly mode: its exit (0 read, 3 SEGV_PKUERR), its pid. */
static int path_read(const char *path, const char *what, pid_t *pid)
{
	char *argv[] = { (char *)"xoplan_target", (char *)what, NULL };
	int st = run_prog(path, argv, true, NULL, 0, pid);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The target's "read"/"readfn" exit status: 0 read, 3 SEGV_PKUERR. */
static int target_read(const char *what, pid_t *pid)
{
	return path_read(TARGET, what, pid);
}

static int run_xoplan(const char *op, const char *file, char *out, size_t outlen)
{
	char cmd[256];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", XOPLAN, op, file);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, outlen - 1, f);
	out[n] = 0;
	out[strcspn(out, "\n")] = 0;
	return pclose(f);
}

static bool names_plan_line(const char *line)
{
	return strstr(line, "xonly plan: comm=xoplan.target ") && strstr(line, want_pid) &&
	       strstr(line, " file=" TARGET " ignored: ") && strstr(line, want_reason);
}

static bool names_any_plan_line(const char *line)
{
	return strstr(line, "xonly plan: ") && strstr(line, want_pid);
}

static bool copy_file(const char *from, const char *to)
{
	static char buf[1 << 16];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;
	bool ok = in >= 0 && out >= 0;

	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok;
}

/*
 * Set @v (@len bytes) as the target's plan, run the target's read in xonly
 * mode, and check that it faults and that the kernel logged @reason.
 */
static void expect_ignored(const char *what, const void *v, size_t len, const char *reason)
{
	const char *line;
	pid_t pid;
	int r;

	if (setxattr(TARGET, XONLY_PLAN_XATTR, v, len, 0)) {
		tap_ok(false, "%s: setxattr: %s", what, errname(errno));
		return;
	}
	r = target_read("read", &pid);
	snprintf(want_pid, sizeof(want_pid), " pid=%d ", pid);
	snprintf(want_reason, sizeof(want_reason), "%s", reason);
	line = klog_line(names_plan_line);
	tap_ok(r == 3 && line, "%s: ignored, the table read faults SEGV_PKUERR (exit %d), logged: %s", what, r,
	       line ? line : "no line");
}

static void le_put(uint8_t *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* As uid 65534 with no capabilities: setxattr/removexattr are EPERM, and so is xoplan. */
static int unprivileged(void *arg)
{
	const uint8_t *v = arg;
	char out[512];

	if (setgid(65534) || setuid(65534))
		return 10;
	if (setxattr(TARGET, XONLY_PLAN_XATTR, v, XONLY_PLAN_HDR, 0) != -1 || errno != EPERM)
		return 11;
	if (removexattr(TARGET, XONLY_PLAN_XATTR) != -1 || errno != EPERM)
		return 12;
	if (run_xoplan("--set-xattr", TARGET, out, sizeof(out)) == 0 || !strstr(out, "Operation not permitted"))
		return 13;
	return 0;
}

/* The mmap path: this program maps the target PROT_READ|PROT_EXEC in xonly mode. */
static void mmap_child(void *arg)
{
	struct stat sb;
	struct fault f;
	const unsigned char *base;
	char tperm[8], fperm[8];
	int fd = open(TARGET, O_RDONLY);
	bool hit;

	(void)arg;
	fault_setup();
	if (fd < 0 || fstat(fd, &sb) || enter_xonly())
		tap_bail("mmap child: setup: %s", errname(errno));
	base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		tap_bail("mmap child: mmap: %s", errname(errno));
	/* Each result is taken before it is printed: arguments are evaluated in no set order. */
	hit = fault_read8(base + table_off, &f);
	tap_ok(!hit && base[table_off] == 0x5a, "mmap path: the table page of the mapping reads (%s)", fault_str(&f));
	hit = fault_read8(base + fn_off, &f);
	tap_ok(hit && f.code == SEGV_PKUERR, "mmap path: the function page faults SEGV_PKUERR (%s)", fault_str(&f));
	snprintf(tperm, sizeof(tperm), "%s", maps_perms(base + table_off));
	snprintf(fperm, sizeof(fperm), "%s", maps_perms(base + fn_off));
	tap_ok(!strcmp(tperm, "r-xp") && !strcmp(fperm, "--xp"),
	       "mmap path: the table page is r-xp, the function page --xp (%s, %s)", tperm, fperm);
	/* PROT_EXEC alone asked for execute-only code: no plan applies. */
	{
		const unsigned char *xo = mmap(NULL, (size_t)sb.st_size, PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (xo == MAP_FAILED)
			tap_bail("mmap child: mmap(PROT_EXEC): %s", errname(errno));
		f.hit = false;
		hit = fault_read8(xo + table_off, &f);
		tap_ok(hit && f.code == SEGV_PKUERR,
		       "mmap path: the same file mapped PROT_EXEC alone: the table page faults SEGV_PKUERR too (%s)",
		       fault_str(&f));
	}
	/* Grown by a page, the table's mapping would map the function's page readable. */
	{
		void *r = fn_off == table_off + PAGE ?
			  mremap((void *)(base + table_off), PAGE, 2 * PAGE, MREMAP_MAYMOVE) : MAP_FAILED;
		int e = errno;

		if (fn_off != table_off + PAGE)
			tap_bail("mmap child: the function is not on the page after the table");
		if (r != MAP_FAILED)
			fault_read8((unsigned char *)r + PAGE, &f);
		tap_ok(r == MAP_FAILED && e == EPERM,
		       "mmap path: mremap() growing the plan's table page over the function's: EPERM (got %s%s)",
		       r == MAP_FAILED ? errname(e) : "0, the function's page ",
		       r == MAP_FAILED ? "" : f.hit ? "faults" : "READS");
	}
}

/*
 * A planned file open O_WRONLY, mapped PROT_EXEC in xonly mode: do_mmap()
 * refuses it (EACCES), and the plan is not read on the way (no line, no
 * WARN from kernel_read() of a file not open for reading).
 */
static bool names_warning(const char *line)
{
	return strstr(line, "WARNING:") || (strstr(line, "xonly plan: ") && strstr(line, want_pid));
}

static void wronly_child(void *arg)
{
	int fd = open(TARGET, O_WRONLY);
	void *p;
	int e;

	(void)arg;
	if (fd < 0 || enter_xonly())
		tap_bail("write-only child: setup: %s", errname(errno));
	p = mmap(NULL, PAGE, PROT_EXEC, MAP_PRIVATE, fd, 0);
	e = errno;
	snprintf(want_pid, sizeof(want_pid), " pid=%d ", getpid());
	tap_ok(p == MAP_FAILED && e == EACCES && !klog_line(names_warning),
	       "a planned file open O_WRONLY, mmap(PROT_EXEC): %s, no plan line and no WARNING in the log",
	       p == MAP_FAILED ? errname(e) : "mapped");
}

static bool names_reason_line(const char *line)
{
	return strstr(line, "xonly plan: comm=xoplan.target ") && strstr(line, want_pid) &&
	       strstr(line, want_reason);
}

/*
 * The target with its plan on the lower layer of an overlay: run through the
 * overlay, the table reads and the function faults, as on the file itself.
 */
static void overlay_row(const uint8_t *v, size_t len)
{
	const char *lower = "/tmp/xoplan.lower", *empty = "/tmp/xoplan.empty", *merged = "/tmp/xoplan.merged";
	char file[64];
	int r, rf;

	snprintf(file, sizeof(file), "%s/xoplan.target", lower);
	if ((mkdir(lower, 0755) && errno != EEXIST) || (mkdir(empty, 0755) && errno != EEXIST) ||
	    (mkdir(merged, 0755) && errno != EEXIST) || !copy_file(TARGET_SRC, file) ||
	    setxattr(file, XONLY_PLAN_XATTR, v, len, 0))
		tap_bail("overlay: setup of %s: %s", file, errname(errno));
	if (mount("overlay", merged, "overlay", MS_RDONLY, "lowerdir=/tmp/xoplan.lower:/tmp/xoplan.empty")) {
		tap_ok(false, "overlay: mount: %s (kernel/xonly.config has CONFIG_OVERLAY_FS)", errname(errno));
		return;
	}
	snprintf(file, sizeof(file), "%s/xoplan.target", merged);
	r = path_read(file, "read", NULL);
	rf = path_read(file, "readfn", NULL);
	tap_ok(r == 0 && rf == 3,
	       "through an overlay, the lower file's plan applies: the table reads (exit %d), the function faults (exit %d)",
	       r, rf);
	umount(merged);
	snprintf(file, sizeof(file), "%s/xoplan.target", lower);
	unlink(file);
	rmdir(lower);
	rmdir(empty);
	rmdir(merged);
}

/* In a new user and mount namespace: a tmpfs at /tmp/xoplan.uns with the target in it; then wait. */
static int userns_child(void *arg)
{
	int *p = arg;
	char c = 0;
	int fd;

	close(p[0]);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return 10;
	fd = open("/proc/self/setgroups", O_WRONLY);
	if (fd < 0 || write(fd, "deny", 4) != 4 || close(fd))
		return 11;
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1", 5) != 5 || close(fd))
		return 12;
	fd = open("/proc/self/gid_map", O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1", 5) != 5 || close(fd))
		return 13;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/tmp/xoplan.uns", "tmpfs", 0, "mode=0755"))
		return 14;
	if (!copy_file(TARGET_SRC, "/tmp/xoplan.uns/xoplan.target"))
		return 15;
	if (write(p[1], &c, 1) != 1)
		return 16;
	pause();
	return 0;
}

static void userns_row(const uint8_t *v, size_t len)
{
	char file[96], c;
	int p[2], r, st = 0;
	pid_t child, pid;

	if (mkdir("/tmp/xoplan.uns", 0755) && errno != EEXIST)
		tap_bail("user namespace: mkdir: %s", errname(errno));
	if (pipe(p))
		tap_bail("pipe: %s", errname(errno));
	child = fork();
	if (child == 0)
		_exit(userns_child(p));
	close(p[1]);
	if (child < 0 || read(p[0], &c, 1) != 1) {
		waitpid(child, &st, 0);
		tap_ok(false, "user namespace: the child could not mount a tmpfs in one: %s (exit %d)",
		       status_str(st), WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		close(p[0]);
		return;
	}
	close(p[0]);
	snprintf(file, sizeof(file), "/proc/%d/root/tmp/xoplan.uns/xoplan.target", child);
	if (setxattr(file, XONLY_PLAN_XATTR, v, len, 0)) {
		tap_ok(false, "user namespace: root's setxattr of the plan on %s: %s", file, errname(errno));
	} else {
		r = path_read(file, "read", &pid);
		snprintf(want_pid, sizeof(want_pid), " pid=%d ", pid);
		snprintf(want_reason, sizeof(want_reason), "ignored: refused: the filesystem was mounted in a user namespace");
		tap_ok(r == 3 && klog_line(names_reason_line),
		       "a tmpfs mounted in a user namespace: the plan root set there is refused, the table read faults (exit %d), logged",
		       r);
	}
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	rmdir("/tmp/xoplan.uns");
}

/*
 * A real program with data in its code: openssl dgst, whose libcrypto has
 * tables in .text.  With plans set by xoload --set-xattr on its closure it
 * runs in xonly mode and prints what sha256sum prints; without them it dies
 * of SIGSEGV.  The plans are removed again, and set again if the boot had
 * set them (xonly.plans=1: the tests after this one rely on them).
 */
static void real_program(void)
{
	static char files[4096], cmd[4200], out[1024], want[256];
	char *argv[] = { (char *)"openssl", (char *)"dgst", (char *)"-sha256", (char *)TARGET_SRC, NULL };
	const char *hex;
	bool had_plans;
	FILE *f;
	size_t n;
	int st, r;

	if (access("/usr/bin/openssl", X_OK)) {
		tap_skip("no /usr/bin/openssl in this image", "real program: openssl dgst with plans");
		return;
	}
	f = popen("/xonly/bin/xoload --plan=tsv /usr/bin/openssl 2>/dev/null | cut -f1 | sort -u | tr '\\n' ' '", "r");
	n = f ? fread(files, 1, sizeof(files) - 1, f) : 0;
	files[n] = 0;
	if (f)
		pclose(f);
	tap_ok(strstr(files, "libcrypto.so.3") != NULL, "openssl's closure, from xoload --plan: %s", files);
	snprintf(cmd, sizeof(cmd), "/xonly/bin/xoload --get-xattr %s 2>/dev/null | grep -q 'fits the file'", files);
	had_plans = system(cmd) == 0;
	snprintf(cmd, sizeof(cmd), "sha256sum %s", TARGET_SRC);
	f = popen(cmd, "r");
	if (!f || !fgets(want, sizeof(want), f))
		tap_bail("sha256sum %s", TARGET_SRC);
	pclose(f);
	want[strcspn(want, " ")] = 0;

	snprintf(cmd, sizeof(cmd), "/xonly/bin/xoload --set-xattr %s >/dev/null", files);
	r = system(cmd);
	tap_ok(r == 0, "xoload --set-xattr on openssl's closure: exit %d", WIFEXITED(r) ? WEXITSTATUS(r) : -1);
	st = run_prog("/usr/bin/openssl", argv, true, out, sizeof(out), NULL);
	hex = strstr(out, "= ");
	tap_ok(WIFEXITED(st) && !WEXITSTATUS(st) && hex && !strncmp(hex + 2, want, strlen(want)),
	       "xonly mode with plans: openssl dgst -sha256 prints sha256sum's digest (%s, %s)", status_str(st), out);

	snprintf(cmd, sizeof(cmd), "/xonly/bin/xoload --clear-xattr %s >/dev/null", files);
	r = system(cmd);
	st = run_prog("/usr/bin/openssl", argv, true, out, sizeof(out), NULL);
	tap_ok(r == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "plans removed: openssl dgst dies of SIGSEGV in xonly mode (%s)", status_str(st));
	if (had_plans) {
		snprintf(cmd, sizeof(cmd), "/xonly/bin/xoload --set-xattr %s >/dev/null", files);
		r = system(cmd);
		tap_ok(r == 0, "the boot's plans on openssl's closure set again: exit %d", WIFEXITED(r) ? WEXITSTATUS(r) : -1);
	}
}

int main(void)
{
	static uint8_t v[8192], w[8192];
	char out[1024];
	ssize_t len;
	size_t idlen, i;
	struct stat sb;
	int r, st;
	pid_t pid;

	tap_init("xonly_plan");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "xonly plans");
		return tap_done();
	}
	if (!copy_file(TARGET_SRC, TARGET))
		tap_bail("setup: copy %s to %s: %s", TARGET_SRC, TARGET, errname(errno));
	st = run_target("where", false, out, sizeof(out), NULL);
	if (st || sscanf(out, "table=0x%llx fn=0x%llx", &table_off, &fn_off) != 2)
		tap_bail("setup: %s where: %s, '%s'", TARGET, status_str(st), out);

	/* Does this kernel apply plans?  One with a bad magic logs a line if so. */
	memcpy(v, "XOPX", 4);
	if (setxattr(TARGET, XONLY_PLAN_XATTR, v, XONLY_PLAN_HDR, 0)) {
		/* kernel/xonly.config has CONFIG_TMPFS_XATTR: this is a failure. */
		tap_bail("setup: setxattr(%s, %s): %s (no trusted.* attributes on /tmp?)", TARGET, XONLY_PLAN_XATTR,
			 errname(errno));
	}
	target_read("read", &pid);
	snprintf(want_pid, sizeof(want_pid), " pid=%d ", pid);
	if (!klog_line(names_any_plan_line)) {
		tap_skip("the kernel has no plans (no \"xonly plan:\" line for a malformed one: patch 0072 not applied)",
			 "xonly plans");
		return tap_done();
	}
	removexattr(TARGET, XONLY_PLAN_XATTR);

	r = target_read("read", NULL);
	tap_ok(r == 3, "no plan: the table read faults SEGV_PKUERR (exit %d)", r);

	r = run_xoplan("--set-xattr", TARGET, out, sizeof(out));
	snprintf((char *)w, sizeof(w), TARGET ": plan set, readable: 0x%llx-0x%llx", table_off, table_off + PAGE);
	tap_ok(r == 0 && !strcmp(out, (char *)w), "xoplan --set-xattr: the table's page and no other (%s)", out);
	r = run_xoplan("--get-xattr", TARGET, out, sizeof(out));
	tap_ok(r == 0 && strstr(out, "(fits the file)"), "xoplan --get-xattr: %s", out);
	len = getxattr(TARGET, XONLY_PLAN_XATTR, v, sizeof(v));
	if (len < XONLY_PLAN_HDR + 16 || v[5] == 0)
		tap_bail("setup: the plan xoplan set: %zd bytes", len);
	idlen = v[5];

	r = target_read("read", NULL);
	tap_ok(r == 0, "plan: the table reads (exit %d)", r);
	r = target_read("readfn", NULL);
	tap_ok(r == 3, "plan: the function's first byte faults SEGV_PKUERR (exit %d)", r);
	st = run_target("maps", true, out, sizeof(out), NULL);
	out[strcspn(out, "\n")] = 0;
	r = -1;
	tap_ok(st == 0 && sscanf(out, "table=r-xp/0 fn=--xp/%d", &r) == 1 && r > 0,
	       "plan: the table page is r-xp key 0, the function's --xp with the execute-only key (%s)", out);
	child_tap_ok("mmap path", mmap_child, NULL, 20);
	child_tap_ok("write-only", wronly_child, NULL, 20);
	overlay_row(v, (size_t)len);
	userns_row(v, (size_t)len);

	r = child_status(unprivileged, v, 20);
	tap_ok(WIFEXITED(r) && WEXITSTATUS(r) == 0,
	       "uid 65534: setxattr and removexattr of " XONLY_PLAN_XATTR " are EPERM, xoplan --set-xattr fails (%s)",
	       status_str(r));

	/* Outside xonly mode nothing changes: the function reads. */
	if (xonly_get(0, 0, 0, 0)) {
		tap_skip("this process is in xonly mode (an xonly= boot)", "no xonly mode: the function reads");
	} else {
		st = run_target("readfn", false, NULL, 0, NULL);
		tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "no xonly mode: the function reads, plan or not (%s)",
		       status_str(st));
	}

	/* Adversarial plans: each ignored, with the line, the table read faulting. */
	expect_ignored("truncated by a byte", v, (size_t)len - 1, "malformed: bad length");
	memcpy(w, v, (size_t)len);
	w[len] = 0;
	expect_ignored("a byte too many", w, (size_t)len + 1, "malformed: bad length");
	memset(w, 0, sizeof(w));
	memcpy(w, v, (size_t)len);
	expect_ignored("larger than the kernel reads (8 KiB)", w, sizeof(w), "malformed: too large");
	memcpy(w, v, (size_t)len);
	w[0] = 'Y';
	expect_ignored("a bad magic", w, (size_t)len, "malformed: bad header");
	if (stat(TARGET, &sb))
		tap_bail("stat %s: %s", TARGET, errname(errno));
	memcpy(w, v, (size_t)len);
	le_put(w + XONLY_PLAN_HDR + idlen + 8, ((uint64_t)sb.st_size + 2 * PAGE) & ~(uint64_t)(PAGE - 1), 8);
	expect_ignored("a range past the end of the file", w, (size_t)len, "malformed: bad range");
	/* Two ranges, the second before the first. */
	memcpy(w, v, XONLY_PLAN_HDR + idlen);
	le_put(w + 6, 2, 2);
	le_put(w + XONLY_PLAN_HDR + idlen, (uint64_t)fn_off, 8);
	le_put(w + XONLY_PLAN_HDR + idlen + 8, (uint64_t)fn_off + PAGE, 8);
	le_put(w + XONLY_PLAN_HDR + idlen + 16, (uint64_t)table_off, 8);
	le_put(w + XONLY_PLAN_HDR + idlen + 24, (uint64_t)table_off + PAGE, 8);
	expect_ignored("two ranges out of order", w, XONLY_PLAN_HDR + idlen + 32, "malformed: bad range");
	/* One range: every page of the file. */
	le_put(w + 6, 1, 2);
	le_put(w + XONLY_PLAN_HDR + idlen, 0, 8);
	le_put(w + XONLY_PLAN_HDR + idlen + 8, ((uint64_t)sb.st_size + PAGE - 1) & ~(uint64_t)(PAGE - 1), 8);
	expect_ignored("every page of the file", w, XONLY_PLAN_HDR + idlen + 16, "refused: it names every page");

	/*
	 * The plan copied onto another file: the same program with one byte of
	 * its build-id changed (the same size), moved into the target's place.
	 */
	{
		static char img[1 << 20];
		int fd = open(TARGET, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, img, sizeof(img)) : -1;
		char *at = n > 0 ? memmem(img, (size_t)n, v + XONLY_PLAN_HDR, idlen) : NULL;

		if (fd >= 0)
			close(fd);
		if (!at)
			tap_bail("setup: the build-id of %s is not in it", TARGET);
		at[0] ^= 0xff;
		fd = open(OTHER, O_WRONLY | O_CREAT | O_TRUNC, 0755);
		if (fd < 0 || write(fd, img, (size_t)n) != n || close(fd) ||
		    setxattr(OTHER, XONLY_PLAN_XATTR, v, (size_t)len, 0) || rename(OTHER, TARGET))
			tap_bail("setup: %s: %s", OTHER, errname(errno));
		r = target_read("read", &pid);
		snprintf(want_pid, sizeof(want_pid), " pid=%d ", pid);
		snprintf(want_reason, sizeof(want_reason), "stale: the file's build-id is not the plan's");
		tap_ok(r == 3 && klog_line(names_plan_line),
		       "the plan on a file with another build-id, same size: ignored, the read faults (exit %d), logged",
		       r);
		r = run_xoplan("--get-xattr", TARGET, out, sizeof(out));
		tap_ok(r != 0 && strstr(out, "stale: the file's build-id"), "xoplan --get-xattr: %s", out);
	}
	/* The file rewritten after its plan: the original again, a byte appended. */
	if (!copy_file(TARGET_SRC, TARGET) || setxattr(TARGET, XONLY_PLAN_XATTR, v, (size_t)len, 0))
		tap_bail("setup: %s again: %s", TARGET, errname(errno));
	r = target_read("read", NULL);
	tap_ok(r == 0, "the plan set again on the original: the table reads (exit %d)", r);
	{
		int fd = open(TARGET, O_WRONLY | O_APPEND);

		if (fd < 0 || write(fd, "", 1) != 1 || close(fd))
			tap_bail("setup: append to %s: %s", TARGET, errname(errno));
	}
	r = target_read("read", &pid);
	snprintf(want_pid, sizeof(want_pid), " pid=%d ", pid);
	snprintf(want_reason, sizeof(want_reason), "stale: the file's size is not the plan's");
	tap_ok(r == 3 && klog_line(names_plan_line),
	       "the file rewritten after the plan (a byte appended): ignored, the read faults (exit %d), logged", r);
	r = run_xoplan("--get-xattr", TARGET, out, sizeof(out));
	tap_ok(r != 0 && strstr(out, "stale: the file's size"), "xoplan --get-xattr: %s", out);
	for (i = 0; i < 2; i++)
		unlink(i ? OTHER : TARGET);
	real_program();
	return tap_done();
}
