/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - what the conformance programs share: the code they make
 * execute-only, mapping it (tests/lib/xomap.h) with its layout checked by
 * capstone first, calling into it, probing faults, and the results table
 * (channel x mapping kind -> expected / actual) each program prints at
 * the end.  Header-only: every tests/conformance/NAME.c is one program.
 */
#ifndef XONLY_CONF_H
#define XONLY_CONF_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "insn.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xomap.h"

/*
 * The code under test: position-independent, copied into each mapping.
 * conf_chain(x) adds its constants to x; entered at instruction i it adds
 * only those from i on, so each instruction boundary capstone finds has a
 * result of its own.  The instructions have different lengths (3, 6, 6,
 * 6, 6, 2, 1 bytes) so that a wrong boundary shows.  conf_selfread loads
 * the first byte of the code, from inside it.
 */
__asm__(".pushsection .rodata.conf_blob, \"a\"\n"
	".balign 64\n"
	"conf_blob:\n"
	"conf_chain:\n"
	"	addl $1, %edi\n"
	"	addl $0x100, %edi\n"
	"	nopw 0(%rax, %rax, 1)\n"
	"	leal 0x10000(%rdi), %edi\n"
	"	addl $0x1000000, %edi\n"
	"	movl %edi, %eax\n"
	"	ret\n"
	"	.fill 2, 1, 0xcc\n"
	"conf_mul:\n"
	"	movq %rdi, %rax\n"
	"	imulq %rsi, %rax\n"
	"	incq %rax\n"
	"	ret\n"
	"	.fill 6, 1, 0xcc\n"
	"conf_selfread:\n"
	"	movzbl conf_blob(%rip), %eax\n"
	"	ret\n"
	"conf_blob_end:\n"
	".popsection\n");
extern const unsigned char conf_blob[], conf_blob_end[], conf_chain[], conf_mul[], conf_selfread[];

#define CONF_CHAIN_INSNS 7	/* conf_chain's instructions, ret included */
/* conf_chain(x) - x entered at instruction i (the ret is never entered). */
static const unsigned int conf_chain_adds[CONF_CHAIN_INSNS - 1] = {
	0x1010101, 0x1010100, 0x1010000, 0x1010000, 0x1000000, 0
};

static inline size_t conf_blob_len(void)
{
	return (size_t)(conf_blob_end - conf_blob);
}

/* What capstone found in the copy before it was protected. */
static struct {
	size_t entry[8];
	int nentry;
	size_t chain[16];	/* conf_chain's instruction offsets */
	int nchain;
} conf_layout;

/* Decode @code (the readable copy); false, with a reason, if it is not the layout. */
static inline bool conf_decode(const char *code, char *why, size_t whylen)
{
	size_t want[3] = { 0, (size_t)(conf_mul - conf_blob), (size_t)(conf_selfread - conf_blob) };

	conf_layout.nentry = insn_entries(code, conf_blob_len(), conf_layout.entry, 8);
	conf_layout.nchain = insn_boundaries(code, want[1], conf_layout.chain, 16);
	/* Every chain offset is also checked by calling it: here just the shape. */
	if (conf_layout.nentry != 3 || memcmp(conf_layout.entry, want, sizeof(want))) {
		snprintf(why, whylen, "capstone found %d function entries, want 3 at 0, %zu, %zu",
			 conf_layout.nentry, want[1], want[2]);
		return false;
	}
	/* The chain, then the int3 padding: boundaries past the ret are padding. */
	if (conf_layout.nchain < CONF_CHAIN_INSNS) {
		snprintf(why, whylen, "capstone found %d instructions in conf_chain, want %d",
			 conf_layout.nchain, CONF_CHAIN_INSNS);
		return false;
	}
	conf_layout.nchain = CONF_CHAIN_INSNS;
	return true;
}

/*
 * Map kind @k with the code, decode it, make it execute-only.  Reports a
 * skip or a failure as a TAP line and returns false; on success one line
 * says which key the mapping got.
 */
