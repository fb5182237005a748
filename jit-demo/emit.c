// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - x86-64 code generator of the toy language.
 *
 * A plain tree-walking generator: an expression leaves its value in rax,
 * binary operators save the left value on the stack; rbx points at the
 * variables, r12 holds the program's value.
 *
 * Every byte the emitter writes that is not an opcode, ModRM or prefix
 * byte (immediates, displacements, branch offsets) avoids 0x0f and 0xcd.
 * All of WRPKRU, XRSTOR*, SYSCALL and SYSENTER start with 0x0f and INT n
 * with 0xcd, and the only 0x0f opcode bytes emitted are followed by 0x84,
 * 0x9c-0x9f, 0x94, 0x95, 0xaf or 0xb6: so no byte offset of the output,
 * aligned or not, starts one of them (the verifier checks it anyway).  A
 * user constant with such a byte is loaded blinded, as two XORed halves.
 *
 * A branch whose rel32 has such a byte is lengthened: padding goes between
 * a forward branch and its target (right after the branch) or between a
 * backward branch and its target (right in front of the branch), and its
 * size is computed, not searched: the smallest that moves the rel32 past
 * the bad byte (next_clean/prev_clean).  A bad byte in bits 8-31 needs up
 * to 2^8, 2^16 or 2^24 bytes, about 1/15 of the branch distance at most,
 * so long pads are not a run of NOPs the branch's fall-through path would
 * execute but a jmp over int3 bytes.  Padding moves the code behind it,
 * which can spoil other branches: the function is laid out again until no
 * branch needs more (pads only grow, each pass fixes every branch it finds
 * bad, so this settles in a few passes).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

#define MAX_NOPS	16	/* longer pads are a jmp over int3 bytes */
#define MAX_LAYOUTS	200

struct fix {
	size_t at;	/* offset of the rel32 */
};

struct ret {
	struct fix f;	/* a return statement's jump to the epilogue */
	size_t site;
};

struct as {
	uint8_t *b;
	size_t len, cap;
	bool overflow;
	uint32_t *pads;		/* bytes of padding of branch number i */
	size_t npads, site;
	bool relayout;		/* a branch offset had a bad byte: lay out again */
	bool stuck;
	struct ret *rets;
	size_t nrets, caprets;
};

static bool bad_byte(uint8_t c)
{
	return c == 0x0f || c == 0xcd;
}

static bool bad_imm(uint64_t v, int nbytes)
{
	for (int i = 0; i < nbytes; i++)
		if (bad_byte((uint8_t)(v >> 8 * i)))
			return true;
	return false;
}

static void put(struct as *a, const void *p, size_t n)
{
	if (n > a->cap - a->len) {
		a->overflow = true;
		return;
	}
	memcpy(a->b + a->len, p, n);
	a->len += n;
}

#define EMIT(a, ...) do { \
	static const uint8_t bytes_[] = { __VA_ARGS__ }; \
	put(a, bytes_, sizeof(bytes_)); \
} while (0)

static void imm(struct as *a, uint64_t v, int nbytes)
{
	uint8_t b[8];

	for (int i = 0; i < nbytes; i++)
		b[i] = (uint8_t)(v >> 8 * i);
	put(a, b, (size_t)nbytes);
}

/* Room in the padding table for the next branch; false if out of memory. */
static bool grow_pads(struct as *a)
{
	if (a->site == a->npads) {
		uint32_t *p = realloc(a->pads, (a->npads * 2 + 16) * sizeof(*p));

		if (!p) {
			a->stuck = true;
			return false;
		}
		memset(p + a->npads, 0, (a->npads + 16) * sizeof(*p));
		a->pads = p;
		a->npads = a->npads * 2 + 16;
	}
	return true;
}

/*
 * The smallest value >= @v (largest <= @v) whose four bytes are all clean.
 * Round past the highest bad byte: that byte becomes 0x10 or 0xce (0x0e or
 * 0xcc) and the ones below it 0x00 (0xff), all clean, and no carry reaches
 * the bytes above, since a bad byte is never 0xff (0x00).
 */
static uint32_t next_clean(uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		if (bad_byte((uint8_t)(v >> 8 * i)))
			return (v | ((1u << 8 * i) - 1)) + 1;
	return v;
}

static uint32_t prev_clean(uint32_t v)
{
	for (int i = 3; i >= 0; i--)
		if (bad_byte((uint8_t)(v >> 8 * i)))
			return (v & ~((1u << 8 * i) - 1)) - 1;
	return v;
}

/*
 * A pad of @k bytes: NOPs if short; else jmp rel32 over k - 5 int3 bytes,
 * whose own rel32 must be clean.  So not every k can be a pad.
 */
static bool pad_ok(uint32_t k)
{
	return k <= MAX_NOPS || !bad_imm(k - 5, 4);
}

