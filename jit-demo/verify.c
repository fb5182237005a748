// SPDX-License-Identifier: GPL-2.0
/*
 * verify.c - capstone verifier of generated code, run on the bytes in code
 * memory before the write window closes.
 *
 * A JIT whose output holds WRPKRU (0f 01 ef) at any byte offset hands an
 * attacker who controls a jump the instruction that reopens every key;
 * XRSTOR* can load PKRU from memory, SYSCALL/SYSENTER/INT n can reach
 * pkey_mprotect() or mprotect().  The check:
 *
 *  1. the buffer decodes (capstone) from offset 0 to its end, instruction
 *     by instruction, and every instruction is, byte for byte, one of the
 *     encodings in forms[] below, the only ones emit.c produces: opcode,
 *     ModRM and prefix bytes fixed, only the immediate, displacement or
 *     branch offset free.  So there are no prefixes (66 e9 iw is a 4-byte
 *     jmp to capstone 4 and a 6-byte one to the CPU: a verifier that
 *     trusted capstone's length would check another stream than the one
 *     that runs), no memory operand other than [rbx + disp32] with disp32
 *     a multiple of 8 inside the variables array, push/pop only of rax,
 *     rbx and r12, no segment, control or debug register, no call, no
 *     indirect branch, no push imm; ret; and capstone's idea of each
 *     instruction (its id and length) must agree with the form's;
 *  2. ret appears only as the last instruction (the epilogue), and the
 *     last instruction is ret or jmp: execution cannot fall off the end;
 *  3. every branch (e9 rel32, 0f 84 rel32: the only two the emitter
 *     produces) lands on an instruction inside the buffer, its target
 *     computed from the rel32 bytes as the CPU does, and capstone agrees;
 *  4. no byte offset, instruction boundary or not, starts a forbidden
 *     instruction.  Each of them has its opcode byte 0x0f (two-byte map)
 *     or 0xcd (INT n) after at most some prefixes, and a decode at the
 *     opcode byte finds it as well, so decoding at every 0x0f and 0xcd
 *     byte is as strong as decoding at every offset.  Capstone 4 does not
 *     know WRPKRU (it calls 0f 01 ef invalid), so its bytes are matched
 *     directly.
 *
 * It checks structure, not meaning: stack balance, what the arithmetic
 * computes and which variables are touched in which order are not checked.
 */
#include <capstone.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

enum {
	F_BRANCH = 1,	/* the immediate is a rel32 branch offset */
	F_VAR = 2,	/* the immediate is the disp32 of [rbx + 8 * var] */
	F_RET = 4,
	F_JMP = 8,	/* unconditional: may end the function */
};

struct form {
	unsigned int id;	/* what capstone must call it */
	uint8_t nfixed, nimm, flags;
	uint8_t fixed[4];
};

