// SPDX-License-Identifier: GPL-2.0
/*
 * xoplan_target - the program tests/kernel/xonly_plan sets plans
 * (trusted.xonly) on and execs in xonly mode.  Not a test on its own: it
 * lives under /xonly/lib/kernel/ so that the runner does not start it.
 *
 * Its PF_X segment holds a table (xoplan_table: a page of 0x5a bytes in
 * .text, as OpenSSL's tables are) and a function on a page of its own
 * (xoplan_fn, with an FDE).
 *
 *   xoplan_target where    print "table=0xT fn=0xF": the file offsets of
 *                          the two pages, from /proc/self/maps (no read
 *                          of the code)
 *   xoplan_target read     read the table's first byte; exit 0 if it is
 *                          0x5a, 3 if the read faults SEGV_PKUERR (the
 *                          handler exits), 4 on any other fault
 *   xoplan_target readfn   read xoplan_fn's first byte, the same way
 *   xoplan_target maps     print the protections and keys of the two
 *                          pages: "table=r-xp/K fn=--xp/K"
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapping.h"

__asm__(".pushsection .text.xoplan_table,\"ax\",@progbits\n"
	".balign 4096\n"
	".globl xoplan_table\n"
	"xoplan_table:\n"
	".fill 4096, 1, 0x5a\n"
	".balign 4096\n"
	".globl xoplan_fn\n"
	".type xoplan_fn, @function\n"
	"xoplan_fn:\n"
	".cfi_startproc\n"
	"movl $0x600d, %eax\n"
	"ret\n"
	".cfi_endproc\n"
	".size xoplan_fn, .-xoplan_fn\n"
	".balign 4096\n"
	".popsection\n");

extern const volatile unsigned char xoplan_table[];
extern int xoplan_fn(void);

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	_exit(si->si_code == SEGV_PKUERR ? 3 : 4);
}

/* The file offset of @p from /proc/self/maps, or -1. */
static long long file_offset(const void *p)
{
	unsigned long long start, end, off;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	long long ret = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perms, &off) == 4 &&
		    (uintptr_t)p >= start && (uintptr_t)p < end) {
			ret = (long long)(off + ((uintptr_t)p - start));
			break;
		}
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	const volatile unsigned char *fn = (const volatile unsigned char *)(uintptr_t)xoplan_fn;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (xoplan_fn() != 0x600d)
		return 5;
	if (argc == 2 && !strcmp(argv[1], "where")) {
		printf("table=0x%llx fn=0x%llx\n", file_offset((const void *)xoplan_table),
		       file_offset((const void *)fn));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "read"))
		return xoplan_table[0] == 0x5a && xoplan_table[4095] == 0x5a ? 0 : 6;
	if (argc == 2 && !strcmp(argv[1], "readfn"))
		return fn[0] == 0xb8 ? 0 : 6;	/* movl $imm32, %eax */
	if (argc == 2 && !strcmp(argv[1], "maps")) {
		const char *t = maps_perms((const void *)xoplan_table);

		printf("table=%s/%d ", t ? t : "?", smaps_pkey((const void *)xoplan_table));
		t = maps_perms((const void *)fn);
		printf("fn=%s/%d\n", t ? t : "?", smaps_pkey((const void *)fn));
		return 0;
	}
	fprintf(stderr, "usage: xoplan_target where|read|readfn|maps\n");
	return 2;
}
