/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - the clock and the median the benchmarks of tests/bench share.
 * Header only: each benchmark is one static program built from one file.
 */
#ifndef XONLY_BENCH_H
#define XONLY_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v[@n]; sorts @v, so v[0] is then the fastest. */
static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
