// SPDX-License-Identifier: GPL-2.0
/*
 * origin.c - a program that finds its library through $ORIGIN
 * (tests/xoload/origin.sh): built three times, with DT_RUNPATH
 * "$ORIGIN/../lib", with DT_RPATH "${ORIGIN}/../lib", and with DT_NEEDED
 * "$ORIGIN/../lib/libxoorigin-needed.so".  It prints which library ld.so
 * gave it; a library of the same name elsewhere (origin.sh puts one next
 * to xoload) says so.
 */
#include <stdio.h>

const char *xoorigin_which(void);

int main(void)
{
	printf("xoorigin: %s\n", xoorigin_which());
	return 0;
}
