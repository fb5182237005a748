// SPDX-License-Identifier: GPL-2.0
#include <capstone.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "insn.h"
#include "pkru.h"

static bool insn_open(csh *h)
{
	return cs_open(CS_ARCH_X86, CS_MODE_64, h) == CS_ERR_OK;
}

int insn_boundaries(const void *code, size_t len, size_t *off, int max)
{
	const uint8_t *p = code;
	uint64_t addr = 0;
	cs_insn *insn;
	int n = 0;
	csh h;

	if (!insn_open(&h))
		return 0;
	insn = cs_malloc(h);
	while (insn && n < max && len && cs_disasm_iter(h, &p, &len, &addr, insn))
		off[n++] = insn->address;
	if (insn)
		cs_free(insn, 1);
	cs_close(&h);
	return n;
}

int insn_entries(const void *code, size_t len, size_t *off, int max)
{
	const uint8_t *p = code;
	uint64_t addr = 0;
	bool after_end = true;	/* offset 0 is an entry */
	cs_insn *insn;
	int n = 0;
	csh h;

	if (!insn_open(&h))
		return 0;
	insn = cs_malloc(h);
	while (insn && n < max && len && cs_disasm_iter(h, &p, &len, &addr, insn)) {
		unsigned int id = insn->id;

		if (id == X86_INS_INT3 || id == X86_INS_NOP)
			continue;
		if (after_end)
			off[n++] = insn->address;
		after_end = id == X86_INS_RET || id == X86_INS_JMP;
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&h);
	return n;
}

/*
 * Per thread: the log, and a capstone handle opened outside the handler
 * (cs_open allocates; the handler itself only decodes).
 */
static __thread struct insn_skip *skip_log;
static __thread csh skip_cs;
static __thread cs_insn *skip_insn;
static __thread bool skip_busy;
static __thread const uint8_t *shadow_xo, *shadow_copy;
static __thread size_t shadow_len;

static void skip_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *rip = &uc->uc_mcontext.gregs[REG_RIP];
	const uint8_t *code = (const uint8_t *)*rip;
	size_t size = 16;
	uint64_t addr = *rip;
	struct fault f = { .hit = true, .signo = sig, .code = si->si_code, .addr = si->si_addr, .pkey = -1 };

	/*
	 * Not skipping on this thread, a fault while decoding (the RIP is
	 * not readable) or a runaway: take the default action.
	 */
	if (!skip_log || skip_busy || skip_log->n >= 100000) {
		signal(sig, SIG_DFL);
		return;
	}
	skip_busy = true;
	if (si->si_code == SEGV_PKUERR)
		f.pkey = (int)si->si_pkey;
	f.pkru = pkru_supported() ? rdpkru() : 0;
	if (shadow_xo && code >= shadow_xo && code < shadow_xo + shadow_len) {
		size = shadow_xo + shadow_len - code;
		code = shadow_copy + (code - shadow_xo);
	}
	if (!cs_disasm_iter(skip_cs, &code, &size, &addr, skip_insn)) {
		signal(sig, SIG_DFL);
		skip_busy = false;
		return;
	}
	if (skip_log->n++ == 0) {
		skip_log->first = f;
		skip_log->first_len = skip_insn->size;
	}
	skip_log->last = f;
	*rip += skip_insn->size;
	skip_busy = false;
}

void insn_skip_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = skip_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

bool insn_skip_begin(struct insn_skip *log)
{
	memset(log, 0, sizeof(*log));
	if (!skip_insn) {
		if (!insn_open(&skip_cs))
			return false;
		skip_insn = cs_malloc(skip_cs);
		if (!skip_insn) {
			cs_close(&skip_cs);
			return false;
		}
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	skip_log = log;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

void insn_skip_shadow(const void *xo, const void *copy, size_t len)
{
	shadow_xo = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	shadow_copy = copy;
	shadow_len = len;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	shadow_xo = xo;
}

void insn_skip_end(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	skip_log = NULL;
	shadow_xo = NULL;
	if (skip_insn) {
		cs_free(skip_insn, 1);
		skip_insn = NULL;
		cs_close(&skip_cs);
	}
}
