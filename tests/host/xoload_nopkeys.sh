#!/usr/bin/env bash
# xoload_nopkeys.sh - on a machine without protection keys, xoload refuses
# to run PROG (exit 126, one line naming the reason) instead of running it
# with code that PROT_EXEC alone would leave readable; --plan, which needs
# no pkeys, still works.  Runs on the host (whose CPU has no PKU here); on
# a host with pkeys it is skipped.  Needs build/guest/bin/xoload.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload
. "$top/tests/lib/tap.sh"
tap_init xoload-nopkeys
if grep -qw ospke /proc/cpuinfo; then
	for what in "refused" "PROG did not run" "--plan works"; do skip "this host has protection keys" "$what"; done
	tap_done
	exit
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
err=$("$xo" /usr/bin/touch "$tmp/ran" 2>&1); st=$?
[ "$st" = 126 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "xoload: no protection keys here"* ]]
ok $? "refused with status 126 and one 'no protection keys' line (status $st: $err)"
[ ! -e "$tmp/ran" ]
ok $? "PROG did not run"
"$xo" --plan=tsv /usr/bin/touch >/dev/null 2>&1; st=$?
[ "$st" = 0 ]
ok $? "--plan still works without pkeys (status $st)"
tap_done
