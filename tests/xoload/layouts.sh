#!/bin/sh
# layouts.sh - xoload on the object layouts that cannot be all execute-only
# (--report checked), on a static program, and its exit statuses.
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload: $2"; else echo "not ok $n - xoload: $2"; fail=1; fi; }
cd /tmp || exit 1

out=$($XO --report=tsv $L/hello a b 2>rep); s=$?
[ "$out" = "hello a b" ] && [ $s = 0 ] && grep -q "^$L/hello	[0-9a-f]*	[0-9a-f]*	xo	code$" rep
ok $? "PIE program runs, report: its code range is xo"
grep -q '^/lib64/ld-linux-x86-64.so.2	.*	xo	code$' rep && grep -q 'libc.so.6	.*	xo	code$' rep
ok $? "report: ld.so and libc code ranges are xo"
grep -q '\[vdso\]' rep && ! grep -q 'vdso.*	xo	' rep
ok $? "report: the vDSO is reported and kept readable"

out=$($XO --report=tsv $L/hello-nosep x 2>rep); s=$?
[ "$out" = "hello x" ] && [ $s = 0 ]
ok $? "-z noseparate-code program runs under xoload"
grep -q "^$L/hello-nosep	.*	readable	ELF header$" rep && grep -q "^$L/hello-nosep	.*	xo	code$" rep
ok $? "report: its header page stays readable (ELF header), its code-only pages are xo"
grep -Eq "^$L/hello-nosep	.*	readable	\.(rodata|eh_frame|eh_frame_hdr|fini)" rep ||
	grep -Eq "^$L/hello-nosep	.*	readable	shares page with data segment" rep
ok $? "report: the page where code meets .rodata/.eh_frame/data stays readable and says why"
$XO --report=tsv $L/hello-nosep readmain >/dev/null 2>&1; s=$?
$XO --report=tsv $L/hello readmain >/dev/null 2>&1; s2=$?
# hello's main is in an xo page: reading it kills it (SIGSEGV); natively it can
$L/hello readmain >/dev/null; s3=$?
[ $s2 = 139 ] && [ $s3 = 0 ]
ok $? "reading main: native status $s3, under xoload $s2 (SIGSEGV)"

out=$($XO --report=tsv $L/hello-static s 2>rep); s=$?
[ "$out" = "hello s" ] && [ $s = 0 ] && grep -q "^$L/hello-static	.*	xo	code$" rep && [ "$(wc -l <rep)" -ge 1 ] && ! grep -q ld-linux rep
ok $? "static program runs, report: its code is xo, no interpreter"
$XO $L/hello-static readmain >/dev/null 2>&1; s=$?
[ $s = 139 ]
ok $? "static program reading its own main under xoload: SIGSEGV (status $s)"

out=$($XO --report=tsv $L/textrel-user 2>rep); s=$?
[ "$out" = "textrel 42" ] && [ $s = 0 ] && grep -q 'libtextrel.so	.*	readable	TEXTREL$' rep && grep -q 'libtextrel.so: warning: ' rep
ok $? "TEXTREL library: the program works, the library is kept readable with a warning"
$XO --strict $L/textrel-user >/dev/null 2>rep; s=$?
[ $s = 126 ] && grep -q 'refused (--strict)' rep
ok $? "TEXTREL library with --strict: refused, status $s"

$XO $L/hello exit 42; s=$?
ok $([ $s = 42 ] && echo 0 || echo 1) "exit status is the program's (42, got $s)"
$XO $L/hello kill 15; s=$?
ok $([ $s = 143 ] && echo 0 || echo 1) "death by SIGTERM is seen as such by the shell (143, got $s)"
$XO --report $L/hello 2>rep >/dev/null
grep -q "^xoload: $L/hello 0x[0-9a-f]*-0x[0-9a-f]* xo code$" rep
ok $? "human --report line: 'xoload: OBJECT 0xSTART-0xEND xo code'"
# json: PROG's lines from xoload, libc's from the audit module, the vDSO note
$XO --report=json $L/hello 2>rep >/dev/null
grep -q "^{\"object\":\"$L/hello\",\"start\":[0-9]*,\"end\":[0-9]*,\"xo\":true,\"why\":\"code\"}\$" rep &&
	grep -q '^{"object":"[^"]*/libc.so.6","start":[0-9]*,"end":[0-9]*,"xo":true,"why":"code"}$' rep &&
	grep -q '^{"object":"\[vdso\]","xo":false,"why":"kept readable: [^"]*"}$' rep &&
	! grep -qv '^{.*}$' rep
ok $? "--report=json: one JSON object per line, for PROG, libc (audit module) and the vDSO"
$XO --help | grep -q '^usage: xoload \[OPTIONS\] PROG'
ok $? "--help prints the usage"
echo "1..$n"
exit $fail
