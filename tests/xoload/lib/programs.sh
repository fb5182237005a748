#!/bin/sh
# programs.sh GROUP - real Debian programs, at their real paths, give the same
# stdout, stderr and exit status natively, under `xoload` and under
# `xoload --kernel`: OpenSSL (dgst, enc, kdf: libcrypto's tables live in
# its .text), python3 (hashlib, ssl, sqlite3, ctypes, a dlopen-heavy import,
# a re-exec through /proc/self/exe), node (new Function, crypto: OpenSSL
# linked in), compressor pipelines, gpg (libgcrypt), sqlite3, perl, curl
# file://, and a C program that re-execs /proc/self/exe.  For programs
# that map libcrypto (and node, which has OpenSSL inside), the running
# process's smaps show libcrypto's code execute-only (a non-zero key)
# and its table pages readable (r-xp, key 0); lib/cryptoprobe checks from
# inside that a read of SHA256's first byte faults SEGV_PKUERR with that
# key while SHA-256 itself works.  Prints, as comments, the share of
# executable bytes each program gets execute-only (--report=json).
# codecs: x265 (libx265, the object with the most code without CFI:
# hand-written AVX2/AVX-512 assembly), aomenc (libaom) and dav1d (libdav1d)
# encode and decode a small raw video the test generates, byte-identical
# natively, under xoload, under xoload --kernel and with the plan cache
# holding the proven-code rule's plans.
# GROUP (openssl, python, node, tools, codecs, coverage) picks a part:
# each is a test of its own (tests/xoload/programs_GROUP.sh), within the
# runner's time limit under TCG.
group=${1:?usage: programs.sh openssl|python|node|tools|codecs|coverage}
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - programs: $2"; else echo "not ok $n - programs: $2"; fail=1; fi; }
skip() { n=$((n + 1)); echo "ok $n - programs: $1 # SKIP $2"; }
mkdir -p /tmp/xo-progs && cd /tmp/xo-progs || exit 1
export HOME=/tmp/xo-progs
i=0; while [ $i -lt 2000 ]; do echo "row $i $(( (i * 7919) % 1000 ))"; i=$((i + 1)); done >text
dd if=/dev/urandom of=blob bs=64k count=8 2>/dev/null
cat text text text >>blob

# The strict level of xonly mode (kernel/patches 0060-0066), where
# `xoload --kernel` keeps its carve-out of libcrypto's tables through
# PR_XONLY_EXEC_CARVE: on a kernel with the series (not a stock host, not
# a boot that is strict already), each program runs a fourth time, under
# `xoload --kernel` started at the strict level.
STRICT=/xonly/lib/kernel/xonly_strict_exec
strict_modes=
if [ -z "${XONLY_STOCK_KERNEL:-}" ] && ! grep -qw 'xonly=strict' /proc/cmdline 2>/dev/null && [ -x $STRICT ]; then
	strict_modes=s
fi

# xoload --kernel needs the series' xonly mode; a stock kernel (make
# check-hw) has none, shown by no "Xonly:" line in /proc/self/status (as
# selfprotect.sh tells): there the --kernel runs are left out, and each
# row says so.
kmode=--kernel
grep -q '^Xonly:' /proc/self/status 2>/dev/null || kmode=
nokernel="xoload --kernel: no xonly mode on this kernel (no Xonly: in /proc/self/status)"