static inline bool conf_map_quiet(const struct xomap_kind *k, struct xomap *m, int *ret)
{
	int r = xomap_map(k, m);

	if (r == 0) {
		memcpy(m->code, conf_blob, conf_blob_len());
		if (!conf_decode(m->code, m->why, sizeof(m->why)))
			r = -1;
	}
	if (r == 0)
		r = xomap_protect(m);
	if (r)
		xomap_unmap(m);
	*ret = r;
	return r == 0;
}

static inline bool conf_map(const struct xomap_kind *k, struct xomap *m)
{
	int r;

	if (conf_map_quiet(k, m, &r))
		return tap_ok(true, "%s: %s: execute-only with key %d (smaps), %d functions and %d boundaries found by capstone",
			      k->name, k->what, m->pkey, conf_layout.nentry, conf_layout.nchain);
	if (r > 0)
		tap_skip(m->why, "%s: %s", k->name, k->what);
	else
		tap_ok(false, "%s: %s: setup (%s)", k->name, k->what, m->why);
	return false;
}

/* Call conf_chain(x) entered at its instruction @i. */
static inline unsigned int conf_call_chain(const struct xomap *m, int i, unsigned int x)
{
	unsigned int (*fn)(unsigned int) = (unsigned int (*)(unsigned int))(void *)(m->code + conf_layout.chain[i]);

	return fn(x);
}

static inline long conf_call_mul(const char *code, long a, long b)
{
	long (*fn)(long, long) = (long (*)(long, long))(void *)(code + conf_layout.entry[1]);

	return fn(a, b);
}

/* Run all of it at @code (a mapping, or where one moved to): true if every result is right. */
static inline bool conf_exec_at(const char *code, char *got, size_t gotlen)
{
	struct xomap tmp = { .code = (char *)code };

	for (int i = 0; i < CONF_CHAIN_INSNS - 1; i++) {
		unsigned int r = conf_call_chain(&tmp, i, 5);

		if (r != 5 + conf_chain_adds[i]) {
			snprintf(got, gotlen, "insn %d: %#x", i, r);
			return false;
		}
	}
	if (conf_call_mul(code, 6, 7) != 43) {
		snprintf(got, gotlen, "mul %ld", conf_call_mul(code, 6, 7));
		return false;
	}
	snprintf(got, gotlen, "runs");
	return true;
}

/* ---- fault probes ---------------------------------------------------------- */

/* An 8-byte load and an 8-byte store, one instruction each: a fault count of 1 is exact. */
static inline void conf_ld8(const char *p, size_t n)
{
	uint64_t v = 0;

	(void)n;
	__asm__ volatile("movq (%1), %0" : "+r"(v) : "r"(p) : "memory");
}

static inline void conf_st8(const char *p, size_t n)
{
	(void)n;
	__asm__ volatile("movq $-1, (%0)" : : "r"(p) : "memory");
}

/* Run @fn(@p, @n) with faults skipped; the log says what it took. */
static inline struct insn_skip conf_probe(void (*fn)(const char *p, size_t n), const char *p, size_t n)
{
	struct insn_skip log;

	if (!insn_skip_begin(&log)) {
		log.n = -1;
		return log;
	}
	fn(p, n);
	insn_skip_end();
	return log;
}

/*
 * @log is exactly @nwant faults (0: any number) whose first is SEGV_PKUERR
 * with key @key at an address in [@lo, @hi]; @got describes what it was.
 */
