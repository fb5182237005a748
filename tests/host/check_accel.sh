#!/usr/bin/env bash
# check_accel.sh - the results of a VM run name the accelerator and the CPU
# model it ran on: build/results/NAME.txt has a "# accel: ..." line and its
# summary label says "[tcg, cpu max]" or "[kvm, cpu host]", every testsuite
# of NAME.xml has the accel property, and the totals line of scripts/check
# stays the last line, after the accelerators of the run.  Runs
# scripts/check KVER in a scratch copy of the scripts, with made-up
# build-kernel, mkinitramfs and checkpatch, the real scripts/vm and a fake
# qemu-system-x86_64 that prints a clean console (no kernel, no VM); once
# on this host's choice forced to TCG, once with a fake cpuinfo with pku
# and a fake kvm device (XONLY_CPUINFO, XONLY_KVM_DEV).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init check-accel
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XONLY_KVM_PROBE_CACHE=$tmp/probe-verdict	# not the host's own verdict
mkdir -p "$tmp/scripts" "$tmp/tests/host" "$tmp/tests/lib" "$tmp/build/guest/tests" "$tmp/bin" "$tmp/kdir"
cp "$top"/scripts/{check,lib.sh,tap-summary,vm} "$tmp/scripts/"
cp "$top/tests/lib/tap.sh" "$tmp/tests/lib/"
cp "$top/tests/nopku.run" "$tmp/tests/"
: >"$tmp/kdir/bzImage"
printf '#!/bin/sh\necho "ok 1 - h: fine"\necho 1..1\n' >"$tmp/tests/host/h.sh"
chmod +x "$tmp/tests/host/h.sh"
printf '#!/bin/sh\necho %s\n' "$tmp/kdir" >"$tmp/scripts/build-kernel"
printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do [ "$1" = -o ] && : >"$2"; shift; done\n' >"$tmp/scripts/mkinitramfs"
printf '#!/bin/sh\nexit 0\n' >"$tmp/scripts/checkpatch"
# As scripts/vm's KVM probe (-serial file:F) it shows a guest with PKU.
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
for a; do case $a in file:*)
	echo "[    0.2] x86/fpu: Supporting XSAVE feature 0x200: 'Protection Keys User registers'" >"${a#file:}"
	exec sleep 30 ;;
