// SPDX-License-Identifier: GPL-2.0
/* textrel.c - libtextrel.so: built -fno-pic -mcmodel=large, so its code holds absolute addresses (TEXTREL). */
int textrel_value = 41;
int textrel_get(void);

int textrel_get(void)
{
	return textrel_value + 1;
}
