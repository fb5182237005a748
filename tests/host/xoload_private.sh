#!/usr/bin/env bash
# xoload_private.sh - xoload installed where nobody runs it by hand, its
# command a symlink to it (bin/xoload -> ../libexec/xoload, built with
# XO_SELF_PRIVATE: make install's layout), on the host with the bench-host
# build (no protection keys: what runs is proven, not what is protected;
# tests/xoload/private.sh runs the guest's copy in the VM).  PROG's
# /proc/self/exe names xoload's real file, so a program that executes
# what readlink() of it gives (clang's -cc1, node's child_process.fork,
# Go's os.Executable) executes that file, by a name that only such a
# re-exec uses: xoload runs PROG again (runpath.c's names_private_self()).
# The control: the same with xoload itself in bin/ (the bench-host build)
# runs xoload with PROG's arguments, which fails.  Also: the command, a
# symlink, finds the module without /proc/self/exe; the real file run by
# hand, a nested xoload and XOLOAD_CHILDREN=reexec (the module re-executes
# children by that name) are not taken for re-executions.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoload-private
hbp=$top/build/hostbench-private
plain=$top/build/hostbench/bin/xoload
selfexec=$top/build/guest/lib/xoload/selfexec
[ -L "$hbp/bin/xoload" ] && [ -x "$hbp/libexec/xoload" ] && [ -x "$plain" ] && [ -x "$selfexec" ] ||
	tap_bail "$hbp, $plain and $selfexec exist (make host-tools guest)"
