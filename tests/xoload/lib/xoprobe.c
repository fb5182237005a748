// SPDX-License-Identifier: GPL-2.0
/* xoprobe.c - libxoprobe.so, the library xo_probe dlopens under xoload. */
int xoprobe_fn(int x);

int xoprobe_fn(int x)
{
	return x * 6 + 4;
}
