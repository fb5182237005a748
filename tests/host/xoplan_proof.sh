#!/usr/bin/env bash
# xoplan_proof.sh - the data-in-text rule of elfplan.c against evidence it
# does not use (xoloader/tools/planproof.c): over every x86-64 ELF object under
# /usr, decoder sweeps (tools/decode.c: LLVM 14, which decodes what
# capstone 4 rejects) of all FDE-covered code find no RIP-relative load
# and no lea-then-load into a page the plan makes execute-only, and no
# well-known constant table (SHA-256/512 K, AES S-box, keccak iotas, the
# bswap mask) lies in such a page; the FDE walk finds as many FDEs as each
# .eh_frame_hdr counts.  Objects in xoplan_proof.known (code read as data
# inside an FDE: nothing static sees it) are reported, not failed.  The
# checks can fail: with --all-code (the old section rule) they must find
# violations in libcrypto.  XOPLAN_PROOF_DIRS sets the directories: by
# default /usr/bin, /usr/sbin and /usr/lib/x86_64-linux-gnu, Debian's
# programs and shared libraries (about 1,000 objects, 2 minutes on 2 cores);
# XOPLAN_PROOF_DIRS=/usr is the whole of /usr (2,709 objects, 15-25 minutes
# here: CUDA and the Cloud SDK), run by hand for the README's numbers.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pp=$top/build/host/planproof
known=$top/tests/host/xoplan_proof.known
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoplan-proof: $2"; else echo "not ok $n - xoplan-proof: $2"; fail=1; fi; }
[ -x "$pp" ] || { echo "not ok 1 - xoplan-proof: $pp missing (make host-tools)"; echo "1..1"; exit 1; }
crypto=$(ls /usr/lib/x86_64-linux-gnu/libcrypto.so.3 2>/dev/null)
if [ -n "$crypto" ]; then
	v=$("$pp" --all-code "$crypto" | grep -c '^VIOLATION')
	[ "$v" -gt 20 ]
	ok $? "the checks catch the section rule: $v violations in $crypto with data gaps planned as code"
	v=$("$pp" "$crypto" | grep -c '^VIOLATION')
	[ "$v" = 0 ]
	ok $? "with the rule, none in $crypto ($v)"
fi
out=$(mktemp)
dirs=${XOPLAN_PROOF_DIRS:-/usr/bin /usr/sbin /usr/lib/x86_64-linux-gnu}
# shellcheck disable=SC2086
find $dirs -type f -size +1k 2>/dev/null | "$pp" - >"$out"
summary=$(grep '^summary' "$out")
echo "# $summary"
unknown=0
while IFS=$'\t' read -r tag file what at target; do
	[ "$tag" = VIOLATION ] || continue
	why=
	while read -r pat reason; do
		case "$pat" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2254
		case "$file" in $pat) why=$reason; break ;; esac
	done <"$known"
	if [ -n "$why" ]; then
		echo "# known: $file $what at $at -> $target: ${why%%:*}"
	else
		echo "# VIOLATION: $file: $what at 0x$at -> 0x$target"
		unknown=$((unknown + 1))
	fi
done <"$out"
objects=$(echo "$summary" | sed -n 's/.*objects \([0-9]*\).*/\1/p')
[ "${objects:-0}" -gt "$([ -n "${XOPLAN_PROOF_DIRS:-}" ] && echo 0 || echo 100)" ] && [ "$unknown" = 0 ]
ok $? "${objects:-0} objects under $dirs: no code byte is read as data outside the known list ($unknown unknown)"
mism=$(grep -c '^FDECOUNT' "$out")
grep '^FDECOUNT' "$out" | head -n 5 | sed 's/^/#   /'
[ "$mism" = 0 ]
ok $? "the FDE walk counts what .eh_frame_hdr counts, in every object ($mism differ)"
rm -f "$out"
echo "1..$n"
exit $fail
