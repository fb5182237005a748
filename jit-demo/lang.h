/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lang.h - the toy language jit-demo compiles: 64-bit integer variables,
 * expressions, assignment, if/else, while, return.
 *
 *   n = 10; s = 0;
 *   while (n > 0) { s = s + n * n; n = n - 1; }
 *   s                      # the program's value
 *
 * A program's value is that of its last expression statement executed (or
 * of "return e;"), 0 if none.  Arithmetic wraps (two's complement); x / 0
 * and x % 0 are 0, x / -1 is -x and x % -1 is 0, so that no program traps.
 * Comparisons, !, && and || give 0 or 1; && and || evaluate both sides
 * (expressions have no side effects, so nobody can tell).
 */
#ifndef JIT_LANG_H
#define JIT_LANG_H

#include <stddef.h>
#include <stdint.h>

#define LANG_MAX_VARS	64	/* variables live in an int64_t[LANG_MAX_VARS] */
#define LANG_MAX_NEST	100	/* parentheses, unary operators, blocks */
#define LANG_MAX_DEPTH	4000	/* tree depth (long operator chains): bounds C recursion */
#define LANG_MAX_NAME	31

enum node_kind {
	N_NUM, N_VAR, N_NEG, N_NOT, N_BIN,	/* expressions */
	N_ASSIGN, N_EXPR, N_IF, N_WHILE, N_RETURN	/* statements, chained by next */
};

enum binop {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR
};

struct node {
	enum node_kind kind;
	enum binop op;		/* N_BIN */
	int64_t num;		/* N_NUM */
	int var;		/* N_VAR, N_ASSIGN: index into the variables */
	struct node *a, *b, *c;	/* operands; cond/then/else; cond/body */
	struct node *next;	/* next statement */
	struct node *alloc;	/* every node of a program, for lang_free() */
	int depth;		/* height of this subtree */
};

struct program {
	struct node *body;	/* first statement, NULL for an empty program */
	int nvars;
	char names[LANG_MAX_VARS][LANG_MAX_NAME + 1];
	struct node *nodes;
};

/* Parse @src; on error returns -1 with "line L:C: what" in @err. */
int lang_parse(const char *src, struct program *p, char *err, size_t errlen);
void lang_free(struct program *p);
/* The reference interpreter; @vars holds LANG_MAX_VARS values (in/out). */
int64_t interp_run(const struct program *p, int64_t *vars);
/* The operator semantics both the interpreter and the emitter follow. */
int64_t lang_binop(enum binop op, int64_t x, int64_t y);

#endif
