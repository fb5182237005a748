#!/usr/bin/env bash
# xoload_paths.sh - the two paths xoload puts into PROG's environment, on
# the host: LD_AUDIT, the audit module found next to xoload's own file
# (DIR/../lib/xoaudit.so, DIR that of /proc/self/exe), and XOLOAD_PROG,
# PROG's absolute path for a re-exec through /proc/self/exe.  Both are
# made without resolving them through /proc/self/fd (about 10 us each on
# a CPU): the module's "../" is taken off xoload's resolved directory, and
# PROG is as found, or joined to the working directory.  Rows: an
# installed-like tree, xoload reached through a symlink from elsewhere
# (the module next to the real file), a module that is missing there (the
# built-in default, /xonly/lib/xoaudit.so, named in the error), PROG
# absolute, ./PROG and a relative PROG from "/", PROG named by a
# descriptor (/dev/fd/3: the file open there); with strace, that no
# /proc/self/fd link is read.  Uses make bench-host's timing build of
# xoload and its module (make host-tools), which run without protection
# keys: these paths are the same in the real build.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoload-paths
hb=$top/build/hostbench
[ -x "$hb/bin/xoload" ] && [ -f "$hb/lib/xoaudit.so" ] || tap_bail "$hb/bin/xoload and its module exist (make host-tools)"
tmp=$(mktemp -d /tmp/xo-paths.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XOLOAD_NO_CACHE=1
mkdir -p "$tmp/usr/bin" "$tmp/usr/lib" "$tmp/elsewhere" "$tmp/cwd"
cp "$hb/bin/xoload" "$tmp/usr/bin/xoload"
cp "$hb/lib/xoaudit.so" "$tmp/usr/lib/xoaudit.so"
cp /usr/bin/env "$tmp/cwd/envx"
xo=$tmp/usr/bin/xoload

# What PROG (env) sees of one variable.
seen() { grep "^$1=" | head -n 1; }

out=$("$xo" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen LD_AUDIT)" = "LD_AUDIT=$tmp/usr/lib/xoaudit.so" ]
ok $? "the module next to xoload: LD_AUDIT=DIR/lib/xoaudit.so, no .. left (status $st: $(printf '%s\n' "$out" | seen LD_AUDIT))"
[ "$(printf '%s\n' "$out" | seen XOLOAD_PROG)" = "XOLOAD_PROG=/usr/bin/env" ]
ok $? "an absolute PROG: XOLOAD_PROG is it ($(printf '%s\n' "$out" | seen XOLOAD_PROG))"

ln -s "$xo" "$tmp/elsewhere/xoload"
out=$("$tmp/elsewhere/xoload" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen LD_AUDIT)" = "LD_AUDIT=$tmp/usr/lib/xoaudit.so" ]
ok $? "xoload through a symlink: the module next to the real file (status $st: $(printf '%s\n' "$out" | seen LD_AUDIT))"

out=$(cd "$tmp/cwd" && "$xo" ./envx 2>&1); st=$?
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen XOLOAD_PROG)" = "XOLOAD_PROG=$tmp/cwd/envx" ]
ok $? "./PROG: XOLOAD_PROG is the working directory's PROG (status $st: $(printf '%s\n' "$out" | seen XOLOAD_PROG))"
out=$(cd / && "$xo" "${tmp#/}/cwd/envx" 2>&1); st=$?
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen XOLOAD_PROG)" = "XOLOAD_PROG=$tmp/cwd/envx" ]
ok $? "a relative PROG from /: one slash (status $st: $(printf '%s\n' "$out" | seen XOLOAD_PROG))"

# PROG named by a descriptor: the re-exec must not run what PROG later
# opened on that descriptor (bash here opens env on fd 3, then re-executes
# /proc/self/exe, which must run bash again).
out=$("$xo" /dev/fd/3 3<"$tmp/cwd/envx" 2>&1); st=$?
want=$(readlink -f "$tmp/cwd/envx")
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen XOLOAD_PROG)" = "XOLOAD_PROG=$want" ]
ok $? "PROG /dev/fd/3: XOLOAD_PROG is the file open there (status $st: $(printf '%s\n' "$out" | seen XOLOAD_PROG))"
out=$("$xo" /dev/fd/3 -c 'exec 3</usr/bin/env; exec /proc/self/exe -c "echo bash again"' 3</bin/bash 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bash again" ]
ok $? "PROG /dev/fd/3 re-executing itself after reusing fd 3: PROG runs again, not the new fd 3 (status $st: ${out:0:120})"

if command -v strace >/dev/null; then
	strace -f -e trace=readlink,readlinkat -o "$tmp/trace" "$xo" /usr/bin/true >/dev/null 2>&1
	! grep -q '/proc/self/fd' "$tmp/trace" && grep -q '/proc/self/exe' "$tmp/trace"
	ok $? "no /proc/self/fd link read, /proc/self/exe is ($(grep -o 'readlink[a-z]*("[^"]*"' "$tmp/trace" | tr '\n' ' '))"
else
	skip "no strace" "no /proc/self/fd link read"
fi

rm "$tmp/usr/lib/xoaudit.so"
if [ -e /xonly/lib/xoaudit.so ]; then
	skip "this host has the default module, /xonly/lib/xoaudit.so" "no module next to xoload: the default"
else
	out=$("$xo" /usr/bin/true 2>&1); st=$?
	[ "$st" = 127 ] && printf '%s\n' "$out" | grep -q "audit module /xonly/lib/xoaudit.so"
	ok $? "no module next to xoload: the default, named in the error (status $st: $out)"
fi
tap_done
