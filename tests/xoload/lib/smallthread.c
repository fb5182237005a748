// SPDX-License-Identifier: GPL-2.0
/*
 * smallthread [STACK] - starts a thread with a STACK-byte stack (32 KiB by
 * default, as node 20 makes one): its static TLS comes out of that stack,
 * so a larger glibc.rtld.optional_static_tls surplus can make
 * pthread_create() fail (EINVAL).  Prints "smallthread: ok" if it ran.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *run(void *a)
{
	return a;
}

int main(int argc, char **argv)
{
	pthread_attr_t at;
	pthread_t t;
	int e;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, argc > 1 ? (size_t)atol(argv[1]) : 32768);
	e = pthread_create(&t, &at, run, NULL);
	if (e) {
		printf("smallthread: pthread_create: %s\n", strerror(e));
		return 1;
	}
	pthread_join(t, NULL);
	printf("smallthread: ok\n");
	return 0;
}
