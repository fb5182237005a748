#!/usr/bin/env bash
# run_one.sh - initramfs/run-one, which runs each test in the VM, passes a
# test's exit status through (128+N for signal N), kills it at the time limit
# (137, and says so), sends its stdout and stderr to the log, and leaves
# nothing of it running: a daemon it detached (setsid, double fork) and that
# daemon's child are killed and named, and the log stops growing once
# run-one has returned.  Runs on the host (run-one touches no pkeys); needs
# build/guest/bin/run-one (make guest).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init run-one
r1=$top/build/guest/bin/run-one
[ -x "$r1" ] || tap_bail "$r1 missing (make guest)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$r1" -o "$tmp/a.log" sh -c 'echo out; echo err >&2; exit 3' 2>"$tmp/a.err"; st=$?
[ "$st" = 3 ] && [ "$(cat "$tmp/a.log")" = "out
err" ] && [ ! -s "$tmp/a.err" ]
ok $? "exit status 3 passes through (got $st), stdout and stderr go to the log"

"$r1" -o "$tmp/b.log" sh -c 'kill -SEGV $$' 2>/dev/null; st=$?
[ "$st" = 139 ]
ok $? "a test killed by SIGSEGV: status 139 (got $st)"

t0=$(date +%s)
"$r1" -t 1 -o "$tmp/c.log" sleep 30 2>"$tmp/c.err"; st=$?
t=$(($(date +%s) - t0))
[ "$st" = 137 ] && [ "$t" -lt 10 ] && grep -q '^# time limit of 1 s hit' "$tmp/c.err"
ok $? "a test past its time limit is killed: status 137 after ${t}s, '$(head -n 1 "$tmp/c.err")'"

"$r1" -o "$tmp/d.log" /nonexistent/prog 2>/dev/null; st=$?
[ "$st" = 127 ] && grep -q 'run-one: /nonexistent/prog: No such file' "$tmp/d.log"
ok $? "a program that cannot be run: status 127 and why in the log (got $st)"

# The daemon: its own session, orphaned by the subshell, printing; its child
# (sleep) is killed when the daemon is, and re-parented to run-one first.
T=$tmp "$r1" -o "$tmp/e.log" sh -c '
	(setsid sh -c "echo \$\$ >\$T/daemon.pid; sleep 1000 & echo \$! >\$T/child.pid
		while :; do echo tick; sleep 0.05; done" &)
	while [ ! -s "$T/child.pid" ]; do sleep 0.05; done
	echo test done' 2>"$tmp/e.err"; st=$?
dpid=$(cat "$tmp/daemon.pid" 2>/dev/null) cpid=$(cat "$tmp/child.pid" 2>/dev/null)
[ "$st" = 0 ] && [ -n "$dpid" ] && [ ! -e "/proc/$dpid" ] && [ -n "$cpid" ] && [ ! -e "/proc/$cpid" ]
ok $? "the detached daemon (pid $dpid) and its child (pid $cpid) are gone when run-one returns"
grep -q "^# leftover process $dpid (sh) killed" "$tmp/e.err" && grep -q "^# leftover process $cpid (sleep) killed" "$tmp/e.err"
ok $? "both are named as killed leftovers: $(tr '\n' ';' <"$tmp/e.err")"
size=$(wc -c <"$tmp/e.log"); sleep 0.3
[ "$(wc -c <"$tmp/e.log")" = "$size" ] && grep -q tick "$tmp/e.log"
ok $? "the log held the daemon's output and stopped growing ($size bytes)"
tap_done
