#!/bin/sh
# cache_proven.sh - the proven-code rule's plans reach the run path through
# the plan cache, in the VM (issue 26 step 2; xoload(1), "Proven plans"):
# root writes two caches for the closures of openssl, python3 (with the
# _hashlib and _ssl modules it dlopens), gzip and gpg: one with
# `xoload --update-cache` (the FDE rule), one with `xoload --update-cache
# --rule=proven` (xoplan-proven plans with LLVM here, in the VM).  With
# the proven cache each program gives the same stdout, stderr and status
# natively, under xoload and under xoload --kernel, and takes plans of
# the proven rule from it ("hit (proven rule)"; --report names them);
# and xoload --report counts more execute-only pages with the proven
# cache than with the FDE one, for each program (printed as comments:
# the pages of each, the time the writers took).
# It runs in every boot of a patched kernel but xonly=learn.  In the
# xonly=on and xonly=strict ones the kernel maps every file-backed
# PROT_EXEC page execute-only but those the plans the init set name
# (xonly.plans=1): through them openssl, python3 and gpg, natively and
# under xoload (whose PROT_READ|PROT_EXEC table pages the kernel would
# otherwise make execute-only too), read libcrypto's and libgcrypt's
# tables in .text.  Booted xonly=on without plans, those runs die of
# SIGSEGV and their rows fail (seen: status 139/139/0).
XO=/xonly/bin/xoload
D=/xo-cache-proven
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-cache-proven: $2"; else echo "not ok $n - xoload-cache-proven: $2"; fail=1; fi; }
rm -rf $D && mkdir -p $D && chmod 755 $D && cd $D || exit 1
export HOME=$D
i=0; while [ $i -lt 2000 ]; do echo "row $i $(( (i * 7919) % 1000 ))"; i=$((i + 1)); done >text
dd if=/dev/urandom of=blob bs=64k count=4 2>/dev/null
cat text >>blob

progs="/usr/bin/openssl /usr/bin/python3 /usr/bin/gzip /usr/bin/gpg"
# The objects: each program's closure (xoload --plan), python's two modules.
{
	for p in $progs; do $XO --plan=tsv "$p" 2>/dev/null | cut -f1; done
	ls /usr/lib/python3*/lib-dynload/_hashlib.* /usr/lib/python3*/lib-dynload/_ssl.* 2>/dev/null
} | sort -u | while read -r f; do readlink -f "$f"; done | sort -u >objects
nobj=$(wc -l <objects)
t0=$(date +%s)
out=$(XOLOAD_CACHE_DIR=$D/fde $XO --update-cache $(cat objects) 2>&1); st=$?
t1=$(date +%s)
[ "$st" = 0 ] && echo "$out" | grep -q ": $nobj written, "
ok $? "xoload --update-cache: the FDE rule's entries of $nobj objects ($((t1 - t0)) s; $out)"
out=$(XOLOAD_CACHE_DIR=$D/proven $XO --update-cache --rule=proven $(cat objects) 2>&1); st=$?
t2=$(date +%s)
[ "$st" = 0 ] && echo "$out" | grep -q ": $nobj written, .*proven rule: "
ok $? "xoload --update-cache --rule=proven: $nobj objects ($((t2 - t1)) s; $out)"

