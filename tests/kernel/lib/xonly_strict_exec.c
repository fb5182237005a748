// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_strict_exec - run PROG at the strict level of xonly mode:
 * prctl(PR_SET_XONLY, PR_XONLY_STRICT), then execvp(PROG, ARGS).  For the
 * shell tests (tests/xoload/lib/programs.sh, tests/xoload/kernel.sh) that
 * run real programs under `xoload --kernel` at the strict level on a boot
 * without xonly=strict.  Not a test on its own: it lives under
 * /xonly/lib/kernel/ so that the runner does not start it.
 *
 * usage: xonly_strict_exec PROG [ARG...]
 * Exits 125 if the prctl fails (a kernel without the strict level), 127 if
 * PROG cannot be executed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xonly_sys.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: xonly_strict_exec PROG [ARG...]\n");
		return 2;
	}
	if (xonly_set(XONLY_PR_XONLY_STRICT, 0, 0, 0)) {
		fprintf(stderr, "xonly_strict_exec: prctl(PR_SET_XONLY, PR_XONLY_STRICT): %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "xonly_strict_exec: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