# same NAME 'CMD': CMD (sh, with $X before each program) natively, with
# X="xoload", with X="xoload --kernel" and (strict_modes) with
# X="xoload --kernel" at the strict level: stdout, stderr, status equal.
same() {
	name=$1 cmd=$2
	X= sh -c "$cmd" >n.out 2>n.err; s0=$?
	X=$XO sh -c "$cmd" >u.out 2>u.err; s1=$?
	if [ -n "$kmode" ]; then
		X="$XO --kernel" sh -c "$cmd" >k.out 2>k.err; s2=$?
	else
		cp n.out k.out; cp n.err k.err; s2=$s0
	fi
	s3=$s0
	[ -z "$strict_modes" ] || { X="$STRICT $XO --kernel" sh -c "$cmd" >s.out 2>s.err; s3=$?; }
	r=0
	[ "$s0" = "${want:-0}" ] || r=1
	for m in u k $strict_modes; do
		cmp -s n.out $m.out && cmp -s n.err $m.err || r=1
	done
	[ "$s0" = "$s1" ] && [ "$s0" = "$s2" ] && [ "$s0" = "$s3" ] || r=1
	ok $r "$name: same output natively, under xoload${kmode:+ and xoload --kernel}${strict_modes:+ (and at the strict level)} (status $s0/$s1${kmode:+/$s2}${strict_modes:+/$s3}, $(wc -c <n.out) bytes${kmode:-; $nokernel})"
	if [ $r != 0 ]; then
		for m in u k $strict_modes; do
			echo "# diff native $m:"; diff n.out $m.out | head -n 6 | sed 's/^/#   /'
			diff n.err $m.err | head -n 6 | sed 's/^/#   /'
		done
	fi
	want=
}
if [ "$group" = openssl ]; then
same "openssl dgst -sha256" '$X /usr/bin/openssl dgst -sha256 blob text'
same "openssl dgst -sha512 -sha3-256" '$X /usr/bin/openssl dgst -sha512 blob; $X /usr/bin/openssl dgst -sha3-256 blob'
same "openssl enc -aes-256-cbc | openssl enc -d" \
	'$X /usr/bin/openssl enc -aes-256-cbc -pbkdf2 -iter 1000 -pass pass:xonly -S 0011223344556677 -in blob |
	 tee enc.bin | $X /usr/bin/openssl enc -d -aes-256-cbc -pbkdf2 -iter 1000 -pass pass:xonly -S 0011223344556677 | cmp - blob && $X /usr/bin/openssl dgst -sha256 enc.bin'
same "openssl kdf PBKDF2" '$X /usr/bin/openssl kdf -keylen 32 -kdfopt digest:SHA256 -kdfopt pass:password -kdfopt salt:salt -kdfopt iter:4096 PBKDF2'
if [ -n "$strict_modes" ]; then
	# the control: without xoload's carve-out, libcrypto's tables in its
	# execute-only .text cannot be read at the strict level either.  A
	# boot that set plans (xonly.plans=1) has libcrypto's tables readable
	# by its plan: the control then runs a copy of it, which has none.
	noplan=
	if $XO --get-xattr /usr/lib/x86_64-linux-gnu/libcrypto.so.3 2>/dev/null | grep -q 'fits the file'; then
		mkdir -p noplan && cp /usr/lib/x86_64-linux-gnu/libcrypto.so.3 noplan/ && noplan=/tmp/xo-progs/noplan
	fi
	LD_LIBRARY_PATH=$noplan $STRICT /usr/bin/openssl dgst -sha256 blob >/dev/null 2>&1; st=$?
	[ "$st" = 139 ]
	ok $? "openssl dgst at the strict level without xoload --kernel (no carve-out${noplan:+, a copy of libcrypto without its plan}): SIGSEGV on libcrypto's tables (status $st, want 139)"
