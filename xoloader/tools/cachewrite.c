// SPDX-License-Identifier: GPL-2.0
/*
 * tools/cachewrite.c - `xoload --update-cache`: plan files and write their
 * plan cache entries (run/plancache.h), atomically: a temporary file in
 * the cache directory, fsync, rename, fsync of the directory.  An entry is
 * written only for a file that only root can change and that was last
 * changed more than XOC_MARGIN_NS before planning started, and only if
 * fstat() of the planned descriptor says the same after planning as
 * before: a later change then always gives the file another ctime, and
 * the reader's identity check turns the entry into a miss.
 *
 * A write through a shared mapping whose pages are already dirty changes
 * neither mtime nor ctime until writeback (on tmpfs, never), so an owner
 * and a mode are not enough: the file is planned under a read lease
 * (F_SETLEASE), which the kernel refuses while anyone has the file open
 * for writing, mappings included, and breaks when anyone opens it so
 * later; a lease that is gone by the end of planning means no entry.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "../run/plancache.h"
#include "../run/rtplan.h"
#include "cachewrite.h"

struct counts { unsigned written, current, skipped, unplannable, pruned, refreshed, same; int status; };

/* The paths of the entries prune() removed while a file is still there: planned again. */
struct again { char **path; size_t n, cap; };

static unsigned char entry[XOC_MAX_ENTRY], old[XOC_MAX_ENTRY], fde_entry[XOC_MAX_ENTRY];
static struct plan plan, fde_plan;
static struct xoc_net net;
static const struct cache_planner fde_rule = { XOC_RULE_FDE, rtplan_build };

static void skip(const char *path, const char *why)
{
	fprintf(stderr, "xoload: plan cache: %s: not cached: %s\n", path, why);
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t newest_change(const struct xoc_id *id)
{
	int64_t m = id->mtime_sec * 1000000000 + id->mtime_nsec, c = id->ctime_sec * 1000000000 + id->ctime_nsec;

	return m > c ? m : c;
}

static bool same_id(const struct xoc_id *a, const struct xoc_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_sec == b->mtime_sec &&
	       a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec &&
	       a->mode == b->mode && a->uid == b->uid;
}

/* The whole of a small file (an entry) into @buf: its size, or -1. */
static ssize_t read_entry(const char *name, unsigned char *buf)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size <= XOC_MAX_ENTRY)
		n = pread(fd, buf, (size_t)st.st_size, 0);
	close(fd);
	return n;
}

/* Whether page @a is execute-only in @p (sorted ranges; @i: where the last look ended). */
static bool page_xo(const struct plan *p, uint64_t a, int *i)
{
	while (*i < p->n && p->r[*i].end <= a)
		(*i)++;
	return *i < p->n && p->r[*i].start <= a && p->r[*i].xo;
}

int xoc_net_pages(const struct plan *p, const struct plan *fde, size_t pagesz, struct xoc_net *net)
{
	uint64_t a;
	int i, k = 0;

	net->n = 0;
	for (i = 0; i < p->n; i++) {
		if (!p->r[i].xo)
			continue;
		for (a = p->r[i].start; a < p->r[i].end; a += pagesz) {
			if (page_xo(fde, a, &k))
				continue;
			if (net->n && net->r[net->n - 1].end == a) {
				net->r[net->n - 1].end = a + pagesz;
				continue;
			}
			if (net->n == XOC_NET_MAX)
				return -1;
			net->r[net->n].start = a;
			net->r[net->n++].end = a + pagesz;
		}
	}
	return 0;
}

/* Write @len bytes of @buf as @dir/@name, atomically; 0 or -1 (one line said why). */
static int write_atomic(const char *dir, const char *name, const void *buf, size_t len)
{
	char tmp[PATH_MAX];
	int fd, dfd, ok;

	snprintf(tmp, sizeof(tmp), "%s/.tmp.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "xoload: plan cache: %s: cannot create a file: %s\n", dir, strerror(errno));
		return -1;
	}
	ok = fchmod(fd, 0644) == 0 && write(fd, buf, len) == (ssize_t)len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, name)) {
		fprintf(stderr, "xoload: plan cache: %s: cannot write it: %s\n", name, strerror(errno));
		unlink(tmp);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/*
 * Open @path for reading only if it is a regular file: an O_PATH look
 * first, so that root never opens a device a user's symlink names (a tty,
 * a tape), then the same inode again through /proc.  -2: not a regular file.
 */
static int open_regular(const char *path)
{
	char again[64];
	struct stat st;
	int pfd = open(path, O_PATH | O_CLOEXEC), fd;

	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode)) {
		close(pfd);
		return -2;
	}
	snprintf(again, sizeof(again), "/proc/self/fd/%d", pfd);
	fd = open(again, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	close(pfd);
	return fd;
}

