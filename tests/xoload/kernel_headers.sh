#!/bin/sh
# kernel_headers.sh - under --kernel the kernel maps every PF_X segment
# execute-only as it is mapped, and ld.so reads each object's program
# headers and notes from its mapping before anything of xoload's can make
# them readable.  Where they lie in a code segment:
#  - a library (libfarcode.so, its headers moved into a code segment of
#    their own by movephdrs, as BOLT leaves Rust's librustc_driver): the
#    audit module's load guard (run/net.c) makes that page readable when
#    ld.so's read faults, as the library's plan would, and the program
#    runs, linking one such library and dlopen()ing another, with the
#    libraries' own code still execute-only, and SIGSEGV's disposition is
#    the default again when main runs and after the dlopen() (the guard's
#    handler is there only while ld.so loads: Rust's std installs its
#    own only over the default); without the module
#    (--kernel-plans, no plan) the same program dies of SIGSEGV, the row
#    that shows the fault is real; a -z noseparate-code library, whose
#    tables ld.so reads on the headers' page, runs too; one whose hash
#    table ld.so reads from another page of code is not helped (only
#    headers and notes are given back): one line names it, SIGSEGV;
#  - the program itself (hello-nosep, -z noseparate-code): ld.so reads its
#    headers before the module is loaded, so xoload refuses it, 126 and
#    one line naming it, by the early path and the full path alike, where
#    it used to die of SIGSEGV without a word; a static one is not refused
#    (no ld.so: Go's headers lie in its code, and Go does not read them).
#  - xoload without --kernel in xonly mode (xonly=on): the kernel maps the
#    libraries just so, and the hook (for startup libraries) and the module
#    (for dlopen()ed ones too) put up the same guard; at the strict level
#    nothing is given back (one line, SIGSEGV); the hash table is not
#    given back there either.
# Copies in /tmp: no plan (trusted.xonly) of the image's comes with them.
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
D=/tmp/xo-khdr
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - kernel-headers: $2"; else echo "not ok $n - kernel-headers: $2"; fi; }

if ! $XO --kernel-plans /usr/bin/true 2>/dev/null; then
	echo "1..0 # SKIP no xonly exec mode here (xoload --kernel-plans /usr/bin/true fails)"
	exit 0
fi
# Natively, and under xoload without --kernel, only outside xonly mode:
# under xonly=on and xonly=strict every process is in it, and these copies
# have no plans.
lvl=$(sed -n 's/^Xonly:[[:space:]]*//p' /proc/self/status)
outside() { [ "${lvl:-0}" = 0 ]; }
skip() { n=$((n + 1)); echo "ok $n - kernel-headers: $1 # SKIP in xonly mode (level $lvl): the copies have no plans"; }
rm -rf $D && mkdir -p $D && cp $L/farcodeuser $L/libfarcode.so $L/libfarcode-dl.so $L/hello-nosep $D/ || exit 1
export LD_LIBRARY_PATH=$D

want='farcode_fn(2) = 11
SIGSEGV: default
dlopen: farcode_fn(3) = 16
SIGSEGV: default'
# The result lines, and the protection key of each executable mapping of the libraries.
run() { out=$("$@" $D/farcodeuser $D/libfarcode-dl.so 2>$D/err); st=$?; }
res() { echo "$out" | grep -v '^map '; }
keys() { echo "$out" | grep "^map $1 " | sed 's/.* key //' | tr '\n' ' '; }

if outside; then
	run
	[ "$st" = 0 ] && [ "$(res)" = "$want" ]
	ok $? "natively: farcodeuser runs (status $st: $(echo "$out" | tr '\n' ' '))"
else
	skip "natively: farcodeuser runs"
fi

run $XO --kernel-plans
[ "$st" = 139 ]
ok $? "--kernel-plans, no module, no plan: dies of SIGSEGV, ld.so reading the headers (status $st, want 139)"

run $XO --kernel
# Each library: one page of headers made readable (key 0), its .text execute-only (key > 0).
xo_lib() { echo "$out" | grep "^map $1 " | grep -qv ' key 0$' && echo "$out" | grep -q "^map $1 .* key 0$"; }
[ "$st" = 0 ] && [ "$(res)" = "$want" ] && [ ! -s $D/err ] && xo_lib libfarcode.so && xo_lib libfarcode-dl.so
ok $? "--kernel: runs, linked and dlopen()ed library alike, their code execute-only, SIGSEGV at the default in main (status $st: $(res | tr '\n' ' '); keys: libfarcode.so $(keys libfarcode.so), libfarcode-dl.so $(keys libfarcode-dl.so); stderr: $(head -c 300 $D/err))"

run $XO --kernel --
[ "$st" = 0 ] && [ "$(res)" = "$want" ] && [ ! -s $D/err ] && xo_lib libfarcode.so && xo_lib libfarcode-dl.so
ok $? "--kernel by the full path: the same (status $st: $(res | tr '\n' ' '); stderr: $(head -c 300 $D/err))"

