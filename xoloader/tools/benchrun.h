/* SPDX-License-Identifier: GPL-2.0 */
/*
 * benchrun.h - what the two startup benchmarks share: make bench's in the
 * VM (bench.c) and make bench-host's on the build machine (hostbench.c).
 */
#ifndef XOLOADER_TOOLS_BENCHRUN_H
#define XOLOADER_TOOLS_BENCHRUN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Fork and execute @argv with stdout and stderr on /dev/null, @env
 * ("NAME=VALUE") added to the environment if not NULL, and without
 * address randomisation if @fixed.  The child's pid, or -1.
 */
pid_t bench_spawn(char *const argv[], const char *env, bool fixed);

/* The median of @v[0..@n); sorts @v. */
double bench_median(double *v, int n);

#endif
