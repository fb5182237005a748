#!/usr/bin/env bash
# makefile_deps.sh - a change to kernel/include/xonly/uapi.h (the syscall
# numbers and prctl options) rebuilds xoload and every program that takes
# them or xoloader's headers: each of these is up to date now (make -q), and
# make -n -W uapi.h (as if uapi.h had just changed) rebuilds it.  Also
# `make guest` is up to date after make guest (nothing rebuilt twice, no
# missing rule).  Runs make -q/-n on the host: builds nothing.  Needs make
# guest host-tools first (as make check runs them).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init makefile
cd "$top"
make -q guest host-tools >/dev/null 2>&1
ok $? "make guest host-tools is up to date (make -q)"
uapi=kernel/include/xonly/uapi.h
for t in build/guest/bin/xoload build/guest/lib/xoaudit.so build/guest/bin/xoscan \
	build/guest/bench.d/xoload build/guest/bench.d/xonly_plans build/host/xoload-main.o build/host/xofuzz \
	build/guest/tests/kernel/pkey_syscalls build/guest/lib/kernel/xonly_probe build/guest/bin/jit-demo; do
	if ! make -q "$t" >/dev/null 2>&1; then
		ok 1 "$t is up to date before the check (else the check proves nothing)"
		continue
	fi
	make -n -W "$uapi" "$t" 2>/dev/null | grep -q -- "-o $t"
	ok $? "$t rebuilds when $uapi changes"
done
tap_done
