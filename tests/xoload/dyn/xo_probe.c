// SPDX-License-Identifier: GPL-2.0
/*
 * xo_probe.c - inside a dynamically linked program run under xoload: its
 * own main, a libc function, an ld.so function and a dlopen()ed library's
 * function are execute-only.  Started directly, it re-runs itself under
 * /xonly/bin/xoload (xoload marks its programs with the AT_XOLOAD auxv entry),
 * unless its first argument is --child: run by a program under xoload,
 * whose audit module protected it in place (no AT_XOLOAD) or ran it under
 * xoload again (tests/xoload/children.sh).
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

#define AT_XOLOAD	0x584f
#define XOLOAD		"/xonly/bin/xoload"
#define PROBE_LIB	"/xonly/lib/xoload/libxoprobe.so"

/* Read one byte of @fn: must fault SEGV_PKUERR, key = its smaps key, at exactly @fn. */
static void probe(const char *what, const void *fn)
{
	struct fault f;
	int key = smaps_pkey(fn);

	tap_ok(key > 0, "%s at %p: smaps ProtectionKey %d (the execute-only key, not 0)", what, fn, key);
	fault_read8(fn, &f);
	tap_ok(fault_is_pkuerr(&f, key, fn), "read of %s: %s (want SEGV_PKUERR pkey %d at %p)",
	       what, fault_str(&f), key, fn);
}

static const char *object_of(const void *p)
{
	Dl_info di;

	return dladdr(p, &di) && di.dli_fname ? di.dli_fname : "?";
}

int main(int argc, char **argv)
{
	struct dl_find_object dlfo;
	int (*libfn)(int);
	pid_t (*getpid_p)(void);
	void *ldso_fn, *h;

	bool child = argc > 1 && !strcmp(argv[1], "--child");

	if (!getauxval(AT_XOLOAD) && !child) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = 0;
		execl(XOLOAD, XOLOAD, self, (char *)NULL);
		tap_init("xoload-probe");
		tap_bail("exec %s: %s", XOLOAD, errname(errno));
	}
	tap_init("xoload-probe");
	if (!pkru_supported())
		tap_bail("no PKU");
	if (child)
		tap_diag("a child, %s", getauxval(AT_XOLOAD) ? "run under xoload again (AT_XOLOAD)" : "in place (no AT_XOLOAD)");
	fault_setup();

	probe("main", (void *)main);
	getpid_p = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "getpid");
	tap_ok(getpid_p && strstr(object_of((void *)getpid_p), "libc.so"),
	       "getpid resolves into libc (%s)", getpid_p ? object_of((void *)getpid_p) : "none");
	if (getpid_p) {
		probe("libc getpid", (void *)getpid_p);
		tap_ok(getpid_p() == (pid_t)syscall(SYS_getpid), "calling libc getpid from execute-only code works");
	}
	/* _dl_debug_state: ld.so's debugger hook, a no-op safe to call. */
	ldso_fn = dlsym(RTLD_DEFAULT, "_dl_debug_state");
	tap_ok(ldso_fn && strstr(object_of(ldso_fn), "ld-linux"),
	       "_dl_debug_state resolves into ld.so (%s)", ldso_fn ? object_of(ldso_fn) : "none");
	if (ldso_fn) {
		probe("ld.so _dl_debug_state", ldso_fn);
		((void (*)(void))ldso_fn)();
		tap_ok(_dl_find_object((void *)main, &dlfo) == 0 && dlfo.dlfo_link_map,
		       "calling ld.so's _dl_debug_state (and libc's _dl_find_object) works");
	}
	h = dlopen(PROBE_LIB, RTLD_NOW);
	if (!tap_ok(h != NULL, "dlopen %s: %s", PROBE_LIB, h ? "ok" : dlerror()))
		return tap_done();
	libfn = (int (*)(int))dlsym(h, "xoprobe_fn");
	if (tap_ok(libfn != NULL, "xoprobe_fn found in the dlopen()ed library")) {
		probe("dlopen()ed xoprobe_fn", (void *)libfn);
		tap_ok(libfn(6) == 40, "calling the dlopen()ed function works (6*6+4 = %d)", libfn(6));
	}
	return tap_done();
}