static void pad(struct as *a, uint32_t k)
{
	static const uint8_t nops[MAX_NOPS] = { [0 ... MAX_NOPS - 1] = 0x90 };

	if (k <= MAX_NOPS) {
		put(a, nops, k);
		return;
	}
	if (k > a->cap - a->len) {
		a->overflow = true;
		return;
	}
	EMIT(a, 0xe9);				/* jmp over the int3 bytes */
	imm(a, k - 5, 4);
	memset(a->b + a->len, 0xcc, k - 5);
	a->len += k - 5;
}

/*
 * The rel32 at @at is final: store it, or grow the branch's pad to the
 * smallest size that makes it clean (for this layout) and ask for another.
 * A forward branch's pad adds to rel, a backward one's subtracts.
 */
static void set_rel(struct as *a, size_t at, size_t site, size_t target)
{
	int64_t rel = (int64_t)target - (int64_t)(at + 4);
	uint32_t r = (uint32_t)rel, k = 0, c;

	if (a->overflow || a->stuck)
		return;
	if (rel > INT32_MAX || rel < INT32_MIN) {
		a->stuck = true;
		return;
	}
	if (bad_imm(r, 4)) {
		/* Alternate: the rel32 clean, then the pad's own rel32 clean. */
		for (;;) {
			c = rel >= 0 ? next_clean(r + k) : prev_clean(r - k);
			k = rel >= 0 ? c - r : r - c;
			if (pad_ok(a->pads[site] + k))
				break;
			k = next_clean(a->pads[site] + k - 5) + 5 - a->pads[site];
		}
		if (a->pads[site] + (uint64_t)k > INT32_MAX) {
			a->stuck = true;
			return;
		}
		a->pads[site] += k;
		a->relayout = true;
	}
	for (int i = 0; i < 4; i++)
		a->b[at + i] = (uint8_t)(r >> 8 * i);
}

enum jcc { JMP, JZ };

static void opcode(struct as *a, enum jcc cc)
{
	if (cc == JMP)
		EMIT(a, 0xe9);
	else
		EMIT(a, 0x0f, 0x84);
}

/* A forward branch, landed later; *site is its number for the padding. */
static struct fix jump_fwd(struct as *a, enum jcc cc, size_t *site)
{
	struct fix f;

	if (!grow_pads(a))
		return (struct fix){ 0 };
	*site = a->site++;
	opcode(a, cc);
	f.at = a->len;
	imm(a, 0, 4);
	/* Padding between a forward branch and its target lengthens it. */
	pad(a, a->pads[*site]);
	return f;
}

static void land(struct as *a, struct fix f, size_t site)
{
	if (!a->overflow)
		set_rel(a, f.at, site, a->len);
}

static void jump_back(struct as *a, enum jcc cc, size_t target)
{
	size_t site;

	if (!grow_pads(a))
		return;
	/* Padding in front of a backward branch lengthens it. */
	pad(a, a->pads[a->site]);
	site = a->site++;
	opcode(a, cc);
	imm(a, 0, 4);
	if (!a->overflow)
		set_rel(a, a->len - 4, site, target);
}

/* mov rax, v */
static void load_const(struct as *a, int64_t v)
{
	uint64_t u = (uint64_t)v, k = 0;

	if (v == 0) {
		EMIT(a, 0x31, 0xc0);			/* xor eax, eax */
	} else if (v == (int32_t)v && !bad_imm(u, 4)) {
		EMIT(a, 0x48, 0xc7, 0xc0);		/* mov rax, simm32 */
		imm(a, u, 4);
	} else if (!bad_imm(u, 8)) {
		EMIT(a, 0x48, 0xb8);			/* movabs rax, imm64 */
		imm(a, u, 8);
	} else {
		/* Blinded: per byte, a key that leaves both halves clean. */
		for (int i = 0; i < 8; i++) {
			uint8_t c = (uint8_t)(u >> 8 * i), kb = 0x55;

			if (bad_byte(c ^ kb))
				kb = 0xaa;
			k |= (uint64_t)kb << 8 * i;
		}
		EMIT(a, 0x48, 0xb8);			/* movabs rax, v ^ k */
		imm(a, u ^ k, 8);
		EMIT(a, 0x48, 0xb9);			/* movabs rcx, k */
		imm(a, k, 8);
		EMIT(a, 0x48, 0x31, 0xc8);		/* xor rax, rcx */
	}
}

/* Variable @v is at [rbx + 8v]: disp32 bytes 8v & 0xff and 0 or 1, never bad. */
static void disp(struct as *a, int v)
{
	imm(a, (uint64_t)v * 8, 4);
}

static void set_flag(struct as *a, uint8_t setcc)
{
	uint8_t b[3] = { 0x0f, setcc, 0xc0 };

	put(a, b, 3);				/* setcc al */
	EMIT(a, 0x0f, 0xb6, 0xc0);		/* movzx eax, al */
}

