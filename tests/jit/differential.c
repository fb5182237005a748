// SPDX-License-Identifier: GPL-2.0
/*
 * differential - generated programs give the same value and the same
 * variables JIT-compiled (each code-memory strategy) and interpreted.
 *
 * Proves:
 *  - 1,200 random programs (if/else, bounded while, return, every
 *    operator, division by 0 and -1, INT64 extremes, constants whose bytes
 *    spell WRPKRU, SYSCALL or INT 0x80) compile, pass the verifier inside
 *    the pkey window, and agree with the interpreter; 150 more each with
 *    pkey-syscall, mprotect and dualmap;
 *  - independently of the verifier, no emitted byte is 0xcd and every 0x0f
 *    byte is followed by one of the opcodes the emitter uses it for, so no
 *    byte offset starts WRPKRU/XRSTOR/SYSCALL/SYSENTER/INT n;
 *  - large functions (4-64 KiB) compile and agree: an if and a while with
 *    bodies of N statements, N swept over the sizes where a forward or
 *    backward rel32 has 0x0f or 0xcd in bits 8-15 (0x0fxx, 0xcdxx, 0x10fxx,
 *    -0x3200, -0xf000), an else-if chain of up to 98 branches, and random
 *    programs of 4 KiB and more; some of them need a long pad (a jmp over
 *    int3 bytes), which proves the sweep reaches the distances it is for.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "stock.h"
#include "tap.h"

#define CODE_SIZE	(1u << 20)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

struct gen {
	char *s;
	size_t len, cap;
};

static void out(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->s + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < g->cap - g->len)
			break;
		g->cap = g->cap * 2 + (size_t)n + 64;
		g->s = realloc(g->s, g->cap);
		if (!g->s)
			tap_bail("out of memory");
	}
	g->len += (size_t)n;
}

static const char *const consts[] = {
	"0", "1", "2", "7", "-1", "100", "255", "15663375" /* 0xef010f */, "0xef010f00", "1295" /* 0x050f */,
	"0x340f", "0xcd80", "0xcdcdcdcd", "0x0f01ef0f01ef", "9223372036854775807", "(-9223372036854775807 - 1)",
	"0x7fcdcdcdcdcdcd0f", "2147483647", "2147483648", "-2147483648", "4096", "205", "-205",
};

static void gen_expr(struct gen *g, int depth, int nloops)
{
	static const char *const ops[] = { "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||" };
	unsigned int k = depth <= 0 ? pick(2) : pick(6);

	switch (k) {
	case 0:
		if (pick(3))
			out(g, "%d", (int)pick(21) - 10);
		else
			out(g, "%s", consts[pick(sizeof(consts) / sizeof(consts[0]))]);
		break;
	case 1:
		if (nloops && !pick(4))
			out(g, "c%u", pick((unsigned int)nloops));
		else
			out(g, "%c", 'a' + pick(6));
		break;
	case 2:
		out(g, pick(2) ? "-(" : "!(");
		gen_expr(g, depth - 1, nloops);
		out(g, ")");
		break;
	default:
		out(g, "(");
		gen_expr(g, depth - 1, nloops);
		out(g, " %s ", ops[pick(sizeof(ops) / sizeof(ops[0]))]);
		gen_expr(g, depth - 1, nloops);
		out(g, ")");
		break;
	}
}

/* Loops count c<level> down from at most 4: every program terminates. */
static void gen_stmts(struct gen *g, int n, int level)
{
	for (int i = 0; i < n; i++) {
		unsigned int k = pick(level < 3 ? 10 : 7);

		if (k < 5) {
			out(g, "%c = ", 'a' + pick(6));
			gen_expr(g, 3, level);
			out(g, "; ");
		} else if (k == 5) {
			gen_expr(g, 3, level);
			out(g, "; ");
		} else if (k == 6) {
			if (!pick(8)) {
				out(g, "return ");
				gen_expr(g, 2, level);
				out(g, "; ");
			}
		} else if (k < 9) {
			out(g, "if (");
			gen_expr(g, 2, level);
			out(g, ") { ");
			gen_stmts(g, 1 + (int)pick(3), level + 1);
			out(g, "} ");
			if (pick(2)) {
				out(g, "else { ");
				gen_stmts(g, 1 + (int)pick(2), level + 1);
				out(g, "} ");
			}
		} else {
			out(g, "c%d = %u; while (c%d > 0) { ", level, pick(5), level);
			gen_stmts(g, 1 + (int)pick(3), level + 1);
			out(g, "c%d = c%d - 1; } ", level, level);
		}
	}
}

