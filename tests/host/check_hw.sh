#!/usr/bin/env bash
# check_hw.sh - make check-hw (scripts/check-hw):
#  - every guest test is in exactly one of tests/hw.run (run on the host)
#    and tests/hw.skip (needs the series or the VM), each with a reason;
#  - on a host without PKU (this one: a fake cpuinfo without pku, and one
#    with pku but no ospke) it says why, reports every test of both lists
#    skipped with the reason and exits 0, its last line "0 passed, 0
#    failed, N skipped"; `make check-hw` on this host, when it has no PKU,
#    does so too in a clean copy of the tree, and builds nothing;
#  - with a fake cpuinfo with pku and ospke and a made-up guest directory
#    (fake tests, the real run-one), it runs hw.run's tests at
#    /xonly/tests/NAME in a mount namespace of their own, with
#    XONLY_STOCK_KERNEL=1 and a private /tmp, frames them as the VM does,
#    counts a failure and a missing test, and names the host in the
#    results (build/results/hw.txt and hw.xml).  Runs on the host: nothing
#    is loaded into its kernel.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init check-hw
tmp=$(mktemp -d /tmp/xo-check-hw.XXXXXX); trap 'rm -rf "$tmp"' EXIT

# --- the lists cover every guest test, once ------------------------------------
names=$(cd "$top/tests" && {
	for f in */*.c; do case "$f" in lib/*|*/lib/*|bench/*) continue ;; esac; echo "${f%.c}"; done
	for f in xoload/dyn/*.c; do f=${f##*/}; echo "xoload/${f%.c}"; done
	for f in xoload/*.sh harness/*.sh deb/*.sh; do echo "${f%.sh}"; done
} | sort)
listed=$(awk '$1 !~ /^#/ && NF { print $1 }' "$top/tests/hw.run" "$top/tests/hw.skip" | sort)
missing=$(comm -23 <(printf '%s\n' "$names") <(printf '%s\n' "$listed") | tr '\n' ' ')
[ -z "$missing" ]
ok $? "every guest test is in tests/hw.run or tests/hw.skip (missing: ${missing:-none})"
twice=$(printf '%s\n' "$listed" | uniq -d | tr '\n' ' ')
[ -z "$twice" ]
ok $? "no test is in both lists, or twice (${twice:-none})"
stale=$(comm -13 <(printf '%s\n' "$names") <(printf '%s\n' "$listed") | grep -v '^upstream/' | tr '\n' ' ')
[ -z "$stale" ]
ok $? "the lists name no test that does not exist (${stale:-none})"
noreason=$(awk '$1 !~ /^#/ && NF == 1 { print $1 }' "$top/tests/hw.run" "$top/tests/hw.skip" | tr '\n' ' ')
[ -z "$noreason" ]
ok $? "each entry says what it proves or why it is skipped (${noreason:-all do})"
nlisted=$(printf '%s\n' "$listed" | wc -l)

# --- without PKU ------------------------------------------------------------------
mkdir -p "$tmp/repo/scripts" "$tmp/repo/tests"
cp "$top"/scripts/{check-hw,lib.sh,tap-summary} "$tmp/repo/scripts/"
cp "$top"/tests/hw.run "$top"/tests/hw.skip "$tmp/repo/tests/"
printf 'processor\t: 0\nmodel name\t: Fake Xeon 1234\nflags\t\t: fpu sse2 avx2\n' >"$tmp/nopku"
printf 'processor\t: 0\nmodel name\t: Fake Xeon 1234\nflags\t\t: fpu sse2 avx2 pku\n' >"$tmp/noospke"
printf 'processor\t: 0\nmodel name\t: Fake Xeon 1234\nflags\t\t: fpu sse2 avx2 pku ospke\n' >"$tmp/pku"
for ci in nopku noospke; do
	want=$([ $ci = nopku ] && echo "the CPU has no protection keys (no 'pku' flag" ||
		echo "the host kernel has not enabled protection keys (no 'ospke' flag")
	out=$(cd "$tmp/repo" && XONLY_CPUINFO=$tmp/$ci scripts/check-hw --guest "$tmp/none" 2>&1); st=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	[ "$st" = 0 ] && [ "$last" = "0 passed, 0 failed, $nlisted skipped" ]
	ok $? "$ci: exits 0 with every test of both lists skipped: '$last' (status $st)"
	printf '%s\n' "$out" | grep -qF "nothing ran: $want"
	ok $? "$ci: and says why: $(printf '%s\n' "$out" | grep 'nothing ran')"
	printf '%s\n' "$out" | grep -qx 'skipped: kernel/pkey_syscalls: needs the xonly series: the pkey_get/pkey_set system calls' &&
		printf '%s\n' "$out" | grep -q "^skipped: conformance/reads: this host has no PKU: $want"
	ok $? "$ci: it lists each skipped test with its reason (the series', and the missing PKU)"
	(cd "$tmp/repo" && XONLY_CPUINFO=$tmp/$ci scripts/check-hw --probe >/dev/null 2>&1)
	[ $? = 1 ]
	ok $? "$ci: --probe says no (status 1)"
done

# `make check-hw` on this very host, in a clean copy of the tree: no build.
if grep -qw pku /proc/cpuinfo && grep -qw ospke /proc/cpuinfo; then
	skip "this host has PKU: make check-hw would build and run the tests" "make check-hw on a host without PKU"
else
	mkdir -p "$tmp/clean"
	(cd "$top" && git ls-files -z -c -o --exclude-standard | grep -zv '^build/' |
		tar --null -T - -cf - 2>/dev/null) | tar -xf - -C "$tmp/clean"
	out=$(cd "$tmp/clean" && make --no-print-directory check-hw 2>&1); st=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	[ "$st" = 0 ] && [ "$last" = "0 passed, 0 failed, $nlisted skipped" ] &&
		printf '%s\n' "$out" | grep -q '^# check-hw: nothing ran: the \(CPU\|host kernel\)'
	ok $? "make check-hw on this host (no PKU): exit 0, '$last', with the reason (status $st)"
	[ ! -e "$tmp/clean/build/guest" ] && [ -s "$tmp/clean/build/results/hw.txt" ]
	ok $? "... and it built nothing (no build/guest), only wrote its results"
fi

# --- with PKU (a fake cpuinfo), fake tests ---------------------------------------
ns=(unshare --mount)
[ "$(id -u)" = 0 ] || ns=(unshare --user --map-root-user --mount)
if ! "${ns[@]}" true 2>/dev/null; then
	skip "no mount namespace here (${ns[*]} fails)" "pku: the tests run in a mount namespace of their own"
	tap_done
	exit
fi
guest=$tmp/guest
mkdir -p "$guest/bin" "$guest/tests/fake"
gcc -O2 -o "$guest/bin/run-one" "$top/initramfs/run-one.c" 2>"$tmp/cc.err" || tap_bail "build run-one: $(cat "$tmp/cc.err")"
printf 'fake/a  checks where it runs\nfake/b  fails once\nfake/missing  not built\n' >"$tmp/repo/tests/hw.run"
printf 'fake/s  needs the xonly series: a reason\n' >"$tmp/repo/tests/hw.skip"
cat >"$guest/tests/fake/a" <<'EOF'
#!/bin/sh
n=0
t() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - a: $2"; else echo "not ok $n - a: $2"; fi; }
[ "$0" = /xonly/tests/fake/a ]; t $? "runs as /xonly/tests/fake/a ($0)"
[ "${XONLY_STOCK_KERNEL:-}" = 1 ]; t $? "XONLY_STOCK_KERNEL=1 (${XONLY_STOCK_KERNEL:-unset})"
[ -x /xonly/bin/run-one ] && [ -x /bin/sh ]; t $? "sees /xonly and the host's /bin"
[ "$(pwd)" = /tmp ] && : >/tmp/a-was-here; t $? "runs in a writable /tmp ($(pwd))"
echo "ok 5 - a: a part # SKIP needs the xonly series: a part"
echo 1..5
EOF
printf '#!/bin/sh\n[ -e /tmp/a-was-here ] && echo "ok 1 - b: the same private /tmp as a"\necho "# exit: fake/a 0"\necho "not ok 2 - b: broken"\necho 1..2\nexit 1\n' >"$guest/tests/fake/b"
chmod +x "$guest/tests/fake/a" "$guest/tests/fake/b"
rm -f /tmp/a-was-here
out=$(cd "$tmp/repo" && XONLY_CPUINFO=$tmp/pku scripts/check-hw --guest "$guest" 2>"$tmp/err"); st=$?
last=$(printf '%s\n' "$out" | tail -n 1)
[ "$st" = 1 ] && [ "$last" = "5 passed, 1 failed, 3 skipped" ]
ok $? "pku: the tests ran: '$last', status $st (want 1: one failed)$([ "$st" != 1 ] && printf '; %s' "$(tail -n 3 "$tmp/err" | tr '\n' '|')")"
log=$tmp/repo/build/hw-tests.log
grep -q '^ok 1 - a: runs as /xonly/tests/fake/a' "$log" && ! grep -q '^not ok [0-9]* - a:' "$log"
ok $? "pku: each test ran at /xonly/tests/NAME, with XONLY_STOCK_KERNEL=1, in a private /tmp: $(grep -c '^ok [0-9]* - a:' "$log") of a's 5 ok"
[ ! -e /tmp/a-was-here ] && grep -q '^ok 1 - b: the same private /tmp' "$log"
ok $? "pku: its /tmp is private to the run (the host's /tmp untouched)"
printf '%s\n' "$out" | grep -qx 'FAIL fake/b: not ok 2 - b: broken' && grep -q '^#   exit: fake/a 0' "$log"
ok $? "pku: a failure is named; a test's false '# exit:' line is shifted, as in the VM"
printf '%s\n' "$out" | grep -q '^skipped: fake/missing: not built' &&
	printf '%s\n' "$out" | grep -qx 'skipped: fake/s: needs the xonly series: a reason' &&
	printf '%s\n' "$out" | grep -qx 'skipped: a: a part: needs the xonly series: a part'
ok $? "pku: the skipped: a test not built, one of hw.skip, a part of a test"
grep -qx '# accel: host, cpu Fake Xeon 1234 (no VM: kernel .*, hardware PKU)' "$tmp/repo/build/results/hw.txt" &&
	grep -qx 'hw \[host, cpu Fake Xeon 1234\]: 5 passed, 1 failed, 3 skipped' "$tmp/repo/build/results/hw.txt" &&
	grep -q '<property name="accel" value="host, cpu Fake Xeon 1234 (no VM: kernel ' "$tmp/repo/build/results/hw.xml"
ok $? "pku: build/results/hw.txt and hw.xml name the host: $(head -n 1 "$tmp/repo/build/results/hw.txt")"
(cd "$tmp/repo" && XONLY_CPUINFO=$tmp/pku scripts/check-hw --probe >/dev/null 2>&1)
ok $? "pku: --probe says yes (status 0)"
tap_done
