#!/usr/bin/env bash
# xoload_plandiff.sh - the differential test of the planners: the minimal
# ELF reader of the run-time path (xoloader/run/rtplan.c, used by xoload
# and the freestanding xoaudit.so) must plan every ELF file under /usr of
# this machine exactly as the libelf reference (xoloader/ref/elfplan.c) does:
# the same ranges, execute-only bits, reasons and TEXTREL bit, or the same
# refusal (0 differences).  Malformed files are covered by
# tests/host/xoload_fuzz.sh (xofuzz -D: both planners on every mutant).
# And that the comparison can fail: with -p, xoplandiff flips the
# execute-only bit of the minimal reader's first range, which it must
# report as a difference.
# Runs on the host; needs make host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
diff=$top/build/host/xoplandiff
. "$top/tests/lib/tap.sh"
tap_init xoload-plandiff
[ -x "$diff" ] || tap_bail "$diff missing (make host-tools)"
out=$(find /usr -xdev -type f 2>/dev/null | "$diff" -v 2>&1); st=$?
summary=$(printf '%s\n' "$out" | tail -n 1)
printf '%s\n' "$out" | grep -A12 '^DIFF' | head -n 60 | sed 's/^/# /'
diag "$summary"
files=$(echo "$summary" | sed -n 's/^\([0-9]*\) ELF files.*/\1/p')
[ "$st" = 0 ] && [[ $summary == *" 0 differences"* ]]
ok $? "every ELF file under /usr planned identically by run/rtplan.c and elfplan.c (libelf): $summary"
[ "${files:-0}" -ge 1000 ]
ok $? "the corpus is real: ${files:-0} ELF files (want >= 1000)"
out=$(echo /usr/bin/true | "$diff" -p 2>&1); st=$?
[ "$st" = 1 ] && [[ $out == *"DIFF /usr/bin/true: a range"* ]]
ok $? "the comparison can fail: a perturbed plan is reported (status $st)"
tap_done