fi
fi
if [ "$group" = python ]; then
same "python3 hashlib" '$X /usr/bin/python3 -c "
import hashlib
d = open(\"blob\", \"rb\").read()
for a in (\"sha256\", \"sha512\", \"sha3_256\", \"blake2b\", \"md5\", \"sha1\"):
    print(a, hashlib.new(a, d).hexdigest())
print(hashlib.pbkdf2_hmac(\"sha256\", b\"pw\", b\"salt\", 1000).hex())"'
same "python3 ssl" '$X /usr/bin/python3 -c "
import ssl
print(ssl.OPENSSL_VERSION)
c = ssl.create_default_context()
print(c.verify_mode, c.check_hostname, len(c.get_ciphers()) > 10)
print(len(ssl.RAND_bytes(32)))"'
same "python3 sqlite3" '$X /usr/bin/python3 -c "
import sqlite3
db = sqlite3.connect(\":memory:\")
db.execute(\"create table t (k integer primary key, v text)\")
db.executemany(\"insert into t (v) values (?)\", [(str(i * i),) for i in range(1000)])
print(db.execute(\"select count(*), sum(length(v)), max(v) from t\").fetchone())"'
same "python3 ctypes (libffi calls and a qsort callback)" '$X /usr/bin/python3 -c "
import ctypes
libc = ctypes.CDLL(\"libc.so.6\")
print(libc.strlen(b\"execute-only\"))
a = (ctypes.c_int * 8)(5, 3, 8, 1, 9, 2, 7, 4)
CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
libc.qsort(a, 8, ctypes.sizeof(ctypes.c_int), CMP(lambda x, y: x[0] - y[0]))
print(list(a))"'
same "python3 dlopen-heavy import of 16 extension modules" '$X /usr/bin/python3 -c "
import importlib
m = [\"_ssl\", \"_hashlib\", \"_sqlite3\", \"_ctypes\", \"_decimal\", \"_json\", \"_bz2\", \"_lzma\", \"_asyncio\",
     \"_zoneinfo\", \"mmap\", \"_uuid\", \"_queue\", \"_multibytecodec\", \"_codecs_jp\", \"readline\"]
for x in m: importlib.import_module(x)
import decimal; print(decimal.Decimal(1) / decimal.Decimal(7))
print(len(m), \"modules\")"'
same "python3 re-exec through /proc/self/exe" '$X /usr/bin/python3 -c "
import os, sys
os.execv(\"/proc/self/exe\", [sys.executable, \"-c\", \"import sys; print(\\\"re-executed\\\", sys.argv)\", \"a b\"])"'
fi
if [ "$group" = node ]; then
same "node -e (new Function, crypto)" '$X /usr/bin/node -e "
const f = new Function(\"a\", \"b\", \"return a * b + 1\");
let s = 0; for (let i = 0; i < 10000; i++) s = (s + f(i, 3)) % 1000003;
console.log(s, require(\"crypto\").createHash(\"sha256\").update(\"abc\").digest(\"hex\"));
console.log(require(\"crypto\").createCipheriv(\"aes-256-cbc\", Buffer.alloc(32, 1), Buffer.alloc(16, 2)).update(\"x\".repeat(64), \"utf8\", \"hex\"))"'
FORK=/xonly/lib/xoload/fork.js
if [ -e /proc/net/unix ]; then
	# node forks process.execPath, which is readlink(/proc/self/exe): under
	# xoload that is xoload's own path, which xoload cannot tell from a user
	# running it (xoload(1), "Re-executing through /proc/self/exe").  The
	# kernel's mode has no loader in between: there it must be identical.
	if [ -n "$kmode" ]; then
		/usr/bin/node $FORK >n.out 2>n.err; s0=$?
		$XO --kernel /usr/bin/node $FORK >k.out 2>k.err; s2=$?
		[ "$s0" = 0 ] && [ "$s2" = 0 ] && cmp -s n.out k.out && cmp -s n.err k.err
		ok $? "node child_process.fork: same output natively and under xoload --kernel (status $s0/$s2, $(wc -c <n.out) bytes)"
	else
		skip "node child_process.fork under xoload --kernel" "$nokernel"
	fi
	# Under xoload the child is "xoload fork.js child": it fails closed
	# (126, nothing of the script runs) and its line names the way out.
	$XO /usr/bin/node $FORK >u.out 2>u.err; s1=$?
	[ "$s1" = 0 ] && grep -qx 'child exit 126' u.out && ! grep -q 'parent got' u.out &&
		grep -q '^xoload: .*fork.js: not an ELF file (run from .* under xoload: .*run it with xoload --kernel' u.err
	ok $? "node child_process.fork under xoload: the child stops (126) with a line that says to use --kernel ($(head -c 160 u.err))"
else
	skip "node child_process.fork" "the kernel has no AF_UNIX (/proc/net/unix): node's IPC channel is a socketpair"
fi
fi
if [ "$group" = tools ]; then
same "gzip | gunzip" '$X /usr/bin/gzip -9 -c blob | tee z.gz | $X /usr/bin/gzip -dc | cmp - blob && $X /usr/bin/sha256sum z.gz'
same "xz | unxz" '$X /usr/bin/xz -T1 -6 -c blob | tee z.xz | $X /usr/bin/xz -dc | cmp - blob && $X /usr/bin/sha256sum z.xz'
same "zstd | unzstd" '$X /usr/bin/zstd -q -T1 -19 -c blob | tee z.zst | $X /usr/bin/zstd -q -dc | cmp - blob && $X /usr/bin/sha256sum z.zst'
same "bzip2 | bunzip2" '$X /usr/bin/bzip2 -c blob | tee z.bz2 | $X /usr/bin/bzip2 -dc | cmp - blob && $X /usr/bin/sha256sum z.bz2'
same "gpg --print-md (libgcrypt)" '$X /usr/bin/gpg --no-options --no-keyring --batch --quiet --print-md SHA256 blob; $X /usr/bin/gpg --no-options --no-keyring --batch --quiet --print-md SHA512 text'
same "sqlite3" '$X /usr/bin/sqlite3 :memory: "create table t(a); with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) insert into t select x from c; select count(*), sum(a), hex(zeroblob(4)) from t;"'
same "perl (List::Util, POSIX, regexes)" '$X /usr/bin/perl -MList::Util=sum,max -MPOSIX=floor -e "
my @a = map { \$_ * \$_ } 1 .. 1000; print sum(@a), \" \", max(@a), \" \", floor(7.9), \"\n\";
my \$s = join(\",\", 1 .. 50); \$s =~ s/(\d+)/<\$1>/g; print length(\$s), \"\n\""'
same "curl file://" '$X /usr/bin/curl -s file:///tmp/xo-progs/text | $X /usr/bin/sha256sum; $X /usr/bin/curl -s -o /dev/null -w "%{size_download}\n" file:///tmp/xo-progs/blob'
want=3 same "a C program that re-execs /proc/self/exe" "\$X $L/selfexec A"

# Under xoload the re-exec'd program runs under xoload again (not natively).
out=$($XO $L/selfexec where); st=$?
[ "$st" = 3 ] && [ "$out" = "$(printf 'selfexec child: where B\nunder xoload: yes')" ]
ok $? "/proc/self/exe re-exec under xoload runs the program under xoload again, with its arguments (status $st: $(echo $out))"
# The same under --report, which xoload hands to xoplan: the re-exec lands there.
out=$($XO --report=tsv $L/selfexec where 2>/dev/null); st=$?
[ "$st" = 3 ] && [ "$out" = "$(printf 'selfexec child: where B\nunder xoload: yes')" ]
ok $? "... and under --report (xoplan): the program again, not its arguments taken for options (status $st: $(echo $out))"

fi
if [ "$group" = codecs ]; then
# A small deterministic raw video: 64x64 yuv420p, 8 frames (49,152
# bytes) of gradients that move from frame to frame.
awk 'BEGIN { for (f = 0; f < 8; f++) {
	for (y = 0; y < 64; y++) for (x = 0; x < 64; x++) printf "%c", 16 + (3 * x + 2 * y + 5 * f + int(x * y / 7)) % 220
	for (p = 1; p <= 2; p++) for (y = 0; y < 32; y++) for (x = 0; x < 32; x++) printf "%c", 64 + (x + p * y + 3 * f) % 128 } }' >in.yuv
# x265 single-threaded (no thread pool, one frame thread), aomenc in its
# fastest real-time mode: both outputs are a function of the input only.
# Their progress and timing lines go to stderr, which is not compared:
# the output files are, every byte (od -tx1 on stdout: a diff stays
# readable).
X265='/usr/bin/x265 --input in.yuv --input-res 64x64 --fps 25 --preset ultrafast --frame-threads 1 --pools none --no-wpp'
AOMENC='/usr/bin/aomenc --width=64 --height=64 --fps=25/1 --limit=8 --cpu-used=9 --rt --threads=1 --ivf -q'
$X265 -o a.hevc 2>x265.err; s1=$?
$X265 -o b.hevc 2>/dev/null; s2=$?
[ "$s1" = 0 ] && [ "$s2" = 0 ] && [ -s a.hevc ] && cmp -s a.hevc b.hevc
ok $? "x265 natively, twice: the same HEVC bitstream ($(wc -c <a.hevc) bytes of $(wc -c <in.yuv); status $s1/$s2)"
same "x265 --preset ultrafast (libx265): the same HEVC bitstream" '$X '"$X265"' -o c.hevc 2>/dev/null && od -An -tx1 -v c.hevc'
$AOMENC -o av1.ivf in.yuv 2>/dev/null; s1=$?
$AOMENC -o av2.ivf in.yuv 2>/dev/null; s2=$?
[ "$s1" = 0 ] && [ "$s2" = 0 ] && [ -s av1.ivf ] && cmp -s av1.ivf av2.ivf
ok $? "aomenc natively, twice: the same AV1 stream ($(wc -c <av1.ivf) bytes; status $s1/$s2)"
same "aomenc --rt (libaom): the same AV1 stream" '$X '"$AOMENC"' -o c.ivf in.yuv 2>/dev/null && od -An -tx1 -v c.ivf'
same "dav1d (libdav1d) decodes aomenc's stream: the same frames" '$X /usr/bin/dav1d -q --threads 1 -i av1.ivf -o c.yuv && od -An -tx1 -v c.yuv'
/usr/bin/dav1d -q --threads 1 -i av1.ivf -o a.yuv
# The SIMD path: x265 names the instruction sets it uses, here and under
# xoload (QEMU's TCG emulates AVX2 since 7.2; a CPU without it runs
# x265's SSE4 path, named as it is).
caps=$(sed -n 's/.*using cpu capabilities: //p' x265.err)
echo "# x265 cpu capabilities natively: $caps"
$XO $X265 -o d.hevc 2>x265u.err
capsu=$(sed -n 's/.*using cpu capabilities: //p' x265u.err)
if grep -qw avx2 /proc/cpuinfo; then
	[ -n "$caps" ] && [ "$capsu" = "$caps" ] && echo " $caps " | grep -q ' AVX2 '
	ok $? "x265 under xoload runs its AVX2 path, as natively (cpu capabilities: $capsu)"
else
	skip "x265 under xoload runs its AVX2 path" "the CPU has no AVX2 (cpu capabilities: $capsu)"
fi
# What is execute-only in libx265, libdav1d and libaom (pages of
# --report=json): the FDE rule keeps code without CFI readable, which in
# libx265 and libdav1d is their hand-written assembly.
xopages() {
	obj=$1; shift
	"$XO" --report=json "$@" >/dev/null 2>rep </dev/null
	awk -v o="$obj" '/"start":/ && index($0, o) {
			s = $0; sub(/.*"start":/, "", s); sub(/,.*/, "", s); e = $0; sub(/.*"end":/, "", e); sub(/,.*/, "", e)
			all += (e - s) / 4096; if ($0 ~ /"xo":true/) xo += (e - s) / 4096 }
		END { printf "%d %d\n", xo, all }' rep
}
for c in "libx265 /usr/bin/x265 --version" "libdav1d /usr/bin/dav1d --version" "libaom /usr/bin/aomenc --help"; do
	set -- $c
	obj=$1; shift
	r=$(xopages "$obj" "$@")
	echo "# pages	$obj	${r% *} of ${r#* } execute-only"
	[ "${r% *}" -gt 0 ] && [ "${r#* }" -gt "${r% *}" ]
	ok $? "xoload --report=json ${1##*/}: ${r% *} of ${r#* } pages of $obj's code execute-only, the rest readable (code without CFI)"
done
# The control, in xonly mode (the strict level, or a boot of xonly=on or
# xonly=strict): x265's AVX2 assembly reads a table in libx265's .text
# (seen: vmovdqa at 0x2ee3bb reads 0x2eb980), a page without CFI that
# the FDE rule's plan keeps readable.  A copy of libx265 without that
# plan (none in the file's attribute, in the plan cache or from xoload)
# has all of its code execute-only: x265 dies of SIGSEGV on the read.
# dav1d, on the same path with a copy of libdav1d, reads none of its
# code (printed, not checked).
if [ -n "$strict_modes" ] || grep -qw 'xonly=strict' /proc/cmdline; then
	mkdir -p noplan && cp /usr/lib/x86_64-linux-gnu/libx265.so.199 /usr/lib/x86_64-linux-gnu/libdav1d.so.6 noplan/
	pre=${strict_modes:+$STRICT}
	LD_LIBRARY_PATH=/tmp/xo-progs/noplan $pre $X265 -o np.hevc 2>/dev/null; st=$?
	dmesg | grep 'x265.*segfault' | tail -n 1 | sed 's/^/#   /'
	[ "$st" = 139 ]
	ok $? "x265 in xonly mode${pre:+ (the strict level)} with a copy of libx265 without a plan: SIGSEGV on the table its AVX2 code reads in .text (status $st, want 139)"
	LD_LIBRARY_PATH=/tmp/xo-progs/noplan $pre /usr/bin/dav1d -q --threads 1 -i av1.ivf -o np.yuv 2>/dev/null; st=$?
	echo "# dav1d in xonly mode with a copy of libdav1d without a plan: status $st, $(cmp -s np.yuv a.yuv 2>/dev/null && echo 'the same frames' || echo 'other frames')"
fi
# The plan cache with the proven-code rule's plans (as root, as
# xoload/cache_proven does): the same output again, and the plans from it.
if [ "$(id -u)" = 0 ]; then
	D=/xo-cache-codecs
	rm -rf $D && mkdir -p $D && chmod 755 $D
	for p in /usr/bin/x265 /usr/bin/aomenc /usr/bin/dav1d; do $XO --plan=tsv "$p" 2>/dev/null | cut -f1; done |
		sort -u | while read -r f; do readlink -f "$f"; done | sort -u >objects
	nobj=$(wc -l <objects)
	t0=$(date +%s)
	out=$(XOLOAD_CACHE_DIR=$D $XO --update-cache --rule=proven $(cat objects) 2>&1); st=$?
	[ "$st" = 0 ] && echo "$out" | grep -q ": $nobj written, .*proven rule: "
	ok $? "xoload --update-cache --rule=proven: the closures of x265, aomenc and dav1d, $nobj objects ($(($(date +%s) - t0)) s; $out)"
	export XOLOAD_CACHE_DIR=$D
	same "x265 with proven plans: the same HEVC bitstream" '$X '"$X265"' -o c.hevc 2>/dev/null && od -An -tx1 -v c.hevc'
	same "aomenc with proven plans: the same AV1 stream" '$X '"$AOMENC"' -o c.ivf in.yuv 2>/dev/null && od -An -tx1 -v c.ivf'
	same "dav1d with proven plans: the same frames" '$X /usr/bin/dav1d -q --threads 1 -i av1.ivf -o c.yuv && od -An -tx1 -v c.yuv'
	for p in x265 aomenc dav1d; do
		XOLOAD_CACHE_VERBOSE=1 $XO /usr/bin/$p --help >/dev/null 2>err
		grep -q ': miss' err; m=$?
		[ "$m" = 1 ] && grep -q 'plan cache: .*libc.so.6: hit (proven rule)$' err
		ok $? "xoload $p: every plan from the proven cache ($(grep -c ': hit' err) hits, $(grep -c 'hit (proven rule)' err) of the proven rule: $(grep 'hit (proven rule)' err | sed 's/.*\/\([^/:]*\): hit.*/\1/' | tr '\n' ' '))"
	done
	unset XOLOAD_CACHE_DIR
	rm -rf $D
else
	skip "the codecs with the proven cache" "not root: only root writes the plan cache"
fi
fi
if [ "$group" = openssl ]; then
# libcrypto from inside: fault with the right key on code, tables read.
for mode in "" --kernel; do
	[ "$mode" = --kernel ] && [ -z "$kmode" ] && { skip "xoload --kernel cryptoprobe" "$nokernel"; continue; }
	out=$($XO $mode $L/cryptoprobe 2>&1); st=$?
	echo "$out" | sed 's/^/#   /'
	[ "$st" = 0 ] && [ "$(echo "$out" | grep -c '^not ok')" = 0 ] && [ "$(echo "$out" | grep -c '^ok')" -ge 10 ]
	ok $? "xoload${mode:+ $mode} cryptoprobe: SHA-256 works; four libcrypto functions' first bytes fault SEGV_PKUERR with the key; its table pages read"
done

fi
# smaps of a program blocked on a fifo: OBJ's code mappings (--xp, key > 0)
# and readable r-x pages (key 0: the tables).
mkfifo ff 2>/dev/null
xo_maps() {
	obj=$1 mode=$2; shift 2
	$XO $mode "$@" <ff >/dev/null 2>&1 & pid=$!
	exec 3>ff
	t=0
	while [ $t -lt 300 ]; do
		grep -q "$obj" /proc/$pid/maps 2>/dev/null && grep -q '^State:.*S' /proc/$pid/status && break
		sleep 0.1; t=$((t + 1))
	done
	sleep 0.3
	awk -v o="$obj" '/^[0-9a-f]+-[0-9a-f]+ /{ split($1, r, "-"); perm = $2; name = $6; sz = 0 }
		/^Size:/ { sz = $2 }
		/^ProtectionKey:/ { if (name ~ o && perm == "--xp" && $2 > 0) xo += sz; if (name ~ o && perm == "r-xp" && $2 == 0) rx += sz;
				    if (name ~ o && perm ~ /x/ && perm != "--xp" && perm != "r-xp") bad++ }
		END { printf "%d %d %d\n", xo, rx, bad }' /proc/$pid/smaps
	exec 3>&-
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
}
case $group in
openssl) progs="libcrypto /usr/bin/openssl dgst -sha256" ;;
python) progs="libcrypto /usr/bin/python3" ;;
node) progs="/usr/bin/node /usr/bin/node -e process.stdin.resume()" ;;
tools) progs="libgcrypt /usr/bin/gpg --no-options --no-keyring --print-md SHA256" ;;
codecs) progs="libx265 /usr/bin/x265 --input - --input-res 64x64 --fps 25 --preset ultrafast -o /dev/null" ;;
*) progs= ;;
esac
for mode in "" --kernel; do
	[ "$mode" = --kernel ] && [ -z "$kmode" ] && [ -n "$progs" ] && { skip "xoload --kernel: smaps of a running program" "$nokernel"; continue; }
	for p in ${progs:+"$progs"}; do
		set -- $p
		obj=$1; shift
		case "$1" in /usr/bin/python3) set -- /usr/bin/python3 -c 'import hashlib,sys;sys.stdin.read()' ;; esac
		read -r xo rx bad <<EOT
$(xo_maps "$obj" "$mode" "$@")
EOT
		[ "${xo:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] && [ "${bad:-1}" = 0 ]
		ok $? "xoload${mode:+ $mode} ${1##*/}: $obj code ${xo} kB execute-only (key > 0), ${rx} kB of its text readable (key 0: tables)"
	done
done

if [ "$group" = coverage ]; then
# Coverage: the share of the executable bytes of the objects each program
# maps that xoload makes execute-only (--report=json; ranges are pages).
cover() {
	name=$1; shift
	"$XO" --report=json "$@" >/dev/null 2>rep </dev/null
	awk -v name="$name" '/"start":/ && !/xoload runtime/ {
			s = $0; sub(/.*"start":/, "", s); sub(/,.*/, "", s); e = $0; sub(/.*"end":/, "", e); sub(/,.*/, "", e)
			o = $0; sub(/^\{"object":"/, "", o); sub(/".*/, "", o); objs[o] = 1
			all += e - s; if ($0 ~ /"xo":true/) xo += e - s }
		END { k = 0; for (o in objs) k++; printf "# coverage\t%s\t%.2f%%\t%.0f of %.0f bytes\t%d objects\n", name, all ? 100 * xo / all : 0, xo, all, k }' rep >cov
	cat cov
	grep -q "	[1-9][0-9.]*%	" cov
	ok $? "$name: --report=json names its objects; $(cut -f3 cov) of their executable bytes execute-only"
}
cover openssl /usr/bin/openssl dgst -sha256 blob
cover python3 /usr/bin/python3 -c 'import hashlib, ssl, sqlite3, ctypes'
cover node /usr/bin/node -e 'require("crypto")'
cover gzip /usr/bin/gzip -c text
cover xz /usr/bin/xz -c text
cover zstd /usr/bin/zstd -q -c text
cover bzip2 /usr/bin/bzip2 -c text
cover gpg /usr/bin/gpg --no-options --no-keyring --print-md SHA256 text
cover sqlite3 /usr/bin/sqlite3 :memory: 'select 1'
cover perl /usr/bin/perl -MList::Util=sum -e 'print sum(1,2)'
cover curl /usr/bin/curl -s file:///tmp/xo-progs/text
cover selfexec $L/selfexec
fi
echo "1..$n"
exit $fail
