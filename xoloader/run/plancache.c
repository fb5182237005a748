// SPDX-License-Identifier: GPL-2.0
/*
 * run/plancache.c - the plan cache's format and its reader (plancache.h),
 * freestanding: xoload and xoaudit.so look plans up with raw system calls.
 * The writer is tools/cachewrite.c (a libc program, run by root).
 *
 * Why an entry can be trusted: it is root's, in a directory chain only
 * root can write, and the file it describes is one only root can change
 * (its owner is root and it is not group- or other-writable, checked
 * again at every lookup).  Why it cannot be stale: it is used only if the
 * file's device, inode, size, mtime and ctime now are those it was
 * planned with; ctime cannot be set from user space, and the writer
 * caches no file changed within XOC_MARGIN_NS of planning, so every later
 * change moves ctime past the recorded one.  A damaged entry is a miss.
 */
#include "../rule/str.h"
#include "fmt.h"
#include "plancache.h"
#include "report.h"
#include "rtplan.h"
#include "sys.h"

#define RT_O_NOFOLLOW	0400000

const char *const xoc_rule_name[XOC_NRULES] = { "fde", "proven" };
static const char *const rule_id[XOC_NRULES] = { XO_RULE_ID, XO_PROVEN_RULE_ID };

static uint64_t fnv1a(const unsigned char *b, size_t n, uint64_t h)
{
	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

uint64_t xoc_sum(const void *e, size_t len)
{
	const unsigned char *b = e;
	static const unsigned char zero[8];
	size_t at = __builtin_offsetof(struct xoc_head, sum);
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv1a(b, at, h);
	h = fnv1a(zero, sizeof(zero), h);
	return fnv1a(b + at + 8, len - at - 8, h);
}

static void id_from_stat(const uint64_t st[18], struct xoc_id *id)
{
	/* struct stat on x86-64: dev 0, ino 8, mode/uid 24, size 48, mtime 88, ctime 104. */
	id->dev = st[0];
	id->ino = st[1];
	id->mode = (uint32_t)st[3];
	id->uid = (uint32_t)(st[3] >> 32);
	id->size = st[6];
	id->mtime_sec = (int64_t)st[11];
	id->mtime_nsec = (int64_t)st[12];
	id->ctime_sec = (int64_t)st[13];
	id->ctime_nsec = (int64_t)st[14];
	id->nlink_unused = 0;
}

long xoc_fstat(int fd, struct xoc_id *id)
{
	uint64_t st[18];
	long r = rt_syscall(RT_NR_fstat, fd, st, 0);

	if (r == 0)
		id_from_stat(st, id);
	return r;
}

bool xoc_trusted_file(const struct xoc_id *id, uint32_t uid)
{
	return (id->mode & RT_S_IFMT) == RT_S_IFREG && (id->uid == 0 || id->uid == uid) && !(id->mode & 022);
}

static size_t put_hex(char *o, uint64_t v)
{
	char t[16];
	size_t n = 0, k;

	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (k = 0; k < n; k++)
		o[k] = t[n - 1 - k];
	return n;
}

bool xoc_name(char *out, size_t len, const char *dir, const struct xoc_id *id)
{
	size_t n = rt_strlen(dir);

	if (n + 1 + 16 + 1 + 16 + 1 > len)
		return false;
	rt_strlcpy(out, dir, len);
	out[n++] = '/';
	n += put_hex(out + n, id->dev);
	out[n++] = '-';
	n += put_hex(out + n, id->ino);
	out[n] = 0;
	return true;
}

/* Within execute-only ranges of @p, which are sorted: [@s, @e) covered by consecutive ones. */
static bool inside_xo(const struct plan *p, uint64_t s, uint64_t e)
{
	int i;

	for (i = 0; i < p->n && s < e; i++) {
		if (p->r[i].end <= s)
			continue;
		if (!p->r[i].xo || p->r[i].start > s)
			return false;
		s = p->r[i].end;
	}
	return s >= e;
}

bool xoc_net_fits(const struct xoc_net *net, const struct plan *p, size_t pagesz)
{
	uint64_t prev = 0;
	int i;

	if (net->n < 0 || net->n > XOC_NET_MAX)
		return false;
	for (i = 0; i < net->n; i++) {
		const struct xoc_netrange *x = &net->r[i];

		/* Merged: a range starts past the end of the one before (not at it). */
		if (x->start % pagesz || x->end % pagesz || x->start >= x->end || (i && x->start <= prev) ||
		    !inside_xo(p, x->start, x->end))
			return false;
		prev = x->end;
	}
	return true;
}

size_t xoc_encode(void *buf, const struct xoc_id *id, const char *path, size_t pagesz, enum xoc_rule rule,
		  const struct plan *p, const struct xoc_net *net)
{
	struct xoc_head *h = buf;
	struct xoc_range *r = (struct xoc_range *)(h + 1);
	struct xoc_netrange *nr;
	size_t pathlen = rt_strlen(path) + 1, total, nnet = net ? (size_t)net->n : 0;
	char *pp;
	int i;

	if (p->n < 0 || p->n > PLAN_MAX_RANGES || pathlen > XOC_PATH_MAX || (unsigned int)rule >= XOC_NRULES)
		return 0;
	/* The FDE rule's entries never carry net pages: nothing only the proven rule made execute-only. */
	if (net && (!xoc_net_fits(net, p, pagesz) || (rule == XOC_RULE_FDE && net->n)))
		return 0;
	total = sizeof(*h) + (size_t)p->n * sizeof(*r) + nnet * sizeof(*nr) + pathlen;
	rt_memzero(buf, total);
	rt_strlcpy(h->magic, XOC_MAGIC, sizeof(h->magic));
	h->version = XOC_VERSION;
	h->head_size = sizeof(*h);
	rt_strlcpy(h->rule, rule_id[rule], sizeof(h->rule));
	h->dev = id->dev;
	h->ino = id->ino;
	h->size = id->size;
	h->mtime_sec = id->mtime_sec;
	h->mtime_nsec = id->mtime_nsec;
	h->ctime_sec = id->ctime_sec;
	h->ctime_nsec = id->ctime_nsec;
	h->pagesz = (uint32_t)pagesz;
	h->nranges = (uint32_t)p->n;
	h->textrel = p->textrel;
	h->pathlen = (uint32_t)pathlen;
	h->nnet = (uint32_t)nnet;
	h->total = total;
	for (i = 0; i < p->n; i++) {
		r[i].start = p->r[i].start;
		r[i].end = p->r[i].end;
		r[i].soff = p->r[i].soff;
		r[i].ssize = p->r[i].ssize;
		r[i].xo = p->r[i].xo;
		rt_strlcpy(r[i].why, p->r[i].why, sizeof(r[i].why));
		rt_strlcpy(r[i].sect, p->r[i].sect, sizeof(r[i].sect));
	}
	nr = (struct xoc_netrange *)(r + p->n);
	for (i = 0; i < (int)nnet; i++)
		nr[i] = net->r[i];
	pp = (char *)(nr + nnet);
	rt_strlcpy(pp, path, pathlen);
	h->sum = xoc_sum(buf, total);
	return total;
}

/* A string field that ends with NUL and has only NULs after it (canonical). */
static bool padded_string(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n])
		n++;
	if (n == len)
		return false;
	while (n < len)
		if (s[n++])
			return false;
	return true;
}

