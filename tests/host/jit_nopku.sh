#!/usr/bin/env bash
# jit_nopku.sh - jit-demo on a machine without protection keys says what to
# do: its default strategy (pkey) and pkey-syscall fail with one line that
# says the machine has no protection keys and to run with -s mprotect,
# not pkey_alloc's bare "Invalid argument" (issue 27); -s mprotect and
# -s dualmap then run.  On a host with pkeys the refusal is not testable
# here (the VM's nopku boot has no jit-demo test): skipped.  Needs make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
jd=$top/build/guest/bin/jit-demo
. "$top/tests/lib/tap.sh"
tap_init jit-nopku
[ -x "$jd" ] || tap_bail "build/guest/bin/jit-demo exists (make guest)"
if grep -qw ospke /proc/cpuinfo; then
	skip "this host has protection keys" "pkey and pkey-syscall say to use -s mprotect"
else
	for s in "" "-s pkey-syscall"; do
		# shellcheck disable=SC2086
		out=$("$jd" $s -e '1 + 2' 2>&1); st=$?
		[ "$st" = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
			[[ $out == "jit-demo: "*"no protection keys"*"run with -s mprotect"* ]] && [[ $out != *Invalid* ]]
		ok $? "jit-demo ${s:-(pkey)} without PKU: status 1, says to use -s mprotect (status $st: $out)"
	done
fi
for s in mprotect dualmap; do
	out=$("$jd" -s $s -e '1 + 2' 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = 3 ]
	ok $? "jit-demo -s $s: runs anywhere (status $st: $out)"
done
tap_done
