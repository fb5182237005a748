// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_hugetlb - in xonly mode, anonymous hugetlb memory is anonymous
 * memory (left alone) and a hugetlb memfd is a file (execute-only)
 * (issue 22, item 5; series v3).
 *
 * README, 0009 and the userspace-api doc say xonly mode leaves anonymous
 * memory alone, MAP_HUGETLB included.  v2 decided "file or not" by the
 * VMA's file, and hugetlb_file_setup() marks only SysV shm inodes
 * S_PRIVATE, so a MAP_ANONYMOUS|MAP_HUGETLB mapping (which has an internal
 * hugetlbfs file) asked for PROT_READ|PROT_EXEC became execute-only.
 *
 * Proves, in a child in xonly mode (PR_SET_XONLY 1; under xonly=on it
 * already is), with 2 MiB hugetlb pages (scripts/vm boots with
 * hugepages=16):
 *  - MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB and MAP_SHARED|MAP_ANONYMOUS|
 *    MAP_HUGETLB, mmap(PROT_READ|PROT_EXEC): readable (r-x, key 0, a load
 *    does not fault) (v2: --x, execute-only);
 *  - the same two mapped PROT_READ|PROT_WRITE, written, then mprotect()ed
 *    PROT_READ|PROT_EXEC: readable, and the bytes written are there;
 *  - a memfd_create(MFD_HUGETLB) memfd, mmap(PROT_READ|PROT_EXEC) and
 *    mmap(PROT_READ|PROT_WRITE) then mprotect(PROT_READ|PROT_EXEC):
 *    execute-only like every other memfd (--x, the execute-only key, a load
 *    faults SEGV_PKUERR at its address), and it still runs.
 *  - control, outside xonly mode (not under xonly=on): the hugetlb memfd
 *    mapped PROT_READ|PROT_EXEC is readable.
 * SKIP if /proc/sys/vm/nr_hugepages is 0; SKIP without PKU (a nopku boot).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	0x0004U
#endif

#define HUGE	(2UL << 20)

/* mov $42, %eax; ret */
static const unsigned char code[] = { 0xb8, 42, 0, 0, 0, 0xc3 };

static int err_of(int r)
{
	return r < 0 ? errno : 0;
}

static long proc_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* @p must be readable: r-x, key 0, a load that does not fault; false if it is not. */
static bool want_readable(const char *what, unsigned char *p)
{
	struct fault f;

	if (!tap_ok(p != NULL, "%s: mapped (%s)", what, errname(p ? 0 : errno)))
		return false;
	fault_read8(p, &f);
	return tap_ok(!f.hit && maps_perms(p)[0] == 'r' && smaps_pkey(p) == 0,
		      "%s: readable, anonymous memory is left alone (%s, key %d, load: %s)", what, maps_perms(p),
		      smaps_pkey(p), fault_str(&f));
}

/* @p must be execute-only: --x, a key, a faulting load, and the code runs. */
static void want_xo(const char *what, unsigned char *p)
{
	struct fault f;
	int key;

	if (!tap_ok(p != NULL, "%s: mapped (%s)", what, errname(p ? 0 : errno)))
		return;
	key = smaps_pkey(p);
	fault_read8(p, &f);
	tap_ok(key > 0 && !strncmp(maps_perms(p), "--x", 3) && fault_is_pkuerr(&f, key, p),
	       "%s: execute-only like every memfd (%s, key %d, load: %s)", what, maps_perms(p), key, fault_str(&f));
	tap_ok(((int (*)(void))(uintptr_t)p)() == 42, "%s: runs", what);
}