# same NAME 'CMD': CMD (sh, $X before each program) natively, under xoload
# and under xoload --kernel, both with the proven cache: the same output.
export XOLOAD_CACHE_DIR=$D/proven
same() {
	name=$1 cmd=$2
	X= sh -c "$cmd" >n.out 2>n.err; s0=$?
	X=$XO sh -c "$cmd" >u.out 2>u.err; s1=$?
	X="$XO --kernel" sh -c "$cmd" >k.out 2>k.err; s2=$?
	r=0
	[ "$s0" = 0 ] && [ "$s1" = 0 ] && [ "$s2" = 0 ] || r=1
	for m in u k; do cmp -s n.out $m.out && cmp -s n.err $m.err || r=1; done
	ok $r "$name: the same output natively, under xoload and xoload --kernel with proven plans (status $s0/$s1/$s2, $(wc -c <n.out) bytes)"
	[ $r = 0 ] || for m in u k; do diff n.out $m.out | head -n 4 | sed 's/^/#   /'; diff n.err $m.err | head -n 4 | sed 's/^/#   /'; done
}
same "openssl dgst -sha256 -sha512" '$X /usr/bin/openssl dgst -sha256 blob text; $X /usr/bin/openssl dgst -sha512 blob'
same "openssl enc -aes-256-cbc | openssl enc -d" \
	'$X /usr/bin/openssl enc -aes-256-cbc -pbkdf2 -iter 1000 -pass pass:xonly -S 0011223344556677 -in blob |
	 $X /usr/bin/openssl enc -d -aes-256-cbc -pbkdf2 -iter 1000 -pass pass:xonly -S 0011223344556677 | cmp - blob && echo same'
same "python3 hashlib, ssl" \
	'$X /usr/bin/python3 -c "import hashlib, ssl; d = open(\"blob\", \"rb\").read(); print(hashlib.sha256(d).hexdigest(), hashlib.sha3_256(d).hexdigest(), ssl.OPENSSL_VERSION)"'
same "gzip | gunzip" '$X /usr/bin/gzip -9 -c blob | $X /usr/bin/gzip -dc | cmp - blob && echo same'
same "gpg --print-md (libgcrypt)" '$X /usr/bin/gpg --no-options --no-keyring --batch --quiet --print-md SHA256 blob'

# The plans came from the proven cache, of the proven rule where it changes them.
XOLOAD_CACHE_VERBOSE=1 $XO /usr/bin/openssl dgst -sha256 text >/dev/null 2>err; st=$?
sed 's/^/#   /' err
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
[ "$st" = 0 ] && grep -q "plan cache: .*libc.so.6: hit (proven rule)$" err && ! grep -q ': miss' err
ok $? "xoload openssl: every plan from the proven cache, libc's of the proven rule ($(grep -c ': hit' err) hits, $(grep -c 'hit (proven rule)' err) of the proven rule)"
$XO --report /usr/bin/openssl dgst -sha256 text >/dev/null 2>err; st=$?
[ "$st" = 0 ] && grep -q "^xoload: plan cache: .*libc.so.6: the proven-code rule's plan$" err
ok $? "xoload --report names the proven rule's plans ($(grep -m1 "proven-code rule's plan" err))"

# pages CACHE CMD...: the execute-only pages and all pages of the
# executable segments of what CMD maps (--report=json), xoload's own left out.
pages() {
	c=$1; shift
	XOLOAD_CACHE_DIR=$D/$c $XO --report=json "$@" >/dev/null 2>rep </dev/null
	awk '/"start":/ && !/xoload runtime/ {
			s = $0; sub(/.*"start":/, "", s); sub(/,.*/, "", s); e = $0; sub(/.*"end":/, "", e); sub(/,.*/, "", e)
			all += (e - s) / 4096; if ($0 ~ /"xo":true/) xo += (e - s) / 4096 }
		END { printf "%d %d\n", xo, all }' rep
}
more() {
	name=$1; shift
	f=$(pages fde "$@") p2=$(pages proven "$@")
	echo "# pages	$name	fde ${f% *} of ${f#* }	proven ${p2% *} of ${p2#* }	+$(( ${p2% *} - ${f% *} ))"
	[ "${p2#* }" = "${f#* }" ] && [ "${p2% *}" -gt "${f% *}" ]
	ok $? "$name: more pages execute-only with the proven cache than with the FDE one (${f% *} -> ${p2% *} of ${f#* })"
}
more openssl /usr/bin/openssl dgst -sha256 text
more python3 /usr/bin/python3 -c 'import hashlib, ssl'
more gzip /usr/bin/gzip -c text
more gpg /usr/bin/gpg --no-options --no-keyring --print-md SHA256 text
cd / && rm -rf $D
echo "1..$n"
exit $fail
