/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/rtplan.h - the plan (rule/plan.h) computed by a minimal,
 * freestanding ELF reader: what xoload and the audit module use at run
 * time.  It reads the ELF and program headers with one pread, the section
 * header table and .shstrtab with one more, and nothing it does not need.
 *
 * Its results must equal ref/elfplan.c's (libelf) for every file, page for page
 * and reason for reason: tests/host/xoload_plandiff.sh proves it over
 * every ELF file under /usr of the build machine and over fuzzed ones.
 */
#ifndef XOLOADER_RUN_RTPLAN_H
#define XOLOADER_RUN_RTPLAN_H

#include <stddef.h>

#include "../rule/plan.h"

/*
 * Plan the ELF file open on @fd like elfplan_build().  Returns 0, or -1
 * with p->err set.  Not reentrant (static buffers): the audit module runs
 * under ld.so's lock, xoload is single-threaded.
 */
int rtplan_build(int fd, size_t pagesz, struct plan *p);
/*
 * The admission check that both planners apply first (rule/admit.h), with
 * this reader's reads: 0 if the file is one both read alike, else -1 with
 * p->err set - the same message from both.
 */
int rtplan_admit(int fd, struct plan *p);
/* The number of pages of @p that are execute-only. */
size_t rtplan_xo_pages(const struct plan *p, size_t pagesz);

#endif
