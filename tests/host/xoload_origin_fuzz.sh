#!/usr/bin/env bash
# xoload_origin_fuzz.sh - 5,000 mutants (seed 1: the same every run) of the
# programs that find their libraries through $ORIGIN (tests/xoload/origin.sh)
# through what xoload does to PROG before ld.so runs: load.c's image_open()
# and image_map(), then run/origin.c's origin_expand(), which reads PROG's
# dynamic section and strings and writes into it (xofuzz -O: the dynamic
# entries' tags and values, the dynamic string table, PT_DYNAMIC's fields
# and the PT_LOADs' flags mutated too).  No mutant may kill it or get a
# status but 0, 126 and 127, and each refusal is one line.  With
# origin_expand()'s check that the entry's page is writable taken out, 27
# of these mutants killed it.  Runs on the host; needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
b=$top/build
o=$b/guest/lib/xoload/origin
for f in "$b/host/xofuzz" "$b/guest/bin/xoload" "$b/guest/bin/xoscan" "$o/bin/runpath"; do
	[ -x "$f" ] || { echo "not ok 1 - xoload-fuzz: $f missing (make guest host-tools)"; echo "1..1"; exit 1; }
done
LD_LIBRARY_PATH=$o/lib exec "$b/host/xofuzz" -O -n 5000 -s 1 -S 0 -o "$b/fuzz-failures" "$b/guest/bin/xoload" "$b/guest/bin/xoscan" \
	"$o/bin/runpath" "$o/bin/rpath" "$o/bin/needed" "$o/bin/audit" "$o/bin/runpath-nosep" "$o/bin/runpath-long"
