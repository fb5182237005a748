// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_mode - PR_SET_XONLY / PR_GET_XONLY and what the flag does
 * (kernel/patches/0008-0010; issue 12, findings 5 to 8).
 *
 * Proves, on a normal boot:
 *  - GET is 0 at first, GET and SET refuse stray arguments (EINVAL), SET 0
 *    of a clear flag is EINVAL, SET 1 sets it, SET 0 of a set flag is EPERM
 *    and leaves it set; /proc/PID/status "Xonly:" follows;
 *  - finding 7, the flag is per mm: a thread started before SET sees GET 1
 *    and the file mmap() it makes after SET is execute-only; fork copies
 *    the flag; an execve() by a thread started before SET keeps it (the
 *    new program has GET 1 and its own main execute-only), so no thread
 *    leaves the mode;
 *  - with the flag, file-backed PROT_READ|PROT_EXEC mmap() and mprotect()
 *    are execute-only (maps --x, smaps key, SEGV_PKUERR at the exact
 *    address), while file-backed PROT_READ, PROT_READ|PROT_WRITE|PROT_EXEC,
 *    anonymous PROT_READ|PROT_EXEC, pkey_mprotect() with an explicit key
 *    and the mappings made before SET stay readable;
 *  - finding 5, never a readable --xp: PROT_READ|PROT_EXEC|PROT_SEM of a
 *    file, by mmap() and by mprotect(), is execute-only like
 *    PROT_READ|PROT_EXEC; with all 15 keys allocated before it, SET fails
 *    ENOSPC (no execute-only key can be had) and leaves the flag clear, and
 *    a file PROT_READ|PROT_EXEC mmap() after that is not a --xp mapping
 *    that reads; with one key freed again SET still fails ENOSPC, since
 *    a key that pkey_alloc() handed out may be open in some thread and is
 *    never the execute-only key (series v3, issue 22 item 1), and still
 *    no --xp mapping reads;
 *  - finding 6: shared anonymous PROT_READ|PROT_EXEC memory is the
 *    program's (a JIT's), by mmap() and by mprotect() alike: readable
 *    (r-xs), key 0; a memfd is a file: its PROT_READ|PROT_EXEC mappings,
 *    by mmap() and by mprotect(), are execute-only;
 *  - the rule is per VMA: one mprotect(PROT_READ|PROT_EXEC) over a file
 *    page and an anonymous page, in either order, makes only the file page
 *    execute-only (do_mprotect_pkey() changes prot per VMA and resets it
 *    at the end of each step; a rule that escaped that reset would make
 *    the anonymous page execute-only too);
 *  - a dynamically linked probe exec'd with the flag (and with every key
 *    opened by WRPKRU before the execve) starts with the default PKRU and
 *    has main, ld.so, libc and a dlopen()ed library execute-only, the vDSO
 *    readable, works, and so does a fork+exec'd child of it; the same probe
 *    exec'd without the flag reads all of that code;
 *  - pid 1 (busybox) is not in xonly mode;
 *  - in xonly mode a separate-code PIE runs and dies reading its main, and a
 *    -z noseparate-code build of it dies (the limit kernel/README.md states).
 * With xonly=on on the kernel command line instead: GET is 1 from the
 * start and SET 0 is EPERM, this static test's own code and busybox's (pid
 * 1) are execute-only, the probe's xonly and the layout checks pass, and
 * (finding 8) a bad value before it on the command line (xonly=bogus) was
 * warned about, an xonly=off after it did not turn it off (any on wins),
 * and kthreadd (pid 2) has Xonly: 0: the flag is given to init's mm, not
 * to init_task and so to every kernel thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define PROBE	"/xonly/lib/kernel/xonly_probe"
/* asm-generic/mman-common.h; glibc's <sys/mman.h> leaves it out */
#ifndef PROT_SEM
#define PROT_SEM	0x8
#endif

/* Its address is this static program's code, mapped by execve(). */
int main(int argc, char **argv);

static int status_xonly(pid_t pid)
{
	return proc_status_int(pid, "Xonly");
}

/*
 * Run @fn in a child whose TAP lines come back through a pipe and are
 * reported here, so that a child that sets the flag (forever) or crashes
 * leaves this process as it was.  @exec_path, if set, is exec'd instead.
 */
