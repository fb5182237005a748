#!/bin/sh
# private.sh - xoload installed where nobody runs it by hand, its command a
# symlink to it (/xonly/lib/xoload/private: bin/xoload -> ../libexec/xoload,
# built with XO_SELF_PRIVATE, as make install lays it out), in the VM with
# protection keys enforced.  PROG's /proc/self/exe names that real file, so
# a program that executes what readlink() of it gives (clang's -cc1, node's
# child_process.fork) executes it by a name only such a re-exec uses, and
# xoload runs PROG again, under xoload; with xoload itself the command
# (/xonly/bin/xoload) the same re-exec runs xoload with PROG's arguments
# and fails, the control.  The command, a symlink, finds the module beside
# the real file, under --kernel's early path too.  tests/host/xoload_private.sh
# covers the rest on the host.
XO=/xonly/bin/xoload
P=/xonly/lib/xoload/private
PX=$P/bin/xoload
SE=/xonly/lib/xoload/selfexec
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-private: $2"; else echo "not ok $n - xoload-private: $2"; fail=1; fi; }
skip() { n=$((n + 1)); echo "ok $n - xoload-private: $2 # SKIP $1"; }
one() { printf '%s' "$1" | tr '\n' ' '; }
cd /tmp || exit 1

out=$($PX $SE target where 2>&1); st=$?
[ "$st" = 3 ] && [ "$out" = "$(printf 'selfexec child: where B\nunder xoload: yes')" ]
ok $? "a program that executes readlink(/proc/self/exe) runs again, under xoload, with its arguments (status $st: $(one "$out"))"
out=$($PX $SE target argv0 2>&1); st=$?
[ "$st" = 3 ] && echo "$out" | grep -qx "argv\[0\]: $SE"
ok $? "... with PROG's path in argv[0], as natively (status $st: $(one "$out"))"
out=$($XO $SE target where 2>&1); st=$?
[ "$st" = 127 ] && ! echo "$out" | grep -q 'selfexec child'
ok $? "control: with xoload itself the command, that runs xoload with PROG's arguments (status $st)"
out=$($PX /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "LD_AUDIT=$P/lib/xoaudit.so"
ok $? "the command, a symlink: PROG's LD_AUDIT names the module beside the real file (status $st: $(echo "$out" | grep '^LD_AUDIT='))"
if [ "${XONLY_STOCK_KERNEL:-0}" = 1 ]; then
	skip "a stock kernel has no xonly mode" "--kernel through the command finds the module beside the real file"
else
	early=$($PX --kernel /usr/bin/env 2>&1 | grep '^LD_AUDIT='); full=$($PX --kernel -- /usr/bin/env 2>&1 | grep '^LD_AUDIT=')
	[ "$early" = "LD_AUDIT=$P/lib/xoaudit.so" ] && [ "$full" = "$early" ]
	ok $? "--kernel through the command, early and full path: the module beside the real file ($early; $full)"
fi
if [ -x /usr/bin/node ] && [ -e /proc/net/unix ]; then
	want=$(/usr/bin/node /xonly/lib/xoload/fork.js 2>&1)
	out=$($PX /usr/bin/node /xonly/lib/xoload/fork.js 2>&1); st=$?
	[ "$st" = 0 ] && [ -n "$want" ] && [ "$out" = "$want" ]
	ok $? "node's child_process.fork (process.execPath) as natively (status $st: $(one "$out"))"
else
	skip "no node, or no AF_UNIX" "node's child_process.fork as natively"
fi
# The early path through the command, a symlink, at a page above the full
# path's own limit (review s45: self_from_link() took 8 KiB more stack).
if [ "${XONLY_STOCK_KERNEL:-0}" != 1 ]; then
	XO=$PX
	. /xonly/lib/xoload/smallstack.sh
	small_stack_row --kernel
fi
echo "1..$n"
exit $fail
