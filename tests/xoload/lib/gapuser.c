// SPDX-License-Identifier: GPL-2.0
/*
 * gapuser - calls libgap.so (see gap.c) and prints the result, then the
 * permissions of each of libgap.so's mappings in /proc/self/maps, so that
 * the test sees the hole ld.so made PROT_NONE ("---p").
 */
#include <stdio.h>
#include <string.h>

int gap_fn(int x);

int main(void)
{
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	printf("gap_fn(2) = %d\n", gap_fn(2));
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/libgap.so") && sscanf(line, "%*s %7s", perms) == 1)
			printf("libgap.so %s\n", perms);
	fclose(f);
	return 0;
}
