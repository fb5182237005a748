// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_learn - xonly learn mode: PR_SET_XONLY PR_XONLY_LEARN (3) and
 * xonly=learn (kernel/patches/KVER/0070, issue 24 step 1).
 *
 * The code file: six pages of a /tmp file, mapped PROT_READ|PROT_EXEC
 * after the prctl, so xonly mode makes them execute-only:
 *   page 0: f0 (returns MARK0) and, at 0x100, reader(), whose load at
 *           0x107 reads the table in page 1;
 *   page 1: the table reader() reads;   page 2: a table this program
 *           reads itself;   page 3: f3 (returns MARK3), never read;
 *   page 4: a table four threads read at once;   page 5: a table a
 *           fork() child reads.
 *
 * Proves, in a child in learn mode:
 *  - SET 3 is 0, GET is 3 and /proc/self/status says "Xonly: 3"; the file
 *    mapping is --xp with a key in all six pages;
 *  - calls of f0 and reader() work: the load of reader() did not kill, it
 *    read the table; page 1 is now r-xp with key 0, and the pages around
 *    it are still --xp with the key (one page learned, not the mapping);
 *    a load by this program of page 2 does not fault and reads the value;
 *    four threads reading page 4 at once all survive and read it;
 *  - exactly the pages read (1, 2, 4) are readable, 3 of 6, and f3 still
 *    runs from its --xp page;
 *  - a fork() child is in learn mode (GET 3), reads page 1 without a new
 *    log line (it inherited the readable page), learns page 5 for itself,
 *    and the parent's page 5 is still --xp; an execve() keeps learn mode
 *    (the new program's GET is 3);
 *  - execute-only memory the program keyed itself still faults: an
 *    anonymous PROT_EXEC page (the execute-only key) and a file page
 *    pkey_mprotect()ed with a key of its own, SEGV_PKUERR with that key,
 *    and neither becomes readable;
 *  - the kernel log has one "xonly learn:" line per page learned and no
 *    other for this process: page 1 with comm, pid, the file's path,
 *    offset 0x1000, size 0x1000, and the instruction reader()'s load at
 *    the file's offset 0x107; page 2 with this program as the
 *    instruction's file; page 4 once for four threads; page 5 once, with
 *    the fork child's pid;
 *  - PR_SET_XONLY 1 ends learn mode (GET 1): a read of f3 then faults
 *    SEGV_PKUERR at f3 and is not logged, page 1 stays readable, and SET
 *    3 is EPERM.
 * And, each in a process of its own:
 *  - the same reader() in xonly mode (level 1) dies of SIGSEGV: this is
 *    what learn mode changes;
 *  - programs that read no code log nothing: a PIE built with separate
 *    code (hello), and this static program exec'd again;
 *  - a -z noseparate-code PIE (hello-nosep), which dies in xonly mode
 *    because ld.so reads its headers, runs in learn mode and its file is
 *    logged at offset 0.
 * With xonly=on (xonly=strict) every process is at level 1 (2), which
 * learn mode ranks below: SET 3 is EPERM and the rest
 * is skipped.  With xonly=learn this process is in learn mode from the
 * start (GET 3), the kernel said so at boot, init's Xonly: is 3, and the
 * same checks hold.  Without PKU SET 3 is EOPNOTSUPP and the rest is
 * skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define LEARN		XONLY_PR_XONLY_LEARN
#define NPAGES		6
#define MARK0		0x600d0000u
#define MARK3		0x600d0003u
#define READER_OFF	0x100
#define LOAD_OFF	(READER_OFF + 7)	/* reader()'s mov (%rax),%eax */
#define TABLE1		(0x1000 + 0x40)
#define TABLE2		(0x2000 + 0x80)
#define TABLE4		(0x4000 + 0x10)
#define TABLE5		(0x5000 + 0x20)
#define HELLO		"/xonly/lib/xoload/hello"
#define HELLO_NOSEP	"/xonly/lib/xoload/hello-nosep"
#define NTHREADS	4

static const uint32_t values[NPAGES] = { 0, 0x7ab1e001u, 0x7ab1e002u, 0, 0x7ab1e004u, 0x7ab1e005u };

static char code_path[64];
static char exe_path[256];
static char comm[32];

/* "mov $v, %eax; ret" at @c */
static void put_ret(unsigned char *c, uint32_t v)
{
	c[0] = 0xb8;
	memcpy(c + 1, &v, 4);
	c[5] = 0xc3;
}

/* The code file, NPAGES pages, at code_path; false if it cannot be made. */
static bool make_code_file(void)
{
	size_t ps = page_size(), len = NPAGES * ps;
	unsigned char *c = calloc(1, len);
	int32_t disp = TABLE1 - (READER_OFF + 7);
	static const unsigned int tables[] = { TABLE1, TABLE2, 0, TABLE4, TABLE5 };
	int fd;

	if (!c || ps != 0x1000)
		return false;
	memset(c, 0xcc, len);
	put_ret(c, MARK0);
	/* reader: lea TABLE1(%rip),%rax; mov (%rax),%eax; ret */
	c[READER_OFF] = 0x48;
	c[READER_OFF + 1] = 0x8d;
	c[READER_OFF + 2] = 0x05;
	memcpy(c + READER_OFF + 3, &disp, 4);
	c[LOAD_OFF] = 0x8b;
	c[LOAD_OFF + 1] = 0x00;
	c[LOAD_OFF + 2] = 0xc3;
	for (int i = 0; i < 5; i++)
		if (tables[i])
			memcpy(c + tables[i], &values[tables[i] / 0x1000], 4);
	put_ret(c + 3 * ps, MARK3);
	snprintf(code_path, sizeof(code_path), "/tmp/xonly_learn.%d.code", (int)getpid());
	fd = open(code_path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	if (fd < 0 || pwrite(fd, c, len, 0) != (ssize_t)len) {
		free(c);
		return false;
	}
	free(c);
	return !close(fd);
}

/* The "xonly learn:" lines of the kernel log (one string, lines joined by '\n'). */
static char *learn_lines(void)
{
	static char buf[1 << 20];
	char *out = calloc(1, sizeof(buf)), *p, *end;
	int len = klogctl(3, buf, sizeof(buf) - 1);

	if (!out || len < 0)
		return out;
	buf[len] = 0;
	for (p = buf; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (memmem(p, (size_t)(end - p), "xonly learn: ", 13)) {
			strncat(out, p, (size_t)(end - p));
			strcat(out, "\n");
		}
	}
	return out;
}

/* How many of @lines have " pid=@pid " in them, and contain @want (if not NULL). */
static int count_lines(const char *lines, pid_t pid, const char *want)
{
	char tag[32];
	int n = 0;
	const char *p, *end;

	snprintf(tag, sizeof(tag), " pid=%d ", (int)pid);
	for (p = lines; p && *p; p = *end ? end + 1 : end) {
		char line[1024];

		end = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		if (strstr(line, tag) && (!want || strstr(line, want)))
			n++;
	}
	return n;
}

static unsigned char *code;	/* the mapping in the learn child */
static int child_exec_learn(void *argv);
static int xo_key;

static uint32_t call(size_t off)
{
	return ((uint32_t (*)(void))(uintptr_t)(code + off))();
}

static void do_call_reader(void *arg)
{
	*(uint32_t *)arg = call(READER_OFF);
}

static pthread_barrier_t barrier;

static void *thread_read(void *arg)
{
	pthread_barrier_wait(&barrier);
	*(uint32_t *)arg = *(volatile uint32_t *)(code + TABLE4);
	return NULL;
}

static bool page_xo(int i)
{
	return !strncmp(maps_perms(code + i * page_size()), "--x", 3) && smaps_pkey(code + i * page_size()) == xo_key;
}

static bool page_readable(int i)
{
	return maps_perms(code + i * page_size())[0] == 'r' && smaps_pkey(code + i * page_size()) == 0;
}

/* In the fork() child of the learn child: exit 0 if all is as it should be. */
static int fork_child(void)
{
	if (xonly_get(0, 0, 0, 0) != LEARN)
		return 1;
	if (*(volatile uint32_t *)(code + TABLE1) != values[1])
		return 2;
	if (*(volatile uint32_t *)(code + TABLE5) != values[5])
		return 3;
	return page_readable(5) ? 0 : 4;
}

static void learn_child(void *arg)
{
	size_t ps = page_size();
	uint32_t got = 0, tv[NTHREADS];
	pthread_t th[NTHREADS];
	char *argv[] = { exe_path, "--level", NULL }, want[512], *lines;
	unsigned char *anon, *keyed;
	struct fault f;
	int fd, r, n, st, key;
	pid_t pid;

	(void)arg;
	r = xonly_set(LEARN, 0, 0, 0);
	tap_ok(r == 0, "PR_SET_XONLY %d (learn) is 0 (%d, %s)", LEARN, r, errname(r ? errno : 0));
	r = xonly_get(0, 0, 0, 0);
	tap_ok(r == LEARN, "PR_GET_XONLY in learn mode is %d (%d)", LEARN, r);
	r = proc_status_int(getpid(), "Xonly");
	tap_ok(r == LEARN, "/proc/self/status: Xonly: %d (%d)", LEARN, r);

	fd = open(code_path, O_RDONLY);
	if (!tap_ok(fd >= 0, "setup: open the code file %s (%s)", code_path, errname(fd < 0 ? errno : 0)))
		return;
	code = mmap(NULL, NPAGES * ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!tap_ok(code != MAP_FAILED, "setup: the code file mapped PROT_READ|PROT_EXEC (%s)",
		    errname(code == MAP_FAILED ? errno : 0)))
		return;
	xo_key = smaps_pkey(code);
	n = 0;
	for (int i = 0; i < NPAGES; i++)
		n += page_xo(i);
	tap_ok(xo_key > 0 && n == NPAGES, "xonly mode made all %d pages of the file --xp with the key %d (%d are)",
	       NPAGES, xo_key, n);
	fault_setup();

	tap_ok(call(0) == MARK0, "f0 in page 0 runs");
	fault_catch(do_call_reader, &got, &f);
	tap_ok(!f.hit && got == values[1], "reader()'s load of its table in page 1 did not kill: read %#x (%s)", got,
	       fault_str(&f));
	tap_ok(page_readable(1), "page 1 is readable now: %s, key %d", maps_perms(code + ps), smaps_pkey(code + ps));
	tap_ok(page_xo(0) && page_xo(2) && page_xo(5),
	       "the pages around it are still execute-only (0: %s key %d, 2: %s, 5: %s)", maps_perms(code),
	       smaps_pkey(code), maps_perms(code + 2 * ps), maps_perms(code + 5 * ps));
	fault_read8(code + TABLE2, &f);
	tap_ok(!f.hit && *(volatile uint32_t *)(code + TABLE2) == values[2],
	       "this program's own load from page 2 did not fault and read the table (%s)", fault_str(&f));
	got = call(READER_OFF);
	tap_ok(got == values[1], "reader() again: %#x", got);

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		tv[i] = 0;
		pthread_create(&th[i], NULL, thread_read, &tv[i]);
	}
	n = 0;
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		n += tv[i] == values[4];
	}
	tap_ok(n == NTHREADS, "%d threads that read page 4 at once all survived and read its table (%d did)",
	       NTHREADS, n);

	n = 0;
	for (int i = 0; i < NPAGES; i++)
		n += page_readable(i);
	tap_ok(n == 3 && page_readable(1) && page_readable(2) && page_readable(4),
	       "the pages made readable are the pages read: 3 of %d (%d)", NPAGES, n);
	tap_ok(page_xo(3) && call(3 * ps) == MARK3, "f3 runs from its execute-only page 3 (%s)",
	       maps_perms(code + 3 * ps));

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(fork_child());
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a fork() child is in learn mode, reads page 1 and learns page 5 for itself (%s)", status_str(st));
	tap_ok(page_xo(5), "the parent's page 5 is still execute-only (%s)", maps_perms(code + 5 * ps));
	fflush(NULL);
	st = child_status(child_exec_learn, argv, 20);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == LEARN, "an execve() keeps learn mode: the new program's GET is %d (%s)",
	       LEARN, status_str(st));

	anon = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon != MAP_FAILED) {
		put_ret(anon, MARK0);
		mprotect(anon, ps, PROT_EXEC);
		fault_read8(anon, &f);
	}
	tap_ok(anon != MAP_FAILED && fault_is_pkuerr(&f, xo_key, anon) && !strncmp(maps_perms(anon), "--x", 3),
	       "an anonymous PROT_EXEC page still faults: %s, %s", fault_str(&f), anon != MAP_FAILED ? maps_perms(anon) : "");

	key = (int)syscall(SYS_pkey_alloc, 0, 1 /* PKEY_DISABLE_ACCESS */);
	keyed = mmap(NULL, ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, open(code_path, O_RDONLY), 0);
	r = keyed == MAP_FAILED || key < 0 ? -1 : (int)syscall(SYS_pkey_mprotect, keyed, ps, PROT_READ | PROT_EXEC, key);
	if (r == 0)
		fault_read8(keyed, &f);
	tap_ok(r == 0 && fault_is_pkuerr(&f, key, keyed) && smaps_pkey(keyed) == key,
	       "a file page pkey_mprotect()ed with key %d still faults: %s", key, fault_str(&f));

	lines = learn_lines();
	n = count_lines(lines, getpid(), NULL);
	tap_ok(n == 3, "the kernel log has 3 learn lines for this process, one per page learned (%d)", n);
	snprintf(want, sizeof(want),
		 "xonly learn: comm=%s pid=%d file=%s offset=0x1000 size=0x1000 ip_file=%s ip_offset=0x%x\n", comm,
		 (int)getpid(), code_path, code_path, LOAD_OFF);
	tap_ok(lines && strstr(lines, want), "page 1's line names comm, pid, file, offset, size and reader()'s load: %.*s",
	       (int)strlen(want) - 1, want);
	snprintf(want, sizeof(want), "xonly learn: comm=%s pid=%d file=%s offset=0x2000 size=0x1000 ip_file=%s ip_offset=0x",
		 comm, (int)getpid(), code_path, exe_path);
	tap_ok(lines && strstr(lines, want), "page 2's line names this program as the instruction's file: %s...", want);
	n = count_lines(lines, getpid(), "offset=0x4000 ");
	tap_ok(n == 1, "page 4, read by %d threads, is logged once (%d)", NTHREADS, n);
	n = count_lines(lines, pid, NULL);
	r = count_lines(lines, pid, "offset=0x5000 size=0x1000 ");
	tap_ok(n == 1 && r == 1, "the fork() child logged page 5 under its own pid and nothing else (%d, %d)", n, r);
	free(lines);

	r = xonly_set(1, 0, 0, 0);
	tap_ok(r == 0 && xonly_get(0, 0, 0, 0) == 1, "PR_SET_XONLY 1 ends learn mode: GET is %d", xonly_get(0, 0, 0, 0));
	fault_read8(code + 3 * ps, &f);
	tap_ok(fault_is_pkuerr(&f, xo_key, code + 3 * ps), "then a read of f3 faults SEGV_PKUERR at f3 (%s)",
	       fault_str(&f));
	tap_ok(page_readable(1) && call(READER_OFF) == values[1], "page 1 stays readable");
	r = xonly_set(LEARN, 0, 0, 0);
	tap_ok(r == -1 && errno == EPERM, "PR_SET_XONLY %d in xonly mode is EPERM (%d, %s)", LEARN, r,
	       errname(r ? errno : 0));
	lines = learn_lines();
	n = count_lines(lines, getpid(), NULL);
	tap_ok(n == 3, "nothing more was logged for this process (%d lines)", n);
	free(lines);
}

