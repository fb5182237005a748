// SPDX-License-Identifier: GPL-2.0
/*
 * lifetime - execute-only survives what happens to a mapping after it is
 * made, on every kind (tests/lib/xomap.c).
 *
 * Proves, per mapping kind:
 *  - fork(): in the child the VMA keeps its key (smaps), the code runs,
 *    loads and stores fault SEGV_PKUERR with that key;
 *  - mremap() to a new address: the old one is gone, the new one has the
 *    same key (smaps), the code runs there and a load there faults with it;
 *  - madvise(MADV_DONTNEED) + refault: the key stays, a tracer's
 *    PTRACE_PEEKTEXT refaults the page and reads zeros (the contents are
 *    gone) or, for a file-backed kind, the file's bytes again (int3 fill
 *    there), and afterwards a load in the tracee still faults with the key
 *    (the zero page is not executed: zeros decode as add %al,(%rax)).
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"

#define OFF 0x88
#define FILE_WORD ((long)0xccccccccccccccccul)	/* the "file" kind's file past the code */

struct child_res {
	int key;
	bool exec_ok;
	struct insn_skip ld, st;
	long peek;		/* the tracer's PTRACE_PEEKTEXT, after DONTNEED */
	int peek_err;
};

static struct child_res *shared_res(void)
{
	struct child_res *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		tap_bail("setup: shared mmap: %s", strerror(errno));
	memset(r, 0, sizeof(*r));
	r->key = -2;
	return r;
}

