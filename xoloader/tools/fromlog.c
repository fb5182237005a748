// SPDX-License-Identifier: GPL-2.0
/*
 * fromlog.c - xoload --set-xattr --from-log LOG [--log-only] [FILE...]
 * (run by xoplan): plans (trusted.xonly, xattr.c) from the log of the
 * kernel's learn mode, the last step of rolling xonly mode out on a
 * machine: boot xonly=learn, run the workload, set plans from its log,
 * boot xonly=on.
 *
 * LOG (- for standard input) is kernel log text read as scripts/xolearn
 * reads it, line for line the same: the lines of learn mode
 * (kernel/patches/KVER/0070, Documentation/userspace-api/xonly.rst)
 *
 *   xonly learn: comm=C pid=P file=F offset=0xO size=0xS ip_file=G ip_offset=0xI
 *
 * anywhere in a line (dmesg, dmesg -T, journalctl -k, a console), with F
 * escaped by the kernel (spaces, control characters, backslashes and bytes
 * above 0x7e as \ooo).  Each file the log names (or each FILE given, which
 * gets the pages logged for the same file, compared by device and inode,
 * so a symlinked or relative name will do) gets a plan bound to the file
 * as it is now.  Its readable pages are, by default, the union of the
 * pages the log names and the pages the FDE planner keeps readable (what
 * --set-xattr alone sets): the log adds what the workload was seen to
 * read, which the planner may have judged to be code; the planner adds
 * what is provably not code but that this workload happened not to read.
 * An admin who enforces afterwards wants programs not to die on a path
 * the workload did not take, so the union it is.  --log-only sets only
 * the pages the log names: fewer readable pages, at the price of a
 * SIGSEGV under xonly=on for every read the workload did not show.
 *
 * Fail closed, file by file: a file that is gone (the kernel's
 * "\040(deleted)" included), not a regular or ELF file, without a
 * build-id, or whose logged page lies outside its executable segments
 * now (it changed since the log) gets no plan and one line on stderr; the
 * others are still done; exit 1 at the end.  More ranges than a plan
 * holds: the closest neighbours are merged (a warning says how many pages
 * that makes readable beyond the log).  Lines the kernel suppressed, a
 * "file=?" line and a malformed line are warned about: pages may be
 * missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xonly/uapi.h>

#include "xattr.h"

#define PAGE		XATTR_PAGE
#define SEG_MAX		128	/* PF_X segments: no more than program headers */
#define LEARN		"xonly learn: "
#define SUPPRESSED	"xonly_learn_log: "

struct page {
	char *path;		/* unescaped, as the kernel's d_path() gave it */
	uint64_t start, end;
};

/* A file the log names: its pages are pages[first..first+n). */
struct logfile {
	const char *path;
	size_t first, n;
	bool known;		/* stat() worked: dev, ino */
	dev_t dev;
	ino_t ino;
};

static struct page *pages;
static size_t npages, cap;

static void *grow(void *p, size_t *capp, size_t n, size_t elem)
{
	if (n < *capp)
		return p;
	*capp = *capp ? 2 * *capp : 256;
	p = realloc(p, *capp * elem);
	if (!p) {
		fprintf(stderr, "xoload: --from-log: out of memory\n");
		exit(1);
	}
	return p;
}