/* The emitter's claim about its bytes, checked without the verifier. */
static const char *bad_bytes(const uint8_t *c, size_t n)
{
	static const uint8_t after0f[] = { 0x84, 0x94, 0x95, 0x9c, 0x9d, 0x9e, 0x9f, 0xaf, 0xb6 };

	for (size_t i = 0; i < n; i++) {
		if (c[i] == 0xcd)
			return "a 0xcd byte";
		if (c[i] == 0x0f && (i + 1 == n || !memchr(after0f, c[i + 1], sizeof(after0f))))
			return "a 0x0f byte not followed by an emitted opcode";
	}
	return NULL;
}

struct tally {
	int run, compile_fail, mismatch, badbytes;
	int big, longpad;	/* code of 4 KiB or more; with a jmp over int3 */
	char first[1024];
};

/* A long branch pad: jmp rel32 straight over int3 bytes. */
static bool has_long_pad(const uint8_t *c, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++)
		if (c[i] == 0xe9 && c[i + 5] == 0xcc && c[i + 4] == 0 && c[i + 3] == 0)
			return true;
	return false;
}

static void run_one(struct codemem *cm, const char *src, struct tally *t, int scan)
{
	int64_t jv[LANG_MAX_VARS] = { 0 }, iv[LANG_MAX_VARS] = { 0 }, jr, ir;
	struct program p;
	struct jit_code jc;
	char err[256];
	uint8_t *copy;
	const char *why;

	t->run++;
	if (lang_parse(src, &p, err, sizeof(err))) {
		t->compile_fail++;
		if (!t->first[0])
			snprintf(t->first, sizeof(t->first), "parse: %s: %.300s", err, src);
		return;
	}
	if (cm_avail(cm) < 256 * 1024)
		cm_reset(cm, 0);
	if (jit_compile(cm, &p, &jc, err, sizeof(err))) {
		t->compile_fail++;
		if (!t->first[0])
			snprintf(t->first, sizeof(t->first), "compile: %s: %.300s", err, src);
		lang_free(&p);
		return;
	}
	jr = jc.fn(jv);
	ir = interp_run(&p, iv);
	if (jr != ir || memcmp(jv, iv, sizeof(jv))) {
		t->mismatch++;
		if (!t->first[0])
			snprintf(t->first, sizeof(t->first), "JIT %" PRId64 " vs interpreter %" PRId64 ": %.300s", jr, ir, src);
	}
	t->big += jc.size >= 4096;
	if (scan && (copy = malloc(jc.size))) {
		if (cm_read(cm, jc.code, jc.size, copy) == 0) {
			why = bad_bytes(copy, jc.size);
			if (why) {
				t->badbytes++;
				if (!t->first[0])
					snprintf(t->first, sizeof(t->first), "emitted %s: %.300s", why, src);
			}
			t->longpad += has_long_pad(copy, jc.size);
		}
		free(copy);
	}
	lang_free(&p);
}

static void run_strategy(enum cm_strategy s, int n)
{
	struct tally t = { 0 };
	struct gen g = { 0 };
	char err[256];
	struct codemem *cm;

	if (s == CM_PKEY_SYSCALL && stock_kernel()) {
		tap_skip(STOCK_SKIP, "%s: %d generated programs", cm_strategy_name(s), n);
		return;
	}
	cm = cm_create(s, CODE_SIZE, err, sizeof(err));
	if (!cm) {
		tap_ok(false, "%s: code memory: %s", cm_strategy_name(s), err);
		return;
	}
	for (int i = 0; i < n; i++) {
		g.len = 0;
		out(&g, "%s", "");
		gen_stmts(&g, 2 + (int)pick(8), 0);
		gen_expr(&g, 3, 0);
		run_one(cm, g.s, &t, s == CM_PKEY);
	}
	tap_ok(t.run == n && t.compile_fail == 0 && t.mismatch == 0,
	       "%s: %d generated programs compile, verify and give the interpreter's value and variables (%d failed to compile, %d differ)",
	       cm_strategy_name(s), t.run, t.compile_fail, t.mismatch);
	if (s == CM_PKEY)
		tap_ok(t.badbytes == 0 && t.run == n,
		       "pkey: no emitted byte is 0xcd, every 0x0f starts an emitted opcode (%d programs, %d bad)",
		       t.run, t.badbytes);
	if (t.first[0])
		tap_diag("first failure: %s", t.first);
	free(g.s);
	cm_destroy(cm);
}