/* The length of the string at @s, at most @max. */
static size_t rt_strlen_n(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	while (n--)
		if (*b++)
			return false;
	return true;
}

static int bad(const char **why, const char *msg)
{
	*why = msg;
	return -1;
}

int xoc_check_frame(const void *buf, size_t len, const char **why)
{
	const struct xoc_head *h = buf;
	const struct xoc_range *r = (const struct xoc_range *)(h + 1);

	/* Magic and version first: an older format's header has another size. */
	if (len < 16 || len > XOC_MAX_ENTRY)
		return bad(why, len < 16 ? "damaged entry (truncated)" : "damaged entry (too large)");
	if (rt_memcmp(h->magic, XOC_MAGIC, sizeof(h->magic)))
		return bad(why, "damaged entry (not a plan cache entry)");
	if (h->version != XOC_VERSION)
		return bad(why, "entry of another format version");
	if (len < sizeof(*h))
		return bad(why, "damaged entry (truncated)");
	if (h->head_size != sizeof(*h))
		return bad(why, "damaged entry (not a plan cache entry)");
	if (h->total != len)
		return bad(why, "damaged entry (size)");
	if (h->sum != xoc_sum(buf, len))
		return bad(why, "damaged entry (checksum)");
	if (h->nranges > PLAN_MAX_RANGES || h->nnet > XOC_NET_MAX || h->pathlen == 0 || h->pathlen > XOC_PATH_MAX ||
	    len != sizeof(*h) + h->nranges * sizeof(*r) + h->nnet * sizeof(struct xoc_netrange) + h->pathlen)
		return bad(why, "damaged entry (counts)");
	/* Canonical: exactly what xoc_encode() writes for some plan, nothing else. */
	if (!padded_string(h->rule, sizeof(h->rule)) || h->textrel > 1 || h->pad ||
	    rt_strlen_n(xoc_entry_path(buf), h->pathlen) != h->pathlen - 1)
		return bad(why, "damaged entry (fields)");
	return 0;
}