/* An entry's name (DEV-INO in hex) or an interrupted write's (.tmp.*): what prune() may remove. */
static bool ours(const char *name)
{
	size_t h = strspn(name, "0123456789abcdef");

	if (!strncmp(name, ".tmp.", 5))
		return true;
	return h > 0 && name[h] == '-' && name[h + 1] && !name[h + 1 + strspn(name + h + 1, "0123456789abcdef")];
}

/*
 * Plan one file and write its entry.  @named: given on the command line
 * (not cached is then an error), else found in a directory (not an ELF
 * file is then no news).
 */
static void update_one(const char *dir, const char *path, bool named, bool wait, uint32_t owner,
		       const struct cache_planner *pl, struct counts *c)
{
	char name[PATH_MAX + 64];
	struct xoc_id id, id2;
	const struct plan *bad;
	bool same = false;	/* under another rule: its plan is the FDE rule's */
	unsigned char magic[4];
	const char *why;
	int64_t start, age;
	size_t len;
	ssize_t n;
	int fd = open_regular(path);

	if (fd == -2) {
		if (named) {
			skip(path, "not a regular file");
			goto not_cached;
		}
		return;
	}
	if (fd < 0) {
		skip(path, strerror(errno));
		goto not_cached;
	}
	if (xoc_fstat(fd, &id) || (id.mode & S_IFMT) != S_IFREG || pread(fd, magic, 4, 0) != 4 ||
	    memcmp(magic, "\177ELF", 4)) {
		close(fd);
		if (named) {
			skip(path, "not an ELF file");
			goto not_cached;
		}
		return;
	}
	if (!xoc_trusted_file(&id, owner) || fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0) {
		skip(path, "others than root can change it (owner, mode or ACL)");
		goto close_not_cached;
	}
	age = realtime_ns() - newest_change(&id);
	if (age < 0) {
		skip(path, "its mtime or ctime is in the future");
		goto close_not_cached;
	}
	if (age < XOC_MARGIN_NS && wait) {
		struct timespec ts = { 0, 0 };
		int64_t left = XOC_MARGIN_NS - age + 10000000;

		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	/* The racy-git rule: only a file changed well before planning starts. */
	start = realtime_ns();
	if (xoc_fstat(fd, &id) || start - newest_change(&id) < XOC_MARGIN_NS) {
		skip(path, "changed less than 2 s before planning (run it again later)");
		goto close_not_cached;
	}
	/*
	 * An entry of this rule that is good for the file as it is (another
	 * path to it, a link) stays, unplanned.  Under another rule, an FDE
	 * rule's entry may be one where that rule changed nothing, or not:
	 * planned again.
	 */
	n = xoc_name(name, sizeof(name), dir, &id) ? read_entry(name, old) : -1;
	if (n > 0 && !xoc_decode(old, (size_t)n, &id, 4096, NULL, NULL, &why) && xoc_entry_rule(old) == pl->rule) {
		close(fd);
		c->current++;
		return;
	}
	/* No writer now, none during planning: see the top of this file. */
	if (fcntl(fd, F_SETLEASE, F_RDLCK)) {
		skip(path, errno == EAGAIN ? "open for writing (a writer or a shared writable mapping)"
					   : "no read lease on its filesystem");
		goto close_not_cached;
	}
	bad = pl->plan(fd, 4096, &plan) ? &plan : NULL;
	if (!bad && pl->rule != XOC_RULE_FDE && rtplan_build(fd, 4096, &fde_plan))
		bad = &fde_plan;
	if (bad) {
		if (named)
			fprintf(stderr, "xoload: plan cache: %s: not cached: cannot be planned: %s\n", path, bad->err);
		c->unplannable++;
		close(fd);
		return;
	}
	if (xoc_fstat(fd, &id2) || !same_id(&id, &id2) || fcntl(fd, F_GETLEASE) != F_RDLCK) {
		skip(path, "changed or opened for writing while it was planned");
		goto close_not_cached;
	}
	close(fd);
	net.n = 0;
	len = xoc_encode(entry, &id, path, 4096, XOC_RULE_FDE, &plan, NULL);
	if (len && pl->rule != XOC_RULE_FDE) {
		/* Canonical encodings: equal bytes are equal plans. */
		size_t flen = xoc_encode(fde_entry, &id, path, 4096, XOC_RULE_FDE, &fde_plan, NULL);

		/* The net pages: execute-only here, readable under the FDE rule. */
		if (xoc_net_pages(&plan, &fde_plan, 4096, &net)) {
			skip(path, "too many ranges of pages only the proven rule makes execute-only");
			goto not_cached;
		}
		if (flen != len || memcmp(entry, fde_entry, len))
			len = xoc_encode(entry, &id, path, 4096, pl->rule, &plan, &net);
		else
			same = true;
	}
	if (!len || !xoc_name(name, sizeof(name), dir, &id)) {
		skip(path, "its path is too long");
		goto not_cached;
	}
	/*
	 * Planned again (under another rule), the same plan as the entry's,
	 * maybe planned as another name of the file (a link): it stays.
	 */
	if (n > 0 && !xoc_decode(old, (size_t)n, &id, 4096, NULL, NULL, &why) &&
	    xoc_encode(fde_entry, &id, xoc_entry_path(old), 4096, same ? XOC_RULE_FDE : pl->rule, &plan,
		       same ? NULL : &net) == (size_t)n &&
	    !memcmp(old, fde_entry, (size_t)n)) {
		c->current++;
		return;
	}
	if (write_atomic(dir, name, entry, len)) {
		c->status = 1;
		return;
	}
	c->written++;
	c->same += same;
	return;
close_not_cached:
	close(fd);
not_cached:
	c->skipped++;
	if (named)
		c->status = 1;
}

/* Remember @path (once) to be planned again; false if out of memory. */
static bool plan_again(struct again *a, const char *path)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(a->path[i], path))
			return true;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		char **p = realloc(a->path, cap * sizeof(*p));

		if (!p)
			return false;
		a->path = p, a->cap = cap;
	}
	return (a->path[a->n] = strdup(path)) && ++a->n;
}

