// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_uprobe - uprobes and int3 with execute-only code (issue 22, item
 * 4; series v3).
 *
 * In an mm where some uprobe is installed (MMF_HAS_UPROBES), every int3
 * goes through handle_swbp(); when no uprobe is at the address,
 * is_trap_at_addr() reads the byte to tell a real int3 (SIGTRAP) from a
 * uprobe that just went away (restart the instruction).  v2's rule for
 * forced reads (0007) refuses that read of execute-only code, so 6.1
 * restarts the int3 forever instead of sending SIGTRAP (6.12 already
 * livelocked upstream).  The same rule keeps uprobes from being installed
 * on execute-only code at all (uprobe_write_opcode() reads the page it
 * replaces through get_user_pages(FOLL_FORCE)).
 *
 * Uses tracefs's uprobe_events (CONFIG_UPROBE_EVENTS), mounted at
 * /sys/kernel/tracing if it is not (SKIP if it cannot be).  Proves:
 *  (a) with a uprobe installed elsewhere in the mm (on a private PROT_READ
 *      mapping of another file, whose probed byte then reads 0xcc), an
 *      int3 in execute-only code, an anonymous PROT_EXEC page and a file
 *      mapped PROT_READ|PROT_EXEC in xonly mode, kills the child with
 *      SIGTRAP within an alarm() bound (v2 6.1: SIGALRM, the livelock);
 *      controls: an int3 in readable code with the uprobe, and in
 *      execute-only code without any uprobe in the mm, are SIGTRAP too;
 *  (b) a uprobe on execute-only code: a file in /tmp holding
 *      "mov $42, %eax; ret", probed at offset 0 and mapped execute-only
 *      (xonly mode PROT_READ|PROT_EXEC, with the probe enabled before the
 *      mmap() and enabled while mapped; plain PROT_EXEC), called 5 times:
 *      every call returns 42, the probe's hit count in uprobe_profile
 *      grows by 5 (v2: 0; enabling over the mapping fails), and the code
 *      is still execute-only (a load faults SEGV_PKUERR); the control, the
 *      same probe on the file mapped readable (PROT_READ, then
 *      pkey_mprotect(PROT_READ|PROT_EXEC, key 0), which xonly mode leaves
 *      alone), counts 5 hits on any kernel.
 * Each probe is disabled and removed ("-:xo/NAME") afterwards.  The same
 * with xonly=on.  Without PKU (a nopku boot) the test is SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define CALLS	5

static char tracing[64];
static char other_path[64], int3_path[64], fn_path[64];

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

/* Write @s to @file under tracefs (O_APPEND: never clears uprobe_events); 0 or the errno. */
static int tr_write(const char *file, const char *s)
{
	char path[192];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/%s", tracing, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	e = n < 0 ? errno : 0;
	close(fd);
	return e;
}

static int probe_define(const char *name, const char *path)
{
	char def[192];

	snprintf(def, sizeof(def), "p:xo/%s %s:0x0\n", name, path);
	return tr_write("uprobe_events", def);
}

static int probe_enable(const char *name, bool on)
{
	char file[96];

	snprintf(file, sizeof(file), "events/xo/%s/enable", name);
	return tr_write(file, on ? "1\n" : "0\n");
}

static void probe_remove(const char *name)
{
	char def[64];

	probe_enable(name, false);
	snprintf(def, sizeof(def), "-:xo/%s\n", name);
	tr_write("uprobe_events", def);
}

/* The hit count of xo/@name in uprobe_profile, or -1. */
static long probe_hits(const char *name)
{
	char path[128], line[512];
	long hits = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_profile", tracing);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char file[256], event[128];
		long n;

		if (sscanf(line, " %255s %127s %ld", file, event, &n) == 3 && !strcmp(event, name)) {
			hits = n;
			break;
		}
	}
	if (f)
		fclose(f);
	return hits;
}

/* tracefs with uprobe_events: where it is, mounting it if need be; false if it cannot be had. */
static bool find_tracefs(char *why, size_t whysz)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing", "/tmp/xonly-tracefs" };
	char path[128];
	int e = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/uprobe_events", dirs[i]);
		if (!access(path, W_OK)) {
			snprintf(tracing, sizeof(tracing), "%s", dirs[i]);
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (i == 2)
			mkdir(dirs[i], 0755);
		if (mount("nodev", dirs[i], "tracefs", 0, NULL)) {
			e = e ? e : errno;
			continue;
		}
		snprintf(path, sizeof(path), "%s/uprobe_events", dirs[i]);
		if (!access(path, W_OK)) {
			snprintf(tracing, sizeof(tracing), "%s", dirs[i]);
			return true;
		}
		umount(dirs[i]);
		e = ENOENT;
	}
	snprintf(why, whysz, "no tracefs with uprobe_events (mount: %s; CONFIG_UPROBE_EVENTS?)", errname(e));
	return false;
}

