#!/usr/bin/env bash
# install.sh - make install into a temporary DESTDIR lays out exactly the
# Makefile's INSTALL_TABLE (every file, its mode, nothing else), the
# installed tools run from there and find each other by their relative
# paths (also through a symlink to xoload, and with the tree moved), and
# make uninstall leaves nothing behind.  Runs on the host: nothing here
# needs pkeys (xoload --plan and --help do not).  Needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init install

tmp=$(mktemp -d /tmp/xo-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/dest
mk() { make -s -C "$top" --no-print-directory "$@"; }

out=$(mk install DESTDIR="$d" 2>&1); st=$?
ok $st "make install DESTDIR=... exits 0${out:+ ($(printf '%s' "$out" | tail -n 3 | tr '\n' ' '))}"
list=$(mk install-list DESTDIR="$d" 2>&1)
n=$(printf '%s\n' "$list" | grep -c .)
[ "$n" -ge 10 ]
ok $? "make install-list lists the table ($n rows)"

bad=
while read -r mode path rest; do
	if [ "$mode" = link ]; then
		[ -L "$path" ] && [ "$(readlink "$path")" = "${rest#-> }" ] || bad="$bad $path(link)"
	else
		[ -f "$path" ] && [ ! -L "$path" ] && [ "$(stat -c %a "$path")" = "$mode" ] ||
			bad="$bad $path($(stat -c %a "$path" 2>/dev/null || echo missing), want $mode)"
	fi
done <<<"$list"
[ -z "$bad" ]
ok $? "every file of the table is installed with its mode${bad:+:$bad}"
extra=$(cd "$d" && find . ! -type d | sed 's|^\.||' | sort |
	comm -23 - <(printf '%s\n' "$list" | awk '{ print $2 }' | sed "s|^$d||" | sort))
[ -z "$extra" ]
ok $? "nothing is installed that the table does not list${extra:+: $extra}"
dirs=$(find "$d" -type d ! -perm 755 | sed "s|^$d||")
[ -z "$dirs" ]
ok $? "the directories made are 755${dirs:+: $dirs}"

bin=$d/usr/local/bin lib=$d/usr/local/lib/xonly
for p in xoload xoscan xosurvey jit-demo; do
	"$bin/$p" --help >"$tmp/help" 2>&1; st=$?
	[ "$st" = 0 ] && grep -q '^usage: ' "$tmp/help"
	ok $? "the installed $p --help exits 0 with a usage (status $st)"
done
# xoload's --help names where it looks for the module, relative to itself.
rel=$("$bin/xoload" --help | tr -s ' \n' ' ' | grep -o 'default: [^ ]*xoaudit\.so' | head -n 1)
rel=${rel##* }
libexec=$d/usr/local/libexec/xonly
[ "$rel" = ../../lib/xonly/xoaudit.so ] && [ -f "$libexec/$rel" ]
ok $? "xoload looks for its module at $rel from its directory, where make install put it"
# ... and the module for xoload and xoscan, relative to itself.
back=$(strings "$lib/xoaudit.so" | grep -E '^/?\.\./.*/xo(load|scan)$' | sed 's|^/||' | sort | tr '\n' ' ')
[ "$back" = "../../bin/xoscan ../../libexec/xonly/xoload " ] && [ -x "$lib/../../libexec/xonly/xoload" ] &&
	[ -x "$lib/../../bin/xoscan" ]
ok $? "the module finds xoload and xoscan at ${back:-nothing} from its directory"
# The command is a symlink to the real file in libexec, whose name only a
# program re-executing itself uses (readlink of /proc/self/exe): there
# xoload runs XOLOAD_PROG again (0, or 126 on a CPU without protection
# keys), where by the command it takes "child" for PROG (127).
[ "$(readlink "$bin/xoload")" = ../libexec/xonly/xoload ]
ok $? "bin/xoload is a symlink to ../libexec/xonly/xoload ($(readlink "$bin/xoload"))"
XOLOAD_PROG=/usr/bin/true "$libexec/xoload" child >"$tmp/re" 2>&1; st=$?
XOLOAD_PROG=/usr/bin/true "$bin/xoload" child >"$tmp/cmd" 2>&1; cst=$?
{ [ "$st" = 0 ] || { [ "$st" = 126 ] && grep -q 'no protection keys' "$tmp/re"; }; } && [ "$cst" = 127 ]
ok $? "the real file's name with XOLOAD_PROG set runs that program again (status $st: $(head -c 120 "$tmp/re")), the command does not (status $cst)"

# The end of the real file's name that xoload takes for its own (paths.h's
# XO_SELF_PRIVATE, review s45b): the last two directories, one under /
# alone, none where XOLOAD_DIR is BINDIR however written (a trailing
# slash, BINDIR reached through a symlink: no link to itself).
tail_of() { make -s -C "$top" --no-print-directory --eval 'xo-tail: ; @echo "[$(XO_SELF_TAIL)]"' xo-tail "$@"; }
mkdir -p "$tmp/m/usr/bin" && ln -s usr/bin "$tmp/m/bin"
got="$(tail_of) $(tail_of XOLOAD_DIR=/opt) $(tail_of XOLOAD_DIR=/usr/local/bin/) $(tail_of PREFIX="$tmp/m" XOLOAD_DIR="$tmp/m/usr/bin")"
links=$(mk install-list PREFIX="$tmp/m" XOLOAD_DIR="$tmp/m/usr/bin" | grep -c '^link .*/xoload ->')
[ "$got" = "[/libexec/xonly/xoload] [/opt/xoload] [] []" ] && [ "$links" = 0 ]
ok $? "the real file's name ends as paths.h says, none where xoload is the command ($got; links to xoload: $links)"

# xoload --plan --scan finds xoscan next to its resolved self: run it# xoload --plan --scan finds xoscan next to its resolved self: run it
# through a symlink elsewhere, then with the whole tree moved.
prog=$top/build/guest/lib/xoload/hello
[ -x "$prog" ] || prog=/bin/true
mkdir -p "$tmp/elsewhere"
ln -s "$bin/xoload" "$tmp/elsewhere/xoload"
"$tmp/elsewhere/xoload" --plan=json --scan=json "$prog" >/dev/null 2>"$tmp/plan"; st=$?
[ "$st" = 0 ] && grep -q '"scan":"total"' "$tmp/plan"
ok $? "through a symlink, xoload --plan --scan finds the installed xoscan (status $st: $(grep -v '^{' "$tmp/plan" | head -c 200))"
mv "$d" "$tmp/moved"
"$tmp/moved/usr/local/bin/xoload" --plan=json --scan=json "$prog" >/dev/null 2>"$tmp/plan"; st=$?
[ "$st" = 0 ] && grep -q '"scan":"total"' "$tmp/plan"
ok $? "the tree moved elsewhere: xoload still finds its xoscan (status $st)"
"$tmp/moved/usr/local/bin/xosurvey" --totals "$prog" >"$tmp/sv" 2>&1; st=$?
[ "$st" = 0 ] && grep -q '^xosurvey: 1 objects' "$tmp/sv"
ok $? "the installed xosurvey finds the installed xoscan next to it (status $st)"
mv "$tmp/moved" "$d"

out=$(mk uninstall DESTDIR="$d" 2>&1); st=$?
ok $st "make uninstall DESTDIR=... exits 0"
left=$(find "$d" -mindepth 1 2>/dev/null | head -n 5)
[ -d "$d" ] && [ -z "$left" ]
ok $? "make uninstall leaves DESTDIR empty${left:+: $left}"
out=$(mk uninstall DESTDIR="$d" 2>&1); st=$?
ok $st "make uninstall again (nothing installed) exits 0"
mk install DESTDIR=relative/path >/dev/null 2>&1; st=$?
[ "$st" != 0 ]
ok $? "a relative DESTDIR is refused (status $st)"
tap_done
