#!/bin/sh
# kernel_plans.sh - xoload --kernel-plans is --kernel without the audit
# module: the program runs in xonly mode with no LD_AUDIT and no module in
# its address space (so it and its descendants start as natively); main,
# ld.so, libc and a dlopen()ed library are execute-only (xonly_probe);
# data in text reads only through the kernel's plans (trusted.xonly,
# xoload --set-xattr): the datatext program, whose table sits in .text,
# passes with plans on it and its library and fails without them, which is
# also the row that shows the module is really gone (--kernel passes
# without plans: its module carves the table).  At the strict level it
# does not ask for PR_XONLY_EXEC_CARVE: a program it starts cannot make
# code readable, where under --kernel it can.  The options --kernel
# refuses are refused.  Plans set here are removed again.
XO=/xonly/bin/xoload
PROBE=/xonly/lib/kernel/xonly_probe
STRICT=/xonly/lib/kernel/xonly_strict_exec
CARVE=/xonly/tests/kernel/xonly_strict
H=/xonly/lib/xoload/datatext
LIB=/xonly/lib/xoload/libdatatext.so
lvl=1 mode=xo
if grep -qw 'xonly=strict' /proc/cmdline; then lvl=2 mode=xo-strict; fi
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - kernel-plans: $2"; else echo "not ok $n - kernel-plans: $2"; fail=1; fi; }
# One datatext run: "ok" (11 rows ok, status 0) or what went wrong.
datatext() {
	out=$($XO "$1" $H "xoload $1" 2>&1); st=$?
	echo "$out" | sed 's/^/#   /' >&2
	oks=$(echo "$out" | grep -c '^ok')
	fails=$(echo "$out" | grep -c '^not ok')
	if [ "$st" = 0 ] && [ "$fails" = 0 ] && [ "$oks" = 11 ]; then echo ok; else echo "$oks ok, $fails not ok, status $st"; fi
}
trap '$XO --clear-xattr $H $LIB >/dev/null 2>&1' EXIT

