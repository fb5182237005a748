#!/bin/sh
# net.sh - the safety net (issue 26 step 3; xoload(1), "Safety net"), in
# the VM, with deliberately wrong plans: root forges proven-rule cache
# entries (xocachetest forge-net) that make the page of a table in .text
# execute-only as a net page - a page only the proven-code rule made
# execute-only - for netprobe (datatext.S linked in: dt_sum() reads
# dt_table), for libdatatext.so, which it dlopen()s, and for
# netprobe-static (no ld.so, no module: the preloader's handler).  Rows:
#  - under xoload and under xoload --kernel (xonly mode, level 1), the
#    program and the library (the static program: under xoload only; the
#    kernel's mode has no module for it): the same output as natively (36), status 0,
#    and exactly one report line naming the object and offset read and
#    the object and offset of the instruction that read it;
#  - the table first read at exit, after ld.so's la_objclose of every
#    object (glibc's _dl_fini), from exit's stdio flush: the library's
#    under xoload, the program's and the library's under xoload --kernel
#    (there the module recorded the program too): the net still holds
#    them (they are closed, not unmapped): 36, status 0, one line;
#  - a library dlopen()ed and dlclose()d 4200 times (more objects and
#    more net ranges than the table has slots: 512 and 4096), then once
#    more and read: the net still takes it (closed slots are reused);
#  - xoload --audit= with a module whose table version differs
#    (xoaudit-othernet.so: another build, as far as the table goes): it
#    refuses the preloader's table with one line, so the program's net
#    page is not watched and its read kills (139); the library, which
#    that module records itself, still has the net;
#  - a program that installs a SIGSEGV handler of its own, then dlopens
#    the library: the library's net pages are kept readable at once (one
#    line), it prints 36;
#  - xoload --no-net, also with --kernel, and XOLOAD_NO_NET=1: killed by
#    SIGSEGV (status 139), no report line;
#  - a read of dt_sum's own code, a page the FDE rule made execute-only
#    (not a net page), with the net on: killed by SIGSEGV, no report line;
#  - the library's table page replaced by an anonymous PROT_EXEC page
#    (MAP_FIXED, no dlclose: the stale entry), read: not the recorded
#    file there any more, so killed, no line; also under --kernel;
#  - the strict level of xonly mode (execthrough --strict: PR_SET_XONLY 2
#    before xoload), where code is never made readable again: no net, the
#    library's net pages do not install the handler (at level 1, through
#    execthrough --xonly, they do: the row can tell), and its read kills
#    without a line;
#  - a SIGSEGV it sends itself that looks like a read fault at a net page
#    but carries key 0: killed, no line;
#  - with the real FDE cache (no forged entry): killed too, no line (the
#    net follows the entry, nothing else).
# Not in the xonly=on and xonly=strict boots (tests/xonly-on.skip): the
# native control run reads the table, which xonly mode makes execute-only.
XO=/xonly/bin/xoload
T=/xonly/lib/xoload
D=/xo-net
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-net: $2"; else echo "not ok $n - xoload-net: $2"; fail=1; fi; }
rm -rf $D && mkdir -p $D/cache $D/fde && chmod 755 $D $D/cache $D/fde && cd $D || exit 1
# Root's copies (the cache trusts only files root alone can change).
cp $T/netprobe $T/netprobe-static $T/libdatatext.so $D/ && chmod 755 $D/netprobe $D/netprobe-static $D/libdatatext.so
P=$D/netprobe S=$D/netprobe-static L=$D/libdatatext.so
set -- $($P addrs) $($P addrs $L) $($S addrs)
pt=$1 pi=$2 lt=$3 li=$4 st=$5 si=$6
$T/xocachetest forge-net $D/cache $P "$pt" && $T/xocachetest forge-net $D/cache $L "$lt" &&
	$T/xocachetest forge-net $D/cache $S "$st"
ok $? "forged proven entries: the table pages of $P ($pt), $L ($lt) and $S ($st) execute-only, as net pages"
out=$($T/xocachetest net $D/cache $P $L $S | tr '\t' ' ' | tr '\n' ';')
[ "$out" = "$P $pt $(printf '%#x' $((pt + 4096)));$L $lt $(printf '%#x' $((lt + 4096)));$S $st $(printf '%#x' $((st + 4096)));" ]
ok $? "the lookup decodes them ($out)"
export XOLOAD_CACHE_DIR=$D/cache

$P prog >native.out 2>&1; s0=$?
[ "$s0" = 0 ] && [ "$(cat native.out)" = 36 ]
ok $? "natively: netprobe prog prints 36 (status $s0)"

