#!/usr/bin/env bash
# fill.sh - which gaps between two FDEs are padding (xoloader/rule/fill.c),
# on an object built here, under both planners: the run path's
# (xoplan --plan=tsv: run/rtplan.c, the reader the preloader uses) and the
# libelf reference (planproof --plan: ref/elfplan.c).  Each case is a gap
# between two functions with CFI, alone on its page, so the gap decides
# whether the page is execute-only:
#  - NOP fill then a few zero bytes right before the next function (GNU
#    ld's zero fill after a clang-built section's own NOP alignment, as
#    between libLLVM's functions): padding, the page execute-only; also
#    after 40 bytes of NOPs, and with 15 zeros (the limit after NOPs);
#  - zero bytes alone, fewer than 64: padding (the older case);
#  - NOP fill then 16 zero bytes (an aligned 16-byte zero constant): not
#    padding (FILL_ZERO_AFTER_NOPS), readable;
#  - NOP fill, zeros, one other byte, zeros: data, readable;
#  - zeros then NOP fill: data (zeros are never leading fill), readable;
#  - int3, or a jmp over NOPs, then zeros: data (only NOPs come before
#    ld's zeros), readable;
#  - OpenSSL's .Linc shape, 8 zero bytes and the table going on: readable;
#  - NOP fill and zeros at the end of .text, no code after: readable;
#  - what the rule takes for padding that may be data, pinned: the int
#    144 (90 00 00 00) right before a function is execute-only;
#  - no gap at all: execute-only (the control for the page layout).
# Host only; needs make host-tools and the guest's xoplan (make guest).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init fill
xp=$top/build/guest/lib/xoplan pp=$top/build/host/planproof
[ -x "$xp" ] && [ -x "$pp" ] || tap_bail "build/guest/lib/xoplan and build/host/planproof exist (make guest host-tools)"
tmp=$(mktemp -d /tmp/xo-fill-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# case NAME BYTES...: a page with f_NAME (CFI), the gap BYTES, g_NAME (CFI).
{
	cat <<'EOF'
	.macro body
	.rept 600
	.byte 0x48, 0x01, 0xd0		# add %rdx, %rax: code, not fill
	.endr
	ret
	.endm
	.text
EOF
	gap() {
		printf '\t.p2align 12\n\t.globl f_%s\nf_%s:\t.cfi_startproc\n\tbody\n\t.cfi_endproc\n' "$1" "$1"
		[ -z "$2" ] || printf '\t.byte %s\n' "$2"
		printf '\t.globl g_%s\ng_%s:\t.cfi_startproc\n\tbody\n\t.cfi_endproc\n' "$1" "$1"
	}
	nop11='0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00'	# nopw %cs:0(%rax,%rax)
	z() { local i s=; for ((i = 0; i < $1; i++)); do s+=", 0x00"; done; echo "$s"; }
	gap none ""
	gap nopzero "$nop11, 0x0f, 0x1f, 0x40, 0x00$(z 5)"
	gap zero "0x00$(z 4)"
	gap nop40zero "$nop11, $nop11, $nop11, 0x0f, 0x1f, 0x40, 0x00, 0x0f, 0x1f, 0x00$(z 8)"
	gap nopzero15 "$nop11$(z 15)"
	gap nopzero16 "$nop11$(z 16)"
	gap nopdata "$nop11$(z 3), 0x01$(z 3)"
	gap zeronop "0x00, 0x00, 0x00, $nop11"
	gap linc "0x00$(z 7), 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08"
	gap int3zero "0xcc, 0x00, 0x00, 0x00"
	gap jmpzero "0xeb, 0x03, 0x90, 0x90, 0x90$(z 8)"
	gap int144 "0x90, 0x00, 0x00, 0x00"
	# The last gap: nothing follows it in .text (no g_tail).
	printf '\t.p2align 12\n\t.globl f_tail\nf_tail:\t.cfi_startproc\n\tbody\n\t.cfi_endproc\n'
	printf '\t.byte %s\n\t.globl tail_end\ntail_end:\n' "$nop11$(z 8)"
	printf '\t.section .note.GNU-stack,"",@progbits\n'
} >"$tmp/f.S"
gcc -shared -nostdlib -Wl,-z,separate-code -o "$tmp/libf.so" "$tmp/f.S" || tap_bail "gcc builds the test object"
sym() { readelf -sW "$tmp/libf.so" | awk -v s="$1" '$8 == s { print $2; exit }'; }
# at ADDR: from "START END STATE WHY" lines (hex) on stdin, "xo" or "readable" at ADDR
at() {
	local s e st why
	while read -r s e st why; do
		if [ $((16#$s)) -le "$1" ] && [ "$1" -lt $((16#$e)) ]; then
			echo "$st"
			return
		fi
	done
	echo none
}
XOLOAD_NO_CACHE=1 "$xp" --plan=tsv "$tmp/libf.so" 2>/dev/null | awk -F'\t' -v f="$tmp/libf.so" '$1 == f' | cut -f2- | tr '\t' ' ' >"$tmp/rt"
"$pp" --plan "$tmp/libf.so" 2>&1 | sed -n 's/^xoload: [^ ]* 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) /\1 \2 /p' >"$tmp/ref"
[ -s "$tmp/rt" ] && [ -s "$tmp/ref" ] || tap_bail "both planners plan the test object ($(head -c 200 "$tmp/rt") / $(head -c 200 "$tmp/ref"))"

# expect CASE WANT WHAT: the page of f_CASE's gap is WANT under both planners
expect() {
	local a r e
	if [ "$1" = tail ]; then a=$((16#$(sym tail_end) - 1)); else a=$((16#$(sym "g_$1") - 1)); fi
	r=$(at "$a" <"$tmp/rt")
	e=$(at "$a" <"$tmp/ref")
	[ "$r" = "$2" ] && [ "$e" = "$2" ]
	ok $? "$3 ($2 wanted; run path: $r, reference: $e)"
}
expect none xo "no gap, two functions with CFI: execute-only (the control)"
expect nopzero xo "NOP fill then 5 zero bytes before code: padding"
expect zero xo "5 zero bytes alone before code: padding"
expect nop40zero xo "40 bytes of NOPs then 8 zero bytes before code: padding (the limit is on the zeros)"
expect nopzero15 xo "NOP fill then 15 zero bytes before code: padding"
expect nopzero16 readable "NOP fill then 16 zero bytes (an aligned zero constant): not padding"
expect nopdata readable "NOP fill, zeros, a byte 0x01, zeros: data"
expect zeronop readable "zeros then NOP fill: data (zeros never lead)"
expect linc readable "8 zero bytes and a table going on (OpenSSL's .Linc): data"
expect int3zero readable "int3 then zeros (the int 204): data"
expect jmpzero readable "a jmp over NOPs, then zeros: data"
expect tail readable "NOP fill and zeros at the end of .text, no code after: data"
expect int144 xo "the int 144 (90 00 00 00) before a function: taken for padding (known, pinned)"
tap_done
