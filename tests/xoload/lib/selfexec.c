// SPDX-License-Identifier: GPL-2.0
/*
 * selfexec.c - re-executes itself through /proc/self/exe, as busybox,
 * runc and Chromium do (tests/xoload/programs.sh):
 *   selfexec            execs /proc/self/exe child A B
 *   selfexec child ...  prints its arguments and whether it runs under
 *                       xoload (the AT_XOLOAD auxv entry) when asked: "where"
 * Under xoload /proc/self/exe is xoload; the re-exec must run selfexec
 * again, under xoload, with these arguments.
 */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#define AT_XOLOAD	0x584f

int main(int argc, char **argv)
{
	int i;

	if (argc >= 2 && !strcmp(argv[1], "child")) {
		printf("selfexec child:");
		for (i = 2; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		if (argc >= 3 && !strcmp(argv[2], "where"))
			printf("under xoload: %s\n", getauxval(AT_XOLOAD) ? "yes" : "no");
		return 3;
	}
	execl("/proc/self/exe", argv[0], "child", argc >= 2 ? argv[1] : "A", "B", (char *)NULL);
	perror("selfexec: /proc/self/exe");
	return 1;
}
