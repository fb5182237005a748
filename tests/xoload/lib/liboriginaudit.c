// SPDX-License-Identifier: GPL-2.0
/*
 * liboriginaudit.c - an audit library that origin.c's "audit" build names
 * in DT_AUDIT through $ORIGIN (-Wl,--audit): it says which file ld.so
 * loaded; -DWHICH names the build.
 */
#include <link.h>
#include <unistd.h>

unsigned int la_version(unsigned int version)
{
	static const char msg[] = "xoorigin audit: " WHICH "\n";

	if (write(1, msg, sizeof(msg) - 1) < 0)
		return 0;
	return version;
}
