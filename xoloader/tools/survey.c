// SPDX-License-Identifier: GPL-2.0
/*
 * xosurvey - how much of a system's code can be execute-only, and what
 * stays readable: xoload's planner (elfplan.c) over every ELF object under
 * the given directories, on the host (planning needs no pkeys).
 *
 *   xosurvey [--json] [--totals] [--svg FILE] [-j N] [--no-scan]
 *            [--xoscan PATH] DIR|FILE...
 *
 * Per object and in total: the executable bytes (the pages its PF_X
 * segments map), the bytes xoload makes execute-only, the readable rest
 * by reason, and the instructions that can change PKRU (xoscan's matcher:
 * xoscan --json is run on each object, see xoscan.c).  The reasons are
 * elfplan's, folded into the categories of reason_category(); each raw
 * reason is kept in the JSON, so a new rule's reasons show up as they are.
 *
 * Operands are followed if they are symlinks (as find -H: a merged-/usr
 * /bin), the walk below them does not follow symlinks, and a file with
 * several links is counted once.  An operand that is not an ELF object
 * is an error (named, exit 1); in a tree it is an "other file".
 *
 * Objects are planned in parallel by forked workers (elfplan keeps static
 * state: processes, not threads), each taking the next object from a
 * counter in shared memory and writing its result into a shared table;
 * the output is printed afterwards, sorted by path, so that it does not
 * depend on the number of workers.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../ref/elfplan.h"
#include "apply.h"
#include "codebytes.h"
#include "../run/report.h"

extern char **environ;

/* @s as a JSON string in @out: the escaping of the --report lines (run/report.c). */
static char *json_str(char *out, size_t len, const char *s)
{
	static struct rt_line l;

	/* Never cut (a cut string is invalid JSON): escaped, a name grows. */
	l.n = 0;
	rt_put_json(&l, s);
	if (l.n < len) {
		memcpy(out, l.b, l.n);
		out[l.n] = 0;
		return out;
	}
	l.b[l.n < sizeof(l.b) ? l.n : sizeof(l.b) - 1] = 0;
	return l.b;
}

#ifndef XONLY_VERSION
#define XONLY_VERSION "unknown"	/* the Makefile sets it from packaging/debian/changelog */
#endif

static const char usage[] =
"usage: xosurvey [OPTIONS] DIR|FILE...\n"
"\n"
"Plan every ELF object under the DIRs (and each FILE) as xoload would\n"
"(see xoload(1), --plan) and print how much of their code can be made\n"
"execute-only: per object and in total, the headline in code bytes (the\n"
"bytes of the executable sections, SHF_EXECINSTR, and the share of them\n"
"in execute-only pages: XO / (XO + code bytes kept readable), under\n"
"xoload's FDE rule), the executable bytes (pages of the PF_X segments),\n"
"the bytes made execute-only, the bytes kept readable by reason\n"
"(headers, mixed pages, data in text, TEXTREL, no section headers,\n"
"other) and the WRPKRU and XRSTOR* instructions in the code (xoscan(1)).\n"
"Needs no protection keys.  Symlinks named as operands are followed,\n"
"those inside the DIRs are not; a file with several hard links is counted once; an\n"
"operand that is not an ELF object is an error; relocatable objects (.o,\n"
".ko), non-x86-64 ELF files and separate debug files are skipped and\n"
"counted; a truncated or malformed object is an error.\n"
"\n"
"options:\n"
"  --json          one JSON object per line: one per ELF object, then\n"
"                  one with \"total\":true (default: a table and a summary)\n"
"  --totals        only the summary (with --json: only the total line)\n"
"  --svg FILE      also draw two charts into FILE (SVG, with gnuplot):\n"
"                  the share of all executable bytes that is execute-only\n"
"                  and readable by reason (titled with the code-byte\n"
"                  headline), and the distribution of the\n"
"                  objects' coverage (execute-only share of each object's\n"
"                  executable bytes); gnuplot and FILE are checked first\n"
"  -j, --jobs N    plan with N worker processes (default: the number of\n"
"                  online CPUs)\n"
"  --no-scan       do not look for WRPKRU/XRSTOR (faster)\n"
"  --xoscan PATH   the scanner (default: xoscan next to xosurvey, else\n"
"                  on PATH)\n"
"  -h, --help      this text\n"
"      --version   print xosurvey's version and exit\n"
"\n"
"A progress line goes to stderr when it is a terminal.  Exit status: 0;\n"
"1 if a file could not be read, planned or scanned, an operand is missing\n"
"(the others are still surveyed), or a worker died (the output names\n"
"them); 2 usage error, or --svg without gnuplot or a writable FILE.\n";

