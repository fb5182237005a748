// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_probe - the dynamically linked program that tests/kernel/xonly_mode
 * execs, with and without xonly mode (PR_SET_XONLY), and that reports in
 * TAP what it finds in itself.  Not a test on its own: it lives under
 * /xonly/lib/kernel/ so that the runner does not start it.
 *
 *   xonly_probe xo        expect xonly mode: main, ld.so and libc code
 *                         execute-only (smaps key, SEGV_PKUERR reads), the
 *                         vDSO readable, the default PKRU, a dlopen()ed
 *                         library execute-only too; then fork+exec itself
 *                         as "xo-child" to show the flag is inherited
 *   xonly_probe xo-child  the same checks, as the child
 *   xonly_probe xo-strict the same at the strict level (PR_GET_XONLY 2),
 *                         its child "xo-strict-child" too
 *   xonly_probe plain     expect no xonly mode: the same code is readable
 *
 * Every check is one TAP line; the parent re-reports them.
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define PROBE_LIB	"/xonly/lib/xoload/libxoprobe.so"
/* Linux's init_pkru_value: access disabled for keys 1-15. */
#define DEFAULT_PKRU	0x55555554u

static bool xo;
static int xo_key = -1;
/* The PR_GET_XONLY level the mode expects: 0, 1 or 2 (xo-strict...). */
static int level;

static const char *object_of(const void *p)
{
	Dl_info di;

	return dladdr(p, &di) && di.dli_fname ? di.dli_fname : "?";
}

/* @fn is execute-only with the one key of this process, or readable with key 0. */
static void probe(const char *what, const void *fn)
{
	struct fault f;
	int key = smaps_pkey(fn);

	fault_read8(fn, &f);
	if (!xo) {
		tap_ok(key == 0 && !f.hit, "%s (%s) is readable: smaps key %d, read: %s",
		       what, object_of(fn), key, fault_str(&f));
		return;
	}
	if (xo_key < 0 && key > 0)
		xo_key = key;
	tap_ok(key > 0 && key == xo_key, "%s (%s) at %p: smaps ProtectionKey %d (the execute-only key %d)",
	       what, object_of(fn), fn, key, xo_key);
	tap_ok(fault_is_pkuerr(&f, xo_key, fn), "read of %s: %s (want SEGV_PKUERR pkey %d at %p)",
	       what, fault_str(&f), xo_key, fn);
}

static int status_xonly(void)
{
	return proc_status_int(getpid(), "Xonly");
}

static void probe_lib(void)
{
	int (*libfn)(int);
	void *h;

	if (access(PROBE_LIB, R_OK)) {
		tap_skip("no " PROBE_LIB, "a dlopen()ed library's code");
		return;
	}
	h = dlopen(PROBE_LIB, RTLD_NOW);
	if (!tap_ok(h != NULL, "dlopen %s: %s", PROBE_LIB, h ? "ok" : dlerror()))
		return;
	libfn = (int (*)(int))dlsym(h, "xoprobe_fn");
	if (!tap_ok(libfn != NULL, "xoprobe_fn found in the dlopen()ed library"))
		return;
	probe("dlopen()ed xoprobe_fn", (void *)libfn);
	tap_ok(libfn(6) == 40, "calling the dlopen()ed function works (6*6+4 = %d)", libfn(6));
}

static void spawn_child(const char *self)
{
	const char *mode = level == 2 ? "xo-strict-child" : "xo-child";
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, mode, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a fork+exec'd child of the xonly program passed its checks (status %#x)", st);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	uint32_t pkru0 = pkru_supported() ? rdpkru() : 0;
	struct dl_find_object dlfo;
	pid_t (*getpid_p)(void);
	const unsigned char *vdso;
	struct timespec ts;
	struct fault f;
	void *ldso_fn;

	xo = strncmp(mode, "xo", 2) == 0;
	level = !strncmp(mode, "xo-strict", 9) ? 2 : xo;
	tap_init(strstr(mode, "-child") ? "xonly-probe-child" : "xonly-probe");
	if (!xo && strcmp(mode, "plain"))
		tap_bail("usage: xonly_probe xo|xo-child|xo-strict|xo-strict-child|plain (run by tests/kernel/xonly_mode)");
	if (!pkru_supported())
		tap_bail("no PKU");
	fault_setup();

	tap_ok(xonly_get(0, 0, 0, 0) == level, "PR_GET_XONLY is %d (got %d)", level, xonly_get(0, 0, 0, 0));
	tap_ok(status_xonly() == level, "/proc/self/status Xonly: %d (got %d)", level, status_xonly());
	/* "xo": the parent opened every key with WRPKRU before execve(). */
	tap_ok(pkru0 == DEFAULT_PKRU, "the program started with the default PKRU %#x (got %#x)",
	       DEFAULT_PKRU, pkru0);

	probe("main", (void *)main);
	getpid_p = (pid_t (*)(void))dlsym(RTLD_DEFAULT, "getpid");
	if (tap_ok(getpid_p && strstr(object_of((void *)getpid_p), "libc.so"), "getpid resolves into libc")) {
		probe("libc getpid", (void *)getpid_p);
		tap_ok(getpid_p() == (pid_t)syscall(SYS_getpid), "calling libc's getpid works");
	}
	/* _dl_debug_state: ld.so's debugger hook, a no-op safe to call. */
	ldso_fn = dlsym(RTLD_DEFAULT, "_dl_debug_state");
	if (tap_ok(ldso_fn && strstr(object_of(ldso_fn), "ld-linux"), "_dl_debug_state resolves into ld.so")) {
		probe("ld.so _dl_debug_state", ldso_fn);
		((void (*)(void))ldso_fn)();
		/* and then a dynamic-linker query with a result to check */
		tap_ok(_dl_find_object((void *)main, &dlfo) == 0 &&
		       (char *)dlfo.dlfo_map_start <= (char *)main && (char *)main < (char *)dlfo.dlfo_map_end,
		       "calling ld.so's _dl_debug_state and _dl_find_object(main) works");
	}
	if (xo)
		tap_ok(pkru_rights(pkru0, xo_key) & PKEY_DISABLE_ACCESS,
		       "the starting PKRU %#x disables access for the execute-only key %d", pkru0, xo_key);

	/* The vDSO is a special mapping: ld.so and libc read its ELF tables. */
	vdso = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	if (tap_ok(vdso != NULL, "the vDSO is mapped at %p", (const void *)vdso)) {
		fault_read8(vdso, &f);
		tap_ok(!f.hit && !memcmp(vdso, "\177ELF", 4) && smaps_pkey(vdso) == 0,
		       "the vDSO stays readable (read: %s, smaps key %d)", fault_str(&f), smaps_pkey(vdso));
		tap_ok(clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts.tv_sec + ts.tv_nsec > 0,
		       "clock_gettime() through the vDSO works");
	}

	if (xo) {
		probe_lib();
		if (!strstr(mode, "-child"))
			spawn_child(argv[0]);
	}
	return tap_done();
}
