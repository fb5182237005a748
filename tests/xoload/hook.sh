#!/bin/sh
# hook.sh - xoload's default, forced here with XOLOAD_HOOK=1
# (xoloader/run/hook.c): ld.so's _dl_debug_state calls xoload, which
# protects each library ld.so maps, and no audit module is loaded.  Proves:
# without XOLOAD_HOOK the hook is used, XOLOAD_HOOK=0 gives the module and
# another value is a usage error; the module is not in PROG's maps and LD_AUDIT is
# back in PROG's environment for its children (removed with --no-inherit);
# a child is protected in place by the module, or with
# XOLOAD_CHILDREN=reexec runs under xoload again, hooked; libc, ld.so, PROG and a dlopen()ed
# library are execute-only (xo_probe); a library dlclose()d and dlopen()ed
# time, also while another thread calls the hook itself; no copy of a
# library's code stays readable after the identity check; a text-relocated
# library without build-id runs; a policy refusing the patched page R+X
# gets the module (126 with XOLOAD_HOOK=1); a dlmopen()ed namespace and its
# own libc are protected; an ld.so
# whose _dl_debug_state is missing or not an empty function with padding
# is refused (126, one line) where it runs without the hook, and by
# default (XOLOAD_HOOK unset) runs under the module instead; another
# module in LD_AUDIT, --audit= or the kernel's strict level gets the
# module; the kernel's xonly mode (level 1) takes the hook.
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
AUD=/xonly/lib/xoaudit.so
D=/tmp/xohook
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-hook: $2"; else echo "not ok $n - xoload-hook: $2"; fi; }
skip() { n=$((n + 1)); echo "ok $n - xoload-hook: $1 # SKIP $2"; }
rm -rf $D && mkdir -p $D
export XOLOAD_HOOK=1

