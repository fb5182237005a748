// SPDX-License-Identifier: GPL-2.0
/*
 * hookprobe.c - what a program run under `XOLOAD_HOOK=1 xoload` sees
 * (tests/xoload/hook.sh):
 *   hookprobe env           LD_AUDIT as the program's environment has it,
 *                           whether xoaudit.so (and libnullaudit.so) are
 *                           in its maps, and whether xoload started it
 *                           (AT_XOLOAD);
 *   hookprobe reopen N LIB  N rounds of dlopen(LIB), a read of its
 *                           xoprobe_fn, dlclose: every read must fault
 *                           SEGV_PKUERR, also when ld.so maps the library
 *                           again where it was, with a link map at the
 *                           same address (the hook must not take it for
 *                           the object it already protected);
 *   hookprobe brkrace N LIB reopen N LIB while another thread calls
 *                           _r_debug.r_brk (the hook, which any program can
 *                           call) in a loop: the hook takes one caller at
 *                           a time, so every round stays execute-only;
 *   hookprobe newns LIB     dlmopen(LM_ID_NEWLM) of libc.so.6, then of LIB
 *                           into that namespace: LIB's xoprobe_fn and the
 *                           new namespace's own libc are execute-only (the
 *                           hook follows r_debug's r_next chain).
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/auxv.h>

#include "fault.h"
#include "mapping.h"

#define AT_XOLOAD	0x584f

static int env(void)
{
	const char *a = getenv("LD_AUDIT");
	char line[4096];
	int xoaudit = 0, nullaudit = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		xoaudit |= strstr(line, "/xoaudit.so") != NULL;
		nullaudit |= strstr(line, "/libnullaudit.so") != NULL;
	}
	if (f)
		fclose(f);
	printf("LD_AUDIT=%s xoaudit=%d nullaudit=%d xoload=%d\n", a ? a : "(unset)", xoaudit, nullaudit,
	       getauxval(AT_XOLOAD) != 0);
	return 0;
}

static int reopen(int n, const char *lib)
{
	void *prev_addr = NULL, *prev_map = NULL;
	int i, xo = 0, same = 0;

	fault_setup();
	for (i = 0; i < n; i++) {
		void *h = dlopen(lib, RTLD_NOW), *fn;
		struct fault f;

		if (!h || !(fn = dlsym(h, "xoprobe_fn"))) {
			printf("dlopen %s: %s\n", lib, dlerror());
			return 1;
		}
		if (fault_read8(fn, &f) && fault_is_pkuerr(&f, smaps_pkey(fn), fn))
			xo++;
		else
			printf("round %d: a read of xoprobe_fn at %p: %s\n", i, fn, fault_str(&f));
		if (fn == prev_addr && h == prev_map)
			same++;
		prev_addr = fn;
		prev_map = h;
		dlclose(h);
	}
	printf("reopen: %d of %d rounds execute-only, %d at the same address with the same link map\n", xo, n, same);
	return xo == n ? 0 : 1;
}

static volatile int brk_stop;
static long brk_calls;

static void *call_brk(void *arg)
{
	void (*brk)(void) = (void (*)(void))_r_debug.r_brk;

	(void)arg;
	while (!brk_stop) {
		brk();
		brk_calls++;
	}
	return NULL;
}

static int brkrace(int n, const char *lib)
{
	pthread_t t;
	int r;

	if (pthread_create(&t, NULL, call_brk, NULL)) {
		printf("pthread_create failed\n");
		return 1;
	}
	r = reopen(n, lib);
	brk_stop = 1;
	pthread_join(t, NULL);
	printf("brkrace: r_brk called %ld times meanwhile\n", brk_calls);
	return r || !brk_calls;
}

/* A new namespace with its own libc, then LIB in it: LIB's xoprobe_fn and that libc's getpid execute-only. */
static int newns(const char *lib)
{
	void *hc = dlmopen(LM_ID_NEWLM, "libc.so.6", RTLD_NOW), *h = NULL, *fn = NULL, *gp = NULL;
	Lmid_t ns;
	struct fault f;
	int bad = 0;

	fault_setup();
	if (hc && !dlinfo(hc, RTLD_DI_LMID, &ns))
		h = dlmopen(ns, lib, RTLD_NOW);
	if (!h || !(fn = dlsym(h, "xoprobe_fn")) || !(gp = dlsym(hc, "getpid"))) {
		printf("dlmopen %s: %s\n", lib, dlerror());
		return 1;
	}
	if (gp == (void *)getpid) {
		printf("getpid of the new namespace is the base namespace's\n");
		return 1;
	}
	if (!(fault_read8(fn, &f) && fault_is_pkuerr(&f, smaps_pkey(fn), fn))) {
		printf("a read of xoprobe_fn at %p: %s\n", fn, fault_str(&f));
		bad = 1;
	}
	if (!(fault_read8(gp, &f) && fault_is_pkuerr(&f, smaps_pkey(gp), gp))) {
		printf("a read of the new namespace's getpid at %p: %s\n", gp, fault_str(&f));
		bad = 1;
	}
	printf("dlmopen: %s\n", bad ? "readable code" : "the library and its namespace's libc execute-only");
	return bad;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "env"))
		return env();
	if (argc == 4 && !strcmp(argv[1], "reopen"))
		return reopen(atoi(argv[2]), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "brkrace"))
		return brkrace(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "newns"))
		return newns(argv[2]);
	fprintf(stderr, "usage: hookprobe env | reopen N LIB | brkrace N LIB | newns LIB\n");
	return 2;
}
