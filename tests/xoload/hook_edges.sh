#!/bin/sh
# hook_edges.sh - ld.so's hook (xoloader/run/hook.c, xoload's default;
# forced here with XOLOAD_HOOK=1) at its edges, each case also under the
# audit module (XOLOAD_HOOK=0).  Proves:
#   - the gate stops PROG (126, xoload's one line, PROG's output absent)
#     when ld.so never calls the hook: an ld.so copy with every call to
#     _dl_debug_state taken out (ldpatch nocall), and one that calls it
#     only with RT_ADD/RT_DELETE, never RT_CONSISTENT (ldpatch nocons),
#     with XOLOAD_HOOK=1 and by default (unset);
#     both copies run hello under the module, --permissive runs it with
#     the gate's warning, and an unpatched copy at the same path runs it
#     hooked (the hook's XOLOAD_TIMES event);  glibc's ld.so itself has
#     no path that reaches PROG's entry without the startup RT_CONSISTENT
#     call (elf/rtld.c), so patched copies are the way to get there;
#   - threads that dlopen() and dlclose() three libraries at once (4 x 50
#     rounds: libxoprobe.so and libz, unmapped by each last dlclose, and
#     libcrypto, NODELETE) read each library's code only to fault
#     SEGV_PKUERR once dlopen() returned, with no crash or hang (an alarm),
#     hooked and under the module; and hooked again while 2 more threads
#     call _dl_debug_state (r_debug.r_brk) themselves in a loop, which
#     only the hook's own lock keeps out of the hook while ld.so is in it;
#   - a preinit_array entry, the constructor of a DT_NEEDED library and
#     PROG's own constructor read libc's getpid and fault SEGV_PKUERR,
#     hooked and under the module;
#   - and records what an IFUNC resolver of PROG sees of libc while ld.so
#     relocates PROG: readable under the hook (the README's documented
#     window: libc is protected at the consistent call, after relocation),
#     execute-only under the module; a change either way fails the row;
#   - the hook called again from within itself (a signal handler that
#     calls r_brk, the signal sent by a tracer at a system call the hook
#     makes under its lock) exits 126 with xoload's one line, no hang;
#     under the module the same program runs (r_brk is empty there).
. /xonly/lib/tap.sh
tap_init xoload-hook-edges
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
LD=/lib64/ld-linux-x86-64.so.2
D=/tmp/xohookedge
rm -rf $D && mkdir -p $D
export XOLOAD_HOOK=1
# The kernel's xonly mode (xonly=on) makes file code execute-only at mmap():
# libc is execute-only from the start, under the hook too.
xonly=$(awk '/^Xonly:/ { print $2 }' /proc/self/status)

# hooked / bymodule: the XOLOAD_TIMES events in $D/err say which did the job.
hooked() { grep -q '^xoload: time: hook [0-9]*$' $D/err && ! grep -q '^xoload: time: module [0-9]*$' $D/err; }
bymodule() { grep -q '^xoload: time: module [0-9]*$' $D/err && ! grep -q '^xoload: time: hook [0-9]*$' $D/err; }

# --- 1. the gate when the hook is never called --------------------------------
gate="xoload: ld.so never called xoload's hook (_dl_debug_state) with a consistent link map: $L/hello-ldtmp not run"
warn="xoload: warning: ld.so never called xoload's hook (_dl_debug_state) with a consistent link map: the libraries' code is readable (--permissive)"

cp $LD /tmp/xo-hook-ld.so
XOLOAD_TIMES=1 $XO $L/hello-ldtmp >$D/out 2>$D/err; st=$?
[ "$st" = 0 ] && [ "$(cat $D/out)" = hello ] && hooked
ok $? "control: an unpatched ld.so copy at /tmp/xo-hook-ld.so runs hello-ldtmp hooked ($(cat $D/out), status $st)"

