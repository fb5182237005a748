#!/bin/sh
# cache.sh - the plan cache in the VM (xoload(1), "The plan cache"): root
# writes entries with `xoload --update-cache` for cat, ld.so and libc; then
# xoload and xoload --kernel take the plans of all three from it (the
# preloader for cat and ld.so, the audit module for libc; under --kernel
# the module for all) and the program runs with its code execute-only
# (smaps: --xp, a non-zero key) and the same output; --plan prints the
# same plan with and without the cache; --no-cache and XOLOAD_NO_CACHE
# turn every lookup into "miss: off", in the module too; a copy of cat
# that is touched after it was cached is a miss and still runs.  The
# cache lives in /xo-cache-test (XOLOAD_CACHE_DIR): the VM's init makes /
# mode 0755, as a real system has it (the rootfs is 1777, and the cache
# trusts no chain of directories that others can write).
XO=/xonly/bin/xoload
D=/xo-cache-test
C=$D/cache
LIBC=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-cache: $2"; else echo "not ok $n - xoload-cache: $2"; fi; }
rm -rf $D && mkdir -p $D && chmod 755 $D
export XOLOAD_CACHE_DIR=$C
cp /usr/bin/cat $D/cat
out=$($XO --update-cache $D/cat $LDSO $LIBC 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -q ": 3 written, "
ok $? "xoload --update-cache as root: cat, ld.so and libc written (status $st: $out)"

hits() { grep -c ': hit$' "$1"; }
for how in "" "--kernel"; do
	XOLOAD_CACHE_VERBOSE=1 $XO $how $D/cat /proc/self/smaps >$D/out 2>$D/err; st=$?
	h=$(hits $D/err)
	sed 's/^/#   /' $D/err
	[ "$st" = 0 ] && [ "$h" = 3 ] && grep -q "plan cache: \($D/cat\|/proc/self/exe\): hit" $D/err &&
		grep -q "plan cache: .*libc.so.6: hit" $D/err
	ok $? "xoload $how cat: the plans of cat, ld.so and libc come from the cache ($h hits, status $st)"
	bad=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { f = $6; p = $2 }
		p == "--xp" && /^ProtectionKey:/ && $2 == 0 { print f }' $D/out | sort -u)
	code=$(awk '/^[0-9a-f]+-[0-9a-f]+ / && $2 == "--xp" { print $6 }' $D/out | sort -u | tr '\n' ' ')
	[ -z "$bad" ] && echo "$code" | grep -q "$D/cat" && echo "$code" | grep -q libc.so.6 &&
		echo "$code" | grep -q ld-linux-x86-64.so.2
	ok $? "and the code of cat, ld.so and libc is execute-only, with a non-zero key (--xp: $code${bad:+; key 0: $bad})"
	XOLOAD_CACHE_VERBOSE=1 $XO $how --no-cache $D/cat /proc/self/cmdline >/dev/null 2>$D/err; st=$?
	off=$(grep -c ': miss: off$' $D/err)
	[ "$st" = 0 ] && [ "$(hits $D/err)" = 0 ] && [ "$off" = 3 ]
	ok $? "xoload $how --no-cache: no hit, 3 lookups off, in the module too (status $st)"
done
XOLOAD_NO_CACHE=1 XOLOAD_CACHE_VERBOSE=1 $XO $D/cat /dev/null 2>$D/err
[ "$(hits $D/err)" = 0 ] && [ "$(grep -c ': miss: off$' $D/err)" = 3 ]
ok $? "XOLOAD_NO_CACHE=1: no hit"
$XO --plan=tsv $D/cat >$D/p1 2>/dev/null && $XO --no-cache --plan=tsv $D/cat >$D/p0 2>/dev/null &&
	[ -s $D/p1 ] && cmp -s $D/p1 $D/p0
ok $? "--plan: the same plan with and without the cache ($(wc -l <$D/p1) lines)"
echo hello >$D/in
want=$(/usr/bin/cat $D/in)
touch $D/cat
got=$(XOLOAD_CACHE_VERBOSE=1 $XO $D/cat $D/in 2>$D/err); st=$?
[ "$st" = 0 ] && [ "$got" = "$want" ] && grep -q "plan cache: $D/cat: miss: stale entry" $D/err
ok $? "a touched cat: its entry is stale, a miss, and it runs (status $st, $(grep "$D/cat" $D/err))"
rm -rf $D
echo "1..$n"
