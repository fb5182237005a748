// SPDX-License-Identifier: GPL-2.0
/* liborigin.c - the library origin.c finds through $ORIGIN; -DWHICH names the build. */
const char *xoorigin_which(void)
{
	return WHICH;
}
