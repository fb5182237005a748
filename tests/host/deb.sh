#!/usr/bin/env bash
# deb.sh - `make deb` builds the Debian package of the tools and lintian
# passes it: no error and no warning (a mismatched or unused override is a
# warning too, so an override that no longer fits fails here), every hint
# lintian prints brought into the TAP output.  make check-host runs it, so
# the package cannot break again without a failed test (it did: issue 27).
# Runs on the host; needs dpkg-dev and lintian (scripts/deps, which
# make check-host runs first, installs them).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init deb
command -v lintian >/dev/null && command -v dpkg-deb >/dev/null ||
	tap_bail "lintian and dpkg-deb are installed (scripts/deps installs lintian and dpkg-dev)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

make -s -C "$top" --no-print-directory deb >"$tmp/out" 2>&1; st=$?
# lintian's hints ("X: package: tag ...") and make's own error lines.
grep -E '^[EWIXOP]: |^make: \*\*\*' "$tmp/out" | sed 's/^/# /'
deb=$(ls "$top"/build/deb/xonly-tools_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] && dpkg-deb --info "$deb" >/dev/null 2>&1
ok $? "make deb builds the package (${deb#"$top"/})"
bad=$(grep -cE '^[EW]: ' "$tmp/out")
[ "$st" = 0 ] && [ "$bad" = 0 ]
ok $? "make deb: lintian reports no error or warning (status $st, $bad E:/W: lines)"
tap_done