static void run_child(const char *what, void (*fn)(void), void (*before_exec)(void),
		      const char *exec_path, const char *arg)
{
	char line[1024];
	int fds[2], st = -1, n = 0;
	FILE *in;
	pid_t pid;

	if (pipe(fds))
		tap_bail("setup: pipe: %s", errname(errno));
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (before_exec)
			before_exec();
		if (exec_path) {
			execl(exec_path, exec_path, arg, (char *)NULL);
			printf("not ok 1 - exec %s: %s\n", exec_path, errname(errno));
			_exit(127);
		}
		fn();
		_exit(tap_done());
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		char *rest;
		bool pass = !strncmp(line, "ok ", 3);

		line[strcspn(line, "\n")] = 0;
		if (!pass && strncmp(line, "not ok ", 7)) {
			if (line[0] == '#')
				tap_diag("%s", line + 1);
			continue;
		}
		rest = strstr(line, " - ");
		rest = rest ? rest + 3 : line;
		/* test_prctl()'s and test_rule()'s lines say "xonly_mode: " already */
		if (!strncmp(rest, "xonly_mode: ", 12))
			rest += 12;
		tap_ok(pass, "%s", rest);
		n++;
	}
	if (in)
		fclose(in);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && n > 0,
	       "%s: exited normally, status 0, %d results (wait status %#x)", what, n, st);
}

/* --- the prctl interface ------------------------------------------------ */

static int xo_errno(int r)
{
	return r < 0 ? errno : 0;
}

static void *thread_get(void *arg)
{
	(void)arg;
	return (void *)(long)xonly_get(0, 0, 0, 0);
}

static pthread_barrier_t early_go;

/* What a thread started before SET sees and maps after it. */
struct early {
	long get;
	void *map;
};

