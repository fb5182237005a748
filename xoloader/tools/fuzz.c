// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c - xofuzz, the fuzzer of xoload's ELF parsing (make fuzz, and a
 * bounded run in make check through tests/host/xoload_fuzz.sh).
 *
 *   xofuzz [-x] [-n N] [-s SEED] [-i INDEX] [-o FAILDIR] [-S EVERY] XOLOAD XOSCAN SEEDFILE...
 *
 * Mutant INDEX of run SEED is a pure function of (SEED, INDEX, the seed
 * files): -i INDEX rebuilds and runs just that one.  Each mutant is
 * written to a file and run through
 *   - `XOLOAD --plan=tsv FILE`: load.c (the validating loader) and, if it
 *     accepts the file, run/rtplan.c (the minimal reader), for FILE and its
 *     PT_INTERP - the code the audit module shares.  With -x the XOLOAD binary is
 *     executed; without, xoload's own main() (xoload.c, linked into this
 *     program) runs in a forked child: the same code and the same exit
 *     paths, at a fraction of the cost of an exec (make check's run);
 *   - every EVERY-th mutant also `XOSCAN --tsv FILE` (rule/admit.c's
 *     admission, then libelf + capstone);
 *   - with -D, both planners, elfplan.c (libelf) and run/rtplan.c (the
 *     minimal reader of the run-time path), which must agree exactly
 *     (plancmp.c): the differential test on malformed files;
 *   - with -O, what xoload does to PROG before ld.so runs: load.c's
 *     image_open() and image_map(), then run/origin.c's origin_expand()
 *     (PROG's $ORIGIN written into its dynamic strings), in a forked
 *     child; the mutations then also hit the dynamic section (an entry's
 *     tag or value), the dynamic string table ("$ORIGIN", "${ORIGIN}",
 *     "$LIB", ':', '$', NUL written in), PT_DYNAMIC's fields and a
 *     PT_LOAD's flags.  A death by signal or a status outside 0 and 126
 *     (and 127 for a file image_open() cannot open) is a failure, as is a
 *     refusal whose message is not one line.
 * A failure is a death by signal, a status outside the documented set
 * (xoload: 0, 126, 127; xoscan: 0, 1), more than 10 s, or an error exit of
 * xoload whose stderr is not exactly one line "xoload: ...".  The input is
 * then saved under FAILDIR and its path printed.  --plan needs no pkeys:
 * this runs on the host.
 *
 * Mutations (one to three per mutant): random bytes in the ELF/program
 * headers; a program header field set to a hostile value (past EOF, huge,
 * 0, -1, unaligned, another segment's value); PT_LOADs swapped or
 * duplicated (unsorted, overlapping); e_phnum 0/1/64/65/0xffff (PN_XNUM),
 * e_phentsize and e_phoff wrong; PT_INTERP without NUL, too long, empty,
 * pointing at the ELF header, at the mutant itself, at a directory or a
 * device; truncation at a header or segment boundary; a corrupt section
 * header table (e_shoff/e_shnum/e_shstrndx/e_shentsize, entries).
 * Prints TAP: one line per 1000 mutants and one per failure.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ref/elfplan.h"
#include "../ref/plancmp.h"
#include "../run/load.h"
#include "../run/origin.h"
#include "../run/rtplan.h"

#define MAX_SEEDS 16

struct seed { const char *path; uint8_t *b; size_t n; };

static struct seed seeds[MAX_SEEDS];
static int nseeds;
static uint8_t *buf;
static size_t bufcap;
static char workdir[64];
static char mpath[64];
static uint64_t rs;
static const char *xoload_path;

/* splitmix64: one independent stream per (seed, index). */
static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static void put(size_t n, size_t off, uint64_t v, size_t w)
{
	if (off + w <= n)
		memcpy(buf + off, &v, w);
}

static uint64_t get(size_t n, size_t off, size_t w)
{
	uint64_t v = 0;

	if (off + w <= n)
		memcpy(&v, buf + off, w);
	return v;
}

static uint64_t hostile(uint64_t cur, size_t n)
{
	static const uint64_t v[] = {
		0, 1, 2, 0xfff, 0x1000, 0x1001, 0x7fffffffffffffffull, 0xffffffffffffffffull,
		0x8000000000000000ull, 1ull << 47, (1ull << 47) - 0x1000, 1ull << 36, 0xffffffff, 0x100000000ull,
	};

	switch (below(6)) {
	case 0: return v[below(sizeof(v) / sizeof(v[0]))];
	case 1: return n + below(3) - 1;		/* at/around EOF */
	case 2: return cur + (below(2) ? 0x1000 : -0x1000ull);
	case 3: return cur ^ (1ull << below(64));
	case 4: return rnd();
	default: return cur + below(16) - 8;
	}
}

/* Program header @i's file offset, or 0 if out of the buffer. */
static size_t phdr_at(size_t n, unsigned int i)
{
	uint64_t phoff = get(n, 32, 8);

	if (phoff >= n || phoff + (uint64_t)(i + 1) * sizeof(Elf64_Phdr) > n)
		return 0;
	return (size_t)phoff + i * sizeof(Elf64_Phdr);
}

static int find_phdr(size_t n, uint32_t type)
{
	unsigned int i, phnum = (unsigned int)get(n, 56, 2);

	for (i = 0; i < phnum && i < 256; i++)
		if (phdr_at(n, i) && get(n, phdr_at(n, i), 4) == type)
			return (int)i;
	return -1;
}

/* Apply one mutation to buf[0..*n); may shrink *n. */
static void mutate(size_t *n)
{
	unsigned int phnum = (unsigned int)get(*n, 56, 2);
	size_t hdr_end = 64 + (size_t)phnum * sizeof(Elf64_Phdr), off, k;
	int ip;

	switch (below(8)) {
	case 0:	/* random bytes in the headers */
		if (hdr_end > *n)
			hdr_end = *n;
		for (k = 1 + below(8); k && hdr_end; k--)
			buf[below(hdr_end)] = below(2) ? (uint8_t)rnd() : buf[below(hdr_end)] ^ (uint8_t)(1u << below(8));
		break;
	case 1: {	/* one program header field */
		static const size_t fo[] = { 0, 4, 8, 16, 24, 32, 40, 48 };
		size_t f = fo[below(8)], w = f == 0 || f == 4 ? 4 : 8;

		off = phnum ? phdr_at(*n, (unsigned int)below(phnum)) : 0;
		if (off)
			put(*n, off + f, f == 0 && below(2) ? (uint64_t)PT_LOAD + below(7) : hostile(get(*n, off + f, w), *n), w);
		break;
	}
	case 2: {	/* PT_LOADs swapped or one copied over another */
		size_t a = phnum ? phdr_at(*n, (unsigned int)below(phnum)) : 0;
		size_t b = phnum ? phdr_at(*n, (unsigned int)below(phnum)) : 0;
		Elf64_Phdr t;

		if (!a || !b)
			break;
		memcpy(&t, buf + a, sizeof(t));
		memmove(buf + a, buf + b, sizeof(t));
		if (below(2))
			memcpy(buf + b, &t, sizeof(t));
		break;
	}
	case 3: {	/* e_phnum, e_phentsize, e_phoff */
		static const uint16_t pn[] = { 0, 1, 63, 64, 65, 0xffff, 0xfffe };

		switch (below(3)) {
		case 0: put(*n, 56, below(3) ? pn[below(7)] : phnum + below(3) - 1, 2); break;
		case 1: put(*n, 54, below(2) ? (uint16_t)rnd() : 55 + below(3) + (below(2) ? 8 : 0), 2); break;	/* 55..57, 63..65 */
		default: put(*n, 32, hostile(get(*n, 32, 8), *n), 8); break;
		}
		break;
	}
	case 4:	/* PT_INTERP */
		ip = find_phdr(*n, PT_INTERP);
		off = ip >= 0 ? phdr_at(*n, (unsigned int)ip) : 0;
		if (!off)
			break;
		switch (below(6)) {
		case 0: {	/* no NUL: fill the string */
			uint64_t o = get(*n, off + 8, 8), s = get(*n, off + 32, 8);

			for (k = 0; k < s && o + k < *n; k++)
				buf[o + k] = 'A';
			break;
		}
		case 1: put(*n, off + 32, below(2) ? 4097 + below(2) : below(2), 8); break;	/* too long / empty */
		case 2: put(*n, off + 8, 0, 8); break;		/* the ELF header itself */
		default: {	/* another path: the mutant itself, a directory, a device */
			static const char *const paths[] = { NULL, "/", "/dev/null", "/tmp", "relative/ld.so" };
			const char *p = paths[below(5)];
			uint64_t o = get(*n, off + 8, 8), s = get(*n, off + 32, 8);

			if (!p)
				p = "./m";	/* the mutant itself: runs are in workdir */
			if (o < *n && s > strlen(p) && o + s <= *n) {
				memset(buf + o, 0, s);
				memcpy(buf + o, p, strlen(p));
			}
			break;
		}
		}
		break;
	case 5: {	/* truncation at a boundary */
		size_t cut[64], nc = 0;
		unsigned int i;

		cut[nc++] = below(65);
		cut[nc++] = (size_t)get(*n, 32, 8);
		for (i = 0; i < phnum && nc < 60; i++) {
			off = phdr_at(*n, i);
			if (!off)
				break;
			cut[nc++] = off + below(2) * sizeof(Elf64_Phdr) - below(2);
			cut[nc++] = (size_t)get(*n, off + 8, 8) + below(2) * (size_t)get(*n, off + 32, 8) - below(2);
		}
		cut[nc++] = (size_t)get(*n, 40, 8) + below(3) * 64;
		k = cut[below(nc)];
		if (k < *n)
			*n = k;
		break;
	}
	case 6: {	/* section header table */
		uint64_t shoff = get(*n, 40, 8), shnum = get(*n, 60, 2);

		switch (below(5)) {
		case 0: put(*n, 40, hostile(shoff, *n), 8); break;
		case 1: put(*n, 60, below(2) ? 0xffff : shnum + below(5) - 2, 2); break;
		case 2: put(*n, 62, below(2) ? 0xffff : below(shnum + 3), 2); break;	/* SHN_XINDEX, out of range */
		case 3: put(*n, 58, below(2) ? 0 : 63 + below(3), 2); break;
		default:	/* one entry's field */
			if (shnum && shoff < *n) {
				size_t e = (size_t)shoff + below(shnum) * 64, f = below(8) * 8;

				put(*n, e + f, hostile(get(*n, e + f, 8), *n), 8);
			}
			break;
		}
		break;
	}
	default:	/* random bytes anywhere */
		for (k = 1 + below(32); k && *n; k--)
			buf[below(*n)] = (uint8_t)rnd();
		break;
	}
}

static int wfile(const char *path, const uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t w = fd < 0 ? -1 : write(fd, b, n);

	if (fd >= 0)
		close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/*
 * Run @argv with stdout to /dev/null and stderr to @errpath; its status
 * (>= 0), or -SIGNAL, or -1000 for a hang.
 */
/* The child's status when exec itself failed: the fuzzer's problem, not a finding. */
#define EXEC_FAILED	125

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* An allocated string table's file range (.dynstr), from the section headers; false if none. */
static bool dynstr_at(size_t n, size_t *off, size_t *len)
{
	uint64_t shoff = get(n, 40, 8), i, shnum = get(n, 60, 2);

	for (i = 0; i < shnum && shoff + (i + 1) * sizeof(Elf64_Shdr) <= n; i++) {
		size_t sh = (size_t)(shoff + i * sizeof(Elf64_Shdr));
		uint64_t o = get(n, sh + 24, 8), l = get(n, sh + 32, 8);

		if (get(n, sh + 4, 4) == SHT_STRTAB && (get(n, sh + 8, 8) & SHF_ALLOC) && o < n && l && l <= n - o) {
			*off = (size_t)o;
			*len = (size_t)l;
			return true;
		}
	}
	return false;
}

/* -O: one mutation of what origin_expand() reads. */
static void mutate_origin(size_t *n)
{
	static const char *const piece[] = { "$ORIGIN", "${ORIGIN}", "$ORIGIN/..", "$LIB", ":", "$", "$ORIGINX", "${ORIGIN" };
	static const int64_t tag[] = { DT_NEEDED, DT_RPATH, DT_RUNPATH, DT_AUDIT, DT_DEPAUDIT, DT_AUXILIARY, DT_FILTER,
				       DT_STRTAB, DT_STRSZ, DT_NULL, DT_DEBUG };
	int ip = find_phdr(*n, PT_DYNAMIC);
	size_t off = ip >= 0 ? phdr_at(*n, (unsigned int)ip) : 0, d, l, k;
	uint64_t dsz = off ? get(*n, off + 32, 8) : 0, doff = off ? get(*n, off + 8, 8) : 0;

	switch (below(4)) {
	case 0:	/* a dynamic entry: its tag, or its value */
		if (!off || !dsz || doff >= *n)
			break;
		d = (size_t)doff + (size_t)below(dsz / 16 + 1) * 16;
		if (below(2))
			put(*n, d, (uint64_t)tag[below(sizeof(tag) / sizeof(tag[0]))], 8);
		else
			put(*n, d + 8, below(2) ? below(0x2000) : hostile(get(*n, d + 8, 8), *n), 8);
		break;
	case 1:	/* a piece written into .dynstr */
		if (dynstr_at(*n, &d, &l)) {
			const char *p = piece[below(sizeof(piece) / sizeof(piece[0]))];

			k = d + (size_t)below(l);
			if (below(4) == 0)
				put(*n, k, 0, 1);
			else if (k + strlen(p) <= d + l)
				memcpy(buf + k, p, strlen(p));
		}
		break;
	case 2:	/* PT_DYNAMIC's p_offset, p_vaddr or p_filesz */
		if (off)
			put(*n, off + 8 * (1 + below(4)), hostile(get(*n, off + 8 * (1 + below(4)), 8), *n), 8);
		break;
	default: {	/* a PT_LOAD's flags */
		unsigned int phnum = (unsigned int)get(*n, 56, 2), i = (unsigned int)below(phnum);

		if (phdr_at(*n, i) && get(*n, phdr_at(*n, i), 4) == PT_LOAD)
			put(*n, phdr_at(*n, i) + 4, get(*n, phdr_at(*n, i) + 4, 4) ^ (1u << below(3)), 4);
	}
	}
}

/*
 * -O: image_open(), image_map() and origin_expand() of the mutant in a
 * forked child, which exits with their status (after writing its
 * message, as xoload would, to @errpath).
 */
static int run_origin(const char *errpath)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		static struct image im;
		char err[PATH_MAX + 400];
		int rc;
		FILE *f;

		alarm(10);
		rc = image_open(&im, mpath, err, sizeof(err));
		if (!rc)
			rc = image_map(&im, err, sizeof(err));
		if (!rc)
			rc = origin_expand(&im, err, sizeof(err));
		if (rc && (f = fopen(errpath, "w"))) {
			fprintf(f, "xoload: %s\n", err);
			fclose(f);
		}
		_exit(rc);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1001;
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

/* xoload.c's main(), compiled in under this name (see the Makefile). */
int xoload_main(int argc, char **argv, char **envp);
static bool in_process;

static int run(char *const argv[], const char *errpath)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_RDWR);
		int argc = 0;

		dup2(nul, 0);
		dup2(nul, 1);
		dup2(fd, 2);
		signal(SIGALRM, SIG_DFL);
		/* "./m" is the mutant: the same bytes whatever workdir is called. */
		if (chdir(workdir))
			_exit(125);
		if (in_process && argv[0] == xoload_path) {
			while (argv[argc])
				argc++;
			optind = 0;	/* getopt's state is the parent's: reset it */
			exit(xoload_main(argc, (char **)argv, environ));
		}
		execv(argv[0], argv);
		_exit(EXEC_FAILED);
	}
	if (pid < 0)
		return -1001;
	/* A blocking wait, ended by SIGALRM (no SA_RESTART) for a hang. */
	alarm(10);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1001;
		if (alarmed) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			alarmed = 0;
			return -1000;
		}
	}
	alarm(0);
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