# gated MODE WHAT: ldpatch MODE; the copy runs hello under the module, the
# hooked run is stopped by the gate.  Sets $calls (calls taken out).
gated() {
	calls=$($L/ldpatch "$1" $LD /tmp/xo-hook-ld.so | sed -n 's/^ldpatch: \([0-9]*\) calls .*/\1/p')
	XOLOAD_HOOK=0 XOLOAD_TIMES=1 $XO $L/hello-ldtmp >$D/out 2>$D/err; st=$?
	[ "$st" = 0 ] && [ "$(cat $D/out)" = hello ] && bymodule
	ok $? "control: an ld.so $2 ($calls calls out) runs hello under the module ($(cat $D/out), status $st)"
	$XO $L/hello-ldtmp >$D/out 2>$D/err; st=$?
	[ "$st" = 126 ] && [ ! -s $D/out ] && [ "$(cat $D/err)" = "$gate" ]
	ok $? "that ld.so hooked: the gate stops PROG, status $st, '$(cat $D/err)'$([ -s $D/out ] && echo ", PROG printed $(cat $D/out)")"
	env -u XOLOAD_HOOK $XO $L/hello-ldtmp >$D/out 2>$D/err; st=$?
	[ "$st" = 126 ] && [ ! -s $D/out ] && [ "$(cat $D/err)" = "$gate" ]
	ok $? "... and by default (XOLOAD_HOOK unset): the same, status $st, '$(cat $D/err)'$([ -s $D/out ] && echo ", PROG printed $(cat $D/out)")"
}
gated nocall "that never calls _dl_debug_state"
all=$calls
$XO --permissive $L/hello-ldtmp >$D/out 2>$D/err; st=$?
[ "$st" = 0 ] && [ "$(cat $D/out)" = hello ] && [ "$(cat $D/err)" = "$warn" ]
ok $? "... with --permissive: hello runs after the gate's warning (status $st, '$(cat $D/err)')"
gated nocons "that calls _dl_debug_state with RT_ADD only, never RT_CONSISTENT"
[ "${calls:-0}" -gt 0 ] && [ "${all:-0}" -gt "$calls" ]
ok $? "... and that ld.so still calls it: $calls of its $all calls taken out, the RT_ADD/RT_DELETE ones left"
rm -f /tmp/xo-hook-ld.so

# --- 2. dlopen() and dlclose() from 4 threads at once --------------------------
libs="$L/libxoprobe.so:xoprobe_fn /lib/x86_64-linux-gnu/libz.so.1:zlibVersion"
for c in /lib/x86_64-linux-gnu/libcrypto.so.3 /usr/lib/x86_64-linux-gnu/libcrypto.so.3; do
	[ -e $c ] && libs="$libs $c:OpenSSL_version_num" && break
done
want="threads: 4 x 50 rounds on 3 libraries: 200 of 200 reads SEGV_PKUERR"
XOLOAD_TIMES=1 $XO $L/hookthreads 4 50 $libs >$D/out 2>$D/err; st=$?
sed 's/^/#   /' $D/out
[ "$st" = 0 ] && grep -q "^$want (" $D/out && hooked
ok $? "hooked, 4 threads x 50 rounds of dlopen, read, dlclose on libxoprobe, libz and libcrypto: every read SEGV_PKUERR, no crash or hang (status $st; 142 is the alarm)"
fresh=$(sed -n 's/.*; \([0-9]*\) found the library not loaded$/\1/p' $D/out)
[ "${fresh:-0}" -ge 5 ]
ok $? "... and the libraries were unmapped and mapped again while the threads ran: ${fresh:-no} rounds found theirs not loaded"
# The same with 2 more threads that call _dl_debug_state themselves in a
# loop, outside ld.so's load lock: without the hook's own lock (hook.c,
# hook_enter) they and the dlopen()ing thread plan and protect the same new
# library at once, in shared tables and one static plan.
XOLOAD_TIMES=1 $XO $L/hookthreads -b 2 4 50 $libs >$D/out 2>$D/err; st=$?
grep -v '^xoload: time: ' $D/err | cat $D/out - | sed 's/^/#   r_brk: /'
[ "$st" = 0 ] && grep -q "^$want (.*; 2 threads called r_brk [1-9][0-9]* times$" $D/out && hooked
ok $? "hooked, the same while 2 more threads call _dl_debug_state (r_debug.r_brk) in a loop: every read SEGV_PKUERR, no crash, hang or refusal (status $st)"
XOLOAD_HOOK=0 XOLOAD_TIMES=1 $XO $L/hookthreads 4 50 $libs >$D/out 2>$D/err; st=$?
[ "$st" = 0 ] && grep -q "^$want (" $D/out && bymodule
ok $? "control, under the module: the same (status $st, $(tail -n 1 $D/out))"