static unsigned char *anon_map(int flags)
{
	void *p = mmap(NULL, HUGE, PROT_READ | PROT_EXEC, flags | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static unsigned char *anon_then(int flags)
{
	unsigned char *p = mmap(NULL, HUGE, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, sizeof(code));
	return mprotect(p, HUGE, PROT_READ | PROT_EXEC) ? NULL : p;
}

static int huge_memfd(void)
{
	int fd = (int)syscall(SYS_memfd_create, "xonly_hugetlb", MFD_HUGETLB);

	if (fd < 0 || ftruncate(fd, (off_t)HUGE)) {
		tap_ok(false, "setup: memfd_create(MFD_HUGETLB) of 2 MiB: %s", errname(errno));
		return -1;
	}
	return fd;
}

/* The memfd filled with the code through a writable shared mapping. */
static unsigned char *memfd_map(int fd, bool then)
{
	unsigned char *p = mmap(NULL, HUGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, code, sizeof(code));
	if (then)
		return mprotect(p, HUGE, PROT_READ | PROT_EXEC) ? NULL : p;
	munmap(p, HUGE);
	p = mmap(NULL, HUGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void in_xonly_mode(void *arg)
{
	unsigned char *p;
	int r, fd;

	(void)arg;
	r = xonly_enter();
	if (!tap_ok(r == 0, "setup: PR_SET_XONLY 1 (got %d, %s)", r, errname(err_of(r))))
		return;
	want_readable("xonly mode, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB mmap(PROT_READ|PROT_EXEC)",
		      anon_map(MAP_PRIVATE));
	want_readable("xonly mode, MAP_SHARED|MAP_ANONYMOUS|MAP_HUGETLB mmap(PROT_READ|PROT_EXEC)",
		      anon_map(MAP_SHARED));
	p = anon_then(MAP_PRIVATE);
	/* only read what was written if a load does not fault */
	if (want_readable("xonly mode, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB, then mprotect(PROT_READ|PROT_EXEC)", p))
		tap_ok(!memcmp(p, code, sizeof(code)) && ((int (*)(void))(uintptr_t)p)() == 42,
		       "... the bytes written are there and run");
	p = anon_then(MAP_SHARED);
	/* only read what was written if a load does not fault */
	if (want_readable("xonly mode, MAP_SHARED|MAP_ANONYMOUS|MAP_HUGETLB, then mprotect(PROT_READ|PROT_EXEC)", p))
		tap_ok(!memcmp(p, code, sizeof(code)) && ((int (*)(void))(uintptr_t)p)() == 42,
		       "... the bytes written are there and run");

	fd = huge_memfd();
	if (fd < 0)
		return;
	want_xo("xonly mode, memfd_create(MFD_HUGETLB) mmap(PROT_READ|PROT_EXEC)", memfd_map(fd, false));
	want_xo("xonly mode, memfd_create(MFD_HUGETLB) PROT_READ|PROT_WRITE, then mprotect(PROT_READ|PROT_EXEC)",
		memfd_map(fd, true));
	close(fd);
}

static void plain_control(void *arg)
{
	unsigned char *p;
	struct fault f;
	int fd = huge_memfd();

	(void)arg;
	if (fd < 0)
		return;
	p = memfd_map(fd, false);
	if (!tap_ok(p != NULL, "without xonly mode, memfd_create(MFD_HUGETLB) mmap(PROT_READ|PROT_EXEC): mapped"))
		return;
	fault_read8(p, &f);
	tap_ok(!f.hit && maps_perms(p)[0] == 'r' && smaps_pkey(p) == 0 && ((int (*)(void))(uintptr_t)p)() == 42,
	       "without xonly mode, memfd_create(MFD_HUGETLB) mmap(PROT_READ|PROT_EXEC): readable, runs (control: %s, key %d, load: %s)",
	       maps_perms(p), smaps_pkey(p), fault_str(&f));
	close(fd);
}

int main(void)
{
	long nr;
	bool on;

	tap_init("xonly_hugetlb");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "hugetlb memory in xonly mode");
		return tap_done();
	}
	nr = proc_long("/proc/sys/vm/nr_hugepages");
	if (nr <= 0) {
		tap_skip("/proc/sys/vm/nr_hugepages is 0 (boot with hugepages=N)", "hugetlb memory in xonly mode");
		return tap_done();
	}
	on = cmdline_has("xonly=on");
	tap_diag("%ld hugetlb pages%s%s", nr, cmdline_has("hugepages=16") ? " (hugepages=16 on the command line)" : "",
		 on ? "; xonly=on" : "");
	fault_setup();
	if (on)
		tap_skip("xonly=on: every process is in xonly mode", "the hugetlb memfd outside xonly mode (control)");
	else
		child_tap_ok("control without xonly mode", plain_control, NULL, 60);
	child_tap_ok("xonly mode", in_xonly_mode, NULL, 60);
	return tap_done();
}
