#!/usr/bin/env bash
# xoload_tls.sh - a program whose libraries have more initial-exec TLS
# than glibc's surplus (libbigtls.so: 20 KiB; Rust's librustc_driver has
# 23 KB) runs under the audit module: glibc's ld.so sets static TLS up
# before it loads an audit module, so under any LD_AUDIT such a library
# fails to load ("cannot allocate memory in static TLS block"), and
# wherever xoload puts its module in LD_AUDIT it asks for room in
# GLIBC_TUNABLES (glibc.rtld.optional_static_tls), joined to the user's
# tunables, not in place of them.  On the host with the bench-host build
# (no protection keys: what runs is proven, not what is protected;
# tests/xoload/tls.sh runs the guest's copy, --kernel too).  Controls: the
# program natively, and natively under an LD_AUDIT (one that does not
# exist: ld.so fails the same), and under xoload with the user's own,
# smaller, surplus, which xoload keeps.  The surplus asked for has an
# upper bound too: each thread's TLS comes out of its stack, and a thread
# with a 32 KiB stack (smallthread, as node makes one) must still start as
# a child under the module.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoload-tls
xo=$top/build/hostbench/bin/xoload
module=$(readlink -f "$top/build/hostbench/lib/xoaudit.so")
[ -x "$xo" ] && [ -f "$module" ] || tap_bail "$xo and its module exist (make host-tools)"
tmp=$(mktemp -d /tmp/xo-tls.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/libbigtls.so" "$top/tests/xoload/lib/libbigtls.c" &&
	cc -O2 -o "$tmp/bigtls" "$top/tests/xoload/lib/bigtls.c" -L"$tmp" -lbigtls -Wl,-rpath,'$ORIGIN' &&
	cc -O2 -pthread -o "$tmp/smallthread" "$top/tests/xoload/lib/smallthread.c" ||
	tap_bail "cc builds libbigtls.so, bigtls and smallthread"
# dupenv NAME=V... -- PROG ARGS: PROG with exactly that environment, duplicates kept.
cat >"$tmp/dupenv.c" <<'CEOF'
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char *env[64];
	int i, n = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--") && n < 63; i++)
		env[n++] = argv[i];
	env[n] = 0;
	if (i + 1 >= argc)
		return 2;
	execve(argv[i + 1], argv + i + 1, env);
	return 127;
}
CEOF
cc -O2 -o "$tmp/dupenv" "$tmp/dupenv.c" || tap_bail "cc builds dupenv"
export XOLOAD_NO_CACHE=1
unset XOLOAD_PROG XOLOAD_CHILDREN LD_AUDIT GLIBC_TUNABLES
one() { printf '%s' "$1" | tr '\n' ' '; }
big=$tmp/bigtls
tunable=glibc.rtld.optional_static_tls=24576