# net NAME OBJ TABLE INSN CMD...: status 0, stdout 36, one report line, the right one.
net() {
	name=$1 obj=$2 off=$3 insn=$4; shift 4
	"$@" >o.out 2>o.err; s=$?
	want="xoload: read of $obj+$off (a page only the proven-code rule made execute-only) by the instruction at $obj+$insn: made readable"
	[ "$s" = 0 ] && [ "$(cat o.out)" = 36 ] && [ "$(grep -c 'xoload: read of' o.err)" = 1 ] && grep -qxF "$want" o.err
	ok $? "$name: output as native (status $s, $(cat o.out)), one report line ($(grep 'xoload: read of' o.err | head -n 2 | tr '\n' ' '))"
	[ "$s" = 0 ] || sed 's/^/#   /' o.err | head -n 5
}
# dies NAME CMD...: killed by SIGSEGV (139), no report line.
dies() {
	name=$1; shift
	"$@" >o.out 2>o.err; s=$?
	[ "$s" = 139 ] && ! grep -q 'xoload: read of' o.err
	ok $? "$name: killed by SIGSEGV (status $s), no report line ($(head -n 1 o.err))"
}
net "xoload netprobe prog" $P $pt $pi $XO $P prog
net "xoload netprobe lib" $L $lt $li $XO $P lib $L
net "xoload netprobe-static prog (no module: the preloader's handler)" $S $st $si $XO $S prog
net "xoload --kernel netprobe prog" $P $pt $pi $XO --kernel $P prog
net "xoload --kernel netprobe lib" $L $lt $li $XO --kernel $P lib $L
# Read first at exit, after la_objclose (not a dlclose: nothing unmapped).
net "xoload netprobe exit lib (read at exit, after its la_objclose)" $L $lt $li $XO $P exit $L
net "xoload netprobe-static exit (read at exit, no module)" $S $st $si $XO $S exit
net "xoload --kernel netprobe exit (read at exit, after the program's la_objclose)" $P $pt $pi $XO --kernel $P exit
net "xoload --kernel netprobe exit lib" $L $lt $li $XO --kernel $P exit $L
# More dlopen/dlclose rounds than the table has slots: the last one still has the net.
net "xoload netprobe loop 4200 lib (slots reused)" $L $lt $li $XO $P loop 4200 $L
# A module of another build refuses the preloader's table (fail closed: not watched, the read kills).
$XO --audit=$T/xoaudit-othernet.so $P prog >o.out 2>o.err; s=$?
[ "$s" = 139 ] && ! grep -q 'xoload: read of' o.err &&
	grep -qxF "xoload: the preloader's safety net table is not this module's version: the net pages of the program and ld.so are not watched (a read of one kills)" o.err
ok $? "xoload --audit=xoaudit-othernet.so netprobe prog: the table refused with a line, killed (status $s, $(head -n 1 o.err))"
net "xoload --audit=xoaudit-othernet.so netprobe lib (the module's own entries)" $L $lt $li $XO --audit=$T/xoaudit-othernet.so $P lib $L
# A handler of the program's own: the library's net pages are kept readable (one line), it runs.
$XO $P own $L >o.out 2>o.err; s=$?
[ "$s" = 0 ] && [ "$(cat o.out)" = 36 ] && ! grep -q 'xoload: read of' o.err &&
	grep -qxF "xoload: $L: pages only the proven-code rule made execute-only kept readable (the program replaced the safety net's SIGSEGV handler)" o.err
ok $? "xoload netprobe own (its own SIGSEGV handler, then dlopen): 36 (status $s), the library's net pages kept readable ($(head -n 1 o.err))"
dies "xoload --no-net netprobe prog" $XO --no-net $P prog
dies "xoload --no-net netprobe lib" $XO --no-net $P lib $L
dies "xoload --no-net netprobe-static prog" $XO --no-net $S prog
dies "xoload --kernel --no-net netprobe lib" $XO --kernel --no-net $P lib $L
dies "XOLOAD_NO_NET=1 xoload netprobe lib" env XOLOAD_NO_NET=1 $XO $P lib $L
dies "XOLOAD_NO_NET=1 xoload --kernel netprobe prog" env XOLOAD_NO_NET=1 $XO --kernel $P prog
dies "xoload netprobe code (a page the FDE rule made execute-only)" $XO $P code
dies "xoload --kernel netprobe code" $XO --kernel $P code
# The net page's mapping replaced without dlclose: the handler finds another mapping there.
dies "xoload netprobe stale lib (its table page mapped over, no dlclose)" $XO $P stale $L
dies "xoload --kernel netprobe stale lib" $XO --kernel $P stale $L
# No net at the strict level: the disposition tells (a read dies either way there).
out=$($T/execthrough --xonly $XO $P disp $L 2>o.err); s=$?
[ "$s" = 0 ] && [ "$out" = handler ]
ok $? "level 1 (execthrough --xonly xoload netprobe disp lib): the net's SIGSEGV handler installed ($out, status $s)"
out=$($T/execthrough --strict $XO $P disp $L 2>o.err); s=$?
[ "$s" = 0 ] && [ "$out" = default ] && ! grep -q 'kept readable' o.err
ok $? "strict level (execthrough --strict xoload netprobe disp lib): no net, SIGSEGV's default action kept ($out, status $s)"
dies "strict level: xoload netprobe lib" $T/execthrough --strict $XO $P lib $L
# A SIGSEGV the program sends itself, as a read fault at the net page
# with key 0: not a fault of the execute-only key, so not the net's: it kills.
dies "xoload netprobe forge (SEGV_PKUERR at the net page, key 0, sent, not faulted)" $XO $P forge
# The FDE rule's real entries: the table stays readable, the net has nothing to do.
XOLOAD_CACHE_DIR=$D/fde $XO --update-cache --no-wait $P $L >/dev/null 2>&1
XOLOAD_CACHE_DIR=$D/fde $XO $P lib $L >o.out 2>o.err; s=$?
[ "$s" = 0 ] && [ "$(cat o.out)" = 36 ] && ! grep -q 'xoload: read of' o.err
ok $? "with the FDE rule's entries: 36, no report line (status $s)"
cd / && rm -rf $D
echo "1..$n"
exit $fail
