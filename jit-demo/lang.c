// SPDX-License-Identifier: GPL-2.0
/*
 * lang.c - lexer and recursive-descent parser of the toy language.
 *
 *   program := stmt*
 *   stmt    := "if" "(" expr ")" block ["else" (block | ifstmt)]
 *            | "while" "(" expr ")" block | "return" expr ";"
 *            | NAME "=" expr ";" | expr ";"
 *             (the ";" of the input's last statement may be left out)
 *   block   := "{" stmt* "}"
 *   expr    := and ("||" and)*        and := cmp ("&&" cmp)*
 *   cmp     := add [("<"|"<="|">"|">="|"=="|"!=") add]
 *   add     := mul (("+"|"-") mul)*   mul := unary (("*"|"/"|"%") unary)*
 *   unary   := ("-"|"!") unary | NUMBER | NAME | "(" expr ")"
 *
 * "#" starts a comment.  Errors stop at the first one, with its position.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"

struct parser {
	const char *src, *p;	/* whole input, current position */
	const char *tok;	/* start of the current token */
	struct program *prog;
	int nest;
	char *err;
	size_t errlen;
	jmp_buf fail;
};

static void __attribute__((noreturn, format(printf, 2, 3))) perr(struct parser *ps, const char *fmt, ...)
{
	int line = 1, col = 1;
	size_t n;
	va_list ap;

	for (const char *q = ps->src; q < ps->tok; q++) {
		col = *q == '\n' ? 1 : col + 1;
		line += *q == '\n';
	}
	n = (size_t)snprintf(ps->err, ps->errlen, "line %d:%d: ", line, col);
	va_start(ap, fmt);
	if (n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	longjmp(ps->fail, 1);
}

static void skip_space(struct parser *ps)
{
	for (;;) {
		while (isspace((unsigned char)*ps->p))
			ps->p++;
		if (*ps->p != '#')
			break;
		while (*ps->p && *ps->p != '\n')
			ps->p++;
	}
	ps->tok = ps->p;
}

/* Consume @s if the input continues with it (a word must end there). */
static int accept(struct parser *ps, const char *s)
{
	size_t n = strlen(s);

	skip_space(ps);
	if (strncmp(ps->p, s, n))
		return 0;
	if (isalpha((unsigned char)s[0]) && (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_'))
		return 0;
	/* "<" must not take the first half of "<=", "=" not that of "==" */
	if (n == 1 && strchr("<>=!", s[0]) && ps->p[1] == '=')
		return 0;
	ps->p += n;
	return 1;
}

static const char *describe(struct parser *ps)
{
	static __thread char buf[24];
	size_t n = 0;

	skip_space(ps);
	if (!*ps->p)
		return "end of input";
	while (n < 12 && ps->p[n] && !isspace((unsigned char)ps->p[n]))
		n++;
	snprintf(buf, sizeof(buf), "'%.*s'", (int)n, ps->p);
	return buf;
}

static void expect(struct parser *ps, const char *s)
{
	if (!accept(ps, s))
		perr(ps, "syntax error: expected '%s', found %s", s, describe(ps));
}

/* ";" ends a statement; the last one of the input may omit it. */
static void end_stmt(struct parser *ps)
{
	skip_space(ps);
	if (*ps->p)
		expect(ps, ";");
}

static struct node *node(struct parser *ps, enum node_kind kind, struct node *a, struct node *b)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		perr(ps, "out of memory");
	n->kind = kind;
	n->a = a;
	n->b = b;
	n->alloc = ps->prog->nodes;
	ps->prog->nodes = n;
	n->depth = 1 + (a ? a->depth : 0);
	if (b && 1 + b->depth > n->depth)
		n->depth = 1 + b->depth;
	if (n->depth > LANG_MAX_DEPTH)
		perr(ps, "expression nesting too deep (more than %d levels)", LANG_MAX_DEPTH);
	return n;
}

static void nest_in(struct parser *ps)
{
	if (++ps->nest > LANG_MAX_NEST)
		perr(ps, "nesting too deep (more than %d levels of parentheses, operators or blocks)", LANG_MAX_NEST);
}

static int is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = { "if", "else", "while", "return" };

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i]) == n && !strncmp(kw[i], s, n))
			return 1;
	return 0;
}

