// SPDX-License-Identifier: GPL-2.0
/* benchrun.c - see benchrun.h. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <unistd.h>

#include "benchrun.h"

pid_t bench_spawn(char *const argv[], const char *env, bool fixed)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		if (env)
			putenv((char *)env);
		if (fixed && personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