/* Every encoding emit.c emits (see the comment on each EMIT there). */
static const struct form forms[] = {
	{ X86_INS_PUSH, 1, 0, 0, { 0x53 } },			/* push rbx */
	{ X86_INS_PUSH, 2, 0, 0, { 0x41, 0x54 } },		/* push r12 */
	{ X86_INS_PUSH, 1, 0, 0, { 0x50 } },			/* push rax */
	{ X86_INS_POP, 1, 0, 0, { 0x58 } },			/* pop rax */
	{ X86_INS_POP, 2, 0, 0, { 0x41, 0x5c } },		/* pop r12 */
	{ X86_INS_POP, 1, 0, 0, { 0x5b } },			/* pop rbx */
	{ X86_INS_RET, 1, 0, F_RET, { 0xc3 } },			/* ret */
	{ X86_INS_MOV, 3, 0, 0, { 0x48, 0x89, 0xfb } },		/* mov rbx, rdi */
	{ X86_INS_XOR, 3, 0, 0, { 0x45, 0x31, 0xe4 } },		/* xor r12d, r12d */
	{ X86_INS_MOV, 3, 0, 0, { 0x4c, 0x89, 0xe0 } },		/* mov rax, r12 */
	{ X86_INS_MOV, 3, 0, 0, { 0x49, 0x89, 0xc4 } },		/* mov r12, rax */
	{ X86_INS_XOR, 2, 0, 0, { 0x31, 0xc0 } },		/* xor eax, eax */
	{ X86_INS_MOV, 3, 4, 0, { 0x48, 0xc7, 0xc0 } },		/* mov rax, simm32 */
	{ X86_INS_MOVABS, 2, 8, 0, { 0x48, 0xb8 } },		/* movabs rax, imm64 */
	{ X86_INS_MOVABS, 2, 8, 0, { 0x48, 0xb9 } },		/* movabs rcx, imm64 */
	{ X86_INS_XOR, 3, 0, 0, { 0x48, 0x31, 0xc8 } },		/* xor rax, rcx */
	{ X86_INS_MOV, 3, 4, F_VAR, { 0x48, 0x8b, 0x83 } },	/* mov rax, [rbx + disp32] */
	{ X86_INS_MOV, 3, 4, F_VAR, { 0x48, 0x8b, 0x8b } },	/* mov rcx, [rbx + disp32] */
	{ X86_INS_MOV, 3, 4, F_VAR, { 0x48, 0x89, 0x83 } },	/* mov [rbx + disp32], rax */
	{ X86_INS_MOV, 3, 0, 0, { 0x48, 0x89, 0xc1 } },		/* mov rcx, rax */
	{ X86_INS_MOV, 3, 0, 0, { 0x48, 0x89, 0xd0 } },		/* mov rax, rdx */
	{ X86_INS_ADD, 3, 0, 0, { 0x48, 0x01, 0xc8 } },		/* add rax, rcx */
	{ X86_INS_SUB, 3, 0, 0, { 0x48, 0x29, 0xc8 } },		/* sub rax, rcx */
	{ X86_INS_IMUL, 4, 0, 0, { 0x48, 0x0f, 0xaf, 0xc1 } },	/* imul rax, rcx */
	{ X86_INS_CQO, 2, 0, 0, { 0x48, 0x99 } },		/* cqo */
	{ X86_INS_IDIV, 3, 0, 0, { 0x48, 0xf7, 0xf9 } },	/* idiv rcx */
	{ X86_INS_NEG, 3, 0, 0, { 0x48, 0xf7, 0xd8 } },		/* neg rax */
	{ X86_INS_TEST, 3, 0, 0, { 0x48, 0x85, 0xc0 } },	/* test rax, rax */
	{ X86_INS_TEST, 3, 0, 0, { 0x48, 0x85, 0xc9 } },	/* test rcx, rcx */
	{ X86_INS_CMP, 3, 0, 0, { 0x48, 0x39, 0xc8 } },		/* cmp rax, rcx */
	{ X86_INS_CMP, 4, 0, 0, { 0x48, 0x83, 0xf9, 0xff } },	/* cmp rcx, -1 */
	{ X86_INS_AND, 2, 0, 0, { 0x20, 0xc8 } },		/* and al, cl */
	{ X86_INS_OR, 2, 0, 0, { 0x08, 0xc8 } },		/* or al, cl */
	{ X86_INS_SETE, 3, 0, 0, { 0x0f, 0x94, 0xc0 } },	/* sete al */
	{ X86_INS_SETNE, 3, 0, 0, { 0x0f, 0x95, 0xc0 } },	/* setne al */
	{ X86_INS_SETNE, 3, 0, 0, { 0x0f, 0x95, 0xc1 } },	/* setne cl */
	{ X86_INS_SETL, 3, 0, 0, { 0x0f, 0x9c, 0xc0 } },	/* setl al */
	{ X86_INS_SETGE, 3, 0, 0, { 0x0f, 0x9d, 0xc0 } },	/* setge al */
	{ X86_INS_SETLE, 3, 0, 0, { 0x0f, 0x9e, 0xc0 } },	/* setle al */
	{ X86_INS_SETG, 3, 0, 0, { 0x0f, 0x9f, 0xc0 } },	/* setg al */
	{ X86_INS_MOVZX, 3, 0, 0, { 0x0f, 0xb6, 0xc0 } },	/* movzx eax, al */
	{ X86_INS_JMP, 1, 4, F_BRANCH | F_JMP, { 0xe9 } },	/* jmp rel32 */
	{ X86_INS_JE, 2, 4, F_BRANCH, { 0x0f, 0x84 } },		/* je rel32 */
	{ X86_INS_NOP, 1, 0, 0, { 0x90 } },			/* nop: short branch padding */
	{ X86_INS_INT3, 1, 0, 0, { 0xcc } },			/* int3: long padding, jumped over */
};

