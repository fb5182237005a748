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

unsigned int dec_one(struct dec *d, const uint8_t *p, size_t left, uint64_t addr,
		     struct dec_insn *out, int want_text)
{
	out->len = 0;
	out->cls = 0;
	out->rip_target = 0;
	out->text[0] = 0;
	if (!left)
		return 0;
	if (pkru_raw(p, left, out, want_text))
		return out->len;
#ifdef XO_DECODE_LLVM
	if (d->backend == DEC_LLVM)
		return llvm_one(d, p, left, addr, out, want_text);
#endif
	return cs_one(d, p, left, addr, out, want_text);
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
