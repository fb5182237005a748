#!/usr/bin/env bash
# xoload_setuid.sh - xoload refuses a set-user-ID or set-group-ID program
# it cannot carry the privileges of (the kernel executed xoload, not the
# program): status 126 and one line saying so, before anything else (the
# pkeys check included), instead of running it without them (issue 27);
# one owned by the caller still passes that check; --plan plans it.  The
# refusal needs a file owned by another user: run as root (chown), else
# skipped.  Needs make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload
. "$top/tests/lib/tap.sh"
tap_init xoload-setuid
[ -x "$xo" ] || tap_bail "build/guest/bin/xoload exists (make guest)"
tmp=$(mktemp -d /tmp/xo-setuid-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
hello=$top/build/guest/lib/xoload/hello
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null && getent group nogroup >/dev/null; then
	cp "$hello" "$tmp/suid" && chown nobody "$tmp/suid" && chmod 4755 "$tmp/suid"
	cp "$hello" "$tmp/sgid" && chgrp nogroup "$tmp/sgid" && chmod 2755 "$tmp/sgid"
	for f in suid sgid; do
		want=$([ $f = suid ] && echo set-user-ID || echo set-group-ID)
		"$xo" "$tmp/$f" >"$tmp/out" 2>"$tmp/err"; st=$?
		[ "$st" = 126 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
			grep -q "^xoload: $tmp/$f: $want: xoload cannot run it with those privileges" "$tmp/err"
		ok $? "a $want program of another user: refused, 126, one line (status $st: $(cat "$tmp/err"))"
		"$xo" --plan=tsv --no-deps "$tmp/$f" >"$tmp/out" 2>"$tmp/err"; st=$?
		[ "$st" = 0 ] && grep -q "^$tmp/$f	" "$tmp/out"
		ok $? "--plan $f: planned (status $st)"
	done
	# g+s without g+x is no set-group-ID (mandatory locking, once).
	cp "$hello" "$tmp/lock" && chgrp nogroup "$tmp/lock" && chmod 2745 "$tmp/lock"
	"$xo" "$tmp/lock" >/dev/null 2>"$tmp/err"
	! grep -q 'set-group-ID' "$tmp/err"
	ok $? "g+s without g+x is not refused as set-group-ID ($(cat "$tmp/err"))"
else
	skip "not root: no file of another user to make" "set-user-ID refused"
	skip "not root" "set-group-ID refused"
	skip "not root" "--plan set-user-ID"
	skip "not root" "--plan set-group-ID"
	skip "not root" "g+s without g+x"
fi
# Owned by the caller: nothing to carry, not refused for it.
cp "$hello" "$tmp/mine" && chmod 4755 "$tmp/mine"
"$xo" "$tmp/mine" >/dev/null 2>"$tmp/err"
! grep -q 'set-user-ID' "$tmp/err"
ok $? "a set-user-ID program of the caller's own: not refused for it ($(cat "$tmp/err"))"
tap_done
