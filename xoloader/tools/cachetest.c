// SPDX-License-Identifier: GPL-2.0
/*
 * tools/cachetest.c - xocachetest, the host tests' view of the plan cache
 * (run/plancache.c), through the run path's own lookup:
 *
 *   xocachetest compare DIR [-p] FILE...|-
 *       each FILE (or each line of stdin) must be a hit in DIR, and its
 *       cached plan byte-identical to what rtplan_build() computes now
 *       (both encoded with xoc_encode(), which is canonical); -p flips the
 *       execute-only bit of each cached plan's first range, so that the
 *       comparison is seen to fail.  Status 0 only with 0 differences and
 *       0 misses.
 *       Entries of the proven-code rule are compared by `dump` (below).
 *   xocachetest lookup DIR FILE
 *       "hit" (status 0) or "miss: WHY" (status 1)
 *   xocachetest dump DIR FILE...|-
 *       the plan of each FILE as the run path gets it (the entry's, or
 *       rtplan_build()'s on a miss) on stdout in --report=tsv's lines,
 *       and "FILE\thit|miss\tfde|proven" on stderr: tests/host/plancache_proven.sh
 *       compares it with xoproven --plan=tsv.  Status 0.
 *   xocachetest set-rule DIR FILE ID
 *       FILE's entry in DIR made an entry of rule id ID, its checksum
 *       made right again: a well-formed entry of an unknown planner.
 *   xocachetest set-version DIR FILE N
 *       the same with format version N; N 1: the entry rewritten as
 *       version 1 wrote it (no net pages, a shorter header).
 *   xocachetest net DIR FILE...|-
 *       the net pages of each FILE's entry as the lookup decodes them
 *       (run/plancache.h): "FILE\tSTART\tEND" (hex) per range.
 *   xocachetest forge-net DIR FILE ADDR
 *       a deliberately wrong proven entry for FILE: its FDE plan with the
 *       readable page at link-time address ADDR made execute-only as a
 *       net page (tests/xoload/net.sh, in the VM, as root).
 *   xocachetest fuzz [-n N] [-s SEED] [-i INDEX] DIR FILE...
 *       N mutants of the entries of the FILEs (bytes, lengths, header and
 *       range fields, identity; half of them with the checksum made right
 *       again, so that the checks behind it are reached) through
 *       xoc_decode(), every 8th also written to DIR and looked up as the run
 *       path does.  A mutant may be accepted only if it is canonical: what
 *       xoc_encode() writes for some plan of the file as it is now (same
 *       identity, rule, page size); without the checksum made right, only
 *       the file's own entry.  Anything else accepted, a lookup that
 *       disagrees with xoc_decode(), or a crash, is a failure.  (A
 *       well-formed entry of a wrong plan is a lie only root can write:
 *       the reader cannot tell it from the truth, the trust in root does.)
 *
 * Entries and DIR must belong to root or to the user running it (the uid
 * the lookup trusts is this process's: the run path's is always root).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../run/plancache.h"
#include "../run/report.h"
#include "../run/rtplan.h"

static unsigned char a[XOC_MAX_ENTRY + 8192], b[XOC_MAX_ENTRY + 8192];
static struct plan cached, fresh;
static struct xoc_net cnet, seednet;

static int usage(void)
{
	fputs("usage: xocachetest compare DIR [-p] FILE...|-\n"
	      "       xocachetest lookup DIR FILE\n"
	      "       xocachetest dump DIR FILE...|-\n"
	      "       xocachetest set-rule DIR FILE ID\n"
	      "       xocachetest set-version DIR FILE N\n"
	      "       xocachetest net DIR FILE...|-\n"
	      "       xocachetest forge-net DIR FILE ADDR\n"
	      "       xocachetest fuzz [-n N] [-s SEED] [-i INDEX] DIR FILE...\n", stderr);
	return 2;
}

/* 1 hit and identical, 0 miss, -1 difference, 2 not plannable; *why for a miss. */
static int compare_one(const char *path, bool perturb, const char **why)
{
	struct xoc_id id;
	size_t la, lb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = 0;

	*why = "cannot open it";
	if (fd < 0 || xoc_fstat(fd, &id))
		goto out;
	/* What the reader refuses is never cached: not a miss. */
	r = 2;
	if (rtplan_build(fd, 4096, &fresh))
		goto out;
	r = 0;
	*why = "cannot be planned";
	if (xoc_plan(fd, path, 4096, &cached, NULL, NULL))
		goto out;
	if (!xoc_last_hit()) {
		*why = "not a hit";
		goto out;
	}
	if (perturb && cached.n)
		cached.r[0].xo = !cached.r[0].xo;
	r = -1;
	*why = "differs from rtplan_build()'s plan";
	if (xoc_last_rule() != XOC_RULE_FDE) {
		*why = "an entry of the proven-code rule (compare it with dump)";
		goto out;
	}
	la = xoc_encode(a, &id, path, 4096, XOC_RULE_FDE, &cached, NULL);
	lb = xoc_encode(b, &id, path, 4096, XOC_RULE_FDE, &fresh, NULL);
	if (la && la == lb && !memcmp(a, b, la))
		r = 1;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* The next FILE of @argv[*@i...], "-" reading names from stdin; NULL at the end. */
static const char *next_file(int argc, char **argv, int *i, char *line, size_t len)
{
	if (*i < argc && strcmp(argv[*i], "-"))
		return argv[(*i)++];
	if (*i < argc && fgets(line, (int)len, stdin)) {
		line[strcspn(line, "\n")] = 0;
		return line;
	}
	return NULL;
}

static int compare(const char *dir, int argc, char **argv)
{
	unsigned long files = 0, hits = 0, misses = 0, diffs = 0, unplannable = 0;
	bool perturb = argc > 0 && !strcmp(argv[0], "-p");
	char line[PATH_MAX];
	const char *why, *path;
	int i = perturb;

	xoc_setup(dir, false, false, (uint32_t)geteuid());
	while ((path = next_file(argc, argv, &i, line, sizeof(line)))) {
		int r;

		files++;
		r = compare_one(path, perturb, &why);
		hits += r == 1;
		unplannable += r == 2;
		if (r == 0) {
			misses++;
			printf("MISS %s: %s\n", path, why);
		} else if (r < 0) {
			diffs++;
			printf("DIFF %s: %s\n", path, why);
		}
	}
	printf("%lu files, %lu hits identical to a fresh plan, %lu misses, %lu differences, %lu not plannable\n",
	       files, hits, misses, diffs, unplannable);
	return files && !misses && !diffs ? 0 : 1;
}

static int lookup(const char *dir, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	xoc_setup(dir, false, true, (uint32_t)geteuid());
	if (fd < 0 || xoc_plan(fd, path, 4096, &cached, NULL, NULL)) {
		printf("cannot plan %s\n", path);
		return 2;
	}
	close(fd);
	return xoc_last_hit() ? 0 : 1;
}

static int dump(const char *dir, int argc, char **argv)
{
	char line[PATH_MAX];
	const char *path;
	int i = 0;

	xoc_setup(dir, false, false, (uint32_t)geteuid());
	rt_report_fd = 1;
	while ((path = next_file(argc, argv, &i, line, sizeof(line)))) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd < 0 || xoc_plan(fd, path, 4096, &cached, NULL, NULL)) {
			fprintf(stderr, "%s\tunplannable\n", path);
		} else {
			rt_report_plan(path, &cached, 0, REPORT_TSV);
			fprintf(stderr, "%s\t%s\t%s\n", path, xoc_last_hit() ? "hit" : "miss",
				xoc_rule_name[xoc_last_rule()]);
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

/* FILE's entry in DIR: read into a[] (its length) with its name in @name; -1 if there is none. */
static ssize_t read_entry(const char *dir, const char *path, char *name, size_t len)
{
	struct xoc_id id;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), efd;

	if (fd < 0 || xoc_fstat(fd, &id) || !xoc_name(name, len, dir, &id))
		return -1;
	close(fd);
	efd = open(name, O_RDONLY | O_CLOEXEC);
	if (efd >= 0) {
		n = pread(efd, a, sizeof(a), 0);
		close(efd);
	}
	if (n < (ssize_t)sizeof(struct xoc_head)) {
		fprintf(stderr, "xocachetest: %s: no entry\n", name);
		return -1;
	}
	return n;
}

/*
 * The entry in a[] (@len bytes) rewritten in format version 1, as the
 * xoload before the net pages wrote it: the header without nnet and pad
 * (136 bytes), the ranges, no net ranges, the path; its checksum (at 128)
 * over that.  Its new length.
 */
static ssize_t to_v1(size_t len)
{
	struct xoc_head *h = (struct xoc_head *)a;
	size_t ranges = h->nranges * sizeof(struct xoc_range), path = h->pathlen, n = 136 + ranges + path, i;
	uint64_t total = n, sum = 0xcbf29ce484222325ull;

	(void)len;
	memcpy(b, a, 120);				/* magic ... pathlen */
	memcpy(b + 120, &total, 8);
	memset(b + 128, 0, 8);
	memcpy(b + 136, a + sizeof(*h), ranges);
	memcpy(b + 136 + ranges, xoc_entry_path(a), path);
	((struct xoc_head *)b)->version = 1;
	((struct xoc_head *)b)->head_size = 136;
	for (i = 0; i < n; i++)				/* FNV-1a 64, as xoc_sum() */
		sum = (sum ^ b[i]) * 0x100000001b3ull;
	memcpy(b + 128, &sum, 8);
	memcpy(a, b, n);
	return (ssize_t)n;
}

/* set-rule, set-version: one header field of FILE's entry changed, its checksum made right again. */
static int set_field(const char *dir, const char *path, const char *field, const char *val)
{
	struct xoc_head *h = (struct xoc_head *)a;
	char name[PATH_MAX + 64];
	ssize_t n = read_entry(dir, path, name, sizeof(name));
	int efd;

	if (n < 0)
		return 2;
	if (!strcmp(field, "rule")) {
		if (strlen(val) >= sizeof(h->rule))
			return 2;
		memset(h->rule, 0, sizeof(h->rule));
		memcpy(h->rule, val, strlen(val));
	} else if (!strcmp(val, "1")) {
		n = to_v1((size_t)n);
	} else {
		h->version = (uint32_t)strtoul(val, NULL, 0);
	}
	if (strcmp(field, "version") || strcmp(val, "1"))
		h->sum = xoc_sum(a, (size_t)n);
	efd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (efd < 0 || pwrite(efd, a, (size_t)n, 0) != n || close(efd))
		return 2;
	return 0;
}

/* net: the net pages of each FILE as the run path's lookup gets them, "FILE\tSTART\tEND" (hex). */
static int net(const char *dir, int argc, char **argv)
{
	char line[PATH_MAX];
	const char *path;
	int i = 0, k;

	xoc_setup(dir, false, false, (uint32_t)geteuid());
	while ((path = next_file(argc, argv, &i, line, sizeof(line)))) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (fd >= 0 && !xoc_plan(fd, path, 4096, &cached, NULL, NULL))
			for (k = 0; k < xoc_last_net()->n; k++)
				printf("%s\t%#lx\t%#lx\n", path, (unsigned long)xoc_last_net()->r[k].start,
				       (unsigned long)xoc_last_net()->r[k].end);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

/*
 * forge-net DIR FILE ADDR: a deliberately wrong plan (the safety net's
 * guest test): FILE's FDE plan with the readable page that holds ADDR
 * (a link-time address) made execute-only, as a net page, written as
 * FILE's entry of the proven rule into DIR - what the proven planner
 * would write had it wrongly proven that page code.  Status 0, or 2.
 */
static int forge_net(const char *dir, const char *path, const char *addr)
{
	uint64_t pg = strtoull(addr, NULL, 0) & ~4095ull;
	char name[PATH_MAX + 64];
	struct xoc_id id;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), i, k = 0, efd;

	if (fd < 0 || xoc_fstat(fd, &id) || rtplan_build(fd, 4096, &fresh) || !xoc_name(name, sizeof(name), dir, &id)) {
		fprintf(stderr, "xocachetest: %s: cannot plan it\n", path);
		return 2;
	}
	close(fd);
	cached.n = 0;
	cached.textrel = fresh.textrel;
	for (i = 0; i < fresh.n && cached.n + 3 <= PLAN_MAX_RANGES; i++) {
		struct plan_range r = fresh.r[i];

		if (r.xo || pg < r.start || pg >= r.end) {
			cached.r[cached.n++] = r;
			continue;
		}
		if (pg > r.start) {
			cached.r[cached.n] = r;
			cached.r[cached.n++].end = pg;
		}
		memset(&cached.r[cached.n], 0, sizeof(cached.r[0]));
		cached.r[cached.n].start = pg;
		cached.r[cached.n].end = pg + 4096;
		cached.r[cached.n].xo = true;
		strcpy(cached.r[cached.n++].why, "code");
		if (pg + 4096 < r.end) {
			cached.r[cached.n] = r;
			cached.r[cached.n++].start = pg + 4096;
		}
		k++;
	}
	cnet.n = 1;
	cnet.r[0].start = pg;
	cnet.r[0].end = pg + 4096;
	len = k == 1 ? xoc_encode(a, &id, path, 4096, XOC_RULE_PROVEN, &cached, &cnet) : 0;
	if (!len) {
		fprintf(stderr, "xocachetest: %s: %#llx is not in a readable range of its plan\n", path,
			(unsigned long long)pg);
		return 2;
	}
	efd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (efd < 0 || write(efd, a, len) != (ssize_t)len || close(efd)) {
		fprintf(stderr, "xocachetest: %s: %s\n", name, strerror(errno));
		return 2;
	}
	return 0;
}

/* --- fuzz ------------------------------------------------------------------ */

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Make a mutant's checksum (and @fix_total: its size field) right again. */
static void fix_sum(unsigned char *e, size_t len, bool fix_total)
{
	struct xoc_head *h = (struct xoc_head *)e;

	if (len < sizeof(*h))
		return;
	if (fix_total)
		h->total = len;
	h->sum = xoc_sum(e, len);
}

static const uint64_t hostile[] = { 0, 1, 2, 7, 4095, 4096, 4097, PLAN_MAX_RANGES, PLAN_MAX_RANGES + 1,
				    0x7fffffff, 0xffffffff, 0x100000000ull, ~0ull, ~0ull >> 1 };

/* One mutant of entry @e (@len bytes) into @m; its length. */
static size_t mutate(const unsigned char *e, size_t len, unsigned char *m, bool *fixed)
{
	struct xoc_head *h = (struct xoc_head *)m;
	struct xoc_range *r = (struct xoc_range *)(h + 1);
	size_t ml = len, k, n;
	uint64_t v = hostile[next() % (sizeof(hostile) / sizeof(hostile[0]))];
	int kind = (int)(next() % 6);
	bool fix = next() & 1;

	memcpy(m, e, len);
	switch (kind) {
	case 0:		/* random bytes */
		for (n = 1 + next() % 8, k = 0; k < n; k++)
			m[next() % len] ^= (unsigned char)(1 + next() % 255);
		break;
	case 1:		/* truncated */
		ml = next() % len;
		break;
	case 2:		/* extended, sometimes past the largest entry */
		n = next() % 16 ? 1 + next() % 4096 : XOC_MAX_ENTRY - len + 1 + next() % 4096;
		for (k = 0; k < n; k++)
			m[len + k] = (unsigned char)next();
		ml = len + n;
		break;
	case 3:		/* a header field */
		switch (next() % 9) {
		case 8: h->nnet = (uint32_t)v; break;
		case 0: h->version = (uint32_t)v; break;
		case 1: h->head_size = (uint32_t)v; break;
		case 2: h->nranges = (uint32_t)v; break;
		case 3: h->pathlen = (uint32_t)v; break;
		case 4: h->total = v; break;
		case 5: h->textrel = (uint32_t)v; break;
		case 6: h->pagesz = (uint32_t)v; break;
		default: h->rule[next() % sizeof(h->rule)] = (char)next(); break;
		}
		break;
	case 4:		/* a range field, or a net range's */
		if (h->nnet && next() % 3 == 0) {
			struct xoc_netrange *nr = (struct xoc_netrange *)(r + h->nranges);

			k = next() % h->nnet;
			switch (next() % 4) {
			case 0: nr[k].start = v; break;
			case 1: nr[k].end = v; break;
			case 2: nr[k].start -= 4096; break;	/* may be a readable page, or touch the one before */
			default: nr[k].end += 4096; break;
			}
			break;
		}
		if (!h->nranges)
			break;
		k = next() % h->nranges;
		switch (next() % 7) {
		case 0: r[k].start = v; break;
		case 1: r[k].end = v; break;
		case 2: r[k].xo = (uint8_t)v; break;
		case 3: memset(r[k].why, 'A', sizeof(r[k].why)); break;
		case 4: r[k].sect[next() % sizeof(r[k].sect)] = (char)(1 + next() % 255); break;
		case 5: r[k].pad[next() % sizeof(r[k].pad)] = 1; break;
		default: r[k].xo = !r[k].xo; break;	/* a well-formed lie: only the sum tells */
		}
		break;
	default:	/* the identity */
		switch (next() % 5) {
		case 0: h->dev++; break;
		case 1: h->ino++; break;
		case 2: h->size--; break;
		case 3: h->mtime_nsec++; break;
		default: h->ctime_nsec++; break;
		}
		break;
	}
	if (fix)
		fix_sum(m, ml, kind == 1 || kind == 2);
	*fixed = fix;
	return ml;
}

/* seednet: none, or (@proven) the first page of each execute-only range of @p; false if too many. */
static bool seed_net(const struct plan *p, bool proven)
{
	int i;

	seednet.n = 0;
	for (i = 0; proven && i < p->n; i++) {
		if (!p->r[i].xo || (seednet.n && seednet.r[seednet.n - 1].end >= p->r[i].start))
			continue;
		if (seednet.n == XOC_NET_MAX)
			return false;
		seednet.r[seednet.n].start = p->r[i].start;
		seednet.r[seednet.n++].end = p->r[i].start + 4096;
	}
	return true;
}

static int fuzz(int argc, char **argv)
{
	unsigned long n = 10000, seed = 1, only = ~0ul, i, accepted = 0, rejected = 0, looked = 0, fails = 0;
	unsigned long forged = 0;
	const char *dir, *why;
	static unsigned char seeds[8][XOC_MAX_ENTRY];
	static size_t slen[8];
	struct xoc_id ids[8];
	char name[PATH_MAX + 64];
	int c, ns = 0, fds[8];

	while ((c = getopt(argc, argv, "n:s:i:")) != -1) {
		switch (c) {
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'i': only = strtoul(optarg, NULL, 0); break;
		default: return usage();
		}
	}
	if (optind + 2 > argc || argc - optind - 1 > 8)
		return usage();
	dir = argv[optind++];
	xoc_setup(dir, false, false, (uint32_t)geteuid());
	for (; optind < argc; optind++, ns++) {
		fds[ns] = open(argv[optind], O_RDONLY | O_CLOEXEC);
		/* A proven seed carries net pages: the first page of each execute-only range. */
		if (fds[ns] < 0 || xoc_fstat(fds[ns], &ids[ns]) || rtplan_build(fds[ns], 4096, &fresh) ||
		    !seed_net(&fresh, ns % 2) ||
		    !(slen[ns] = xoc_encode(seeds[ns], &ids[ns], argv[optind], 4096,
					    ns % 2 ? XOC_RULE_PROVEN : XOC_RULE_FDE, &fresh, &seednet))) {
			fprintf(stderr, "xocachetest: %s: cannot be a seed\n", argv[optind]);
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		int s, fd, ok;
		size_t ml, rl;
		bool fixed;

		rng = (seed * 0x9e3779b97f4a7c15ull) ^ (i * 0xbf58476d1ce4e5b9ull) ^ 0x94d049bb133111ebull;
		next();
		s = (int)(next() % (unsigned)ns);
		ml = mutate(seeds[s], slen[s], a, &fixed);
		if (only != ~0ul && i != only)
			continue;
		ok = !xoc_decode(a, ml, &ids[s], 4096, &cached, &cnet, &why);
		if (ok) {
			/*
			 * Accepted: it must be canonical, what xoc_encode() writes for
			 * the file's identity now; and without a checksum made right
			 * again, exactly the file's own entry.
			 */
			rl = xoc_encode(b, &ids[s], xoc_entry_path(a), 4096, xoc_entry_rule(a), &cached, &cnet);
			if (ml != rl || memcmp(a, b, rl)) {
				printf("FAIL seed %lu index %lu: accepted a non-canonical entry\n", seed, i);
				fails++;
			} else if (!fixed && (rl != slen[s] || memcmp(b, seeds[s], rl))) {
				printf("FAIL seed %lu index %lu: accepted a damaged entry\n", seed, i);
				fails++;
			}
			accepted++;
			forged += rl != slen[s] || memcmp(b, seeds[s], rl);
		} else {
			rejected++;
		}
		if (i % 8)
			continue;
		/* The run path's lookup: one file per mutant, as the writer names it. */
		looked++;
		if (!xoc_name(name, sizeof(name), dir, &ids[s]))
			return 2;
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, a, ml) != (ssize_t)ml || close(fd)) {
			fprintf(stderr, "xocachetest: %s: %s\n", name, strerror(errno));
			return 2;
		}
		if (xoc_plan(fds[s], argv[argc - ns + s], 4096, &cached, NULL, NULL) || xoc_last_hit() != ok) {
			printf("FAIL seed %lu index %lu: the lookup %s what xoc_decode() %s\n", seed, i,
			       xoc_last_hit() ? "used" : "did not use", ok ? "accepts" : "refuses");
			fails++;
		}
		unlink(name);
	}
	printf("%lu mutants (seed %lu): %lu rejected, %lu accepted (canonical; %lu of them well-formed "
	       "entries of another plan, with the checksum made right), %lu through the lookup, %lu failures\n",
	       n, seed, rejected, accepted, forged, looked, fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "compare"))
		return compare(argv[2], argc - 3, argv + 3);
	if (argc == 4 && !strcmp(argv[1], "lookup"))
		return lookup(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "dump"))
		return dump(argv[2], argc - 3, argv + 3);
	if (argc == 5 && !strcmp(argv[1], "set-rule"))
		return set_field(argv[2], argv[3], "rule", argv[4]);
	if (argc == 5 && !strcmp(argv[1], "set-version"))
		return set_field(argv[2], argv[3], "version", argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "net"))
		return net(argv[2], argc - 3, argv + 3);
	if (argc == 5 && !strcmp(argv[1], "forge-net"))
		return forge_net(argv[2], argv[3], argv[4]);
	if (argc >= 2 && !strcmp(argv[1], "fuzz"))
		return fuzz(argc - 1, argv + 1);
	return usage();
}