out=$("$big" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "control: bigtls runs natively (status $st: $(one "$out"))"
out=$(LD_AUDIT=$tmp/none.so "$big" 2>&1); st=$?
[ "$st" = 127 ] && echo "$out" | grep -q 'cannot allocate memory in static TLS block'
ok $? "control: natively under an LD_AUDIT it does not load (status $st: $(echo "$out" | tail -1))"

out=$("$xo" "$big" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "under xoload (the hook: no LD_AUDIT for PROG) it runs (status $st: $(one "$out"))"
out=$(XOLOAD_HOOK=0 "$xo" "$big" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "under the audit module (XOLOAD_HOOK=0) it runs (status $st: $(one "$out"))"
out=$("$xo" /bin/sh -c "$big" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "as a child protected in place by the module it runs (status $st: $(one "$out"))"
out=$("$xo" /bin/sh -c "/bin/sh -c $big" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "bigtls: 7" ]
ok $? "... and as a grandchild (status $st: $(one "$out"))"
out=$("$xo" /bin/sh -c "$tmp/smallthread" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "smallthread: ok" ]
ok $? "a child under the module starts a thread with a 32 KiB stack (status $st: $(one "$out"))"
out=$(GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536 "$tmp/smallthread" 2>&1); st=$?
[ "$st" = 1 ] && [ "$out" = "smallthread: pthread_create: Invalid argument" ]
ok $? "control: with a 64 KiB surplus, natively, that thread does not start (status $st: $(one "$out"))"

# The environment PROG and its children see (the hook names both entries
# again at its first call; PROG's own ld.so read the user's tunables).
out=$("$xo" /usr/bin/env 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx "GLIBC_TUNABLES=$tunable" && echo "$out" | grep -qx "LD_AUDIT=$module"
ok $? "PROG's environment has LD_AUDIT and GLIBC_TUNABLES=$tunable for its children (status $st: $(echo "$out" | grep -E '^(LD_AUDIT|GLIBC_TUNABLES)=' | tr '\n' ' '))"
for mode in hook module; do
	[ $mode = module ] && hook=0 || hook=
	out=$(GLIBC_TUNABLES=glibc.malloc.check=0 XOLOAD_HOOK=$hook "$xo" /usr/bin/env 2>&1); st=$?
	[ "$st" = 0 ] && [ "$(echo "$out" | grep -c '^GLIBC_TUNABLES=')" = 1 ] &&
		echo "$out" | grep -qx "GLIBC_TUNABLES=glibc.malloc.check=0:$tunable"
	ok $? "$mode: the user's tunables kept, ours after them, one entry (status $st: $(echo "$out" | grep '^GLIBC_TUNABLES=' | tr '\n' ' '))"
done
for mode in hook module; do
	[ $mode = module ] && hook=0 || hook=
	out=$(GLIBC_TUNABLES=glibc.malloc.check=0 XOLOAD_HOOK=$hook "$xo" --no-inherit /usr/bin/env 2>&1); st=$?
	[ "$st" = 0 ] && [ "$(echo "$out" | grep -c '^GLIBC_TUNABLES=')" = 1 ] &&
		echo "$out" | grep -qx "GLIBC_TUNABLES=glibc.malloc.check=0" && ! echo "$out" | grep -q '^LD_AUDIT='
	ok $? "$mode, --no-inherit: no LD_AUDIT, and the user's tunables as they were (status $st: $(echo "$out" | grep -E '^(LD_AUDIT|GLIBC_TUNABLES)=' | tr '\n' ' '))"
	out=$(XOLOAD_HOOK=$hook "$xo" --no-inherit /usr/bin/env 2>&1); st=$?
	[ "$st" = 0 ] && ! echo "$out" | grep -qE '^(LD_AUDIT|GLIBC_TUNABLES)='
	ok $? "$mode, --no-inherit, no tunables of the user's: neither entry (status $st: $(echo "$out" | grep -E '^(LD_AUDIT|GLIBC_TUNABLES)=' | tr '\n' ' '))"
done
# Two GLIBC_TUNABLES of the user's (glibc reads both, in order): ours joins the
# first in its place; --no-inherit gives back exactly what there was.
for mode in hook module; do
	[ $mode = module ] && hook=0 || hook=
	dup() { "$tmp/dupenv" PATH=/usr/bin:/bin XOLOAD_NO_CACHE=1 XOLOAD_HOOK=$hook GLIBC_TUNABLES=glibc.malloc.check=0 A=1 \
		GLIBC_TUNABLES=glibc.malloc.perturb=5 -- "$xo" "$@" /usr/bin/env | grep -E '^(A|GLIBC_TUNABLES)=' | tr '\n' ' '; }
	out=$(dup)
	[ "$out" = "GLIBC_TUNABLES=glibc.malloc.check=0:$tunable A=1 GLIBC_TUNABLES=glibc.malloc.perturb=5 " ]
	ok $? "$mode, two GLIBC_TUNABLES: ours joined to the first, in its place, the second kept ($out)"
	out=$(dup --no-inherit)
	[ "$out" = "GLIBC_TUNABLES=glibc.malloc.check=0 A=1 GLIBC_TUNABLES=glibc.malloc.perturb=5 " ]
	ok $? "$mode, two GLIBC_TUNABLES, --no-inherit: both as they were ($out)"
	out=$(GLIBC_TUNABLES=$tunable XOLOAD_HOOK=$hook "$xo" --no-inherit /usr/bin/env | grep '^GLIBC_TUNABLES=')
	[ "$out" = "GLIBC_TUNABLES=$tunable" ]
	ok $? "$mode, --no-inherit: the user's own setting of the surplus, equal to ours, kept ($out)"
done
out=$("$xo" /usr/bin/env -u GLIBC_TUNABLES /bin/sh -c "$big" 2>&1); st=$?
[ "$st" = 127 ] && echo "$out" | grep -q 'cannot allocate memory in static TLS block'
ok $? "control: a child whose GLIBC_TUNABLES was removed does not load it under the module (status $st: $(echo "$out" | tail -1))"
out=$(GLIBC_TUNABLES=glibc.rtld.optional_static_tls=512 "$xo" /bin/sh -c "echo \$GLIBC_TUNABLES; $big" 2>&1); st=$?
[ "$st" = 127 ] && echo "$out" | head -1 | grep -qx "glibc.rtld.optional_static_tls=512" &&
	echo "$out" | grep -q 'cannot allocate memory in static TLS block'
ok $? "control: the user's own surplus is kept as set, and 512 bytes are too few (status $st: $(one "$out"))"
tap_done
