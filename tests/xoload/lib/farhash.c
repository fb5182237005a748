// SPDX-License-Identifier: GPL-2.0
/*
 * farhash.c - libfarhash.so: its headers in a read-only segment, its
 * .gnu.hash at the start of its code segment (-z noseparate-code with the
 * table moved there), which ld.so reads before la_objopen(): under
 * --kernel no plan can help, and the module's load guard, which gives
 * back only headers and notes, names it in a line (kernel_headers.sh).
 * libfarprop.so, from the same source: its program headers and its GNU
 * property note (which ld.so reads on x86) moved by movephdrs into a code
 * segment of their own, a page each.  Built with -DUSER: farhashuser and
 * farpropuser, which call them.
 */
#include <stdio.h>

int farhash_fn(int x);

#ifdef USER
int main(void)
{
	printf("farhash_fn(1) = %d\n", farhash_fn(1));
	return 0;
}
#else
int farhash_fn(int x)
{
	return x + 1;
}
#endif
