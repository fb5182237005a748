// SPDX-License-Identifier: GPL-2.0
/*
 * reads - on every kind of execute-only mapping (tests/lib/xomap.c), the
 * code runs and no data access reaches it.
 *
 * Proves, per mapping kind:
 *  - execution works: the functions capstone found are called, and
 *    conf_chain is entered at each of its instruction boundaries, with the
 *    right result each time;
 *  - loads fault SEGV_PKUERR with si_pkey = the mapping's key and si_addr =
 *    the first execute-only byte touched: mov of 1, 2, 4 and 8 bytes, rep
 *    movsb, memcpy(), SSE movdqu and AVX vmovdqu (where CPUID has them),
 *    and each of those straddling from the readable page below into the
 *    execute-only one; also a load the execute-only code makes of itself;
 *  - stores fault the same way: mov of 1 and 8 bytes, rep stosb, a
 *    straddling 8-byte store;
 *  - after all those faults the code is intact and still runs.
 * Each faulting instruction is skipped (tests/lib/insn.c) and the program
 * goes on; the faults are counted, so a probe that faulted twice or not
 * at all fails.
 */
#include <cpuid.h>
#include <stdint.h>
#include <string.h>

#include "conf.h"

/* ---- the accesses: one instruction each, so the fault count is exact ---- */

static void ld1(const char *p, size_t n)
{
	uint8_t v = 0;

	(void)n;
	__asm__ volatile("movb (%1), %0" : "+q"(v) : "r"(p) : "memory");
}

static void ld2(const char *p, size_t n)
{
	uint16_t v = 0;

	(void)n;
	__asm__ volatile("movw (%1), %0" : "+r"(v) : "r"(p) : "memory");
}

static void ld4(const char *p, size_t n)
{
	uint32_t v = 0;

	(void)n;
	__asm__ volatile("movl (%1), %0" : "+r"(v) : "r"(p) : "memory");
}

static void ld_movsb(const char *p, size_t n)
{
	char buf[256];
	char *d = buf;

	__asm__ volatile("rep movsb" : "+S"(p), "+D"(d), "+c"(n) : : "memory");
}

/* Through a volatile pointer: glibc's own memcpy (its ifunc choice), not an inlined copy. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

static void ld_memcpy(const char *p, size_t n)
{
	char buf[512];

	memcpy_fn(buf, p, n);
}

static void ld_sse(const char *p, size_t n)
{
	(void)n;
	__asm__ volatile("movdqu (%0), %%xmm0" : : "r"(p) : "xmm0", "memory");
}

static void ld_avx(const char *p, size_t n)
{
	(void)n;
	__asm__ volatile("vmovdqu (%0), %%ymm0\n\tvzeroupper" : : "r"(p) : "xmm0", "memory");
}

static void st1(const char *p, size_t n)
{
	(void)n;
	__asm__ volatile("movb $0x90, (%0)" : : "r"(p) : "memory");
}

static void st_stosb(const char *p, size_t n)
{
	char *d = (char *)p;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0xcc) : "memory");
}

static volatile unsigned int selfread_result;

/* conf_selfread, run from the execute-only copy: its own load faults. */
static void xo_selfread(const char *code, size_t n)
{
	unsigned int (*fn)(void) = (unsigned int (*)(void))(void *)(code + conf_layout.entry[2]);

	(void)n;
	selfread_result = fn();
}

/* ---- CPU features ---------------------------------------------------------- */

static bool have_sse2(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (d & bit_SSE2);
}

/* AVX needs the CPU flag and the OS saving the YMM state (OSXSAVE, XCR0 bits 1-2). */
static bool have_avx(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE))
		return false;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}

/* ---- the checks ---------------------------------------------------------------- */

enum need { ANY, SSE, AVX };

struct probe {
	const char *channel;
	void (*fn)(const char *p, size_t n);
	long off;		/* from the code start; negative: from the page below */
	size_t n;
	enum need need;
	int faults;		/* how many faults it must take; 0: one or more */
	long lo, hi;		/* the first fault's si_addr, from the code start */
};