/*
 * The path in a whole entry of format version 1 (before the net pages:
 * a 136-byte header, no net ranges), or NULL: after an upgrade of xoload
 * its files are planned again, as those of another planner are.  Only
 * the layout is checked: the path is only planned again, as any path.
 */
static const char *v1_entry_path(const unsigned char *e, size_t len)
{
	const struct xoc_head *h = (const struct xoc_head *)e;
	uint32_t nranges, pathlen;
	uint64_t total;
	size_t at;

	if (len < 136 || memcmp(h->magic, XOC_MAGIC, sizeof(h->magic)) || h->version != 1 || h->head_size != 136)
		return NULL;
	memcpy(&nranges, e + 108, 4);
	memcpy(&pathlen, e + 116, 4);
	memcpy(&total, e + 120, 8);
	at = 136 + (size_t)nranges * sizeof(struct xoc_range);
	if (nranges > PLAN_MAX_RANGES || pathlen < 2 || pathlen > XOC_PATH_MAX || total != len ||
	    at + pathlen != len || e[len - 1] || strlen((const char *)e + at) != pathlen - 1)
		return NULL;
	return (const char *)e + at;
}

/*
 * Remove every entry that is damaged, of another planner, or whose file
 * is gone or changed.  The path of an entry that is whole (of this
 * planner or another) and whose path still names something goes into
 * @again: a library upgraded in place, or every file after an upgrade of
 * the planner, is planned anew, so the cache keeps what it had.
 */
static void prune(const char *dir, struct counts *c, struct again *again)
{
	char name[PATH_MAX + 64], want[PATH_MAX + 64];
	DIR *d = opendir(dir);
	struct dirent *e;
	const char *why;

	while (d && (e = readdir(d))) {
		struct xoc_id id;
		ssize_t n;
		int fd = -1;
		bool keep = false;

		if (!ours(e->d_name))	/* not ours: a wrong XOLOAD_CACHE_DIR loses nothing */
			continue;
		snprintf(name, sizeof(name), "%s/%s", dir, e->d_name);
		n = e->d_name[0] == '.' ? -1 : read_entry(name, entry);	/* .tmp.*: an interrupted write */
		if (n > 0 && !xoc_check_frame(entry, (size_t)n, &why))
			fd = open(xoc_entry_path(entry), O_PATH | O_CLOEXEC);	/* only its identity */
		else if (n > 0 && v1_entry_path(entry, (size_t)n) && !plan_again(again, v1_entry_path(entry, (size_t)n)))
			c->status = 1;	/* out of memory: pruned, not planned again */
		if (fd >= 0) {
			keep = !xoc_fstat(fd, &id) && xoc_name(want, sizeof(want), dir, &id) &&
			       !strcmp(want, name) && !xoc_decode(entry, (size_t)n, &id, 4096, NULL, NULL, &why);
			close(fd);
			if (!keep && !plan_again(again, xoc_entry_path(entry))) {
				fprintf(stderr, "xoload: plan cache: %s: not planned again: out of memory\n",
					xoc_entry_path(entry));
				c->status = 1;
			}
		}
		if (!keep && !unlink(name))
			c->pruned++;
	}
	if (d)
		closedir(d);
}