/* The categories of readable bytes; elfplan's reasons map onto them. */
enum { C_HEADERS, C_MIXED, C_DATA, C_TEXTREL, C_NOSHDR, C_OTHER, NCAT };
static const char *const cat_name[NCAT] = {
	"headers", "mixed pages", "data in text", "TEXTREL", "no section headers", "other",
};
static const char *const cat_key[NCAT] = {
	"headers", "mixed_pages", "data_in_text", "textrel", "no_section_headers", "other",
};

/*
 * elfplan's reason for a readable range -> its category.  Besides the
 * reasons named here, elfplan gives the name of the section that is not
 * code in the page (".rodata", ".eh_frame", ".nv_fatbin", Go's
 * "flags_help_cold"): data in text, as is a reason that says so.
 */
static int reason_category(const char *why)
{
	if (!strcmp(why, "ELF header") || !strcmp(why, "program headers"))
		return C_HEADERS;
	if (!strcmp(why, "shares page with data segment") || strstr(why, "mixed"))
		return C_MIXED;
	if (!strcmp(why, "TEXTREL"))
		return C_TEXTREL;
	if (!strcmp(why, "no section headers"))
		return C_NOSHDR;
	/* Whole-object reasons of the FDE rule: nothing tells code from data. */
	if (!strcmp(why, "too many ranges") || strstr(why, "unparsable"))
		return C_OTHER;
	return C_DATA;
}

#define MAX_REASONS	16

enum state { S_TODO, S_STARTED, S_PLANNED, S_SKIPPED, S_FAILED };

struct result {
	enum state state;
	char note[96];		/* S_SKIPPED / S_FAILED: why */
	uint64_t exec, xo, cat[NCAT];
	uint64_t code, code_xo;	/* bytes of the executable sections, of them execute-only */
	struct { char why[48]; uint64_t bytes; } reason[MAX_REASONS];
	int nreason;
	bool scanned;
	unsigned long wrpkru, wrpkru_b, xrstor, xrstor_b;	/* _b: at an instruction boundary */
};

struct shared {
	size_t next, done;
	struct result r[];
};

/* operand: named on the command line (not found in a tree): never silently dropped. */
struct file { char *path; dev_t dev; ino_t ino; bool operand; };

static struct file *files;
/* walk_errors: directories the walk could not read, files it could not stat. */
static size_t nfiles, cap, nonelf_walked, operand_errors, walk_errors;
/*
 * A symlink named on the command line is walked through its target (as
 * find -H does), its paths shown under the name given: walk_real is the
 * resolved directory nftw walks, walk_as the operand.
 */
static const char *walk_real, *walk_as;
static const char *xoscan_path;
static bool do_scan = true;

