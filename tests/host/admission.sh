#!/usr/bin/env bash
# admission.sh - a file that cannot be read as what it claims to be is an
# error in all three tools, never a result: a truncated program (head -c),
# one whose section header table lies past its end, and a relocatable
# object (.o) get from xoload --plan status 126, from xoscan status 1 and
# "not scanned: WHY", from xosurvey (named, or found in a directory)
# status 1 and "cannot be planned: WHY", one line each, WHY being the
# planners' admission message (rule/admit.c) that xoscan and xosurvey share.
# (xoscan used to print "0 found" and exit 0, xosurvey to skip them as
# "separate debug info?": issue 27.)  The intact program still passes.
# Runs on the host; needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload xoscan=$top/build/guest/bin/xoscan sv=$top/build/host/xosurvey
hello=$top/build/guest/lib/xoload/hello
. "$top/tests/lib/tap.sh"
tap_init admission
for f in "$xo" "$xoscan" "$sv" "$hello"; do
	[ -x "$f" ] || tap_bail "$f exists (make guest host-tools)"
done
tmp=$(mktemp -d /tmp/xo-admission-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

head -c 5000 "$hello" >"$tmp/truncated"
cp "$hello" "$tmp/badshoff"
printf '\377\377\377\0\0\0\0\0' | dd of="$tmp/badshoff" bs=1 seek=40 conv=notrunc status=none
printf 'int f(void) { return 1; }\n' >"$tmp/f.c"
${CC:-gcc} -c -o "$tmp/reloc.o" "$tmp/f.c" || tap_bail "a .o builds"

# check NAME STATUS PATTERN WHAT CMD...: status STATUS, one line on stderr
# that matches PATTERN.
check() {
	local want=$1 pat=$2 what=$3 st err
	shift 3
	timeout 60 "$@" >/dev/null 2>"$tmp/err"; st=$?
	err=$(cat "$tmp/err")
	[ "$st" = "$want" ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && [[ $err == $pat ]]
	ok $? "$what: status $want, one line (status $st: $err)"
}

for c in "truncated|a PT_LOAD extends past the end of the file (truncated?)" \
	 "badshoff|bad section header table" \
	 "reloc.o|a relocatable object (.o): nothing of it is mapped until it is linked"; do
	f=${c%%|*} why=${c#*|}
	check 126 "xoload: ./$f: *" "xoload --plan $f" sh -c 'cd "$1" && exec "$2" --plan "./$3"' _ "$tmp" "$xo" "$f"
	check 1 "xoscan: $tmp/$f: not scanned: $why" "xoscan $f" "$xoscan" "$tmp/$f"
done
for f in truncated badshoff; do
	why=$(printf '%s\n' "truncated|a PT_LOAD extends past the end of the file (truncated?)" \
		"badshoff|bad section header table" | sed -n "s/^$f|//p")
	check 1 "xosurvey: $tmp/$f: cannot be planned: $why" "xosurvey $f" "$sv" --no-scan "$tmp/$f"
done

# In a directory: the malformed ones are errors, counted; the intact
# program is planned as before.
mkdir "$tmp/tree"
cp "$hello" "$tmp/truncated" "$tmp/badshoff" "$tmp/tree/"
json=$("$sv" --json --xoscan "$xoscan" "$tmp/tree" 2>"$tmp/err"); st=$?
tot=$(printf '%s\n' "$json" | tail -n 1)
[ "$st" = 1 ] && [ "$(grep -c 'cannot be planned' "$tmp/err")" = 2 ] &&
	[[ $tot == *'"objects":1,'* ]] && [[ $tot == *'"errors":2,'* ]] &&
	printf '%s\n' "$json" | grep -q "\"object\":\"$tmp/tree/truncated\",\"error\":\"cannot be planned: a PT_LOAD"
ok $? "xosurvey DIR: the two malformed files are errors (status 1, \"errors\":2), hello is planned (status $st: $tot)"

"$xoscan" "$hello" >/dev/null 2>"$tmp/err"; st=$?
[ "$st" = 0 ] && [ ! -s "$tmp/err" ]
ok $? "xoscan on the intact program: status 0, nothing on stderr (status $st)"
tap_done
