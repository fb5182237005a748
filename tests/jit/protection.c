// SPDX-License-Identifier: GPL-2.0
/*
 * protection - JIT code in pkey code memory is execute-only for every
 * thread, writable only by the emitting thread inside its window.
 *
 * Proves:
 *  - the code pages carry the JIT's own key (smaps), and the code runs
 *    from the emitting thread and from another thread;
 *  - outside the window a load from the code, by the emitting thread or by
 *    another thread, faults SEGV_PKUERR with the JIT key in si_pkey at the
 *    exact address; so does a store;
 *  - while the emitter's window is open (WRPKRU, and pkey_set(2)) another
 *    thread's load and store still fault, and the emitter's own store
 *    succeeds (the window is real, and per thread);
 *  - write(2) from code and read(2) into code fail EFAULT outside the
 *    window and succeed inside it;
 *  - a signal arriving inside the window (raised, and sent by another
 *    thread) runs its handler with the kernel's default rights for the key
 *    (access disabled: its store faults SEGV_PKUERR); after sigreturn the
 *    window is open again;
 *  - a thread created inside the window inherits it (so threads must be
 *    created outside, as codemem.h says), and cm_thread_lock() closes it;
 *  - by contrast, an mprotect flip and a dual mapping let another thread
 *    write the code while the emitter writes;
 *  - what it does not stop (README "What it does not stop"): another
 *    process with ptrace rights (here a forked child) reads the JIT code
 *    with process_vm_readv(2) and writes code memory with
 *    process_vm_writev(2), outside any window: remote accesses do not go
 *    through the target thread's PKRU.  If a kernel started refusing them,
 *    this test would fail and the README would have to change.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "jit.h"
#include "mapping.h"
#include "pkru.h"
#include "stock.h"
#include "tap.h"

#define OFF	5	/* probe inside the function: si_addr must be exact */

static const char src[] = "n = 10; s = 0; while (n) { s = s + n * n; n = n - 1; } s";

/* A thread that runs jobs for the main thread: created once, outside any window. */
static struct {
	pthread_t t;
	sem_t go, done;
	void (*job)(void *);
	void *arg;
} other;

/*
 * sem_wait() fails with EINTR when a signal handler runs meanwhile (the
 * SIGUSR1 test sends one to the waiting main thread), and sa_flags has no
 * SA_RESTART: without the loop, on_other() returned before the job ran
 * and every later job ran one call late, on a stale struct probe.
 */
