/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/plancache.h - the plan cache: a plan of an unchanged file is read,
 * not computed again (xoloader/README.md, "The plan cache").
 *
 * One file per planned object in a directory that only root can write
 * (default XOC_DIR), named by the object's device and inode
 * ("DEV-INO", hex).  An entry holds the identity of the file it was
 * planned from (device, inode, size, mtime and ctime in ns, all from
 * fstat() of the descriptor that was planned), the planner's rule id and
 * the plan.  A lookup is one open() and one pread(); it is a hit only if
 * the entry is root's and well formed and its identity is that of the
 * descriptor being planned now, else a miss, and a miss plans as if
 * there were no cache.  Only `xoload --update-cache` (tools/cachewrite.c)
 * writes entries, as root.
 *
 * Entry format, version 2 (x86-64 byte order; all of it covered by sum):
 *   struct xoc_head                  144 bytes
 *   struct xoc_range[nranges]        120 bytes each, strings NUL-padded
 *   struct xoc_netrange[nnet]        16 bytes each: the net pages (below)
 *   path[pathlen]                    the file's path when planned, NUL-ended
 *                                    (for pruning and messages only)
 * Version 1 had no net pages (nnet); its entries are misses ("entry of
 * another format version"), planned again by the next --update-cache.
 *
 * Net pages (issue 26 step 3, xoloader/README.md "The safety net"): the
 * execute-only pages of a proven-code rule's entry that the FDE rule
 * keeps readable - the pages only the proven rule made execute-only.  The
 * writer computes them offline (it plans the file with both rules); the
 * run path records them so that a read fault on one is reported and the
 * page made readable (run/net.c) instead of killing the program.  An FDE
 * rule's entry has none.  Canonical: sorted, page-aligned, merged (no two
 * touch), each inside execute-only ranges of the entry's plan.
 */
#ifndef XOLOADER_RUN_PLANCACHE_H
#define XOLOADER_RUN_PLANCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rule/plan.h"

#ifndef XOC_DIR
#define XOC_DIR			"/var/cache/xonly/plans"
#endif
#define XOC_DIR_ENV		"XOLOAD_CACHE_DIR"	/* another directory (checked the same way) */
#define XOC_OFF_ENV		"XOLOAD_NO_CACHE"	/* set (to anything): plan every object */
#define XOC_VERBOSE_ENV		"XOLOAD_CACHE_VERBOSE"	/* set: one line per lookup on stderr */

/*
 * The rules' identities: the Makefile hashes the sources a plan depends on
 * (rule/, run/rtplan.c for the FDE rule; those of tools/proven.c, its
 * decoder and the libelf planner for the proven-code rule, computed
 * offline by xoplan-proven, tools/provenwrite.c); an entry of any other
 * rule is a miss.  The run path never computes a proven plan: it only
 * reads one that root's `xoload --update-cache --rule=proven` wrote.
 */
#ifndef XO_RULE_ID
#define XO_RULE_ID		"unknown"
#endif
#ifndef XO_PROVEN_RULE_ID
#define XO_PROVEN_RULE_ID	"proven-unknown"
#endif
enum xoc_rule { XOC_RULE_FDE, XOC_RULE_PROVEN, XOC_NRULES };
/* "fde", "proven": for messages (--report, XOLOAD_CACHE_VERBOSE). */
extern const char *const xoc_rule_name[XOC_NRULES];

#define XOC_MAGIC		"XOPLANC"	/* 8 bytes with its NUL */
#define XOC_VERSION		2
#define XOC_PATH_MAX		4096
/*
 * Only files changed at least this long before planning are cached: a
 * file's ctime comes from a coarse clock (a jiffy, or a second on some
 * filesystems), so a change in the same tick as the last one would keep
 * the identity the entry was planned with ("racy git").
 */
#define XOC_MARGIN_NS		2000000000ll

/* What fstat() says of a file, as far as the cache cares. */
struct xoc_id {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint32_t mode, uid, nlink_unused;
};

struct xoc_head {
	char magic[8];
	uint32_t version, head_size;
	char rule[32];
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
	uint32_t pagesz, nranges, textrel, pathlen;
	uint32_t nnet, pad;	/* net ranges (struct xoc_netrange); pad 0 */
	uint64_t total;		/* the entry's size in bytes */
	uint64_t sum;		/* FNV-1a 64 of the entry with this field 0 */
};

struct xoc_range {
	uint64_t start, end, soff, ssize;
	uint8_t xo, pad[7];
	char why[48];
	char sect[32];
};

struct xoc_netrange {
	uint64_t start, end;	/* link-time addresses, page-aligned, as the plan's */
};

