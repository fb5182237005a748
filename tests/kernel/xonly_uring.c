// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_uring - io_uring's deferred I/O does not read execute-only code
 * with the key open at the strict level (kernel/patches/0076, issue 28).
 *
 * A thread T submits an IORING_OP_SEND of OUT_LEN bytes of its
 * execute-only code (a memfd page mapped PROT_READ|PROT_EXEC) to a
 * socket whose send buffer is full, with the key closed: io_uring arms a
 * poll and re-issues the send from task_work of T when the socket
 * becomes writable.  T then opens the key with WRPKRU and spins with no
 * system call and no new page, so that only an interrupt enters the
 * kernel; a drainer thread, its own key closed, empties the peer end,
 * which queues the task_work to T and kicks it with an IPI.  The send
 * is re-issued on T's way back from that interrupt, in
 * exit_to_user_mode_loop(), with the PKRU T had.  In a child at each
 * level, this proves:
 *  - plain (level 1): the send completes with OUT_LEN and the peer
 *    reads the code's bytes, so the test sees the leak where there is
 *    one;
 *  - strict (level 2): the send fails with EFAULT and no code byte
 *    arrives (0076 closes the key before the exit work; with 0062 alone,
 *    which closes it after that work, the bytes come out), and T is not
 *    killed (interrupts are not checked).
 * A try counts when T found the send's completion (CQE) in the ring at
 * the moment it first saw its key closed (strict) or while the key was
 * still open (plain): then it was the interrupt that ended the spin
 * that ran the task_work.  At the strict level a timer tick that comes
 * first closes the key before the task_work is queued; that try does
 * not count and is made again, up to MAX_TRIES.  A try in which io_uring
 * punted the send to an io-wq worker thread (which reads with its own
 * PKRU) does not count either.  At the strict level a leak in any try
 * fails.
 * Skipped without PKU, without xonly mode, and where io_uring_setup()
 * is ENOSYS (no CONFIG_IO_URING).  With xonly=strict the plain row is
 * skipped (a level cannot be lowered).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "codepage.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define OUT_LEN		64		/* bytes of code the SEND asks for */
#define FILL_CHUNK	512		/* filler written per send() */
#define FILL_MAX	65536		/* more filler than this: SO_SNDBUF did not hold */
#define MAX_TRIES	150		/* a loaded host ticks more often per guest instruction (seen: 2 of 50 counted with two VMs at once) */
#define WANT_TRIES	3		/* tries that count, at each level */
#define SPIN_MAX	400000000UL	/* tens of seconds under TCG; the alarm is 120 */

static unsigned char page_img[4096];

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
	struct io_uring_sqe *sqes;
};

static int uring_setup(unsigned int entries, struct io_uring_params *p)
{
	return (int)syscall(SYS_io_uring_setup, entries, p);
}

static int uring_enter(int fd, unsigned int submit, unsigned int min, unsigned int flags)
{
	return (int)syscall(SYS_io_uring_enter, fd, submit, min, flags, NULL, 0);
}

/* A ring of 4 entries, its SQ and CQ rings and SQEs mapped and populated. */
static void ring_init(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = uring_setup(4, &p);
	if (r->fd < 0)
		tap_bail("setup: io_uring_setup: %s", errname(errno));
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
	     mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		tap_bail("setup: mmap of the io_uring rings: %s", errname(errno));
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

/* Submit one IORING_OP_SEND of @len bytes at @buf to @fd. */
static int ring_send(struct ring *r, int fd, const void *buf, unsigned int len, uint64_t tag)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_SEND;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->user_data = tag;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return uring_enter(r->fd, 1, 0, 0);
}

/* Wait for the next CQE and consume it: its result, *@tag its user_data. */
static int ring_reap(struct ring *r, uint64_t *tag)
{
	unsigned int head = *r->cq_head;
	struct io_uring_cqe *cqe;
	int res;

	while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == head)
		if (uring_enter(r->fd, 0, 1, IORING_ENTER_GETEVENTS) < 0 && errno != EINTR)
			tap_bail("setup: io_uring_enter(GETEVENTS): %s", errname(errno));
	cqe = &r->cqes[head & *r->cq_mask];
	*tag = cqe->user_data;
	res = cqe->res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/* Threads of this process that are io-wq workers ("iou-wrk-PID"). */