static void sem_wait_all(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

static void *other_main(void *unused)
{
	(void)unused;
	for (;;) {
		sem_wait_all(&other.go);
		other.job(other.arg);
		sem_post(&other.done);
	}
	return NULL;
}

static void on_other(void (*job)(void *), void *arg)
{
	other.job = job;
	other.arg = arg;
	sem_post(&other.go);
	sem_wait_all(&other.done);
}

struct probe {
	volatile uint8_t *p;
	struct fault rd, wr;
	bool rd_hit, wr_hit;
	int64_t ran;
	jit_fn fn;
	uint32_t pkru;
};

static void probe_rw(void *arg)
{
	struct probe *pr = arg;

	pr->rd_hit = fault_read8(pr->p, &pr->rd);
	pr->wr_hit = fault_store8(pr->p, 0xcc, &pr->wr);
	pr->pkru = rdpkru();
}

static void run_fn(void *arg)
{
	struct probe *pr = arg;
	int64_t vars[LANG_MAX_VARS] = { 0 };

	pr->ran = pr->fn(vars);
}

static struct codemem *setup(enum cm_strategy s, struct jit_code *jc)
{
	struct program p;
	char err[256];
	struct codemem *cm = cm_create(s, 64 * 1024, err, sizeof(err));

	if (!cm || lang_parse(src, &p, err, sizeof(err)) || jit_compile(cm, &p, jc, err, sizeof(err)))
		tap_bail("%s: %s", cm_strategy_name(s), err);
	lang_free(&p);
	return cm;
}

static void test_outside(struct codemem *cm, struct jit_code *jc)
{
	int key = cm_pkey(cm), sk = smaps_pkey(jc->code);
	int64_t vars[LANG_MAX_VARS] = { 0 };
	struct probe pr = { .p = (uint8_t *)jc->code + OFF, .fn = jc->fn };
	struct fault f;

	tap_ok(key > 0 && sk == key, "code pages carry the JIT's key %d (smaps ProtectionKey %d)", key, sk);
	pr.ran = jc->fn(vars);
	tap_ok(pr.ran == 385, "the code runs outside the window on the emitting thread (-> %lld, want 385)", (long long)pr.ran);
	on_other(run_fn, &pr);
	tap_ok(pr.ran == 385, "the code runs on another thread (-> %lld)", (long long)pr.ran);

	fault_read8(pr.p, &f);
	tap_ok(fault_is_pkuerr(&f, key, pr.p), "emitting thread, outside the window: load from code -> SEGV_PKUERR key %d at %p (%s)",
	       key, (void *)pr.p, fault_str(&f));
	fault_store8(pr.p, 0xcc, &f);
	tap_ok(fault_is_pkuerr(&f, key, pr.p), "emitting thread, outside the window: store to code -> SEGV_PKUERR key %d (%s)",
	       key, fault_str(&f));
	on_other(probe_rw, &pr);
	tap_ok(fault_is_pkuerr(&pr.rd, key, pr.p), "another thread: load from code -> SEGV_PKUERR key %d at %p (%s)", key,
	       (void *)pr.p, fault_str(&pr.rd));
	tap_ok(fault_is_pkuerr(&pr.wr, key, pr.p), "another thread: store to code -> SEGV_PKUERR key %d (%s)", key,
	       fault_str(&pr.wr));
}

static void test_window(enum cm_strategy s)
{
	struct jit_code jc;
	struct codemem *cm;
	int key;
	struct probe pr;
	struct fault f;
	uint8_t *wr, *code;
	bool own;

	if (s == CM_PKEY_SYSCALL && stock_kernel()) {
		tap_skip(STOCK_SKIP, "%s: the write window", cm_strategy_name(s));
		return;
	}
	cm = setup(s, &jc);
	key = cm_pkey(cm);
	code = cm_begin(cm, 64, &wr);
	if (!tap_ok(code != NULL, "%s: cm_begin opens a window (%s)", cm_strategy_name(s), errname(code ? 0 : errno)))
		return;
	pr = (struct probe){ .p = code + OFF };
	own = !fault_store8(code + OFF, 0xcc, &f);
	on_other(probe_rw, &pr);
	cm_end(cm, code, 64);
	tap_ok(own, "%s window open: the emitting thread's store to the code succeeds (%s)", cm_strategy_name(s), fault_str(&f));
	tap_ok(fault_is_pkuerr(&pr.wr, key, pr.p), "%s window open: another thread's store -> SEGV_PKUERR key %d (%s)",
	       cm_strategy_name(s), key, fault_str(&pr.wr));
	tap_ok(fault_is_pkuerr(&pr.rd, key, pr.p), "%s window open: another thread's load -> SEGV_PKUERR key %d (%s); its PKRU %#x",
	       cm_strategy_name(s), key, fault_str(&pr.rd), pr.pkru);
	fault_read8(code + OFF, &f);
	tap_ok(fault_is_pkuerr(&f, key, code + OFF), "%s window closed again: the emitter's load faults (%s)",
	       cm_strategy_name(s), fault_str(&f));
	cm_destroy(cm);
}

static void test_syscalls(struct codemem *cm, struct jit_code *jc)
{
	int fds[2];
	ssize_t w, r;
	int ew, er;
	uint8_t *wr, *code;

	if (pipe(fds))
		tap_bail("pipe: %s", strerror(errno));
	errno = 0;
	w = write(fds[1], jc->code, 16);
	ew = errno;
	tap_ok(w == -1 && ew == EFAULT, "write(2) from code outside the window -> EFAULT (got %zd, %s)", w, errname(ew));
	if (write(fds[1], "0123456789abcdef", 16) != 16)
		tap_bail("write to pipe");
	errno = 0;
	r = read(fds[0], jc->code, 16);
	er = errno;
	tap_ok(r == -1 && er == EFAULT, "read(2) into code outside the window -> EFAULT (got %zd, %s)", r, errname(er));

	code = cm_begin(cm, 16, &wr);
	if (!code)
		tap_bail("cm_begin: %s", strerror(errno));
	r = read(fds[0], code, 16);
	er = errno;
	w = write(fds[1], code, 16);
	ew = errno;
	memset(wr, 0xcc, 16);
	cm_end(cm, code, 16);
	tap_ok(r == 16, "read(2) into code inside the window succeeds (got %zd, %s)", r, errname(r == 16 ? 0 : er));
	tap_ok(w == 16, "write(2) from code inside the window succeeds (got %zd, %s)", w, errname(w == 16 ? 0 : ew));
	close(fds[0]);
	close(fds[1]);
}

static struct {
	volatile uint8_t *p;
	int key;
	atomic_int ran;
	unsigned int rights;
	struct fault f;
} sig;

static void on_usr1(int signo)
{
	(void)signo;
	sig.rights = pkru_rights(rdpkru(), sig.key);
	fault_store8(sig.p, 0xcc, &sig.f);
	atomic_store(&sig.ran, 1);
}

static void send_usr1(void *main_thread)
{
	pthread_kill(*(pthread_t *)main_thread, SIGUSR1);
}

static void test_signal(struct codemem *cm)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t self = pthread_self();
	struct fault f;
	uint8_t *wr, *code;
	unsigned int after;
	bool wrote;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int how = 0; how < 2; how++) {
		const char *what = how ? "sent by another thread" : "raised";

		code = cm_begin(cm, 16, &wr);
		if (!code)
			tap_bail("cm_begin: %s", strerror(errno));
		sig.p = code;
		sig.key = cm_pkey(cm);
		atomic_store(&sig.ran, 0);
		if (how)
			on_other(send_usr1, &self);
		else
			raise(SIGUSR1);
		while (!atomic_load(&sig.ran))
			;
		after = pkru_rights(rdpkru(), sig.key);
		wrote = !fault_store8(code, 0xcc, &f);
		cm_end(cm, code, 16);
		tap_ok(sig.rights == PKEY_DISABLE_ACCESS,
		       "signal %s inside the window: the handler runs with the default rights for key %d (AD, got %u)",
		       what, sig.key, sig.rights);
		tap_ok(fault_is_pkuerr(&sig.f, sig.key, code), "signal %s inside the window: the handler's store to code -> SEGV_PKUERR (%s)",
		       what, fault_str(&sig.f));
		tap_ok(after == 0 && wrote, "signal %s: after sigreturn the window is open again (rights %u, store %s)", what,
		       after, wrote ? "succeeds" : fault_str(&f));
	}
	signal(SIGUSR1, SIG_DFL);
}

