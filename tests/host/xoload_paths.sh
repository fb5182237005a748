#!/usr/bin/env bash
# xoload_paths.sh - the two paths xoload puts into PROG's environment, on
# the host: LD_AUDIT, the audit module found next to xoload's own file
# (DIR/../lib/xoaudit.so, DIR that of /proc/self/exe), and XOLOAD_PROG,
# PROG's absolute path for a re-exec through /proc/self/exe.  Both are
# made without resolving them through /proc (about 10-16 us each on a
# CPU): xoload's directory is that of the name it was executed by
# (AT_EXECFN, made absolute) where that path has no symlink (magic links
# included), "." or ".." and names this xoload (its first page), else
# that of /proc/self/exe, so that LD_AUDIT names the same file in every
# descendant; PROG is as found, or joined to the working directory.
# Rows: an installed-like tree, xoload by a relative name, by ./xoload,
# through a symlink from elsewhere (the module next to the real file),
# through a symlinked bin/ (whose ".." is not the link's directory),
# through a symlink above bin/, by a name with ".." in it and by
# /dev/fd/3 (all resolved); review s43's: through /proc/self/cwd and
# /dev/fd/3/bin (magic links, which each child would resolve in its own
# context), a ".//" name (relative), a #! script naming xoload (the
# script's name, another directory), a directory with ':' (126: LD_AUDIT
# is split there), a nested xoload by another name (the module once); a
# module that is missing
# (the built-in default, /xonly/lib/xoaudit.so, named in the error), PROG
# absolute, ./PROG and a relative PROG from "/", PROG named by a
# descriptor (/dev/fd/3: the file open there); with strace, that no /proc
# link is read for xoload by its own name and /proc/self/exe is for a
# symlink to it.  Uses make bench-host's timing build of
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

# The module's path as xoload derives it from the name it was run by.
module_by() {
	local label=$1 want=$2 out st
	shift 2
	out=$("$@" /usr/bin/env 2>&1); st=$?
	[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | seen LD_AUDIT)" = "LD_AUDIT=$want" ]
	ok $? "$label: LD_AUDIT=$want (status $st: $(printf '%s\n' "$out" | seen LD_AUDIT))"
}
module_by "xoload by a relative name (bin/xoload from usr/)" "$tmp/usr/lib/xoaudit.so" \
	sh -c 'cd "$1" && exec bin/xoload "$2"' sh "$tmp/usr"
module_by "xoload as ./xoload" "$tmp/usr/lib/xoaudit.so" sh -c 'cd "$1" && exec ./xoload "$2"' sh "$tmp/usr/bin"
# bin/ a symlink: its ".." is the target's parent, not the link's.
mkdir -p "$tmp/links"
ln -s "$tmp/usr/bin" "$tmp/links/bin"
module_by "xoload through a symlinked bin/" "$tmp/usr/lib/xoaudit.so" "$tmp/links/bin/xoload"
ln -s "$tmp/usr" "$tmp/links/usr"
module_by "xoload through a symlink above bin/: resolved" "$tmp/usr/lib/xoaudit.so" "$tmp/links/usr/bin/xoload"
# The directory taken off the name is "..": by name, it would leave bin/sub/.
mkdir -p "$tmp/usr/bin/sub"
module_by "xoload by a name ending in /../xoload" "$tmp/usr/lib/xoaudit.so" "$tmp/usr/bin/sub/../xoload"
module_by "xoload executed as /dev/fd/3" "$tmp/usr/lib/xoaudit.so" sh -c 'exec /dev/fd/3 "$1" 3<"$2"' sh /usr/bin/env "$xo"
# Review s43: names that each descendant resolves in its own context.
module_by "xoload as /proc/self/cwd/bin/xoload: resolved" "$tmp/usr/lib/xoaudit.so" \
	sh -c 'cd "$1" && exec /proc/self/cwd/bin/xoload "$2"' sh "$tmp/usr"
module_by "xoload as /dev/fd/3/bin/xoload: resolved" "$tmp/usr/lib/xoaudit.so" \
	sh -c 'exec /dev/fd/3/bin/xoload "$1" 3<"$2"' sh /usr/bin/env "$tmp/usr"
# ".//" is relative: the kernel ran CWD//PATH.  An empty file lies at /PATH.
mkdir -p "$tmp/A$tmp/B/bin" "$tmp/A$tmp/B/lib" "$tmp/B/bin"
cp "$xo" "$tmp/A$tmp/B/bin/" && cp "$tmp/usr/lib/xoaudit.so" "$tmp/A$tmp/B/lib/" && : >"$tmp/B/bin/xoload"
module_by "xoload by a name starting .//: relative" "$tmp/A$tmp/B/lib/xoaudit.so" \
	sh -c 'cd "$1" && exec ".//$2" "$3"' sh "$tmp/A" "${tmp#/}/B/bin/xoload"
# A #! script that names xoload: AT_EXECFN is the script's name, another directory.
mkdir -p "$tmp/evil/bin" "$tmp/evil/lib"
cp "$tmp/usr/lib/xoaudit.so" "$tmp/evil/lib/xoaudit.so"
printf '#!%s /bin/sh\necho "LD_AUDIT=$LD_AUDIT"\n' "$xo" >"$tmp/evil/bin/script" && chmod +x "$tmp/evil/bin/script"
out=$("$tmp/evil/bin/script" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "LD_AUDIT=$tmp/usr/lib/xoaudit.so" ]
ok $? "a #! script naming xoload: the module next to xoload, not the script (status $st: $out)"
mkdir -p "$tmp/co:lon/bin" "$tmp/co:lon/lib"
cp "$xo" "$tmp/co:lon/bin/" && cp "$tmp/usr/lib/xoaudit.so" "$tmp/co:lon/lib/"
out=$("$tmp/co:lon/bin/xoload" /usr/bin/true 2>&1); st=$?
[ "$st" = 126 ] && [ "$out" = "xoload: audit module $tmp/co:lon/lib/xoaudit.so: a ':' in its path, where ld.so splits LD_AUDIT" ]
ok $? "a module whose path has ':': 126, one line (status $st: $out)"
out=$("$tmp/links/usr/bin/xoload" /bin/sh -c "\"$xo\" /usr/bin/env" 2>&1 | seen LD_AUDIT)
[ "$out" = "LD_AUDIT=$tmp/usr/lib/xoaudit.so" ]
ok $? "a nested xoload by another name: the module once ($out)"

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
	strace -f -e trace=readlink,readlinkat,lstat,access -o "$tmp/trace" "$xo" /usr/bin/true >/dev/null 2>&1
	! grep -q '"/proc/' "$tmp/trace" && grep -q "access(\"$tmp/usr/lib/xoaudit.so\"" "$tmp/trace"
	ok $? "xoload by its own name: no /proc link read, the module found ($(grep -o '[a-z]*("/proc/[^"]*"' "$tmp/trace" | tr '\n' ' '))"
	strace -f -e trace=readlink,readlinkat -o "$tmp/trace" "$tmp/elsewhere/xoload" /usr/bin/true >/dev/null 2>&1
	! grep -q '"/proc/' "$tmp/trace" && grep -q "readlink(\"$tmp/elsewhere/xoload\"" "$tmp/trace"
	ok $? "xoload through a symlink: the link itself read, no /proc link (session 45; it read /proc/self/exe) ($(grep -o 'readlink[a-z]*("[^"]*"' "$tmp/trace" | tr '\n' ' '))"
else
	skip "no strace" "xoload by its own name: no /proc link read"
	skip "no strace" "xoload through a symlink: /proc/self/exe read"
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