/* Does @path start with the ELF magic?  (Unreadable: yes, so that the worker reports it.) */
static bool elf_magic(const char *path)
{
	char m[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool yes;

	if (fd < 0)
		return true;
	yes = read(fd, m, SELFMAG) != SELFMAG || !memcmp(m, ELFMAG, SELFMAG);
	close(fd);
	return yes;
}

static void add_file(const char *path, const struct stat *st, bool operand)
{
	if (nfiles == cap) {
		cap = cap ? 2 * cap : 4096;
		files = realloc(files, cap * sizeof(*files));
		if (!files) {
			fprintf(stderr, "xosurvey: out of memory\n");
			exit(1);
		}
	}
	files[nfiles].path = strdup(path);
	files[nfiles].dev = st->st_dev;
	files[nfiles].ino = st->st_ino;
	files[nfiles].operand = operand;
	if (!files[nfiles].path) {
		fprintf(stderr, "xosurvey: out of memory\n");
		exit(1);
	}
	nfiles++;
}

static int walk_cb(const char *rpath, const struct stat *st, int type, struct FTW *ftw)
{
	char shown[PATH_MAX * 2];
	const char *path = rpath;
	int err = errno;	/* nftw's opendir() or stat() failure: FTW_DNR, FTW_NS */

	(void)ftw;
	if (walk_as) {
		const char *rest = rpath + strlen(walk_real);

		/* walk_real "/" is the only one that ends in a slash: keep the one of the rest. */
		snprintf(shown, sizeof(shown), "%s%s%s", walk_as,
			 *rest && walk_real[strlen(walk_real) - 1] == '/' ? "/" : "", rest);
		path = shown;
	}
	if (type == FTW_DNR || type == FTW_NS) {
		fprintf(stderr, "xosurvey: %s: cannot %s it: %s\n", rt_safe(path), type == FTW_DNR ? "read" : "stat",
			err ? strerror(err) : "unknown error");
		walk_errors++;
		return 0;
	}
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	/* Smaller than an ELF header, or no ELF magic: not an object. */
	if (st->st_size < (off_t)sizeof(Elf64_Ehdr) || !elf_magic(rpath)) {
		nonelf_walked++;
		return 0;
	}
	add_file(path, st, false);
	return 0;
}

/* An operand that is not an ELF object: one line saying why, and exit 1. */
static void operand_error(const char *path, const char *why)
{
	fprintf(stderr, "xosurvey: %s: %s\n", rt_safe(path), why);
	operand_errors++;
}

/*
 * A FILE named on the command line (@st: what it resolves to).  In a tree
 * anything that is not an ELF object is counted as an "other file"; a
 * file named on its own was meant to be surveyed, so it is an error.
 */
static void add_operand(const char *path, const struct stat *st)
{
	char head[SELFMAG];
	ssize_t n = 0;
	int fd;

	if (!S_ISREG(st->st_mode)) {
		operand_error(path, S_ISFIFO(st->st_mode) ? "a FIFO, not an ELF object" :
			      S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device, not an ELF object" :
			      S_ISSOCK(st->st_mode) ? "a socket, not an ELF object" :
			      "not a regular file or directory");
		return;
	}
	if (st->st_size == 0) {
		operand_error(path, "an empty file, not an ELF object");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0) {
		n = read(fd, head, sizeof(head));
		close(fd);
	}
	/* Unreadable: let the worker report it, as for a file in a tree. */
	if (fd < 0 || n < 0) {
		add_file(path, st, true);
		return;
	}
	if (n >= 2 && !memcmp(head, "#!", 2))
		operand_error(path, "a script, not an ELF object");
	else if (n < SELFMAG || memcmp(head, ELFMAG, SELFMAG))
		operand_error(path, "not an ELF object");
	else if (st->st_size < (off_t)sizeof(Elf64_Ehdr))
		operand_error(path, "a truncated ELF header");
	else
		add_file(path, st, true);
}

static int by_inode(const void *a, const void *b)
{
	const struct file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

/* One file per inode (the first path in byte order), then sorted by path. */
static void dedupe(void)
{
	size_t i, k = 0;

	qsort(files, nfiles, sizeof(*files), by_inode);
	for (i = 0; i < nfiles; i++) {
		if (k && files[k - 1].dev == files[i].dev && files[k - 1].ino == files[i].ino) {
			files[k - 1].operand |= files[i].operand;
			free(files[i].path);
			continue;
		}
		files[k++] = files[i];
	}
	nfiles = k;
	qsort(files, nfiles, sizeof(*files), by_path);
}

static void note(struct result *r, enum state st, const char *fmt, const char *arg)
{
	r->state = st;
	snprintf(r->note, sizeof(r->note), fmt, arg);
}

/*
 * Is @fd an object elfplan should plan?  NULL if so, else why not.  A
 * separate debug file (objcopy --only-keep-debug) has the program headers
 * of the real object but no code: its SHF_EXECINSTR sections are NOBITS.
 */
static const char *not_plannable(int fd, bool *is_elf)
{
	const char *why = NULL;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	bool code = false, have_shdrs;
	size_t shstrndx;
	struct stat st;
	Elf *e;

	*is_elf = false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		return "not ELF";
	}
	*is_elf = true;
	if (gelf_getclass(e) != ELFCLASS64 || eh.e_machine != EM_X86_64)
		why = "not x86-64";
	else if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		why = eh.e_type == ET_REL ? "relocatable object" : "not an executable or shared object";
	if (why) {
		elf_end(e);
		return why;
	}
	/*
	 * Only a section header table that lies in the file can say "no
	 * code": libelf shows one cut off by a truncated file as no sections
	 * at all, and that file is malformed (the planner says so), not
	 * debug info.
	 */
	have_shdrs = !elf_getshdrstrndx(e, &shstrndx) && eh.e_shnum > 0 && !fstat(fd, &st) &&
		     eh.e_shoff <= (uint64_t)st.st_size &&
		     ((uint64_t)st.st_size - eh.e_shoff) / sizeof(Elf64_Shdr) >= eh.e_shnum;
	while (have_shdrs && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size)
			code = true;
	}
	elf_end(e);
	if (have_shdrs && !code)
		return "no code in the file (separate debug info?)";
	return NULL;
}

static void add_reason(struct result *r, const char *why, uint64_t bytes)
{
	int i;

	for (i = 0; i < r->nreason; i++)
		if (!strcmp(r->reason[i].why, why))
			break;
	if (i == r->nreason) {
		/* The last slot collects whatever does not fit. */
		if (r->nreason == MAX_REASONS)
			i = MAX_REASONS - 1, why = "(more reasons)";
		else
			r->nreason++;
		snprintf(r->reason[i].why, sizeof(r->reason[i].why), "%s", why);
	}
	r->reason[i].bytes += bytes;
}