static bool exited_0(pid_t pid, int st)
{
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void key_check(const char *channel, const struct xomap *m, int key)
{
	char got[16];

	snprintf(got, sizeof(got), "key %d", key);
	conf_check(channel, m->kind, key == m->pkey, "same key", key == m->pkey ? "same key" : got,
		   "smaps ProtectionKey is still %d (got %d)", m->pkey, key);
}

static void load_check(const char *channel, const struct xomap *m, const struct insn_skip *log, const char *at)
{
	char got[32];
	bool ok = conf_fault_ok(log, 1, m->pkey, at, at, got, sizeof(got));

	conf_check(channel, m->kind, ok, "PKUERR", got, "an 8-byte access at %p faults SEGV_PKUERR, key %d (%s)",
		   (void *)at, m->pkey, fault_str(&log->first));
}

static void check_fork(const struct xomap *m)
{
	struct child_res *r = shared_res();
	char got[48];
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		r->key = smaps_pkey(m->code);
		r->exec_ok = conf_exec_at(m->code, got, sizeof(got));
		r->ld = conf_probe(conf_ld8, m->code + OFF, 8);
		r->st = conf_probe(conf_st8, m->code + OFF, 8);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (tap_ok(exited_0(pid, st), "%s: setup: the fork child ran (status %#x)", m->kind->name, st)) {
		key_check("fork child: smaps key", m, r->key);
		conf_check("fork child: runs", m->kind, r->exec_ok, "runs", r->exec_ok ? "runs" : "wrong",
			   "the child runs conf_chain at every boundary and conf_mul");
		load_check("fork child: load", m, &r->ld, m->code + OFF);
		load_check("fork child: store", m, &r->st, m->code + OFF);
	}
	munmap(r, sizeof(*r));
}

/* Move the code to a fresh, equally aligned place; m follows it. */
static void check_mremap(struct xomap *m)
{
	size_t align = m->kind->align ? m->kind->align : page_size();
	size_t len = m->len + align;
	char *resv = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *to, *old = m->code, got[48];
	struct insn_skip log;
	bool ok;

	if (resv == MAP_FAILED)
		tap_bail("setup: mmap: %s", strerror(errno));
	to = (char *)(((uintptr_t)resv + align - 1) & ~(uintptr_t)(align - 1));
	if (mremap(old, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to) {
		conf_check("mremap: moved", m->kind, false, "moved", errname(errno), "mremap(MREMAP_FIXED) of the code");
		munmap(resv, len);
		return;
	}
	m->code = to;
	key_check("mremap: smaps key at new address", m, smaps_pkey(to));
	ok = smaps_field(old, "Size") < 0;
	conf_check("mremap: old address unmapped", m->kind, ok, "gone", ok ? "gone" : "mapped",
		   "nothing is mapped at the old address %p", (void *)old);
	ok = conf_exec_at(to, got, sizeof(got));
	conf_check("mremap: runs at new address", m->kind, ok, "runs", ok ? "runs" : "wrong",
		   "conf_chain at every boundary and conf_mul at %p (%s)", (void *)to, got);
	log = conf_probe(conf_ld8, to + OFF, 8);
	load_check("mremap: load at new address", m, &log, to + OFF);
	if (m->kind->align)
		tap_diag("%s: after mremap AnonHugePages %ld kB, Private_Hugetlb %ld kB", m->kind->name,
			 smaps_field(to, "AnonHugePages"), smaps_field(to, "Private_Hugetlb"));
	/* The moved code goes with its new reservation; xomap_unmap() frees the old one. */
	m->code = old;
	munmap(resv, len);
}

/* DONTNEED, then a tracer refaults the page with PTRACE_PEEKTEXT and the tracee loads. */
static void check_dontneed(const struct xomap *m)
{
	struct child_res *r = shared_res();
	int st = -1;
	pid_t pid;
	char got[32];
	long want;
	bool ok;

	if (madvise(m->code, m->len, MADV_DONTNEED)) {
		conf_check("DONTNEED: madvise", m->kind, false, "0", errname(errno), "madvise(MADV_DONTNEED) of the code");
		munmap(r, sizeof(*r));
		return;
	}
	key_check("DONTNEED: smaps key", m, smaps_pkey(m->code));
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		r->key = smaps_pkey(m->code);
		r->ld = conf_probe(conf_ld8, m->code + OFF, 8);
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		errno = 0;
		r->peek = ptrace(PTRACE_PEEKTEXT, pid, m->code + OFF, NULL);
		r->peek_err = errno;
		/* Untraced from here: its own faults go to its own handler. */
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		waitpid(pid, &st, 0);
	} else if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (!tap_ok(exited_0(pid, st), "%s: setup: the traced child ran (status %#x)", m->kind->name, st))
		goto out;
	/* Anonymous memory comes back zero-filled, a file's page from the file. */
	want = m->kind->file_backed ? FILE_WORD : 0;
	ok = !r->peek_err && r->peek == want;
	if (r->peek_err)
		snprintf(got, sizeof(got), "%s", errname(r->peek_err));
	else
		snprintf(got, sizeof(got), "%#lx", (unsigned long)r->peek);
	conf_check("DONTNEED: tracer refault reads", m->kind, ok, m->kind->file_backed ? "file" : "0",
		   ok ? (m->kind->file_backed ? "file" : "0") : got,
		   "PTRACE_PEEKTEXT of the dropped page faults it in again, %s (%#lx)",
		   m->kind->file_backed ? "from the file" : "zero-filled", (unsigned long)want);
	key_check("DONTNEED: smaps key after refault", m, r->key);
	load_check("DONTNEED: load after refault", m, &r->ld, m->code + OFF);
out:
	munmap(r, sizeof(*r));
}

int main(void)
{
	tap_init("conformance/lifetime");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	insn_skip_setup();
	for (int i = 0; i < xomap_nkinds; i++) {
		struct xomap m;

		if (!conf_map(&xomap_kinds[i], &m))
			continue;
		check_fork(&m);
		check_mremap(&m);
		xomap_unmap(&m);
		/* A fresh one: the moved one is gone. */
		if (!conf_map(&xomap_kinds[i], &m))
			continue;
		check_dontneed(&m);
		xomap_unmap(&m);
	}
	conf_table("lifetime of execute-only mappings per kind");
	return tap_done();
}