line=$($XO --kernel-plans /usr/bin/cat /proc/self/status | grep '^Xonly:')
[ "$line" = "$(printf 'Xonly:\t%d' $lvl)" ]
ok $? "the program runs in xonly mode, level $lvl ('$line')"
env=$($XO --kernel-plans /usr/bin/env | grep -c '^LD_AUDIT=')
maps=$($XO --kernel-plans /usr/bin/cat /proc/self/maps | grep -c 'xoaudit\.so')
kmaps=$($XO --kernel /usr/bin/cat /proc/self/maps | grep -c 'xoaudit\.so')
[ "$env" = 0 ] && [ "$maps" = 0 ] && [ "$kmaps" -gt 0 ]
ok $? "no LD_AUDIT in its environment ($env), no audit module in its maps ($maps lines; under --kernel: $kmaps)"
out=$($XO --kernel-plans $PROBE $mode 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
fails=$(echo "$out" | grep -c '^not ok')
oks=$(echo "$out" | grep -c '^ok')
[ "$st" = 0 ] && [ "$fails" = 0 ] && [ "$oks" -ge 10 ]
ok $? "xoload --kernel-plans $PROBE $mode: main, ld.so, libc, a dlopen()ed library and the exec'd child execute-only ($oks ok, $fails not ok, status $st)"

# Data in text: the module carves it under --kernel; here only a plan can.
$XO --clear-xattr $H $LIB >/dev/null 2>&1
r=$(datatext --kernel)
ok $([ "$r" = ok ] && echo 0 || echo 1) "datatext under --kernel, no plans: the module gives the table its read ($r)"
r=$(datatext --kernel-plans)
ok $([ "$r" != ok ] && echo 0 || echo 1) "datatext under --kernel-plans, no plans: its table is unreadable, it fails ($r)"
out=$($XO --set-xattr $H $LIB 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
ok $([ "$st" = 0 ] && [ "$(echo "$out" | grep -c ': plan set')" = 2 ] && echo 0 || echo 1) \
	"xoload --set-xattr $H $LIB: two plans set (status $st)"
r=$(datatext --kernel-plans)
ok $([ "$r" = ok ] && echo 0 || echo 1) "datatext under --kernel-plans with the kernel's plans: the table reads, both functions fault on read ($r)"
$XO --clear-xattr $H $LIB >/dev/null 2>&1

# The strict level: no carve-out for what --kernel-plans starts.
if [ $lvl = 1 ]; then s=$STRICT; else s=; fi
$s $XO --kernel $CARVE --carve; st=$?
ok $([ "$st" = 0 ] && echo 0 || echo 1) "strict level, under --kernel: the program may carve its code readable (PR_XONLY_EXEC_CARVE; exit $st, 0 allowed, 10 EPERM)"
$s $XO --kernel-plans $CARVE --carve; st=$?
ok $([ "$st" = 10 ] && echo 0 || echo 1) "strict level, under --kernel-plans: pkey_mprotect(PROT_READ|PROT_EXEC, 0) of its code is EPERM (exit $st, 10 EPERM, 0 allowed)"

for opt in --report --plan --scan --strict --no-inherit --audit=/x; do
	err=$($XO --kernel-plans $opt /usr/bin/cat /dev/null 2>&1); st=$?
	[ "$st" = 2 ] && echo "$err" | grep -q -- '--kernel-plans: not with'
	ok $? "--kernel-plans $opt: usage error, status 2 (got $st: $err)"
done
for opt in --no-cache --no-net; do
	err=$($XO --kernel-plans $opt /usr/bin/cat /dev/null 2>&1); st=$?
	[ "$st" = 2 ] && echo "$err" | grep -q -- "--kernel-plans: not with --no-cache or --no-net"
	ok $? "--kernel-plans $opt: usage error, status 2: only the module reads it (got $st: $err)"
done
$XO --kernel-plans /bin/bash -c 'exit 7'; st=$?
ok $([ "$st" = 7 ] && echo 0 || echo 1) "the program's exit status passes through (7, got $st)"
$XO --kernel-plans /nonexistent 2>/dev/null; st=$?
ok $([ "$st" = 127 ] && echo 0 || echo 1) "a missing program: 127 (got $st)"

# The early path (runpath.c, run_kernel_early(): "--kernel-plans PROG"
# as the first argument executes PROG before xoload relocates itself) gives
# what the full path gives.  Which path ran is not visible from outside by
# design; these rows fail if the early one passes PROG, its arguments, its
# PATH lookup or its refusals on differently.
out=$($XO --kernel-plans cat /proc/self/status | grep '^Xonly:')
[ "$out" = "$(printf 'Xonly:\t%d' $lvl)" ]
ok $? "a name found on PATH runs in xonly mode ('$out')"
out=$(cd /xonly/lib/xoload && PATH=:/usr/bin $XO --kernel-plans hello one two 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$(/xonly/lib/xoload/hello one two 2>&1)" ]
ok $? "an empty PATH element is the current directory, as for execvp() (status $st: $out)"
out=$($XO --kernel-plans /bin/sh -c 'echo "$0|$1|$2"' a 'b c' 2>&1)
[ "$out" = 'a|b c|' ]
ok $? "the arguments pass as they are ('$out')"
out=$(XOLOAD_TIMES=1 $XO --kernel-plans /usr/bin/true 2>&1); st=$?
[ "$st" = 0 ] && [ "$(echo "$out" | grep -c '^xoload: time: ')" -ge 2 ]
ok $? "XOLOAD_TIMES takes the full path, whose steps it times (status $st)"
err=$(XOLOAD_CHILDREN=bogus $XO --kernel-plans /bin/echo hi 2>&1); st=$?
[ "$st" = 2 ] && [ "$err" = "$(XOLOAD_CHILDREN=bogus $XO --kernel -- /bin/echo hi 2>&1)" ]
ok $? "XOLOAD_CHILDREN=bogus: the full path's usage error, 2, not PROG run (review s43c; got $st: $err)"
. /xonly/lib/xoload/smallstack.sh
small_stack_row --kernel-plans
. /xonly/lib/xoload/badprogs.sh
d=$(mktemp -d)
for prog in $(bad_programs $d); do
	want=$($XO --kernel -- $prog 2>&1); wst=$?	# "--": the full path
	got=$($XO --kernel-plans $prog 2>&1); st=$?
	[ "$st" = "$wst" ] && { [ "$st" = 126 ] || [ "$st" = 127 ]; } && [ "$got" = "$want" ]
	ok $? "--kernel-plans $prog: refused as --kernel's full path refuses it (status $st, want $wst: $got)"
done
rm -rf $d
echo "1..$n"
exit $fail