/* Started before SET: the flag is the mm's, so it sees it and obeys it. */
static void *early_thread(void *arg)
{
	struct early *e = arg;
	int fd;

	pthread_barrier_wait(&early_go);
	e->get = xonly_get(0, 0, 0, 0);
	fd = open("/proc/self/exe", O_RDONLY);
	e->map = fd < 0 ? MAP_FAILED : mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Calls refused with EINVAL while the flag is clear. */
static const struct prctl_case {
	int option;
	unsigned long a[4];
	const char *what;
} einval[] = {
	{ XONLY_PR_GET_XONLY, { 1, 0, 0, 0 }, "PR_GET_XONLY with arg2 = 1" },
	{ XONLY_PR_GET_XONLY, { 0, 0, 0, 1 }, "PR_GET_XONLY with arg5 = 1" },
	{ XONLY_PR_SET_XONLY, { 4, 0, 0, 0 }, "PR_SET_XONLY 4 (2 is the strict level)" },
	{ XONLY_PR_SET_XONLY, { 1, 2, 0, 0 }, "PR_SET_XONLY 1 with arg3 = 2 (1 is PR_XONLY_EXEC_CARVE)" },
	{ XONLY_PR_SET_XONLY, { 1, 0, 0, 1 }, "PR_SET_XONLY 1 with arg5 = 1" },
	{ XONLY_PR_SET_XONLY, { 0, 0, 0, 0 }, "PR_SET_XONLY 0 of a clear flag" },
};

static void test_prctl(void)
{
	struct early e = { -1, MAP_FAILED };
	pthread_t early, late;
	void *late_ret;
	struct fault f;
	int st = -1, r, key;
	size_t i;
	pid_t pid;

	tap_init("xonly_mode");
	for (i = 0; i < sizeof(einval) / sizeof(einval[0]); i++) {
		const struct prctl_case *c = &einval[i];

		r = prctl(c->option, c->a[0], c->a[1], c->a[2], c->a[3]);
		tap_ok(r == -1 && errno == EINVAL, "%s -> EINVAL (got %d, %s)", c->what, r, errname(xo_errno(r)));
	}
	tap_ok(xonly_get(0, 0, 0, 0) == 0 && status_xonly(getpid()) == 0,
	       "after the refused calls: still clear, GET %d, status Xonly: %d",
	       xonly_get(0, 0, 0, 0), status_xonly(getpid()));

	pthread_barrier_init(&early_go, NULL, 2);
	pthread_create(&early, NULL, early_thread, &e);
	r = xonly_set(1, 0, 0, 0);
	tap_ok(r == 0, "PR_SET_XONLY 1 -> 0 (got %d, %s)", r, errname(xo_errno(r)));
	tap_ok(xonly_get(0, 0, 0, 0) == 1, "PR_GET_XONLY -> 1 (got %d)", xonly_get(0, 0, 0, 0));
	tap_ok(status_xonly(getpid()) == 1, "/proc/self/status Xonly: 1 (got %d)", status_xonly(getpid()));
	r = xonly_set(1, 0, 0, 0);
	tap_ok(r == 0, "PR_SET_XONLY 1 again -> 0 (got %d, %s)", r, errname(xo_errno(r)));
	r = xonly_set(0, 0, 0, 0);
	tap_ok(r == -1 && errno == EPERM, "PR_SET_XONLY 0 of a set flag -> EPERM (got %d, %s)", r, errname(xo_errno(r)));
	r = xonly_set(0, 2, 0, 0);
	tap_ok(r == -1 && errno == EINVAL, "PR_SET_XONLY 0 with arg3 = 2 -> EINVAL first (got %d, %s)",
	       r, errname(xo_errno(r)));
	tap_ok(xonly_get(0, 0, 0, 0) == 1, "after the refused clear: still set (GET %d)", xonly_get(0, 0, 0, 0));

	pthread_barrier_wait(&early_go);
	pthread_join(early, NULL);
	pthread_create(&late, NULL, thread_get, NULL);
	pthread_join(late, &late_ret);
	tap_ok(e.get == 1 && (long)late_ret == 1,
	       "per mm: a thread started before SET has GET %ld, one started after %ld (want 1, 1)",
	       e.get, (long)late_ret);
	key = e.map == MAP_FAILED ? -1 : smaps_pkey(e.map);
	if (e.map != MAP_FAILED)
		fault_read8(e.map, &f);
	tap_ok(e.map != MAP_FAILED && key > 0 && !strcmp(maps_perms(e.map), "--xp") && fault_is_pkuerr(&f, key, e.map),
	       "per mm: a file PROT_READ|PROT_EXEC mmap() by the thread started before SET is execute-only (%s key %d, read: %s)",
	       e.map == MAP_FAILED ? "not mapped" : maps_perms(e.map), key, e.map == MAP_FAILED ? "-" : fault_str(&f));

	pid = fork();
	if (pid == 0)
		_exit(xonly_get(0, 0, 0, 0) == 1 && status_xonly(getpid()) == 1 ? 0 : 1);
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a fork()ed child has the flag (status %#x)", st);
}

/* --- the mapping rule ----------------------------------------------------- */

static int self_fd = -1;
static int anon_xo_key = -1;

static void *map_self(int prot)
{
	void *p = mmap(NULL, page_size(), prot, MAP_PRIVATE, self_fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* @p (a page starting "\177ELF") must be execute-only: maps --x, the key, a faulting load. */
static void want_xo(const char *what, const void *p)
{
	struct fault f;
	int key = smaps_pkey(p);
	const char *perms = maps_perms(p);

	if (!tap_ok(p != NULL, "%s: mapped", what))
		return;
	fault_read8(p, &f);
	tap_ok(key == anon_xo_key && !strncmp(perms, "--x", 3) && fault_is_pkuerr(&f, key, p),
	       "%s: execute-only, %s, smaps key %d (the execute-only key %d), read: %s", what, perms, key,
	       anon_xo_key, fault_str(&f));
}

/* @p (a page starting "\177ELF") must read: maps r, key @want_key, the bytes. */
static void want_readable(const char *what, const void *p, int want_key)
{
	struct fault f;
	int key = smaps_pkey(p);
	const char *perms = maps_perms(p);

	if (!tap_ok(p != NULL, "%s: mapped", what))
		return;
	fault_read8(p, &f);
	tap_ok(key == want_key && perms[0] == 'r' && !f.hit && !memcmp(p, "\177ELF", 4),
	       "%s: readable, %s, smaps key %d (want %d), read: %s", what, perms, key, want_key, fault_str(&f));
}

/* A page of @flags anonymous memory, "\177ELF" written into it, then mprotect()ed to @prot. */
static void *anon_then(int flags, int prot)
{
	void *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, "\177ELF", 4);
	return mprotect(p, page_size(), prot) ? NULL : p;
}

/* Finding 6: shared anonymous memory is anonymous; a memfd is a file. */
static void test_shared(void)
{
	void *p;
	int mfd;

	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		struct fault f;

		fault_read8(p, &f);
		tap_ok(smaps_pkey(p) == 0 && !strcmp(maps_perms(p), "r-xs") && !f.hit,
		       "MAP_SHARED|MAP_ANONYMOUS mmap(PROT_READ|PROT_EXEC): readable, %s, smaps key %d (want r-xs, 0), read: %s",
		       maps_perms(p), smaps_pkey(p), fault_str(&f));
	} else {
		tap_ok(false, "MAP_SHARED|MAP_ANONYMOUS mmap(PROT_READ|PROT_EXEC): %s", errname(errno));
	}
	p = anon_then(MAP_SHARED, PROT_READ | PROT_EXEC);
	want_readable("MAP_SHARED|MAP_ANONYMOUS, then mprotect PROT_READ|PROT_EXEC (same rule as mmap)", p, 0);

	mfd = (int)syscall(SYS_memfd_create, "xonly_mode", 0);
	if (!tap_ok(mfd >= 0 && ftruncate(mfd, (off_t)page_size()) == 0 && pwrite(mfd, "\177ELF", 4, 0) == 4,
		    "setup: a memfd of one page (%s)", errname(mfd < 0 ? errno : 0)))
		return;
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_SHARED, mfd, 0);
	want_xo("memfd MAP_SHARED mmap(PROT_READ|PROT_EXEC)", p == MAP_FAILED ? NULL : p);
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED || mprotect(p, page_size(), PROT_READ | PROT_EXEC))
		p = NULL;
	want_xo("memfd MAP_SHARED PROT_READ, then mprotect PROT_READ|PROT_EXEC", p);
	close(mfd);
}