/* The variable named at the current position, created on first use. */
static int name(struct parser *ps)
{
	struct program *pr = ps->prog;
	size_t n = 0;

	while (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_')
		n++;
	if (is_keyword(ps->p, n))
		perr(ps, "syntax error: '%.*s' is a keyword, not a variable", (int)n, ps->p);
	if (n > LANG_MAX_NAME)
		perr(ps, "variable name longer than %d characters", LANG_MAX_NAME);
	for (int i = 0; i < pr->nvars; i++)
		if (strlen(pr->names[i]) == n && !strncmp(pr->names[i], ps->p, n)) {
			ps->p += n;
			return i;
		}
	if (pr->nvars == LANG_MAX_VARS)
		perr(ps, "too many variables (at most %d)", LANG_MAX_VARS);
	memcpy(pr->names[pr->nvars], ps->p, n);
	pr->names[pr->nvars][n] = 0;
	ps->p += n;
	return pr->nvars++;
}

static struct node *expr(struct parser *ps);

static struct node *unary(struct parser *ps)
{
	struct node *n;

	nest_in(ps);
	if (accept(ps, "-")) {
		n = node(ps, N_NEG, unary(ps), NULL);
	} else if (accept(ps, "!")) {
		n = node(ps, N_NOT, unary(ps), NULL);
	} else if (accept(ps, "(")) {
		n = expr(ps);
		expect(ps, ")");
	} else if (isdigit((unsigned char)*ps->p)) {
		uint64_t v = 0, base = 10, d;

		if (ps->p[0] == '0' && (ps->p[1] == 'x' || ps->p[1] == 'X') && isxdigit((unsigned char)ps->p[2])) {
			base = 16;
			ps->p += 2;
		}
		for (; isxdigit((unsigned char)*ps->p); ps->p++) {
			d = isdigit((unsigned char)*ps->p) ? (uint64_t)(*ps->p - '0') : (uint64_t)(tolower(*ps->p) - 'a' + 10);
			if (d >= base)
				break;
			if (v > ((uint64_t)INT64_MAX - d) / base)
				perr(ps, "number too large (the largest is %lld)", (long long)INT64_MAX);
			v = v * base + d;
		}
		if (isalnum((unsigned char)*ps->p) || *ps->p == '_')
			perr(ps, "syntax error: bad number %s", describe(ps));
		n = node(ps, N_NUM, NULL, NULL);
		n->num = (int64_t)v;
	} else if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		n = node(ps, N_VAR, NULL, NULL);
		n->var = name(ps);
	} else {
		perr(ps, "syntax error: expected an expression, found %s", describe(ps));
	}
	ps->nest--;
	return n;
}

static struct node *bin(struct parser *ps, enum binop op, struct node *a, struct node *b)
{
	struct node *n = node(ps, N_BIN, a, b);

	n->op = op;
	return n;
}

static struct node *mul(struct parser *ps)
{
	struct node *n = unary(ps);

	for (;;) {
		if (accept(ps, "*"))
			n = bin(ps, OP_MUL, n, unary(ps));
		else if (accept(ps, "/"))
			n = bin(ps, OP_DIV, n, unary(ps));
		else if (accept(ps, "%"))
			n = bin(ps, OP_MOD, n, unary(ps));
		else
			return n;
	}
}

static struct node *add(struct parser *ps)
{
	struct node *n = mul(ps);