static void expr(struct as *a, const struct node *n);

static void divide(struct as *a, enum binop op)
{
	struct fix zero, m1, done1, done2;
	size_t s_zero, s_m1, s_d1, s_d2;

	EMIT(a, 0x48, 0x85, 0xc9);		/* test rcx, rcx */
	zero = jump_fwd(a, JZ, &s_zero);
	EMIT(a, 0x48, 0x83, 0xf9, 0xff);	/* cmp rcx, -1 */
	m1 = jump_fwd(a, JZ, &s_m1);
	EMIT(a, 0x48, 0x99);			/* cqo */
	EMIT(a, 0x48, 0xf7, 0xf9);		/* idiv rcx */
	if (op == OP_MOD)
		EMIT(a, 0x48, 0x89, 0xd0);	/* mov rax, rdx */
	done1 = jump_fwd(a, JMP, &s_d1);
	land(a, m1, s_m1);
	if (op == OP_DIV)
		EMIT(a, 0x48, 0xf7, 0xd8);	/* neg rax: x / -1 without the #DE of INT64_MIN */
	else
		EMIT(a, 0x31, 0xc0);		/* xor eax, eax */
	done2 = jump_fwd(a, JMP, &s_d2);
	land(a, zero, s_zero);
	EMIT(a, 0x31, 0xc0);			/* x / 0 = x % 0 = 0 */
	land(a, done1, s_d1);
	land(a, done2, s_d2);
}

static void binary(struct as *a, const struct node *n)
{
	static const uint8_t setcc[] = {
		[OP_LT] = 0x9c, [OP_LE] = 0x9e, [OP_GT] = 0x9f, [OP_GE] = 0x9d, [OP_EQ] = 0x94, [OP_NE] = 0x95,
	};

	expr(a, n->a);
	if (n->b->kind == N_VAR) {
		EMIT(a, 0x48, 0x8b, 0x8b);	/* mov rcx, [rbx + disp32] */
		disp(a, n->b->var);
	} else {
		EMIT(a, 0x50);			/* push rax */
		expr(a, n->b);
		EMIT(a, 0x48, 0x89, 0xc1);	/* mov rcx, rax */
		EMIT(a, 0x58);			/* pop rax */
	}
	switch (n->op) {
	case OP_ADD: EMIT(a, 0x48, 0x01, 0xc8); break;		/* add rax, rcx */
	case OP_SUB: EMIT(a, 0x48, 0x29, 0xc8); break;		/* sub rax, rcx */
	case OP_MUL: EMIT(a, 0x48, 0x0f, 0xaf, 0xc1); break;	/* imul rax, rcx */
	case OP_DIV:
	case OP_MOD: divide(a, n->op); break;
	case OP_AND:
	case OP_OR:
		EMIT(a, 0x48, 0x85, 0xc0);		/* test rax, rax */
		EMIT(a, 0x0f, 0x95, 0xc0);		/* setne al */
		EMIT(a, 0x48, 0x85, 0xc9);		/* test rcx, rcx */
		EMIT(a, 0x0f, 0x95, 0xc1);		/* setne cl */
		if (n->op == OP_AND)
			EMIT(a, 0x20, 0xc8);		/* and al, cl */
		else
			EMIT(a, 0x08, 0xc8);		/* or al, cl */
		EMIT(a, 0x0f, 0xb6, 0xc0);		/* movzx eax, al */
		break;
	default:
		EMIT(a, 0x48, 0x39, 0xc8);		/* cmp rax, rcx */
		set_flag(a, setcc[n->op]);
		break;
	}
}

static void expr(struct as *a, const struct node *n)
{
	switch (n->kind) {
	case N_NUM:
		load_const(a, n->num);
		break;
	case N_VAR:
		EMIT(a, 0x48, 0x8b, 0x83);		/* mov rax, [rbx + disp32] */
		disp(a, n->var);
		break;
	case N_NEG:
		expr(a, n->a);
		EMIT(a, 0x48, 0xf7, 0xd8);		/* neg rax */
		break;
	case N_NOT:
		expr(a, n->a);
		EMIT(a, 0x48, 0x85, 0xc0);		/* test rax, rax */
		set_flag(a, 0x94);			/* sete */
		break;
	case N_BIN:
		binary(a, n);
		break;
	default:
		break;
	}
}

