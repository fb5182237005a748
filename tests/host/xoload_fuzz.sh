#!/usr/bin/env bash
# xoload_fuzz.sh - the bounded fuzz run of make check: 10,000 mutated ELF
# files (seed 1: the same ones every run) through xoload --plan, i.e. its
# validating loader (load.c) and libelf planner (elfplan.c, shared with the
# audit module), every 50th also through xoscan; and (-D) each through
# both planners, elfplan.c and the minimal reader run/rtplan.c, which must
# plan it identically (or refuse it with the same message).  No mutant may kill
# xoload or xoscan or get a status outside their documented sets, and each
# xoload error must be one line; a failing input is saved under
# build/fuzz-failures/ and its path printed.  `make fuzz` is the long run.
# Runs on the host (--plan needs no pkeys); needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build
l=$b/guest/lib/xoload
for f in "$b/host/xofuzz" "$b/guest/bin/xoload" "$b/guest/bin/xoscan"; do
	[ -x "$f" ] || { echo "not ok 1 - xoload-fuzz: $f missing (make guest host-tools)"; echo "1..1"; exit 1; }
done
# xoload --plan plans each mutant's libraries too (issue 27): those of the
# seeds that live in the VM's /xonly/lib/xoload (their RUNPATH) are found
# here through LD_LIBRARY_PATH.
LD_LIBRARY_PATH=$l exec "$b/host/xofuzz" -D -n 10000 -s 1 -S 50 -o "$b/fuzz-failures" "$b/guest/bin/xoload" "$b/guest/bin/xoscan" \
	"$l/hello" "$l/hello-nosep" "$l/hello-static" "$l/textrel-user" "$l/libtextrel.so" \
	"$l/libpkrugadgets.so" "$b/guest/tests/xoload/xo_scan"
