#!/usr/bin/env bash
# survey_code.sh - xosurvey's headline in code bytes (issue 26 step 4):
# the bytes of the executable sections (SHF_EXECINSTR) and, of them, those
# in execute-only pages, beside the segment bytes.  An object of known
# layout: .text of 10240 bytes, page-aligned, holding a function with CFI
# (one page), a table without CFI (one page) and a function with CFI of
# 2048 bytes whose page the segment fills up; so the code bytes are 10240,
# 6144 of them execute-only (60.00%), while the segment bytes are 12288
# and 8192 (66.67%): checked exactly in the JSON, the summary, the table
# and the chart.  Then xosurvey's code bytes agree with xoproven's FDE
# columns, object by object, on some of this machine's libraries (the
# README's figures come from xoproven).  Host only; needs make host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/host/xosurvey xp=$top/build/host/xoproven
. "$top/tests/lib/tap.sh"
tap_init survey-code
[ -x "$sv" ] && [ -x "$xp" ] || tap_bail "build/host/xosurvey and xoproven exist (make host-tools)"
tmp=$(mktemp -d /tmp/xosurvey-code-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/k.s" <<'ASM'
	.section .text.k,"ax",@progbits
	.balign 4096
	.globl f
	.type f,@function
f:	.cfi_startproc
	.fill 4095,1,0x90
	ret
	.cfi_endproc
	.size f,.-f
tab:	.fill 4096,1,0x5a
	.globl g
	.type g,@function
g:	.cfi_startproc
	.fill 2047,1,0x90
	ret
	.cfi_endproc
	.size g,.-g
ASM
gcc -shared -nostdlib -Wl,-z,separate-code -o "$tmp/k.so" "$tmp/k.s" || tap_bail "gcc builds the object"
# The layout the numbers below rest on: .text alone at 0x1000, 0x2800 bytes.
[ "$(readelf -SW "$tmp/k.so" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$0 ~ / AX / { print $1, $3, $5 }')" = ".text 0000000000001000 002800" ]
ok $? "the object's only executable section is .text at 0x1000, 0x2800 bytes"

json=$("$sv" --no-scan --json "$tmp/k.so" 2>&1); st=$?
[ "$st" = 0 ] && [[ $json == *'{"object":"'"$tmp"'/k.so","code":10240,"code_xo":6144,"exec":12288,"xo":8192,'* ]] &&
	[[ $json == *'{"total":true,"objects":1,"code":10240,"code_xo":6144,"exec":12288,"xo":8192,'* ]]
ok $? "--json: code 10240, code_xo 6144 beside exec 12288, xo 8192, per object and in total (status $st: $json)"

human=$("$sv" --no-scan "$tmp/k.so" 2>&1); st=$?
printf '%s\n' "$human" | grep -qxF 'xosurvey: code bytes (executable sections): 10 KiB, 6 KiB of them execute-only: 60.00% (4 KiB readable)' &&
	printf '%s\n' "$human" | grep -qxF 'xosurvey: 1 objects: 12 KiB executable, 8 KiB execute-only (66.67%)' &&
	printf '%s\n' "$human" | grep -q "^ *12 *8  66.67%  60.00% .* $tmp/k.so\$"
ok $(( st | $? )) "summary and table: 60.00% of the code bytes beside 66.67% of the segment bytes (status $st: $human)"

if command -v gnuplot >/dev/null; then
	"$sv" --no-scan --totals --svg "$tmp/k.svg" "$tmp/k.so" >/dev/null 2>&1 &&
		grep -q 'Code bytes (executable sections, 0.0 MiB): 60.00% execute-only' "$tmp/k.svg" &&
		grep -q 'Executable bytes of 1 ELF objects (0.0 MiB): 66.67% execute-only' "$tmp/k.svg"
	ok $? "--svg: the chart's title has the code-byte headline above the segment bytes"
else
	skip "gnuplot is not installed" "--svg: the code-byte headline in the chart"
fi

# xoproven's object lines: FILE pages fde-xo proven-xo CODE FDE-XO-CODE ...
L=/usr/lib/x86_64-linux-gnu
set --
for f in "$tmp/k.so" $L/libc.so.6 $L/libcrypto.so.3 $L/libGL.so.1.7.0 $L/libnettle.so.8.6 $L/libx265.so.199 /usr/bin/ls; do
	[ -f "$f" ] && set -- "$@" "$f"
done
a=$("$sv" --no-scan --json "$@" 2>/dev/null | python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if "code" in r and not r.get("total"): print(r["object"], r["code"], r["code_xo"])' | sort)
b=$("$xp" "$@" 2>/dev/null | awk -F'\t' '$1 == "object" { print $2, $6, $7 }' | sort)
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$(printf '%s\n' "$a" | wc -l)" = $# ]
ok $? "xosurvey's code bytes and xoproven's FDE code bytes agree on $# objects$([ "$a" = "$b" ] || printf ': %s' "$(diff <(echo "$a") <(echo "$b") | tr '\n' ' ')")"
tap_done
