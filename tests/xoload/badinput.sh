#!/bin/sh
# badinput.sh - xoload on bad input: one line on stderr, status 127 (not
# found) or 126 (not executable, malformed), never a crash.
XO=/xonly/bin/xoload
n=0 fail=0
cd /tmp || exit 1
mkdir -p xo-bad && cd xo-bad || exit 1
# bad WANT_STATUS 'PATTERN' DESCRIPTION FILE: xoload FILE fails as described
bad() {
	want=$1 pat=$2 what=$3; shift 3
	$XO "$@" >out 2>err; s=$?
	n=$((n + 1))
	if [ $s = "$want" ] && [ "$(wc -l <err)" = 1 ] && grep -q "^xoload: .*$pat" err && [ ! -s out ]; then
		echo "ok $n - xoload: $what: status $s, '$(cat err)'"
	else
		echo "not ok $n - xoload: $what: status $s (want $want), stderr: $(head -c 300 err)"; fail=1
	fi
}
H=/xonly/lib/xoload/hello
# patch FILE OFFSET BYTES...: overwrite bytes (octal escapes) at OFFSET
patch() { f=$1 off=$2; shift 2; printf "$@" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null; }
bad 127 'No such file' "missing file" ./nonexistent
bad 127 'command not found' "not on PATH" no-such-command-xo
echo 'just text' >text; chmod +x text
bad 126 'not an ELF file' "not ELF" ./text
head -c 40 $H >trunc; bad 126 'truncated ELF header' "truncated ELF header" ./trunc
head -c 3000 $H >trunc2; bad 126 'truncated\|past the end' "truncated segments" ./trunc2
cp $H e32; patch e32 4 '\001'; bad 126 'not a 64-bit' "32-bit ELF" ./e32
cp $H arm; patch arm 18 '\267'; bad 126 'not an x86-64' "non-x86-64 ELF (EM_AARCH64)" ./arm
cp $H ph0; patch ph0 56 '\000\000'; bad 126 'program header count' "phnum 0" ./ph0
cp $H ph9; patch ph9 56 '\377\377'; bad 126 'program header count' "phnum 65535" ./ph9
cp $H phoff; patch phoff 32 '\377\377\377\377\000'; bad 126 'truncated program headers' "phoff past the end" ./phoff
cp $H phent; patch phent 54 '\040'; bad 126 'program header size' "bad e_phentsize" ./phent
# phdr_off FILE TYPE N: file offset of the N-th (from 1) program header of TYPE
phdr_off() {
	phnum=$(od -An -t u2 -j 56 -N 2 "$1" | tr -d ' ') i=0 c=0
	while [ $i -lt "$phnum" ]; do
		t=$(od -An -t u4 -j $((64 + 56 * i)) -N 4 "$1" | tr -d ' ')
		[ "$t" = "$2" ] && c=$((c + 1)) && [ $c = "$3" ] && { echo $((64 + 56 * i)); return; }
		i=$((i + 1))
	done
}
load1=$(phdr_off $H 1 1) load2=$(phdr_off $H 1 2) ip=$(phdr_off $H 3 1)
# p_vaddr at +16, p_memsz at +40, p_offset at +8
cp $H huge; patch huge $((load1 + 40)) '\000\000\000\000\000\020\000\000'; bad 126 'huge' "huge p_memsz" ./huge
cp $H ovl; patch ovl $((load2 + 16)) '\000\000\000\000\000\000\000\000'; patch ovl $((load2 + 8)) '\000\000\000\000\000\000\000\000'
bad 126 'overlaps' "overlapping PT_LOADs" ./ovl
off=$(od -An -t u8 -j $((ip + 8)) -N 8 $H | tr -d ' ')
cp $H interp; printf '/lib64/ld-linux-x86-64.so.X' | dd of=interp bs=1 seek="$off" conv=notrunc 2>/dev/null
bad 127 'bad interpreter.*No such file' "missing interpreter" ./interp
cp $H interp2; printf '/etc/////////////////passwd' | dd of=interp2 bs=1 seek="$off" conv=notrunc 2>/dev/null
bad 126 'bad interpreter.*not an ELF' "interpreter not ELF" ./interp2
# Found by the fuzzer: a control character in the name must not split the line.
cp $H interp3; printf '/lib64/ld-linux\nx86-64.so.2' | dd of=interp3 bs=1 seek="$off" conv=notrunc 2>/dev/null
bad 127 'bad interpreter: /lib64/ld-linux\\x0ax86-64.so.2: No such file' "interpreter name with a newline" ./interp3
bad 2 'no program given' "no program"
echo "1..$n"
exit $fail
