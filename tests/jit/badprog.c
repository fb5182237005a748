// SPDX-License-Identifier: GPL-2.0
/*
 * badprog - the jit-demo command: good programs print their value with
 * every strategy; bad programs and bad usage get one clear error line and
 * a non-zero exit, never a crash.
 *
 * Proves, running /xonly/bin/jit-demo:
 *  - a program prints its value with pkey, pkey-syscall, mprotect and
 *    dualmap, from -e and from a FILE, and --check agrees;
 *  - INT64_MIN / -1 and x / 0 give defined values, not SIGFPE;
 *  - syntax errors, an unclosed block, too deep nesting (parentheses,
 *    blocks, a 5,000-term chain), a too large number, too many variables
 *    and a program larger than --code-size exit 1 with one line naming
 *    the problem; a missing file exits 1; while (1) {} with --time-limit 1
 *    exits 1 with "time limit exceeded", JIT-compiled and interpreted;
 *  - bad usage exits 2 with the error and a pointer to --help; --help
 *    exits 0 with the usage text;
 *  - --peek reports SEGV_PKUERR for a read of the code, --dump shows it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stock.h"
#include "tap.h"

#define JIT	"/xonly/bin/jit-demo"

struct run {
	int status;		/* exit status, or -signal */
	char out[8192], err[4096];
};

static void slurp(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = 0;
}

