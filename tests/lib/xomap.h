/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xomap.h - execute-only mappings of every kind the tests cover, behind
 * one table, so that a test runs each of its checks on each kind and a
 * new kind is one more entry in xomap_kinds[].
 *
 * Every mapping is laid out the same way: a readable and writable page
 * (@before) directly below the execute-only range (@code), so that an
 * access can straddle from readable into execute-only memory.  Making one
 * takes two steps, so that the caller can fill and decode the code while
 * it is still readable: xomap_map() gives a writable range, xomap_protect()
 * makes it execute-only and checks the key smaps reports.
 */
#ifndef XONLY_XOMAP_H
#define XONLY_XOMAP_H

#include <stdbool.h>
#include <stddef.h>

struct xomap;
struct codemem;

struct xomap_kind {
	const char *name;	/* column of the results tables: "anon" */
	const char *what;	/* one line for TAP: how the mapping is made */
	size_t (*size)(void);	/* length of the execute-only range */
	size_t align;		/* alignment of @code (0: a page) */
	/* Map @code read-write; 1 = skip, -1 = error, reason in m->why. */
	int (*map)(struct xomap *m);
	/* Make @code execute-only and set m->pkey; same returns. */
	int (*protect)(struct xomap *m);
	/* The VMA carries the mm's execute-only key (mprotect(PROT_EXEC)). */
	bool xo_key;
	/* The VMA has VM_READ (only the key keeps loads out). */
	bool vm_read;
	/* The pages come from a file: MADV_DONTNEED refaults its contents, not zeros. */
	bool file_backed;
};

struct xomap {
	const struct xomap_kind *kind;
	char *code;		/* the execute-only range, kind->size() bytes */
	char *before;		/* one readable, writable page just below it */
	size_t len;
	int pkey;		/* the key loads fault with (smaps agrees) */
	int alloc_key;		/* a key this mapping allocated, or -1 */
	struct codemem *cm;	/* the "jit" kind's code memory, or NULL */
	int fd;			/* the "file" kind's file, or -1 */
	char *resv;		/* the whole reservation, for xomap_unmap() */
	size_t resv_len;
	char why[160];		/* why map/protect skipped or failed */
};

extern const struct xomap_kind xomap_kinds[];
extern const int xomap_nkinds;

/* Find a kind by name, NULL if there is none. */
const struct xomap_kind *xomap_kind(const char *name);
/* Step 1: @m->code is mapped read-write (0), or skip (1) / error (-1). */
int xomap_map(const struct xomap_kind *k, struct xomap *m);
/* Step 2: @m->code becomes execute-only, @m->pkey its key. */
int xomap_protect(struct xomap *m);
void xomap_unmap(struct xomap *m);

#endif