static inline bool conf_fault_ok(const struct insn_skip *log, int nwant, int key, const char *lo, const char *hi,
				 char *got, size_t gotlen)
{
	const struct fault *f = &log->first;
	const char *a = f->addr;

	if (log->n < 0) {
		snprintf(got, gotlen, "no capstone");
		return false;
	}
	if (log->n == 0) {
		snprintf(got, gotlen, "no fault");
		return false;
	}
	if (f->signo != SIGSEGV || f->code != SEGV_PKUERR) {
		snprintf(got, gotlen, "sig %d code %d", f->signo, f->code);
		return false;
	}
	if (f->pkey != key) {
		snprintf(got, gotlen, "PKUERR key %d", f->pkey);
		return false;
	}
	if (a < lo || a > hi) {
		snprintf(got, gotlen, "PKUERR at %+td", a - lo);
		return false;
	}
	if (nwant && log->n != nwant) {
		snprintf(got, gotlen, "%d faults", log->n);
		return false;
	}
	snprintf(got, gotlen, "PKUERR");
	return true;
}

/* ---- results table --------------------------------------------------------- */

#define CONF_ROWS	48
#define CONF_KINDS	8
#define CONF_CELL	24	/* printed 13 wide: "bytes/EACCES!" keeps its column */

static struct conf_row {
	char channel[40];
	char want[CONF_CELL];
	char cell[CONF_KINDS][CONF_CELL];
} conf_rows[CONF_ROWS];
static int conf_nrows;

static inline int conf_kind_index(const struct xomap_kind *k)
{
	return (int)(k - xomap_kinds);
}

static inline struct conf_row *conf_row(const char *channel)
{
	for (int i = 0; i < conf_nrows; i++)
		if (!strcmp(conf_rows[i].channel, channel))
			return &conf_rows[i];
	if (conf_nrows == CONF_ROWS)
		tap_bail("conf.h: more than %d channels", CONF_ROWS);
	snprintf(conf_rows[conf_nrows].channel, sizeof(conf_rows[0].channel), "%s", channel);
	return &conf_rows[conf_nrows++];
}

/* Record one cell; the column shows @got, and "(want W)" where it differs. */
static inline void conf_cell(const char *channel, const struct xomap_kind *k, bool pass, const char *want,
			     const char *got)
{
	struct conf_row *r = conf_row(channel);
	char *c = r->cell[conf_kind_index(k)];

	if (!r->want[0])
		snprintf(r->want, CONF_CELL, "%s", want);
	if (!pass)
		snprintf(c, CONF_CELL, "%s/%s!", got, want);
	else if (strcmp(r->want, want))
		snprintf(c, CONF_CELL, "%s*", got);
	else
		snprintf(c, CONF_CELL, "%s", got);
}

/* One check: a TAP line and a table cell.  @fmt says what it proves. */
static inline bool conf_check(const char *channel, const struct xomap_kind *k, bool pass, const char *want,
			      const char *got, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static inline bool conf_check(const char *channel, const struct xomap_kind *k, bool pass, const char *want,
			      const char *got, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	conf_cell(channel, k, pass, want, got);
	return tap_ok(pass, "%s: %s: %s -> want %s, got %s", k->name, channel, what, want, got);
}

static inline void conf_skip(const char *channel, const struct xomap_kind *k, const char *reason)
{
	struct conf_row *r = conf_row(channel);

	snprintf(r->cell[conf_kind_index(k)], CONF_CELL, "skip");
	tap_skip(reason, "%s: %s", k->name, channel);
}

/* The table, as TAP comments: cells are actual results, "!" marks a failure. */
static inline void conf_table(const char *title)
{
	tap_diag("results: %s (cell: the actual result; 'GOT/WANT!' = failed; '*' = passed, with this kind's "
		 "own expected result; '-' = not run)", title);
	printf("# %-36s %-10s", "channel", "expected");
	for (int k = 0; k < xomap_nkinds && k < CONF_KINDS; k++)
		printf(" %-13s", xomap_kinds[k].name);
	putchar('\n');
	for (int i = 0; i < conf_nrows; i++) {
		printf("# %-36s %-10s", conf_rows[i].channel, conf_rows[i].want);
		for (int k = 0; k < xomap_nkinds && k < CONF_KINDS; k++)
			printf(" %-13s", conf_rows[i].cell[k][0] ? conf_rows[i].cell[k] : "-");
		putchar('\n');
	}
}

#endif
