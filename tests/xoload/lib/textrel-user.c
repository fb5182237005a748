// SPDX-License-Identifier: GPL-2.0
/* textrel-user.c - a program with a DT_NEEDED on libtextrel.so. */
#include <stdio.h>

int textrel_get(void);

int main(void)
{
	printf("textrel %d\n", textrel_get());
	return 0;
}
