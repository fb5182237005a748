// SPDX-License-Identifier: GPL-2.0
/*
 * jit-demo - compile a toy-language program to x86-64 in execute-only,
 * pkey-protected code memory, run it, print its value.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit.h"

#define MAX_SOURCE	(16u << 20)
#define DEFAULT_CODE	(64u << 10)

#ifndef XONLY_VERSION
#define XONLY_VERSION "unknown"	/* the Makefile sets it from packaging/debian/changelog */
#endif

static const char usage[] =
"usage: jit-demo [OPTIONS] FILE\n"
"       jit-demo [OPTIONS] -e PROGRAM\n"
"       jit-demo --bench\n"
"\n"
"Compile a program of a small integer language to x86-64, write it into\n"
"code memory that is execute-only for every thread (pages tagged with a\n"
"protection key of their own, data access denied by PKRU outside a\n"
"one-thread write window), verify it with capstone before the window\n"
"closes, run it and print its value.\n"
"\n"
"The language: 64-bit integer variables (created as 0 on first use),\n"
"  NAME = EXPR;   if (EXPR) { ... } else { ... }   while (EXPR) { ... }\n"
"  return EXPR;   EXPR;   with + - * / % < <= > >= == != && || ! and unary -.\n"
"The value is that of the last expression statement run (or of return),\n"
"0 if none; the last statement may omit its ';'.  Arithmetic wraps; x/0\n"
"and x%0 are 0; '#' starts a comment.  Example:\n"
"  jit-demo -e 'n = 10; s = 0; while (n) { s = s + n * n; n = n - 1; } s'\n"
"\n"
"options:\n"
"  -e, --eval PROGRAM   the program text itself instead of FILE ('-' is stdin)\n"
"  -d, --dump           print the generated code, disassembled with capstone\n"
"                       (read through a read window: the code is execute-only)\n"
"  -s, --strategy S     how code memory becomes writable for the emitter:\n"
"                         pkey          dedicated pkey, WRPKRU window (default)\n"
"                         pkey-syscall  the same window through pkey_set(2)\n"
"                         mprotect      flip the pages RX -> RW -> RX\n"
"                         dualmap       one memfd mapped RW and RX\n"
"  -i, --interp         run the reference interpreter instead of the JIT\n"
"  -c, --check          run both; fail if their values or variables differ\n"
"      --code-size N    bytes of code memory (default 65536)\n"
"  -t, --time-limit S   stop a program that runs longer than S seconds\n"
"                       (1 to 86400; the language has unbounded while loops)\n"
"  -p, --peek           after running, read the first code byte as data: with\n"
"                       pkey strategies this faults (SEGV_PKUERR), reported\n"
"  -b, --bench          emissions per second of each strategy, side by side\n"
"  -h, --help           this text\n"
"      --version        print jit-demo's version and exit\n"
"\n"
"Exit status: 0 success; 1 a bad program (syntax error, nesting too deep,\n"
"code buffer exhausted), the time limit, a failed --check or a system\n"
"error; 2 bad usage.\n"
"See jit-demo/README.md for the memory pattern and its threat model.\n";

static void __attribute__((noreturn)) usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "jit-demo: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'jit-demo --help'.\n");
	exit(2);
}

