/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/cachewrite.h - the writer of the plan cache (run/plancache.h):
 * `xoload --update-cache [PATH...]`, run by root.
 */
#ifndef XOLOADER_TOOLS_CACHEWRITE_H
#define XOLOADER_TOOLS_CACHEWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../run/plancache.h"

/*
 * The rule the entries are planned with.  The FDE rule's is rtplan_build(),
 * the run path's own; the proven-code rule's (tools/provenwrite.c) needs a
 * decoder and libelf, so only xoplan-proven links it.  An object whose
 * plan under @rule is the FDE rule's plan, range for range, gets an entry
 * of the FDE rule: the cache then says which objects the proven rule
 * changes, and those entries outlive a change of its planner.
 */
struct cache_planner {
	enum xoc_rule rule;
	int (*plan)(int fd, size_t pagesz, struct plan *p);	/* 0, or -1 with p->err set */
};

/*
 * The net pages of proven plan @p against the FDE rule's plan @fde of the
 * same file (run/plancache.h): each page execute-only in @p and readable
 * in @fde, merged into ranges.  0, or -1 if they need more than
 * XOC_NET_MAX ranges.
 */
int xoc_net_pages(const struct plan *p, const struct plan *fde, size_t pagesz, struct xoc_net *net);
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
int cache_update(const char *dir, char *const *paths, int npaths, bool wait, uint32_t owner,
		 const struct cache_planner *pl);
/*
 * `xoload --update-cache [--rule=proven] [--no-wait] [PATH...]`: refuses
 * anyone but root (one line, status 1), then cache_update() of
 * XOLOAD_CACHE_DIR or XOC_DIR with @pl (NULL: the FDE rule).
 */
int cache_update_cmd(int npaths, char **paths, bool wait, const struct cache_planner *pl);

#endif