static const struct probe probes[] = {
	{ "load mov 1 byte", ld1, 0x11, 1, ANY, 1, 0x11, 0x11 },
	{ "load mov 2 bytes", ld2, 0x22, 2, ANY, 1, 0x22, 0x22 },
	{ "load mov 4 bytes", ld4, 0x44, 4, ANY, 1, 0x44, 0x44 },
	{ "load mov 8 bytes", conf_ld8, 0x88, 8, ANY, 1, 0x88, 0x88 },
	{ "load rep movsb 64 bytes", ld_movsb, 0x100, 64, ANY, 1, 0x100, 0x100 },
	/* memcpy's first load need not be at the start: anywhere in the source. */
	{ "load memcpy 256 bytes", ld_memcpy, 0x200, 256, ANY, 0, 0x200, 0x2ff },
	{ "load SSE movdqu 16 bytes", ld_sse, 0x310, 16, SSE, 1, 0x310, 0x310 },
	{ "load AVX vmovdqu 32 bytes", ld_avx, 0x340, 32, AVX, 1, 0x340, 0x340 },
	{ "straddle mov 8 bytes (-4)", conf_ld8, -4, 8, ANY, 1, 0, 0 },
	{ "straddle rep movsb 32 (-16)", ld_movsb, -16, 32, ANY, 1, 0, 0 },
	{ "straddle memcpy 256 (-64)", ld_memcpy, -64, 256, ANY, 0, 0, 191 },
	{ "straddle SSE movdqu (-8)", ld_sse, -8, 16, SSE, 1, 0, 0 },
	{ "straddle AVX vmovdqu (-8)", ld_avx, -8, 32, AVX, 1, 0, 0 },
	{ "store mov 1 byte", st1, 0x11, 1, ANY, 1, 0x11, 0x11 },
	{ "store mov 8 bytes", conf_st8, 0x88, 8, ANY, 1, 0x88, 0x88 },
	{ "store rep stosb 64 bytes", st_stosb, 0x100, 64, ANY, 1, 0x100, 0x100 },
	{ "straddle store 8 bytes (-4)", conf_st8, -4, 8, ANY, 1, 0, 0 },
};

static void check_exec(const struct xomap *m)
{
	char got[64];
	unsigned int r;
	bool ok;

	r = conf_call_chain(m, 0, 5);
	ok = r == 5 + conf_chain_adds[0] && conf_call_mul(m->code, 6, 7) == 43;
	conf_check("call functions", m->kind, ok, "runs", ok ? "runs" : "wrong",
		   "conf_chain(5) = %#x, conf_mul(6, 7) = %ld at the entries capstone found", r,
		   conf_call_mul(m->code, 6, 7));
	ok = conf_exec_at(m->code, got, sizeof(got));
	conf_check("jump to insn boundaries", m->kind, ok, "runs", ok ? "runs" : "wrong",
		   "conf_chain entered at each of its %d instruction boundaries (%s)", CONF_CHAIN_INSNS - 1, got);
}

static void check_probe(const struct xomap *m, const struct probe *p, bool sse, bool avx)
{
	const char *at = m->code + p->off;
	struct insn_skip log;
	char got[32];
	bool ok;

	if ((p->need == SSE && !sse) || (p->need == AVX && !avx)) {
		conf_skip(p->channel, m->kind, p->need == SSE ? "CPUID: no SSE2" : "CPUID/XCR0: no AVX");
		return;
	}
	log = conf_probe(p->fn, at, p->n);
	ok = conf_fault_ok(&log, p->faults, m->pkey, m->code + p->lo, m->code + p->hi, got, sizeof(got));
	conf_check(p->channel, m->kind, ok, "PKUERR", got,
		   "%zu bytes at code%+ld fault SEGV_PKUERR, key %d, si_addr code%+ld..%+ld (%d faults, first %s)",
		   p->n, p->off, m->pkey, p->lo, p->hi, log.n, fault_str(&log.first));
}

static void check_selfread(const struct xomap *m)
{
	struct insn_skip log;
	char got[32];
	bool ok;

	/* The fault is in execute-only code: the skip handler decodes the blob instead. */
	insn_skip_shadow(NULL, NULL, 0);
	if (!insn_skip_begin(&log)) {
		log.n = -1;
	} else {
		insn_skip_shadow(m->code, conf_blob, conf_blob_len());
		xo_selfread(m->code, 0);
		insn_skip_end();
	}
	ok = conf_fault_ok(&log, 1, m->pkey, m->code, m->code, got, sizeof(got));
	conf_check("load by the XO code itself", m->kind, ok, "PKUERR", got,
		   "conf_selfread's rip-relative load of its own first byte faults at code+0 (%s)",
		   fault_str(&log.first));
}

static void check_kind(const struct xomap_kind *k, bool sse, bool avx)
{
	struct xomap m;
	char got[64];
	bool ok;

	if (!conf_map(k, &m))
		return;
	check_exec(&m);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		check_probe(&m, &probes[i], sse, avx);
	check_selfread(&m);
	ok = conf_exec_at(m.code, got, sizeof(got));
	conf_check("runs after the faults", k, ok, "runs", ok ? "runs" : "wrong",
		   "the stores left the code intact: conf_chain and conf_mul still right (%s)", got);
	xomap_unmap(&m);
}

int main(void)
{
	bool sse, avx;

	tap_init("conformance/reads");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present (CPUID.7.0:ECX bits 3 and 4)");
	insn_skip_setup();
	sse = have_sse2();
	avx = have_avx();
	tap_diag("CPU: SSE2 %s, AVX %s", sse ? "yes" : "no", avx ? "yes" : "no");
	for (int i = 0; i < xomap_nkinds; i++)
		check_kind(&xomap_kinds[i], sse, avx);
	conf_table("loads, stores and execution per mapping kind");
	return tap_done();
}
