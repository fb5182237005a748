#!/usr/bin/env bash
# fifo.sh - xoload and xoscan never block on a file that is not a regular
# file: a FIFO named as PROG (with and without --plan), as the PT_INTERP
# of a program, or as a file to scan gets one line naming it and a non-zero
# status at once.  (open() without O_NONBLOCK used to wait forever for a
# writer: issue 27.)  Each run has a time limit of 5 s; status 124 is the
# hang.  Runs on the host (xoload refuses a bad file before it looks for
# pkeys); needs make guest.  Also the audit module, which opens each
# object by its name after ld.so mapped it: a FIFO put there in between
# (lib/swapaudit.c renames DIR/libx.new over DIR/libx.so, listed before
# the module in LD_AUDIT) stops the process with 126 and the module's
# line, where the module's blocking open() hung.  That part uses make
# bench-host's timing build of the module (build/hostbench/lib/xoaudit.so,
# make host-tools), which runs on a CPU without protection keys.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload xoscan=$top/build/guest/bin/xoscan
. "$top/tests/lib/tap.sh"
tap_init fifo
[ -x "$xo" ] && [ -x "$xoscan" ] || tap_bail "build/guest/bin/xoload and xoscan exist (make guest)"
tmp=$(mktemp -d /tmp/xo-fifo-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/f"

# run WANT_STATUS PATTERN WHAT CMD...: CMD exits WANT_STATUS within 5 s,
# with one line on stderr that matches PATTERN.
run() {
	local want=$1 pat=$2 what=$3 st err
	shift 3
	timeout 5 "$@" </dev/null >/dev/null 2>"$tmp/err"; st=$?
	err=$(cat "$tmp/err")
	[ "$st" = "$want" ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && [[ $err == $pat ]]
	ok $? "$what: status $want and one line (status $st$([ "$st" = 124 ] && echo ': it hung'): $err)"
}

run 126 "xoload: $tmp/f: not a regular file" "xoload --plan FIFO" "$xo" --plan "$tmp/f"
run 126 "xoload: $tmp/f: not a regular file" "xoload FIFO" "$xo" "$tmp/f"
run 126 "xoload: $tmp/f: not a regular file" "xoload --kernel FIFO" "$xo" --kernel "$tmp/f"

# A program whose PT_INTERP names the FIFO.
printf 'int main(void) { return 0; }\n' >"$tmp/p.c"
if out=$(${CC:-gcc} -o "$tmp/p" "$tmp/p.c" -Wl,--dynamic-linker="$tmp/f" 2>&1); then
	run 126 "xoload: $tmp/p: bad interpreter: $tmp/f: not a regular file" \
		"xoload --plan PROG with a FIFO as PT_INTERP" "$xo" --plan "$tmp/p"
	run 126 "xoload: $tmp/p: bad interpreter: $tmp/f: not a regular file" \
		"xoload PROG with a FIFO as PT_INTERP" "$xo" "$tmp/p"
else
	ok 1 "a program with PT_INTERP $tmp/f builds: $out"
fi

run 1 "*$tmp/f: not a regular*" "xoscan FIFO" "$xoscan" "$tmp/f"
# The others are still scanned, after the FIFO.
timeout 5 "$xoscan" --tsv "$tmp/f" "$xo" >"$tmp/out" 2>/dev/null; st=$?
[ "$st" = 1 ] && grep -q "^scan-total	$xo	" "$tmp/out"
ok $? "xoscan FIFO FILE: FILE is still scanned, status 1 (status $st)"

m=$top/build/hostbench/lib/xoaudit.so s=$top/build/guest/lib/xoload/libswapaudit.so
libm=$(readlink -f /lib/x86_64-linux-gnu/libm.so.6)
if [ -f "$m" ] && [ -f "$s" ] && [ -f "$libm" ]; then
	mkdir "$tmp/swap" && cp "$s" "$tmp/swap/" && cp "$libm" "$tmp/swap/libx.so" && mkfifo "$tmp/swap/libx.new"
	run 126 "xoload: $tmp/swap/libx.so: cannot be planned (*): not run" \
		"the module: a FIFO swapped in at a library's path after ld.so mapped it" \
		env LD_AUDIT="$tmp/swap/libswapaudit.so:$m" LD_PRELOAD="$tmp/swap/libx.so" /usr/bin/true
else
	skip "no $m or $s (make host-tools, make guest), or no libm" "the module and a FIFO at a library's path"
fi
tap_done
