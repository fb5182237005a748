// SPDX-License-Identifier: GPL-2.0
/*
 * netprobe.c - the safety net's guest test program (tests/xoload/net.sh):
 * datatext.S linked in (dt_sum() reads dt_table, a table in .text on a
 * page of its own that no FDE covers) and the same in libdatatext.so.
 * No SIGSEGV handler of its own: the net's is the only one.
 *
 *   netprobe addrs LIB  link-time addresses: the program's table and the
 *                       instruction of dt_sum() that reads it first, then
 *                       the same of LIB (hex, one line)
 *   netprobe prog       dt_sum() of the program: 36
 *   netprobe lib LIB    dt_sum() of LIB, dlopen()ed: 36
 *   netprobe code       the first byte of dt_sum() (code: the FDE rule's
 *                       execute-only page), read
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int dt_sum(void);
extern const uint32_t dt_table[8];
extern const char __ehdr_start[];

/* datatext.S: "xorl %eax, %eax" (2 bytes), then the first load of the table. */
#define FIRST_LOAD 2

int main(int argc, char **argv)
{
	void *h;
	int (*sum)(void);
	Dl_info di;

	if (argc == 2 && !strcmp(argv[1], "prog")) {
		printf("%d\n", dt_sum());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "code")) {
		printf("%d\n", *(volatile const unsigned char *)(uintptr_t)dt_sum);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "lib") && strcmp(argv[1], "addrs"))) {
		fputs("usage: netprobe addrs LIB | prog | lib LIB | code\n", stderr);
		return 2;
	}
	h = dlopen(argv[2], RTLD_NOW);
	sum = h ? (int (*)(void))(uintptr_t)dlsym(h, "dt_sum") : NULL;
	if (!sum) {
		fprintf(stderr, "netprobe: %s: %s\n", argv[2], dlerror());
		return 1;
	}
	if (!strcmp(argv[1], "lib")) {
		printf("%d\n", sum());
		return 0;
	}
	if (!dladdr((void *)(uintptr_t)sum, &di))
		return 1;
	printf("%#lx %#lx %#lx %#lx\n", (unsigned long)((const char *)dt_table - __ehdr_start),
	       (unsigned long)((const char *)(uintptr_t)dt_sum + FIRST_LOAD - __ehdr_start),
	       (unsigned long)((const char *)dlsym(h, "dt_table") - (const char *)di.dli_fbase),
	       (unsigned long)((const char *)(uintptr_t)sum + FIRST_LOAD - (const char *)di.dli_fbase));
	return 0;
}