/*
 * One mprotect(PROT_READ|PROT_EXEC) over two VMAs, a file page and an
 * anonymous page, in both orders: the rule is decided per VMA, so what it
 * does to the file page must not carry over to the anonymous one.
 */
static void test_span(void)
{
	size_t ps = page_size();

	for (int file_first = 1; file_first >= 0; file_first--) {
		const char *order = file_first ? "file page, then anonymous page" : "anonymous page, then file page";
		unsigned char *two = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		unsigned char *file = two + (file_first ? 0 : ps), *anon = two + (file_first ? ps : 0);
		char what[160];

		/* the file goes over one of the two anonymous pages */
		if (!tap_ok(two != MAP_FAILED && mmap(file, ps, PROT_READ, MAP_PRIVATE | MAP_FIXED, self_fd, 0) == file,
			    "setup: %s, adjacent", order))
			continue;
		memcpy(anon, "\177ELF", 4);
		tap_ok(mprotect(two, 2 * ps, PROT_READ | PROT_EXEC) == 0, "one mprotect(PROT_READ|PROT_EXEC) over %s",
		       order);
		snprintf(what, sizeof(what), "%s: the file page", order);
		want_xo(what, file);
		snprintf(what, sizeof(what), "%s: the anonymous page", order);
		want_readable(what, anon, 0);
		munmap(two, 2 * ps);
	}
}