static int iowq_workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char path[64], comm[32];
	int n = 0;
	FILE *f;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/* --- one try ---------------------------------------------------------------- */

static int go;			/* T opened its key: the drainer may start */

struct drain {
	int fd;
	size_t got;
	unsigned char buf[FILL_MAX + OUT_LEN];
};

/* The drainer: from T's signal on, read the peer end until EOF. */
static void *drainer(void *arg)
{
	struct drain *d = arg;
	ssize_t n;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	while (d->got < sizeof(d->buf) && (n = read(d->fd, d->buf + d->got, sizeof(d->buf) - d->got)) > 0)
		d->got += n;
	return NULL;
}

/*
 * T's spin: while its key is open and the CQ ring has no new entry.  It
 * makes no system call and touches only pages touched before (the CQ
 * ring is populated; the caller runs it once with the key closed first
 * so that its code is mapped: at the strict level a page fault with the
 * key open kills since 0074).
 */
static __attribute__((noinline)) unsigned long spin_open(const unsigned int *cq_tail, unsigned int seen, int key,
							 unsigned long max)
{
	unsigned long i;

	for (i = 0; i < max && !(rdpkru() & PKRU_AD(key)) && __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == seen; i++)
		__asm__ volatile("" ::: "memory");
	return i;
}

struct try {
	unsigned long spins;
	bool open;		/* the key was open when the spin ended */
	bool posted;		/* ... and the CQE was in the ring then */
	int workers;		/* io-wq worker threads after the try */
	int res;		/* the CQE's result */
	size_t fill, got;	/* filler written, bytes the peer read */
	bool code_out;		/* the bytes after the filler are the code's */
};

static void one_try(struct ring *r, const unsigned char *code, int key, unsigned int n, struct try *t)
{
	static struct drain d;
	unsigned char fill[FILL_CHUNK];
	int sv[2], sndbuf = 4096;
	unsigned int seen;
	uint64_t tag;
	pthread_t th;
	ssize_t w;

	memset(t, 0, sizeof(*t));
	memset(fill, 0x5a, sizeof(fill));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)))
		tap_bail("setup: socketpair: %s", errname(errno));
	while (t->fill <= FILL_MAX - FILL_CHUNK && (w = send(sv[0], fill, sizeof(fill), MSG_DONTWAIT)) > 0)
		t->fill += w;
	if (errno != EAGAIN || t->fill > FILL_MAX - FILL_CHUNK)
		tap_bail("setup: filling the socket: %zu bytes, then %s", t->fill, errname(errno));

	seen = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
	if (ring_send(r, sv[0], code, OUT_LEN, n) != 1)
		tap_bail("setup: io_uring_enter(submit SEND): %s", errname(errno));
	if (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) != seen)
		tap_bail("setup: the SEND completed at once (%d): the socket was not full", ring_reap(r, &tag));

	memset(&d, 0, sizeof(d));
	d.fd = sv[1];
	__atomic_store_n(&go, 0, __ATOMIC_RELEASE);
	if (pthread_create(&th, NULL, drainer, &d))
		tap_bail("setup: pthread_create");
	spin_open(r->cq_tail, seen, key, 1);	/* key closed: returns at once, its page mapped */

	wrpkru(pkru_with(rdpkru(), key, 0));
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	t->spins = spin_open(r->cq_tail, seen, key, SPIN_MAX);
	t->open = !(rdpkru() & PKRU_AD(key));
	t->posted = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) != seen;
	wrpkru(rdpkru() | PKRU_AD(key));

	t->res = ring_reap(r, &tag);
	if (tag != n)
		tap_bail("setup: a CQE for try %llu in try %u", (unsigned long long)tag, n);
	shutdown(sv[0], SHUT_WR);
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
	t->got = d.got;
	t->code_out = d.got == t->fill + OUT_LEN && !memcmp(d.buf + t->fill, page_img, OUT_LEN);
	t->workers = iowq_workers();
}

