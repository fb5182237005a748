#!/usr/bin/env bash
# vm_accel.sh - scripts/vm picks KVM (-cpu host) only where the host CPU has
# PKU and /dev/kvm is usable, TCG (-cpu max) otherwise; XONLY_ACCEL=tcg
# always gets TCG, XONLY_ACCEL=kvm where it cannot give the guest PKU fails
# with its reason instead of falling back; the console log starts with the
# accelerator and CPU model, and QEMU is started with them.  Where KVM is
# chosen, a probe boot must first show a guest with PKU: a QEMU that
# aborts, a guest that prints nothing and one without PKU each fall back
# to TCG with what the probe saw (XONLY_ACCEL=kvm: an error); the verdict
# is kept for the host's boot, so a second VM does not probe again.
#
# A fake /proc/cpuinfo (XONLY_CPUINFO) with and without the pku flag, a
# fake /dev/kvm (XONLY_KVM_DEV: a file this user can open read-write, or a
# missing path), and for the boots a fake qemu-system-x86_64 on PATH that
# prints its arguments, or as the probe (-serial file:F) writes to F what
# FAKE_PROBE says: no VM is started.  XONLY_KVM_PROBE_CACHE points into
# the test's directory, so the host's own verdict plays no part.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init vm_accel
vm=$top/scripts/vm
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XONLY_KVM_PROBE_CACHE=$tmp/probe-verdict

cpuinfo() {	# cpuinfo FILE FLAGS...
	local f=$1; shift
	printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Fake Xeon 1234\nflags\t\t: %s\n\n' "$*" >"$f"
	printf 'processor\t: 1\nmodel name\t: Fake Xeon 1234\nflags\t\t: %s\n' "$*" >>"$f"
}
base='fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge sse sse2 avx2 smep bmi2 erms invpcid'
cpuinfo "$tmp/pku" $base pku ospke avx512f
cpuinfo "$tmp/pku-no-ospke" $base pku avx512f
cpuinfo "$tmp/nopku" $base avx512f
# A flag that only contains "pku" is not pku.
cpuinfo "$tmp/pku-lookalike" $base pkuish xpku
: >"$tmp/kvm"
nokvm=$tmp/no-such-kvm

# accel WANT_STATUS WANT_FIRST_LINE CPUINFO KVM_DEV [XONLY_ACCEL] -- WHAT
accel() {
	local want_st=$1 want=$2 ci=$3 dev=$4 force=$5 what=$6 out st
	out=$(XONLY_CPUINFO=$ci XONLY_KVM_DEV=$dev XONLY_ACCEL=$force "$vm" --print-accel 2>"$tmp/err"); st=$?
	[ "$st" = "$want_st" ] && [ "$(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f1-4)" = "$want" ]
	ok $? "$what -> status $want_st, '$want' (got status $st, '$(printf '%s' "$out" | head -n 1)'$([ -s "$tmp/err" ] && printf '; stderr: %s' "$(head -c 300 "$tmp/err")"))"
}
accel 0 "accel kvm, cpu host" "$tmp/pku" "$tmp/kvm" "" "pku and a usable kvm device: KVM"
accel 0 "accel kvm, cpu host" "$tmp/pku-no-ospke" "$tmp/kvm" "" "pku without ospke (the host kernel's, not the guest's): still KVM"
accel 0 "accel tcg, cpu max" "$tmp/nopku" "$tmp/kvm" "" "a usable kvm device, no pku: TCG"
accel 0 "accel tcg, cpu max" "$tmp/pku-lookalike" "$tmp/kvm" "" "flags like 'pkuish' are not pku: TCG"
accel 0 "accel tcg, cpu max" "$tmp/pku" "$nokvm" "" "pku, no kvm device: TCG"
accel 0 "accel tcg, cpu max" "$tmp/nopku" "$nokvm" "" "neither: TCG"
accel 0 "accel tcg, cpu max" "$tmp/pku" "$tmp" "" "a directory as kvm device: TCG"
accel 0 "accel tcg, cpu max" "$tmp/pku" "$tmp/kvm" tcg "XONLY_ACCEL=tcg with pku and kvm: TCG"
accel 0 "accel tcg, cpu max" "$tmp/nopku" "$nokvm" tcg "XONLY_ACCEL=tcg with neither: TCG"
accel 0 "accel kvm, cpu host" "$tmp/pku" "$tmp/kvm" kvm "XONLY_ACCEL=kvm with pku and kvm: KVM"
accel 0 "accel tcg, cpu max" "$tmp/nopku" "$tmp/kvm" auto "XONLY_ACCEL=auto: the automatic choice"
accel 1 "" "$tmp/nopku" "$tmp/kvm" kvm "XONLY_ACCEL=kvm without pku: an error"
grep -q "XONLY_ACCEL=kvm: the host CPU has no PKU (no 'pku' flag in $tmp/nopku)" "$tmp/err"
ok $? "... whose message says the CPU has no PKU: $(cat "$tmp/err")"
accel 1 "" "$tmp/pku" "$nokvm" kvm "XONLY_ACCEL=kvm without a usable kvm device: an error"
grep -q "XONLY_ACCEL=kvm: $nokvm is not usable" "$tmp/err"
ok $? "... whose message names the device: $(cat "$tmp/err")"
[ ! -e "$nokvm" ]
ok $? "probing a missing kvm device does not create it"
accel 1 "" "$tmp/pku" "$tmp/kvm" bogus "XONLY_ACCEL=bogus: an error"