/* A file in /tmp holding @len bytes of @code, at least a page long. */
static void make_file(char *path, size_t pathsz, const char *what, const unsigned char *code, size_t len)
{
	int fd;

	snprintf(path, pathsz, "/tmp/xonly_uprobe.%s.%d", what, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	if (fd < 0 || ftruncate(fd, (off_t)page_size()) || pwrite(fd, code, len, 0) != (ssize_t)len)
		tap_bail("setup: %s: %s", path, errname(errno));
	close(fd);
}

static void *map_file(const char *path, int prot)
{
	int fd = open(path, O_RDONLY);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, page_size(), prot, MAP_PRIVATE, fd, 0);

	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* --- (a) int3 in execute-only code with a uprobe elsewhere ----------------------- */

enum where { READABLE_ANON, XO_ANON, XO_FILE };

static const char *const where_name[] = {
	[READABLE_ANON] = "readable anonymous code (PROT_READ|PROT_EXEC)",
	[XO_ANON] = "execute-only anonymous code (PROT_EXEC)",
	[XO_FILE] = "execute-only file code (xonly mode, PROT_READ|PROT_EXEC)",
};

struct icase {
	enum where where;
	bool uprobe;
};

static void int3_case(void *arg)
{
	const struct icase *c = arg;
	const struct rlimit no_core = { 0, 0 };
	unsigned char *code = NULL;
	struct fault f;
	int key;

	if (c->uprobe) {
		volatile unsigned char *other = map_file(other_path, PROT_READ);

		if (!tap_ok(other && other[0] == 0xcc,
			    "setup: a uprobe is installed elsewhere in the mm (the probed byte of %s reads %#x)", other_path,
			    other ? other[0] : 0))
			return;
	}
	if (c->where == XO_FILE) {
		int r = xonly_enter();

		if (!tap_ok(r == 0, "setup: PR_SET_XONLY 1 (got %d, %s)", r, errname(err_of(r))))
			return;
		code = map_file(int3_path, PROT_READ | PROT_EXEC);
	} else {
		code = (unsigned char *)map_anon_page();
		code[0] = 0xcc;
		code[1] = 0xc3;
		if (mprotect(code, page_size(), c->where == READABLE_ANON ? PROT_READ | PROT_EXEC : PROT_EXEC))
			code = NULL;
	}
	if (!tap_ok(code != NULL, "setup: %s mapped", where_name[c->where]))
		return;
	key = smaps_pkey(code);
	fault_read8(code, &f);
	if (c->where == READABLE_ANON)
		tap_ok(!f.hit, "setup: the code is readable (%s, key %d)", maps_perms(code), key);
	else
		tap_ok(key > 0 && fault_is_pkuerr(&f, key, code), "setup: the code is execute-only (%s, key %d, load: %s)",
		       maps_perms(code), key, fault_str(&f));
	signal(SIGTRAP, SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	((void (*)(void))(uintptr_t)code)();
	tap_ok(false, "%s: the int3 did not stop the program", where_name[c->where]);
}

static void test_int3(void)
{
	static const unsigned char other_code[] = { 0xb8, 0x01, 0, 0, 0, 0xc3 };	/* mov $1, %eax; ret */
	static const unsigned char int3_code[] = { 0xcc, 0xc3 };
	static const struct icase cases[] = {
		{ READABLE_ANON, true }, { XO_ANON, false }, { XO_ANON, true }, { XO_FILE, true },
	};
	int e;

	make_file(other_path, sizeof(other_path), "other", other_code, sizeof(other_code));
	make_file(int3_path, sizeof(int3_path), "int3", int3_code, sizeof(int3_code));
	probe_remove("other");
	e = probe_define("other", other_path);
	if (!tap_ok(e == 0, "setup: p:xo/other %s:0x0 into uprobe_events (%s)", other_path, errname(e)))
		return;
	e = probe_enable("other", true);
	if (tap_ok(e == 0, "setup: xo/other enabled (%s)", errname(e))) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const struct icase *c = &cases[i];
			int st = child_tap(int3_case, (void *)c, 10, NULL);

			tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP,
			       "int3 in %s, %s: SIGTRAP, no livelock (%s%s)", where_name[c->where],
			       c->uprobe ? "a uprobe installed elsewhere in the mm" : "no uprobe in the mm",
			       status_str(st), WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? ": the alarm bound hit" : "");
		}
	}
	probe_remove("other");
	tap_ok(probe_hits("other") < 0, "xo/other removed from uprobe_events");
}

/* --- (b) a uprobe on execute-only code ------------------------------------------- */

enum fmode { READABLE_CONTROL, XONLY_BEFORE, XONLY_WHILE_MAPPED, PLAIN_EXEC };

