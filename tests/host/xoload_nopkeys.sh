#!/usr/bin/env bash
# xoload_nopkeys.sh - on a machine without protection keys, xoload refuses
# to run PROG (exit 126, one line naming the reason) instead of running it
# with code that PROT_EXEC alone would leave readable; --plan, which needs
# no pkeys, still works.  XOLOAD_TIMES (make bench's breakdown) prints the
# steps up to the refusal, in order, and only when it is set.  Runs on the host (whose CPU has no PKU here); on
# a host with pkeys it is skipped.  Needs build/guest/bin/xoload.
# A program that inherited LD_AUDIT (a child of one under xoload, which
# the module protects in place) is refused the same way, also with
# XOLOAD_CHILDREN=reexec, and a bad XOLOAD_CHILDREN is refused first with
# its own line.
# And on any host: no xoload or xoaudit.so the build made (the guest
# image's, the installation's, the Debian package's) is make bench-host's
# timing build (-DXOLOAD_BENCH_NO_PKEYS: no protection-key check), which
# carries a mark string for this; the timing build itself, if made,
# carries it (build/hostbench and build/hostbench-private).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload
. "$top/tests/lib/tap.sh"
tap_init xoload-nopkeys
mark="xoload: make bench-host's timing build, no protection-key check"
bad= n=0
while IFS= read -r f; do
	n=$((n + 1))
	case $f in
	*/hostbench/* | */hostbench-private/*) grep -qaF "$mark" "$f" || bad="$bad $f (the timing build without its mark: the check cannot tell)" ;;
	*) ! grep -qaF "$mark" "$f" || bad="$bad $f" ;;
	esac
done < <(find "$top/build" \( -name xoload -o -name xoaudit.so \) -type f -not -path '*/bench.d/*')
[ "$n" -gt 0 ] && [ -z "$bad" ]
ok $? "no xoload or xoaudit.so built but make bench-host's is its timing build ($n checked;${bad:- none wrong})"
if grep -qw ospke /proc/cpuinfo; then
	for what in "refused" "PROG did not run" "--plan works" "XOLOAD_TIMES steps" "a child refused" \
		"a child refused, XOLOAD_CHILDREN=reexec" "a bad XOLOAD_CHILDREN"; do
		skip "this host has protection keys" "$what"
	done
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
err=$(XOLOAD_TIMES=1 "$xo" /usr/bin/touch "$tmp/ran" 2>&1); st=$?
steps=$(printf '%s\n' "$err" | sed -n 's/^xoload: time: \(.*\) [0-9]*$/\1/p' | tr '\n' '|')
ns=$(printf '%s\n' "$err" | sed -n 's/^xoload: time: .* \([0-9]*\)$/\1/p')
want="entry|relocated|start|options|found|validated /usr/bin/touch|validated /lib64/ld-linux-x86-64.so.2|"
[ "$st" = 126 ] && [[ $steps == "$want"*"planned /usr/bin/touch|planned /lib64/ld-linux-x86-64.so.2|" ]] &&
	[ "$(printf '%s\n' "$ns" | sort -n)" = "$ns" ] && [ "$(printf '%s\n' "$err" | tail -1)" = "$(printf '%s\n' "$err" | grep -v '^xoload: time: ')" ] &&
	[[ $err == *"xoload: no protection keys here"* ]] && [ ! -e "$tmp/ran" ]
ok $? "XOLOAD_TIMES: each step in order, clocks rising, then the refusal (status $st: $steps)"

# A child: LD_AUDIT inherited, no AT_XOLOAD.  touch is one that writes a file if it runs.
aud=$top/build/guest/lib/xoaudit.so
for how in "" reexec; do
	rm -f "$tmp/ran"
	err=$(XOLOAD_CHILDREN=$how LD_AUDIT=$aud /usr/bin/touch "$tmp/ran" 2>&1); st=$?
	[ "$st" = 126 ] && [ "$err" = "xoload: /usr/bin/touch: no protection keys here (CPUID PKU and OSPKE): code cannot be made execute-only: not run" ] &&
		[ ! -e "$tmp/ran" ]
	ok $? "a child refused${how:+, XOLOAD_CHILDREN=$how}: status 126, one line, it did not run (status $st: $err)"
done
err=$(XOLOAD_CHILDREN=yes LD_AUDIT=$aud /usr/bin/touch "$tmp/ran" 2>&1); st=$?
[ "$st" = 126 ] && [ "$err" = "xoload: /usr/bin/touch: XOLOAD_CHILDREN must be inplace, reexec or unset: not run" ] &&
	[ ! -e "$tmp/ran" ]
ok $? "a bad XOLOAD_CHILDREN in a child: refused with its line (status $st: $err)"
tap_done