esac; done
echo "# qemu-args: $*"
echo "# xonly-guest: kernel 6.1.0, mode check, 2 cpus"
printf '# run: a\nok 1 - a: fine\nok 2 - a: later # SKIP not here\n1..2\n# exit: a 0\n'
printf '# run: b\nok 1 - b: fine\n1..1\n# exit: b 0\n'
echo "# xonly-guest: done"
EOF
chmod +x "$tmp"/scripts/* "$tmp/bin/qemu-system-x86_64"
printf 'processor\t: 0\nmodel name\t: Fake Xeon 1234\nflags\t\t: fpu sse2 pku ospke\n' >"$tmp/cpuinfo-pku"
: >"$tmp/kvm"

# run ACCEL CPU ENV...: scripts/check 6.1 with the given environment; checks
# its results name ACCEL and CPU.
run() {
	local accel=$1 cpu=$2 out st last name
	shift 2
	rm -rf "$tmp/build/results"
	out=$(cd "$tmp" && env PATH="$tmp/bin:$PATH" XONLY_ON=0 XONLY_STRICT=0 XONLY_LEARN=0 NOPKU=0 XOLOAD_MODULE_BOOT=0 "$@" scripts/check 6.1 2>"$tmp/err"); st=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	[ "$st" = 0 ] && [ "$last" = "3 passed, 0 failed, 1 skipped" ]
	ok $? "$accel: scripts/check 6.1 passes, its last line the totals: '$last' (status $st$([ -s "$tmp/err" ] && [ "$st" != 0 ] && printf '; %s' "$(tail -n 3 "$tmp/err")"))"
	printf '%s\n' "$out" | tail -n 2 | head -n 1 | grep -q "^# accel: $accel, cpu $cpu ("
	ok $? "$accel: the line before the totals names the accelerator: '$(printf '%s\n' "$out" | tail -n 2 | head -n 1)'"
	name=$tmp/build/results/6.1-xonly
	grep -q "^# accel: $accel, cpu $cpu (" "$name.txt" &&
		grep -qxF "linux-6.1-xonly [$accel, cpu $cpu]: 2 passed, 0 failed, 1 skipped" "$name.txt"
	ok $? "$accel: build/results/6.1-xonly.txt names it, in the summary line too: $(tr '\n' '|' <"$name.txt")"
	if command -v python3 >/dev/null; then
		python3 - "$name.xml" "$accel, cpu $cpu (" >"$tmp/why" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
assert suites, "no testsuite"
for s in suites:
    props = {p.get("name"): p.get("value") for p in s.findall("properties/property")}
    assert props.get("accel", "").startswith(sys.argv[2]), (s.get("name"), props)
    assert s.find("properties") is list(s)[0], "properties first"
print(f"{len(suites)} testsuites, accel {props['accel']}")
PY
		ok $? "$accel: every testsuite of build/results/6.1-xonly.xml has the accel property ($(tail -n 1 "$tmp/why"))"
	else
		grep -q "<property name=\"accel\" value=\"$accel, cpu $cpu (" "$name.xml"
		ok $? "$accel: build/results/6.1-xonly.xml has the accel property (no python3: grep)"
	fi
	grep -q "^# qemu-args: -accel $accel -cpu $cpu " "$tmp/build/vm-6.1-xonly.log"
	ok $? "$accel: and QEMU was started with -accel $accel -cpu $cpu"
}
run tcg max XONLY_ACCEL=tcg
run kvm host XONLY_CPUINFO="$tmp/cpuinfo-pku" XONLY_KVM_DEV="$tmp/kvm"
grep -q 'Fake Xeon 1234, hardware PKU' "$tmp/build/results/6.1-xonly.txt"
ok $? "kvm: the results name the host's CPU model: $(grep '^# accel' "$tmp/build/results/6.1-xonly.txt")"

# make bench's VM half: scripts/check --mode bench names where it runs first.
out=$(cd "$tmp" && env PATH="$tmp/bin:$PATH" XONLY_ACCEL=tcg scripts/check --mode bench 6.1 2>/dev/null); st=$?
[ "$st" = 0 ] && printf '%s\n' "$out" | head -n 1 |
	grep -qx -- '--- bench: linux-6.1-xonly in QEMU, accel tcg, cpu max (QEMU TCG emulation, PKU emulated; host: .*) ---' &&
	printf '%s\n' "$out" | sed -n 2p | grep -q '^# xonly-vm: accel tcg, cpu max ('
ok $? "bench: the output begins with the accelerator and CPU model (status $st): $(printf '%s\n' "$out" | head -n 1)"
out=$(cd "$tmp" && env PATH="$tmp/bin:$PATH" XONLY_CPUINFO="$tmp/cpuinfo-pku" XONLY_KVM_DEV="$tmp/kvm" \
	scripts/check --mode bench 6.1 2>/dev/null); st=$?
[ "$st" = 0 ] && printf '%s\n' "$out" | head -n 1 |
	grep -qxF -- '--- bench: linux-6.1-xonly in QEMU, accel kvm, cpu host (Fake Xeon 1234, hardware PKU) ---' &&
	grep -q -- '-accel kvm -cpu host .*xonly.mode=bench' "$tmp/build/vm-6.1-xonly-bench.log"
ok $? "bench on KVM: the header says kvm and the host CPU model (status $st): $(printf '%s\n' "$out" | head -n 1)"

# A host with PKU: scripts/check runs scripts/check-hw first and counts its
# results (a fake check-hw: its probe says PKU, its run leaves a summary
# with one failure); a test filter or XONLY_HW=0 leaves it out.
printf '%s\n' '#!/bin/sh' \
	'[ "${1:-}" = --probe ] && { echo "PKU: Fake Xeon 1234"; exit 0; }' \
	'mkdir -p build/results; echo ran >>build/hw-ran' \
	'printf "# accel: host, cpu Fake Xeon 1234 (no VM: kernel 6.18, hardware PKU)\nFAIL hwtest: not ok 2\nhw [host, cpu Fake Xeon 1234]: 5 passed, 1 failed, 2 skipped\n" >build/results/hw.txt' \
	'exit 1' >"$tmp/scripts/check-hw"
chmod +x "$tmp/scripts/check-hw"
hw() {	# hw ENV...: scripts/check 6.1 on TCG with ENV (no filter of the caller's T); sets out, st
	rm -rf "$tmp/build/results" "$tmp/build/hw-ran"
	out=$(cd "$tmp" && env PATH="$tmp/bin:$PATH" XONLY_ON=0 XONLY_STRICT=0 XONLY_LEARN=0 NOPKU=0 XOLOAD_MODULE_BOOT=0 \
		XONLY_ACCEL=tcg T= "$@" scripts/check 6.1 2>"$tmp/err"); st=$?
}
hw
[ "$st" != 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "8 passed, 1 failed, 3 skipped" ] &&
	printf '%s\n' "$out" | grep -qx 'FAIL hwtest: not ok 2' &&
	printf '%s\n' "$out" | grep -qx '# accel: host, cpu Fake Xeon 1234 (no VM: kernel 6.18, hardware PKU)'
ok $? "PKU host: check-hw's results are in the totals, its failure fails the run (status $st: $(printf '%s' "$out" | tail -n 1))"
hw XONLY_HW=0
[ "$st" = 0 ] && [ ! -e "$tmp/build/hw-ran" ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "3 passed, 0 failed, 1 skipped" ]
ok $? "XONLY_HW=0: check-hw not run (status $st: $(printf '%s' "$out" | tail -n 1))"
hw T=a
[ ! -e "$tmp/build/hw-ran" ]
ok $? "with a test filter: check-hw not run"
rm -f "$tmp/scripts/check-hw"

# A forced kvm that cannot be had ends scripts/check with the reason, before any VM.
rm -rf "$tmp/build/results" "$tmp/build/vm-6.1-xonly.log"
(cd "$tmp" && env PATH="$tmp/bin:$PATH" XONLY_ON=0 XONLY_STRICT=0 XONLY_LEARN=0 NOPKU=0 XOLOAD_MODULE_BOOT=0 XONLY_ACCEL=kvm XONLY_KVM_DEV="$tmp/none" \
	scripts/check 6.1 >"$tmp/out" 2>"$tmp/err"); st=$?
[ "$st" != 0 ] && grep -q "XONLY_ACCEL=kvm: $tmp/none is not usable" "$tmp/err" && ! grep -q qemu-args "$tmp/out"
ok $? "XONLY_ACCEL=kvm without a kvm device: scripts/check fails with the reason, no VM (status $st)"
tap_done