int xoc_decode(const void *buf, size_t len, const struct xoc_id *id, size_t pagesz, struct plan *p,
	       struct xoc_net *net, const char **why)
{
	static struct plan scratch RT_PAGE_ALIGNED;	/* the net pages are checked against the plan: decoded somewhere */
	const struct xoc_head *h = buf;
	const struct xoc_range *r = (const struct xoc_range *)(h + 1);
	const struct xoc_netrange *nr;
	static struct xoc_net nscratch;
	uint64_t prev = 0;
	uint32_t i;

	if (xoc_check_frame(buf, len, why))
		return -1;
	/* Either rule's entry: the admin chose which (--update-cache [--rule=proven]). */
	if (rt_strcmp(h->rule, rule_id[XOC_RULE_FDE]) && rt_strcmp(h->rule, rule_id[XOC_RULE_PROVEN]))
		return bad(why, "entry of another planner (rule id)");
	if (h->pagesz != pagesz)
		return bad(why, "entry of another page size");
	for (i = 0; i < h->nranges; i++) {
		const struct xoc_range *x = &r[i];

		if (x->xo > 1 || !all_zero(x->pad, sizeof(x->pad)) || !padded_string(x->why, sizeof(x->why)) ||
		    !padded_string(x->sect, sizeof(x->sect)) || !x->why[0] ||
		    x->start % pagesz || x->end % pagesz || x->start >= x->end || (i && x->start < prev))
			return bad(why, "damaged entry (range)");
		prev = x->end;
	}
	if (id && (h->dev != id->dev || h->ino != id->ino || h->size != id->size ||
		   h->mtime_sec != id->mtime_sec || h->mtime_nsec != id->mtime_nsec ||
		   h->ctime_sec != id->ctime_sec || h->ctime_nsec != id->ctime_nsec))
		return bad(why, "stale entry (the file changed since it was planned)");
	if (rt_strcmp(h->rule, rule_id[XOC_RULE_FDE]) == 0 && h->nnet)
		return bad(why, "damaged entry (net pages in an FDE rule's entry)");
	if (!p)
		p = &scratch;
	if (!net)
		net = &nscratch;
	p->n = (int)h->nranges;
	p->textrel = h->textrel;
	p->err[0] = 0;
	for (i = 0; i < h->nranges; i++) {
		struct plan_range *d = &p->r[i];

		d->start = r[i].start;
		d->end = r[i].end;
		d->xo = r[i].xo;
		d->soff = r[i].soff;
		d->ssize = r[i].ssize;
		rt_strlcpy(d->why, r[i].why, sizeof(d->why));
		rt_strlcpy(d->sect, r[i].sect, sizeof(d->sect));
	}
	nr = (const struct xoc_netrange *)(r + h->nranges);
	net->n = (int)h->nnet;
	for (i = 0; i < h->nnet; i++)
		net->r[i] = nr[i];
	if (!xoc_net_fits(net, p, pagesz)) {
		net->n = 0;
		return bad(why, "damaged entry (net pages)");
	}
	return 0;
}

enum xoc_rule xoc_entry_rule(const void *buf)
{
	const struct xoc_head *h = buf;

	return rt_strcmp(h->rule, rule_id[XOC_RULE_FDE]) ? XOC_RULE_PROVEN : XOC_RULE_FDE;
}

const char *xoc_entry_path(const void *buf)
{
	const struct xoc_head *h = buf;

	return (const char *)((const struct xoc_netrange *)((const struct xoc_range *)(h + 1) + h->nranges) + h->nnet);
}

/*
 * lookup()'s entry bytes; before them, in its head, xoc_check_dir()'s
 * prefixes and then lookup()'s entry name, each dead before the next use
 * (the name once the entry is open): a run touches one page of .bss for
 * the three, not three.
 */
static unsigned char entry_buf[XOC_MAX_ENTRY] RT_PAGE_ALIGNED;
#define PATH_BUF_LEN	(XOC_PATH_MAX + 40)
_Static_assert(sizeof(entry_buf) >= PATH_BUF_LEN, "the entry buffer holds a path");
_Static_assert(sizeof(entry_buf) >= RT_PAGE_SIZE, "the entry buffer holds a page (xoc_scratch_page())");

unsigned char *xoc_scratch_page(void)
{
	return entry_buf;
}

int xoc_check_dir(const char *dir, uint32_t uid, const char **why)
{
	char *pre = (char *)entry_buf;
	size_t n = rt_strlen(dir), k;

	if (dir[0] != '/' || n >= XOC_PATH_MAX)
		return bad(why, "the cache directory is not an absolute path");
	/* "/", then each prefix that ends before a slash, then the whole. */
	for (k = 1; k <= n; k++) {
		uint64_t st[18];
		uint32_t mode, owner;

		if (k > 1 && k < n && dir[k] != '/')
			continue;
		if (k > 1 && dir[k - 1] == '/')
			continue;	/* "a//b", "a/": that prefix was checked */
		rt_strlcpy(pre, dir, k == 1 ? 2 : k + 1);
		if (rt_syscall(RT_NR_lstat, pre, st, 0))
			return bad(why, "no cache directory");
		mode = (uint32_t)st[3];
		owner = (uint32_t)(st[3] >> 32);
		if ((mode & RT_S_IFMT) != RT_S_IFDIR)
			return bad(why, "a part of the cache directory's path is not a directory");
		if ((owner != 0 && owner != uid) || (mode & 022))
			return bad(why, "the cache directory or one above it is writable by others than root: not used");
	}
	return 0;
}

