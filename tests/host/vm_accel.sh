#!/usr/bin/env bash
# vm_accel.sh - scripts/vm picks KVM (-cpu host) only where the host CPU has
# PKU and /dev/kvm is usable, TCG (-cpu max) otherwise; XONLY_ACCEL=tcg
# always gets TCG, XONLY_ACCEL=kvm where it cannot give the guest PKU fails
# with its reason instead of falling back; the console log starts with the
# accelerator and CPU model, and QEMU is started with them.
#
# A fake /proc/cpuinfo (XONLY_CPUINFO) with and without the pku flag, a
# fake /dev/kvm (XONLY_KVM_DEV: a file this user can open read-write, or a
# missing path), and for the boots a fake qemu-system-x86_64 on PATH that
# prints its arguments: no VM is started.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init vm_accel
vm=$top/scripts/vm
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

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
why: $tmp/kvm usable and the host CPU has PKU" ]
ok $? "--print-accel names the host's CPU model under KVM: $(printf '%s' "$out" | tr '\n' '|')"
out=$(XONLY_CPUINFO=$tmp/nopku XONLY_KVM_DEV=$tmp/kvm "$vm" --print-accel 2>&1)
[ "$out" = "accel tcg, cpu max (QEMU TCG emulation, PKU emulated; host: Fake Xeon 1234)
why: the host CPU has no PKU (no 'pku' flag in $tmp/nopku)" ]
ok $? "--print-accel says TCG emulates, and why: $(printf '%s' "$out" | tr '\n' '|')"

# The boot itself, with a QEMU that only prints its arguments.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "qemu-args: $*"\n' >"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/bzImage"; : >"$tmp/initrd"
boot() {	# boot CPUINFO KVM_DEV XONLY_ACCEL LOG
	PATH=$tmp/bin:$PATH XONLY_CPUINFO=$1 XONLY_KVM_DEV=$2 XONLY_ACCEL=$3 \
		"$vm" --kernel "$tmp/bzImage" --initrd "$tmp/initrd" --timeout 20 --log "$4" >"$4.out" 2>"$4.err"
}
boot "$tmp/pku" "$tmp/kvm" "" "$tmp/kvm.log"; st=$?
[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel kvm -cpu host ' "$tmp/kvm.log"
ok $? "a boot with pku and kvm starts QEMU with -accel kvm -cpu host (status $st: $(tail -n 1 "$tmp/kvm.log"))"
[ "$(head -n 2 "$tmp/kvm.log")" = "# xonly-vm: accel kvm, cpu host (Fake Xeon 1234, hardware PKU)
# xonly-vm: why: $tmp/kvm usable and the host CPU has PKU" ] && cmp -s "$tmp/kvm.log" "$tmp/kvm.log.out"
ok $? "its console and its log begin with the accelerator and the CPU model"
boot "$tmp/nopku" "$tmp/kvm" "" "$tmp/tcg.log"; st=$?
[ "$st" = 0 ] && grep -q -- '^qemu-args: -accel tcg -cpu max ' "$tmp/tcg.log" &&
	head -n 1 "$tmp/tcg.log" | grep -qx '# xonly-vm: accel tcg, cpu max (QEMU TCG emulation, PKU emulated; host: Fake Xeon 1234)'
ok $? "a boot without pku starts QEMU with -accel tcg -cpu max, and says so first (status $st)"
boot "$tmp/nopku" "$tmp/kvm" kvm "$tmp/forced.log"; st=$?
[ "$st" != 0 ] && ! grep -q qemu-args "$tmp/forced.log.out" "$tmp/forced.log" 2>/dev/null &&
	grep -q "XONLY_ACCEL=kvm: the host CPU has no PKU" "$tmp/forced.log.err"
ok $? "a boot with XONLY_ACCEL=kvm without pku fails before QEMU starts (status $st)"
tap_done