static void test_rule(void)
{
	unsigned char *anon = (unsigned char *)map_anon_page();
	struct fault f;
	void *before, *p;
	int k;

	tap_init("xonly_mode");
	self_fd = open("/proc/self/exe", O_RDONLY);
	if (!tap_ok(self_fd >= 0, "setup: open /proc/self/exe (%s)", errname(self_fd < 0 ? errno : 0)))
		return;
	/* The key upstream gives PROT_EXEC alone: what the flag must reuse. */
	anon[0] = 0xc3;
	mprotect(anon, page_size(), PROT_EXEC);
	anon_xo_key = smaps_pkey(anon);
	tap_ok(anon_xo_key > 0, "setup: anonymous PROT_EXEC has the execute-only key %d", anon_xo_key);

	before = map_self(PROT_READ | PROT_EXEC);
	want_readable("without the flag, file PROT_READ|PROT_EXEC", before, 0);
	if (!tap_ok(xonly_set(1, 0, 0, 0) == 0, "setup: PR_SET_XONLY 1"))
		return;
	want_readable("a file mapping made before SET", before, 0);
	fault_read8((const void *)main, &f);
	tap_ok(!f.hit && smaps_pkey((const void *)main) == 0,
	       "this program's own main, mapped by exec before SET, stays readable (read: %s)", fault_str(&f));

	want_xo("file PROT_READ|PROT_EXEC", map_self(PROT_READ | PROT_EXEC));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_SHARED, self_fd, 0);
	want_xo("file MAP_SHARED PROT_READ|PROT_EXEC", p == MAP_FAILED ? NULL : p);
	want_readable("file PROT_READ", map_self(PROT_READ), 0);
	want_readable("file PROT_READ|PROT_WRITE|PROT_EXEC (private)",
		      map_self(PROT_READ | PROT_WRITE | PROT_EXEC), 0);
	want_readable("anonymous PROT_READ|PROT_EXEC (a JIT's)", anon_then(MAP_PRIVATE, PROT_READ | PROT_EXEC), 0);

	/* Finding 5: bits other than R, W and X do not decide. */
	want_xo("file PROT_READ|PROT_EXEC|PROT_SEM", map_self(PROT_READ | PROT_EXEC | PROT_SEM));
	p = map_self(PROT_READ);
	if (p && mprotect(p, page_size(), PROT_READ | PROT_EXEC | PROT_SEM))
		p = NULL;
	want_xo("file PROT_READ, then mprotect PROT_READ|PROT_EXEC|PROT_SEM", p);
	test_shared();

	p = map_self(PROT_READ);
	tap_ok(p && mprotect(p, page_size(), PROT_READ | PROT_EXEC) == 0, "mprotect(file page, PROT_READ|PROT_EXEC)");
	want_xo("file PROT_READ, then mprotect PROT_READ|PROT_EXEC", p);
	tap_ok(p && mprotect(p, page_size(), PROT_READ) == 0, "mprotect(that page, PROT_READ)");
	want_readable("asking for PROT_READ explicitly afterwards", p, 0);

	test_span();

	k = pkey_alloc(0, 0);
	p = map_self(PROT_READ);
	if (tap_ok(k > 0 && p, "setup: pkey_alloc() -> %d", k)) {
		tap_ok(pkey_mprotect(p, page_size(), PROT_READ | PROT_EXEC, k) == 0,
		       "pkey_mprotect(file page, PROT_READ|PROT_EXEC, key %d)", k);
		want_readable("pkey_mprotect with an explicit key keeps that key", p, k);
	}
}

/*
 * Finding 5: with every key taken there is no execute-only key, and SET,
 * which allocates it up front, must say so rather than let a later mmap()
 * produce a --xp mapping that reads.  In a child that never made an
 * execute-only mapping (so never allocated the key).
 */
static void test_no_key(void)
{
	int keys[16], n = 0, k, r, e;
	struct fault f;
	void *p;

	tap_init("xonly_mode");
	self_fd = open("/proc/self/exe", O_RDONLY);
	while (n < 16 && (k = pkey_alloc(0, 0)) > 0)
		keys[n++] = k;
	e = errno;
	if (!tap_ok(self_fd >= 0 && n == 15 && e == ENOSPC, "setup: pkey_alloc() took all 15 keys, then %s", errname(e)))
		return;
	r = xonly_set(1, 0, 0, 0);
	e = r < 0 ? errno : 0;
	tap_ok(r == -1 && e == ENOSPC, "PR_SET_XONLY 1 with no key left for execute-only -> ENOSPC (got %d, %s)", r,
	       errname(e));
	tap_ok(xonly_get(0, 0, 0, 0) == 0 && status_xonly(getpid()) == 0,
	       "... and the flag stays clear: GET %d, status Xonly: %d", xonly_get(0, 0, 0, 0), status_xonly(getpid()));
	p = map_self(PROT_READ | PROT_EXEC);
	e = p ? 0 : errno;
	if (p)
		fault_read8(p, &f);
	/* refused, readable and saying so, or really execute-only: anything but --x that reads */
	tap_ok(p ? strncmp(maps_perms(p), "--x", 3) ? !f.hit : f.hit : e == ENOSPC,
	       "file PROT_READ|PROT_EXEC mmap() after that is no --xp mapping that reads (%s, %s, key %d, read: %s)",
	       p ? "mapped" : errname(e), p ? maps_perms(p) : "-", p ? smaps_pkey(p) : -1, p ? fault_str(&f) : "-");

	/* v3: a freed key may still be open in a thread: never the execute-only key. */
	pkey_free(keys[--n]);
	r = xonly_set(1, 0, 0, 0);
	e = r < 0 ? errno : 0;
	tap_ok(r == -1 && e == ENOSPC,
	       "with key %d freed again PR_SET_XONLY 1 -> ENOSPC: pkey_alloc() handed it out (got %d, %s)", keys[n], r,
	       errname(e));
	tap_ok(xonly_get(0, 0, 0, 0) == 0, "... and the flag stays clear: GET %d", xonly_get(0, 0, 0, 0));
	p = map_self(PROT_READ | PROT_EXEC);
	if (p)
		fault_read8(p, &f);
	tap_ok(p && (strncmp(maps_perms(p), "--x", 3) ? !f.hit : f.hit),
	       "file PROT_READ|PROT_EXEC mmap() then is no --xp mapping that reads (%s, key %d, read: %s)",
	       p ? maps_perms(p) : "-", p ? smaps_pkey(p) : -1, p ? fault_str(&f) : "-");
	while (n > 0)
		pkey_free(keys[--n]);
}

