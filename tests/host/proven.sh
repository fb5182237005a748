#!/usr/bin/env bash
# proven.sh - the proven-code rule (xoloader/tools/proven.c, issue 26 step
# 2), on objects built here and on libcrypto:
#  - a CFI-less function with an STT_FUNC symbol is proven code: its page,
#    readable under the FDE rule, is execute-only under the proven rule;
#  - a table in .text reached only by a relocation from .data.rel.ro, whose
#    bytes decode as code ending in ret, stays readable: relocation targets
#    are not roots.  --reloc=walk (roots (c) as the prototype had them)
#    makes it execute-only: that is what the default refuses;
#  - V8's case: CFI-less code that reads its own movabs imm64 through a
#    RIP-relative mov keeps its page readable ("read by its own code");
#    --no-reads shows the page would be execute-only without the check;
#  - a root whose path meets a privileged instruction (cli) is dropped whole;
#  - with a decoder that rejects a byte of the FDE-covered code (capstone 4
#    and an AVX2 instruction) nothing is proven;
#  - a constructor in .init_array and code that runs on past its FDE's end
#    are roots; what follows an FDE that ends in a call is not;
#  - libffi 3.2's case: a table inside an FDE, read through a lea'd base
#    and an index, keeps its page readable (the FDE rule's plan does not:
#    tests/host/xoplan_proof.known);
#  - libcrypto: every constant table found by content (SHA-256/512 K, SHA-1
#    K_XX_XX, AES Te0 and S-box, keccak iotas, P-256 .Lpoly, the ChaCha
#    sigma, the bswap mask) lies in a readable page of the proven plan, and
#    planproof --rule=proven finds no access into an execute-only page.
# Host only; needs make host-tools (xoproven, planproof).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init proven
xp=$top/build/host/xoproven pp=$top/build/host/planproof
[ -x "$xp" ] && [ -x "$pp" ] || tap_bail "build/host/xoproven and planproof exist (make host-tools)"
tmp=$(mktemp -d /tmp/xo-proven-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Each case on a page of its own (.p2align 12), between functions with CFI.
# A page of "add rax, rdx" (48 01 d0) and a ret: valid code, not fill.
cat >"$tmp/p.S" <<'EOF'
	.macro body
	.rept 1364
	.byte 0x48, 0x01, 0xd0
	.endr
	.byte 0x90, 0x90, 0x90
	ret
	.endm
	.text
	.globl f0
f0:	.cfi_startproc
	.byte 0xc4, 0xe2, 0x7d, 0x5a, 0x07	# vbroadcasti128 (%rdi), %ymm0: capstone 4 rejects it
	ret
	.cfi_endproc
	.p2align 12
	.globl nocfi
	.type nocfi, @function
nocfi:	body				# page 1: a function without CFI
	.p2align 12
table:	body				# page 2: a "table", only .data.rel.ro points at it
	.type table, @object
	.p2align 12
	.globl v8
	.type v8, @function
v8:
.Lv8:	movabs $0x1122334455667788, %r12	# page 3: reads its own imm64
	mov .Lv8+2(%rip), %r12
	.rept 1359
	.byte 0x48, 0x01, 0xd0
	.endr
	.byte 0x90, 0x90
	ret
	.p2align 12
	.globl priv
	.type priv, @function
priv:	.rept 1364			# page 4: cli on the path
	.byte 0x48, 0x01, 0xd0
	.endr
	cli
	.byte 0x90, 0x90
	ret
	.p2align 12
	.globl ffi
ffi:	.cfi_startproc			# page 5: libffi 3.2's offset table inside an FDE
	lea .Ltab(%rip), %r11
	movslq (%r11,%r10,4), %r10
	add %r11, %r10
	jmp *%r10
.Ltab:	.long .La - .Ltab, .Lb - .Ltab
.La:	ret
.Lb:	ret
	.cfi_endproc
	.p2align 12
	.globl closure
closure: .cfi_startproc			# page 6: a code address taken, the register reused
	lea f5(%rip), %rdx
	mov %rdx, 8(%rsp)
	mov 16(%rsp), %rdx
	mov (%rdx), %rax
	ret
	.cfi_endproc
	.p2align 12
initf:	body				# page 7: a constructor without CFI or symbol type
	.p2align 12
	.globl tail
tail:	.cfi_startproc			# page 8: its FDE ends before its code does
	test %eax, %eax
	jne 1f
	.cfi_endproc
	body
1:	ret
	.p2align 12
	.globl noret
noret:	.cfi_startproc			# page 9: an FDE that ends in a call, then bytes
	call f5
	.cfi_endproc
	body
	.p2align 12
	.globl f5
	.hidden f5
f5:	.cfi_startproc			# page 10
	ret
	.cfi_endproc
	.section .data.rel.ro,"aw"
	.quad table
	.section .init_array,"aw"
	.quad initf
	.section .note.GNU-stack,"",@progbits
EOF
gcc -shared -nostdlib -Wl,-z,separate-code -o "$tmp/libp.so" "$tmp/p.S" || tap_bail "gcc builds the test object"
readelf -rW "$tmp/libp.so" | grep -q R_X86_64_RELATIVE || tap_bail "the test object has the RELATIVE relocation"
sym() { readelf -sW "$tmp/libp.so" | awk -v s="$1" '$8 == s { print $2; exit }'; }
# at ADDR: from "START END STATE WHY" lines (hex) on stdin, "xo" or "readable WHY" at ADDR
at() {
	local s e st why
	while read -r s e st why; do
		if [ $((16#$s)) -le "$1" ] && [ "$1" -lt $((16#$e)) ]; then
			[ "$st" = xo ] && echo xo || echo "$st $why"
			return
		fi
	done
}
# state XOPROVEN-OPTION SYMBOL: the proven plan at SYMBOL; fdestate SYMBOL: the FDE rule's
state() {
	"$xp" --plan=tsv "$1" "$tmp/libp.so" 2>&1 | cut -f2- | tr '\t' ' ' | at $((16#$(sym "$2")))
}
fdestate() {
	"$pp" --plan "$tmp/libp.so" 2>&1 | sed 's/^xoload: [^ ]* 0x\([0-9a-f]*\)-0x\([0-9a-f]*\) /\1 \2 /' |
		at $((16#$(sym "$1")))
}

# is STATE WANT: STATE is WANT ("xo", "readable WHY") or WANT is its first word
is() { [ "$1" = "$2" ] || [ "${1%% *}" = "$2" ]; }
# expect OPTION SYMBOL WANT FDE-WANT WHAT: the proven plan (xoproven OPTION) at
# SYMBOL's page is WANT, the FDE rule's FDE-WANT ("-": not asked)
expect() {
	local s f=-
	s=$(state "$1" "$2")
	[ "$4" = - ] || f=$(fdestate "$2")
	is "$s" "$3" && { [ "$4" = - ] || is "$f" "$4"; }
	ok $? "$5 (proven rule: $s$([ "$f" = - ] || echo "; FDE rule: $f"))"
}

expect --reloc=none nocfi xo readable "a CFI-less STT_FUNC function is proven code, not under the FDE rule"
expect --decoder=capstone nocfi readable - \
	"a decoder that cannot sweep all FDE-covered code (capstone 4: AVX2 in f0) proves nothing: reads may have gone unseen"
expect --reloc=none table readable - "a table in .text reached only by a relocation from .data.rel.ro stays readable"
expect --reloc=walk table xo - "with relocation targets as roots (--reloc=walk) it would be execute-only: what the default refuses"
expect --reloc=none v8 "readable read by its own code" - "code that reads its own movabs imm64 keeps its page readable"
expect --no-reads v8 xo - "without the read check (--no-reads) that page would be execute-only"
expect --reloc=none ffi "readable read by its own code" xo \
	"a table inside an FDE read through lea and an index (libffi 3.2) keeps its page readable; the FDE rule's plan does not"
expect --reloc=none f5 xo - "a lea of a function's address whose register is then loaded anew is no read of it"
expect --reloc=none initf xo - "a constructor in .init_array is a root: its CFI-less code is proven"
expect --reloc=none tail xo readable "code that runs on past the end of its FDE is proven, not under the FDE rule"
expect --reloc=none noret readable - "what follows an FDE that ends in a call is no root"
expect --reloc=none priv readable - "a root whose path meets cli is dropped: its page stays readable"
"$xp" "$tmp/libp.so" >"$tmp/stats"
grep -q 'roots=2/1/3/1/0	kept=5	dropped=1	' "$tmp/stats"
ok $? "roots: 2 of branches (tail's fall-through and jne target), 1 entry (initf), 3 symbols (nocfi, v8, priv), 1 relocation (table): 5 kept, 1 dropped (priv) ($(cut -f9-11 "$tmp/stats" | head -1))"

cs=$("$xp" --decoder=capstone "$tmp/libp.so" | head -1)
printf '%s\n' "$cs" | grep -q '	undecodable=6	go=0/0	withheld$'
ok $? "xoproven says so: undecodable=6 withheld ($(printf '%s' "$cs" | cut -f14- | tr '\t' ' '))"
out=$("$xp" "$tmp/missing" 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ "$out" = "xoproven: $tmp/missing: No such file or directory" ]
ok $? "a file that cannot be opened: one line, status 1 ($st: $out)"

# libcrypto: tables by content, each in a readable page of the proven plan.
crypto=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
if [ ! -r "$crypto" ]; then
	skip "no $crypto" "libcrypto's tables stay readable"
	tap_done
	exit
fi
"$xp" --plan=tsv "$crypto" 2>"$tmp/plan"
# The PF_X segment's file offset -> address delta (the same in Debian's build).
delta=$(readelf -lW "$crypto" | awk '$1 == "LOAD" && / R E / { print $3, $2; exit }')
delta=$(( ${delta% *} - ${delta#* } ))
tables="SHA-256-K:\x98\x2f\x8a\x42\x91\x44\x37\x71 SHA-512-K:\x22\xae\x28\xd7\x98\x2f\x8a\x42
SHA-1-K:\x99\x79\x82\x5a\x99\x79\x82\x5a AES-Te0:\xc6\x63\x63\xa5\xf8\x7c\x7c\x84
AES-S-box:\x63\x7c\x77\x7b\xf2\x6b\x6f\xc5 keccak-iota:\x01\x00\x00\x00\x00\x00\x00\x00\x82\x80\x00\x00\x00\x00\x00\x00
P-256-poly:\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00
ChaCha-sigma:expand\x2032-byte\x20k bswap-mask:\x03\x02\x01\x00\x07\x06\x05\x04\x0b\x0a\x09\x08"
cut -f2- "$tmp/plan" | tr '\t' ' ' >"$tmp/ranges"
found=0 bad= kinds=
for t in $tables; do
	for off in $(LC_ALL=C grep -obUaP "${t#*:}" "$crypto" | cut -d: -f1); do
		a=$((off + delta))
		st=$(at "$a" <"$tmp/ranges")
		[ -z "$st" ] && continue	# not in an executable segment
		found=$((found + 1)) kinds="$kinds ${t%%:*}"
		[ "$st" = xo ] && bad="$bad ${t%%:*}@$(printf %x "$a")"
	done
done
diag "tables found: $(echo $kinds | tr ' ' '\n' | uniq -c | tr -s ' \n' ' ')"
[ "$found" -ge 10 ] && [ -z "$bad" ]
ok $? "libcrypto: $found copies of known tables in executable pages, all readable under the proven rule${bad:+; execute-only:$bad}"
"$pp" --rule=proven "$crypto" >"$tmp/pp"
v=$(grep -c '^VIOLATION' "$tmp/pp")
[ "$v" = 0 ] && grep -q '^summary	rule proven' "$tmp/pp"
ok $? "planproof --rule=proven: no access into an execute-only page of libcrypto ($v)"
tap_done
