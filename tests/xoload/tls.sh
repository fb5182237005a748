#!/bin/sh
# tls.sh - a program whose library has more initial-exec TLS than glibc's
# surplus (bigtls, libbigtls.so: 20 KiB; Rust's librustc_driver has 23 KB)
# runs wherever xoload puts its audit module in LD_AUDIT, in the VM with
# protection keys enforced: glibc's ld.so sets static TLS up before it
# loads an audit module, so under any LD_AUDIT that library fails to load
# ("cannot allocate memory in static TLS block"), and xoload asks for room
# in GLIBC_TUNABLES (glibc.rtld.optional_static_tls), after the user's own
# tunables.  Proves: bigtls runs under xoload (the hook), under the module
# (XOLOAD_HOOK=0), as a child protected in place, and under --kernel on
# its early path (no GLIBC_TUNABLES of the user's) and its full path (the
# user's tunables joined); the control: natively under an LD_AUDIT it does
# not load.  And a child under the module still starts a thread with a
# 32 KiB stack (smallthread, as node makes one), which a bigger surplus
# would make fail.  tests/host/xoload_tls.sh covers the environment on the
# host.
XO=/xonly/bin/xoload
BIG=/xonly/lib/xoload/bigtls
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-tls: $2"; else echo "not ok $n - xoload-tls: $2"; fail=1; fi; }
skip() { n=$((n + 1)); echo "ok $n - xoload-tls: $2 # SKIP $1"; }
one() { printf '%s' "$1" | tr '\n' ' '; }
cd /tmp || exit 1
unset GLIBC_TUNABLES LD_AUDIT XOLOAD_CHILDREN

out=$($BIG 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "control: bigtls runs natively (status $st: $(one "$out"))"
out=$(LD_AUDIT=/tmp/none.so $BIG 2>&1); st=$?
[ "$st" = 127 ] && echo "$out" | grep -q 'cannot allocate memory in static TLS block'
ok $? "control: natively under an LD_AUDIT it does not load (status $st: $(echo "$out" | tail -1))"

out=$($XO $BIG 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "under xoload (the hook) it runs (status $st: $(one "$out"))"
out=$(XOLOAD_HOOK=0 $XO $BIG 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "under the audit module (XOLOAD_HOOK=0) it runs (status $st: $(one "$out"))"
out=$($XO /bin/sh -c "$BIG" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "as a child protected in place by the module it runs (status $st: $(one "$out"))"
out=$($XO /bin/sh -c /xonly/lib/xoload/smallthread 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "smallthread: ok" ]
ok $? "a child under the module starts a thread with a 32 KiB stack (status $st: $(one "$out"))"
if [ "${XONLY_STOCK_KERNEL:-0}" = 1 ]; then
	skip "a stock kernel has no xonly mode" "under --kernel, early and full path, it runs"
else
	out=$($XO --kernel $BIG 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
	ok $? "under --kernel (the early path) it runs (status $st: $(one "$out"))"
	out=$(GLIBC_TUNABLES=glibc.malloc.check=0 $XO --kernel $BIG 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
	ok $? "under --kernel with the user's GLIBC_TUNABLES (the full path joins them) it runs (status $st: $(one "$out"))"
	out=$(GLIBC_TUNABLES=glibc.malloc.check=0 $XO --kernel /usr/bin/env 2>&1 | grep '^GLIBC_TUNABLES=')
	[ "$out" = "GLIBC_TUNABLES=glibc.malloc.check=0:glibc.rtld.optional_static_tls=24576" ]
	ok $? "... the user's tunables kept, ours after them ($out)"
fi
echo "1..$n"
exit $fail