/* The kernel's escaping undone: \ooo is the byte ooo (three octal digits), all else as is. */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*out++ = (char)(((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0')) & 0xff);
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = 0;
}

/* The kernel's escaping of @path in @buf, so that it is one word, as scripts/xolearn prints it. */
static const char *escape(const char *path, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)path;
	size_t n = 0;

	for (; *p && n + 5 < len; p++)
		n += (size_t)snprintf(buf + n, len - n, *p <= 0x20 || *p == '\\' || *p >= 0x7f ? "\\%03o" : "%c", *p);
	buf[n] = 0;
	return buf;
}

/* A hexadecimal field, "0x" optional as in xolearn (Python's int(v, 16)). */
static bool hex(const char *v, uint64_t *out)
{
	char *end;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		v += 2;
	if (!*v || strspn(v, "0123456789abcdefABCDEF") != strlen(v) || strlen(v) > 16)
		return false;
	*out = strtoull(v, &end, 16);
	return !*end;
}

/*
 * One learn line's fields after "xonly learn: ", in order and each named;
 * false if it is not a line the kernel writes.  @file points into @rest.
 */
static bool parse(char *rest, char **file, uint64_t *start, uint64_t *size)
{
	static const char *const names[] = { "comm", "pid", "file", "offset", "size", "ip_file", "ip_offset" };
	char *word[8], *save = NULL, *w;
	uint64_t ip;
	int n = 0, i;

	for (w = strtok_r(rest, " \t\r\v\f", &save); w; w = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (n == 8)
			return false;
		word[n++] = w;
	}
	if (n != 7)
		return false;
	for (i = 0; i < 7; i++) {
		size_t k = strlen(names[i]);

		if (strncmp(word[i], names[i], k) || word[i][k] != '=')
			return false;
		word[i] += k + 1;
	}
	if (!*word[1] || strspn(word[1], "0123456789") != strlen(word[1]) || !hex(word[3], start) ||
	    !hex(word[4], size) || !hex(word[6], &ip))
		return false;
	/* The kernel logs whole pages. */
	if (!*size || *start % PAGE || *size % PAGE || *start + *size < *start)
		return false;
	*file = word[2];
	return true;
}

/* Read @name's learn lines into pages[]; 0, or 1 if it cannot be read. */
static int read_log(const char *name)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	char *line = NULL, *p, *file;
	size_t len = 0;
	unsigned long num = 0;
	uint64_t start, size;
	int st;

	if (!f) {
		fprintf(stderr, "xoload: %s: %s\n", name, strerror(errno));
		return 1;
	}
	while (getline(&line, &len, f) >= 0) {
		num++;
		line[strcspn(line, "\n")] = 0;
		p = strstr(line, SUPPRESSED);
		if (p) {
			char *d = p + strlen(SUPPRESSED), *end = d;

			while (*end >= '0' && *end <= '9')
				end++;
			if (end > d && !strncmp(end, " callbacks suppressed", 21)) {
				fprintf(stderr, "xoload: %s:%lu: the kernel suppressed %.*s learn lines: their pages "
					"are missing here\n", name, num, (int)(end - d), d);
				continue;
			}
		}
		p = strstr(line, LEARN);
		if (!p)
			continue;
		if (!parse(p + strlen(LEARN), &file, &start, &size)) {
			fprintf(stderr, "xoload: %s:%lu: not a learn line the kernel writes, ignored\n", name, num);
			continue;
		}
		if (!strcmp(file, "?")) {
			fprintf(stderr, "xoload: %s:%lu: a page at 0x%" PRIx64 " of a file whose path the kernel did "
				"not log, ignored\n", name, num, start);
			continue;
		}
		unescape(file);
		pages = grow(pages, &cap, npages, sizeof(*pages));
		pages[npages].path = strdup(file);
		if (!pages[npages].path) {
			fprintf(stderr, "xoload: --from-log: out of memory\n");
			exit(1);
		}
		pages[npages].start = start;
		pages[npages].end = start + size;
		npages++;
	}
	free(line);
	st = ferror(f) ? errno : 0;
	if (f != stdin)
		fclose(f);
	if (st)
		fprintf(stderr, "xoload: %s: %s\n", name, strerror(st));
	return !!st;
}

static int by_path_start(const void *a, const void *b)
{
	const struct page *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->start > y->start) - (x->start < y->start);
}