struct inherit {
	struct codemem *cm;
	volatile uint8_t *p;
	bool before, after;
	struct fault f;
};

static void *inherit_thread(void *arg)
{
	struct inherit *in = arg;

	in->before = !fault_read8(in->p, &in->f);
	cm_thread_lock(in->cm);
	fault_read8(in->p, &in->f);
	in->after = fault_is_pkuerr(&in->f, cm_pkey(in->cm), in->p);
	return NULL;
}

static void test_inherit(struct codemem *cm, struct jit_code *jc)
{
	struct inherit in = { .cm = cm, .p = (uint8_t *)jc->code + OFF };
	uint8_t *wr, *code = cm_begin(cm, 16, &wr);
	pthread_t t;
	int r;

	if (!code)
		tap_bail("cm_begin: %s", strerror(errno));
	r = pthread_create(&t, NULL, inherit_thread, &in);
	cm_end(cm, code, 16);
	if (r)
		tap_bail("pthread_create: %s", strerror(r));
	pthread_join(t, NULL);
	tap_ok(in.before, "a thread created inside the window inherits it: its load from code succeeds");
	tap_ok(in.after, "cm_thread_lock() closes it: its next load faults SEGV_PKUERR (%s)", fault_str(&in.f));
}

static void test_contrast(enum cm_strategy s)
{
	struct jit_code jc;
	struct codemem *cm = setup(s, &jc);
	uint8_t *wr, *code = cm_begin(cm, 16, &wr);
	struct probe pr;

	if (!code)
		tap_bail("cm_begin: %s", strerror(errno));
	pr = (struct probe){ .p = wr };
	on_other(probe_rw, &pr);
	memset(wr, 0xcc, 16);
	cm_end(cm, code, 16);
	tap_ok(!pr.wr_hit, "contrast, %s: another thread CAN store to the code being written (%s)", cm_strategy_name(s),
	       fault_str(&pr.wr));
	cm_destroy(cm);
}

