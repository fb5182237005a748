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
 *                           the object it already protected).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "env"))
		return env();
	if (argc == 4 && !strcmp(argv[1], "reopen"))
		return reopen(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: hookprobe env | reopen N LIB\n");
	return 2;
}
