// SPDX-License-Identifier: GPL-2.0
/*
 * libbigtls.so - 20 KiB of initial-exec TLS in a library a program starts
 * with (as Rust's librustc_driver has 23 KB): under LD_AUDIT glibc's
 * ld.so sets static TLS up before it loads such a library, and it fits
 * only in the surplus GLIBC_TUNABLES' glibc.rtld.optional_static_tls
 * gives (tests/host/xoload_tls.sh, tests/xoload/tls.sh).
 */
__attribute__((tls_model("initial-exec"))) __thread char bigtls_buf[20480];

int bigtls_touch(int i)
{
	bigtls_buf[i] = (char)i;
	return bigtls_buf[i];
}
