#!/usr/bin/env bash
# survey_errors.sh - a directory xosurvey cannot read (mode 000) or whose
# entries it cannot stat (mode 644: no search) is an error like any
# other: one line with the path and the system's reason (strerror), the
# JSON total's "errors" and the summary's "ERRORS" count it, status 1, and
# the rest of the tree is still surveyed.  (It used to say only "cannot
# read it", with exit 1 but "errors":0 and no error in the summary: issue
# 27.)  As root the survey runs without CAP_DAC_OVERRIDE and
# CAP_DAC_READ_SEARCH (setpriv), which would read the directory anyway.
# Runs on the host; needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/host/xosurvey hello=$top/build/guest/lib/xoload/hello
. "$top/tests/lib/tap.sh"
tap_init survey-errors
[ -x "$sv" ] && [ -x "$hello" ] || tap_bail "build/host/xosurvey and build/guest/lib/xoload/hello exist (make guest host-tools)"
run=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || tap_bail "setpriv (util-linux) is installed, to run without root's DAC capabilities"
	run=(setpriv --bounding-set -dac_override,-dac_read_search)
fi
tmp=$(mktemp -d /tmp/xosurvey-errors.XXXXXX)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/locked" "$tmp/t/nosearch/sub"
cp "$hello" "$tmp/t/hello"
cp "$hello" "$tmp/t/locked/hidden"
chmod 000 "$tmp/t/locked"
chmod 644 "$tmp/t/nosearch"

json=$("${run[@]}" "$sv" --no-scan --json "$tmp/t" 2>"$tmp/err"); st=$?
tot=$(printf '%s\n' "$json" | tail -n 1)
sed 's/^/# stderr: /' "$tmp/err"
[ "$st" = 1 ]
ok $? "status 1 (status $st)"
grep -qxF "xosurvey: $tmp/t/locked: cannot read it: Permission denied" "$tmp/err"
ok $? "the unreadable directory: its path and strerror"
grep -qxF "xosurvey: $tmp/t/nosearch/sub: cannot stat it: Permission denied" "$tmp/err"
ok $? "the entry of a directory without search permission: its path and strerror"
[[ $tot == *'"errors":2,'* ]]
ok $? "the JSON total counts both errors ($tot)"
[[ $tot == *'"objects":1,'* ]] && printf '%s\n' "$json" | grep -q "^{\"object\":\"$tmp/t/hello\","
ok $? "the readable rest of the tree is surveyed (hello)"
out=$("${run[@]}" "$sv" --no-scan --totals "$tmp/t" 2>/dev/null); st=$?
[ "$st" = 1 ] && printf '%s\n' "$out" | tail -n 1 | grep -q '; 2 ERRORS (see above)$'
ok $? "the summary counts them: '$(printf '%s\n' "$out" | tail -n 1)' (status $st)"
tap_done