static char *read_source(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t n = 0, cap = 4096;
	char *s = malloc(cap + 1);

	if (!f || !s) {
		fprintf(stderr, "jit-demo: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (size_t r; (r = fread(s + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap) {
			if (cap >= MAX_SOURCE) {
				fprintf(stderr, "jit-demo: %s: larger than %u bytes\n", path, MAX_SOURCE);
				exit(1);
			}
			cap *= 2;
			s = realloc(s, cap + 1);
			if (!s) {
				fprintf(stderr, "jit-demo: out of memory\n");
				exit(1);
			}
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "jit-demo: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (f != stdin)
		fclose(f);
	s[n] = 0;
	if (strlen(s) != n) {
		fprintf(stderr, "jit-demo: %s: contains a NUL byte\n", path);
		exit(1);
	}
	return s;
}

static char alarm_msg[80];

/*
 * SIGALRM of --time-limit: the program is stuck in JIT code or in the
 * interpreter, so there is nothing to unwind; write(2) and _exit(2) are
 * what a handler may call.  It runs with the kernel's default PKRU, which
 * is fine: it touches no code memory.
 */
static void on_alarm(int sig)
{
	(void)sig;
	(void)!write(STDERR_FILENO, alarm_msg, strlen(alarm_msg));
	_exit(1);
}

static void time_limit(unsigned int seconds)
{
	if (!seconds)
		return;
	snprintf(alarm_msg, sizeof(alarm_msg), "jit-demo: time limit exceeded: the program ran for %u s\n", seconds);
	signal(SIGALRM, on_alarm);
	alarm(seconds);
}

static sigjmp_buf peek_jump;
static volatile siginfo_t peek_info;

static void peek_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	peek_info = *si;
	siglongjmp(peek_jump, 1);
}

/* Read the first byte of the code as data, like a disclosure bug would. */
static void peek(const struct codemem *cm, const void *code)
{
	struct sigaction sa = { .sa_sigaction = peek_fault, .sa_flags = SA_SIGINFO };
	volatile unsigned char b;

	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(peek_jump, 1) == 0) {
		b = *(const volatile unsigned char *)code;
		printf("peek: read %p -> 0x%02x: the code is readable (strategy %s)\n", code, b,
		       cm_pkey(cm) < 0 ? "without a pkey" : "pkey, but the window was open?!");
	} else {
		printf("peek: read %p -> SIGSEGV %s, si_pkey %d (the JIT's key is %d): the code is execute-only\n",
		       peek_info.si_addr, peek_info.si_code == SEGV_PKUERR ? "SEGV_PKUERR" : "(not PKUERR)",
		       peek_info.si_code == SEGV_PKUERR ? (int)peek_info.si_pkey : -1, cm_pkey(cm));
	}
	signal(SIGSEGV, SIG_DFL);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "eval", required_argument, NULL, 'e' },
		{ "dump", no_argument, NULL, 'd' },
		{ "strategy", required_argument, NULL, 's' },
		{ "interp", no_argument, NULL, 'i' },
		{ "check", no_argument, NULL, 'c' },
		{ "code-size", required_argument, NULL, 'C' },
		{ "peek", no_argument, NULL, 'p' },
		{ "bench", no_argument, NULL, 'b' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int opt, strategy = CM_PKEY, dump = 0, interp = 0, check = 0, do_peek = 0, bench = 0, status = 0;
	const char *text = NULL;
	char *src, *end, err[256];
	unsigned long long code_size = DEFAULT_CODE, limit = 0;
	int64_t vars[LANG_MAX_VARS] = { 0 }, ivars[LANG_MAX_VARS] = { 0 }, result, iresult;
	struct program p;
	struct codemem *cm;
	struct jit_code jc;

	while ((opt = getopt_long(argc, argv, "e:ds:icpbht:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e': text = optarg; break;
		case 'd': dump = 1; break;
		case 'i': interp = 1; break;
		case 'c': check = 1; break;
		case 'p': do_peek = 1; break;
		case 'b': bench = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("jit-demo (xonly) %s\n", XONLY_VERSION); return 0;
		case 's':
			strategy = cm_strategy_parse(optarg);
			if (strategy < 0)
				usage_error("unknown strategy '%s' (pkey, pkey-syscall, mprotect, dualmap)", optarg);
			break;
		case 't':
			errno = 0;
			limit = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || limit == 0 || limit > 86400)
				usage_error("--time-limit wants a number of seconds from 1 to 86400, not '%s'", optarg);
			break;
		case 'C':
			errno = 0;
			code_size = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-' || code_size == 0 || code_size > (1ull << 30))
				usage_error("--code-size wants a number of bytes from 1 to 1 GiB, not '%s'", optarg);
			break;
		default:
			fprintf(stderr, "Try 'jit-demo --help'.\n");
			return 2;
		}
	}
	if (bench) {
		if (text || optind < argc)
			usage_error("%s", "--bench takes no program");
		return jit_bench();
	}
	if (text && optind < argc)
		usage_error("both -e and a FILE ('%s') given", argv[optind]);
	if (!text && optind != argc - 1)
		usage_error("%s", optind < argc ? "more than one FILE given" : "no program: give FILE or -e PROGRAM");
	if (interp && (check || dump || do_peek))
		usage_error("%s", "--interp runs no JIT: --check, --dump and --peek need it");

	src = text ? strdup(text) : read_source(argv[optind]);
	if (!src || lang_parse(src, &p, err, sizeof(err))) {
		fprintf(stderr, "jit-demo: %s: %s\n", text ? "-e" : argv[optind], src ? err : "out of memory");
		return 1;
	}
	if (interp) {
		time_limit((unsigned int)limit);
		printf("%lld\n", (long long)interp_run(&p, vars));
		return 0;
	}
	cm = cm_create(strategy, code_size, err, sizeof(err));
	if (!cm) {
		/* Without PKU: say what to do instead. */
		fprintf(stderr, "jit-demo: %s%s\n", err, errno == EOPNOTSUPP ?
			": run with -s mprotect (or -s dualmap), which need no protection keys" : "");
		return 1;
	}
	if (jit_compile(cm, &p, &jc, err, sizeof(err))) {
		fprintf(stderr, "jit-demo: %s: %s\n", text ? "-e" : argv[optind], err);
		return 1;
	}
	if (dump) {
		uint8_t *copy = malloc(jc.size);

		if (!copy || cm_read(cm, jc.code, jc.size, copy)) {
			fprintf(stderr, "jit-demo: cannot read the code back: %s\n", strerror(errno));
			return 1;
		}
		printf("%zu bytes of code at %p (strategy %s, pkey %d), read through a read window:\n", jc.size,
		       jc.code, cm_strategy_name(strategy), cm_pkey(cm));
		jit_dump(copy, jc.size, (uint64_t)(uintptr_t)jc.code);
		free(copy);
	}
	time_limit((unsigned int)limit);
	result = jc.fn(vars);
	printf("%lld\n", (long long)result);
	if (check) {
		iresult = interp_run(&p, ivars);
		if (iresult != result || memcmp(vars, ivars, sizeof(vars))) {
			fprintf(stderr, "jit-demo: --check: the JIT gives %lld, the interpreter %lld%s\n",
				(long long)result, (long long)iresult,
				iresult == result ? " (but the variables differ)" : "");
			status = 1;
		}
	}
	if (do_peek)
		peek(cm, jc.code);
	cm_destroy(cm);
	lang_free(&p);
	free(src);
	return status;
}
