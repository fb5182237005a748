// SPDX-License-Identifier: GPL-2.0
/*
 * contexts - execute-only holds in every context code runs in, on every
 * kind of mapping (tests/lib/xomap.c).
 *
 * Proves, per mapping kind, that the code runs (conf_chain at each of its
 * instruction boundaries, conf_mul) and an 8-byte load of it faults
 * SEGV_PKUERR with the mapping's key at the exact address:
 *  - in a signal handler (it runs with the default PKRU);
 *  - in a handler on a sigaltstack (checked to be on it);
 *  - in a thread created before the code was made execute-only (it never
 *    saw the mprotect/pkey_alloc that set its creator's PKRU) and in one
 *    created after (it inherits that PKRU);
 *  - in a child after fork();
 *  - after execve() of this program: the new image starts with the default
 *    PKRU 0x55555554, the old image's mapping is gone, the mm has no
 *    execute-only key until its first mprotect(PROT_EXEC) (pkey_alloc()
 *    hands out key 1 first), and every kind works there from scratch.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

#define PKRU_DEFAULT	0x55555554u	/* the kernel's init_pkru_value */
#define LOAD_OFF	0x88

struct ctx_res {
	bool ran, exec_ok, on_altstack;
	uint32_t pkru;
	struct insn_skip ld;
	char got[48];
};

/* The check each context runs: execute, then load. */
static void ctx_run(const char *code, struct ctx_res *r)
{
	r->ran = true;
	r->pkru = rdpkru();
	r->exec_ok = conf_exec_at(code, r->got, sizeof(r->got));
	r->ld = conf_probe(conf_ld8, code + LOAD_OFF, 8);
}

static void ctx_report(const char *ctx, const struct xomap_kind *k, const char *code, int key, const struct ctx_res *r)
{
	char channel[40], got[32];
	bool ok;

	snprintf(channel, sizeof(channel), "%s: runs", ctx);
	conf_check(channel, k, r->ran && r->exec_ok, "runs", !r->ran ? "not run" : r->exec_ok ? "runs" : "wrong",
		   "conf_chain at every boundary and conf_mul give the right results (%s, PKRU %#x)", r->got, r->pkru);
	snprintf(channel, sizeof(channel), "%s: load", ctx);
	ok = r->ran && conf_fault_ok(&r->ld, 1, key, code + LOAD_OFF, code + LOAD_OFF, got, sizeof(got));
	conf_check(channel, k, ok, "PKUERR", r->ran ? got : "not run",
		   "an 8-byte load at code+%#x faults SEGV_PKUERR, key %d, exact si_addr (%s)", LOAD_OFF, key,
		   fault_str(&r->ld.first));
}

/* ---- signal handlers ---------------------------------------------------------- */

static const char *sig_code;
static struct ctx_res sig_res;
static char altstack[64 * 1024];

static void on_signal(int sig)
{
	char here;

	(void)sig;
	sig_res.on_altstack = &here >= altstack && &here < altstack + sizeof(altstack);
	ctx_run(sig_code, &sig_res);
}

static void check_signals(const struct xomap *m)
{
	struct sigaction sa = { .sa_handler = on_signal };
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	sigemptyset(&sa.sa_mask);
	sig_code = m->code;
	memset(&sig_res, 0, sizeof(sig_res));
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	ctx_report("signal handler", m->kind, m->code, m->pkey, &sig_res);
	tap_ok(sig_res.pkru == PKRU_DEFAULT, "%s: signal handler: runs with the default PKRU %#x (got %#x)",
	       m->kind->name, PKRU_DEFAULT, sig_res.pkru);

	if (sigaltstack(&ss, NULL))
		tap_bail("setup: sigaltstack: %s", strerror(errno));
	sa.sa_flags = SA_ONSTACK;
	memset(&sig_res, 0, sizeof(sig_res));
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	if (!tap_ok(sig_res.on_altstack, "%s: sigaltstack: the SA_ONSTACK handler ran on the alternate stack",
		    m->kind->name))
		sig_res.ran = false;
	ctx_report("sigaltstack handler", m->kind, m->code, m->pkey, &sig_res);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}

/* ---- threads ------------------------------------------------------------------ */

struct thread_arg {
	pthread_barrier_t go;	/* the code is ready (or will never be: code NULL) */
	const char *code;
	struct ctx_res res;
};

static void *thread_fn(void *p)
{
	struct thread_arg *a = p;

	pthread_barrier_wait(&a->go);
	if (a->code)
		ctx_run(a->code, &a->res);
	return NULL;
}

static bool thread_start(pthread_t *t, struct thread_arg *a)
{
	memset(a, 0, sizeof(*a));
	pthread_barrier_init(&a->go, NULL, 2);
	if (pthread_create(t, NULL, thread_fn, a) == 0)
		return true;
	pthread_barrier_destroy(&a->go);
	return tap_ok(false, "setup: pthread_create");
}

static void thread_finish(pthread_t t, struct thread_arg *a, const char *code)
{
	a->code = code;
	pthread_barrier_wait(&a->go);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&a->go);
}

/* ---- fork ----------------------------------------------------------------------- */