static int by_start(const void *a, const void *b)
{
	const struct xrange *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sort @r and merge what touches or overlaps: the new count. */
static size_t merge(struct xrange *r, size_t n)
{
	size_t i, m = 0;

	qsort(r, n, sizeof(*r), by_start);
	for (i = 0; i < n; i++) {
		if (m && r[i].start <= r[m - 1].end) {
			if (r[i].end > r[m - 1].end)
				r[m - 1].end = r[i].end;
		} else {
			r[m++] = r[i];
		}
	}
	return m;
}

/*
 * At most XONLY_PLAN_RANGES_MAX ranges: merge the two neighbours with the
 * smallest gap until they fit (the fewest pages made readable that were
 * not asked for).  Returns the new count; *@extra the pages added.
 */
static size_t fit(struct xrange *r, size_t n, uint64_t *extra)
{
	*extra = 0;
	while (n > XONLY_PLAN_RANGES_MAX) {
		size_t i, best = 0;

		for (i = 1; i + 1 < n; i++)
			if (r[i + 1].start - r[i].end < r[best + 1].start - r[best].end)
				best = i;
		*extra += (r[best + 1].start - r[best].end) / PAGE;
		r[best].end = r[best + 1].end;
		memmove(r + best + 1, r + best + 2, (n - best - 2) * sizeof(*r));
		n--;
	}
	return n;
}

/*
 * The plan of the file open as @fd (@name, @size bytes): the pages of every
 * file of @lf (@nlf) that is the same file, plus the FDE planner's unless
 * @log_only.  0, or 1 after a one-line error.
 */
static int plan_file(const char *name, int fd, const struct stat *sb, const struct logfile *lf, size_t nlf,
		     bool log_only)
{
	static struct xrange seg[SEG_MAX];
	struct xrange *r;
	uint64_t size = (uint64_t)sb->st_size, extra;
	size_t n = 0, i, k, nr = 0;
	int nseg, s, st;
	char err[256];

	nseg = xattr_exec_segments(fd, seg, SEG_MAX);
	if (nseg < 0) {
		fprintf(stderr, "xoload: %s: %s: no plan set\n", name, XATTR_NOT_ELF);
		return 1;
	}
	for (i = 0; i < nlf; i++)
		if (lf[i].known && lf[i].dev == sb->st_dev && lf[i].ino == sb->st_ino)
			n += lf[i].n;
	r = calloc(n + XONLY_PLAN_RANGES_MAX, sizeof(*r));
	if (!r) {
		fprintf(stderr, "xoload: --from-log: out of memory\n");
		exit(1);
	}
	for (i = 0; i < nlf; i++) {
		if (!lf[i].known || lf[i].dev != sb->st_dev || lf[i].ino != sb->st_ino)
			continue;
		for (k = lf[i].first; k < lf[i].first + lf[i].n; k++) {
			const struct page *p = &pages[k];

			/* A page the file's code does not hold now: the log is of another file. */
			for (s = 0; s < nseg; s++)
				if (p->start >= seg[s].start && p->start < seg[s].end && p->start < xattr_page_up(size))
					break;
			if (s == nseg) {
				fprintf(stderr, "xoload: %s: the log names its page at 0x%" PRIx64 ", which is not in "
					"its executable segments: the file changed since the log: no plan set\n", name,
					p->start);
				free(r);
				return 1;
			}
			r[nr].start = p->start;
			/* A huge page may reach past the file's end: the plan stops there. */
			r[nr].end = p->end < xattr_page_up(size) ? p->end : xattr_page_up(size);
			nr++;
		}
	}
	if (!log_only) {
		int m = xattr_fde_ranges(fd, size, r + nr, err, sizeof(err));

		if (m < 0) {
			fprintf(stderr, "xoload: %s: %s (--log-only does without the planner): no plan set\n", name,
				err);
			free(r);
			return 1;
		}
		nr += (size_t)m;
	}
	nr = merge(r, nr);
	k = nr;
	nr = fit(r, nr, &extra);
	if (k != nr)
		fprintf(stderr, "xoload: %s: %zu readable ranges, more than the %d of a plan: the closest merged, "
			"%" PRIu64 " pages more readable\n", name, k, XONLY_PLAN_RANGES_MAX, extra);
	st = xattr_write_plan(name, fd, size, r, (int)nr);
	free(r);
	return st;
}

/* Open @path as a regular file: its descriptor, or -1 after a one-line error. */
static int open_file(const char *path, const char *name, struct stat *sb)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
		fprintf(stderr, "xoload: %s: %s: no plan set\n", name, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static const char usage_line[] = "usage: xoload --set-xattr --from-log LOG [--log-only] [FILE...]  (see --help)\n";

int fromlog_main(int argc, char **argv)
{
	static const char deleted[] = " (deleted)";
	const char *log = NULL;
	struct logfile *lf = NULL;
	size_t nlf = 0, lfcap = 0, i, j;
	bool log_only = false, opts = true;
	char **files = calloc((size_t)argc + 1, sizeof(*files)), name[4 * 4096 + 1];
	int nfiles = 0, st, a;

	if (!files)
		return 1;
	for (a = 0; a < argc; a++) {
		if (opts && !strcmp(argv[a], "--")) {
			opts = false;
		} else if (opts && !strcmp(argv[a], "--from-log")) {
			if (log || a + 1 == argc) {
				fprintf(stderr, "xoload: --from-log: %s\n%s", log ? "given twice" : "no LOG given",
					usage_line);
				return 2;
			}
			log = argv[++a];
		} else if (opts && !strncmp(argv[a], "--from-log=", 11)) {
			if (log) {
				fprintf(stderr, "xoload: --from-log: given twice\n%s", usage_line);
				return 2;
			}
			log = argv[a] + 11;
		} else if (opts && !strcmp(argv[a], "--log-only")) {
			log_only = true;
		} else if (opts && argv[a][0] == '-' && argv[a][1]) {
			fprintf(stderr, "xoload: --set-xattr --from-log: unknown option '%s'\n%s", argv[a], usage_line);
			return 2;
		} else {
			files[nfiles++] = argv[a];
		}
	}
	if (!log || !*log) {
		fprintf(stderr, "xoload: --set-xattr: --log-only needs --from-log LOG\n%s", usage_line);
		return 2;
	}
	st = read_log(log);
	if (st)
		return st;	/* nothing set from a log not read to its end */

	/* The files the log names, each once, in byte order of their paths. */
	qsort(pages, npages, sizeof(*pages), by_path_start);
	for (i = 0; i < npages; i = j) {
		struct stat sb;

		for (j = i; j < npages && !strcmp(pages[j].path, pages[i].path); j++)
			;
		lf = grow(lf, &lfcap, nlf, sizeof(*lf));
		lf[nlf] = (struct logfile){ .path = pages[i].path, .first = i, .n = j - i };
		if (!stat(pages[i].path, &sb) && S_ISREG(sb.st_mode)) {
			lf[nlf].known = true;
			lf[nlf].dev = sb.st_dev;
			lf[nlf].ino = sb.st_ino;
		}
		nlf++;
	}
	if (!nlf && !nfiles) {
		fprintf(stderr, "xoload: %s: no xonly learn line: no plan set\n", log);
		return 0;
	}

	if (nfiles) {
		for (a = 0; a < nfiles; a++) {
			struct stat sb;
			int fd = open_file(files[a], files[a], &sb);

			if (fd < 0) {
				st = 1;
				continue;
			}
			st |= plan_file(files[a], fd, &sb, lf, nlf, log_only);
			close(fd);
		}
		return st;
	}
	for (i = 0; i < nlf; i++) {
		size_t plen = strlen(lf[i].path);
		struct stat sb;
		int fd;

		escape(lf[i].path, name, sizeof(name));
		if (plen > strlen(deleted) && !strcmp(lf[i].path + plen - strlen(deleted), deleted) && !lf[i].known) {
			fprintf(stderr, "xoload: %s: deleted after the log was written (its pages were of the file "
				"then): no plan set\n", name);
			st = 1;
			continue;
		}
		/* Another name of a file done already (a hard link): its pages went there. */
		for (j = 0; j < i; j++)
			if (lf[j].known && lf[i].known && lf[j].dev == lf[i].dev && lf[j].ino == lf[i].ino)
				break;
		if (j < i)
			continue;
		fd = open_file(lf[i].path, name, &sb);
		if (fd < 0) {
			st = 1;
			continue;
		}
		if (!lf[i].known || sb.st_dev != lf[i].dev || sb.st_ino != lf[i].ino) {
			/* Replaced between stat() and open(): do it from the file opened. */
			lf[i].known = true;
			lf[i].dev = sb.st_dev;
			lf[i].ino = sb.st_ino;
		}
		st |= plan_file(name, fd, &sb, lf, nlf, log_only);
		close(fd);
	}
	return st;
}