static const char *const fmode_name[] = {
	[READABLE_CONTROL] = "readable control, PROT_READ then pkey_mprotect(PROT_READ|PROT_EXEC, key 0)",
	[XONLY_BEFORE] = "xonly mode PROT_READ|PROT_EXEC, probe enabled before the mmap()",
	[XONLY_WHILE_MAPPED] = "xonly mode PROT_READ|PROT_EXEC, probe enabled while mapped",
	[PLAIN_EXEC] = "PROT_EXEC, probe enabled before the mmap()",
};

static void probed_case(void *arg)
{
	enum fmode m = (enum fmode)(intptr_t)arg;
	unsigned char *fn;
	struct fault f;
	int key, right = 0, e;

	if (m == READABLE_CONTROL) {
		/* installed at mmap() time into the readable mapping; key 0 keeps it readable even in xonly mode */
		fn = map_file(fn_path, PROT_READ);
		if (fn && pkey_mprotect(fn, page_size(), PROT_READ | PROT_EXEC, 0))
			fn = NULL;
		if (!tap_ok(fn && smaps_pkey(fn) == 0 && fn[0] == 0xcc,
			    "setup: %s: readable (%s, key %d), the probe's int3 is in place (%#x)", fmode_name[m],
			    fn ? maps_perms(fn) : "not mapped", fn ? smaps_pkey(fn) : -1, fn ? fn[0] : 0))
			return;
		for (int i = 0; i < CALLS; i++)
			right += ((int (*)(void))(uintptr_t)fn)() == 42;
		tap_ok(right == CALLS, "%s: %d calls of the probed function, %d returned 42", fmode_name[m], CALLS,
		       right);
		return;
	}
	if (m != PLAIN_EXEC) {
		int r = xonly_enter();

		if (!tap_ok(r == 0, "setup: PR_SET_XONLY 1 (got %d, %s)", r, errname(err_of(r))))
			return;
	}
	fn = map_file(fn_path, m == PLAIN_EXEC ? PROT_EXEC : PROT_READ | PROT_EXEC);
	key = fn ? smaps_pkey(fn) : -1;
	if (!tap_ok(fn && key > 0 && !strncmp(maps_perms(fn), "--x", 3), "setup: %s: execute-only (%s, key %d)",
		    fmode_name[m], fn ? maps_perms(fn) : "not mapped", key))
		return;
	if (m == XONLY_WHILE_MAPPED) {
		e = probe_enable("fn", true);
		tap_ok(e == 0, "%s: enabling xo/fn over the execute-only mapping -> 0 (%s)", fmode_name[m], errname(e));
	}
	for (int i = 0; i < CALLS; i++)
		right += ((int (*)(void))(uintptr_t)fn)() == 42;
	tap_ok(right == CALLS, "%s: %d calls of the probed function, %d returned 42", fmode_name[m], CALLS, right);
	fault_read8(fn, &f);
	tap_ok(fault_is_pkuerr(&f, key, fn) && !strncmp(maps_perms(fn), "--x", 3),
	       "%s: the probed code is still execute-only (%s, load: %s)", fmode_name[m], maps_perms(fn), fault_str(&f));
}

static void test_probed(void)
{
	static const unsigned char fn_code[] = { 0xb8, 42, 0, 0, 0, 0xc3 };	/* mov $42, %eax; ret */
	int e;

	make_file(fn_path, sizeof(fn_path), "fn", fn_code, sizeof(fn_code));
	probe_remove("fn");
	e = probe_define("fn", fn_path);
	if (!tap_ok(e == 0, "setup: p:xo/fn %s:0x0 into uprobe_events (%s)", fn_path, errname(e)))
		return;
	for (enum fmode m = READABLE_CONTROL; m <= PLAIN_EXEC; m++) {
		long before = probe_hits("fn"), after;

		if (m != XONLY_WHILE_MAPPED) {
			e = probe_enable("fn", true);
			if (!tap_ok(e == 0, "setup: xo/fn enabled (%s)", errname(e)))
				continue;
		}
		child_tap_ok(fmode_name[m], probed_case, (void *)(intptr_t)m, 60);
		after = probe_hits("fn");
		probe_enable("fn", false);
		tap_ok(before >= 0 && after - before == CALLS,
		       "%s: uprobe_profile counts %ld hits of xo/fn for the %d calls (%ld before, %ld after)",
		       fmode_name[m], after - before, CALLS, before, after);
	}
	probe_remove("fn");
	tap_ok(probe_hits("fn") < 0, "xo/fn removed from uprobe_events");
}

int main(void)
{
	char why[160];

	tap_init("xonly_uprobe");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "uprobes and int3 with execute-only code");
		return tap_done();
	}
	if (!find_tracefs(why, sizeof(why))) {
		tap_skip(why, "uprobes and int3 with execute-only code");
		return tap_done();
	}
	tap_diag("tracefs at %s%s", tracing, cmdline_has("xonly=on") ? "; xonly=on" : "");
	fault_setup();
	test_int3();
	test_probed();
	unlink(other_path);
	unlink(int3_path);
	unlink(fn_path);
	return tap_done();
}