/* Count xoscan's findings in @path into @r; false if it could not scan it. */
static bool scan(const char *path, struct result *r)
{
	const char *argv[] = { xoscan_path, "--json", "--", path, NULL };
	posix_spawn_file_actions_t fa;
	char line[8192];
	int pfd[2], st;
	bool total = false;
	pid_t pid;
	FILE *f;

	if (pipe2(pfd, O_CLOEXEC))
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	st = posix_spawn(&pid, xoscan_path, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (st) {
		close(pfd[0]);
		return false;
	}
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		bool boundary = strstr(line, "\"where\":\"boundary\"");

		if (strstr(line, "{\"scan\":\"total\""))
			total = true;
		else if (strstr(line, "\"insn\":\"wrpkru\""))
			r->wrpkru++, r->wrpkru_b += boundary;
		else if (strstr(line, "\"insn\":\"xrstor"))
			r->xrstor++, r->xrstor_b += boundary;
	}
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return total && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void survey_one(const char *path, struct result *r)
{
	static struct plan p;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	const char *why;
	bool is_elf;
	int fd, i;

	r->state = S_STARTED;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		note(r, S_FAILED, "cannot open it: %s", strerror(errno));
		return;
	}
	why = not_plannable(fd, &is_elf);
	if (why) {
		note(r, S_SKIPPED, "%s", why);
		close(fd);
		return;
	}
	/*
	 * An x86-64 executable or shared object that the planner refuses
	 * (truncated, malformed: the admission check, rule/admit.c, as in
	 * xoload) is an error, not a skip: it is not what it claims to be.
	 */
	if (elfplan_build(fd, ps, &p)) {
		note(r, S_FAILED, "cannot be planned: %s", p.err);
		close(fd);
		return;
	}
	{
		const struct plan *pp = &p;
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);

		code_bytes(e, &pp, 1, &r->code, &r->code_xo);
		if (e)
			elf_end(e);
	}
	close(fd);
	for (i = 0; i < p.n; i++) {
		uint64_t n = p.r[i].end - p.r[i].start;

		r->exec += n;
		if (p.r[i].xo) {
			r->xo += n;
			continue;
		}
		r->cat[reason_category(p.r[i].why)] += n;
		add_reason(r, p.r[i].why, n);
	}
	r->state = S_PLANNED;
	if (do_scan && r->exec) {
		r->scanned = scan(path, r);
		if (!r->scanned)
			snprintf(r->note, sizeof(r->note), "xoscan failed on it");
	}
}

static void worker(struct shared *sh)
{
	size_t i;

	elf_version(EV_CURRENT);
	while ((i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED)) < nfiles) {
		survey_one(files[i].path, &sh->r[i]);
		__atomic_fetch_add(&sh->done, 1, __ATOMIC_RELEASE);
	}
	_exit(0);
}

static void progress(const struct shared *sh, bool last)
{
	fprintf(stderr, "\rxosurvey: %zu/%zu files planned%s", __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE),
		nfiles, last ? "\033[K\r\033[K" : "");
}

/* Run @jobs workers over the table; false if one of them died. */
static bool run_workers(struct shared *sh, long jobs)
{
	bool tty = isatty(2), ok = true;
	pid_t *pids = calloc((size_t)jobs, sizeof(*pids));
	long i, left = 0;

	if (!pids)
		return false;
	fflush(NULL);
	for (i = 0; i < jobs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(sh);
		if (pids[i] < 0) {
			fprintf(stderr, "xosurvey: fork: %s\n", strerror(errno));
			ok = false;
			break;
		}
		left++;
	}
	while (left > 0) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);

		if (pid > 0) {
			left--;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				fprintf(stderr, "\nxosurvey: a worker died (%s %d)\n",
					WIFSIGNALED(st) ? "signal" : "status",
					WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
				ok = false;
			}
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (tty)
			progress(sh, false);
		nanosleep(&ts, NULL);
	}
	if (tty)
		progress(sh, true);
	free(pids);
	return ok;
}

struct totals {
	size_t planned, skipped, failed, full, none, with_wrpkru, with_xrstor;
	uint64_t exec, xo, cat[NCAT], code, code_xo;
	unsigned long wrpkru, wrpkru_b, xrstor, xrstor_b;
	struct { char why[96]; size_t n; } skip[16];
	int nskip;
};

