// SPDX-License-Identifier: GPL-2.0
/*
 * hello.c - a small program the xoload tests run in three builds (PIE,
 * -z noseparate-code, static): "hello ARGS..." on stdout; "exit N" exits
 * with N, "kill N" dies by signal N, "readmain" reads its own code (which
 * under xoload is a SEGV_PKUERR unless main sits in a readable page),
 * "entry" prints whether getauxval(AT_ENTRY) is its own _start (xoload's
 * gate must have given it back).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char _start[];

int main(int argc, char **argv)
{
	int i;

	if (argc == 3 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "kill"))
		raise(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "readmain")) {
		printf("main byte %02x\n", *(volatile unsigned char *)(void *)main);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "entry")) {
		printf("AT_ENTRY is %s\n", getauxval(AT_ENTRY) == (unsigned long)_start ? "_start" : "not _start");
		return 0;
	}
	fputs("hello", stdout);
	for (i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	putchar('\n');
	return 0;
}

/* 8 KiB of code: even the -z noseparate-code build has whole code-only pages. */
__attribute__((used, noinline)) void hello_padding(void);
__attribute__((used, noinline)) void hello_padding(void)
{
	__asm__ volatile(".rept 8192\n\tnop\n\t.endr");
}
