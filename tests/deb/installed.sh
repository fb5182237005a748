#!/bin/sh
# installed.sh - the Debian package of the tools (make deb), as installed in
# the VM image: scripts/mkinitramfs unpacks it at / with dpkg-deb -x, which
# is what dpkg does but for the maintainer scripts, which only keep the
# plan cache fresh (busybox has no dpkg; tests/host/deb_cache.sh runs them).  Proves: every file the package lists is in place, and the
# installed tools work from there on the patched kernel: a program runs
# under /usr/bin/xoload with its own code and libc's execute-only, the
# audit module found at /usr/lib/xonly/xoaudit.so from xoload's installed
# path (LD_AUDIT names it; libc's code, which only the module protects, is
# --xp; the module's own code too); reading the program's code faults;
# --scan runs the installed xoscan; xosurvey and jit-demo run.
. /xonly/lib/tap.sh
tap_init deb-installed
list=/xonly/lists/xonly-tools.files
[ -s "$list" ] || tap_bail "the image has the package's file list $list (make guest builds the package)"
X=/usr/bin/xoload H=/xonly/lib/xoload/hello
cd /tmp || tap_bail "cd /tmp"

n=0 missing=
while read -r f; do
	n=$((n + 1))
	[ -e "$f" ] || missing="$missing $f"
done <"$list"
[ "$n" -ge 10 ] && [ -z "$missing" ]
ok $? "all $n files of the package are installed${missing:+; missing:$missing}"

out=$($X $H from the package 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "hello from the package" ]
ok $? "a program runs under the installed xoload (status $st: $out)"

# bash's own maps (a builtin: cat would be a busybox process of its own).
$X --report=tsv /bin/bash -c 'echo "LD_AUDIT=$LD_AUDIT"; mapfile -t m </proc/self/maps; printf "%s\n" "${m[@]}"' \
	>maps.out 2>maps.err; st=$?
ok $st "bash runs under the installed xoload (status $st: $(head -c 200 maps.err))"
grep -qx 'LD_AUDIT=/usr/lib/xonly/xoaudit.so' maps.out
ok $? "xoload found its module at /usr/lib/xonly/xoaudit.so, from its own path ($(grep LD_AUDIT maps.out))"
grep -q -- ' --xp .*/bash$' maps.out
ok $? "bash's code is execute-only (mapped by xoload)"
grep -q -- ' --xp .*/libc\.so\.6$' maps.out
ok $? "libc's code is execute-only (by the installed audit module)"
grep -q -- ' --xp .*/usr/lib/xonly/xoaudit\.so$' maps.out
ok $? "the installed module's own code is execute-only"
# A readable code mapping of libc must be a range the plan keeps readable
# and names in the report (data in text: libc's CFI-less clone child path).
bad=$(awk -F'\t' 'function h(x,  i, v) { v = 0; for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return v }
	FNR == NR { if ($1 ~ /libc\.so\.6$/ && $4 == "readable") { ra[++nr] = h($2); rb[nr] = h($3) } next }
	{ split($0, f, " ") }
	f[2] == "r-xp" && f[6] ~ /libc\.so\.6$/ { split(f[1], ab, "-"); x = h(ab[1]); b = h(ab[2])
		do { moved = 0; for (i = 1; i <= nr; i++) if (x >= ra[i] && x < rb[i]) { x = rb[i]; moved = 1 } } while (moved && x < b)
		if (x < b) print f[1] }' maps.err maps.out)
[ -z "$bad" ]
ok $? "no readable executable mapping of libc is left but what the report keeps readable${bad:+ (not reported: $bad)}"

$X $H readmain >/dev/null 2>&1; st=$?
[ "$st" = 139 ]
ok $? "reading the program's own code under the installed xoload faults (SIGSEGV, status $st)"

$X --plan=json --scan=json $H >/dev/null 2>scan.err; st=$?
[ "$st" = 0 ] && grep -q '"scan":"total","object":"/xonly/lib/xoload/hello"' scan.err
ok $? "--scan runs the installed /usr/bin/xoscan (status $st)"

out=$(/usr/bin/xosurvey --totals --no-scan /usr/lib/xonly 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -q '^xosurvey: 1 objects: '
ok $? "the installed xosurvey plans the installed module (status $st: $(echo "$out" | head -n 1))"
out=$(/usr/bin/jit-demo -e 'n = 10; s = 0; while (n) { s = s + n * n; n = n - 1; } s' 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = 385 ]
ok $? "the installed jit-demo (capstone from its Depends) computes 385 (status $st: $out)"
tap_done
