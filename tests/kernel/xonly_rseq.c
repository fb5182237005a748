// SPDX-License-Identifier: GPL-2.0
/*
 * xonly_rseq - an rseq critical section whose code is execute-only aborts
 * into its abort handler like any other (issue 22, item 2; series v3).
 *
 * On an abort the kernel checks the 4-byte signature just before abort_ip
 * (rseq_get_rseq_cs()).  v2 read it with get_user(), which honours PKRU:
 * with the abort handler in execute-only code the read failed and the
 * kernel force_sigsegv()ed the task, so every program in xonly mode that
 * uses rseq (glibc registers it for every thread; TCMalloc, librseq,
 * LTTng-UST use it) died on its first abort.
 *
 * The critical section used here stores its own descriptor into the
 * thread's struct rseq (glibc's, found through __rseq_offset) as its first
 * instruction and then jumps back to it forever: only an abort gets out,
 * through the abort handler, which returns a marker.  An ITIMER_VIRTUAL
 * signal (a no-op handler) is delivered while the thread spins in it,
 * which aborts it.  Each case runs in a forked child bounded by alarm(),
 * so a hang fails instead of hanging.
 *
 * Proves, for the code in:
 *  - an anonymous page mprotect()ed PROT_READ|PROT_EXEC, readable (the
 *    control: the test's mechanism works on any kernel),
 *  - an anonymous page mprotect()ed PROT_EXEC (upstream's execute-only
 *    key),
 *  - a memfd and a /tmp file mapped PROT_READ|PROT_EXEC after
 *    PR_SET_XONLY 1 (execute-only in xonly mode):
 *  that the code is what it should be (readable, or --xp with a key and a
 *  load faulting SEGV_PKUERR), that the call returns the abort handler's
 *  marker and the child exits 0 (v2: killed by SIGSEGV for the three
 *  execute-only cases), and the kernel cleared rseq_cs; and with a wrong
 *  signature before abort_ip, that the kernel still refuses the abort and
 *  kills the child with SIGSEGV, in every kind of memory (it may learn
 *  whether the signature is right, nothing lets it accept a wrong one), and
 *  the kernel log does not show the wrong value for execute-only code
 *  (upstream logs "Unexpected rseq signature 0x%x": read from execute-only
 *  code, that would be 4 bytes of it in dmesg; v2 never read them).
 * The same with xonly=on (the test's own code is execute-only then; the
 * readable anonymous page stays readable).  Skipped without PKU, or when
 * glibc has not registered rseq (__rseq_size 0: a kernel without
 * CONFIG_RSEQ).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "child.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

#define MARKER		0x600dab07u
#define POST_COMMIT	5	/* start_ip + 5: the end of the critical section */
#define ABORT_OFF	12	/* abort_ip; the signature is the 4 bytes before it */

/*
 * int cs(uint64_t *rseq_cs, const struct rseq_cs *desc):
 *   0: 48 89 37        mov %rsi, (%rdi)    start_ip: this thread's rseq_cs = desc
 *   3: eb fb           jmp 0               ... forever: only an abort leaves
 *   5: cc cc cc        int3 (never reached) post_commit_ip
 *   8: SIG             the signature
 *  12: b8 MARKER       mov $MARKER, %eax   abort_ip
 *  17: c3              ret
 */
static void build_code(unsigned char *c, uint32_t sig)
{
	static const unsigned char head[] = { 0x48, 0x89, 0x37, 0xeb, 0xfb, 0xcc, 0xcc, 0xcc };
	uint32_t marker = MARKER;

	memcpy(c, head, sizeof(head));
	memcpy(c + 8, &sig, 4);
	c[ABORT_OFF] = 0xb8;
	memcpy(c + ABORT_OFF + 1, &marker, 4);
	c[ABORT_OFF + 5] = 0xc3;
}

enum kind { READABLE, XO_ANON, XO_MEMFD, XO_FILE };

static const char *const kind_name[] = {
	[READABLE] = "anonymous PROT_READ|PROT_EXEC (readable)",
	[XO_ANON] = "anonymous PROT_EXEC (execute-only key)",
	[XO_MEMFD] = "memfd PROT_READ|PROT_EXEC in xonly mode",
	[XO_FILE] = "/tmp file PROT_READ|PROT_EXEC in xonly mode",
};

struct rcase {
	enum kind kind;
	bool good_sig;
};

/* A wrong signature of its own for each kind, to tell their log lines apart. */
static uint32_t wrong_sig(enum kind kind)
{
	return RSEQ_SIG + 1 + (uint32_t)kind;
}

static char logged_sig[32];

/* The kernel's "Unexpected rseq signature 0x%x" line for logged_sig. */
static bool names_sig(const char *line)
{
	return strstr(line, "rseq signature") && strstr(line, logged_sig);
}

static struct rseq *thread_rseq(void)
{
	char *tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (struct rseq *)(tp + __rseq_offset);
}

static void on_tick(int sig)
{
	(void)sig;
}