out=$(XONLY_CPUINFO=$tmp/pku XONLY_KVM_DEV=$tmp/kvm "$vm" --print-accel 2>&1)
[ "$out" = "accel kvm, cpu host (Fake Xeon 1234, hardware PKU)
why: $tmp/kvm usable and the host CPU has PKU; probe: not probed (no --kernel)" ]
ok $? "--print-accel names the host's CPU model under KVM: $(printf '%s' "$out" | tr '\n' '|')"
out=$(XONLY_CPUINFO=$tmp/nopku XONLY_KVM_DEV=$tmp/kvm "$vm" --print-accel 2>&1)
[ "$out" = "accel tcg, cpu max (QEMU TCG emulation, PKU emulated; host: Fake Xeon 1234)
why: the host CPU has no PKU (no 'pku' flag in $tmp/nopku)" ]
ok $? "--print-accel says TCG emulates, and why: $(printf '%s' "$out" | tr '\n' '|')"

# The boot itself, with a QEMU that only prints its arguments.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
f=
for a; do case $a in file:*) f=${a#file:} ;; esac; done
if [ -n "$f" ]; then
	echo probe >>"$FAKE_PROBE_LOG"
	case ${FAKE_PROBE:-ok} in
	ok) echo "[    0.2] x86/fpu: Supporting XSAVE feature 0x200: 'Protection Keys User registers'" >"$f"; exec sleep 30 ;;
	nopku) echo "[    0.0] Linux version 6.1.0" >"$f"; echo "[    1.0] Kernel panic - not syncing: No working init found." >>"$f"; exit 0 ;;
	silent) exec sleep 30 ;;
	noterm) echo $$ >"$FAKE_PROBE_PID"; trap '' TERM; exec sleep 30 ;;
	pid) echo $$ >"$FAKE_PROBE_PID"; exec sleep 30 ;;
	abort) echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2; kill -ABRT $$ ;;
	esac
