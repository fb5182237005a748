#!/usr/bin/env bash
# tap_summary.sh - the console parser (scripts/tap-summary) fails every way a
# VM run can go wrong, and passes a clean run.  Runs on the host; prints TAP
# framed like a guest test program.
#
# Proves, one synthetic console log each: a clean run passes with the right
# counts; a failed test, a crashed program (status 139), a program killed by
# the time limit (137), a plan that does not match the results, a non-TAP
# program that exits non-zero, exit 1 without a reported failure, a kernel
# WARNING/Oops/BUG (on the console and in dmesg), a missing end marker and an
# empty run each fail; report mode exits 0 while still counting failures.
set -u
parser="$(cd "$(dirname "$0")/../.." && pwd)/scripts/tap-summary"
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - tap_summary: $*"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - tap_summary: $*"; }

# expect STATUS "P passed, F failed, S skipped" DESCRIPTION  (log on stdin)
expect() {
	local want_status=$1 want_counts=$2 what=$3 out status
	out=$(awk -v label=t ${report:+-v report=1} -f "$parser" 2>/dev/null)
	status=$?
	if [ "$status" = "$want_status" ] && printf '%s\n' "$out" | tail -n 1 | grep -qx "t: $want_counts"; then
		ok "$what -> exit $want_status, $want_counts"
	else
		notok "$what -> want exit $want_status, '$want_counts'; got exit $status, '$(printf '%s' "$out" | tail -n 1)'"
	fi
}

clean='# run: a
ok 1 - a: one
ok 2 - a: two # SKIP no hardware
1..2
# exit: a 0
# run: upstream/b
#   some output
# exit: upstream/b 0'
end='# xonly-guest: done'

expect 0 "2 passed, 0 failed, 1 skipped" "a clean run" < <(printf '%s\n%s\n' "$clean" "$end")
expect 0 "2 passed, 0 failed, 1 skipped" "a clean run with CRLF line ends" < <(printf '%s\r\n%s\r\n' "$clean" "$end")
expect 1 "1 passed, 1 failed, 0 skipped" "a failed test" < <(printf '# run: a\nok 1 - a: x\nnot ok 2 - a: y\n1..2\n# exit: a 1\n%s\n' "$end")
expect 1 "1 passed, 1 failed, 0 skipped" "a program that crashed after one result" < <(printf '# run: a\nok 1 - a: x\n# exit: a 139\n%s\n' "$end")
expect 1 "0 passed, 1 failed, 0 skipped" "a program killed by the time limit" < <(printf '# run: a\n# exit: a 137\n%s\n' "$end")
expect 1 "1 passed, 1 failed, 0 skipped" "a plan of 3 with 1 result" < <(printf '# run: a\nok 1 - a: x\n1..3\n# exit: a 0\n%s\n' "$end")
expect 1 "0 passed, 1 failed, 0 skipped" "a non-TAP program that aborted" < <(printf '# run: upstream/b\n#   assert failed\n# exit: upstream/b 134\n%s\n' "$end")
expect 1 "1 passed, 1 failed, 0 skipped" "exit 1 with every result ok" < <(printf '# run: a\nok 1 - a: x\n1..1\n# exit: a 1\n%s\n' "$end")
expect 1 "2 passed, 1 failed, 1 skipped" "a kernel WARNING on the console" < <(printf '%s\n[    1.5] WARNING: CPU: 0 PID: 1 at mm/mprotect.c:1 f+0x1/0x2\n%s\n' "$clean" "$end")
expect 1 "2 passed, 2 failed, 1 skipped" "a kernel BUG and Oops in dmesg" < <(printf '%s\n# dmesg-begin\n[    2.0] BUG: kernel NULL pointer dereference, address: 0\n[    2.0] Oops: 0000 [#1] SMP\n# dmesg-end\n%s\n' "$clean" "$end")
expect 1 "2 passed, 1 failed, 1 skipped" "a WARNING on the console and again in dmesg counts once" < <(printf '%s\n[ 1.0] WARNING: x\n# dmesg-begin\n[ 1.0] WARNING: x\n# dmesg-end\n%s\n' "$clean" "$end")
expect 1 "2 passed, 1 failed, 1 skipped" "no end marker (hang or panic)" < <(printf '%s\n' "$clean")
expect 1 "1 passed, 2 failed, 0 skipped" "a program that never finished, no end marker" < <(printf '# run: a\nok 1 - a: x\n')
expect 1 "0 passed, 1 failed, 0 skipped" "a run with no test" < <(printf '%s\n' "$end")
report=1 expect 0 "0 passed, 1 failed, 0 skipped" "report mode" < <(printf '# run: a\nnot ok 1 - a: y\n1..1\n# exit: a 1\n%s\n' "$end")
echo "1..$n"
exit "$failed"
