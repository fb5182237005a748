#!/usr/bin/env bash
# xoscan_style.sh - xoscan run alone speaks as xoscan: its human lines and
# errors begin "xoscan: ", not "xoload: scan: " (that prefix is for the
# lines xoload --scan and the audit module have it print, --prefix), and a
# file it refuses gets a line saying what the file is: a script (and its
# interpreter), an ar archive, text, an empty file, a directory, a device,
# not only "not an x86-64 ELF file" (issue 27).  Runs on the host; needs
# make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload xoscan=$top/build/guest/bin/xoscan
. "$top/tests/lib/tap.sh"
tap_init xoscan-style
[ -x "$xo" ] && [ -x "$xoscan" ] || tap_bail "build/guest/bin/xoload and xoscan exist (make guest)"
tmp=$(mktemp -d /tmp/xo-scanstyle-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
hello=$top/build/guest/lib/xoload/hello

"$xoscan" "$hello" >"$tmp/out" 2>"$tmp/err"; st=$?
[ "$st" = 0 ] && [ -s "$tmp/out" ] && ! grep -qv '^xoscan: ' "$tmp/out" && [ ! -s "$tmp/err" ]
ok $? "xoscan FILE: every line begins 'xoscan: ' (status $st: $(head -n 1 "$tmp/out"))"
"$xo" --plan --scan --no-deps "$hello" >/dev/null 2>"$tmp/err"; st=$?
[ "$st" = 0 ] && grep -q "^xoload: scan: $hello: [0-9]* found" "$tmp/err" && ! grep -q '^xoscan: ' "$tmp/err"
ok $? "xoload --plan --scan: the scan lines still begin 'xoload: scan: ' (status $st: $(head -n 1 "$tmp/err"))"

printf '#!/bin/sh\necho hi\n' >"$tmp/script"
printf 'just some text\n' >"$tmp/text"
: >"$tmp/empty"
mkdir "$tmp/dir"
printf 'int x;\n' >"$tmp/x.c"
gcc -c -o "$tmp/x.o" "$tmp/x.c" && ar rc "$tmp/lib.a" "$tmp/x.o"
# refused FILE WANT: status 1, one line "xoscan: FILE: WANT".
refused() {
	local f=$1 want=$2 st
	"$xoscan" "$f" >"$tmp/out" 2>"$tmp/err"; st=$?
	[ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		[ "$(cat "$tmp/err")" = "xoscan: $f: $want" ]
	ok $? "xoscan ${f##*/}: status 1, '$want' (status $st: $(cat "$tmp/err"))"
}
refused "$tmp/script" "not scanned: a script (#!/bin/sh), not an ELF file"
refused "$tmp/lib.a" "not scanned: an ar archive (a static library: scan its members once linked), not an ELF file"
refused "$tmp/text" "not scanned: text, not an ELF file"
refused "$tmp/empty" "an empty file"
refused "$tmp/dir" "a directory, not a file"
refused /dev/null "not a regular file: a character device"
refused "$tmp/nonexistent" "No such file or directory"
tap_done
