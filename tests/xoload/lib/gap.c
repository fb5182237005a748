// SPDX-License-Identifier: GPL-2.0
/*
 * gap.c - libgap.so, a library laid out as old toolchains and some of
 * Debian's (libXxf86vm, libxshmfence) lay theirs out: -z noseparate-code,
 * so its first segment is R+X and holds its headers and tables, and a
 * max-page-size above the page size, so a hole lies between its segments.
 * ld.so maps the whole span with the first segment's protections and makes
 * the hole PROT_NONE (glibc's _dl_map_segments()): in xonly mode that is an
 * mprotect() of execute-only code, which the strict level must allow
 * (kernel/patches 0075).  gapuser links it (tests/xoload/kernel.sh).
 */
int gap_data = 7;
int gap_fn(int x);

int gap_fn(int x)
{
	return x * 3 + gap_data;
}
