#!/bin/sh
# selfprotect.sh - xoload and its audit module fail closed when they cannot
# make their own code execute-only.  xoload does it just before it jumps
# to ld.so (run/runpath.c, handover(): rt_protect_self()); xoaudit.so as
# the first thing of la_version() (run/audit.c, protect_self()).  A policy
# that refuses it is played by a tracer (the test kernel has no seccomp
# filters): lib/denyexecmod --self-of PATH refuses with EACCES every
# mprotect()/pkey_mprotect() with PROT_EXEC of a range in an executable
# mapping of PATH, and says on stderr how many.  Proves:
#   - control: with a PATH that PROG never maps, hello runs under xoload
#     as without the tracer (status 0, "hello", nothing refused); natively,
#     with hello's own path, nothing is refused either (ld.so makes no
#     mprotect(PROT_EXEC) of its own that the tracer would catch);
#   - xoload's own code refused: by default (the hook), under the module
#     (XOLOAD_HOOK=0), with a static PROG and with --permissive (xoload's
#     own code is not PROG's: --permissive does not cover it): status 126,
#     no output of hello, exactly xoload's one line, one call refused;
#   - the module's own code refused (XOLOAD_HOOK=0): status 126, no
#     output of hello, exactly the module's one line, one call refused;
#     also with --permissive, in a program that inherited LD_AUDIT without
#     xoload (the module's re-exec under xoload comes after it), and under
#     xoload --kernel where the kernel has the xonly mode;
#   - control: the hook (XOLOAD_HOOK=1) loads no module, so refusing the
#     module's code refuses nothing: hello runs (not at the strict level,
#     where XOLOAD_HOOK falls back to the module).
# Each row sets XOLOAD_HOOK itself, so the rows hold on every boot of
# scripts/check (xonly=on, xonly=strict, xonly=learn, and xonly.hook=0,
# which exports XOLOAD_HOOK=0); at the strict level the default row sees
# the module and the hook control skips itself; the --kernel row needs
# the series' kernel (skipped on make check-hw's stock kernel).
. /xonly/lib/tap.sh
tap_init xoload-selfprotect
XO=/xonly/bin/xoload
AUD=/xonly/lib/xoaudit.so
L=/xonly/lib/xoload
H=$L/hello
DEM=$L/denyexecmod
D=/tmp/xoself
rm -rf $D && mkdir -p $D
level=$(awk '/^Xonly:/ { print $2 }' /proc/self/status)
XO_LINE="xoload: mprotect(PROT_EXEC) of xoload's own code failed: not run"
AUD_LINE="xoload: xoaudit.so: cannot make its own code execute-only: not run"

# run PATH CMD...: CMD (found on PATH) under denyexecmod --self-of PATH; sets st (its
# status), out (its stdout), err (its stderr but the tracer's count line) and
# refused (how many calls the tracer refused, "?" without its line).
run() {
	p=$1; shift
	"$DEM" --self-of "$p" "$@" >$D/out 2>$D/err; st=$?
	out=$(cat $D/out)
	err=$(grep -v '^denyexecmod: [0-9]* mprotect' $D/err)
	refused=$(sed -n 's/^denyexecmod: \([0-9]*\) mprotect(PROT_EXEC) of .* refused$/\1/p' $D/err)
	refused=${refused:-?}
}
# closed WHAT LINE: status 126, nothing on stdout (PROG did not run), LINE
# alone on stderr, one call refused.
closed() {
	[ "$st" = 126 ] && [ -z "$out" ] && [ "$err" = "$2" ] && [ "$refused" = 1 ]
	ok $? "$1: status $st, stdout '$out', stderr '$err', $refused refused"
}
# runs WHAT: status 0, "hello", nothing else, nothing refused.
runs() {
	[ "$st" = 0 ] && [ "$out" = hello ] && [ -z "$err" ] && [ "$refused" = 0 ]
	ok $? "$1: status $st, stdout '$out', stderr '$err', $refused refused"
}

run /nonexistent/xo-none env -u XOLOAD_HOOK $XO $H
runs "control: --self-of a path nothing maps, xoload hello by default"
run /nonexistent/xo-none env XOLOAD_HOOK=0 $XO $H
runs "control: the same under the module (XOLOAD_HOOK=0)"
run $H $H
runs "control: hello natively, --self-of hello itself"

run $XO env -u XOLOAD_HOOK $XO $H
closed "xoload's own code refused, by default (the hook; at the strict level the module)" "$XO_LINE"
run $XO env XOLOAD_HOOK=0 $XO $H
closed "xoload's own code refused, under the module (XOLOAD_HOOK=0)" "$XO_LINE"
run $XO $XO $L/hello-static
[ "$st" = 126 ] && [ -z "$out" ] && [ "$err" = "$XO_LINE" ] && [ "$refused" = 1 ]
ok $? "xoload's own code refused, a static PROG (no ld.so): status $st, stdout '$out', stderr '$err', $refused refused"
run $XO env -u XOLOAD_HOOK $XO --permissive $H
closed "xoload's own code refused, with --permissive (it covers PROG's code, not xoload's)" "$XO_LINE"

run $AUD env XOLOAD_HOOK=0 $XO $H
closed "the module's own code refused (XOLOAD_HOOK=0)" "$AUD_LINE"
run $AUD env XOLOAD_HOOK=0 $XO --permissive $H
closed "the module's own code refused, with --permissive" "$AUD_LINE"
# hello with LD_AUDIT inherited (as a child of PROG has it): the module
# would re-execute it under xoload, but its own code comes first.
run $AUD env LD_AUDIT=$AUD $H
closed "the module's own code refused in a program that inherited LD_AUDIT (not under xoload)" "$AUD_LINE"
# The series' kernels show "Xonly:" (at every level; execthrough --xonly,
# hook.sh's probe, cannot lower the strict level to 1).
if [ -n "$level" ]; then
	run $AUD $XO --kernel $H
	closed "the module's own code refused under xoload --kernel (level ${level})" "$AUD_LINE"
else
	skip "no xonly mode on this kernel (no Xonly: in /proc/self/status)" \
		"the module's own code refused under xoload --kernel"
fi

if [ "$level" = 2 ]; then
	skip "XOLOAD_HOOK=1 falls back to the module at the strict level" \
		"control: the hook maps no module, --self-of it refuses nothing"
else
	run $AUD env XOLOAD_HOOK=1 $XO $H
	runs "control: the hook (XOLOAD_HOOK=1) maps no module, --self-of it refuses nothing"
fi
rm -rf $D
tap_done
