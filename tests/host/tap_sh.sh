#!/usr/bin/env bash
# tap_sh.sh - tests/lib/tap.sh, the TAP printer of the shell tests, numbers
# its results, marks skips, prints the plan, and tap_done's status (the
# script's exit status) is 1 exactly when a result failed; tap_bail fails,
# plans and exits 1.  Runs the library in subshells under bash and, where
# there is one, busybox sh (the VM's shell).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/tests/lib/tap.sh
. "$lib"
tap_init tap.sh
shells=(bash)
command -v busybox >/dev/null && shells+=("busybox sh")
for sh in "${shells[@]}"; do
	out=$($sh -c '. "$1"; tap_init s; ok 0 "a"; skip "why" "b"; tap_done' _ "$lib"); st=$?
	[ "$st" = 0 ] && [ "$out" = "ok 1 - s: a
ok 2 - s: b # SKIP why
1..2
# s: 2 passed, 0 failed" ]
	ok $? "$sh: passes and skips numbered, plan, tap_done status 0 (got $st)"
	out=$($sh -c '. "$1"; tap_init s; ok 0 "a"; ok 1 "b"; ok 0 "c"; tap_done' _ "$lib"); st=$?
	[ "$st" = 1 ] && printf '%s\n' "$out" | grep -qx 'not ok 2 - s: b' && printf '%s\n' "$out" | grep -qx '1..3'
	ok $? "$sh: a failed result makes tap_done's status 1 (got $st)"
	out=$($sh -c '. "$1"; tap_init s; tap_bail "no setup"; echo after' _ "$lib"); st=$?
	[ "$st" = 1 ] && [ "$(printf '%s\n' "$out" | head -n 2)" = "not ok 1 - s: no setup
1..1" ] && ! printf '%s\n' "$out" | grep -q after
	ok $? "$sh: tap_bail fails, plans and exits 1 (got $st)"
done
tap_done
