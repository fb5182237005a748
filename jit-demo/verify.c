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
 *  1. the buffer decodes from offset 0 to its end, instruction by
 *     instruction, into instructions this emitter produces (no calls, no
 *     indirect branches, nothing privileged or exotic);
 *  2. every direct branch lands on one of those instructions;
 *  3. no byte offset, instruction boundary or not, starts a forbidden
 *     instruction.  Each of them has its opcode byte 0x0f (two-byte map)
 *     or 0xcd (INT n) after at most some prefixes, and a decode at the
 *     opcode byte finds it as well, so decoding at every 0x0f and 0xcd
 *     byte is as strong as decoding at every offset.  Capstone 4 does not
 *     know WRPKRU (it calls 0f 01 ef invalid), so its bytes are matched
 *     directly.
 */
#include <capstone.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

static const unsigned int allowed[] = {
	X86_INS_MOV, X86_INS_MOVABS, X86_INS_MOVZX, X86_INS_PUSH, X86_INS_POP,
	X86_INS_ADD, X86_INS_SUB, X86_INS_IMUL, X86_INS_CQO, X86_INS_IDIV, X86_INS_NEG,
	X86_INS_XOR, X86_INS_AND, X86_INS_OR, X86_INS_CMP, X86_INS_TEST,
	X86_INS_SETE, X86_INS_SETNE, X86_INS_SETL, X86_INS_SETLE, X86_INS_SETG, X86_INS_SETGE,
	X86_INS_JMP, X86_INS_JE, X86_INS_JNE, X86_INS_RET, X86_INS_NOP,
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

static bool is_jump(unsigned int id)
{
	return id == X86_INS_JMP || id == X86_INS_JE || id == X86_INS_JNE;
}

/*
 * A direct branch's target from its operand text ("0x1a", "5"); register
 * and memory operands are not numbers.  Capstone's detail mode would give
 * the operand as a struct, but costs several times the decoding time.
 */
static bool direct_target(const char *op, uint64_t *target)
{
	char *end;

	if (!((op[0] >= '0' && op[0] <= '9') || (op[0] == '-' && op[1] >= '0' && op[1] <= '9')))
		return false;
	*target = (uint64_t)strtoll(op, &end, 0);
	return *end == 0;
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
	bool *start;
	const uint8_t *p = code;
	size_t left = n, end = 0, ntargets = 0;
	uint64_t addr = 0, *targets;
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

	/* 1. the instruction stream */
	while (left && cs_disasm_iter(h, &p, &left, &addr, insn)) {
		start[insn->address] = true;
		end = (size_t)addr;
		if (r)
			continue;
		if (!in(insn->id, allowed, sizeof(allowed) / sizeof(allowed[0]))) {
			r = reject(err, errlen, "offset %zu: '%s %s' is not an instruction this JIT emits",
				   (size_t)insn->address, insn->mnemonic, insn->op_str);
		} else if (is_jump(insn->id)) {
			if (!direct_target(insn->op_str, &targets[ntargets]))
				r = reject(err, errlen, "offset %zu: indirect branch '%s %s'",
					   (size_t)insn->address, insn->mnemonic, insn->op_str);
			else
				ntargets++;
		}
	}

	/* 3. forbidden instructions at any offset: reported first, they matter most */
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

	/* 2. branch targets */
	for (size_t i = 0; i < ntargets; i++) {
		int64_t t = (int64_t)targets[i];

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