/* --- the run path's lookup ------------------------------------------------ */

static const char *conf_dir = XOC_DIR;
/* The net pages' own buffer, for a caller that gives none (xoc_plan()). */
static struct xoc_net own_net;
static struct xoc_net *last_net RT_HOT = &own_net;
static RT_HOT bool conf_off, conf_verbose, last_hit;
static enum xoc_rule last_rule RT_HOT;
static uint32_t conf_uid RT_HOT;
static int dir_state RT_HOT;		/* 0 unchecked, 1 good, -1 bad (dir_why) */
static const char *dir_why RT_HOT;

void xoc_setup(const char *dir, bool off, bool verbose, uint32_t uid)
{
	conf_dir = dir && *dir ? dir : XOC_DIR;
	conf_off = off;
	conf_verbose = verbose;
	conf_uid = uid;
	dir_state = 0;
}

bool xoc_last_hit(void)
{
	return last_hit;
}

enum xoc_rule xoc_last_rule(void)
{
	return last_rule;
}

const struct xoc_net *xoc_last_net(void)
{
	return last_net;
}

/* 1: @p is the entry's plan; 0: a plain miss; -1: a miss to tell of (*why). */
static int lookup(int fd, size_t pagesz, struct plan *p, const char **why)
{
	unsigned char *buf = entry_buf;
	char *name = (char *)entry_buf;
	struct xoc_id id, eid;
	long efd, got;

	if (dir_state == 0) {
		dir_state = xoc_check_dir(conf_dir, conf_uid, &dir_why) ? -1 : 1;
		rt_step("cache dir", NULL);
	}
	if (dir_state < 0) {
		*why = dir_why;
		return 0;
	}
	if (xoc_fstat(fd, &id) || !xoc_name(name, PATH_BUF_LEN, conf_dir, &id)) {
		*why = "cannot fstat the file";
		return 0;
	}
	if (!xoc_trusted_file(&id, conf_uid)) {
		*why = "not cached: a file others than root can change";
		return 0;
	}
	rt_step("cache fstat", NULL);
	efd = rt_open(name, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NOFOLLOW | RT_O_NONBLOCK);
	rt_step("cache open", NULL);
	if (efd < 0) {
		*why = "no entry";
		return 0;
	}
	got = -1;
	if (xoc_fstat((int)efd, &eid))
		*why = "cannot fstat the entry";
	else if (!xoc_trusted_file(&eid, conf_uid))
		*why = "entry not root's, or writable by others: not used";
	else if (eid.size > sizeof(entry_buf))
		*why = "damaged entry (too large)";
	else if ((got = rt_pread((int)efd, buf, eid.size, 0)) != (long)eid.size) {
		*why = "damaged entry (short read)";
		got = -1;
	}
	rt_close((int)efd);
	rt_step("cache read", NULL);
	if (got < 0)
		return -1;
	if (xoc_decode(buf, (size_t)got, &id, pagesz, p, last_net, why)) {
		last_net->n = 0;
		return -1;
	}
	last_rule = xoc_entry_rule(buf);
	return 1;
}

static void say_lookup(const char *path, const char *what, const char *why)
{
	static char l[XOC_PATH_MAX + 200];
	int n = rt_fmt(l, sizeof(l), "xoload: plan cache: %s: %s%s%s\n", path, what, why ? ": " : "",
		       why ? why : "");

	if (n > 0)
		rt_write(2, l, (size_t)n < sizeof(l) ? (size_t)n : sizeof(l) - 1);
}

int xoc_plan(int fd, const char *path, size_t pagesz, struct plan *p, struct xoc_net *net, const char **note)
{
	const char *why = NULL;
	int r = 0;

	last_hit = false;
	last_rule = XOC_RULE_FDE;
	last_net = net ? net : &own_net;
	last_net->n = 0;
	if (note)
		*note = NULL;
	if (!conf_off)
		r = lookup(fd, pagesz, p, &why);
	if (r == 1) {
		last_hit = true;
		if (conf_verbose)	/* the default rule's line is as it always was */
			say_lookup(path, last_rule == XOC_RULE_FDE ? "hit" : "hit (proven rule)", NULL);
		return 0;
	}
	if (conf_verbose)
		say_lookup(path, "miss", conf_off ? "off" : why);
	if (r < 0 && note)
		*note = why;
	return rtplan_build(fd, pagesz, p);
}
