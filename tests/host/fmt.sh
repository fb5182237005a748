#!/usr/bin/env bash
# fmt.sh - the freestanding run path's rt_fmt() and rt_strerror()
# (xoloader/run/fmt.c) say what snprintf(3) and strerror(3) say, so that
# xoload's messages read as they did with a libc: every errno 1..140
# against this libc's strerror, and each format the run path uses (every
# rt_fmt/dief/fail format string under xoloader/run/ has only these
# conversions: checked here too, an unsupported one would shift the
# arguments after it); rt_cat() and rt_dec(), which join strings and print
# numbers where a run succeeds, as snprintf("%s%s...") and "%llu" would.
# Runs on the host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init fmt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "fmt.h"
int main(void)
{
	char a[64], b[64];
	int bad = 0, e;

	for (e = 1; e <= 140; e++)
		if (strcmp(rt_strerror(e), strerror(e))) {
			printf("errno %d: '%s', strerror '%s'\n", e, rt_strerror(e), strerror(e));
			bad = 1;
		}
	printf("strerror %s\n", bad ? "differs" : "same");
#define SAME(...) do { int x = rt_fmt(a, sizeof(a), __VA_ARGS__), y = snprintf(b, sizeof(b), __VA_ARGS__); \
	if (x != y || strcmp(a, b)) { printf("'%s' (%d), snprintf '%s' (%d)\n", a, x, b, y); bad = 2; } } while (0)
	SAME("%s: %d %u %llu 0x%llx %.*s%%", "p", -42, 7u, 18446744073709551615ull, 0xdeadbeefull, 3, "abcdef");
	SAME("%s", "a string longer than the sixty-four bytes of the buffers here, truncated");
	SAME("%d %lu %lx", -2147483647 - 1, 0ul, 255ul);
	printf("fmt %s\n", bad == 2 ? "differs" : "same");
#define CAT(len, ...) do { int x = rt_cat(a, len, __VA_ARGS__, NULL), y = snprintf(b, len, "%s%s%s", __VA_ARGS__); \
	if (x != y || strcmp(a, b)) { printf("cat '%s' (%d), snprintf '%s' (%d)\n", a, x, b, y); bad = 3; } } while (0)
	CAT(sizeof(a), "LD_AUDIT=", "/xonly/lib/xoaudit.so", "");
	CAT(sizeof(a), "", "", "");
	CAT(20, "a string longer than ", "twenty bytes", ", cut");
	CAT(1, "x", "y", "z");
	if (rt_cat(a, 0, "abc", NULL) != 3)
		bad = 3;
	{
		static const unsigned long long v[] = { 0, 7, 10, 4294967295ull, 18446744073709551615ull };
		char d[24];
		unsigned int i;

		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			snprintf(b, sizeof(b), "%llu", v[i]);
			if (strcmp(rt_dec(d + sizeof(d) - 1, v[i]), b)) {
				printf("dec '%s', snprintf '%s'\n", rt_dec(d + sizeof(d) - 1, v[i]), b);
				bad = 3;
			}
		}
	}
	printf("cat %s\n", bad == 3 ? "differs" : "same");
	return 0;
}
C
if ! out=$(gcc -std=c11 -Wall -Wextra -Werror -Wno-format-truncation -I"$top/xoloader/run" -o "$tmp/t" "$tmp/t.c" \
		"$top/xoloader/run/fmt.c" 2>&1 && "$tmp/t"); then
	tap_bail "the test program builds and runs: $out"
fi
echo "$out" | grep -qx 'strerror same'
ok $? "rt_strerror(1..140) is strerror's text ($(echo "$out" | grep -m1 '^errno' || echo 'all'))"
echo "$out" | grep -qx 'fmt same'
ok $? "rt_fmt: %s %d %u %llu %llx %.*s %% %lu %lx and truncation as snprintf ($(echo "$out" | grep -m1 "^'" || echo 'all'))"
echo "$out" | grep -qx 'cat same'
ok $? "rt_cat and rt_dec: joined, cut and counted as snprintf ($(echo "$out" | grep -m1 "^cat '\|^dec '" || echo 'all'))"
# Every format string of the run path: only the conversions rt_fmt knows.
bad=$(grep -hoE '(rt_fmt|dief|fail)\([^;]*' "$top"/xoloader/run/*.c | grep -oE '%[-+ #0-9.*]*[a-z]+' |
	grep -vxE '%(s|\.\*s|c|d|u|x|lu|lx|ld|llu|llx|lld)' | sort -u | tr '\n' ' ')
[ -z "$bad" ]
ok $? "the run path's format strings use only what rt_fmt supports (${bad:-none else})"
tap_done
