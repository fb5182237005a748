// SPDX-License-Identifier: GPL-2.0
/*
 * netprobe.c - the safety net's guest test program (tests/xoload/net.sh):
 * datatext.S linked in (dt_sum() reads dt_table, a table in .text on a
 * page of its own that no FDE covers) and the same in libdatatext.so.
 * No SIGSEGV handler of its own: the net's is the only one.  Built twice:
 * netprobe (PIE) and netprobe-static (-static, NETPROBE_STATIC: no LIB).
 *
 *   netprobe addrs [LIB]  link-time addresses (as in the file): the
 *                         program's table and the instruction of dt_sum()
 *                         that reads it first, or LIB's (hex, one line)
 *   netprobe prog         dt_sum() of the program: 36
 *   netprobe lib LIB      dt_sum() of LIB, dlopen()ed: 36
 *   netprobe own LIB      the same after installing a SIGSEGV handler of
 *                         its own (which exits 3)
 *   netprobe code         the first byte of dt_sum() (code: the FDE
 *                         rule's execute-only page), read
 *   netprobe exit [LIB]   the table of the program (or of LIB,
 *                         dlopen()ed, never dlclose()d) first read at
 *                         exit: by the write function of a stdio stream
 *                         that exit's stdio flush (glibc's _IO_cleanup)
 *                         calls after ld.so's la_objclose of every
 *                         object (_dl_fini); prints 36 from there
 *   netprobe loop N LIB   dlopen()s and dlclose()s LIB N times without
 *                         calling it, then dt_sum() of LIB dlopen()ed
 *                         once more: 36
 *   netprobe stale LIB    LIB dlopen()ed, then an anonymous PROT_EXEC
 *                         page mapped over its table's page (MAP_FIXED,
 *                         no dlclose: the kernel gives it the
 *                         execute-only key), read: the net must not take
 *                         it (the page is no longer LIB's)
 *   netprobe disp LIB     LIB dlopen()ed, not called: "default" if
 *                         SIGSEGV's disposition is still SIG_DFL (no net
 *                         handler), else "handler"
 *   netprobe forge        sends itself the SIGSEGV of a read fault
 *                         (SEGV_PKUERR) at the table, with key 0, from
 *                         no faulting access: the net must not take it
 *                         (it would make the page readable and go on)
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int dt_sum(void);
extern const uint32_t dt_table[8];

/* datatext.S: "xorl %eax, %eax" (2 bytes), then the first load of the table. */
#define FIRST_LOAD 2

/* The load bias of the program: the first object dl_iterate_phdr() reports. */
static int first(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

static int addrs(uintptr_t table, uintptr_t sum, uintptr_t bias)
{
	printf("%#lx %#lx\n", (unsigned long)(table - bias), (unsigned long)(sum + FIRST_LOAD - bias));
	return 0;
}

/* exit: the sum, computed and written by the stream's write function at exit. */
static int (*exit_sum)(void) = dt_sum;

static ssize_t exit_write(void *cookie, const char *buf, size_t n)
{
	char l[16];

	(void)cookie;
	(void)buf;
	write(1, l, (size_t)snprintf(l, sizeof(l), "%d\n", exit_sum()));
	return (ssize_t)n;
}

static int at_exit(int (*sum)(void))
{
	static const cookie_io_functions_t io = { .write = exit_write };
	FILE *f = fopencookie(NULL, "w", io);

	exit_sum = sum;
	if (!f || setvbuf(f, NULL, _IOFBF, BUFSIZ))
		return 1;
	fputs("flushed at exit\n", f);	/* buffered: exit's flush calls exit_write */
	return 0;
}

#ifndef NETPROBE_STATIC
static void own(int sig)
{
	(void)sig;
	_exit(3);
}
#endif

int main(int argc, char **argv)
{
	uintptr_t bias = 0;

	if (argc == 2 && !strcmp(argv[1], "prog")) {
		printf("%d\n", dt_sum());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "code")) {
		printf("%d\n", *(volatile const unsigned char *)(uintptr_t)dt_sum);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "forge")) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = SIGSEGV;
		si.si_code = SEGV_PKUERR;
		si.si_addr = (void *)(uintptr_t)dt_table;	/* si_pkey: 0 */
		syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGSEGV, &si);
		printf("still running\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "exit"))
		return at_exit(dt_sum);
	if (argc == 2 && !strcmp(argv[1], "addrs")) {
		dl_iterate_phdr(first, &bias);
		return addrs((uintptr_t)dt_table, (uintptr_t)dt_sum, bias);
	}
#ifndef NETPROBE_STATIC
	if (argc == 3 && (!strcmp(argv[1], "lib") || !strcmp(argv[1], "own") || !strcmp(argv[1], "addrs") ||
			  !strcmp(argv[1], "exit"))) {
		void *h;
		int (*sum)(void);
		Dl_info di;

		if (!strcmp(argv[1], "own"))
			signal(SIGSEGV, own);
		h = dlopen(argv[2], RTLD_NOW);
		sum = h ? (int (*)(void))(uintptr_t)dlsym(h, "dt_sum") : NULL;

		if (!sum) {
			fprintf(stderr, "netprobe: %s: %s\n", argv[2], dlerror());
			return 1;
		}
		if (!strcmp(argv[1], "exit"))
			return at_exit(sum);
		if (strcmp(argv[1], "addrs")) {
			printf("%d\n", sum());
			return 0;
		}
		/* A shared object's first vaddr is 0: its base is its bias. */
		if (!dladdr((void *)(uintptr_t)sum, &di))
			return 1;
		return addrs((uintptr_t)dlsym(h, "dt_table"), (uintptr_t)sum, (uintptr_t)di.dli_fbase);
	}
	if (argc == 3 && !strcmp(argv[1], "disp")) {
		struct sigaction sa;

		if (!dlopen(argv[2], RTLD_NOW) || sigaction(SIGSEGV, NULL, &sa))
			return 1;
		puts(sa.sa_handler == SIG_DFL ? "default" : "handler");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "stale")) {
		void *h = dlopen(argv[2], RTLD_NOW);
		uintptr_t t = h ? (uintptr_t)dlsym(h, "dt_table") & ~(uintptr_t)4095 : 0;

		if (!t || mmap((void *)t, 4096, PROT_EXEC, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != (void *)t) {
			fprintf(stderr, "netprobe: %s: cannot map over its table\n", argv[2]);
			return 1;
		}
		printf("%d\n", *(volatile const unsigned char *)t);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		long i, n = strtol(argv[2], NULL, 10);
		int (*sum)(void);
		void *h;

		for (i = 0; i < n; i++) {
			if (!(h = dlopen(argv[3], RTLD_NOW)) || dlclose(h)) {
				fprintf(stderr, "netprobe: %s: %s\n", argv[3], dlerror());
				return 1;
			}
		}
		h = dlopen(argv[3], RTLD_NOW);
		sum = h ? (int (*)(void))(uintptr_t)dlsym(h, "dt_sum") : NULL;
		if (!sum)
			return 1;
		printf("%d\n", sum());
		return 0;
	}
#endif
	fputs("usage: netprobe addrs [LIB] | prog | lib LIB | own LIB | exit [LIB] | loop N LIB | stale LIB | disp LIB | code | forge\n", stderr);
	return 2;
}
