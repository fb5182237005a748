#!/bin/sh
# kernel.sh - xoload --kernel hands the job to the kernel's xonly exec mode
# (kernel/patches 0006-0008): the program it starts has main, ld.so, libc
# and a dlopen()ed library execute-only without any of xoload's own
# mapping (tests/kernel/lib/xonly_probe checks that from inside, and that
# its exec'd child is so too); the flag shows in /proc/PID/status of the
# program and of its descendants; the program's exit status passes
# through; and the options that cannot apply are usage errors.  Under
# xonly=strict every process is at the strict level, 2, which xoload keeps
# (a level cannot be lowered); on other boots of the series, the same runs
# under a strict parent (kernel/lib/xonly_strict_exec) show it too.
XO=/xonly/bin/xoload
PROBE=/xonly/lib/kernel/xonly_probe
STRICT=/xonly/lib/kernel/xonly_strict_exec
lvl=1 mode=xo
if grep -qw 'xonly=strict' /proc/cmdline; then lvl=2 mode=xo-strict; fi
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-kernel: $2"; else echo "not ok $n - xoload-kernel: $2"; fi; }

# The probe prints TAP of its own; keep its lines as comments, count failures.
out=$($XO --kernel $PROBE $mode 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
fails=$(echo "$out" | grep -c '^not ok')
oks=$(echo "$out" | grep -c '^ok')
[ "$st" = 0 ] && [ "$fails" = 0 ] && [ "$oks" -ge 10 ]
ok $? "xoload --kernel $PROBE $mode: main, ld.so, libc, a dlopen()ed library and the exec'd child execute-only ($oks ok, $fails not ok, status $st)"

line=$($XO --kernel /usr/bin/cat /proc/self/status | grep '^Xonly:')
[ "$line" = "$(printf 'Xonly:\t%d' $lvl)" ]
ok $? "the program runs in xonly mode, level $lvl ('$line')"
line=$($XO --kernel /bin/bash -c '/usr/bin/cat /proc/self/status' | grep '^Xonly:')
[ "$line" = "$(printf 'Xonly:\t%d' $lvl)" ]
ok $? "and so does what it executes ('$line' for bash's child cat)"
if [ $lvl = 1 ]; then
	out=$($STRICT $XO --kernel $PROBE xo-strict 2>&1); st=$?
	echo "$out" | sed 's/^/#   /'
	fails=$(echo "$out" | grep -c '^not ok')
	oks=$(echo "$out" | grep -c '^ok')
	[ "$st" = 0 ] && [ "$fails" = 0 ] && [ "$oks" -ge 10 ]
	ok $? "at the strict level: xoload --kernel $PROBE xo-strict: the same, level 2 kept ($oks ok, $fails not ok, status $st)"
fi
key=$($XO --kernel /usr/bin/cat /proc/self/smaps | awk '
	/^[0-9a-f]+-[0-9a-f]+ / { x = ($2 ~ /x/); f = $6 }
	x && f == "/usr/bin/cat" && /^ProtectionKey:/ { print $2; exit }')
[ -n "$key" ] && [ "$key" != 0 ]
ok $? "cat's own code mapping has the execute-only key (ProtectionKey ${key:-none}), mapped by the kernel"

$XO --kernel /bin/bash -c 'exit 7'; st=$?
ok $([ "$st" = 7 ] && echo 0 || echo 1) "the program's exit status passes through (7, got $st)"

for opt in --report --plan --scan --strict --no-inherit --audit=/x; do
	err=$($XO --kernel $opt /usr/bin/cat /dev/null 2>&1); st=$?
	[ "$st" = 2 ] && echo "$err" | grep -q -- '--kernel: not with'
	ok $? "--kernel $opt: usage error, status 2 (got $st: $err)"
done
# The module found next to xoload, cut short: ld.so would die of SIGBUS
# (status 135) mapping it; xoload refuses it first, naming it.
rm -rf /tmp/xo-kmod && mkdir -p /tmp/xo-kmod/bin /tmp/xo-kmod/lib && cp $XO /tmp/xo-kmod/bin/ &&
	head -c 3000 /xonly/lib/xoaudit.so >/tmp/xo-kmod/lib/xoaudit.so
err=$(/tmp/xo-kmod/bin/xoload --kernel /usr/bin/cat /dev/null 2>&1); st=$?
[ "$st" = 126 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
	echo "$err" | grep -q '^xoload: audit module /tmp/xo-kmod/lib/xoaudit.so: PT_LOAD [0-9]*: extends past the end'
ok $? "--kernel with an audit module cut short: 126, one line naming it (got $st: $err)"
$XO --kernel /nonexistent 2>/dev/null; st=$?
ok $([ "$st" = 127 ] && echo 0 || echo 1) "--kernel with a missing program: 127 (got $st)"

# The early path (runpath.c, run_kernel_early(): "--kernel PROG" as the
# first arguments executes PROG before xoload relocates itself, the module
# found by the name xoload was run by) against the full path, which
# "--kernel -- PROG" takes: the same environment (LD_AUDIT, ours, appended
# once), the same level, the same refusals; with LD_AUDIT already set (the
# full path puts ours first), xoload run through a symlink (the module
# found by /proc/self/exe) and with XOLOAD_CHILDREN set (checked by the full
# path) alike.  Which path ran is not visible from outside by design; these
# rows fail if the early one passes anything on differently.
envof() { "$@" /usr/bin/env 2>&1 | grep -v '^_=' | sort; }
early=$(envof $XO --kernel); full=$(envof $XO --kernel --)
[ -n "$early" ] && [ "$early" = "$full" ] &&
	[ "$(echo "$early" | grep -c '^LD_AUDIT=')" = 1 ] && echo "$early" | grep -qx 'LD_AUDIT=/xonly/lib/xoaudit.so'
ok $? "early path: the environment of the full path, LD_AUDIT=/xonly/lib/xoaudit.so once ($(echo "$early" | grep '^LD_AUDIT='))"
early=$(LD_AUDIT=/xonly/lib/xoload/libnullaudit.so envof $XO --kernel)
full=$(LD_AUDIT=/xonly/lib/xoload/libnullaudit.so envof $XO --kernel --)
[ "$early" = "$full" ] && echo "$early" | grep -qx 'LD_AUDIT=/xonly/lib/xoaudit.so:/xonly/lib/xoload/libnullaudit.so'
ok $? "early path with LD_AUDIT set: ours first, theirs kept, as the full path ($(echo "$early" | grep '^LD_AUDIT='))"
early=$(XOLOAD_CHILDREN=reexec envof $XO --kernel); full=$(XOLOAD_CHILDREN=reexec envof $XO --kernel --)
[ -n "$early" ] && [ "$early" = "$full" ]
ok $? "early path with XOLOAD_CHILDREN set: as the full path"
err=$(XOLOAD_CHILDREN=bogus $XO --kernel /usr/bin/true 2>&1); st=$?
[ "$st" = 2 ] && [ "$err" = "$(XOLOAD_CHILDREN=bogus $XO --kernel -- /usr/bin/true 2>&1)" ]
ok $? "XOLOAD_CHILDREN=bogus: the full path's usage error, 2 (got $st: $err)"
ln -sf $XO /tmp/xo-kernel-link
early=$(envof /tmp/xo-kernel-link --kernel); full=$(envof /tmp/xo-kernel-link --kernel --)
[ -n "$early" ] && [ "$early" = "$full" ] && echo "$early" | grep -qx 'LD_AUDIT=/xonly/lib/xoaudit.so'
ok $? "xoload through a symlink: the module next to the real file, as the full path ($(echo "$early" | grep '^LD_AUDIT='))"
rm -f /tmp/xo-kernel-link
out=$($XO --kernel /usr/bin/cat /proc/self/status | grep '^Xonly:')
[ "$out" = "$(printf 'Xonly:\t%d' $lvl)" ]
ok $? "early path: PROG in xonly mode, level $lvl ('$out')"
. /xonly/lib/xoload/smallstack.sh
small_stack_row --kernel
. /xonly/lib/xoload/badprogs.sh
d=$(mktemp -d)
for prog in $(bad_programs $d); do
	want=$($XO --kernel -- $prog 2>&1); wst=$?
	got=$($XO --kernel $prog 2>&1); st=$?
	[ "$st" = "$wst" ] && { [ "$st" = 126 ] || [ "$st" = 127 ]; } && [ "$got" = "$want" ]
	ok $? "--kernel $prog: refused as by the full path (status $st, want $wst: $got)"
done
rm -rf $d
echo "1..$n"
