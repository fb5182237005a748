#!/usr/bin/env bash
# version.sh - each installed command answers --version: status 0, one
# line "NAME (xonly) VERSION" on stdout, VERSION the package's (the first
# line of packaging/debian/changelog), nothing on stderr, and nothing else
# done (xoload runs no program, jit-demo compiles nothing).  The man pages'
# OPTIONS list it (tests/host/man_pages.sh compares them with --help).
# Runs on the host; needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init version
want=$(awk 'NR == 1 { gsub(/[()]/, "", $2); print $2 }' "$top/packaging/debian/changelog")
[ -n "$want" ] || tap_bail "packaging/debian/changelog names a version"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for bin in build/guest/bin/xoload build/guest/bin/xoscan build/host/xosurvey build/guest/bin/jit-demo; do
	name=$(basename "$bin")
	if [ ! -x "$top/$bin" ]; then
		ok 1 "$bin exists (make guest host-tools)"
		continue
	fi
	out=$("$top/$bin" --version 2>"$tmp/err"); st=$?
	[ "$st" = 0 ] && [ "$out" = "$name (xonly) $want" ] && [ ! -s "$tmp/err" ]
	ok $? "$name --version: '$out', status $st$([ -s "$tmp/err" ] && printf '; stderr: %s' "$(head -c 200 "$tmp/err")")"
done
tap_done