struct remote {
	ssize_t r, w;
	int er, ew;
	bool same;
};

static void test_remote(struct codemem *cm, struct jit_code *jc)
{
	struct remote *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint8_t want[16], got[16], back[16], mark[16], *wr, *slot;
	pid_t pid;
	int status;

	if (res == MAP_FAILED || cm_read(cm, jc->code, sizeof(want), want))
		tap_bail("remote: setup: %s", strerror(errno));
	/* A slot of code memory of its own for the write: int3 bytes, never run. */
	slot = cm_begin(cm, sizeof(mark), &wr);
	if (!slot)
		tap_bail("cm_begin: %s", strerror(errno));
	memset(wr, 0xcc, sizeof(mark));
	cm_end(cm, slot, sizeof(mark));
	memset(mark, 0x90, sizeof(mark));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (pid == 0) {
		struct iovec lr = { got, sizeof(got) }, rr = { jc->code, sizeof(got) };
		struct iovec lw = { mark, sizeof(mark) }, rw = { slot, sizeof(mark) };

		errno = 0;
		res->r = process_vm_readv(getppid(), &lr, 1, &rr, 1, 0);
		res->er = errno;
		res->same = res->r == (ssize_t)sizeof(got) && !memcmp(got, want, sizeof(got));
		errno = 0;
		res->w = process_vm_writev(getppid(), &lw, 1, &rw, 1, 0);
		res->ew = errno;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (cm_read(cm, slot, sizeof(back), back))
		tap_bail("cm_read: %s", strerror(errno));
	tap_ok(res->r == (ssize_t)sizeof(got) && res->same,
	       "does not stop: another process's process_vm_readv(2) of the JIT code returns its bytes (got %zd, %s, %s)",
	       res->r, errname(res->r < 0 ? res->er : 0), res->same ? "the code's bytes" : "other bytes");
	tap_ok(res->w == (ssize_t)sizeof(mark) && !memcmp(back, mark, sizeof(mark)),
	       "does not stop: another process's process_vm_writev(2) into code memory succeeds (got %zd, %s; the bytes %s)",
	       res->w, errname(res->w < 0 ? res->ew : 0), !memcmp(back, mark, sizeof(mark)) ? "changed" : "did not change");
	munmap(res, sizeof(*res));
}

int main(void)
{
	struct jit_code jc;
	struct codemem *cm;

	tap_init("jit protection");
	if (!pkru_supported())
		tap_bail("no PKU/OSPKE");
	fault_setup();
	/* The helper thread exists before any window opens. */
	sem_init(&other.go, 0, 0);
	sem_init(&other.done, 0, 0);
	if (pthread_create(&other.t, NULL, other_main, NULL))
		tap_bail("pthread_create");
	cm = setup(CM_PKEY, &jc);
	test_outside(cm, &jc);
	test_syscalls(cm, &jc);
	test_signal(cm);
	test_inherit(cm, &jc);
	cm_destroy(cm);
	test_window(CM_PKEY);
	test_window(CM_PKEY_SYSCALL);
	test_contrast(CM_MPROTECT);
	test_contrast(CM_DUALMAP);
	/* Last, in code memory of its own: it leaves its slot written. */
	cm = setup(CM_PKEY, &jc);
	test_remote(cm, &jc);
	cm_destroy(cm);
	return tap_done();
}
