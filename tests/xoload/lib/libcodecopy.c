// SPDX-License-Identifier: GPL-2.0
/* libcodecopy.c - libcodecopy.so, linked without build-id: one distinctive instruction (codecopy.c). */
long codecopy_fn(void);

long codecopy_fn(void)
{
	long r;

	__asm__ volatile("movabs $0x5a17c0de5a17c0de, %0" : "=a"(r));
	return r;
}