static void stmts(struct as *a, const struct node *s)
{
	struct fix f1, f2;
	size_t s1, s2, top;

	for (; s && !a->overflow && !a->stuck; s = s->next) {
		switch (s->kind) {
		case N_ASSIGN:
			expr(a, s->a);
			EMIT(a, 0x48, 0x89, 0x83);		/* mov [rbx + disp32], rax */
			disp(a, s->var);
			break;
		case N_EXPR:
		case N_RETURN:
			expr(a, s->a);
			EMIT(a, 0x49, 0x89, 0xc4);		/* mov r12, rax */
			if (s->kind == N_EXPR)
				break;
			if (a->nrets == a->caprets) {
				struct ret *r = realloc(a->rets, (a->caprets * 2 + 8) * sizeof(*r));

				if (!r) {
					a->stuck = true;
					break;
				}
				a->rets = r;
				a->caprets = a->caprets * 2 + 8;
			}
			a->rets[a->nrets].f = jump_fwd(a, JMP, &s1);
			a->rets[a->nrets++].site = s1;
			break;
		case N_IF:
			expr(a, s->a);
			EMIT(a, 0x48, 0x85, 0xc0);		/* test rax, rax */
			f1 = jump_fwd(a, JZ, &s1);
			stmts(a, s->b);
			if (s->c) {
				f2 = jump_fwd(a, JMP, &s2);
				land(a, f1, s1);
				stmts(a, s->c);
				land(a, f2, s2);
			} else {
				land(a, f1, s1);
			}
			break;
		case N_WHILE:
			top = a->len;
			expr(a, s->a);
			EMIT(a, 0x48, 0x85, 0xc0);		/* test rax, rax */
			f1 = jump_fwd(a, JZ, &s1);
			stmts(a, s->b);
			jump_back(a, JMP, top);
			land(a, f1, s1);
			break;
		default:
			break;
		}
	}
}

static void function(struct as *a, const struct program *p)
{
	EMIT(a, 0x53);				/* push rbx */
	EMIT(a, 0x41, 0x54);			/* push r12 */
	EMIT(a, 0x48, 0x89, 0xfb);		/* mov rbx, rdi */
	EMIT(a, 0x45, 0x31, 0xe4);		/* xor r12d, r12d */
	stmts(a, p->body);
	for (size_t i = 0; i < a->nrets; i++)
		land(a, a->rets[i].f, a->rets[i].site);
	EMIT(a, 0x4c, 0x89, 0xe0);		/* mov rax, r12 */
	EMIT(a, 0x41, 0x5c);			/* pop r12 */
	EMIT(a, 0x5b);				/* pop rbx */
	EMIT(a, 0xc3);				/* ret */
}

size_t jit_generate(const struct program *p, uint8_t *buf, size_t cap, char *err, size_t errlen)
{
	struct as a = { .b = buf, .cap = cap };
	size_t len = 0;

	for (int i = 0; i < MAX_LAYOUTS; i++) {
		a.len = 0;
		a.site = 0;
		a.nrets = 0;
		a.relayout = false;
		function(&a, p);
		if (a.overflow) {
			snprintf(err, errlen, "code buffer exhausted: the program needs more than the %zu bytes of code memory left (see --code-size)", cap);
			break;
		}
		if (a.stuck) {
			snprintf(err, errlen, "internal error: could not place the branches of the program");
			break;
		}
		if (!a.relayout) {
			len = a.len;
			break;
		}
	}
	if (!len && !a.overflow && !a.stuck)
		snprintf(err, errlen, "internal error: branch layout did not settle after %d passes", MAX_LAYOUTS);
	free(a.pads);
	free(a.rets);
	return len;
}

int jit_install(struct codemem *cm, const uint8_t *buf, size_t n, struct jit_code *out, char *err, size_t errlen)
{
	uint8_t *wr;
	void *code = cm_begin(cm, n, &wr);

	if (!code) {
		if (errno == ENOSPC)
			snprintf(err, errlen, "code buffer exhausted: %zu bytes needed, %zu left (see --code-size)", n, cm_avail(cm));
		else
			snprintf(err, errlen, "cannot open the code write window: %s", strerror(errno));
		return -1;
	}
	memcpy(wr, buf, n);
	/*
	 * Verify what will run.  With the pkey strategies no other thread can
	 * change these bytes any more (no other thread's PKRU lets it write);
	 * with mprotect and dualmap any thread can, until cm_end and forever
	 * respectively, so there the check is only as good as the rest of the
	 * process.
	 */
	if (jit_verify(code, n, err, errlen)) {
		memset(wr, 0xcc, n);
		cm_end(cm, code, n);
		return -1;
	}
	cm_end(cm, code, n);
	out->fn = (jit_fn)code;
	out->code = code;
	out->size = n;
	return 0;
}

int jit_compile(struct codemem *cm, const struct program *p, struct jit_code *out, char *err, size_t errlen)
{
	size_t cap = cm_avail(cm), n;
	uint8_t *buf = malloc(cap ? cap : 1);
	int r;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = jit_generate(p, buf, cap, err, errlen);
	r = n ? jit_install(cm, buf, n, out, err, errlen) : -1;
	free(buf);
	return r;
}
