// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_mlock - execute-only code can be locked and populated like any
 * other memory, and stays execute-only (issue 22, item 3; series v3).
 *
 * mlock(), mlockall() and MAP_POPULATE/MAP_LOCKED fault pages in through
 * get_user_pages(), whose pkey check tests the caller's PKRU although no
 * data is returned: v2 (and upstream, for any PROT_EXEC-only page) fails
 * mlock() of execute-only code with ENOMEM and silently populates nothing
 * for the others.  xonly mode makes every program's code such a page, so
 * daemons that lock their memory (chronyd calls mlockall()) would break.
 *
 * Proves, each in a forked child, for a 4-page file in /tmp whose pages
 * each hold "mov $N, %eax; ret", mapped execute-only in two ways:
 *  - xonly mode: PR_SET_XONLY 1, then mmap(PROT_READ|PROT_EXEC);
 *  - plain mode: mmap(PROT_EXEC) (upstream's execute-only key; under
 *    xonly=on the process's key):
 *  that the mapping is --x with a key and nothing is resident yet, then
 *  - mlock() of it returns 0 (v2: ENOMEM), smaps Locked: and Rss: cover
 *    all 4 pages;
 *  - mlockall(MCL_CURRENT) returns 0 and Rss: covers all 4 pages (v2: 0);
 *  - mmap() with MAP_POPULATE, and with MAP_LOCKED: Rss: covers all 4
 *    pages right after the mmap() (v2: 0 kB);
 *  and after each, a load from the first and the last page still faults
 *  SEGV_PKUERR (populating must not make the code readable) and every
 *  page runs and returns its number.
 *  - a program exec'd in xonly mode can mlock() the page of its own main
 *    (the case: v2 ENOMEM), and a load of it still faults.
 * The same with xonly=on.  Without PKU (a nopku boot) the test is SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define NPAGES	4

/* Its address is this static program's code, mapped by execve(). */
int main(int argc, char **argv);

static int code_fd = -1;

enum mode { XONLY_MODE, PLAIN_EXEC };
enum op { OP_MLOCK, OP_MLOCKALL, OP_POPULATE, OP_LOCKED };

static const char *const mode_name[] = {
	[XONLY_MODE] = "xonly mode, file PROT_READ|PROT_EXEC",
	[PLAIN_EXEC] = "file PROT_EXEC",
};
static const char *const op_name[] = {
	[OP_MLOCK] = "mlock()",
	[OP_MLOCKALL] = "mlockall(MCL_CURRENT)",
	[OP_POPULATE] = "mmap(MAP_POPULATE)",
	[OP_LOCKED] = "mmap(MAP_LOCKED)",
};

struct mcase {
	enum mode mode;
	enum op op;
};

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

/* After the operation: still execute-only, every page runs. */
static void still_xo(const char *what, unsigned char *p, int key)
{
	size_t ps = page_size();
	unsigned char *last = p + (NPAGES - 1) * ps;
	struct fault f0, f1;
	int runs = 0;

	fault_read8(p, &f0);
	fault_read8(last, &f1);
	tap_ok(fault_is_pkuerr(&f0, key, p) && fault_is_pkuerr(&f1, key, last),
	       "%s: loads from the first and the last page still fault SEGV_PKUERR (%s; %s)", what, fault_str(&f0),
	       fault_str(&f1));
	for (int i = 0; i < NPAGES; i++)
		runs += ((int (*)(void))(uintptr_t)(p + i * ps))() == i;
	tap_ok(runs == NPAGES, "%s: all %d pages run and return their number (%d did)", what, NPAGES, runs);
}

static void mlock_case(void *arg)
{
	const struct mcase *c = arg;
	size_t ps = page_size(), len = NPAGES * ps;
	long want_kb = (long)(len / 1024), rss, locked;
	int prot = c->mode == XONLY_MODE ? PROT_READ | PROT_EXEC : PROT_EXEC;
	int flags = MAP_PRIVATE, r = 0, e = 0, key;
	char what[128];
	unsigned char *p;

	snprintf(what, sizeof(what), "%s, %s", mode_name[c->mode], op_name[c->op]);
	if (c->mode == XONLY_MODE) {
		r = xonly_enter();
		if (!tap_ok(r == 0, "setup: PR_SET_XONLY 1 (got %d, %s)", r, errname(err_of(r))))
			return;
	}
	if (c->op == OP_POPULATE)
		flags |= MAP_POPULATE;
	if (c->op == OP_LOCKED)
		flags |= MAP_LOCKED;
	p = mmap(NULL, len, prot, flags, code_fd, 0);
	if (!tap_ok(p != MAP_FAILED, "setup: %s: mapped (%s)", what, errname(p == MAP_FAILED ? errno : 0)))
		return;
	key = smaps_pkey(p);
	rss = smaps_field(p, "Rss");
	if (c->op == OP_MLOCK || c->op == OP_MLOCKALL) {
		tap_ok(key > 0 && !strncmp(maps_perms(p), "--x", 3) && rss == 0,
		       "setup: %s: execute-only (%s, key %d), nothing resident yet (Rss %ld kB)", what, maps_perms(p),
		       key, rss);
		r = c->op == OP_MLOCK ? mlock(p, len) : mlockall(MCL_CURRENT);
		e = err_of(r);
		tap_ok(r == 0, "%s of the execute-only code -> 0 (got %d, %s)", what, r, errname(e));
		rss = smaps_field(p, "Rss");
	} else {
		tap_ok(key > 0 && !strncmp(maps_perms(p), "--x", 3), "setup: %s: execute-only (%s, key %d)", what,
		       maps_perms(p), key);
	}
	locked = smaps_field(p, "Locked");
	tap_ok(rss == want_kb, "%s: Rss covers all %d pages: %ld kB (want %ld)", what, NPAGES, rss, want_kb);
	if (c->op != OP_POPULATE)
		tap_ok(locked == want_kb, "%s: Locked covers all %d pages: %ld kB (want %ld)", what, NPAGES, locked,
		       want_kb);
	still_xo(what, p, key);
}

/* --- a program's own code, exec'd in xonly mode -------------------------------- */

/* This program again, as child_exec_xonly() runs it in xonly mode. */
static char *exec_argv[] = { "xonly_mlock", "owncode", NULL };

/* exit 0: main is execute-only, mlock() of its page works, the load still faults */
static int own_code(void)
{
	void *page = (void *)((uintptr_t)main & ~(uintptr_t)(page_size() - 1));
	int key = smaps_pkey((const void *)main);
	struct fault f;

	fault_setup();
	if (key <= 0)
		return 1;
	if (mlock(page, page_size()))
		return errno == ENOMEM ? 2 : 3;
	fault_read8((const void *)main, &f);
	return fault_is_pkuerr(&f, key, (const void *)main) ? 0 : 4;
}

int main(int argc, char **argv)
{
	unsigned char page[16];
	char path[64];
	int st;

	if (argc > 1 && !strcmp(argv[1], "owncode"))
		return own_code();
	tap_init("xonly_mlock");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "mlock and populate execute-only code");
		return tap_done();
	}
	fault_setup();
	snprintf(path, sizeof(path), "/tmp/xonly_mlock.%d", (int)getpid());
	code_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	if (code_fd < 0)
		tap_bail("setup: create %s: %s", path, errname(errno));
	unlink(path);
	if (ftruncate(code_fd, (off_t)(NPAGES * page_size())))
		tap_bail("setup: ftruncate: %s", errname(errno));
	for (int i = 0; i < NPAGES; i++) {
		/* mov $i, %eax; ret */
		memset(page, 0xcc, sizeof(page));
		page[0] = 0xb8;
		memcpy(page + 1, &i, 4);
		page[5] = 0xc3;
		if (pwrite(code_fd, page, sizeof(page), (off_t)(i * page_size())) != (ssize_t)sizeof(page))
			tap_bail("setup: pwrite: %s", errname(errno));
	}
	if (cmdline_has("xonly=on"))
		tap_diag("xonly=on: both modes use the execute-only key the process got at exec");

	for (enum mode m = XONLY_MODE; m <= PLAIN_EXEC; m++)
		for (enum op o = OP_MLOCK; o <= OP_LOCKED; o++) {
			struct mcase c = { m, o };
			char what[128];

			snprintf(what, sizeof(what), "%s, %s", mode_name[m], op_name[o]);
			child_tap_ok(what, mlock_case, &c, 60);
		}
	st = child_status(child_exec_xonly, exec_argv, 60);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "exec'd in xonly mode: mlock() of the page of its own main -> 0, and a load of main still faults (%s%s)",
	       status_str(st), WIFEXITED(st) && WEXITSTATUS(st) == 2 ? ": mlock ENOMEM" : "");
	return tap_done();
}
