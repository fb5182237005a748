/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the one TAP printer of the xonly tests.
 *
 * Every test program prints "ok N - SUITE: what was proved" lines, a
 * "1..N" plan at the end, and exits 0 when all passed, 1 when some failed.
 * Any other exit (a crash, an abort) is a failure the guest runner reports
 * on its own.  Lines go out unbuffered so that a crash loses none.
 */
#ifndef XONLY_TAP_H
#define XONLY_TAP_H

#include <stdbool.h>

void tap_init(const char *suite);
/* One result; returns @pass so callers can stop a dependent sequence. */
bool tap_ok(bool pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(const char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A fatal setup error: report it as a failure, print the plan, exit 1. */
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "EINVAL" for EINVAL, "0" for 0: errno names read better than texts in TAP. */
const char *errname(int err);
/* Print the plan; returns the exit status for main(). */
int tap_done(void);

#endif
