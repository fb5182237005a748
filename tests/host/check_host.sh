#!/usr/bin/env bash
# check_host.sh - scripts/check runs every host-side test to its end and
# brings each failure to the summary with its name: a failed test, one that
# exits non-zero with every result ok, one that crashes, and the tests after
# them still run and count; the last line gives the totals and the status is
# non-zero.  (Under set -e the first failing host test used to end
# scripts/check silently.)  Runs scripts/check --mode host in a scratch copy
# of the scripts with four made-up host tests; needs no VM.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init check-host
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts" "$tmp/tests/host" "$tmp/tests/lib"
cp "$top"/scripts/{check,lib.sh,tap-summary} "$tmp/scripts/"
cp "$top/tests/lib/tap.sh" "$tmp/tests/lib/"
cp "$top/tests/nopku.run" "$tmp/tests/"
cd "$tmp/tests/host"
printf '#!/bin/sh\necho "ok 1 - a: fine"\necho 1..1\n' >a_pass.sh
printf '#!/bin/sh\necho "ok 1 - b: fine"\necho "not ok 2 - b: broken"\necho 1..2\nexit 1\n' >b_fail.sh
printf '#!/bin/sh\necho "ok 1 - c: fine"\necho 1..1\nexit 1\n' >c_exit1.sh
printf '#!/bin/sh\necho "ok 1 - d: fine"\nkill -SEGV $$\n' >d_crash.sh
printf '#!/bin/sh\necho "ok 1 - e: after the failures"\necho 1..1\n' >e_after.sh
chmod +x ./*.sh
out=$("$tmp/scripts/check" --mode host 2>/dev/null); st=$?
last=$(printf '%s\n' "$out" | tail -n 1)
[ "$st" != 0 ]
ok $? "scripts/check --mode host exits non-zero (status $st)"
for want in "FAIL host/b_fail.sh: not ok 2 - b: broken" \
	"FAIL host/c_exit1.sh: exited 1 without reporting a failed test" \
	"FAIL host/d_crash.sh: exited with status 139 (signal 11)"; do
	printf '%s\n' "$out" | grep -qxF "$want"
	ok $? "the summary names the failure: $want"
done
[ "$last" = "5 passed, 3 failed, 0 skipped" ]
ok $? "the tests after the failures ran too, and the totals count all: '$last'"
[ -s "$tmp/build/results/host.xml" ] && grep -q 'e: after the failures' "$tmp/build/results/host.xml"
ok $? "build/results/host.xml holds every host test"
tap_done
