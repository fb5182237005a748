#!/usr/bin/env bash
# tap_summary.sh - the console parser (scripts/tap-summary) fails every way a
# VM run can go wrong, and passes a clean run; its JUnit XML is valid and says
# what the summary says.  Runs on the host; prints TAP framed like a guest
# test program.
#
# Proves, one synthetic console log each: a clean run passes with the right
# counts; a failed test, a crashed program (status 139), a program killed by
# the time limit (137), a plan that does not match the results, a non-TAP
# program that exits non-zero, exit 1 without a reported failure, a false
# "# exit:" of another program inside a frame, a kernel WARNING/Oops/BUG (on
# the console and in dmesg), a missing end marker and an empty run each
# fail; report mode exits 0 while still counting failures.  The JUnit file
# of a run with all of these parses (python3's XML parser), has as many
# testcases, failures and skips as the summary counts, a failure's comment
# lines and a skip's reason, and survives '&<>"', control bytes and a non-
# UTF-8 byte in the output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
parser=$top/scripts/tap-summary
. "$top/tests/lib/tap.sh"
tap_init tap_summary

# expect STATUS "P passed, F failed, S skipped" DESCRIPTION  (log on stdin)
expect() {
	local want_status=$1 want_counts=$2 what=$3 out status
	out=$(awk -v label=t ${report:+-v report=1} -f "$parser" 2>/dev/null)
	status=$?
	if [ "$status" = "$want_status" ] && printf '%s\n' "$out" | tail -n 1 | grep -qx "t: $want_counts"; then
		ok 0 "$what -> exit $want_status, $want_counts"
	else
		ok 1 "$what -> want exit $want_status, '$want_counts'; got exit $status, '$(printf '%s' "$out" | tail -n 1)'"
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
expect 1 "0 passed, 1 failed, 0 skipped" "a false '# exit:' of another program inside a frame" < <(printf '# run: a\n# exit: b 0\nok 1 - a: x\n1..1\n# exit: a 0\n%s\n' "$end")
report=1 expect 0 "0 passed, 1 failed, 0 skipped" "report mode" < <(printf '# run: a\nnot ok 1 - a: y\n1..1\n# exit: a 1\n%s\n' "$end")

# JUnit: every kind of result in one log, with text that needs escaping.
if ! command -v python3 >/dev/null; then
	skip "no python3 on this host" "JUnit XML checks"
	tap_done
	exit
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '# run: a' 'ok 1 - a: one & <two> "three"' 'not ok 2 - a: broken' '# a: want 1, got 2' \
	'ok 3 - a: later' 'ok 4 - a: maybe # SKIP no hardware' 'not ok 5 - a: known # TODO later' '1..5' '# exit: a 1' \
	'# run: b' 'ok 1 - b: before the crash' "# b: odd bytes $(printf '\001\377\033')" '# exit: b 139' \
	'# run: upstream/c' '#   all fine' '# exit: upstream/c 0' \
	'[    3.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f' >"$tmp/log"
sum=$(awk -v label=linux-t -v junit="$tmp/t.xml" -f "$parser" "$tmp/log" 2>/dev/null | tail -n 1)
python3 - "$tmp/t.xml" "$sum" >"$tmp/why" 2>&1 <<'PY'
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
p, f, s = map(int, re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped", sys.argv[2]).groups())
cases = root.findall(".//testcase")
fails = [c for c in cases if c.find("failure") is not None]
skips = [c for c in cases if c.find("skipped") is not None]
assert (len(cases), len(fails), len(skips)) == (p + f + s, f, s), \
    f"cases/failures/skips {len(cases)}/{len(fails)}/{len(skips)}, summary {p + f + s}/{f}/{s}"
for suite in root.findall("testsuite"):
    n = suite.findall("testcase")
    assert int(suite.get("tests")) == len(n), suite.get("name")
    assert int(suite.get("failures")) == sum(c.find("failure") is not None for c in n), suite.get("name")
by = {c.get("name"): c for c in cases}
assert 'ok 1 - a: one & <two> "three"' in by, sorted(by)
broken = by["not ok 2 - a: broken"].find("failure")
assert "want 1, got 2" in (broken.text or ""), broken.text
assert by["ok 4 - a: maybe # SKIP no hardware"].find("skipped").get("message") == "no hardware"
assert by["not ok 5 - a: known # TODO later"].find("failure") is None
crash = [c for c in fails if "b: exited with status 139" in c.get("name")]
assert crash and "before the crash" in crash[0].find("failure").text, [c.get("name") for c in fails]
assert any(c.get("name").startswith("upstream/c") and c.find("failure") is None for c in cases)
assert any("WARNING: CPU: 0" in c.get("name") for c in fails)
assert any("end marker" in c.get("name") for c in fails)
print(f"{len(cases)} testcases, {len(fails)} failures, {len(skips)} skipped")
PY
ok $? "JUnit XML of a run with every kind of result: valid, and it agrees with '$sum' ($(tail -n 1 "$tmp/why"))"
tap_done
