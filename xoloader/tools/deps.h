/* SPDX-License-Identifier: GPL-2.0 */
/*
 * deps.h - the library closure of an object as ld.so would resolve it,
 * read from the files alone (like ldd, without running anything): what
 * xoload --plan plans besides PROG and its interpreter.
 */
#ifndef XOLOADER_RUN_DEPS_H
#define XOLOADER_RUN_DEPS_H

#include <stddef.h>

#include "../run/load.h"

#define DEPS_MAX_NEEDED	256

/* The dynamic section's names of a validated image. */
struct dyninfo {
	char *strtab;		/* DT_STRSZ bytes + a NUL; malloc'd (NULL: none) */
	size_t needed[DEPS_MAX_NEEDED];	/* DT_NEEDED, offsets into strtab */
	int nneeded;
	const char *rpath, *runpath;	/* DT_RPATH, DT_RUNPATH, or NULL */
};

/*
 * Read @im's PT_DYNAMIC: 0 (an object without one has no names), or 126
 * with a one-line message in @err.
 */
int dyn_read(const struct image *im, struct dyninfo *d, char *err, size_t errlen);

/* A DT_RPATH and the directory of the object it belongs to ($ORIGIN). */
struct rpath { const char *origin, *path; };

/*
 * Find the library @name as ld.so does: a name with a '/' as it is; else
 * in the DT_RPATHs @rp[0..nrp) (the needing object's, then those of the
 * objects that loaded it: the caller leaves them out when the needing
 * object has a DT_RUNPATH), LD_LIBRARY_PATH, @runpath (with @origin),
 * /etc/ld.so.cache, the default directories.  $ORIGIN, $LIB and $PLATFORM
 * are expanded.  A candidate that is not a 64-bit x86-64 ELF file is
 * skipped, as ld.so skips it.  Returns 0 with the path in @out
 * (PATH_MAX bytes), or 127.
 */
int dep_find(const char *name, const struct rpath *rp, int nrp, const char *origin,
	     const char *runpath, char *out);

/* The directory of @path, resolved (for $ORIGIN), into @out (PATH_MAX). */
void dep_origin(const char *path, char *out);

/* A library search for PROG itself: a bare name that PATH does not have. */
int dep_find_lib(const char *name, char *out);

#endif
