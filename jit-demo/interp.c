// SPDX-License-Identifier: GPL-2.0
/*
 * interp.c - the reference interpreter: a plain tree walker, written for
 * obviousness, against which the JIT is tested.
 */
#include <stdbool.h>

#include "lang.h"

int64_t lang_binop(enum binop op, int64_t x, int64_t y)
{
	uint64_t ux = (uint64_t)x, uy = (uint64_t)y;

	switch (op) {
	case OP_ADD: return (int64_t)(ux + uy);
	case OP_SUB: return (int64_t)(ux - uy);
	case OP_MUL: return (int64_t)(ux * uy);
	case OP_DIV: return y == 0 ? 0 : y == -1 ? (int64_t)(0 - ux) : x / y;
	case OP_MOD: return y == 0 || y == -1 ? 0 : x % y;
	case OP_LT: return x < y;
	case OP_LE: return x <= y;
	case OP_GT: return x > y;
	case OP_GE: return x >= y;
	case OP_EQ: return x == y;
	case OP_NE: return x != y;
	case OP_AND: return x && y;
	case OP_OR: return x || y;
	}
	return 0;
}

static int64_t eval(const struct node *n, const int64_t *vars)
{
	switch (n->kind) {
	case N_NUM: return n->num;
	case N_VAR: return vars[n->var];
	case N_NEG: return (int64_t)(0 - (uint64_t)eval(n->a, vars));
	case N_NOT: return !eval(n->a, vars);
	case N_BIN: return lang_binop(n->op, eval(n->a, vars), eval(n->b, vars));
	default: return 0;
	}
}

/* Run a statement list; true once a return statement ran. */
static bool exec(const struct node *s, int64_t *vars, int64_t *result)
{
	for (; s; s = s->next) {
		switch (s->kind) {
		case N_ASSIGN:
			vars[s->var] = eval(s->a, vars);
			break;
		case N_EXPR:
			*result = eval(s->a, vars);
			break;
		case N_RETURN:
			*result = eval(s->a, vars);
			return true;
		case N_IF:
			if (exec(eval(s->a, vars) ? s->b : s->c, vars, result))
				return true;
			break;
		case N_WHILE:
			while (eval(s->a, vars))
				if (exec(s->b, vars, result))
					return true;
			break;
		default:
			break;
		}
	}
	return false;
}

int64_t interp_run(const struct program *p, int64_t *vars)
{
	int64_t result = 0;

	exec(p->body, vars, &result);
	return result;
}
