#!/usr/bin/env bash
# bench_host.sh - make bench-host says what its xoload row measured, and
# hostbench reads XOLOAD_TIMES right.  scripts/bench-host as root fills
# the plan cache DIR/cache (xoload --update-cache with XOLOAD_CACHE_DIR
# there) where only root can write DIR's directory chain, and otherwise
# (DIR under /tmp: xoload would not use a cache there) a cache of the
# run's own under /run, removed after; as another user it fills nothing,
# and says that the xoload row uses the cache an earlier root run left
# (xoload reads a root-owned cache for anyone) or, without one or with
# one under a directory others can write, plans every object.  hostbench
# (tools/hostbench.c), given an xoload that prints known XOLOAD_TIMES
# lines among other stderr, names each step by its event and the last
# component of its object and gives the time between the steps.  Stubs
# stand in for xoload (no VM, no build needed but gcc); the user rows
# need root (setpriv to nobody), else they are skipped.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init bench-host
tmp=$(mktemp -d /tmp/xo-bench-host.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
hb=$tmp/hb
mkdir -p "$hb/bin" "$hb/lib"
# The stub xoload: --update-cache logs its cache directory and arguments;
# with XOLOAD_TIMES, three steps 1 us and 2 us apart, a foreign line and
# a last line without its newline (not a step); every run succeeds.
cat >"$hb/bin/xoload" <<'PY'
#!/usr/bin/env python3
import os, sys, time
if sys.argv[1:2] == ["--update-cache"]:
    with open(os.environ["STUB_LOG"], "a") as f:
        f.write("update-cache %s %s\n" % (os.environ.get("XOLOAD_CACHE_DIR"), " ".join(sys.argv[2:])))
    sys.exit(0)
if os.environ.get("XOLOAD_TIMES"):
    t = time.monotonic_ns()
    sys.stderr.write("xoload: time: entry %d\nERROR: ld.so: something else\n" % t +
                     "xoload: time: validated /a dir/with space/hello %d\n" % (t + 1000) +
                     "xoload: time: hooked libc.so.6 %d\nxoload: time: cut 9" % (t + 3000))
PY
printf '#!/bin/sh\necho "hostbench $*"\n' >"$hb/bin/hostbench"
chmod 755 "$hb/bin/xoload" "$hb/bin/hostbench"
export STUB_LOG=$tmp/log

if [ "$(id -u)" = 0 ] && safe=$(mktemp -d /run/xo-bench-host.XXXXXX); then
	trap 'rm -rf "$tmp" "$safe"' EXIT
	chmod 755 "$safe"
	cp -a "$hb" "$safe/hb"
	shb=$safe/hb
	out=$("$top/scripts/bench-host" "$shb" 2>&1); st=$?
	[ "$st" = 0 ] && grep -q "^update-cache $shb/cache /usr/bin/true $shb/bin/hello " "$tmp/log" &&
		[ -d "$shb/cache" ] && ! printf '%s\n' "$out" | grep -q "others than root can write" &&
		printf '%s\n' "$out" | grep -q "^hostbench $shb/bin/xoload $shb/bin/hello $shb/bin/execthrough $shb/bin/nullload "
	ok $? "as root, DIR where only root can write: the cache $shb/cache filled, then hostbench run (status $st; $(head -c 200 "$tmp/log" 2>/dev/null))"
	: >"$tmp/log"
	out=$("$top/scripts/bench-host" "$hb" 2>&1); st=$?
	own=$(sed -n 's/^update-cache \(\/run\/xonly-bench-host\.[^ ]*\) \/usr\/bin\/true .*/\1/p' "$tmp/log")
	[ "$st" = 0 ] && [ -n "$own" ] && [ ! -e "$own" ] &&
		printf '%s\n' "$out" | grep -q "^bench-host: $hb lies under a directory others than root can write, where xoload uses no plan cache: the cache of this run is $own (removed at the end)" &&
		printf '%s\n' "$out" | grep -q "^hostbench $hb/bin/xoload "
	ok $? "as root, DIR under /tmp: the cache of the run under /run (${own:-none}), removed after (status $st: $(printf '%s' "$out" | grep bench-host: | tail -n 1))"
	: >"$tmp/log"
	chmod 666 "$tmp/log"
	asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$top/scripts/bench-host" "$1" 2>&1; }
	out=$(asuser "$shb"); st=$?
	[ "$st" = 0 ] && [ ! -s "$tmp/log" ] && printf '%s\n' "$out" | grep -q "uses the plan cache an earlier run as root filled"
	ok $? "as nobody, a cache there: nothing filled, the row said to use it (status $st: $(printf '%s' "$out" | grep bench-host: | tail -n 1))"
	out=$(asuser "$hb"); st=$?
	[ "$st" = 0 ] && [ ! -s "$tmp/log" ] && printf '%s\n' "$out" | grep -q "not root, and $hb lies under a directory others than root can write, where xoload uses no plan cache: the xoload row plans every object"
	ok $? "as nobody, a cache under /tmp: the row said to plan every object (status $st: $(printf '%s' "$out" | grep bench-host: | tail -n 1))"
	rm -rf "$shb/cache"
	out=$(asuser "$shb"); st=$?
	[ "$st" = 0 ] && [ ! -s "$tmp/log" ] && printf '%s\n' "$out" | grep -q "no plan cache: the xoload row plans every object"
	ok $? "as nobody, no cache: the row said to plan every object (status $st: $(printf '%s' "$out" | grep bench-host: | tail -n 1))"
else
	for what in "as root, DIR only root can write" "as root, DIR under /tmp" "as nobody, a cache there" \
		"as nobody, a cache under /tmp" "as nobody, no cache"; do skip "not root" "$what"; done
fi

if gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$tmp/hostbench" "$top/xoloader/tools/hostbench.c" \
	"$top/xoloader/tools/benchrun.c" 2>"$tmp/cc"; then
	out=$("$tmp/hostbench" "$hb/bin/xoload" /usr/bin/true /usr/bin/true /usr/bin/true 1 2>&1); st=$?
	steps=$(printf '%s\n' "$out" | sed -n '/^where the time/,$p' | sed 1d |
		awk '{ v = $NF; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); printf "%s=%s|", $0, v }')
	[ "$st" = 0 ] && [[ $steps == "fork and exec of xoload="*"|validated hello=1.0|hooked libc.so.6=2.0|to the exit="*"|sum of the medians="* ]]
	ok $? "hostbench: the steps named and timed from XOLOAD_TIMES (status $st: $steps)"
else
	ok 1 "hostbench: compiles ($(head -c 300 "$tmp/cc"))"
fi
tap_done
