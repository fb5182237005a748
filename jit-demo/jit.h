/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jit.h - compile a program of lang.h to x86-64 in code memory of
 * codemem.h, verified with capstone before the write window closes.
 *
 * The compiled function is int64_t fn(int64_t vars[LANG_MAX_VARS]) (SysV
 * ABI): it reads and writes the variables in place and returns the
 * program's value.
 */
#ifndef JIT_JIT_H
#define JIT_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "codemem.h"
#include "lang.h"

typedef int64_t (*jit_fn)(int64_t *vars);

struct jit_code {
	jit_fn fn;
	void *code;	/* == fn, as data */
	size_t size;
};

/*
 * Generate the code of @p into @buf (at most @cap bytes); returns its size,
 * or 0 with a message in @err (the code does not fit: "code buffer
 * exhausted").  No code memory is touched.
 */
size_t jit_generate(const struct program *p, uint8_t *buf, size_t cap, char *err, size_t errlen);
/*
 * Copy @n bytes of generated code into @cm: open the window, write, verify
 * the bytes in place, close.  Code that fails verification is overwritten
 * with int3 before the window closes and never returned.  0 or -1 + @err.
 */
int jit_install(struct codemem *cm, const uint8_t *buf, size_t n, struct jit_code *out, char *err, size_t errlen);
/* jit_generate + jit_install. */
int jit_compile(struct codemem *cm, const struct program *p, struct jit_code *out, char *err, size_t errlen);

/*
 * The verifier: 0 if @code (@n bytes, running at offset 0) is made only of
 * the exact encodings this emitter produces (verify.c: forms[]), every
 * byte belongs to one, ret is only the last instruction and the function
 * ends in ret or jmp, branches land on an instruction inside the buffer,
 * and no byte offset, aligned or not, starts WRPKRU, XRSTOR*, SYSCALL,
 * SYSENTER or INT n.  Else -1 with "offset N: reason" in @err.
 */
int jit_verify(const uint8_t *code, size_t n, char *err, size_t errlen);

/* Print the disassembly of @n bytes of code that runs at @addr. */
void jit_dump(const uint8_t *code, size_t n, uint64_t addr);

/* The benchmark of `jit-demo --bench`; returns an exit status. */
int jit_bench(void);

#endif