/* child_status(): 0 if learn mode can be had, else errno */
static int probe_learn(void *arg)
{
	(void)arg;
	return xonly_set(LEARN, 0, 0, 0) ? errno : 0;
}

static bool names_learn_boot(const char *line)
{
	return strstr(line, "xonly=learn: file-backed code of every process is execute-only") != NULL;
}

/* child_status(): the same reader() at level 1, with SIGSEGV's default action. */
static int level1_child(void *arg)
{
	size_t ps = page_size();
	int fd;

	(void)arg;
	signal(SIGSEGV, SIG_DFL);
	if (xonly_set(1, 0, 0, 0))
		return 125;
	fd = open(code_path, O_RDONLY);
	if (fd < 0)
		return 124;
	code = mmap(NULL, NPAGES * ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (code == MAP_FAILED)
		return 123;
	return call(READER_OFF) == values[1] ? 0 : 1;
}

/* child_status(): enter learn mode and execve() @argv, its output to /dev/null. */
static int child_exec_learn(void *argv)
{
	int null = open("/dev/null", O_WRONLY);

	dup2(null, 1);
	dup2(null, 2);
	if (xonly_set(LEARN, 0, 0, 0))
		return 125;
	execv(((char **)argv)[0], (char **)argv);
	return 127;
}

/* Run @argv in learn mode; its wait status, its pid in *@pid. */
static int run_learn(char **argv, pid_t *pid)
{
	int st = -1;

	fflush(NULL);
	*pid = fork();
	if (*pid == 0) {
		alarm(20);
		_exit(child_exec_learn(argv));
	}
	waitpid(*pid, &st, 0);
	return st;
}

int main(int argc, char **argv)
{
	char *hello[] = { HELLO, "exit", "0", NULL }, *nosep[] = { HELLO_NOSEP, "exit", "0", NULL };
	char *self[] = { exe_path, "--level", NULL }, *lines, want[512];
	int r, st, n;
	ssize_t len;
	pid_t pid;
	FILE *f;

	if (argc == 2 && !strcmp(argv[1], "--level"))
		return xonly_get(0, 0, 0, 0);

	tap_init("xonly_learn");
	if (!pkru_supported()) {
		r = xonly_set(LEARN, 0, 0, 0);
		tap_ok(r == -1 && errno == EOPNOTSUPP, "without PKU PR_SET_XONLY %d is EOPNOTSUPP (%d, %s)", LEARN, r,
		       errname(r ? errno : 0));
		tap_skip("no PKU/OSPKE (a nopku boot?)", "xonly learn mode");
		return tap_done();
	}
	r = xonly_get(0, 0, 0, 0);
	/* The series has learn mode (0070): SET 3 is never EINVAL with PKU. */
	st = child_status(probe_learn, NULL, 10);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) != EINVAL, "the kernel has learn mode: PR_SET_XONLY %d is not EINVAL (%s)",
	       LEARN, WIFEXITED(st) ? errname(WEXITSTATUS(st)) : "child died");
	if (r == 1 || r == 2) {
		/* Learn mode ranks below level 1: no level is ever lowered. */
		r = xonly_set(LEARN, 0, 0, 0);
		tap_ok(r == -1 && errno == EPERM, "at level %d (xonly=on or strict) PR_SET_XONLY %d is EPERM (%d, %s)",
		       xonly_get(0, 0, 0, 0), LEARN, r, errname(r ? errno : 0));
		tap_skip("this process is in xonly mode, which learn mode cannot weaken", "xonly learn mode");
		return tap_done();
	}
	tap_ok(r == 0 || (r == LEARN && cmdline_has("xonly=learn")), "PR_GET_XONLY is %d (%s)", r,
	       r == LEARN ? "xonly=learn" : "a plain boot");
	if (cmdline_has("xonly=learn")) {
		const char *line = klog_line(names_learn_boot);

		tap_ok(line != NULL, "xonly=learn: the kernel says so (%s)", line ? line : "no line");
		r = proc_status_int(1, "Xonly");
		tap_ok(r == LEARN, "xonly=learn: init (pid 1) is in learn mode, Xonly: %d", r);
	}
	len = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (len <= 0)
		tap_bail("setup: readlink /proc/self/exe: %s", errname(errno));
	exe_path[len] = 0;
	f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		tap_bail("setup: /proc/self/comm");
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;

	if (!make_code_file())
		tap_bail("setup: the code file %s: %s", code_path, errname(errno));
	child_tap_ok("learn mode", learn_child, NULL, 60);
	st = child_status(level1_child, NULL, 20);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "the same reader() in xonly mode (level 1) dies of SIGSEGV (%s)", status_str(st));
	unlink(code_path);

	st = run_learn(hello, &pid);
	lines = learn_lines();
	n = count_lines(lines, pid, NULL);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n == 0,
	       "%s, which reads no code, runs in learn mode and logs nothing (%s, %d lines)", HELLO, status_str(st), n);
	free(lines);
	st = run_learn(self, &pid);
	lines = learn_lines();
	n = count_lines(lines, pid, NULL);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == LEARN && n == 0,
	       "this static program exec'd in learn mode logs nothing (%s, %d lines)", status_str(st), n);
	free(lines);

	st = run_learn(nosep, &pid);
	lines = learn_lines();
	snprintf(want, sizeof(want), "file=%s offset=0x0 size=0x1000 ", HELLO_NOSEP);
	n = count_lines(lines, pid, want);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n == 1,
	       "%s (-z noseparate-code: ld.so reads its headers) runs in learn mode and its page 0 is logged (%s, %d)",
	       HELLO_NOSEP, status_str(st), n);
	free(lines);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		alarm(20);
		dup2(null, 1);
		dup2(null, 2);
		if (xonly_set(1, 0, 0, 0))
			_exit(125);
		execv(nosep[0], nosep);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "%s in xonly mode (level 1) dies of SIGSEGV (%s)",
	       HELLO_NOSEP, status_str(st));
	return tap_done();
}
