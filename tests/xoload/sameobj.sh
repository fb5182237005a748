#!/bin/sh
# sameobj.sh - the audit module checks that the file it planned is the
# one ld.so mapped (xoloader/README.md, "The audit module's identity
# check"): a library's file replaced between ld.so's open and the
# module's is refused (exit 126, one line naming it), before any of its
# code runs.  The race is made deterministic by an audit module listed
# before xoaudit.so (lib/swapaudit.c), whose la_objopen() renames
# /tmp/xoswap/libx.new over /tmp/xoswap/libx.so right after ld.so mapped
# it.  That order of LD_AUDIT is what a process exec'd in xonly mode
# (xoload --kernel's descendants) can have; xoload itself always puts its
# module first.  Controls: the same run without the swap, the swapped
# file run on its own, and a swap with an identical copy (a reinstall of
# the same bytes, another inode) all run.  /usr/bin/true: the image's
# /bin/true is static busybox, which no ld.so (and no audit module) runs.
# tests/host/sameobj.sh tests the comparison itself, and the same swap
# through the module's inherited path on the host.
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
AUD=/xonly/lib/xoaudit.so
D=/tmp/xoswap
LIBM=$(readlink -f /lib/x86_64-linux-gnu/libm.so.6)
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-sameobj: $2"; else echo "not ok $n - xoload-sameobj: $2"; fi; }
# bash (as kernel.sh runs it under --kernel) puts the swapper first for /usr/bin/true.
run() {
	$XO --kernel /bin/bash -c "LD_AUDIT=$L/libswapaudit.so:$AUD LD_PRELOAD=$D/libx.so exec /usr/bin/true" 2>$D/err
}
rm -rf $D && mkdir -p $D
cp "$LIBM" $D/libx.so

run; st=$?
[ "$st" = 0 ] && [ ! -s $D/err ]
ok $? "no swap: /usr/bin/true with libx.so (libm) preloaded runs (status $st$(sed 's/^/; /' $D/err))"

cp $L/libxoprobe.so $D/libx.new
run; st=$?
sed 's/^/#   /' $D/err
grep -qx "xoload: $D/libx.so: is not the file ld.so mapped (.*): not run" $D/err && [ "$st" = 126 ] &&
	cmp -s $D/libx.so $L/libxoprobe.so && [ ! -e $D/libx.new ]
ok $? "libx.so (libm) replaced by libxoprobe.so after ld.so mapped it: refused, status $st"

run; st=$?
[ "$st" = 0 ] && [ ! -s $D/err ]
ok $? "the replacement run on its own (libx.so is libxoprobe.so now): runs (status $st)"

cp $D/libx.so $D/libx.new
run; st=$?
[ "$st" = 0 ] && [ ! -s $D/err ] && [ ! -e $D/libx.new ]
ok $? "replaced by an identical copy (another inode): the same object, runs (status $st)"
rm -rf $D
echo "1..$n"
