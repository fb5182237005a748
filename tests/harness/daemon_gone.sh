#!/bin/sh
# harness/daemon_gone - runs right after harness/daemon and proves that the
# daemon it left is gone before this test starts and never wrote here: its
# pid no longer exists, no process carries its marker, its heartbeat file
# stops growing, and this test's own output (read back through
# /proc/self/fd/1, a file of its own) holds none of its lines.  Were the
# daemon alive, these fail, and its false "# exit:" and "1..1" break this
# test's frame and plan as well.
. /xonly/lib/tap.sh
tap_init harness
if [ ! -f /tmp/harness-daemon.pid ]; then
	for what in "pid gone" "no process with the marker" "heartbeat stopped" "no line here"; do
		skip "harness/daemon did not run first" "$what"
	done
	tap_done
	exit
fi
pid=$(cat /tmp/harness-daemon.pid)
[ -n "$pid" ] && [ ! -e "/proc/$pid" ]
ok $? "harness/daemon's daemon (pid $pid) is gone when the next test starts"
left=
for f in /proc/[0-9]*/cmdline; do
	p=${f#/proc/}; p=${p%/cmdline}
	[ "$p" = $$ ] && continue
	grep -q harness-daemon-marker "$f" 2>/dev/null && left="$left $p"
done
[ -z "$left" ]
ok $? "no process carries the daemon's marker${left:+ (pids$left)}"
before=$(wc -c </tmp/harness-daemon.beat)
sleep 0.5
after=$(wc -c </tmp/harness-daemon.beat)
[ "$before" = "$after" ]
ok $? "its heartbeat stopped ($before bytes, $after after 0.5 s)"
if [ -f "/proc/$$/fd/1" ]; then
	! grep -q harness-daemon-marker "/proc/$$/fd/1"
	ok $? "this test's output, a file of its own, holds no line of the daemon"
else
	skip "stdout is not a file" "this test's output holds no line of the daemon"
fi
tap_done
