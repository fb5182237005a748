#!/usr/bin/env bash
# decoder.sh - the analysis tools' decoder (xoloader/tools/decode.c, issue
# 26): LLVM 14's decodes what Debian's capstone 4.0.2 rejects, an AVX2
# (c4 e2 7d 5a 07, vbroadcasti128) and an AVX-512 (EVEX 62 f2 e5 28 b4 0e,
# vpmadd52luq, from libcrypto's FDE-covered code) instruction; and the
# tools say what their decoder skipped: in an object built here, whose
# FDE-covered code holds the AVX2 instruction and a byte no decoder takes
# (06, invalid in 64-bit mode), planproof's "undecodable N bytes", xoscan's
# "undecodable: U of D disassembled bytes" and xodeccov's count are exact
# for each decoder; and an object whose code reads itself through AVX2
# loads that capstone rejects is a violation of the proof with LLVM only.  Host only; needs make host-tools (LLVM: llvm-14-dev).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init decoder
cov=$top/build/host/xodeccov pp=$top/build/host/planproof scan=$top/build/host/xoscan
[ -x "$cov" ] && [ -x "$pp" ] && [ -x "$scan" ] || tap_bail "build/host/xodeccov, planproof, xoscan exist (make host-tools)"
tmp=$(mktemp -d /tmp/xo-decoder-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# hexcase HEX LEN MNEMONIC: LLVM decodes HEX as one LEN-byte MNEMONIC.
hexcase() {
	local out
	out=$("$cov" --decoder=llvm --hex "$1" 2>&1)
	[ "$(printf '%s\n' "$out" | cut -f3)" = "$2" ] && printf '%s\n' "$out" | cut -f5 | grep -q "^$3 "
	ok $? "llvm decodes $1 as $3, $2 bytes ($(printf '%s' "$out" | cut -f3,5))"
	out=$("$cov" --decoder=capstone --hex "$1" 2>&1)
	diag "capstone on $1: $(printf '%s' "$out" | cut -f3,5)"
}
hexcase c4e27d5a07 5 vbroadcasti128
hexcase 62f2e528b40e 6 vpmadd52luq
# What the tools ask of an instruction (planproof: RIP-relative targets,
# lea, nop/prefetch, branches; xoscan: pkru) is the same from both, where
# both decode: LLVM's come from its text, capstone's from its operands.
same=0 diff=
for h in 488d05f0ffffff 8b0510000000 8b0500000080 4c8b1d00000000 f30f6f0d10000000 0f1f440000 \
	 0f180d01000000 ff2510000000 ff1510000000 c3 e800000000 7405 0f01ef 0fae2f 480fae6d00 0fc71f \
	 62f17c48100510000000 c5fd6f0510000000 66480f6e05f0ffffff; do
	c=$("$cov" --decoder=capstone --hex "$h" | cut -f3,4) l=$("$cov" --decoder=llvm --hex "$h" | cut -f3,4)
	if [ "$c" = "$l" ] && [ "${c%%	*}" != 0 ]; then same=$((same + 1)); else diff="$diff $h($c|$l)"; fi
done
[ -z "$diff" ]
ok $? "capstone and llvm agree on length and classes of $same instructions${diff:+; not:$diff}"
"$cov" --decoder=llvm --hex 8b0500000080 | grep -q '	6	rip=ffffffff80001006	'
ok $? "llvm: mov eax, [rip - 0x80000000] at 0x1000 reads 0xffffffff80001006 (the text's decimal disp, signed)"
"$cov" --decoder=capstone --decoder=llvm --hex 06 >"$tmp/out"; st=$?
[ "$st" = 1 ] && [ "$(cut -f3,5 "$tmp/out" | sort -u)" = "0	undecodable" ]
ok $? "neither decodes 06 (invalid in 64-bit mode): both say undecodable, status 1 ($st)"

# f: nop, the AVX2 instruction, ret; g: 06, ret; h: wrpkru, ret (so that
# xoscan disassembles .text past f and g).  Each has an FDE.
cat >"$tmp/u.S" <<'EOF'
	.text
	.globl f, g, h
f:	.cfi_startproc
	nop
	.byte 0xc4, 0xe2, 0x7d, 0x5a, 0x07
	ret
	.cfi_endproc
g:	.cfi_startproc
	.byte 0x06
	ret
	.cfi_endproc
h:	.cfi_startproc
	.byte 0x0f, 0x01, 0xef
	ret
	.cfi_endproc
	.section .note.GNU-stack,"",@progbits
EOF
gcc -shared -nostdlib -o "$tmp/libu.so" "$tmp/u.S" || tap_bail "gcc builds the test object"

# planproof: the rest of the range from the first rejected byte is unchecked.
# capstone: f from its 2nd byte (6 bytes) and g (2); llvm: g only.
for d in capstone:8 llvm:2; do
	"$pp" --decoder="${d%:*}" "$tmp/libu.so" >"$tmp/pp" 2>&1
	grep -q "	undecodable ${d#*:} bytes	" "$tmp/pp"
	ok $? "planproof --decoder=${d%:*}: 'undecodable ${d#*:} bytes' ($(grep -o 'undecodable [0-9]* bytes' "$tmp/pp" || head -c 200 "$tmp/pp"))"
done

# xodeccov: one count per rejected start byte, resync at the next byte;
# "lost" is planproof's count.  FDE bytes: f 7, g 2, h 4.  capstone: c4
# (then e2 7d is a loop, 5a a pop), 07, and 06: 3; llvm: 06.
for d in capstone:3:8 llvm:1:2; do
	set -- ${d//:/ }
	"$cov" --decoder="$1" "$tmp/libu.so" >"$tmp/cov"
	grep -qx "deccov-total	$1	objects 1	fde-bytes 13	undecodable $2	lost $3" "$tmp/cov"
	ok $? "xodeccov --decoder=$1: 13 FDE bytes, $2 undecodable, $3 lost ($(tail -n 1 "$tmp/cov"))"
done

# xoscan: the wrpkru in h is found by either; the linear disassembly of
# .text up to it rejects what xodeccov's does (the same resync).
for d in capstone:3 llvm:1; do
	"$scan" --decoder="${d%:*}" "$tmp/libu.so" >"$tmp/scan" 2>&1
	grep -q "boundary: wrpkru" "$tmp/scan" && grep -q ": 1 found in [0-9]* executable bytes (undecodable: ${d#*:} of [0-9]* disassembled bytes)$" "$tmp/scan"
	ok $? "xoscan --decoder=${d%:*}: the wrpkru, and 'undecodable: ${d#*:}' ($(tail -n 1 "$tmp/scan"))"
done
"$scan" --json --decoder=llvm "$tmp/libu.so" | grep -q '"undecodable":1,"disassembled":[0-9]*,"decoder":"llvm"}'
ok $? "xoscan --json: the total says undecodable 1 and the decoder"

# What capstone hides from the proof: code read as data by AVX2 loads it
# rejects, one RIP-relative (vbroadcasti128 ymm0, [rip + .Lg]) and one
# through a lea'd register (lea rcx, [rip + .Lg]; vbroadcasti128 ymm0,
# [rcx]: the LLVM-only instruction's text is read for the register).  The
# page is all code, execute-only: both loads would fault.
cat >"$tmp/r.S" <<'EOF'
	.text
	.globl f, f2, g
f:	.cfi_startproc
	.byte 0xc4, 0xe2, 0x7d, 0x5a, 0x05	/* vbroadcasti128 .Lg(%rip), %ymm0 */
	.long .Lg - (. + 4)
	ret
	.cfi_endproc
f2:	.cfi_startproc
	lea .Lg(%rip), %rcx
	.byte 0xc4, 0xe2, 0x7d, 0x5a, 0x01	/* vbroadcasti128 (%rcx), %ymm0 */
	ret
	.cfi_endproc
g:
.Lg:	.cfi_startproc
	ret
	.cfi_endproc
	.section .note.GNU-stack,"",@progbits
EOF
gcc -shared -nostdlib -o "$tmp/libr.so" "$tmp/r.S" || tap_bail "gcc builds the second test object"
"$pp" --decoder=capstone "$tmp/libr.so" >"$tmp/pc"; sc=$?
"$pp" --decoder=llvm "$tmp/libr.so" >"$tmp/pl"; sl=$?
[ "$sc" = 0 ] && ! grep -q '^VIOLATION' "$tmp/pc" && grep -q '	undecodable 16 bytes	' "$tmp/pc"
ok $? "planproof --decoder=capstone: no violation seen, 16 bytes undecodable (f whole, f2 from its 2nd instruction) (status $sc: $(grep -o 'undecodable [0-9]* bytes' "$tmp/pc"))"
[ "$sl" = 1 ] && grep -q '^VIOLATION	.*libr.so	rip-relative access	' "$tmp/pl" &&
	grep -q '^VIOLATION	.*libr.so	lea-based access	' "$tmp/pl" && [ "$(grep -c '^VIOLATION' "$tmp/pl")" = 2 ] &&
	grep -q '	undecodable 0 bytes	' "$tmp/pl"
ok $? "planproof --decoder=llvm: both reads found, a rip-relative and a lea-based one (status $sl: $(grep '^VIOLATION' "$tmp/pl" | cut -f3 | tr '\n' ';'))"

# The proof with LLVM checks at least what it checked with capstone: with
# data gaps planned as code (--all-code), its RIP-relative checks find in
# libcrypto every violation capstone's find (and more: capstone stops at
# the first EVEX instruction it rejects in a range).
crypto=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
if [ -f "$crypto" ]; then
	"$pp" --all-code --decoder=capstone "$crypto" | grep '^VIOLATION' | sort >"$tmp/vc"
	"$pp" --all-code --decoder=llvm "$crypto" | grep '^VIOLATION' | sort >"$tmp/vl"
	[ -s "$tmp/vc" ] && [ -z "$(comm -23 "$tmp/vc" "$tmp/vl")" ]
	ok $? "planproof --all-code libcrypto: llvm finds all $(wc -l <"$tmp/vc") of capstone's violations ($(wc -l <"$tmp/vl") in all; missing: $(comm -23 "$tmp/vc" "$tmp/vl" | head -n 3 | tr '\n\t' '; '))"
else
	skip "no $crypto" "planproof --all-code: llvm finds what capstone finds"
fi

# The static xoscan (the guest's, the package's) has capstone only, and says so.
g=$top/build/guest/bin/xoscan
if [ -x "$g" ]; then
	"$g" --decoder=llvm "$tmp/libu.so" >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" = 1 ] && grep -q 'no LLVM decoder' "$tmp/err"
	ok $? "the static xoscan refuses --decoder=llvm, status 1 ($st: $(cat "$tmp/err"))"
else
	skip "no build/guest/bin/xoscan (make guest)" "the static xoscan refuses --decoder=llvm"
fi
tap_done
