/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode.h - decode one x86-64 instruction, for the analysis tools
 * (xoscan, planproof, xodeccov): its length, the few facts about it that
 * the tools ask, and its text.  Never linked into the run path.
 *
 * Two backends (issue 26): capstone 4, which every build has (the guest's
 * static xoscan), and LLVM 14's C disassembler, in builds with
 * -DXO_DECODE_LLVM (host tools; llvm-14-dev).  Capstone 4.0.2 rejects
 * valid AVX2 and AVX-512 encodings (c4 e2 7d 5a 07, vbroadcasti128); LLVM
 * decodes them.  Whatever backend a tool uses, the tool counts the bytes it
 * could not decode and says so: "know what your decoder skipped".
 */
#ifndef XOLOADER_TOOLS_DECODE_H
#define XOLOADER_TOOLS_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum dec_backend { DEC_CAPSTONE, DEC_LLVM };

/* The tools' default: the best decoder this build has. */
#ifdef XO_DECODE_LLVM
#define DEC_DEFAULT DEC_LLVM
#else
#define DEC_DEFAULT DEC_CAPSTONE
#endif

/* What an instruction is, as far as the tools care (dec_insn.cls bits). */
#define DEC_PKRU	0x01	/* WRPKRU, XRSTOR, XRSTOR64, XRSTORS, XRSTORS64: can set PKRU */
#define DEC_LEA		0x02	/* lea: a memory operand that is not accessed */
#define DEC_NOACCESS	0x04	/* nop, prefetch*: an operand that is not accessed either */
#define DEC_BRANCH	0x08	/* jmp, jcc, call, ret, loop, jrcxz... */
#define DEC_RIPREL	0x10	/* has a RIP-relative memory operand: rip_target is set */
/*
 * From the bytes, the same for both backends (the proven-code rule's
 * descent, tools/proven.c):
 */
#define DEC_DIRECT	0x20	/* direct jmp, jcc, call, loop, jrcxz: br_target is set */
#define DEC_STOP	0x40	/* no fall-through: ret, jmp (direct or not), ud0/ud1/ud2, hlt, int3 */
#define DEC_BAD		0x80	/* privileged, obsolete or odd in user code: in/out, cli/sti, int N,
				 * iret, far branches and returns, system instructions, segment
				 * register loads, xlat, 3DNow!, a direct branch with 66 */
#define DEC_CALL	0x100	/* call (direct or not): what follows runs only if it returns */

struct dec_insn {
	unsigned int len;	/* bytes; 0 if undecodable */
	unsigned int cls;	/* DEC_* bits */
	uint64_t rip_target;	/* address of the RIP-relative operand (DEC_RIPREL) */
	uint64_t br_target;	/* where a direct branch goes (DEC_DIRECT) */
	char text[160];		/* "mnemonic operands", Intel syntax, lower case */
};

struct dec;

/*
 * A decoder of @backend, or NULL (with a reason in *@err) if this build has
 * none.  @operands: fill in DEC_LEA, DEC_NOACCESS, DEC_BRANCH, DEC_RIPREL
 * too (capstone's operand detail roughly halves its speed: xoscan, which
 * only needs lengths and DEC_PKRU, goes without).
 */
struct dec *dec_open(enum dec_backend backend, int operands, const char **err);
void dec_close(struct dec *d);

/*
 * Decode the instruction at @p (@left bytes there), at address @addr,
 * into @out (text only if @want_text).  Returns its length, 0 if the
 * backend cannot decode it.
 */
unsigned int dec_one(struct dec *d, const uint8_t *p, size_t left, uint64_t addr,
		     struct dec_insn *out, int want_text);

/* "capstone" or "llvm" -> backend; -1 if unknown. */
int dec_backend_of(const char *name);
const char *dec_name(enum dec_backend backend);

#endif