/*
 * mkdir -p @dir (absolute), each new directory root's and 0755, without
 * following a symbolic link: a walk of mkdirat() and openat(O_NOFOLLOW)
 * from /, so that a link planted in the path (by whoever can write a
 * directory on it) cannot make root create directories elsewhere.  0, or
 * -1 with errno set (ELOOP: a symbolic link).  The rest of the update
 * still names the directory by its path: xoc_check_dir() then refuses a
 * chain with a link in it (lstat), and the lock is taken after that.
 */
static int make_dirs(const char *dir)
{
	char part[NAME_MAX + 1];
	const char *p = dir, *end;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next, err;
	struct stat st;
	bool made;

	while (fd >= 0) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		if ((size_t)(end - p) > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, p, (size_t)(end - p));
		part[end - p] = 0;
		p = end;
		made = mkdirat(fd, part, 0755) == 0;
		if (!made && errno != EEXIST)
			next = -1;
		else
			next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next >= 0 && made)
			fchmod(next, 0755);	/* whatever the umask */
		else if (next < 0 && errno == ENOTDIR && !fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) &&
			 S_ISLNK(st.st_mode))
			errno = ELOOP;	/* O_DIRECTORY answers ENOTDIR first */
		err = errno;
		close(fd);
		errno = err;
		fd = next;
	}
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int cache_update(const char *dir, char *const *paths, int npaths, bool wait, uint32_t owner,
		 const struct cache_planner *pl)
{
	struct counts c = { 0, 0, 0, 0, 0, 0, 0, 0 };
	struct again again = { NULL, 0, 0 };
	const char *why;
	size_t k;
	int i, lock;

	/* Before anything is created: xoc_check_dir() would refuse it after. */
	if (dir[0] != '/') {
		fprintf(stderr, "xoload: plan cache: %s: the cache directory is not an absolute path\n", dir);
		return 1;
	}
	if (make_dirs(dir)) {
		fprintf(stderr, "xoload: plan cache: %s: cannot create it: %s\n", dir,
			errno == ELOOP ? "a symbolic link in its path" : strerror(errno));
		return 1;
	}
	if (xoc_check_dir(dir, owner, &why)) {
		fprintf(stderr, "xoload: plan cache: %s: %s\n", dir, why);
		return 1;
	}
	/* One writer at a time: prune() would take another's .tmp.* for a dead one's. */
	lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX)) {
		fprintf(stderr, "xoload: plan cache: %s: cannot lock it: %s\n", dir, strerror(errno));
		return 1;
	}
	/* A lease being broken is signalled (SIGIO, fatal by default): the lease check sees it. */
	signal(SIGIO, SIG_IGN);
	prune(dir, &c, &again);
	for (k = 0; k < again.n; k++) {
		unsigned before = c.written;

		update_one(dir, again.path[k], false, wait, owner, pl ? pl : &fde_rule, &c);
		c.refreshed += c.written - before;
		free(again.path[k]);
	}
	free(again.path);
	for (i = 0; i < npaths; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(paths[i], &st) || !S_ISDIR(st.st_mode)) {
			update_one(dir, paths[i], true, wait, owner, pl ? pl : &fde_rule, &c);
			continue;
		}
		d = opendir(paths[i]);
		while (d && (e = readdir(d))) {
			char p[PATH_MAX];

			if (e->d_name[0] == '.' ||
			    snprintf(p, sizeof(p), "%s/%s", paths[i], e->d_name) >= (int)sizeof(p))
				continue;
			update_one(dir, p, false, wait, owner, pl ? pl : &fde_rule, &c);
		}
		if (d)
			closedir(d);
	}
	printf("xoload: plan cache %s: %u written, %u current, %u not cached, %u not plannable, %u pruned, "
	       "%u planned again", dir, c.written, c.current, c.skipped, c.unplannable, c.pruned, c.refreshed);
	if (pl && pl->rule != XOC_RULE_FDE)
		printf("; %s rule: %u of the written are the FDE rule's plan (entries of the FDE rule)",
		       xoc_rule_name[pl->rule], c.same);
	putchar('\n');
	close(lock);
	return c.status;
}

int cache_update_cmd(int npaths, char **paths, bool wait, const struct cache_planner *pl)
{
	const char *dir = getenv(XOC_DIR_ENV);

	if (!dir || !*dir)
		dir = XOC_DIR;
	if (geteuid() != 0) {
		fprintf(stderr, "xoload: --update-cache: only root writes the plan cache (%s): "
			"xoload uses no entry that root did not write\n", dir);
		return 1;
	}
	return cache_update(dir, paths, npaths, wait, 0, pl);
}
