#!/bin/sh
# plans_boot.sh - xonly=on for a real system, with no loader: the boot's
# init set a plan (the trusted.xonly attribute, kernel patch 0072, set by
# `xoload --set-xattr`) on every program and library of the image
# (xonly.plans=1, scripts/check's xonly=on and xonly=strict boots).
# Proves, natively (no xoload), in this boot's xonly mode:
#  - programs with data in their code run and give the right answer:
#    openssl dgst (sha256sum's digest), enc (a round trip), kdf (RFC 7914's
#    PBKDF2-HMAC-SHA256 vector), python3 hashlib and ssl, node crypto,
#    gpg --print-md (libgcrypt), curl file://, a -z noseparate-code
#    program (its headers and .rodata share the code segment), and a
#    -z noseparate-code library with a hole between its segments, which
#    ld.so makes PROT_NONE (at the strict level too: patch 0075);
#  - from inside (lib/cryptoprobe): libcrypto's functions' first bytes
#    fault SEGV_PKUERR with the execute-only key while its table pages read;
#  - the plan is what makes the difference: the same programs with a copy
#    of libcrypto that has no plan (LD_LIBRARY_PATH), and copies of the
#    -z noseparate-code program and library without their plans, die of
#    SIGSEGV.
# Skipped outside xonly mode, in learn mode, and where libcrypto has no
# plan that fits it (a boot without xonly.plans=1, or a kernel without
# plans: then the plan is there but nothing applies it, which the first
# row would show).
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
CRYPTO=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - plans boot: $2"; else echo "not ok $n - plans boot: $2"; fail=1; fi; }
done_() { echo "1..$n"; exit $fail; }

lvl=$(sed -n 's/^Xonly:[[:space:]]*//p' /proc/self/status)
if [ "${lvl:-0}" != 1 ] && [ "${lvl:-0}" != 2 ]; then
	echo "1..0 # SKIP not in xonly mode (Xonly: ${lvl:-none}): the boot is not xonly=on or xonly=strict"
	exit 0
fi
if ! $XO --get-xattr $CRYPTO 2>/dev/null | grep -q 'fits the file'; then
	echo "1..0 # SKIP libcrypto has no plan: the boot did not set plans (xonly.plans=1)"
	exit 0
fi

mkdir -p /tmp/xo-plans/noplan && cd /tmp/xo-plans || exit 1
export HOME=/tmp/xo-plans
i=0; while [ $i -lt 2000 ]; do echo "row $i"; i=$((i + 1)); done >text
want=$(/usr/bin/sha256sum text | cut -d' ' -f1)

out=$(/usr/bin/openssl dgst -sha256 text 2>&1); st=$?
[ "$st" = 0 ] && [ "${out##*= }" = "$want" ]
ok $? "openssl dgst -sha256: sha256sum's digest (status $st: $out)"

/usr/bin/openssl enc -aes-256-cbc -pbkdf2 -iter 100 -pass pass:xonly -in text -out enc.bin &&
	/usr/bin/openssl enc -d -aes-256-cbc -pbkdf2 -iter 100 -pass pass:xonly -in enc.bin | cmp -s - text
ok $? "openssl enc -aes-256-cbc, then -d: the text again"

out=$(/usr/bin/openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt pass:password -kdfopt salt:salt \
	-kdfopt iter:4096 PBKDF2 2>&1)
[ "$out" = "C5:E4:78:D5:92:88:C8:41:AA:53:0D:B6:84:5C:4C:8D:96:28:93:A0:01:CE:4E:11:A4:96:38:73:AA:98:13:4A" ]
ok $? "openssl kdf PBKDF2: RFC 7914's vector ($out)"

out=$(/usr/bin/python3 -c '
import hashlib, ssl, sys
print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest(), ssl.OPENSSL_VERSION.split()[0])' text 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$want OpenSSL" ]
ok $? "python3 -c 'import hashlib, ssl': sha256sum's digest (status $st: $out)"