static void count_skip(struct totals *t, const char *why)
{
	int i;

	for (i = 0; i < t->nskip; i++)
		if (!strcmp(t->skip[i].why, why))
			break;
	if (i == t->nskip) {
		if (t->nskip == 16)
			why = "other", i = 15;
		else
			t->nskip++;
		snprintf(t->skip[i].why, sizeof(t->skip[i].why), "%s", why);
	}
	t->skip[i].n++;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_json(const char *path, const struct result *r)
{
	char o[2 * PATH_MAX + 8], w[128];
	int i;

	printf("{\"object\":%s", json_str(o, sizeof(o), path));
	if (r->state != S_PLANNED) {
		printf(",\"%s\":%s}\n", r->state == S_SKIPPED ? "skipped" : "error", json_str(w, sizeof(w), r->note));
		return;
	}
	printf(",\"code\":%llu,\"code_xo\":%llu,\"exec\":%llu,\"xo\":%llu,\"readable\":{",
	       (unsigned long long)r->code, (unsigned long long)r->code_xo, (unsigned long long)r->exec,
	       (unsigned long long)r->xo);
	for (i = 0; i < NCAT; i++)
		printf("%s\"%s\":%llu", i ? "," : "", cat_key[i], (unsigned long long)r->cat[i]);
	printf("},\"reasons\":{");
	for (i = 0; i < r->nreason; i++)
		printf("%s%s:%llu", i ? "," : "", json_str(w, sizeof(w), r->reason[i].why),
		       (unsigned long long)r->reason[i].bytes);
	printf("}");
	if (r->scanned)
		printf(",\"wrpkru\":%lu,\"wrpkru_boundary\":%lu,\"xrstor\":%lu,\"xrstor_boundary\":%lu",
		       r->wrpkru, r->wrpkru_b, r->xrstor, r->xrstor_b);
	else if (do_scan && r->exec)
		printf(",\"error\":\"xoscan failed on it\"");
	printf("}\n");
}

static void print_row(const char *path, const struct result *r)
{
	int i;

	if (r->state != S_PLANNED) {
		printf("%-9s %s: %s\n", r->state == S_SKIPPED ? "skipped" : "ERROR", rt_safe(path), r->note);
		return;
	}
	printf("%9llu %9llu %6.2f%% %6.2f%%", (unsigned long long)(r->exec / 1024), (unsigned long long)(r->xo / 1024),
	       pct(r->xo, r->exec), pct(r->code_xo, r->code));
	for (i = 0; i < NCAT; i++)
		printf(" %7llu", (unsigned long long)(r->cat[i] / 1024));
	if (r->scanned)
		printf(" %6lu %6lu", r->wrpkru, r->xrstor);
	else
		printf(" %6s %6s", "-", "-");
	printf("  %s\n", rt_safe(path));
}

static void add_up(struct totals *t, const struct result *r)
{
	int i;

	if (r->state == S_SKIPPED) {
		t->skipped++;
		count_skip(t, r->note);
		return;
	}
	if (r->state != S_PLANNED) {
		t->failed++;
		return;
	}
	t->planned++;
	t->exec += r->exec;
	t->xo += r->xo;
	t->code += r->code;
	t->code_xo += r->code_xo;
	for (i = 0; i < NCAT; i++)
		t->cat[i] += r->cat[i];
	if (r->exec && r->xo == r->exec)
		t->full++;
	if (r->exec && !r->xo)
		t->none++;
	if (!r->scanned && do_scan && r->exec)
		t->failed++;
	t->wrpkru += r->wrpkru, t->wrpkru_b += r->wrpkru_b;
	t->xrstor += r->xrstor, t->xrstor_b += r->xrstor_b;
	t->with_wrpkru += r->wrpkru > 0;
	t->with_xrstor += r->xrstor > 0;
}

static void print_totals_json(const struct totals *t)
{
	char w[256];
	int i;

	printf("{\"total\":true,\"objects\":%zu,\"code\":%llu,\"code_xo\":%llu,\"exec\":%llu,\"xo\":%llu,"
	       "\"readable\":{", t->planned, (unsigned long long)t->code, (unsigned long long)t->code_xo,
	       (unsigned long long)t->exec, (unsigned long long)t->xo);
	for (i = 0; i < NCAT; i++)
		printf("%s\"%s\":%llu", i ? "," : "", cat_key[i], (unsigned long long)t->cat[i]);
	printf("},\"objects_all_xo\":%zu,\"objects_no_xo\":%zu", t->full, t->none);
	if (do_scan)
		printf(",\"wrpkru\":%lu,\"wrpkru_boundary\":%lu,\"objects_with_wrpkru\":%zu,"
		       "\"xrstor\":%lu,\"xrstor_boundary\":%lu,\"objects_with_xrstor\":%zu",
		       t->wrpkru, t->wrpkru_b, t->with_wrpkru, t->xrstor, t->xrstor_b, t->with_xrstor);
	printf(",\"skipped\":{");
	for (i = 0; i < t->nskip; i++)
		printf("%s%s:%zu", i ? "," : "", json_str(w, sizeof(w), t->skip[i].why), t->skip[i].n);
	printf("},\"errors\":%zu,\"non_elf_files\":%zu}\n", t->failed, nonelf_walked);
}

static void print_totals(const struct totals *t)
{
	int i;

	printf("xosurvey: %zu objects: %llu KiB executable, %llu KiB execute-only (%.2f%%)\n", t->planned,
	       (unsigned long long)(t->exec / 1024), (unsigned long long)(t->xo / 1024), pct(t->xo, t->exec));
	/* The headline: what the linker called code, beside the pages of the segments above. */
	printf("xosurvey: code bytes (executable sections): %llu KiB, %llu KiB of them execute-only: %.2f%% "
	       "(%llu KiB readable)\n", (unsigned long long)(t->code / 1024), (unsigned long long)(t->code_xo / 1024),
	       pct(t->code_xo, t->code), (unsigned long long)((t->code - t->code_xo) / 1024));
	printf("xosurvey: readable:");
	for (i = 0; i < NCAT; i++)
		printf("%s %s %llu KiB (%.2f%%)", i ? "," : "", cat_name[i], (unsigned long long)(t->cat[i] / 1024),
		       pct(t->cat[i], t->exec));
	printf("\n");
	printf("xosurvey: %zu objects entirely execute-only, %zu with no execute-only page\n", t->full, t->none);
	if (do_scan)
		printf("xosurvey: WRPKRU %lu (%lu at instruction boundaries) in %zu objects; "
		       "XRSTOR* %lu (%lu at boundaries) in %zu objects\n",
		       t->wrpkru, t->wrpkru_b, t->with_wrpkru, t->xrstor, t->xrstor_b, t->with_xrstor);
	printf("xosurvey: skipped %zu ELF files", t->skipped);
	for (i = 0; i < t->nskip; i++)
		printf("%s %s %zu", i ? "," : ":", t->skip[i].why, t->skip[i].n);
	printf("; %zu other files", nonelf_walked);
	if (t->failed)
		printf("; %zu ERRORS (see above)", t->failed);
	printf("\n");
}

/*
 * Two charts side by side, drawn by gnuplot into @svg: where the
 * executable bytes of all objects went (execute-only, and the readable
 * rest by reason: the headline), and the coverage distribution, objects
 * per 10% bin of their execute-only share, "100%" a bar of its own.
 */
static int draw_svg(const char *svg, const struct shared *sh, const struct totals *t)
{
	char dat[] = "/tmp/xosurvey-XXXXXX", bdat[] = "/tmp/xosurvey-b-XXXXXX", gp[] = "/tmp/xosurvey-gp-XXXXXX";
	char qsvg[2 * PATH_MAX];
	size_t bins[11] = { 0 }, i, k = 0;
	const char *argv[] = { "gnuplot", gp, NULL };
	int fd, bfd, gfd, st = -1, ret = 1;
	FILE *f, *b, *g;
	pid_t pid;

	for (i = 0; i < nfiles; i++) {
		const struct result *r = &sh->r[i];

		if (r->state != S_PLANNED || !r->exec)
			continue;
		bins[r->xo == r->exec ? 10 : (size_t)(10 * r->xo / r->exec)]++;
	}
	/* gnuplot's single-quoted string: only ' needs escaping, as ''. */
	for (i = 0; svg[i] && k + 3 < sizeof(qsvg); i++) {
		if (svg[i] == '\'')
			qsvg[k++] = '\'';
		qsvg[k++] = svg[i];
	}
	qsvg[k] = 0;
	fd = mkstemp(dat);
	bfd = mkstemp(bdat);
	gfd = mkstemp(gp);
	if (fd < 0 || bfd < 0 || gfd < 0 || !(f = fdopen(fd, "w")) || !(b = fdopen(bfd, "w")) ||
	    !(g = fdopen(gfd, "w"))) {
		fprintf(stderr, "xosurvey: --svg: temporary files: %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < 11; i++)
		fprintf(f, "%zu %zu\n", i, bins[i]);
	fclose(f);
	fprintf(b, "0 %.4f %llu\n", pct(t->xo, t->exec), (unsigned long long)t->xo);
	for (i = 0; i < NCAT; i++)
		fprintf(b, "%zu %.4f %llu\n", i + 1, pct(t->cat[i], t->exec), (unsigned long long)t->cat[i]);
	fclose(b);
	fprintf(g, "set terminal svg size 1280,520 dynamic font 'sans,12'\n"
		"set output '%s'\n"
		"set multiplot layout 1,2\n"
		/* the headline (code bytes) above the segment bytes the bars divide */
		"set title \"Code bytes (executable sections, %.1f MiB): %.2f%% execute-only\\n"
		"Executable bytes of %zu ELF objects (%.1f MiB): %.2f%% execute-only\"\n"
		"set ylabel 'share of all executable bytes (%%)'\n"
		"set style fill solid 0.7 border -1\n"
		"set boxwidth 0.8\n"
		"set xrange [-0.6:%d.6]\n"
		"set yrange [0:110]\n"
		"set xtics ('execute-only' 0",
		qsvg, t->code / 1048576.0, pct(t->code_xo, t->code), t->planned, t->exec / 1048576.0,
		pct(t->xo, t->exec), NCAT);
	for (i = 0; i < NCAT; i++)
		fprintf(g, ", 'readable: %s' %zu", cat_name[i], i + 1);
	fprintf(g, ") rotate by -30\n"
		"set grid ytics\n"
		"plot '%s' using 1:2 with boxes notitle, '' using 1:2:(sprintf('%%.2f%%%%', $2)) "
		"with labels offset 0,0.7 notitle\n"
		"unset xtics\n"
		"set xtics\n",
		bdat);
	fprintf(g, "set title 'Execute-only coverage of %zu ELF objects (all together: %.2f%%)'\n"
		"set xlabel 'share of the object''s executable bytes that is execute-only'\n"
		"set ylabel 'objects'\n"
		"set style fill solid 0.7 border -1\n"
		"set boxwidth 0.8\n"
		"set xrange [-0.6:10.6]\n"
		"set yrange [0:*]\n"
		/* tic labels are formats too: a percent sign is %% for gnuplot */
		"set xtics ('0-10%%%%' 0, '10-20%%%%' 1, '20-30%%%%' 2, '30-40%%%%' 3, '40-50%%%%' 4, '50-60%%%%' 5,"
		" '60-70%%%%' 6, '70-80%%%%' 7, '80-90%%%%' 8, '90-<100%%%%' 9, '100%%%%' 10) rotate by -30\n"
		"set grid ytics\n"
		"plot '%s' using 1:2 with boxes notitle, '' using 1:2:2 with labels offset 0,0.7 notitle\n"
		"unset multiplot\n",
		t->planned, pct(t->xo, t->exec), dat);
	fclose(g);
	if ((st = posix_spawnp(&pid, "gnuplot", NULL, NULL, (char *const *)argv, environ))) {
		fprintf(stderr, "xosurvey: --svg: cannot run gnuplot: %s (Debian: gnuplot-nox)\n", strerror(st));
		goto out;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "xosurvey: --svg: gnuplot failed\n");
		goto out;
	}
	ret = 0;
out:
	unlink(dat);
	unlink(bdat);
	unlink(gp);
	return ret;
}

/* @name on PATH, as posix_spawn needs a path. */
static const char *on_path(const char *name);

/* --svg FILE: gnuplot on PATH, FILE writable (or creatable), else say so: 1. */
static int svg_check(const char *svg)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (!on_path("gnuplot")) {
		fputs("xosurvey: --svg: gnuplot is not on PATH (Debian: apt install gnuplot-nox)\n", stderr);
		return 1;
	}
	if (!stat(svg, &st)) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "xosurvey: --svg %s: a directory\n", svg);
			return 1;
		}
		if (access(svg, W_OK)) {
			fprintf(stderr, "xosurvey: --svg %s: %s\n", svg, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (errno != ENOENT) {
		fprintf(stderr, "xosurvey: --svg %s: %s\n", svg, strerror(errno));
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", svg);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	if (stat(dir, &st) || access(dir, W_OK | X_OK)) {
		fprintf(stderr, "xosurvey: --svg %s: cannot create it in %s: %s\n", svg, dir, strerror(errno));
		return 1;
	}
	return 0;
}

/* xoscan: next to our resolved path, else on PATH. */
static const char *find_xoscan(void)
{
	static char buf[PATH_MAX];
	char *slash;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 16);

	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, "xoscan");
			if (!access(buf, X_OK))
				return buf;
		}
	}
	return NULL;
}

