// SPDX-License-Identifier: GPL-2.0
/*
 * verifier - the capstone verifier rejects hand-made code that would undo
 * the code memory's protection or leave the function, and accepts what
 * the emitter produces.
 *
 * Proves:
 *  - a small valid function is accepted (so the rejections below are not
 *    the verifier rejecting everything);
 *  - WRPKRU (0f 01 ef) written at every byte offset of a 41-byte function
 *    is rejected as WRPKRU, at instruction boundaries and inside
 *    immediates alike, and also when it straddles two instructions;
 *  - XRSTOR, XRSTOR64, XRSTORS, XRSTORS64, SYSCALL, SYSENTER and INT 0x80
 *    are rejected both as instructions and hidden in an immediate;
 *  - SYSCALL and INT 0x80 in the very last two bytes are rejected too;
 *  - undecodable and truncated bytes, calls, indirect jumps, instructions
 *    the emitter never produces (ud2), and branches before the start,
 *    past the end or into the middle of an instruction are rejected;
 *  - only the emitter's exact encodings pass: a 66-prefixed jmp or je
 *    (capstone 4 reads rel16, the CPU rel32), jne and jmp rel8 (never
 *    emitted), push imm; ret, push [rax], mov rax, cr0, mov ss, ax, an
 *    rip-relative or fs: load, a [rbx + disp32] that is not a variable's
 *    slot, a ret before the end and a function that falls off its end
 *    are rejected;
 *  - code the emitter generates from constants that spell WRPKRU, SYSCALL
 *    and INT 0x80 is accepted: the emitter blinds them;
 *  - jit_install() refuses a bad buffer in pkey code memory and leaves
 *    int3 bytes where it was written, not the bad code.
 */
#include <stdio.h>
#include <string.h>

#include "jit.h"
#include "tap.h"

#define MOVABS(b0, b1, b2, b3, b4, b5, b6, b7) 0x48, 0xb8, b0, b1, b2, b3, b4, b5, b6, b7

struct bad {
	const char *what;
	const uint8_t *code;
	size_t n;
	const char *reason;	/* expected in the message */
};

#define BAD(what, reason, ...) { what, (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }), reason }