out=$(/usr/bin/node -e '
const fs = require("fs");
console.log(require("crypto").createHash("sha256").update(fs.readFileSync(process.argv[1])).digest("hex"))' text 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$want" ]
ok $? "node -e with crypto (OpenSSL inside node): sha256sum's digest (status $st: $out)"

out=$(/usr/bin/gpg --no-options --no-keyring --batch --quiet --print-md SHA256 text 2>&1 | tr -d ' \n' | tr A-F a-f); st=$?
[ "${out#*:}" = "$want" ]
ok $? "gpg --print-md SHA256 (libgcrypt): sha256sum's digest (${out#*:})"

out=$(/usr/bin/curl -s file:///tmp/xo-plans/text | /usr/bin/sha256sum | cut -d' ' -f1)
[ "$out" = "$want" ]
ok $? "curl file:// (libcurl, libssl, libcrypto): the file's bytes ($out)"

out=$($L/cryptoprobe 2>&1); st=$?
echo "$out" | sed 's/^/#   /'
[ "$st" = 0 ] && [ "$(echo "$out" | grep -c '^not ok')" = 0 ] && [ "$(echo "$out" | grep -c '^ok')" -ge 10 ]
ok $? "cryptoprobe natively: SHA-256 works; libcrypto functions' first bytes fault SEGV_PKUERR with the key; its table pages read"

# -z noseparate-code: the ELF header, program headers and .rodata are in
# the code segment, which ld.so and printf read.
cp $L/hello-nosep nosep && cp $L/hello-nosep nosep-noplan
$XO --set-xattr nosep >/dev/null 2>&1
out=$(./nosep plans 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "hello plans" ]
ok $? "a -z noseparate-code program with its plan runs (status $st: $out)"
./nosep-noplan plans >/dev/null 2>&1; st=$?
[ "$st" = 139 ]
ok $? "... a copy of it without a plan dies of SIGSEGV (status $st, want 139)"

# A library whose first segment is R+X (-z noseparate-code) with a hole
# after it (libgap.so): ld.so maps its span with that segment's
# protections, execute-only but for what the plan keeps readable, and makes
# the hole PROT_NONE, which the strict level allows (kernel/patches 0075;
# before it: "cannot change memory protections").
mkdir gap gap-noplan && cp $L/libgap.so gap/ && cp $L/libgap.so gap-noplan/
$XO --set-xattr gap/libgap.so >/dev/null 2>&1
out=$(LD_LIBRARY_PATH=/tmp/xo-plans/gap $L/gapuser 2>&1); st=$?
[ "$st" = 0 ] && echo "$out" | grep -qx 'gap_fn(2) = 13' && echo "$out" | grep -qx 'libgap.so ---p'
ok $? "a library with an R+X first segment and a hole, with its plan: loads, runs, the hole PROT_NONE, at level $lvl (status $st: $(echo "$out" | tr '\n' ' '))"
LD_LIBRARY_PATH=/tmp/xo-plans/gap-noplan $L/gapuser >/dev/null 2>&1; st=$?
[ "$st" = 139 ]
ok $? "... a copy of it without a plan: SIGSEGV, ld.so cannot read its tables (status $st, want 139)"

# Without plans: a copy of libcrypto carries no attribute.
cp $CRYPTO noplan/
LD_LIBRARY_PATH=/tmp/xo-plans/noplan /usr/bin/openssl dgst -sha256 text >/dev/null 2>&1; st=$?
[ "$st" = 139 ]
ok $? "openssl dgst with a copy of libcrypto without a plan: SIGSEGV (status $st, want 139)"
LD_LIBRARY_PATH=/tmp/xo-plans/noplan /usr/bin/python3 -c 'import hashlib; hashlib.sha256(b"x").hexdigest()' >/dev/null 2>&1; st=$?
[ "$st" = 139 ]
ok $? "python3 hashlib with that copy: SIGSEGV (status $st, want 139)"
cd / && rm -rf /tmp/xo-plans
done_