/* xoload's error output: exactly one line, "xoload: ..." */
static bool one_line(const char *errpath, char *first, size_t len)
{
	FILE *f = fopen(errpath, "r");
	int lines = 0;
	bool ok;
	char l[8192];

	first[0] = 0;
	if (!f)
		return false;
	while (fgets(l, sizeof(l), f)) {
		if (!lines++)
			snprintf(first, len, "%s", l);
	}
	fclose(f);
	ok = lines == 1 && !strncmp(first, "xoload: ", 8);
	first[strcspn(first, "\n")] = 0;
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: xofuzz [-x] [-D] [-O] [-n N] [-s SEED] [-i INDEX] [-o FAILDIR] [-S EVERY] XOLOAD XOSCAN SEEDFILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long nmut = 10000, seed = 1, only = ~0ull, every = 4, i, failures = 0, tapn = 0;
	unsigned long long range_failures = 0, compared = 0, origin_ok = 0, origin_refused = 0;
	bool plandiff = false, origin = false;
	unsigned long long st_count[256] = { 0 };
	const char *faildir = "build/fuzz-failures", *xoscan;
	char errpath[64], first[512];
	struct timespec t0, t1;
	int c, s;

	in_process = true;
	while ((c = getopt(argc, argv, "xDOn:s:i:o:S:")) != -1) {
		switch (c) {
		case 'x': in_process = false; break;
		case 'D': plandiff = true; break;
		case 'O': origin = true; break;
		case 'n': nmut = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'i': only = strtoull(optarg, NULL, 0); break;
		case 'o': faildir = optarg; break;
		case 'S': every = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (argc - optind < 3)
		usage();
	/* Absolute: the runs happen in the work directory. */
	xoload_path = realpath(argv[optind++], NULL);
	xoscan = realpath(argv[optind++], NULL);
	if (!xoload_path || !xoscan) {
		printf("not ok 1 - xoload-fuzz: %s or %s: %s\n1..1\n", argv[optind - 2], argv[optind - 1], strerror(errno));
		return 1;
	}
	for (; optind < argc && nseeds < MAX_SEEDS; optind++) {
		struct seed *sd = &seeds[nseeds];
		struct stat sb;
		int fd = open(argv[optind], O_RDONLY);

		if (fd < 0 || fstat(fd, &sb) || !(sd->b = malloc((size_t)sb.st_size)) ||
		    read(fd, sd->b, (size_t)sb.st_size) != sb.st_size) {
			printf("not ok 1 - xoload-fuzz: seed %s: %s\n1..1\n", argv[optind], strerror(errno));
			return 1;
		}
		close(fd);
		sd->path = argv[optind];
		sd->n = (size_t)sb.st_size;
		if (sd->n > bufcap)
			bufcap = sd->n;
		nseeds++;
	}
	/*
	 * tmpfs if there is one: rewriting a file on ext4 after truncating it
	 * makes close() wait for the data (auto_da_alloc), 4x the run time.
	 */
	snprintf(workdir, sizeof(workdir), "%s/xofuzz.XXXXXX", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	buf = malloc(bufcap);
	if (!buf || !mkdtemp(workdir))
		return 1;
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = on_alarm }, NULL);
	snprintf(mpath, sizeof(mpath), "%s/m", workdir);
	snprintf(errpath, sizeof(errpath), "%s/err", workdir);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (i = only == ~0ull ? 0 : only; i < (only == ~0ull ? nmut : only + 1); i++) {
		struct seed *sd = &seeds[i % (unsigned long long)nseeds];
		size_t n = sd->n;
		int k, nm;
		bool bad = false;
		char why[768];

		rs = seed * 0x100000001b3ull ^ (i * 0x9e3779b97f4a7c15ull);
		memcpy(buf, sd->b, n);
		nm = 1 + (int)below(3);
		for (k = 0; k < nm; k++) {
			if (origin && below(4))
				mutate_origin(&n);
			else
				mutate(&n);
		}
		if (wfile(mpath, buf, n)) {
			printf("not ok %llu - xoload-fuzz: cannot write %s\n", ++tapn, mpath);
			return 1;
		}
		s = run((char *[]){ (char *)xoload_path, "--plan=tsv", "./m", NULL }, errpath);
		if (s >= 0 && s < 256)
			st_count[s]++;
		if (s == EXEC_FAILED) {
			bad = true;
			snprintf(why, sizeof(why), "could not execute %s (replaced while the fuzzer ran?): not a finding, but not a run either", xoload_path);
		} else if (s < 0 || (s != 0 && s != 126 && s != 127)) {
			bad = true;
			snprintf(why, sizeof(why), "xoload --plan: %s %d", s == -1000 ? "hang" : s < 0 ? "signal" : "status", s < 0 ? -s : s);
		} else if (s && !one_line(errpath, first, sizeof(first))) {
			bad = true;
			snprintf(why, sizeof(why), "xoload --plan: status %d but not one 'xoload: ' line on stderr ('%s')", s, first);
		}
		if (!bad && origin) {
			unlink(errpath);
			s = run_origin(errpath);
			if (s < 0 || (s != 0 && s != 126 && s != 127)) {
				bad = true;
				snprintf(why, sizeof(why), "image_map() + origin_expand(): %s %d",
					 s < 0 ? "signal" : "status", s < 0 ? -s : s);
			} else if (s && !one_line(errpath, first, sizeof(first))) {
				bad = true;
				snprintf(why, sizeof(why), "origin_expand(): status %d but not one line ('%s')", s, first);
			} else if (s == 126 && strstr(first, "$ORIGIN")) {
				origin_refused++;
			} else if (!s) {
				origin_ok++;
			}
		}
		if (!bad && plandiff) {
			static struct plan pa, pb;
			int fd = open(mpath, O_RDONLY | O_CLOEXEC), ra, rb;
			const char *d;

			if (fd >= 0) {
				ra = elfplan_build(fd, 4096, &pa);
				rb = rtplan_build(fd, 4096, &pb);
				close(fd);
				compared++;
				d = plan_differs(ra, &pa, rb, &pb);
				if (d) {
					bad = true;
					snprintf(why, sizeof(why), "the planners differ (%s): elfplan %d '%s', rtplan %d '%s'",
						 d, ra, pa.err, rb, pb.err);
				}
			}
		}
		if (!bad && every && i % every == 0) {
			s = run((char *[]){ (char *)xoscan, "--tsv", "./m", NULL }, errpath);
			if (s == EXEC_FAILED) {
				bad = true;
				snprintf(why, sizeof(why), "could not execute %s (replaced while the fuzzer ran?)", xoscan);
			} else if (s < 0 || s > 1) {
				bad = true;
				snprintf(why, sizeof(why), "xoscan: %s %d", s == -1000 ? "hang" : s < 0 ? "signal" : "status", s < 0 ? -s : s);
			}
		}
		if (bad) {
			char keep[4096];

			mkdir(faildir, 0755);
			snprintf(keep, sizeof(keep), "%s/fuzz-s%llu-i%llu", faildir, seed, i);
			wfile(keep, buf, n);
			failures++;
			printf("not ok %llu - xoload-fuzz: mutant %llu of %s (seed %llu): %s; saved as %s (rerun: xofuzz -s %llu -i %llu ...)\n",
			       ++tapn, i, sd->path, seed, why, keep, seed, i);
		}
		/* A range with a failure has its not-ok lines instead. */
		if (only == ~0ull && (i + 1) % 1000 == 0 && failures == range_failures)
			printf("ok %llu - xoload-fuzz: mutants %llu..%llu: no crash, every error one line\n", ++tapn, i - 999, i);
		if ((i + 1) % 1000 == 0)
			range_failures = failures;
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# xoload-fuzz: %llu mutants of %d seeds (seed %llu, %s) in %.1f s: %llu accepted, %llu status 126, %llu status 127, %llu failures\n",
	       only == ~0ull ? nmut : 1, nseeds, seed, in_process ? "xoload's main() in a fork" : "exec of xoload",
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       st_count[0], st_count[126], st_count[127], failures);
	if (plandiff)
		printf("# xoload-fuzz: -D: %llu mutants planned by both elfplan.c (libelf) and run/rtplan.c\n", compared);
	if (origin)
		printf("# xoload-fuzz: -O: %llu mutants mapped with $ORIGIN written in or not needed, %llu refused over $ORIGIN\n",
		       origin_ok, origin_refused);
	if (only != ~0ull && !failures)
		printf("ok %llu - xoload-fuzz: mutant %llu: %s\n", ++tapn, only, "no crash");
	/* Most mutants must be refused and some accepted, or the fuzzer is not reaching the parser. */
	if (only == ~0ull) {
		bool spread = st_count[126] > nmut / 10 && st_count[0] > 0;

		printf("%s %llu - xoload-fuzz: the mutants reach both outcomes (%llu accepted, %llu refused)\n",
		       spread ? "ok" : "not ok", ++tapn, st_count[0], st_count[126] + st_count[127]);
		if (!spread)
			failures++;
	}
	printf("1..%llu\n", tapn);
	unlink(mpath);
	unlink(errpath);
	rmdir(workdir);
	return failures ? 1 : 0;
}
