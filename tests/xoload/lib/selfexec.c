// SPDX-License-Identifier: GPL-2.0
/*
 * selfexec.c - re-executes itself through /proc/self/exe, as busybox,
 * runc and Chromium do (tests/xoload/programs.sh):
 *   selfexec            execs /proc/self/exe child A B
 *   selfexec target [W] execs what readlink() of /proc/self/exe gives,
 *                       that path in argv[0], as clang (-cc1) and node
 *                       (process.execPath) do: child W B
 *   selfexec child ...  prints its arguments and whether it runs under
 *                       xoload (the AT_XOLOAD auxv entry) when asked: "where";
 *                       with "argv0" also argv[0]
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
		if (argc >= 3 && !strcmp(argv[2], "argv0"))
			printf("argv[0]: %s\n", argv[0]);
		return 3;
	}
	if (argc >= 2 && !strcmp(argv[1], "target")) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0) {
			perror("selfexec: readlink /proc/self/exe");
			return 1;
		}
		self[n] = 0;
		execl(self, self, "child", argc >= 3 ? argv[2] : "A", "B", (char *)NULL);
		perror(self);
		return 1;
	}
	execl("/proc/self/exe", argv[0], "child", argc >= 2 ? argv[1] : "A", "B", (char *)NULL);
	perror("selfexec: /proc/self/exe");
	return 1;
}
