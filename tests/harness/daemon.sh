#!/bin/sh
# harness/daemon - leaves a daemon behind on purpose, for harness/daemon_gone
# (the next test) to prove that the runner killed it and kept its output
# apart: a process in a session of its own (setsid), orphaned by a double
# fork, that keeps writing into the output it inherited from this test, as
# the 6.12 tree's protection_keys left one that did, lines that would break
# whatever test they reached (a false "# exit:", a plan of 1, a line with the
# marker harness-daemon-marker), and a heartbeat into /tmp/harness-daemon.beat.
# Its command line carries the marker too.  (Here, where the lines belong,
# they do no harm: the runner shifts the false frame line, and the plan is
# this test's.)
. /xonly/lib/tap.sh
tap_init harness
rm -f /tmp/harness-daemon.pid /tmp/harness-daemon.beat
(setsid sh -c '
	: harness-daemon-marker
	echo $$ >/tmp/harness-daemon.pid
	while :; do
		echo "# exit: harness/daemon_gone 0"
		echo "1..1"
		echo "# harness-daemon-marker: a leftover of harness/daemon wrote this"
		echo beat >>/tmp/harness-daemon.beat
		sleep 0.05
	done' &) 2>/dev/null
i=0
while [ ! -s /tmp/harness-daemon.beat ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s /tmp/harness-daemon.beat ]
ok $? "left a daemon (pid $(cat /tmp/harness-daemon.pid 2>/dev/null), its own session) that keeps printing"
tap_done