/* @name on PATH, as posix_spawn needs a path. */
static const char *on_path(const char *name)
{
	static char buf[PATH_MAX];
	const char *p = getenv("PATH"), *e;

	for (p = p ? p : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, name);
		if (e != p && !access(buf, X_OK))
			return buf;
		if (!*e)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "totals", no_argument, NULL, 'T' },
		{ "svg", required_argument, NULL, 'G' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "no-scan", no_argument, NULL, 'N' },
		{ "xoscan", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, totals_only = false, ok = true;
	const char *svg = NULL;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	struct totals t = { 0 };
	struct shared *sh;
	size_t i, shsize;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+hj:", opts, NULL)) != -1) {
		switch (c) {
		case 'J': json = true; break;
		case 'T': totals_only = true; break;
		case 'G':
			/* "--svg --totals" must not draw into a file named --totals */
			if (optarg[0] == '-' && optarg[1]) {
				fprintf(stderr, "xosurvey: --svg wants a file name, not '%s' (a file of that name: "
					"--svg ./%s)\n", optarg, optarg);
				return 2;
			}
			svg = optarg;
			break;
		case 'N': do_scan = false; break;
		case 'X': xoscan_path = optarg; break;
		case 'j':
			errno = 0;
			jobs = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || jobs < 1 || jobs > 1024) {
				fprintf(stderr, "xosurvey: --jobs wants a number from 1 to 1024, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("xosurvey (xonly) %s\n", XONLY_VERSION); return 0;
		default: fputs("usage: xosurvey [OPTIONS] DIR|FILE...  (see --help)\n", stderr); return 2;
		}
	}
	if (optind >= argc) {
		fputs("xosurvey: no directory given (see --help)\n", stderr);
		return 2;
	}
	if (jobs < 1)
		jobs = 1;
	/* --svg: gnuplot and a writable FILE, before minutes of surveying. */
	if (svg && svg_check(svg))
		return 2;
	if (do_scan && !xoscan_path && !(xoscan_path = find_xoscan()) && !(xoscan_path = on_path("xoscan"))) {
		fputs("xosurvey: xoscan not found next to xosurvey or on PATH (--xoscan PATH, or --no-scan)\n", stderr);
		return 2;
	}
	if (do_scan && access(xoscan_path, X_OK)) {
		fprintf(stderr, "xosurvey: --xoscan %s: %s\n", xoscan_path, strerror(errno));
		return 2;
	}
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		static char real[PATH_MAX];
		struct stat lst, st;

		/* A missing operand is an error; the others are still surveyed (exit 1). */
		if (lstat(argv[i], &lst)) {
			operand_error(argv[i], strerror(errno));
			continue;
		}
		/* Operands are followed (a dangling link or a loop is an error); trees are not. */
		if (stat(argv[i], &st)) {
			operand_error(argv[i], errno == ELOOP ? "a symlink loop, not an ELF object" :
				      errno == ENOENT ? "a dangling symlink, not an ELF object" : strerror(errno));
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			add_operand(argv[i], &st);
			continue;
		}
		walk_real = walk_as = NULL;
		if (S_ISLNK(lst.st_mode)) {
			if (!realpath(argv[i], real)) {
				operand_error(argv[i], strerror(errno));
				continue;
			}
			walk_real = real, walk_as = argv[i];
		}
		if (nftw(walk_real ? walk_real : argv[i], walk_cb, 64, FTW_PHYS)) {
			fprintf(stderr, "xosurvey: %s: walk failed: %s\n", rt_safe(argv[i]), strerror(errno));
			walk_errors++;
		}
	}
	dedupe();
	shsize = sizeof(*sh) + nfiles * sizeof(sh->r[0]);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "xosurvey: mmap: %s\n", strerror(errno));
		return 1;
	}
	if ((size_t)jobs > nfiles)
		jobs = nfiles ? (long)nfiles : 1;
	ok = run_workers(sh, jobs);
	if (!json && !totals_only) {
		printf("%9s %9s %7s %7s", "exec KiB", "xo KiB", "xo", "code xo");
		printf(" %7s %7s %7s %7s %7s %7s", "headers", "mixed", "data", "textrel", "noshdr", "other");
		printf(" %6s %6s  %s\n", "wrpkru", "xrstor", "object");
	}
	for (i = 0; i < nfiles; i++) {
		struct result *r = &sh->r[i];

		if (r->state == S_TODO || r->state == S_STARTED)
			note(r, S_FAILED, "%s", r->state == S_TODO ? "not planned (a worker died)" :
						"its worker died planning it");
		if (r->state == S_SKIPPED && !strcmp(r->note, "not ELF")) {
			/* ELF magic, but libelf disagrees: in a tree an other file. */
			if (files[i].operand)
				operand_error(files[i].path, "not an ELF object");
			else
				nonelf_walked++;
			continue;
		}
		add_up(&t, r);
		if (r->state == S_FAILED || (do_scan && r->state == S_PLANNED && r->exec && !r->scanned))
			fprintf(stderr, "xosurvey: %s: %s\n", rt_safe(files[i].path), r->note);
		if (totals_only)
			continue;
		if (json)
			print_json(files[i].path, r);
		else
			print_row(files[i].path, r);
	}
	/* Everything that went wrong, where the summary and the JSON total count errors. */
	t.failed += operand_errors + walk_errors;
	if (json)
		print_totals_json(&t);
	else
		print_totals(&t);
	fflush(stdout);
	if (svg && draw_svg(svg, sh, &t))
		ok = false;
	return ok && !t.failed ? 0 : 1;
}
