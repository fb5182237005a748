#!/usr/bin/env bash
# xoload_man.sh - xoloader/xoload.1 renders without groff warnings, and it
# and `xoload --help` document the same long options (either one gaining an
# option the other lacks fails).  Runs on the host: xoload --help needs no
# pkeys.  Needs build/guest/bin/xoload (make guest).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload man1=$top/xoloader/xoload.1
. "$top/tests/lib/tap.sh"
tap_init xoload-man

warn=$(groff -man -Tascii -ww -z "$man1" 2>&1)
ok $([ -z "$warn" ] && echo 0 || echo 1) "groff -man -ww renders xoload.1 without warnings${warn:+: $warn}"
text=$(groff -man -Tascii -P-cbou "$man1" 2>/dev/null)
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES NOTES BUGS EXAMPLES "SEE ALSO"; do
	printf '%s\n' "$text" | grep -qx "$s"
	ok $? "the man page has a $s section"
done
help=$("$xo" --help 2>&1); st=$?
ok $st "xoload --help exits 0 ($xo)"
hopts=$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
# The options the man page documents: the tags of its OPTIONS section.
mopts=$(printf '%s\n' "$text" | sed -n '/^OPTIONS$/,/^[A-Z]/p' | grep -E -- '^ {7}-' |
	grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
[ -n "$hopts" ] && [ -n "$mopts" ]
ok $? "both list long options (--help: $(echo $hopts), man: $(echo $mopts))"
for o in $hopts; do
	printf '%s\n' "$mopts" | grep -qx -- "$o"
	ok $? "--help's $o is documented in the man page's OPTIONS"
done
for o in $mopts; do
	printf '%s\n' "$hopts" | grep -qx -- "$o"
	ok $? "the man page's $o is in --help"
done
tap_done