/* Run jit-demo with @argv (NULL-terminated, without argv[0]). */
static void run(struct run *r, const char *const *args)
{
	const char *argv[16] = { JIT };
	int o[2], e[2], st;
	pid_t pid;

	for (int i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	if (pipe(o) || pipe(e))
		tap_bail("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		execv(JIT, (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	/* stderr is short; drain stdout first, then stderr */
	slurp(o[0], r->out, sizeof(r->out));
	slurp(e[0], r->err, sizeof(r->err));
	close(o[0]);
	close(e[0]);
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

/* @s with newlines shown as '|', for one TAP line (one static buffer per slot). */
static const char *flat(const char *s, int slot)
{
	static char buf[2][256];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf[0]) - 1; i++)
		buf[slot][i] = s[i] == '\n' ? '|' : s[i];
	buf[slot][i] = 0;
	return buf[slot];
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#define RUN(r, ...) run(r, (const char *const[]){ __VA_ARGS__, NULL })

static void expect_fail(const char *what, int status, const char *needle, const char *const *args)
{
	static struct run r;

	int nl;
	char *first;

	run(&r, args);
	nl = lines(r.err);
	first = strtok(r.err, "\n");
	/* usage errors add a second line pointing at --help */
	tap_ok(r.status == status && nl == (status == 2 ? 2 : 1) && first && strstr(first, needle) && !r.out[0],
	       "%s -> exit %d, error line with '%s' (exit %d, %d lines: %s)", what, status, needle, r.status, nl,
	       first ? first : "");
}

static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
	size_t len = strlen(head) + strlen(unit) * (size_t)n + strlen(tail) + 1;
	char *s = malloc(len), *p;

	if (!s)
		tap_bail("out of memory");
	p = stpcpy(s, head);
	for (int i = 0; i < n; i++)
		p = stpcpy(p, unit);
	strcpy(p, tail);
	return s;
}

static void test_good(void)
{
	static const char *const strategies[] = { "pkey", "pkey-syscall", "mprotect", "dualmap" };
	static const char prog[] = "n = 10; s = 0; while (n) { s = s + n * n; n = n - 1; } s";
	static struct run r;
	FILE *f;

	for (int i = 0; i < 4; i++) {
		if (!strcmp(strategies[i], "pkey-syscall") && stock_kernel()) {
			tap_skip(STOCK_SKIP, "%s: -e program prints 385", strategies[i]);
			continue;
		}
		RUN(&r, "--check", "--strategy", strategies[i], "-e", prog);
		tap_ok(r.status == 0 && !strcmp(r.out, "385\n"), "%s: -e program prints 385, --check agrees (exit %d, out '%s', err '%s')",
		       strategies[i], r.status, flat(r.out, 0), flat(r.err, 1));
	}
	f = fopen("/tmp/prog.j", "w");
	if (!f)
		tap_bail("fopen /tmp/prog.j");
	fprintf(f, "# sum of squares\n%s\n", prog);
	fclose(f);
	RUN(&r, "/tmp/prog.j");
	tap_ok(r.status == 0 && !strcmp(r.out, "385\n"), "a FILE program prints 385 (exit %d, err '%s')", r.status, flat(r.err, 1));
	RUN(&r, "-e", "x = -9223372036854775807 - 1; (x / -1 == x) + (7 / 0 == 0) * 10 + (7 % 0 == 0) * 100 + (x % -1 == 0) * 1000");
	tap_ok(r.status == 0 && !strcmp(r.out, "1111\n"), "INT64_MIN / -1 wraps, x / 0 = x %% 0 = x %% -1 = 0: no SIGFPE (exit %d, out '%s')",
	       r.status, flat(r.out, 0));
	RUN(&r, "--interp", "-e", "3 * (4 + 5)");
	tap_ok(r.status == 0 && !strcmp(r.out, "27\n"), "--interp prints 27 (exit %d)", r.status);
}

static void test_bad(void)
{
	char *parens = repeat("", "(", 200, "1");
	char *blocks = repeat("", "if (1) { ", 150, "");
	char *chain = repeat("1", " + 1", 5000, "");
	char *many = malloc(65 * 12 + 1), *big = repeat("", "x = x + 1; ", 3000, "");

	many[0] = 0;
	for (int i = 0; i < 65; i++)
		sprintf(many + strlen(many), "v%d = 1; ", i);

	expect_fail("syntax error", 1, "line 1:8: syntax error", (const char *const[]){ "-e", "x = 1 +;", NULL });
	expect_fail("a keyword as a variable", 1, "syntax error", (const char *const[]){ "-e", "while = 3", NULL });
	expect_fail("unclosed block", 1, "expected '}'", (const char *const[]){ "-e", "while (1) { x = 1;", NULL });
	expect_fail("200 nested parentheses", 1, "nesting too deep", (const char *const[]){ "-e", parens, NULL });
	expect_fail("150 nested if blocks", 1, "nesting too deep", (const char *const[]){ "-e", blocks, NULL });
	expect_fail("a 5,000-term sum", 1, "expression nesting too deep", (const char *const[]){ "-e", chain, NULL });
	expect_fail("a number above INT64_MAX", 1, "number too large", (const char *const[]){ "-e", "9223372036854775808", NULL });
	expect_fail("65 variables", 1, "too many variables", (const char *const[]){ "-e", many, NULL });
	expect_fail("3,000 statements in 4 KiB of code memory", 1, "code buffer exhausted",
		    (const char *const[]){ "--code-size", "4096", "-e", big, NULL });
	expect_fail("a missing FILE", 1, "No such file", (const char *const[]){ "/nonexistent.j", NULL });
	expect_fail("an unknown strategy", 2, "unknown strategy", (const char *const[]){ "--strategy", "rwx", "-e", "1", NULL });
	expect_fail("no program", 2, "no program", (const char *const[]){ "--dump", NULL });
	expect_fail("while (1) {} with --time-limit 1", 1, "time limit exceeded",
		    (const char *const[]){ "--time-limit", "1", "-e", "while (1) {}", NULL });
	expect_fail("while (1) {} interpreted, --time-limit 1", 1, "time limit exceeded",
		    (const char *const[]){ "-i", "--time-limit", "1", "-e", "while (1) {}", NULL });
	expect_fail("a bad --time-limit", 2, "--time-limit", (const char *const[]){ "--time-limit", "0", "-e", "1", NULL });
	expect_fail("a bad --code-size", 2, "--code-size", (const char *const[]){ "--code-size", "12k", "-e", "1", NULL });
	free(parens);
	free(blocks);
	free(chain);
	free(many);
	free(big);
}

static void test_misc(void)
{
	static struct run r;

	RUN(&r, "--help");
	tap_ok(r.status == 0 && strstr(r.out, "usage: jit-demo") && strstr(r.out, "--strategy"), "--help exits 0 with the usage text");
	RUN(&r, "--bogus");
	tap_ok(r.status == 2 && strstr(r.err, "--help"), "an unknown option exits 2 and points at --help (exit %d)", r.status);
	RUN(&r, "--peek", "-e", "1 + 2");
	tap_ok(r.status == 0 && strstr(r.out, "3\n") && strstr(r.out, "SEGV_PKUERR") && strstr(r.out, "execute-only"),
	       "--peek: reading the code faults SEGV_PKUERR (exit %d: %s)", r.status, flat(r.out, 0));
	RUN(&r, "--dump", "-e", "x = 2; x * 21");
	tap_ok(r.status == 0 && strstr(r.out, "push\trbx") == NULL && strstr(r.out, "push rbx") && strstr(r.out, "imul") &&
	       strstr(r.out, "ret") && strstr(r.out, "42\n"),
	       "--dump disassembles the code through a read window and runs it (exit %d)", r.status);
}

int main(void)
{
	tap_init("jit-demo command");
	if (access(JIT, X_OK))
		tap_bail("%s is missing", JIT);
	test_good();
	test_bad();
	test_misc();
	return tap_done();
}