/* A program of family @kind with @n statements or branches. */
static void gen_large(struct gen *g, int kind, int n)
{
	g->len = 0;
	out(g, "%s", "");
	switch (kind) {
	case 0:		/* one forward branch over n statements */
		out(g, "x = 1; if (x) { ");
		for (int i = 0; i < n; i++)
			out(g, "x = x + 1; ");
		out(g, "} x");
		break;
	case 1:		/* a loop: forward exit, backward jump over n statements */
		out(g, "x = 1; c = 3; while (c) { c = c - 1; ");
		for (int i = 0; i < n; i++)
			out(g, "x = x + %d; ", i % 7);
		out(g, "} x");
		break;
	default:	/* else-if chain: n forward branches to the end */
		out(g, "x = %d; y = 0; ", n / 2);
		for (int i = 0; i < n; i++)
			out(g, "%sif (x == %d) { y = %d; } ", i ? "else " : "", i, 3 * i);
		out(g, "y");
		break;
	}
}

static void run_large(void)
{
	/*
	 * The statement counts where the emitter before the computed pads
	 * failed (it padded one NOP per pass, at most 32), with a margin.
	 */
	static const struct { int kind, lo, hi; } sweeps[] = {
		{ 0, 131, 142 }, { 0, 1808, 1819 }, { 0, 2391, 2401 },
		{ 1, 130, 140 }, { 1, 438, 449 }, { 1, 1807, 1818 }, { 1, 2115, 2126 },
		{ 2, 60, 98 },
	};
	struct tally t = { 0 }, r = { 0 };
	struct gen g = { 0 };
	char err[256];
	struct codemem *cm = cm_create(CM_PKEY, 4 * CODE_SIZE, err, sizeof(err));
	int n = 0;

	if (!cm) {
		tap_ok(false, "pkey: large code memory: %s", err);
		return;
	}
	for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++)
		for (int k = sweeps[i].lo; k <= sweeps[i].hi; k++, n++) {
			gen_large(&g, sweeps[i].kind, k);
			run_one(cm, g.s, &t, 1);
		}
	tap_ok(t.run == n && !t.compile_fail && !t.mismatch && !t.badbytes,
	       "pkey: %d large programs (if, while, else-if chain; %d of 4 KiB or more) compile, verify and agree (%d failed to compile, %d differ, %d bad bytes)",
	       t.run, t.big, t.compile_fail, t.mismatch, t.badbytes);
	tap_ok(t.longpad >= 10 && t.big >= 60,
	       "pkey: the sweep reaches branch distances with 0x0f/0xcd in bits 8-15: %d programs needed a long pad (want >= 10), %d are >= 4 KiB",
	       t.longpad, t.big);
	if (t.first[0])
		tap_diag("first failure: %s", t.first);

	for (int i = 0; i < 100; i++) {
		g.len = 0;
		out(&g, "%s", "");
		gen_stmts(&g, 40 + (int)pick(40), 0);
		gen_expr(&g, 3, 0);
		run_one(cm, g.s, &r, 1);
	}
	tap_ok(r.run == 100 && !r.compile_fail && !r.mismatch && !r.badbytes && r.big >= 50,
	       "pkey: 100 random mid-size programs (%d of 4 KiB or more, want >= 50) compile, verify and agree (%d failed to compile, %d differ)",
	       r.big, r.compile_fail, r.mismatch);
	if (r.first[0])
		tap_diag("first failure: %s", r.first);
	free(g.s);
	cm_destroy(cm);
}

int main(void)
{
	static const char *const fixed[] = {
		"x = -9223372036854775807 - 1; x / -1",
		"x = -9223372036854775807 - 1; x % -1",
		"7 / 0 + 7 % 0",
		"x = 15663375; y = 0x0f01ef0f01ef; z = 0xcd80cd80; x + y + z",
		"n = 20; s = 0; while (n > 0) { s = s + n * n; n = n - 1; if (s > 1000) { return s; } } s",
		"i = 0; while (i < 300) { i = i + 1; } i",
		"",
	};
	struct tally t = { 0 };
	char err[256];
	struct codemem *cm;

	tap_init("jit differential");
	cm = cm_create(CM_PKEY, CODE_SIZE, err, sizeof(err));
	if (!cm)
		tap_bail("pkey code memory: %s", err);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		run_one(cm, fixed[i], &t, 1);
	tap_ok(t.run == 7 && !t.compile_fail && !t.mismatch && !t.badbytes,
	       "pkey: 7 edge-case programs (INT64_MIN / -1, x / 0, WRPKRU/INT 0x80 constants, return in a loop, a 300-iteration loop, empty) agree (%s)",
	       t.first[0] ? t.first : "all agree");
	cm_destroy(cm);

	run_large();
	run_strategy(CM_PKEY, 1200);
	run_strategy(CM_PKEY_SYSCALL, 150);
	run_strategy(CM_MPROTECT, 150);
	run_strategy(CM_DUALMAP, 150);
	return tap_done();
}
