// SPDX-License-Identifier: GPL-2.0
/* bigtls - a program that starts with libbigtls.so: prints "bigtls: 7" if it loaded. */
#include <stdio.h>

int bigtls_touch(int i);

int main(void)
{
	printf("bigtls: %d\n", bigtls_touch(7));
	return 0;
}