# xoload without --kernel: in xonly mode (xonly=on) the kernel maps the
# libraries as under --kernel, and the module and the hook put up the same
# guard while ld.so loads (without it both died of SIGSEGV there, no
# line).  The hook's call comes before ld.so maps a startup library, but
# in dlopen() only after the object is mapped: the hook's row runs
# farcodeuser without its dlopen(), with XOLOAD_HOOK=1 (the hook or 126,
# also in the boot that exports XOLOAD_HOOK=0).  At the strict level
# xoload takes the module (no code is made writable there, so no hook),
# and no page of code can be given back without a plan: one line naming
# the library, SIGSEGV.
want1='farcode_fn(2) = 11
SIGSEGV: default'
strict_refused() {
	[ "$st" = 139 ] && [ "$(wc -l < $D/err)" = 1 ] &&
		grep -q "^xoload: ld.so read $D/libfarcode.so+0x[0-9a-f]* (its headers, but its page could not be made readable)" $D/err
}
if [ "$lvl" = 2 ]; then
	run env XOLOAD_HOOK=0 $XO
	strict_refused
	ok $? "xoload farcodeuser at the strict level (the module): refused by the guard, one line, SIGSEGV (status $st: $(head -c 300 $D/err))"
	out=$(XOLOAD_HOOK=1 $XO $D/farcodeuser 2>$D/err); st=$?
	strict_refused
	ok $? "XOLOAD_HOOK=1 xoload farcodeuser at the strict level (the module all the same): refused by the guard, one line, SIGSEGV (status $st: $(head -c 300 $D/err))"
else
	out=$(XOLOAD_HOOK=1 $XO $D/farcodeuser 2>$D/err); st=$?
	[ "$st" = 0 ] && [ "$(res)" = "$want1" ] && [ ! -s $D/err ] && xo_lib libfarcode.so
	ok $? "XOLOAD_HOOK=1 xoload (the hook) farcodeuser: runs, its library's code execute-only, SIGSEGV at the default in main (status $st: $(res | tr '\n' ' '); keys: libfarcode.so $(keys libfarcode.so); stderr: $(head -c 300 $D/err))"
	run env XOLOAD_HOOK=0 $XO
	[ "$st" = 0 ] && [ "$(res)" = "$want" ] && [ ! -s $D/err ] && xo_lib libfarcode.so && xo_lib libfarcode-dl.so
	ok $? "XOLOAD_HOOK=0 xoload (the module): runs, linked and dlopen()ed library alike, their code execute-only, SIGSEGV at the default in main (status $st: $(res | tr '\n' ' '); stderr: $(head -c 300 $D/err))"
fi

if outside; then
	$D/hello-nosep hi >/dev/null 2>&1
	ok $? "natively: the -z noseparate-code hello runs"
else
	skip "natively: the -z noseparate-code hello runs"
fi
for how in "--kernel" "--kernel --"; do
	err=$($XO $how $D/hello-nosep hi 2>&1); st=$?
	[ "$st" = 126 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
		echo "$err" | grep -q "^xoload: $D/hello-nosep: its program headers or notes lie in a code segment"
	ok $? "xoload $how hello-nosep: refused, 126 and one line naming it (got $st: $err)"
done
# libgap.so (-z noseparate-code: headers, tables and code in one R+X
# segment): the page ld.so reads before la_objopen() holds its headers.
cp $L/libgap.so $L/gapuser $L/libfarhash.so $L/farhashuser $L/libfarprop.so $L/farpropuser $L/hello-static-nosep $D/
out=$($XO --kernel $D/gapuser 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx 'gap_fn(2) = 13'
ok $? "--kernel gapuser: a -z noseparate-code library whose first page ld.so reads runs (status $st: $(echo $out | head -c 200))"
# libfarprop.so: ld.so reads its headers (one page of code), then its GNU
# property note (the next page): both given back, the second by the
# notes' rule (with that rule taken out, this row fails: session 47).
out=$($XO --kernel $D/farpropuser 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = 'farhash_fn(1) = 2' ]
ok $? "--kernel farpropuser: a library whose headers and property note ld.so reads from code runs (status $st: $out)"
# libfarhash.so's .gnu.hash in its code segment, away from its headers.
out=$($XO --kernel $D/farhashuser 2>&1); st=$?
[ "$st" = 139 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
	echo "$out" | grep -q "^xoload: ld.so read $D/libfarhash.so+0x1000 (not its headers) while it loaded it"
ok $? "--kernel farhashuser: ld.so's read of a hash table in code is not given back: one line naming the library, SIGSEGV (status $st: $out)"
out=$($XO $D/farhashuser 2>&1); st=$?
if outside || [ "$lvl" = 3 ]; then
	# (The module, XOLOAD_HOOK=0, also says that no page of it can be execute-only.)
	[ "$st" = 0 ] && [ "$(echo "$out" | grep -v '^xoload: ')" = 'farhash_fn(1) = 2' ]
	ok $? "xoload farhashuser (no --kernel): runs (status $st: $out)"
else
	# In xonly mode the kernel maps it as under --kernel: the guard's line, as there.
	[ "$st" = 139 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
		echo "$out" | grep -q "^xoload: ld.so read $D/libfarhash.so+0x1000 (not its headers) while it loaded it"
	ok $? "xoload farhashuser (no --kernel) in xonly mode: the hash table in code is not given back: one line, SIGSEGV (status $st: $out)"
fi
# No ld.so, no refusal: glibc's static start reads its headers itself and
# dies, as any static program with data in its code may (xoload(1)).
out=$($XO --kernel $D/hello-static-nosep hi 2>&1); st=$?
! echo "$out" | grep -q 'lie in a code segment'
ok $? "--kernel hello-static-nosep: a static program is not refused for its headers (status $st: $out)"
rm -rf $D
echo "1..$n"
