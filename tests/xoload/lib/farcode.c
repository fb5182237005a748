// SPDX-License-Identifier: GPL-2.0
/*
 * farcode.c - libfarcode.so and libfarcode-dl.so, made by movephdrs with
 * their program headers in a code segment of their own, as BOLT leaves
 * Rust's librustc_driver: farcodeuser links the first and dlopen()s the
 * second (tests/xoload/kernel_headers.sh).
 */
int farcode_data = 1;
int farcode_fn(int x);

int farcode_fn(int x)
{
	return x * 5 + farcode_data;
}
