#!/usr/bin/env bash
# nullload.sh - make bench-host's floor of a preloader maps a program as
# the kernel would: tests/xoload/lib/nullload.c, built as the Makefile
# builds it, runs a PIE (echo), an ET_EXEC program at 0x400000 (python3,
# where nullload itself must not lie), a static program without PT_INTERP
# (busybox) and a shell with its environment, each with the output and
# status it has natively; a missing PROG or no PROG is exit 127 with
# one line; and built at -O0, -O1 and -Os it still runs PROG.  If it mapped wrongly, the row it stands for would time a
# crash, not a start.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init nullload
tmp=$(mktemp -d /tmp/xo-nullload.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
nl=$tmp/nullload
make -s -C "$top" BUILD="$tmp/build" "$tmp/build/hostbench/bin/nullload" >"$tmp/cc" 2>&1 &&
	cp "$tmp/build/hostbench/bin/nullload" "$nl" || tap_bail "nullload builds ($(head -c 300 "$tmp/cc"))"

# Same stdout and status natively and under nullload.
same() {
	local what=$1 a b sa sb
	shift
	a=$("$@" 2>&1); sa=$?
	b=$("$nl" "$@" 2>&1); sb=$?
	[ "$sa" = "$sb" ] && [ "$a" = "$b" ]
	ok $? "$what: same output and status as natively (status $sa/$sb; ${b:0:120})"
}

same "a PIE with arguments" /usr/bin/echo "two words" and' more'
same "a PIE's status" /usr/bin/sh -c 'exit 7'
export XO_NULLLOAD_ROW=1
same "the environment and argv[0]" /usr/bin/sh -c 'echo "$0 $XO_NULLLOAD_ROW $#"' zero a b
unset XO_NULLLOAD_ROW
if [ "$(readelf -hW /usr/bin/python3 2>/dev/null | awk '/Type:/ { print $2 }')" = EXEC ]; then
	same "an ET_EXEC program (python3, at 0x400000)" /usr/bin/python3 -c 'import sys; print(sys.argv[1:], sys.executable)' x y
else
	skip "no ET_EXEC python3" "an ET_EXEC program"
fi
if [ -x /bin/busybox ] && ! readelf -lW /bin/busybox | grep -q INTERP; then
	same "a static program (busybox)" /bin/busybox echo static
else
	skip "no static busybox" "a static program"
fi
# The auxiliary vector names PROG, not nullload: ld.so found PROG's program headers and entry.
out=$(LD_SHOW_AUXV=1 "$nl" /usr/bin/true | awk '/^AT_EXECFN/ { print $2 }')
[ "$out" = /usr/bin/true ]
ok $? "AT_EXECFN is PROG ($out)"
out=$("$nl" "$tmp/none" 2>&1); st=$?
[ "$st" = 127 ] && [ "$out" = "nullload: cannot open: $tmp/none" ]
ok $? "a missing PROG: 127 and one line (status $st: $out)"
out=$("$nl" 2>&1); st=$?
[ "$st" = 127 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]
ok $? "no PROG: 127 and one line (status $st: $out)"
# The jump to ld.so whatever registers the compiler picks: with "r"
# operands, -O0, -O1 and -Os put the entry in rdx, which the ABI's
# rdx = 0 then cleared (a jump to 0, SIGSEGV).
for opt in -O0 -O1 -Os; do
	b=$tmp/build$opt
	if make -s -C "$top" BUILD="$b" CFLAGS="-std=c11 -D_GNU_SOURCE $opt -g -Wall -Wextra -Werror -Ikernel/include" \
		"$b/hostbench/bin/nullload" >"$tmp/cc$opt" 2>&1; then
		out=$("$b/hostbench/bin/nullload" /usr/bin/echo built with "$opt" 2>&1); st=$?
		[ "$st" = 0 ] && [ "$out" = "built with $opt" ]
		ok $? "built with $opt: it runs PROG (status $st: ${out:0:120})"
	else
		ok 1 "built with $opt ($(head -c 300 "$tmp/cc$opt"))"
	fi
done
tap_done