/*
 * Finding 7: no thread leaves the mode by execve().  A thread started
 * before SET execs this program again ("report", below) after the main
 * thread has set the flag.
 */
static void *exec_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&early_go);
	execl("/proc/self/exe", "xonly_mode", "report", (char *)NULL);
	printf("not ok 1 - xonly_mode: execve by the thread started before SET: %s\n", errname(errno));
	_exit(127);
}

static void test_thread_exec(void)
{
	pthread_t t;

	tap_init("xonly_mode");
	pthread_barrier_init(&early_go, NULL, 2);
	pthread_create(&t, NULL, exec_thread, NULL);
	tap_ok(xonly_set(1, 0, 0, 0) == 0, "setup: PR_SET_XONLY 1 in the main thread, a thread already running");
	pthread_barrier_wait(&early_go);
	/* the execve() ends this thread */
	pthread_join(t, NULL);
}

/* The program that thread exec'd: still in xonly mode, its code execute-only. */
static int report_exec(void)
{
	struct fault f;
	int key = smaps_pkey((const void *)main);

	tap_init("xonly_mode");
	fault_setup();
	fault_read8((const void *)main, &f);
	tap_ok(xonly_get(0, 0, 0, 0) == 1 && status_xonly(getpid()) == 1,
	       "exec'd by a thread started before SET: GET %d, status Xonly: %d (want 1, 1)", xonly_get(0, 0, 0, 0),
	       status_xonly(getpid()));
	tap_ok(key > 0 && fault_is_pkuerr(&f, key, (const void *)main),
	       "exec'd by a thread started before SET: its own main is execute-only (key %d, read: %s)", key,
	       fault_str(&f));
	return tap_done();
}

/* --- pid 1, the probe ----------------------------------------------------- */