out=$($XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1" ]
ok $? "xoload hookprobe: no audit module mapped, LD_AUDIT back for its children ($out, status $st)"

out=$(env -u XOLOAD_HOOK $XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1" ]
ok $? "without XOLOAD_HOOK (the default): hooked, no module mapped ($out, status $st)"

out=$(XOLOAD_HOOK= $XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1" ]
ok $? "XOLOAD_HOOK empty: the default, hooked ($out, status $st)"

out=$(XOLOAD_HOOK=0 $XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=1" ]
ok $? "control, XOLOAD_HOOK=0: the module is mapped ($out, status $st)"

out=$(XOLOAD_HOOK=yes $XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 2 ] && [ "$out" = "xoload: XOLOAD_HOOK: must be 0 (the audit module), 1 (the hook) or unset (see --help)" ]
ok $? "XOLOAD_HOOK=yes: a usage error, nothing run ($out, status $st)"

out=$($XO --no-inherit $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=(unset) xoaudit=0 nullaudit=0 xoload=1" ]
ok $? "--no-inherit: no LD_AUDIT left in the environment ($out, status $st)"

# A child: the module, loaded again through LD_AUDIT, protects it in
# place (in the kernel's xonly mode it carves its data out in place), as
# without the hook; XOLOAD_CHILDREN=reexec runs it under xoload again,
# hooked again (children.sh tests both further).
child="LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=0"
out=$($XO /bin/bash -c "$L/hookprobe env; exit \$?" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$child" ]
ok $? "a child of a hooked bash: protected in place by the module, as without the hook ($out, status $st)"
[ "$(awk '/^Xonly:/ { print $2 }' /proc/self/status)" = 1 ] || child="LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1"
out=$(XOLOAD_CHILDREN=reexec $XO /bin/bash -c "$L/hookprobe env; exit \$?" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$child" ]
ok $? "XOLOAD_CHILDREN=reexec: a child of a hooked bash runs under xoload again, hooked again ($out, status $st)"

XOLOAD_TIMES=1 /xonly/tests/xoload/xo_probe >$D/probe 2>&1; st=$?
grep -v '^xoload: time: ' $D/probe | sed 's/^/#   /'
[ "$st" = 0 ] && [ "$(grep -c '^ok' $D/probe)" -ge 10 ] && ! grep -q '^not ok' $D/probe &&
	grep -q '^xoload: time: protected .*/libxoprobe.so ' $D/probe && grep -q '^xoload: time: hook [0-9]*$' $D/probe &&
	! grep -q '^xoload: time: module [0-9]*$' $D/probe
ok $? "xo_probe hooked (the hook protected its dlopen()ed library): main, libc, ld.so and that library execute-only (status $st)"

out=$($XO $L/hookprobe reopen 40 $L/libxoprobe.so 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
[ "$st" = 0 ] && echo "$out" | grep -q "^reopen: 40 of 40 rounds execute-only"
ok $? "dlopen/dlclose 40 times: protected every time (status $st)"
echo "$out" | grep -q "rounds execute-only, [1-9][0-9]* at the same address"
ok $? "... and ld.so did reuse the address and the link map (the case the hook must not skip)"

out=$($XO $L/hookprobe brkrace 20 $L/libxoprobe.so 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
[ "$st" = 0 ] && echo "$out" | grep -q "^reopen: 20 of 20 rounds execute-only" &&
	echo "$out" | grep -q "^brkrace: r_brk called [1-9][0-9]* times"
ok $? "another thread calling _r_debug.r_brk (the hook) meanwhile: every dlopen still protected, no crash (status $st)"

# A library without build-id is compared with its file through a buffer
# (run/sameobj.c): no copy of its code may stay behind in readable memory.
if [ "$(awk '/^Xonly:/ { print $2 }' /proc/self/status)" = 1 ]; then
	skip "control, natively: codecopy finds the library's code" "the kernel's xonly mode maps it execute-only natively"
else
	out=$(LD_LIBRARY_PATH=$L $L/codecopy 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "codecopy: 1 in the library's own mapping, 0 elsewhere" ]
	ok $? "control, natively: codecopy finds the library's code where it is mapped ($out, status $st)"
fi
for how in 1 0; do
	out=$(XOLOAD_HOOK=$how $XO $L/codecopy 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "codecopy: 0 in the library's own mapping, 0 elsewhere" ]
	ok $? "XOLOAD_HOOK=$how: no readable copy of a build-id-less library's code, after its identity check ($out, status $st)"
done

# Text relocations without build-id: the hook meets the library relocated,
# and its plan (readable: TEXTREL) needs no identity check.
out=$($XO $L/textrel-nobid-user 2>$D/err); st=$?
sed 's/^/#   /' $D/err
[ "$st" = 0 ] && [ "$out" = "textrel 42" ] && grep -q 'libtextrel-nobid.so: warning: ' $D/err
ok $? "a TEXTREL library without build-id at startup: runs hooked, kept readable with a warning ($out, status $st)"

# A policy that refuses execute permission to code written to (SELinux
# without execmod), here a tracer (the test kernel has no seccomp
# filters): mprotect(4096, R+X) refused, and then execute permission for
# that page until it is mapped again.
# denyexecmod says on stderr how many it refused.
out=$($L/denyexecmod $L/hello 2>$D/err); st=$?
[ "$st" = 0 ] && [ "$out" = hello ] && grep -q '^denyexecmod: 0 mprotect' $D/err
ok $? "control: hello natively under denyexecmod, nothing refused ($out, status $st)"
out=$(env -u XOLOAD_HOOK XOLOAD_TIMES=1 $L/denyexecmod $XO $L/hello 2>&1); st=$?
echo "$out" | grep -v '^xoload: time: ' | sed 's/^/#   /'
[ "$st" = 0 ] && echo "$out" | grep -qx hello && echo "$out" | grep -q '^xoload: time: module [0-9]*$' &&
	! echo "$out" | grep -q '^xoload: time: hook [0-9]*$' && echo "$out" | grep -q '^denyexecmod: 1 mprotect'
ok $? "ld.so's patched page refused R+X, by default: its file's page mapped back, the module (status $st)"
out=$($L/denyexecmod $XO $L/hello 2>$D/err); st=$?
out=$(grep -v '^denyexecmod: ' $D/err)
[ "$st" = 126 ] && case "$out" in "xoload: XOLOAD_HOOK: "*": cannot restore its code's protection") true ;; *) false ;; esac
ok $? "the same with XOLOAD_HOOK=1: refused ($out, status $st)"

out=$($XO $L/hookprobe newns $L/libxoprobe.so 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "dlmopen: the library and its namespace's libc execute-only" ]
ok $? "dlmopen(LM_ID_NEWLM): the library and the new namespace's libc execute-only ($out, status $st)"

# ldcase MODE WHAT WHY: hello-ldtmp's interpreter is ld.so patched by
# ldpatch MODE; it runs under the module (XOLOAD_HOOK=0, and by default,
# where the hook does not fit), and XOLOAD_HOOK=1 refuses it with WHY.
ldcase() {
	$L/ldpatch "$1" /lib64/ld-linux-x86-64.so.2 /tmp/xo-hook-ld.so
	out=$(XOLOAD_HOOK=0 $XO $L/hello-ldtmp 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = hello ]
	ok $? "control: an ld.so $2 runs hello under the module ($out, status $st)"
	out=$(env -u XOLOAD_HOOK XOLOAD_TIMES=1 $XO $L/hello-ldtmp 2>&1); st=$?
	[ "$st" = 0 ] && echo "$out" | grep -qx hello && echo "$out" | grep -q '^xoload: time: module [0-9]*$' &&
		! echo "$out" | grep -q '^xoload: time: hook [0-9]*$'
	ok $? "that ld.so by default: the module, not the hook (status $st)"
	out=$($XO $L/hello-ldtmp 2>&1); st=$?
	[ "$st" = 126 ] && [ "$out" = "xoload: XOLOAD_HOOK: /tmp/xo-hook-ld.so$3" ]
	ok $? "that ld.so with XOLOAD_HOOK=1: refused ($out, status $st)"
}
ldcase slot "with a second ret after _dl_debug_state" ": _dl_debug_state is not followed by padding"
ldcase name "without the name _dl_debug_state" " exports no _dl_debug_state or _r_debug"
# Older than glibc 2.35 to the hook's eye: dlmopen() namespaces would be
# out of its sight, so the module does the job (its XOLOAD_TIMES event).
$L/ldpatch old /lib64/ld-linux-x86-64.so.2 /tmp/xo-hook-ld.so
out=$(XOLOAD_TIMES=1 $XO $L/hello-ldtmp 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx hello && echo "$out" | grep -q '^xoload: time: module [0-9]*$' &&
	! echo "$out" | grep -q '^xoload: time: hook [0-9]*$'
ok $? "an ld.so without __rseq_offset (older than 2.35): the module, not the hook (status $st)"
rm -f /tmp/xo-hook-ld.so

out=$(LD_AUDIT=/lib/x86_64-linux-gnu/libz.so.1 $XO $L/hello 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
[ "$st" = 0 ] && echo "$out" | grep -qx hello
ok $? "LD_AUDIT naming a library that is no audit module (ld.so ignores it, unloads it): hello runs (status $st)"

out=$(LD_AUDIT=$L/libnullaudit.so $XO $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD:$L/libnullaudit.so xoaudit=1 nullaudit=1 xoload=1" ]
ok $? "another module in LD_AUDIT: ours first, then it, as without the hook ($out, status $st)"

out=$($XO --audit=$AUD $L/hookprobe env 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=1" ]
ok $? "--audit=: the module, as without the hook ($out, status $st)"

want=$(python3 -c 'import hashlib; print(hashlib.sha256(b"xo").hexdigest())' 2>&1)
XOLOAD_TIMES=1 $XO python3 -c 'import hashlib; print(hashlib.sha256(b"xo").hexdigest())' >$D/py 2>$D/pyerr; st=$?
out=$(cat $D/py)
[ "$st" = 0 ] && [ "$out" = "$want" ] && grep -q '^xoload: time: protected .*/libcrypto\.so[.0-9]* ' $D/pyerr
ok $? "python3 hashlib: as native, libcrypto (dlopen()ed by _hashlib) protected by the hook ($out, status $st)"

if $L/execthrough --xonly /usr/bin/true 2>/dev/null; then
	out=$($L/execthrough --xonly $XO $L/hookprobe env 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1" ]
	ok $? "in the kernel's xonly mode (level 1): hooked, ld.so patched ($out, status $st)"
	out=$($L/execthrough --strict $XO $L/hookprobe env 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=1" ]
	ok $? "at the strict level (no code may be made writable): the module ($out, status $st)"
else
	skip "in the kernel's xonly mode" "no PR_SET_XONLY on this kernel"
	skip "at the strict level" "no PR_SET_XONLY on this kernel"
fi
rm -rf $D
echo "1..$n"