	for (;;) {
		if (accept(ps, "+"))
			n = bin(ps, OP_ADD, n, mul(ps));
		else if (accept(ps, "-"))
			n = bin(ps, OP_SUB, n, mul(ps));
		else
			return n;
	}
}

static struct node *cmp(struct parser *ps)
{
	static const struct { const char *s; enum binop op; } ops[] = {
		{ "<=", OP_LE }, { ">=", OP_GE }, { "==", OP_EQ }, { "!=", OP_NE }, { "<", OP_LT }, { ">", OP_GT },
	};
	struct node *n = add(ps);

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (accept(ps, ops[i].s))
			return bin(ps, ops[i].op, n, add(ps));
	return n;
}

static struct node *and(struct parser *ps)
{
	struct node *n = cmp(ps);

	while (accept(ps, "&&"))
		n = bin(ps, OP_AND, n, cmp(ps));
	return n;
}

static struct node *expr(struct parser *ps)
{
	struct node *n = and(ps);

	while (accept(ps, "||"))
		n = bin(ps, OP_OR, n, and(ps));
	return n;
}

static struct node *block(struct parser *ps);

static struct node *stmt(struct parser *ps)
{
	struct node *n;
	const char *save;

	if (accept(ps, "if")) {
		expect(ps, "(");
		n = node(ps, N_IF, expr(ps), NULL);
		expect(ps, ")");
		n->b = block(ps);
		if (accept(ps, "else")) {
			if (accept(ps, "if")) {
				ps->p -= 2;	/* let stmt() see the "if" again */
				nest_in(ps);
				n->c = stmt(ps);
				ps->nest--;
			} else {
				n->c = block(ps);
			}
		}
		return n;
	}
	if (accept(ps, "while")) {
		expect(ps, "(");
		n = node(ps, N_WHILE, expr(ps), NULL);
		expect(ps, ")");
		n->b = block(ps);
		return n;
	}
	if (accept(ps, "return")) {
		n = node(ps, N_RETURN, expr(ps), NULL);
		end_stmt(ps);
		return n;
	}
	skip_space(ps);
	save = ps->p;
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		size_t len = 0;

		while (isalnum((unsigned char)ps->p[len]) || ps->p[len] == '_')
			len++;
		ps->p += len;
		if (!is_keyword(save, len) && accept(ps, "=")) {
			int v;

			ps->p = save;
			v = name(ps);
			expect(ps, "=");
			n = node(ps, N_ASSIGN, expr(ps), NULL);
			n->var = v;
			end_stmt(ps);
			return n;
		}
		ps->p = save;
	}
	n = node(ps, N_EXPR, expr(ps), NULL);
	end_stmt(ps);
	return n;
}

/* Statements up to "}" or the end of input, chained by next. */
static struct node *stmts(struct parser *ps, int in_block)
{
	struct node *first = NULL, **link = &first;

	for (;;) {
		skip_space(ps);
		if (!*ps->p) {
			if (in_block)
				perr(ps, "syntax error: expected '}', found end of input");
			return first;
		}
		if (in_block && *ps->p == '}')
			return first;
		*link = stmt(ps);
		link = &(*link)->next;
	}
}

static struct node *block(struct parser *ps)
{
	struct node *n;

	nest_in(ps);
	expect(ps, "{");
	n = stmts(ps, 1);
	expect(ps, "}");
	ps->nest--;
	return n;
}

int lang_parse(const char *src, struct program *p, char *err, size_t errlen)
{
	struct parser ps = { .src = src, .p = src, .tok = src, .prog = p, .err = err, .errlen = errlen };

	memset(p, 0, sizeof(*p));
	if (setjmp(ps.fail)) {
		lang_free(p);
		return -1;
	}
	p->body = stmts(&ps, 0);
	return 0;
}

void lang_free(struct program *p)
{
	struct node *n = p->nodes, *next;

	for (; n; n = next) {
		next = n->alloc;
		free(n);
	}
	memset(p, 0, sizeof(*p));
}
