// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - the two backends of decode.h: capstone 4 (always) and LLVM
 * 14's C disassembler (with -DXO_DECODE_LLVM).
 *
 * Capstone gives operands as data; LLVM-C gives only a length and text,
 * so its classes come from the text (Intel syntax): the mnemonic, and the
 * "[rip + N]" operand, which the printer writes for every RIP-relative
 * memory operand.  LLVM decodes a lock prefix as an instruction of its own
 * (f0, then the locked instruction): both are real boundaries of the
 * same bytes, and a RIP-relative target is the same from either, since it
 * is relative to the end of the instruction.
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef XO_DECODE_LLVM
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#endif

#include "decode.h"

struct dec {
	enum dec_backend backend;
	int operands;
	csh cs;
	cs_insn *insn;
#ifdef XO_DECODE_LLVM
	LLVMDisasmContextRef llvm;
#endif
};

/*
 * Capstone 4 calls WRPKRU and RDPKRU (0f 01 ef, 0f 01 ee) invalid: 3 bytes,
 * no operands, matched here so that no tool counts them undecodable.
 */
static unsigned int pkru_raw(const uint8_t *p, size_t left, struct dec_insn *out, int want_text)
{
	if (left < 3 || p[0] != 0x0f || p[1] != 0x01 || (p[2] != 0xef && p[2] != 0xee))
		return 0;
	out->cls = p[2] == 0xef ? DEC_PKRU : 0;
	if (want_text)
		snprintf(out->text, sizeof(out->text), "%s", p[2] == 0xef ? "wrpkru" : "rdpkru");
	return out->len = 3;
}

static unsigned int cs_one(struct dec *d, const uint8_t *p, size_t left, uint64_t addr,
			   struct dec_insn *out, int want_text)
{
	const cs_insn *in = d->insn;
	unsigned int id;
	int k;

	if (!cs_disasm_iter(d->cs, &p, &left, &addr, d->insn))
		return 0;
	id = in->id;
	out->len = in->size;
	if (id == X86_INS_XRSTOR || id == X86_INS_XRSTOR64 || id == X86_INS_XRSTORS || id == X86_INS_XRSTORS64)
		out->cls |= DEC_PKRU;
	if (want_text)
		snprintf(out->text, sizeof(out->text), "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
	if (!d->operands)
		return out->len;
	if (id == X86_INS_LEA)
		out->cls |= DEC_LEA;
	if (id == X86_INS_NOP || id == X86_INS_PREFETCH || id == X86_INS_PREFETCHT0 || id == X86_INS_PREFETCHT1 ||
	    id == X86_INS_PREFETCHT2 || id == X86_INS_PREFETCHNTA || id == X86_INS_PREFETCHW)
		out->cls |= DEC_NOACCESS;
	for (k = 0; k < in->detail->groups_count; k++)
		if (in->detail->groups[k] == CS_GRP_JUMP || in->detail->groups[k] == CS_GRP_CALL ||
		    in->detail->groups[k] == CS_GRP_RET)
			out->cls |= DEC_BRANCH;
	for (k = 0; k < in->detail->x86.op_count; k++) {
		const cs_x86_op *op = &in->detail->x86.operands[k];

		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP) {
			out->cls |= DEC_RIPREL;
			out->rip_target = in->address + in->size + (uint64_t)op->mem.disp;
		}
	}
	return out->len;
}

#ifdef XO_DECODE_LLVM
static int starts(const char *s, const char *w)
{
	return !strncmp(s, w, strlen(w));
}

/* The classes of LLVM's text @t (tabs and all) of an instruction at @addr, @len bytes. */
static void llvm_classes(const char *t, uint64_t addr, unsigned int len, struct dec_insn *out, int operands)
{
	static const char *const prefixes[] = { "lock", "rep", "repne", "notrack", "bnd", "data16", "addr32", NULL };
	const char *m = t, *r;
	size_t n;
	int k;

	/* The mnemonic: the first word that is not a prefix. */
	for (;;) {
		while (*m == '\t' || *m == ' ')
			m++;
		n = strcspn(m, "\t ");
		for (k = 0; prefixes[k] && !(strlen(prefixes[k]) == n && !strncmp(m, prefixes[k], n)); k++)
			;
		if (!prefixes[k] || !m[n])
			break;
		m += n;
	}
	if ((n == 6 && starts(m, "wrpkru")) || (n == 6 && starts(m, "xrstor")) || (n == 8 && starts(m, "xrstor64")) ||
	    (n == 7 && starts(m, "xrstors")) || (n == 9 && starts(m, "xrstors64")))
		out->cls |= DEC_PKRU;
	if (!operands)
		return;
	if (n == 3 && starts(m, "lea"))
		out->cls |= DEC_LEA;
	if (starts(m, "nop") || starts(m, "prefetch"))
		out->cls |= DEC_NOACCESS;
	if (m[0] == 'j' || starts(m, "call") || starts(m, "ret") || starts(m, "loop") || starts(m, "iret"))
		out->cls |= DEC_BRANCH;
	r = strstr(m, "[rip");
	if (r) {
		/* "[rip]", "[rip + N]" or "[rip - N]": N in decimal or 0x hex */
		long long disp = 0;

		r += 4;
		if (r[0] == ' ' && (r[1] == '+' || r[1] == '-') && r[2] == ' ')
			disp = strtoll(r + 3, NULL, 0) * (r[1] == '-' ? -1 : 1);
		out->cls |= DEC_RIPREL;
		out->rip_target = addr + len + (uint64_t)disp;
	}
}

