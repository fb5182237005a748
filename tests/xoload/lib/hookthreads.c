// SPDX-License-Identifier: GPL-2.0
/*
 * hookthreads.c - threads that dlopen() and dlclose() at once under
 * xoload (tests/xoload/hook_edges.sh):
 *   hookthreads [-b CALLERS] THREADS ROUNDS LIB:SYM...
 * THREADS threads, released together by a barrier, each run ROUNDS rounds:
 * round i of thread t dlopen()s LIB number (t + i) % n (RTLD_NOW), reads
 * one byte of its SYM and dlclose()s it.  Every read must fault
 * SEGV_PKUERR, with the key of PROG's own execute-only code, at SYM's
 * address: the library was protected before dlopen() returned, whatever
 * the other threads were doing in ld.so at the time.  Before each dlopen()
 * an RTLD_NOLOAD dlopen() says whether the library was loaded then: the
 * summary counts the rounds that found it not loaded, whose dlopen() mapped
 * it anew (ld.so often at the same address, with a link map at the same
 * address: the case the hook must not take for the object it protected
 * before).  With -b, CALLERS more threads call _dl_debug_state
 * themselves (ld.so's r_debug.r_brk, public for debuggers: xoload's hook
 * under xoload) in a loop while the others run, outside ld.so's load lock:
 * only the hook's own lock keeps them out of the hook while ld.so is in
 * it (a thread that dlopen()s), which would otherwise walk and update its
 * tables and objprotect's plan at the same time.  An alarm (120 s)
 * turns a hang into a death by SIGALRM.  Prints one summary line, and a
 * line per bad read (the first 10); exits 0 if every read faulted so.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"

#define MAX_LIBS	8

static struct lib {
	const char *path, *sym;
	atomic_int good, fresh;
} libs[MAX_LIBS];
static int nlibs, rounds, xokey;
static atomic_int bad, done;
static atomic_long brk_calls;
static pthread_barrier_t go;
static void (*r_brk)(void);

static void report(const char *fmt, long t, int i, const char *path, const char *what)
{
	if (atomic_fetch_add(&bad, 1) < 10)
		printf(fmt, t, i, path, what);
}

static void *worker(void *arg)
{
	long t = (long)arg;
	int i;

	pthread_barrier_wait(&go);
	for (i = 0; i < rounds; i++) {
		struct lib *l = &libs[(t + i) % nlibs];
		void *h = dlopen(l->path, RTLD_NOW | RTLD_NOLOAD), *fn;
		struct fault f;

		if (h)
			dlclose(h);
		else
			atomic_fetch_add(&l->fresh, 1);
		h = dlopen(l->path, RTLD_NOW);
		fn = h ? dlsym(h, l->sym) : NULL;

		if (!fn) {
			report("thread %ld round %d: %s: %s\n", t, i, l->path, dlerror());
		} else if (fault_read8(fn, &f) && fault_is_pkuerr(&f, xokey, fn)) {
			atomic_fetch_add(&l->good, 1);
		} else {
			report("thread %ld round %d: %s: a read of its code: %s\n", t, i, l->path, fault_str(&f));
		}
		if (h)
			dlclose(h);
	}
	return NULL;
}

/* A thread that calls _dl_debug_state (r_debug.r_brk) until the workers are done. */
static void *caller(void *arg)
{
	long n = 0;

	(void)arg;
	pthread_barrier_wait(&go);
	while (!atomic_load(&done)) {
		r_brk();
		n++;
	}
	atomic_fetch_add(&brk_calls, n);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long nth, ncall = 0, t;
	int i, good = 0, fresh = 0;

	if (argc > 2 && !strcmp(argv[1], "-b")) {
		ncall = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || (nth = atol(argv[1])) < 1 || ncall < 0 || nth + ncall > 64 || (rounds = atoi(argv[2])) < 1 ||
	    argc - 3 > MAX_LIBS) {
		fprintf(stderr, "usage: hookthreads [-b CALLERS] THREADS ROUNDS LIB:SYM...\n");
		return 2;
	}
	if (ncall) {
		/* ld.so's own _r_debug: PROG does not refer to it (no copy relocation). */
		const struct r_debug *rd = dlsym(RTLD_DEFAULT, "_r_debug");

		if (!rd || !rd->r_brk) {
			printf("no _r_debug or no r_brk in it: %s\n", rd ? "r_brk 0" : dlerror());
			return 1;
		}
		r_brk = (void (*)(void))rd->r_brk;
	}
	for (i = 3; i < argc; i++) {
		char *c = strchr(argv[i], ':');

		if (!c)
			return 2;
		*c = 0;
		libs[nlibs].path = argv[i];
		libs[nlibs++].sym = c + 1;
	}
	alarm(120);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fault_setup();
	/* PROG's own code is execute-only under xoload: its key is the one. */
	xokey = smaps_pkey((void *)main);
	if (xokey <= 0) {
		printf("main is not in an execute-only mapping (key %d): not run under xoload?\n", xokey);
		return 1;
	}
	pthread_barrier_init(&go, NULL, (unsigned)(nth + ncall));
	for (t = 0; t < nth + ncall; t++)
		if (pthread_create(&th[t], NULL, t < nth ? worker : caller, (void *)t)) {
			printf("pthread_create failed\n");
			return 1;
		}
	for (t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
	atomic_store(&done, 1);
	for (; t < nth + ncall; t++)
		pthread_join(th[t], NULL);
	for (i = 0; i < nlibs; i++) {
		good += libs[i].good;
		fresh += libs[i].fresh;
	}
	printf("threads: %ld x %d rounds on %d libraries: %d of %ld reads SEGV_PKUERR (", nth, rounds, nlibs, good,
	       nth * rounds);
	for (i = 0; i < nlibs; i++)
		printf("%s%s %d", i ? ", " : "", strrchr(libs[i].path, '/') ? strrchr(libs[i].path, '/') + 1 : libs[i].path,
		       (int)libs[i].good);
	printf("); %d found the library not loaded", fresh);
	if (ncall)
		printf("; %ld threads called r_brk %ld times", ncall, (long)brk_calls);
	printf("\n");
	return good == nth * rounds && !bad && (!ncall || brk_calls > 0) ? 0 : 1;
}