/* Busybox's text mapping in /proc/1/smaps: its perms and key; false if none. */
static bool init_text(char perms[5], int *key)
{
	char line[4096], path[256], pm[5];
	bool in = false, found = false;
	FILE *f = fopen("/proc/1/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &lo, &hi, pm, path) >= 3) {
			in = strstr(path, "busybox") && strchr(pm, 'x');
			if (in) {
				memcpy(perms, pm, 5);
				found = true;
			}
		} else if (in && sscanf(line, "ProtectionKey: %d", key) == 1) {
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void test_init(bool on)
{
	char perms[5] = "";
	int key = -1;

	tap_ok(status_xonly(1) == on, "/proc/1/status Xonly: %d (got %d)", on, status_xonly(1));
	if (!tap_ok(init_text(perms, &key), "pid 1's busybox text mapping found in /proc/1/smaps"))
		return;
	if (on)
		tap_ok(!strcmp(perms, "--xp") && key > 0, "pid 1's busybox text is execute-only (%s, key %d)",
		       perms, key);
	else
		tap_ok(!strcmp(perms, "r-xp") && key == 0, "pid 1's busybox text is r-x (%s, key %d)", perms, key);
}

/* A kernel message about the bad xonly= value scripts/check puts first. */
static bool names_bogus(const char *line)
{
	return strstr(line, "xonly=bogus") != NULL;
}

static void test_boot_on(void)
{
	struct fault f;
	int key = smaps_pkey((const void *)main), r;

	/* scripts/check puts a bad value before xonly=on: warned about, then ignored. */
	if (cmdline_has("xonly=bogus")) {
		const char *line = klog_line(names_bogus);

		tap_ok(line != NULL, "xonly=bogus (before xonly=on) was reported in the kernel log and ignored (\"%s\")",
		       line ? line : "no such line");
	}
	/* ... and xonly=off after it: any on wins, whatever its place */
	if (cmdline_has("xonly=off"))
		tap_ok(xonly_get(0, 0, 0, 0) == 1 && status_xonly(1) == 1,
		       "xonly=off after xonly=on did not turn it off: GET %d, pid 1 Xonly: %d", xonly_get(0, 0, 0, 0),
		       status_xonly(1));
	tap_ok(status_xonly(2) == 0,
	       "kthreadd (pid 2, no user mm) has Xonly: 0: xonly=on is given to init's mm, not to every task (got %d)",
	       status_xonly(2));

	fault_read8((const void *)main, &f);
	tap_ok(key > 0 && fault_is_pkuerr(&f, key, (const void *)main),
	       "xonly=on: this static test's own main is execute-only (key %d, read: %s)", key, fault_str(&f));
	r = xonly_set(0, 0, 0, 0);
	tap_ok(r == -1 && errno == EPERM, "xonly=on: PR_SET_XONLY 0 -> EPERM (got %d, %s)", r, errname(xo_errno(r)));
	tap_ok(xonly_set(1, 0, 0, 0) == 0 && status_xonly(getpid()) == 1,
	       "xonly=on: PR_SET_XONLY 1 -> 0, status Xonly: %d", status_xonly(getpid()));
}

/* Exec @prog @arg in xonly mode, output discarded: its wait status. */
static int run_xonly(const char *prog, const char *arg)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		if (xonly_set(1, 0, 0, 0))
			_exit(125);
		execl(prog, prog, arg, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return st;
}

/*
 * The limit README states: in a -z noseparate-code program, the PF_X
 * segment also holds the headers and .rodata ld.so and libc read, so in
 * xonly mode it dies; the separate-code build of the same program runs.
 */
static void test_layouts(void)
{
	const char *dir = "/xonly/lib/xoload";
	char sep[128], nosep[128];
	int st;

	snprintf(sep, sizeof(sep), "%s/hello", dir);
	snprintf(nosep, sizeof(nosep), "%s/hello-nosep", dir);
	if (access(sep, X_OK) || access(nosep, X_OK)) {
		tap_skip("no xoload helpers", "hello and hello-nosep in xonly mode");
		return;
	}
	st = run_xonly(sep, "x");
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the separate-code PIE hello runs in xonly mode (status %#x)", st);
	st = run_xonly(sep, "readmain");
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "hello reading its own main in xonly mode dies by SIGSEGV (status %#x)", st);
	st = run_xonly(nosep, "x");
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	       "the -z noseparate-code hello dies by SIGSEGV in xonly mode, the documented limit (status %#x)", st);
}

/* In the probe's child: open every key, then set the flag, then exec. */
static void open_keys_and_set(void)
{
	wrpkru(0);
	if (xonly_set(1, 0, 0, 0))
		printf("not ok 1 - PR_SET_XONLY before exec: %s\n", errname(errno));
}

int main(int argc, char **argv)
{
	bool on = cmdline_has("xonly=on");
	int start;

	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_exec();
	tap_init("xonly_mode");
	if (!pkru_supported())
		tap_bail("no PKU");
	fault_setup();
	start = xonly_get(0, 0, 0, 0);
	if (start < 0)
		tap_bail("PR_GET_XONLY: %s (a kernel without patch 0006?)", errname(errno));
	tap_ok(start == on && status_xonly(getpid()) == on,
	       "at start GET %d, status Xonly: %d (xonly=on %son the command line)", start,
	       status_xonly(getpid()), on ? "" : "not ");
	test_init(on);

	if (on) {
		test_boot_on();
		tap_skip("xonly=on", "the SET/GET errors, the mapping rule and the probe without the flag");
	} else {
		run_child("prctl child", test_prctl, NULL, NULL, NULL);
		run_child("mapping-rule child", test_rule, NULL, NULL, NULL);
		run_child("all-keys-taken child", test_no_key, NULL, NULL, NULL);
		run_child("execve by a thread started before SET", test_thread_exec, NULL, NULL, NULL);
		run_child("probe without the flag", NULL, NULL, PROBE, "plain");
	}
	run_child("probe exec'd with the flag", NULL, open_keys_and_set, PROBE, "xo");
	test_layouts();
	return tap_done();
}
