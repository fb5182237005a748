#!/bin/sh
# gdb.sh - debugging a program under xoload: gdb run under xoload
# (xoload gdb --args PROG), so that PROG is gdb's child and the audit
# module protects it in place (xoload(1), "Children").  Proves, for PROG
# bash:
#  - a breakpoint in libc's getpid is hit, with a backtrace to bash's
#    main: gdb writes its int3 into execute-only code and resolves PROG's
#    libraries' symbols;
#  - gdb disassembles the execute-only code there (a tracer's reads,
#    which the series lets through and a stock kernel never stopped);
#  - with the breakpoint removed and PROG resumed, bash's own code and
#    libc's are still execute-only (--xp with a key, none of bash r-xp).
# Where there is no gdb (the VM's image) it skips.  gdb on xoload itself
# (gdb --args xoload PROG) sees the static xoload and none of PROG's
# libraries: xoload(1) says to do it this way round.
. /xonly/lib/tap.sh
tap_init xoload-gdb
XO=/xonly/bin/xoload
D=/tmp/xogdb
rm -rf $D && mkdir -p $D
if ! command -v gdb >/dev/null 2>&1; then
	skip "no gdb here" "xoload gdb --args bash: a breakpoint in execute-only libc, and PROG still execute-only"
	tap_done
	exit 0
fi
# bash prints the executable mappings of its own smaps: "map perm key
# path" (awk a child: "; true" keeps bash from exec'ing it in its place).
cmd='awk "/^[0-9a-f]+-[0-9a-f]+ /{p=\$2; n=\$6} /^ProtectionKey:/{ if (p ~ /x/) print \"map\", p, \$2, n }" /proc/$$/smaps; true'
timeout 120 $XO gdb -q -batch -nx -ex 'set pagination off' -ex 'break getpid' -ex run -ex bt -ex 'x/2i $pc' \
	-ex delete -ex cont --args /bin/bash -c "$cmd" >$D/out 2>&1; st=$?
sed 's/^/#   /' $D/out
grep -Eq '^Breakpoint 1[.0-9]*, .*getpid' $D/out && grep -Eq '^#[0-9]+ .* in main \(' $D/out
ok $? "xoload gdb --args bash: the breakpoint in libc's getpid is hit, the backtrace reaches bash's main (status $st)"
grep -q '<__GI_getpid[+0-9]*>:.*mov .*,%eax' $D/out
ok $? "gdb disassembles libc's execute-only getpid (a tracer's read)"
bash_xo=$(awk '$1 == "map" && $4 ~ /\/bash$/ && $2 == "--xp" && $3 != 0' $D/out | wc -l)
bash_rx=$(awk '$1 == "map" && $4 ~ /\/bash$/ && $2 ~ /^r/' $D/out | wc -l)
libc_xo=$(awk '$1 == "map" && $4 ~ /\/libc\.so\.6$/ && $2 == "--xp" && $3 != 0' $D/out | wc -l)
[ "$st" = 0 ] && [ "$bash_xo" -ge 1 ] && [ "$bash_rx" = 0 ] && [ "$libc_xo" -ge 1 ]
ok $? "after the breakpoint, bash's code and libc's still execute-only ($bash_xo and $libc_xo --xp with a key, $bash_rx of bash readable; status $st)"
tap_done
