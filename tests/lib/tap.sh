# tap.sh - the TAP printer of the shell tests, as tests/lib/tap.c is of the
# C ones (POSIX sh: bash on the host, busybox sh in the VM, where it is
# /xonly/lib/tap.sh).
#
#   . tap.sh
#   tap_init SUITE      name the suite: lines read "ok N - SUITE: WHAT"
#   ok STATUS WHAT      one result: passed if STATUS is 0 (ok $? "...")
#   skip REASON WHAT    one result skipped, with its reason
#   diag TEXT           a "# SUITE: TEXT" comment
#   tap_bail WHAT       a fatal setup error: one failed result, the plan, exit 1
#   tap_done            the "1..N" plan; returns 1 if a result failed, else
#                       0: as a script's last command, its exit status
tap_suite=test tap_n=0 tap_failed=0

tap_init() { tap_suite=$1 tap_n=0 tap_failed=0; }

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $tap_suite: $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $tap_suite: $2"
	fi
}

skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $tap_suite: $2 # SKIP $1"; }

diag() { echo "# $tap_suite: $*"; }

tap_done() {
	echo "1..$tap_n"
	echo "# $tap_suite: $((tap_n - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" = 0 ]
}

tap_bail() { ok 1 "$*"; tap_done; exit 1; }