static unsigned int llvm_one(struct dec *d, const uint8_t *p, size_t left, uint64_t addr,
			     struct dec_insn *out, int want_text)
{
	char t[sizeof(out->text)], *o;
	const char *s;
	size_t n;

	t[0] = 0;
	/* The API takes a non-const pointer; it only reads the bytes. */
	n = LLVMDisasmInstruction(d->llvm, (uint8_t *)p, left, addr, t, sizeof(t));
	if (!n)
		return 0;
	out->len = (unsigned int)n;
	llvm_classes(t, addr, out->len, out, d->operands);
	if (want_text) {
		/* tabs to single blanks, without the leading one */
		for (s = t, o = out->text; *s; s++)
			if (*s != '\t' && *s != ' ')
				*o++ = *s;
			else if (o > out->text && o[-1] != ' ')
				*o++ = ' ';
		if (o > out->text && o[-1] == ' ')
			o--;
		*o = 0;
	}
	return out->len;
}
#endif

/* 0f 01 xx that user code runs: xgetbv, xend, xtest, rdpkru, wrpkru, rdtscp, serialize. */
static bool user_0f01(uint8_t modrm, bool f3)
{
	static const uint8_t ok[] = { 0xd0, 0xd5, 0xd6, 0xee, 0xef, 0xf9, 0xe8 };
	size_t k;

	for (k = 0; k < sizeof(ok); k++)
		if (modrm == ok[k])
			return true;
	/* CET shadow stack (glibc's longjmp, setcontext): saveprevssp, rstorssp m64 */
	return f3 && (modrm == 0xea || (modrm < 0xc0 && ((modrm >> 3) & 7) == 5));
}

/* The two-byte opcodes 0f @op that user code has no business with. */
static bool bad_0f(uint8_t op)
{
	static const uint8_t bad[] = {
		0x00,			/* sldt, str, lldt, ltr, verr, verw */
		0x06, 0x07, 0x08, 0x09,	/* clts, sysret, invd, wbinvd */
		0x0e, 0x0f,		/* femms, 3DNow! */
		0x20, 0x21, 0x22, 0x23, 0x24, 0x26,	/* mov cr/dr/tr */
		0x30, 0x32, 0x33, 0x34, 0x35, 0x37,	/* wrmsr, rdmsr, rdpmc, sysenter, sysexit, getsec */
		0xa0, 0xa1, 0xa8, 0xa9, 0xaa,	/* push/pop fs/gs, rsm */
		0xb2, 0xb4, 0xb5,	/* lss, lfs, lgs */
	};
	size_t k;

	for (k = 0; k < sizeof(bad); k++)
		if (op == bad[k])
			return true;
	return false;
}

/*
 * DEC_DIRECT, DEC_STOP, DEC_CALL, DEC_BAD of the @len bytes at @p (address @addr),
 * from the bytes: the legacy prefixes, a REX, the opcode.  The target of
 * a direct branch is its last 1 or 4 bytes, relative to its end.  A
 * direct branch with an operand-size prefix is DEC_BAD: AMD truncates
 * its target to 16 bits.
 */
