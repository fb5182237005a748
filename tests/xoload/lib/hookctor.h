/* SPDX-License-Identifier: GPL-2.0 */
/* hookctor.h - what libhookctor.so records for hookctor (hookctorlib.c). */
#ifndef XONLY_HOOKCTOR_H
#define XONLY_HOOKCTOR_H

#define HOOKCTOR_MAX	8

struct hookctor_seen {
	const char *who;
	const void *target;	/* the byte read: libc's getpid */
	int signo;		/* 0: no fault, the byte was read */
	int code, pkey;
	void *addr;
	unsigned char byte;
};

extern struct hookctor_seen hookctor_seen[HOOKCTOR_MAX];
extern int hookctor_n;
void hookctor_probe(const char *who);

#endif