/* --- the rows --------------------------------------------------------------- */

/* In a child: enter @level; the boot may have given one already. */
static bool enter_level(int level)
{
	int cur = xonly_get(0, 0, 0, 0);

	/* learn mode (3, xonly=learn) ranks below level 1: it is raised */
	return ((cur >= level && cur != XONLY_PR_XONLY_LEARN) || xonly_set(level, 0, 0, 0) == 0) &&
	       xonly_get(0, 0, 0, 0) == level;
}

static void row(void *arg)
{
	int level = (int)(intptr_t)arg, key, counted = 0, leaks = 0, good = 0;
	const char *name = level == 2 ? "strict" : "plain";
	unsigned char *code;
	struct ring r;
	struct try t;
	unsigned int n;

	if (!enter_level(level) || !(code = code_page_map(page_img, sizeof(page_img), &key)))
		tap_bail("setup: level %d and an execute-only page of code", level);
	ring_init(&r);
	for (n = 1; n <= MAX_TRIES && counted < WANT_TRIES; n++) {
		bool counts, leak;

		one_try(&r, code, key, n, &t);
		/* plain: the CQE came while the key was open; strict: with the interrupt that closed it */
		counts = t.posted && t.open == (level == 1) && !t.workers;
		leak = t.res > 0 || t.got != t.fill;
		counted += counts;
		leaks += leak;
		good += counts && (level == 1 ? t.res == OUT_LEN && t.code_out : t.res == -EFAULT && !leak);
		tap_diag("%s: try %u: %lu spins, then key %s, CQE %s; CQE %d, peer read %zu bytes (%zu filler)%s; %d io-wq workers: %s",
			 name, n, t.spins, t.open ? "open" : "closed", t.posted ? "posted" : "not yet", t.res, t.got,
			 t.fill, t.code_out ? ", the code's bytes last" : "", t.workers,
			 counts ? "counts" : "does not count");
	}
	n--;
	if (level == 1) {
		tap_ok(counted == WANT_TRIES && good == counted,
		       "plain: a SEND of the code re-issued from task_work while the key was open (WRPKRU) completes with %d bytes and the peer reads the code: in %d of %d tries that counted (%u tries)",
		       OUT_LEN, good, counted, n);
		return;
	}
	tap_ok(!leaks, "strict: no code byte leaked in any of %u tries (%d leaked)", n, leaks);
	tap_ok(counted == WANT_TRIES && good == counted,
	       "strict: a SEND of the code re-issued from task_work in the interrupt that closed the opened key is EFAULT and sends nothing: in %d of %d tries that counted (%u tries); the thread was not killed",
	       good, counted, n);
}

int main(void)
{
	bool strict_boot = cmdline_has("xonly=strict");
	struct io_uring_params p;
	char why[80];
	int fd;

	code_page_img(page_img, sizeof(page_img));
	tap_init("xonly_uring");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "io_uring's deferred SEND of execute-only code");
		return tap_done();
	}
	if (xonly_get(0, 0, 0, 0) < 0) {
		snprintf(why, sizeof(why), "no xonly mode: PR_GET_XONLY is %s", errname(errno));
		tap_skip(why, "io_uring's deferred SEND of execute-only code");
		return tap_done();
	}
	memset(&p, 0, sizeof(p));
	fd = uring_setup(1, &p);
	if (fd < 0 && errno == ENOSYS) {
		tap_skip("io_uring_setup() is ENOSYS (no CONFIG_IO_URING)", "io_uring's deferred SEND of execute-only code");
		return tap_done();
	}
	if (fd < 0)
		tap_bail("setup: io_uring_setup: %s", errname(errno));
	close(fd);

	if (strict_boot)
		tap_skip("xonly=strict: a level cannot be lowered", "plain: the deferred SEND at level 1");
	else
		child_tap_ok("plain: io_uring child", row, (void *)(intptr_t)1, 120);
	child_tap_ok("strict: io_uring child", row, (void *)(intptr_t)2, 120);
	return tap_done();
}
