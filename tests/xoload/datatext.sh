#!/bin/sh
# datatext.sh - data in .text: a table between two CFI-covered functions
# (tests/xoload/lib/datatext.S), in the program and in a dlopen()ed
# library.  Under `xoload` and under `xoload --kernel` the code that loads
# the table runs, the table reads, and both functions fault on read with
# the execute-only key.  xoload's plan keeps the table's page readable
# ("not covered by any FDE", checked in --report); under --kernel the
# audit module gives it back its read (pkey_mprotect(..., 0)).
XO=/xonly/bin/xoload
H=/xonly/lib/xoload/datatext
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - datatext: $2"; else echo "not ok $n - datatext: $2"; fail=1; fi; }

for mode in "" --kernel; do
	# --kernel needs the series' xonly mode: a stock kernel (make check-hw) has no "Xonly:" line.
	if [ "$mode" = --kernel ] && ! grep -q '^Xonly:' /proc/self/status; then
		n=$((n + 1)); echo "ok $n - datatext: xoload --kernel $H # SKIP no xonly mode on this kernel (no Xonly: in /proc/self/status)"
		continue
	fi
	out=$($XO $mode $H "xoload${mode:+ $mode}" 2>&1); st=$?
	echo "$out" | sed 's/^/#   /'
	fails=$(echo "$out" | grep -c '^not ok')
	oks=$(echo "$out" | grep -c '^ok')
	[ "$st" = 0 ] && [ "$fails" = 0 ] && [ "$oks" = 11 ]
	ok $? "xoload${mode:+ $mode} $H: table loads, reads; functions fault ($oks ok, $fails not ok, status $st)"
done
# The report names the table's range: section, offset, size, why.
$XO --report=tsv $H >/dev/null 2>rep
grep -q "^$H	[0-9a-f]*	[0-9a-f]*	readable	not covered by any FDE	.text	[0-9a-f]*	4096$" rep
ok $? "--report=tsv: the table's page is readable, 'not covered by any FDE', .text, offset, 4096 bytes"
$XO --report $H >/dev/null 2>rep
grep -q "^xoload: $H 0x[0-9a-f]*-0x[0-9a-f]* readable not covered by any FDE (.text+0x[0-9a-f]*, 4096 bytes)$" rep
ok $? "--report: the same in the human format"
# Natively the functions read (the test above is not vacuous).
out=$($H native 2>&1)
echo "$out" | grep -q "^not ok .*reading dt_sum's first byte: no fault"
ok $? "natively, reading dt_sum's first byte does not fault (the probe can tell)"
echo "1..$n"
exit $fail