real=$(readlink -f "$hbp/libexec/xoload")
module=$(readlink -f "$hbp/lib/xoaudit.so")
xo=$hbp/bin/xoload
tmp=$(mktemp -d /tmp/xo-private.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XOLOAD_NO_CACHE=1
unset XOLOAD_PROG XOLOAD_CHILDREN LD_AUDIT
one() { printf '%s' "$1" | tr '\n' ' '; }

out=$($xo /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "LD_AUDIT=$module"
ok $? "bin/xoload, a symlink: PROG runs and its LD_AUDIT names the module beside the real file (status $st: $(echo "$out" | grep '^LD_AUDIT='))"
if command -v strace >/dev/null; then
	strace -f -o "$tmp/trace" $xo /usr/bin/true
	st=$?
	[ "$st" = 0 ] && grep -q "readlink(\"$xo\"" "$tmp/trace" && ! grep -q '/proc/self/exe' "$tmp/trace"
	ok $? "the command's link read with readlink(), /proc/self/exe never (status $st)"
else
	skip "no strace" "the command's link read with readlink(), /proc/self/exe never"
fi

out=$($xo "$selfexec" target where 2>&1); st=$?
[ "$st" = 3 ] && [ "$out" = "$(printf 'selfexec child: where B\nunder xoload: yes')" ]
ok $? "a program that executes readlink(/proc/self/exe) runs again, under xoload, with its arguments (status $st: $(one "$out"))"
out=$($xo "$selfexec" target argv0 2>&1); st=$?
[ "$st" = 3 ] && echo "$out" | grep -qx "argv\[0\]: $selfexec"
ok $? "... with PROG's path in argv[0], as natively, not xoload's (status $st: $(echo "$out" | tail -1))"
out=$($plain "$selfexec" target where 2>&1); st=$?
[ "$st" != 3 ] && ! echo "$out" | grep -q 'selfexec child'
ok $? "control: xoload itself in bin/ runs xoload with PROG's arguments there (status $st: $(echo "$out" | head -1))"

out=$("$hbp/libexec/xoload" /usr/bin/printf '%s\n' by-hand 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = by-hand ]
ok $? "the real file run by hand (no XOLOAD_PROG) is xoload (status $st: $(one "$out"))"
out=$($xo /bin/sh -c "$xo /usr/bin/printf '%s\n' nested" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = nested ]
ok $? "xoload run by its command from a program under xoload is xoload (status $st: $(one "$out"))"
out=$(XOLOAD_CHILDREN=reexec $xo /bin/sh -c "$selfexec child where" 2>&1); st=$?
[ "$st" = 3 ] && [ "$out" = "$(printf 'selfexec child: where\nunder xoload: yes')" ]
ok $? "XOLOAD_CHILDREN=reexec: the module re-executes a child by the real file's name, and the child runs, not PROG (status $st: $(one "$out"))"

# Review s45: xoload run by the real file's name under xoload looped until
# its stack overflowed; a copy, hard link or bind mount of the real file
# under another name (one on PATH) took every nested use for a re-exec.
out=$($xo "$hbp/libexec/xoload" /usr/bin/printf '%s\n' inner 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = inner ]
ok $? "xoload run by the real file's name as PROG runs its own PROG, no loop (status $st: $(one "$out"))"
cp -a "$hbp" "$tmp/p"
mkdir -p "$tmp/cp/bin" "$tmp/cp/lib"
cp "$hbp/libexec/xoload" "$tmp/cp/bin/xoload"
cp "$hbp/lib/xoaudit.so" "$tmp/cp/lib/"
out=$("$tmp/cp/bin/xoload" /bin/sh -c "$tmp/cp/bin/xoload /usr/bin/printf '%s\n' copy" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = copy ]
ok $? "a copy of the real file in a bin/: a nested use is xoload, not a re-exec (status $st: $(one "$out"))"
ln "$tmp/p/libexec/xoload" "$tmp/p/bin/xo-hard"
out=$("$tmp/p/bin/xoload" /bin/sh -c "$tmp/p/bin/xo-hard /usr/bin/printf '%s\n' hard" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = hard ]
ok $? "a hard link of the real file by another name: the same (status $st: $(one "$out"))"
ln -s "$selfexec" "$tmp/alias"
out=$($xo "$tmp/alias" target argv0 2>&1); st=$?
[ "$st" = 3 ] && echo "$out" | grep -qx "argv\[0\]: $(readlink -f "$selfexec")"
ok $? "PROG named through a symlink: argv[0] is its resolved path, as readlink() gives natively (status $st: $(one "$out"))"
# The command, a symlink, costs no more stack than the real file (review
# s45: self_from_link() took 8 KiB more, and the full path died at 16 and
# 20 KiB where the real file ran).  linux64 -R: no random stack offset.
small() { env -i XOLOAD_NO_CACHE=1 PATH=/usr/bin:/bin sh -c "ulimit -s $1; exec busybox linux64 -R $2 /usr/bin/true" >/dev/null 2>&1; echo $?; }
if command -v busybox >/dev/null; then
	min=
	for s in 12 14 16 18 20 24 28; do
		[ "$(small $s "$hbp/libexec/xoload")" = 0 ] && { min=$s; break; }
	done
	[ -n "$min" ] && [ "$(small "$min" "$xo")" = 0 ]
	ok $? "the command runs PROG with the stack the real file needs (${min:-more than 28} KiB)"
else
	skip "no busybox" "the command runs PROG with the stack the real file needs"
fi

# A relative link whose target, joined, has "//" (review s45b: taken as it
# was, LD_AUDIT named the module by a second name and a nested xoload
# loaded it twice): not canonical, /proc/self/exe instead.
mkdir -p "$tmp/L/a/b"
ln -s "../../..//p/libexec/xoload" "$tmp/L/a/b/x"
out=$("$tmp/L/a/b/x" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "LD_AUDIT=$(readlink -f "$tmp/p/lib/xoaudit.so")"
ok $? "a link whose joined target has '//': the module by its canonical name (status $st: $(echo "$out" | grep '^LD_AUDIT='))"
ln -s "$hbp/bin" "$tmp/bin"
out=$("$tmp/bin/xoload" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "LD_AUDIT=$module"
ok $? "the command through a symlinked directory: the module still named by its canonical path (/proc/self/exe) (status $st)"
ln -s "$real" "$tmp/xo-abs"
out=$("$tmp/xo-abs" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "LD_AUDIT=$module"
ok $? "a symlink with an absolute target: the module beside the real file (status $st)"

if [ -x /usr/bin/node ]; then
	cat >"$tmp/fork.js" <<'JS'
const cp = require('child_process');
if (process.argv[2] === 'child') { process.send('child ' + process.argv.length); process.exit(0); }
cp.fork(__filename, ['child']).on('message', (m) => console.log(m));
JS
	want=$(/usr/bin/node "$tmp/fork.js" 2>&1)
	out=$($xo /usr/bin/node "$tmp/fork.js" 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "$want" ]
	ok $? "node's child_process.fork (process.execPath) as natively (status $st: $(one "$out"); natively $(one "$want"))"
else
	skip "no node" "node's child_process.fork as natively"
fi
cc=$(command -v clang-14 || command -v clang || true)
if [ -n "$cc" ]; then
	printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >"$tmp/h.c"
	out=$($xo "$cc" -O1 -o "$tmp/h" "$tmp/h.c" 2>&1); st=$?
	[ "$st" = 0 ] && [ "$("$tmp/h")" = built ]
	ok $? "clang (its driver executes itself for -cc1) compiles a program (status $st: $(one "$out"))"
else
	skip "no clang" "clang compiles a program"
fi
tap_done
