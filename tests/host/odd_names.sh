#!/usr/bin/env bash
# odd_names.sh - object names that are not valid UTF-8 or hold a tab or a
# newline never make invalid JSON or split a line, in xoload (--plan json
# and human, its errors), xoscan (json, human, errors) and xosurvey (json,
# table, errors) (issue 27: bytes >= 0x80 went out as they were, and human
# lines printed names raw).  JSON: each line parses with python3 and the
# name reads back byte for byte (a byte that is not UTF-8 is \udcXX, as
# surrogateescape); human: control characters and such bytes are \xNN.
# A name of PATH_MAX bytes or more is refused, not cut short: cut, it
# could name another program (a review found one that ran /usr/bin/true).
# Runs on the host; needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload xoscan=$top/build/guest/bin/xoscan sv=$top/build/host/xosurvey
. "$top/tests/lib/tap.sh"
tap_init odd-names
[ -x "$xo" ] && [ -x "$xoscan" ] && [ -x "$sv" ] || tap_bail "xoload, xoscan, xosurvey built (make guest host-tools)"
command -v python3 >/dev/null || tap_bail "python3 on this host"
tmp=$(mktemp -d /tmp/xo-oddnames-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
hello=$top/build/guest/lib/xoload/hello-static
mkdir "$tmp/d"
# Latin-1 e-acute (not UTF-8), a tab, a newline, a valid UTF-8 e-acute.
odd=$(printf '%s/d/caf\351\tx\ny-\303\251' "$tmp")
cp "$hello" "$odd"
printf 'garbage\n' >"$tmp/d/bad$(printf '\377\nz')"

# json FILE WHAT: every line of FILE is JSON, and one of them names $odd
# exactly (read back with surrogateescape).
json() {
	python3 - "$1" "$odd" >"$tmp/why" 2>&1 <<'PY'
import json, os, sys
want = os.fsencode(sys.argv[2])
found = 0
for n, raw in enumerate(open(sys.argv[1], "rb"), 1):
    raw.decode("utf-8")          # a line of valid UTF-8
    j = json.loads(raw)
    o = j.get("object")
    if o is not None and o.encode("utf-8", "surrogateescape") == want:
        found += 1
if not found:
    sys.exit("no line names it")
print(n, "lines,", found, "name it")
PY
}
# lines FILE N: FILE has N lines (a name split none), none with a raw byte
# that is not UTF-8.
lines() {
	[ "$(wc -l <"$1")" = "$2" ] && python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1" 2>/dev/null
}
esc='caf\xe9\x09x\x0ay-é'

"$xo" --plan=json "$odd" >"$tmp/out" 2>"$tmp/err"; st=$?
json "$tmp/out"
ok $(( st | $? )) "xoload --plan=json: valid JSON, the name read back exactly (status $st: $(cat "$tmp/why"))"
"$xo" --plan "$odd" >"$tmp/out" 2>"$tmp/err"; st=$?
n=$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1])))' "$tmp/out")
lines "$tmp/out" "$n" && grep -qF "$esc 0x" "$tmp/out" && [ "$st" = 0 ]
ok $? "xoload --plan (human): the name as \\xNN, one line per range ($(head -n 1 "$tmp/out"))"
"$xo" --plan "$tmp/d/bad$(printf '\377\nz')" >/dev/null 2>"$tmp/err"; st=$?
lines "$tmp/err" 1 && grep -qF 'bad\xff\x0az: not an ELF file' "$tmp/err"
ok $? "xoload's error: one line, \\xNN (status $st: $(cat "$tmp/err"))"

"$xoscan" --json "$odd" >"$tmp/out" 2>"$tmp/err"; st=$?
json "$tmp/out"
ok $(( st | $? )) "xoscan --json: valid JSON, the name read back exactly (status $st: $(cat "$tmp/why"))"
n=$(wc -l <"$tmp/out")
"$xoscan" "$odd" >"$tmp/out" 2>&1; st=$?
lines "$tmp/out" "$n" && grep -qF "$esc: " "$tmp/out" && ! grep -q "^y-" "$tmp/out"
ok $(( st | $? )) "xoscan (human): a line per finding and the total, the name as \\xNN ($(tail -n 1 "$tmp/out"))"
"$xoscan" "$tmp/d/bad$(printf '\377\nz')" >/dev/null 2>"$tmp/err"
lines "$tmp/err" 1 && grep -qF 'bad\xff\x0az: not scanned' "$tmp/err"
ok $? "xoscan's error: one line, \\xNN ($(cat "$tmp/err"))"

"$sv" --no-scan --json "$tmp/d" >"$tmp/out" 2>"$tmp/err"; st=$?
json "$tmp/out"
ok $? "xosurvey --json: valid JSON, the name read back exactly (status $st: $(cat "$tmp/why"))"
"$sv" --no-scan "$tmp/d" "$tmp/d/bad$(printf '\377\nz')" >"$tmp/out" 2>"$tmp/err"; st=$?
grep -qF "$esc" "$tmp/out" && ! grep -q '^y-' "$tmp/out" && lines "$tmp/err" 1 &&
	grep -qF 'bad\xff\x0az: ' "$tmp/err"
ok $? "xosurvey (table, errors): the names as \\xNN, no split line (status $st: $(cat "$tmp/err"))"
long=$(printf '/%.0s' $(seq 4100))usr/bin/trueXYZ
for mode in "" --kernel --kernel-plans; do
	# shellcheck disable=SC2086
	err=$("$xo" $mode "$long" 2>&1); st=$?
	[ "$st" = 126 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"...: File name too long" ]]
	ok $? "xoload ${mode:+$mode }with a name of $((${#long})) bytes: 126, 'File name too long' (status $st: ${err:0:40}...${err: -30})"
done
tap_done