static const struct bad bads[] = {
	BAD("aligned WRPKRU", "wrpkru at an instruction boundary", 0x31, 0xc0, 0x0f, 0x01, 0xef, 0xc3),
	BAD("WRPKRU straddling movabs + add", "wrpkru hidden", MOVABS(0, 0, 0, 0, 0, 0, 0, 0x0f), 0x01, 0xef, 0xc3),
	BAD("aligned XRSTOR [rdi]", "xrstor at an instruction boundary", 0x0f, 0xae, 0x2f, 0xc3),
	BAD("XRSTOR hidden in an immediate", "xrstor hidden", MOVABS(1, 0x0f, 0xae, 0x2f, 0, 0, 0, 0), 0xc3),
	BAD("aligned XRSTOR64", "xrstor", 0x48, 0x0f, 0xae, 0x2f, 0xc3),
	BAD("aligned XRSTORS [rdi]", "xrstors at an instruction boundary", 0x0f, 0xc7, 0x1f, 0xc3),
	BAD("XRSTORS64 hidden in an immediate", "xrstors hidden", MOVABS(0x48, 0x0f, 0xc7, 0x1f, 0, 0, 0, 0), 0xc3),
	BAD("aligned SYSCALL", "syscall at an instruction boundary", 0x0f, 0x05, 0xc3),
	BAD("SYSCALL hidden in an immediate", "syscall hidden", MOVABS(0, 0, 0, 0, 0, 0x0f, 0x05, 0), 0xc3),
	BAD("aligned SYSENTER", "sysenter at an instruction boundary", 0x0f, 0x34, 0xc3),
	BAD("SYSENTER hidden in an immediate", "sysenter hidden", 0x48, 0xc7, 0xc0, 0x0f, 0x34, 0, 0, 0xc3),
	BAD("aligned INT 0x80", "int at an instruction boundary", 0xcd, 0x80, 0xc3),
	BAD("INT 0x80 hidden in an immediate", "int hidden", MOVABS(0, 0, 0xcd, 0x80, 0, 0, 0, 0), 0xc3),
	BAD("an undecodable byte (06)", "undecodable", 0x31, 0xc0, 0x06, 0xc3),
	BAD("a truncated movabs at the end", "undecodable", 0x31, 0xc0, 0x48, 0xb8, 1, 2),
	BAD("ud2", "not an instruction this JIT emits", 0x0f, 0x0b),
	BAD("call rel32", "not an instruction this JIT emits", 0xe8, 0, 0, 0, 0, 0xc3),
	BAD("jmp rax", "not an instruction this JIT emits", 0xff, 0xe0, 0xc3),
	BAD("jmp past the end", "outside the function", 0xe9, 0x10, 0, 0, 0, 0xc3),
	BAD("jmp to just past the end", "outside the function", 0xe9, 0x01, 0, 0, 0, 0xc3),
	BAD("je before the start", "outside the function", 0x31, 0xc0, 0x0f, 0x84, 0xf0, 0xff, 0xff, 0xff, 0xc3),
	BAD("jmp into the middle of an instruction", "inside an instruction", 0xe9, 0x01, 0, 0, 0, MOVABS(0x90, 0xc3, 0, 0, 0, 0, 0, 0), 0xc3),
	BAD("SYSCALL in the last two bytes", "syscall hidden", 0x48, 0xc7, 0xc0, 0, 0, 0x0f, 0x05),
	BAD("INT 0x80 in the last two bytes", "int hidden", 0x48, 0xc7, 0xc0, 0, 0, 0xcd, 0x80),
	BAD("66 e9 iw (capstone: 4-byte jmp, CPU: 6-byte jmp rel32)", "not an instruction this JIT emits",
	    0x66, 0xe9, 0x10, 0x00, 0x90, 0x90, 0xc3),
	BAD("66 0f 84 iw", "not an instruction this JIT emits", 0x31, 0xc0, 0x66, 0x0f, 0x84, 0x01, 0x00, 0x90, 0xc3),
	BAD("jne rel32 (never emitted)", "not an instruction this JIT emits", 0x48, 0x85, 0xc0, 0x0f, 0x85, 0, 0, 0, 0, 0xc3),
	BAD("jmp rel8 (never emitted)", "not an instruction this JIT emits", 0xeb, 0x00, 0xc3),
	BAD("push imm; ret (an indirect jump)", "not an instruction this JIT emits", 0x68, 0x00, 0x10, 0x00, 0x00, 0xc3),
	BAD("push [rax]", "not an instruction this JIT emits", 0xff, 0x30, 0xc3),
	BAD("mov rax, cr0", "not an instruction this JIT emits", 0x0f, 0x20, 0xc0, 0xc3),
	BAD("mov ss, ax", "not an instruction this JIT emits", 0x8e, 0xd0, 0xc3),
	BAD("rip-relative load", "not an instruction this JIT emits", 0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3),
	BAD("fs: load", "not an instruction this JIT emits", 0x64, 0x48, 0x8b, 0x83, 0, 0, 0, 0, 0xc3),
	BAD("[rbx + 4]: not a variable's slot", "not a variable's", 0x48, 0x8b, 0x83, 4, 0, 0, 0, 0xc3),
	BAD("[rbx + 512]: past the variables", "not a variable's", 0x48, 0x89, 0x83, 0, 2, 0, 0, 0xc3),
	BAD("[rbx - 8]", "not a variable's", 0x48, 0x8b, 0x8b, 0xf8, 0xff, 0xff, 0xff, 0xc3),
	BAD("ret in the middle", "ret before the end", 0x31, 0xc0, 0xc3, 0x31, 0xc0, 0xc3),
	BAD("falling off the end", "falls off its end", 0x31, 0xc0, 0x48, 0x01, 0xc8),
	BAD("ending in je", "falls off its end", 0x48, 0x85, 0xc0, 0x0f, 0x84, 0xf7, 0xff, 0xff, 0xff),
};

static void test_valid(void)
{
	/* xor eax,eax; test rax,rax; je +3 (to ret); add rax,rcx; ret */
	static const uint8_t ok[] = { 0x31, 0xc0, 0x48, 0x85, 0xc0, 0x0f, 0x84, 3, 0, 0, 0, 0x48, 0x01, 0xc8, 0xc3 };
	char err[256] = "";

	tap_ok(jit_verify(ok, sizeof(ok), err, sizeof(err)) == 0, "a valid 15-byte function with a branch is accepted (%s)",
	       err[0] ? err : "ok");
}