static void byte_classes(const uint8_t *p, unsigned int len, uint64_t addr, struct dec_insn *out)
{
	unsigned int i = 0, rel = 0, cls = 0;
	bool o16 = false, f3 = false;
	uint8_t op;

	for (; i < len && strchr("\xf0\xf2\xf3\x2e\x36\x3e\x26\x64\x65\x66\x67", p[i]) && p[i]; i++) {
		o16 |= p[i] == 0x66;
		f3 |= p[i] == 0xf3;
	}
	if (i < len && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= len)
		return;
	op = p[i];
	if (op == 0x0f && i + 1 < len) {
		op = p[i + 1];
		if (op >= 0x80 && op <= 0x8f)
			rel = 4;
		else if (op == 0x0b || op == 0xb9 || op == 0xff)
			cls = DEC_STOP;
		else if (op == 0x01)
			cls = i + 2 < len && user_0f01(p[i + 2], f3) ? 0 : DEC_BAD;
		else if (bad_0f(op))
			cls = DEC_BAD;
	} else if (op == 0xe8) {
		rel = 4, cls = DEC_CALL;
	} else if (op == 0xe9) {
		rel = 4, cls = DEC_STOP;
	} else if (op == 0xeb) {
		rel = 1, cls = DEC_STOP;
	} else if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3)) {
		rel = 1;
	} else if (op == 0xc3 || op == 0xc2 || op == 0xcc || op == 0xf4) {
		cls = DEC_STOP;	/* ret, ret N, int3, hlt */
	} else if (op == 0xff && i + 1 < len) {
		unsigned int reg = (p[i + 1] >> 3) & 7;

		cls = reg == 4 ? DEC_STOP : reg == 3 || reg == 5 ? DEC_BAD : reg == 2 ? DEC_CALL : 0;
	} else if (op && strchr("\xca\xcb\xcf\xcd\xce\xf1\xe4\xe5\xe6\xe7\xec\xed\xee\xef\x6c\x6d\x6e\x6f"
			  "\xfa\xfb\x8c\x8e\xd7\x9a\xea\xd6", op)) {
		cls = DEC_BAD;	/* far ret, iret, int N, into, int1, in/out/ins/outs, cli/sti, sreg, xlat */
	}
	if (rel && (o16 || len < rel + 1)) {
		cls |= DEC_BAD;
	} else if (rel) {
		int64_t r;

		if (rel == 1) {
			r = (int8_t)p[len - 1];
		} else {
			int32_t v;

			memcpy(&v, p + len - 4, 4);
			r = v;
		}
		cls |= DEC_DIRECT;
		out->br_target = addr + len + (uint64_t)r;
	}
	out->cls |= cls;
}

unsigned int dec_one(struct dec *d, const uint8_t *p, size_t left, uint64_t addr,
		     struct dec_insn *out, int want_text)
{
	out->len = 0;
	out->cls = 0;
	out->rip_target = 0;
	out->br_target = 0;
	out->text[0] = 0;
	if (!left)
		return 0;
	if (!pkru_raw(p, left, out, want_text)) {
#ifdef XO_DECODE_LLVM
		if (d->backend == DEC_LLVM)
			llvm_one(d, p, left, addr, out, want_text);
		else
#endif
			cs_one(d, p, left, addr, out, want_text);
	}
	if (out->len && d->operands)
		byte_classes(p, out->len, addr, out);
	return out->len;
}

struct dec *dec_open(enum dec_backend backend, int operands, const char **err)
{
	struct dec *d = calloc(1, sizeof(*d));

	*err = NULL;
	if (!d) {
		*err = "out of memory";
		return NULL;
	}
	d->backend = backend;
	d->operands = operands;
	if (backend == DEC_CAPSTONE) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK ||
		    (operands && cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON)) || !(d->insn = cs_malloc(d->cs)))
			*err = "cannot open capstone";
	} else {
#ifdef XO_DECODE_LLVM
		LLVMInitializeX86TargetInfo();
		LLVMInitializeX86TargetMC();
		LLVMInitializeX86Disassembler();
		d->llvm = LLVMCreateDisasm("x86_64-pc-linux-gnu", NULL, 0, NULL, NULL);
		/* Intel syntax: the "[rip + N]" form that llvm_classes() reads. */
		if (!d->llvm || !LLVMSetDisasmOptions(d->llvm, LLVMDisassembler_Option_AsmPrinterVariant))
			*err = "cannot open LLVM's x86-64 disassembler";
#else
		*err = "this build has no LLVM decoder (built without XO_DECODE_LLVM)";
#endif
	}
	if (*err) {
		dec_close(d);
		return NULL;
	}
	return d;
}

void dec_close(struct dec *d)
{
	if (!d)
		return;
	if (d->insn)
		cs_free(d->insn, 1);
	if (d->cs)
		cs_close(&d->cs);
#ifdef XO_DECODE_LLVM
	if (d->llvm)
		LLVMDisasmDispose(d->llvm);
#endif
	free(d);
}

int dec_backend_of(const char *name)
{
	if (!strcmp(name, "capstone"))
		return DEC_CAPSTONE;
	if (!strcmp(name, "llvm"))
		return DEC_LLVM;
	return -1;
}

const char *dec_name(enum dec_backend backend)
{
	return backend == DEC_LLVM ? "llvm" : "capstone";
}
