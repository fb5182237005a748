/* SPDX-License-Identifier: GPL-2.0 */
/*
 * admit.h - the admission check that both readers apply first (run/rtplan.c
 * and ref/elfplan.c), and xoscan and xosurvey with them: a file that passes
 * is one on which libelf and a plain reader cannot read different things
 * (every table they use lies inside the file, with the entry sizes they
 * assume) and that is what it claims to be (an executable or shared object,
 * not cut short).  Anything else is refused, by every reader with the same
 * message: such a file "cannot be planned", and the loader stops (fail
 * closed).
 *
 * Freestanding: the rule does no I/O of its own, each reader passes its
 * own reads (the run path's raw system calls, libc's pread for the tools).
 */
#ifndef XOLOADER_RULE_ADMIT_H
#define XOLOADER_RULE_ADMIT_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define ADMIT_MAX_PHNUM		64
#define ADMIT_MAX_SECTS		512
#define ADMIT_MAX_SEGMENT	(4ull << 30)

/* How a reader reads the file: both return < 0 on failure. */
struct admit_io {
	long (*fsize)(int fd);					/* its size in bytes */
	long (*pread)(int fd, void *buf, size_t n, uint64_t off);	/* bytes read */
};

/* What the check reads, for the reader to go on with. */
struct admit_buf {
	unsigned char head[4096];	/* ELF header and, usually, the program headers */
	Elf64_Phdr ph[ADMIT_MAX_PHNUM];
	Elf64_Shdr sh[ADMIT_MAX_SECTS + 1];	/* a window of the section header table */
};

/*
 * Admit the file open on @fd: 0, with the file's size in *@fsize, its ELF
 * header in @b->head and its program headers in @b->ph; or -1 with @p->err
 * set (p->err is cleared first).
 */
int plan_admit(const struct admit_io *io, int fd, struct plan *p, struct admit_buf *b, uint64_t *fsize);
/* Read exactly @n bytes at @off that lie within the file's @fsize bytes. */
bool plan_read_at(const struct admit_io *io, int fd, void *buf, uint64_t n, uint64_t off, uint64_t fsize);

#endif