/* Map @code (@len bytes) as @kind wants; NULL and a failed row if it cannot. */
static unsigned char *map_code(enum kind kind, const unsigned char *code, size_t len)
{
	size_t ps = page_size();
	unsigned char *p = MAP_FAILED;
	char path[64];
	int fd = -1, r;

	if (kind == XO_MEMFD || kind == XO_FILE) {
		r = xonly_enter();
		if (!tap_ok(r == 0, "setup: PR_SET_XONLY 1 (got %d, %s)", r, errname(r ? errno : 0)))
			return NULL;
		if (kind == XO_MEMFD) {
			fd = (int)syscall(SYS_memfd_create, "xonly_rseq", 0);
		} else {
			snprintf(path, sizeof(path), "/tmp/xonly_rseq.%d", (int)getpid());
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
			unlink(path);
		}
		if (fd < 0 || ftruncate(fd, (off_t)ps) || pwrite(fd, code, len, 0) != (ssize_t)len) {
			tap_ok(false, "setup: the code in a %s: %s", kind == XO_MEMFD ? "memfd" : "file", errname(errno));
			return NULL;
		}
		p = mmap(NULL, ps, PROT_READ | PROT_EXEC, kind == XO_MEMFD ? MAP_SHARED : MAP_PRIVATE, fd, 0);
		close(fd);
	} else {
		p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			memcpy(p, code, len);
			if (mprotect(p, ps, kind == READABLE ? PROT_READ | PROT_EXEC : PROT_EXEC))
				p = MAP_FAILED;
		}
	}
	if (!tap_ok(p != MAP_FAILED, "setup: %s mapped (%s)", kind_name[kind], errname(p == MAP_FAILED ? errno : 0)))
		return NULL;
	return p;
}

/* In the child: map the code, check what it is, run it under a ticking timer. */
static void rseq_case(void *arg)
{
	const struct rcase *c = arg;
	static struct rseq_cs desc;
	unsigned char code[ABORT_OFF + 6], *p;
	struct itimerval tick = { { 0, 10000 }, { 0, 10000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct rseq *rs = thread_rseq();
	struct sigaction sa;
	struct fault f;
	uint32_t ret;
	int key;

	build_code(code, c->good_sig ? RSEQ_SIG : wrong_sig(c->kind));
	p = map_code(c->kind, code, sizeof(code));
	if (!p)
		return;
	key = smaps_pkey(p);
	fault_read8(p, &f);
	if (c->kind == READABLE)
		tap_ok(key == 0 && maps_perms(p)[0] == 'r' && !f.hit, "setup: the code is readable (%s, key %d, load: %s)",
		       maps_perms(p), key, fault_str(&f));
	else
		tap_ok(key > 0 && !strncmp(maps_perms(p), "--x", 3) && fault_is_pkuerr(&f, key, p),
		       "setup: the code is execute-only (%s, key %d, load: %s)", maps_perms(p), key, fault_str(&f));
	/* from here on a SIGSEGV from the kernel must end the child */
	signal(SIGSEGV, SIG_DFL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sigaction(SIGVTALRM, &sa, NULL);
	desc.version = 0;
	desc.flags = 0;
	desc.start_ip = (uintptr_t)p;
	desc.post_commit_offset = POST_COMMIT;
	desc.abort_ip = (uintptr_t)p + ABORT_OFF;
	setitimer(ITIMER_VIRTUAL, &tick, NULL);
	ret = ((uint32_t (*)(volatile __u64 *, const struct rseq_cs *))(uintptr_t)p)(&rs->rseq_cs, &desc);
	setitimer(ITIMER_VIRTUAL, &off, NULL);
	if (!c->good_sig) {
		tap_ok(false, "%s: the kernel accepted a WRONG signature, the call returned %#x", kind_name[c->kind], ret);
		return;
	}
	tap_ok(ret == MARKER,
	       "%s: the critical section was aborted by a signal and returned through its abort handler (%#x)",
	       kind_name[c->kind], ret);
	tap_ok(rs->rseq_cs == 0, "%s: the kernel cleared rseq_cs on the abort (%#llx)", kind_name[c->kind],
	       (unsigned long long)rs->rseq_cs);
}

int main(void)
{
	struct rseq *rs;

	tap_init("xonly_rseq");
	if (!pkru_supported()) {
		tap_skip("no PKU/OSPKE (a nopku boot?)", "rseq aborts into execute-only code");
		return tap_done();
	}
	if (__rseq_size == 0) {
		tap_skip("glibc did not register rseq (__rseq_size 0: no CONFIG_RSEQ?)",
			 "rseq aborts into execute-only code");
		return tap_done();
	}
	rs = thread_rseq();
	tap_ok((int32_t)rs->cpu_id >= 0 && rs->rseq_cs == 0,
	       "setup: glibc registered rseq (__rseq_size %u, offset %td, cpu_id %d, rseq_cs %#llx)", __rseq_size,
	       __rseq_offset, (int)rs->cpu_id, (unsigned long long)rs->rseq_cs);
	fault_setup();

	for (enum kind k = READABLE; k <= XO_FILE; k++) {
		struct rcase c = { k, true };
		char what[160];

		snprintf(what, sizeof(what), "%s, right signature", kind_name[k]);
		child_tap_ok(what, rseq_case, &c, 20);
	}
	for (enum kind k = READABLE; k <= XO_FILE; k++) {
		struct rcase c = { k, false };
		int n = 0, st = child_tap(rseq_case, &c, 20, &n);

		const char *line;

		tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
		       "%s, WRONG signature before abort_ip: the kernel refuses the abort, SIGSEGV (%s)", kind_name[k],
		       status_str(st));
		/* upstream logs the wrong value it read: for execute-only code, 4 bytes of it */
		snprintf(logged_sig, sizeof(logged_sig), "signature %#x,", wrong_sig(k));
		line = klog_line(names_sig);
		if (k == READABLE)
			tap_ok(line != NULL,
			       "%s: control: the kernel log names its wrong signature, as upstream does (so the log is read: %s)",
			       kind_name[k], line ? line : "no line");
		else
			tap_ok(!line, "%s: the kernel log does not show the 4 bytes of execute-only code before abort_ip (%s)",
			       kind_name[k], line ? line : "no line names them");
	}
	return tap_done();
}