/* The net pages of one entry, decoded (none: n == 0). */
#define XOC_NET_MAX		PLAN_MAX_RANGES
struct xoc_net {
	int n;
	struct xoc_netrange r[XOC_NET_MAX];
};

#define XOC_MAX_ENTRY	(sizeof(struct xoc_head) + PLAN_MAX_RANGES * sizeof(struct xoc_range) + \
			 XOC_NET_MAX * sizeof(struct xoc_netrange) + XOC_PATH_MAX)

/* The identity of the file open on @fd; 0 or -errno. */
long xoc_fstat(int fd, struct xoc_id *id);
/* The entry's name for @id in @dir: "DIR/DEV-INO"; false if it does not fit. */
bool xoc_name(char *out, size_t len, const char *dir, const struct xoc_id *id);
/*
 * The entry for plan @p of rule @rule of the file of identity @id, planned
 * as @path, with net pages @net (NULL: none), into @buf (XOC_MAX_ENTRY
 * bytes): its size, 0 if it does not fit or @net is not canonical for @p
 * (or not empty for the FDE rule).  Canonical: the same plan gives the
 * same bytes.
 */
size_t xoc_encode(void *buf, const struct xoc_id *id, const char *path, size_t pagesz, enum xoc_rule rule,
		  const struct plan *p, const struct xoc_net *net);
/*
 * Decode entry @buf of @len bytes into @p and @net (either may be NULL):
 * 0, or -1 with @why set.  @id NULL: only well-formedness (the fuzzer's
 * and the pruner's use).
 */
int xoc_decode(const void *buf, size_t len, const struct xoc_id *id, size_t pagesz, struct plan *p,
	       struct xoc_net *net, const char **why);
/*
 * Whether @net is canonical for plan @p (sorted, page-aligned, merged,
 * inside execute-only ranges of @p): what xoc_encode() writes and
 * xoc_decode() accepts.
 */
bool xoc_net_fits(const struct xoc_net *net, const struct plan *p, size_t pagesz);
/*
 * The part of xoc_decode() that any entry of this format passes, whatever
 * its planner and page size: magic, version, size, checksum, counts and
 * strings; 0, or -1 with @why set.  Then xoc_entry_path() may be used
 * (the writer re-plans the file of an entry of an older planner).
 */
int xoc_check_frame(const void *buf, size_t len, const char **why);
/* The entry's checksum: FNV-1a 64 of its @len bytes, the sum field counted as 0. */
uint64_t xoc_sum(const void *e, size_t len);
/* The path stored in an entry that passed xoc_check_frame() (NUL-ended). */
const char *xoc_entry_path(const void *buf);
/* The rule of a decoded-ok entry. */
enum xoc_rule xoc_entry_rule(const void *buf);
/*
 * @dir and every directory above it are directories owned by root (or
 * by @uid) and writable by no one else: 0, or -1 with @why set.
 */
int xoc_check_dir(const char *dir, uint32_t uid, const char **why);
/* A file only root (or @uid) can change: regular, its owner, not group/other-writable. */
bool xoc_trusted_file(const struct xoc_id *id, uint32_t uid);

/*
 * The run path's lookup and plan: xoc_setup() once (NULL: the defaults,
 * XOC_DIR and caching on), then xoc_plan() in place of rtplan_build().
 * @uid is the owner an entry must have: 0, except in the host tests.
 */
void xoc_setup(const char *dir, bool off, bool verbose, uint32_t uid);
/*
 * Plan the file open on @fd (named @path in messages) from its entry if
 * there is a good one, else with rtplan_build().  *@note (may be NULL) is
 * NULL, or a line for --report: why an entry that exists was not used.
 * The entry's net pages go to @net, or to a buffer of its own if NULL
 * (the caller's: it may keep them where its plan is, one page for both).
 * Returns what rtplan_build() returns.
 */
int xoc_plan(int fd, const char *path, size_t pagesz, struct plan *p, struct xoc_net *net, const char **note);
/*
 * The first page of the buffer a lookup reads its entry into: free
 * between lookups, and written by every lookup that finds an entry, so
 * that a page read there mostly faults nothing new (sameobj.c's first
 * page of a file).
 */
unsigned char *xoc_scratch_page(void);
/* Whether the last xoc_plan() was a hit (tests, verbose). */
bool xoc_last_hit(void);
/* The rule of the last xoc_plan()'s hit; XOC_RULE_FDE after a miss (rtplan_build()). */
enum xoc_rule xoc_last_rule(void);
/* The net pages of the last xoc_plan()'s hit (in its @net); none after a miss or an FDE entry. */
const struct xoc_net *xoc_last_net(void);

#endif