static const unsigned int forbidden[] = {
	X86_INS_XRSTOR, X86_INS_XRSTOR64, X86_INS_XRSTORS, X86_INS_XRSTORS64,
	X86_INS_SYSCALL, X86_INS_SYSENTER, X86_INS_INT,
};

static bool in(unsigned int id, const unsigned int *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == id)
			return true;
	return false;
}

static int reject(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The form @insn is, byte for byte and for capstone too, or NULL. */
static const struct form *form_of(const cs_insn *insn)
{
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct form *f = &forms[i];

		if (insn->size == f->nfixed + f->nimm && !memcmp(insn->bytes, f->fixed, f->nfixed))
			return insn->id == f->id ? f : NULL;
	}
	return NULL;
}

/* The little-endian immediate of @f in @insn, sign-extended from 32 bits. */
static int64_t imm32(const cs_insn *insn, const struct form *f)
{
	const uint8_t *b = insn->bytes + f->nfixed;

	return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/*
 * A direct branch's target from its operand text ("0x1a", "5"), to check
 * that capstone reads the branch as the bytes say.  Capstone's detail mode
 * would give the operand as a struct, but costs several times the decoding
 * time.
 */
static bool direct_target(const char *op, int64_t *target)
{
	char *end;

	if (!((op[0] >= '0' && op[0] <= '9') || (op[0] == '-' && op[1] >= '0' && op[1] <= '9')))
		return false;
	*target = (int64_t)strtoull(op, &end, 0);
	return *end == 0;
}

static const char *hex(const cs_insn *insn, char *buf)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t j = 0; j < insn->size && j < 15; j++)
		k += (size_t)sprintf(buf + k, "%s%02x", j ? " " : "", insn->bytes[j]);
	return buf;
}

/* One capstone handle per thread, without details: see direct_target(). */
static csh handle(void)
{
	static __thread csh h;
	static __thread bool open;

	if (!open) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
			return 0;
		open = true;
	}
	return h;
}

/* A forbidden instruction starting at offset @i, or NULL. */
static const char *forbidden_at(csh h, cs_insn *insn, const uint8_t *code, size_t n, size_t i)
{
	const uint8_t *p = code + i;
	size_t left = n - i;
	uint64_t addr = i;

	if (left >= 3 && p[0] == 0x0f && p[1] == 0x01 && p[2] == 0xef)
		return "wrpkru";
	if (cs_disasm_iter(h, &p, &left, &addr, insn) && in(insn->id, forbidden, sizeof(forbidden) / sizeof(forbidden[0])))
		return insn->mnemonic;
	return NULL;
}