# --- 3. code before main reading libc ------------------------------------------
early="hookctor's preinit_array entry: SEGV_PKUERR
the constructor of libhookctor.so (DT_NEEDED): SEGV_PKUERR
hookctor's constructor: SEGV_PKUERR"
rline="hookctor's IFUNC resolver:"
XOLOAD_TIMES=1 $XO $L/hookctor >$D/hook 2>$D/err; hst=$?
hooked; hmech=$?
grep -v '^xoload: time: ' $D/err | cat $D/hook - | sed 's/^/#   hooked: /'
XOLOAD_HOOK=0 XOLOAD_TIMES=1 $XO $L/hookctor >$D/mod 2>$D/err; mst=$?
bymodule; mmech=$?
grep -v '^xoload: time: ' $D/err | cat $D/mod - | sed 's/^/#   module: /'
[ "$hst" = 0 ] && [ "$hmech" = 0 ] && [ "$(head -n 3 $D/hook)" = "$early" ]
ok $? "hooked: the preinit_array entry, a DT_NEEDED library's constructor and PROG's constructor read libc: SEGV_PKUERR (status $hst)"
[ "$mst" = 0 ] && [ "$mmech" = 0 ] && [ "$(head -n 3 $D/mod)" = "$early" ]
ok $? "under the module: the same (status $mst)"
# Records, not a protection: hook.c protects the startup libraries at
# ld.so's consistent call, after it relocated them and PROG.
if [ "$xonly" = 1 ]; then
	grep -Eq "^$rline (SEGV_PKUERR|fault: signal 11 code 4 )" $D/hook
	ok $? "hooked, in the kernel's xonly mode: PROG's IFUNC resolver finds libc execute-only already ($(grep "^$rline" $D/hook))"
else
	grep -qx "$rline readable" $D/hook
	ok $? "hooked: PROG's IFUNC resolver reads libc (the documented window, before the consistent call) ($(grep "^$rline" $D/hook))"
fi
grep -qx "$rline SEGV_PKUERR" $D/mod
ok $? "under the module: PROG's IFUNC resolver finds libc execute-only (protected before relocation) ($(grep "^$rline" $D/mod))"

# --- 4. the hook called again from within itself -------------------------------
# hookreenter traces a child of its own that dlopen()s libxoprobe, and sends
# it a SIGUSR1 at the entry of xoload's identity check's rt_sigprocmask(99)
# (sameobj.c), made inside the hook while it protects that library: the
# handler runs inside the hook, every time.
reent="xoload: ld.so's hook (_dl_debug_state) called again from within itself: not run"
probe=$L/libxoprobe.so
loaded="dlopen($probe): loaded, 1 SIGUSR1 while it ran"
XOLOAD_TIMES=1 $XO $L/hookreenter nocall $probe >$D/out 2>$D/err; st=$?
[ "$st" = 0 ] && [ "$(cat $D/out)" = "$loaded" ] && hooked
ok $? "control, hooked: a SIGUSR1 handler runs inside the hook while it protects a dlopen()ed library, and returns (status $st, $(cat $D/out))"
$XO $L/hookreenter call $probe >$D/out 2>$D/err; st=$?
[ "$st" = 126 ] && [ "$(cat $D/err)" = "$reent" ] &&
	[ "$(cat $D/out)" = "SIGUSR1 inside the hook: calling r_brk from the handler" ]
ok $? "hooked, that handler calls _dl_debug_state (r_brk): refused, status $st, '$(cat $D/err)' (142 is the alarm: a hook waiting for itself)"
XOLOAD_HOOK=0 XOLOAD_TIMES=1 $XO $L/hookreenter call $probe >$D/out 2>$D/err; st=$?
[ "$st" = 0 ] && grep -q '^r_brk returned to the handler$' $D/out && [ "$(tail -n 1 $D/out)" = "$loaded" ] && bymodule
ok $? "control, under the module (its identity check is the same code): the handler's r_brk is ld.so's empty function, dlopen() goes on (status $st, $(tail -n 1 $D/out))"
rm -rf $D
tap_done
