/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/cachewrite.h - the writer of the plan cache (run/plancache.h):
 * `xoload --update-cache [PATH...]`, run by root.
 */
#ifndef XOLOADER_TOOLS_CACHEWRITE_H
#define XOLOADER_TOOLS_CACHEWRITE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Prune the stale and damaged entries of cache directory @dir (created if
 * missing), plan again the files still at the paths of the stale ones and
 * of those of another planner (a library or xoload upgraded: what
 * `--update-cache` without a PATH, the Debian package's trigger, is for),
 * then plan each of @paths (a directory: each ELF file directly in it)
 * and write its entry.  Files changed less than XOC_MARGIN_NS
 * ago are waited for (@wait) or left out.  @owner is the owner entries
 * and the directory chain must have: 0 (xoplan refuses to run this as
 * anyone else); the host tests pass their own uid.  Returns the exit
 * status: 0, or 1 when the directory is unusable, a write failed, or a
 * file named in @paths was not cached (each with one line on stderr).
 */
int cache_update(const char *dir, char *const *paths, int npaths, bool wait, uint32_t owner);

#endif