static void test_wrpkru_everywhere(void)
{
	uint8_t code[41];
	char err[256];
	int rejected = 0, first_bad = -1;

	for (size_t k = 0; k + 3 <= sizeof(code); k++) {
		/* four movabs rax, imm64 and a ret; then 0f 01 ef over bytes k..k+2 */
		for (int i = 0; i < 4; i++) {
			code[10 * i] = 0x48;
			code[10 * i + 1] = 0xb8;
			memset(code + 10 * i + 2, 0x11 * (i + 1), 8);
		}
		code[40] = 0xc3;
		memcpy(code + k, "\x0f\x01\xef", 3);
		err[0] = 0;
		if (jit_verify(code, sizeof(code), err, sizeof(err)) != 0 && strstr(err, "wrpkru"))
			rejected++;
		else if (first_bad < 0)
			first_bad = (int)k;
	}
	tap_ok(rejected == (int)sizeof(code) - 2, "WRPKRU at each of the %d byte offsets of a 41-byte function is rejected as wrpkru (%d were; first missed offset %d)",
	       (int)sizeof(code) - 2, rejected, first_bad);
}

static void test_bad(void)
{
	char err[256];

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		err[0] = 0;
		int r = jit_verify(bads[i].code, bads[i].n, err, sizeof(err));

		tap_ok(r != 0 && strstr(err, bads[i].reason), "%s is rejected: '%s' (want '%s')", bads[i].what, err,
		       bads[i].reason);
	}
}

static void test_blinded(void)
{
	static const char src[] = "a = 15663375; b = 0x0f01ef0f01ef; c = 0xcd80; d = 1295; e = 0x7fcdcdcdcdcdcd0f; a + b + c + d + e";
	struct program p;
	uint8_t buf[4096];
	char err[256] = "";
	size_t n = 0;
	bool found = false;

	if (lang_parse(src, &p, err, sizeof(err)) == 0) {
		n = jit_generate(&p, buf, sizeof(buf), err, sizeof(err));
		lang_free(&p);
	}
	/* each pattern up to the very last byte: 0f 05 may end the buffer */
	for (size_t i = 0; i < n; i++)
		found |= (i + 3 <= n && !memcmp(buf + i, "\x0f\x01\xef", 3)) ||
			 (i + 2 <= n && !memcmp(buf + i, "\x0f\x05", 2)) || buf[i] == 0xcd;
	tap_ok(n > 0 && !found && jit_verify(buf, n, err, sizeof(err)) == 0,
	       "constants 0xef010f, 0x0f01ef0f01ef, 0xcd80, 0x050f compile to %zu bytes without 0f 01 ef, 0f 05 or cd, and verify (%s)",
	       n, err[0] ? err : "ok");
}

static void test_install(void)
{
	static const uint8_t bad[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x01, 0xef, 0x00, 0xc3 };
	uint8_t back[sizeof(bad)], want[sizeof(bad)];
	struct jit_code jc = { 0 };
	char err[256] = "";
	struct codemem *cm = cm_create(CM_PKEY, 4096, err, sizeof(err));
	size_t before;
	int r;

	if (!cm) {
		tap_ok(false, "pkey code memory: %s", err);
		return;
	}
	before = cm_used(cm);
	r = jit_install(cm, bad, sizeof(bad), &jc, err, sizeof(err));
	memset(want, 0xcc, sizeof(want));
	tap_ok(r != 0 && !jc.fn && strstr(err, "wrpkru") && cm_read(cm, (uint8_t *)cm_base(cm) + before, sizeof(back), back) == 0 &&
	       !memcmp(back, want, sizeof(back)),
	       "jit_install() of code with a hidden WRPKRU fails (%s) and leaves int3 bytes in code memory", err);
	cm_destroy(cm);
}

int main(void)
{
	tap_init("jit verifier");
	test_valid();
	test_wrpkru_everywhere();
	test_bad();
	test_blinded();
	test_install();
	return tap_done();
}
