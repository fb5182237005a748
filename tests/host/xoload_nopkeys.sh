#!/usr/bin/env bash
# xoload_nopkeys.sh - on a machine without protection keys, xoload refuses
# to run PROG (exit 126, one line naming the reason) instead of running it
# with code that PROT_EXEC alone would leave readable; --plan, which needs
# no pkeys, still works.  Runs on the host (whose CPU has no PKU here); on
# a host with pkeys it is skipped.  Needs build/guest/bin/xoload.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload
echo "1..3"
if grep -qw ospke /proc/cpuinfo; then
	for i in 1 2 3; do echo "ok $i - xoload-nopkeys # SKIP this host has protection keys"; done
	exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
err=$("$xo" /usr/bin/touch "$tmp/ran" 2>&1); st=$?
[ "$st" = 126 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "xoload: no protection keys here"* ]]
r=$?; [ $r = 0 ] && echo "ok 1 - xoload-nopkeys: refused with status 126 and one line ($err)" ||
	echo "not ok 1 - xoload-nopkeys: want status 126 and one 'no protection keys' line, got $st: $err"
[ ! -e "$tmp/ran" ] && echo "ok 2 - xoload-nopkeys: PROG did not run" || echo "not ok 2 - xoload-nopkeys: PROG ran"
"$xo" --plan=tsv /usr/bin/touch >/dev/null 2>&1; st=$?
[ "$st" = 0 ] && echo "ok 3 - xoload-nopkeys: --plan still works without pkeys" ||
	echo "not ok 3 - xoload-nopkeys: --plan exited $st"