fi
echo "qemu-args: $*"
FAKE
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/bzImage"; : >"$tmp/initrd"
export FAKE_PROBE_LOG=$tmp/probes
boot() {	# boot CPUINFO KVM_DEV XONLY_ACCEL LOG
	PATH=$tmp/bin:$PATH XONLY_CPUINFO=$1 XONLY_KVM_DEV=$2 XONLY_ACCEL=$3 XONLY_KVM_PROBE_TIMEOUT=2 \
		"$vm" --kernel "$tmp/bzImage" --initrd "$tmp/initrd" --timeout 20 --log "$4" >"$4.out" 2>"$4.err"
}
boot "$tmp/pku" "$tmp/kvm" "" "$tmp/kvm.log"; st=$?
[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel kvm -cpu host ' "$tmp/kvm.log"
ok $? "a boot with pku and kvm starts QEMU with -accel kvm -cpu host (status $st: $(tail -n 1 "$tmp/kvm.log"))"
[ "$(head -n 2 "$tmp/kvm.log")" = "# xonly-vm: accel kvm, cpu host (Fake Xeon 1234, hardware PKU)
# xonly-vm: why: $tmp/kvm usable and the host CPU has PKU; probe: a KVM guest booted with PKU" ] &&
	cmp -s "$tmp/kvm.log" "$tmp/kvm.log.out"
ok $? "its console and its log begin with the accelerator, the CPU model and the probe's verdict"
boot "$tmp/pku" "$tmp/kvm" "" "$tmp/kvm2.log"; st=$?
[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel kvm -cpu host ' "$tmp/kvm2.log" && [ "$(grep -c . "$tmp/probes")" = 1 ]
ok $? "a second boot takes the kept verdict: KVM, no second probe ($(grep -c . "$tmp/probes") probes, status $st)"
# probed WHAT WANT_WHY: with FAKE_PROBE=WHAT, a fresh verdict; TCG, and the why-line says WANT_WHY.
probed() {
	rm -f "$XONLY_KVM_PROBE_CACHE"
	FAKE_PROBE=$1 boot "$tmp/pku" "$tmp/kvm" "" "$tmp/p-$1.log"; st=$?
	[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel tcg -cpu max ' "$tmp/p-$1.log" &&
		[ "$(sed -n 2p "$tmp/p-$1.log")" = "# xonly-vm: why: $tmp/kvm usable and the host CPU has PKU, but the KVM probe failed: $2" ] &&
		[ ! -s "$tmp/p-$1.log.err" ]
	ok $? "pku and kvm, but $1 under KVM: TCG, and why ($(sed -n 2p "$tmp/p-$1.log"); status $st$([ -s "$tmp/p-$1.log.err" ] && printf '; stderr: %s' "$(head -c 200 "$tmp/p-$1.log.err")"))"
}
probed abort "QEMU under KVM failed: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69"
probed silent "a KVM guest printed nothing in 2s"
probed nopku "a KVM guest booted without PKU (no 'Protection Keys User registers' line)"
FAKE_PROBE=silent boot "$tmp/pku" "$tmp/kvm" kvm "$tmp/forced-probe.log"; st=$?
[ "$st" != 0 ] && ! grep -q qemu-args "$tmp/forced-probe.log.out" "$tmp/forced-probe.log" 2>/dev/null &&
	grep -q "XONLY_ACCEL=kvm: $tmp/kvm usable and the host CPU has PKU, but the probe failed: a KVM guest booted without PKU" "$tmp/forced-probe.log.err"
ok $? "XONLY_ACCEL=kvm with a failed (kept) verdict: an error before QEMU starts (status $st: $(cat "$tmp/forced-probe.log.err"))"
: >"$tmp/probes"
boot "$tmp/nopku" "$tmp/kvm" "" "$tmp/tcg0.log"; st=$?
[ "$st" = 0 ] && [ ! -s "$tmp/probes" ]
ok $? "without pku no probe runs (status $st)"
boot "$tmp/nopku" "$tmp/kvm" "" "$tmp/tcg.log"; st=$?
[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel tcg -cpu max ' "$tmp/tcg.log" &&
	head -n 1 "$tmp/tcg.log" | grep -qx '# xonly-vm: accel tcg, cpu max (QEMU TCG emulation, PKU emulated; host: Fake Xeon 1234)'
ok $? "a boot without pku starts QEMU with -accel tcg -cpu max, and says so first (status $st)"
boot "$tmp/nopku" "$tmp/kvm" kvm "$tmp/forced.log"; st=$?
[ "$st" != 0 ] && ! grep -q qemu-args "$tmp/forced.log.out" "$tmp/forced.log" 2>/dev/null &&
	grep -q "XONLY_ACCEL=kvm: the host CPU has no PKU" "$tmp/forced.log.err"
ok $? "a boot with XONLY_ACCEL=kvm without pku fails before QEMU starts (status $st)"

# The probe's QEMU ends with the probe: one that ignores SIGTERM (a KVM
# guest stuck where QEMU cannot stop it) is killed, not waited for
# forever; scripts/vm killed during the probe leaves no QEMU behind.
export FAKE_PROBE_PID=$tmp/probe-pid
# alive PID: a process that runs (not a zombie an init that never reaps keeps).
alive() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && ! grep -q ') Z ' "/proc/$1/stat" 2>/dev/null; }
rm -f "$XONLY_KVM_PROBE_CACHE" "$FAKE_PROBE_PID"
t0=$(date +%s)
FAKE_PROBE=noterm timeout 40 env PATH="$tmp/bin:$PATH" XONLY_CPUINFO="$tmp/pku" XONLY_KVM_DEV="$tmp/kvm" \
	XONLY_KVM_PROBE_TIMEOUT=2 "$vm" --kernel "$tmp/bzImage" --print-accel >"$tmp/noterm.out" 2>&1; st=$?
t1=$(date +%s)
p=$(cat "$FAKE_PROBE_PID" 2>/dev/null)
left=0; alive "$p" && left=1
[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
[ "$st" = 0 ] && [ $((t1 - t0)) -lt 20 ] && [ "$left" = 0 ] &&
	grep -q "KVM probe failed: a KVM guest printed nothing in 2s" "$tmp/noterm.out"
ok $? "a probe QEMU that ignores SIGTERM is killed: TCG after $((t1 - t0))s (limit 2 s), none left (status $st, left $left)"
rm -f "$XONLY_KVM_PROBE_CACHE" "$FAKE_PROBE_PID"
FAKE_PROBE=pid PATH="$tmp/bin:$PATH" XONLY_CPUINFO="$tmp/pku" XONLY_KVM_DEV="$tmp/kvm" XONLY_KVM_PROBE_TIMEOUT=20 \
	"$vm" --kernel "$tmp/bzImage" --print-accel >/dev/null 2>&1 &
vp=$!
for i in $(seq 50); do [ -s "$FAKE_PROBE_PID" ] && break; sleep 0.1; done
sleep 0.3
kill "$vp"; wait "$vp"; st=$?
p=$(cat "$FAKE_PROBE_PID" 2>/dev/null)
left=0
for i in $(seq 30); do alive "$p" || break; sleep 0.1; done
alive "$p" && left=1 && kill -KILL "$p"
[ -n "$p" ] && [ "$left" = 0 ]
ok $? "scripts/vm killed during the probe (status $st): its QEMU ends too (pid ${p:-none}, left $left)"

# A probe time limit that is not whole seconds: an error, not a failed
# probe (which was kept as the verdict for the host's boot) nor a silent exit.
for v in 1.5 abc; do
	rm -f "$XONLY_KVM_PROBE_CACHE"
	out=$(PATH="$tmp/bin:$PATH" XONLY_CPUINFO="$tmp/pku" XONLY_KVM_DEV="$tmp/kvm" XONLY_KVM_PROBE_TIMEOUT=$v \
		"$vm" --kernel "$tmp/bzImage" --print-accel 2>&1); st=$?
	[ "$st" = 1 ] && [[ $out == *"XONLY_KVM_PROBE_TIMEOUT takes whole seconds, not '$v'"* ]] && [ ! -s "$XONLY_KVM_PROBE_CACHE" ]
	ok $? "XONLY_KVM_PROBE_TIMEOUT=$v: an error, no verdict kept (status $st: $(printf '%s' "$out" | tr '\n' '|'))"
done

# HOME unset (cron, env -i): no kept verdict, not an error of set -u.
out=$(env -u HOME -u XONLY_KVM_PROBE_CACHE PATH="$tmp/bin:$PATH" XONLY_CPUINFO="$tmp/pku" XONLY_KVM_DEV="$tmp/kvm" \
	XONLY_KVM_PROBE_TIMEOUT=2 "$vm" --kernel "$tmp/bzImage" --print-accel 2>&1); st=$?
[ "$st" = 0 ] && [ "$(printf '%s\n' "$out" | sed -n 2p)" = "why: $tmp/kvm usable and the host CPU has PKU; probe: a KVM guest booted with PKU" ]
ok $? "HOME unset: the probe runs, its verdict is not kept (status $st: $(printf '%s' "$out" | tr '\n' '|'))"
tap_done