static void check_fork(const struct xomap *m)
{
	struct ctx_res *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int st = -1;
	pid_t pid;

	if (r == MAP_FAILED)
		tap_bail("setup: shared mmap: %s", strerror(errno));
	memset(r, 0, sizeof(*r));
	pid = fork();
	if (pid == 0) {
		ctx_run(m->code, r);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (!(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0))
		r->ran = false;
	ctx_report("fork child", m->kind, m->code, m->pkey, r);
	munmap(r, sizeof(*r));
}

/* ---- execve --------------------------------------------------------------------- */

/* What the new image sends back: its start, then one record per kind. */
struct exec_start {
	uint32_t pkru;
	int first_key;		/* pkey_alloc() before any mprotect(PROT_EXEC) */
	int old_gone;		/* the old image's mapping is not there */
};

struct exec_kind {
	int status;		/* conf_map_quiet: 0 mapped, 1 skipped, -1 failed */
	int key;
	uintptr_t code;		/* where the new image mapped it */
	struct ctx_res res;
};

static int exec_image(int fd, const char *old)
{
	struct exec_start s = { .pkru = rdpkru() };

	insn_skip_setup();
	s.first_key = pkey_alloc(0, 0);
	if (s.first_key >= 0)
		pkey_free(s.first_key);
	s.old_gone = smaps_field((void *)strtoul(old, NULL, 16), "Size") < 0;
	if (write(fd, &s, sizeof(s)) != sizeof(s))
		return 1;
	for (int i = 0; i < xomap_nkinds; i++) {
		struct exec_kind e = { .key = -1 };
		struct xomap m;

		if (conf_map_quiet(&xomap_kinds[i], &m, &e.status)) {
			e.key = m.pkey;
			e.code = (uintptr_t)m.code;
			ctx_run(m.code, &e.res);
			xomap_unmap(&m);
		}
		if (write(fd, &e, sizeof(e)) != sizeof(e))
			return 1;
	}
	return 0;
}

static bool read_all(int fd, void *buf, size_t n)
{
	return read(fd, buf, n) == (ssize_t)n;	/* small records through a pipe: whole */
}

static void check_execve(const char *old)
{
	struct exec_start s;
	char fd_arg[16], old_arg[32];
	int p[2], st = -1;
	bool got_start;
	pid_t pid;

	if (pipe(p))
		tap_bail("setup: pipe: %s", strerror(errno));
	snprintf(fd_arg, sizeof(fd_arg), "%d", p[1]);
	snprintf(old_arg, sizeof(old_arg), "%lx", (unsigned long)old);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		execl("/proc/self/exe", "contexts", "--exec-image", fd_arg, old_arg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	got_start = pid > 0 && read_all(p[0], &s, sizeof(s));
	if (!tap_ok(got_start, "execve: the new image of /proc/self/exe ran and reported"))
		goto out;
	tap_ok(s.pkru == PKRU_DEFAULT, "execve: the new image starts with the default PKRU %#x (got %#x)", PKRU_DEFAULT,
	       s.pkru);
	/* old is NULL if no kind with the execute-only key mapped: then this proves nothing. */
	tap_ok(old && s.old_gone, "execve: the old image's execute-only mapping at %p is gone from the new one",
	       (void *)old);
	tap_ok(s.first_key == 1,
	       "execve: no execute-only key until the first mprotect(PROT_EXEC): pkey_alloc() gives key 1 (got %d)",
	       s.first_key);
	for (int i = 0; i < xomap_nkinds; i++) {
		const struct xomap_kind *k = &xomap_kinds[i];
		struct exec_kind e;

		if (!read_all(p[0], &e, sizeof(e))) {
			tap_ok(false, "%s: execve: the new image reported", k->name);
			continue;
		}
		if (e.status > 0) {
			conf_skip("after execve: runs", k, "kind not available in the new image");
			continue;
		}
		if (e.status < 0) {
			tap_ok(false, "%s: execve: the new image could not map it", k->name);
			continue;
		}
		ctx_report("after execve", k, (const char *)e.code, e.key, &e.res);
	}
out:
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	tap_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "execve: the new image exited 0 (status %#x)", st);
}

int main(int argc, char **argv)
{
	char *old = NULL;

	if (argc == 4 && !strcmp(argv[1], "--exec-image"))
		return exec_image(atoi(argv[2]), argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: contexts (runs the conformance checks of execution contexts, prints TAP)\n");
		return 2;
	}
	tap_init("conformance/contexts");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	insn_skip_setup();
	for (int i = 0; i < xomap_nkinds; i++) {
		const struct xomap_kind *k = &xomap_kinds[i];
		struct thread_arg before, after;
		pthread_t tb, ta;
		bool have_before = thread_start(&tb, &before);
		struct xomap m;

		if (!conf_map(k, &m)) {
			if (have_before)
				thread_finish(tb, &before, NULL);
			continue;
		}
		check_signals(&m);
		if (have_before) {
			thread_finish(tb, &before, m.code);
			ctx_report("thread created before", k, m.code, m.pkey, &before.res);
		}
		if (thread_start(&ta, &after)) {
			thread_finish(ta, &after, m.code);
			ctx_report("thread created after", k, m.code, m.pkey, &after.res);
		}
		check_fork(&m);
		if (!old && k->xo_key) {
			old = m.code;	/* left mapped: execve must drop it */
			continue;
		}
		xomap_unmap(&m);
	}
	check_execve(old);
	conf_table("execution contexts per mapping kind");
	return tap_done();
}