int jit_verify(const uint8_t *code, size_t n, char *err, size_t errlen)
{
	csh h = handle();
	cs_insn *insn;
	const struct form *f;
	bool *start;
	const uint8_t *p = code;
	size_t left = n, end = 0, ntargets = 0;
	uint64_t addr = 0;
	int64_t *targets, t, cs_t;
	unsigned int last_flags = 0;
	char bytes[3 * 16];
	const char *bad;
	int r = 0;

	if (!h)
		return reject(err, errlen, "verifier: cannot open capstone");
	if (n == 0)
		return reject(err, errlen, "verifier: empty function");
	insn = cs_malloc(h);
	start = calloc(n, sizeof(*start));
	targets = calloc(n, sizeof(*targets));
	if (!insn || !start || !targets) {
		r = reject(err, errlen, "verifier: out of memory");
		goto out;
	}

	/* 1.-3. the instruction stream: every instruction one of forms[] */
	while (left && cs_disasm_iter(h, &p, &left, &addr, insn)) {
		start[insn->address] = true;
		end = (size_t)addr;
		if (r)
			continue;
		f = form_of(insn);
		if (!f) {
			r = reject(err, errlen, "offset %zu: '%s %s' (%s) is not an instruction this JIT emits",
				   (size_t)insn->address, insn->mnemonic, insn->op_str, hex(insn, bytes));
			continue;
		}
		if ((f->flags & F_RET) && end != n) {
			r = reject(err, errlen, "offset %zu: ret before the end of the function (the emitter's only ret is its last byte)",
				   (size_t)insn->address);
		} else if (f->flags & F_VAR) {
			t = imm32(insn, f);
			if (t < 0 || t >= 8 * LANG_MAX_VARS || t % 8)
				r = reject(err, errlen, "offset %zu: '%s %s': displacement %lld is not a variable's (0, 8, ..., %d)",
					   (size_t)insn->address, insn->mnemonic, insn->op_str, (long long)t,
					   8 * (LANG_MAX_VARS - 1));
		} else if (f->flags & F_BRANCH) {
			t = (int64_t)end + imm32(insn, f);
			if (!direct_target(insn->op_str, &cs_t) || cs_t != t)
				r = reject(err, errlen, "offset %zu: capstone reads '%s %s', the bytes say a branch to %lld",
					   (size_t)insn->address, insn->mnemonic, insn->op_str, (long long)t);
			else
				targets[ntargets++] = t;
		}
		last_flags = f->flags;
	}

	/* 4. forbidden instructions at any offset: reported first, they matter most */
	for (size_t i = 0; i < n; i++) {
		if (code[i] != 0x0f && code[i] != 0xcd)
			continue;
		bad = forbidden_at(h, insn, code, n, i);
		if (bad) {
			r = reject(err, errlen, "offset %zu: forbidden instruction %s %s", i, bad,
				   (i < end && start[i]) || i == end ? "at an instruction boundary" : "hidden inside another instruction");
			goto out;
		}
	}
	if (end < n) {
		r = reject(err, errlen, "offset %zu: undecodable bytes (%02x ...)", end, code[end]);
		goto out;
	}
	if (r)
		goto out;
	if (!(last_flags & (F_RET | F_JMP))) {
		r = reject(err, errlen, "offset %zu: the function does not end in ret or jmp: execution falls off its end", n);
		goto out;
	}

	/* 3. branch targets */
	for (size_t i = 0; i < ntargets; i++) {
		t = targets[i];
		if (t < 0 || (uint64_t)t >= n) {
			r = reject(err, errlen, "branch to offset %lld, outside the function (0..%zu)", (long long)t, n - 1);
			goto out;
		}
		if (!start[t]) {
			r = reject(err, errlen, "branch to offset %lld, inside an instruction", (long long)t);
			goto out;
		}
	}
out:
	if (insn)
		cs_free(insn, 1);
	free(start);
	free(targets);
	return r;
}

void jit_dump(const uint8_t *code, size_t n, uint64_t addr)
{
	csh h;
	cs_insn *insn;
	size_t count;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		fprintf(stderr, "jit-demo: cannot open capstone\n");
		return;
	}
	count = cs_disasm(h, code, n, addr, 0, &insn);
	for (size_t i = 0; i < count; i++) {
		char hex[3 * 16 + 1] = "";

		for (size_t j = 0; j < insn[i].size && j < 15; j++)
			sprintf(hex + 3 * j, "%02x ", insn[i].bytes[j]);
		printf("  %12llx:  %-31s %s %s\n", (unsigned long long)insn[i].address, hex, insn[i].mnemonic,
		       insn[i].op_str);
	}
	cs_free(insn, count);
	cs_close(&h);
}
