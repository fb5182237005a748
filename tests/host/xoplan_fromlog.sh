#!/usr/bin/env bash
# xoplan_fromlog.sh - xoload --set-xattr --from-log LOG [--log-only]
# [FILE...] (xoplan, xoloader/tools/fromlog.c): plans (trusted.xonly) from
# the kernel's learn-mode log, on the host (root, a filesystem with
# trusted.* attributes: the test skips where it cannot set one).  Needs
# make guest.
#
# Proves, on real files copied to a temporary directory (the host's
# libcrypto.so.3, a -z noseparate-code program under a path with a space,
# a backslash and a non-ASCII byte, xoplan_target) and on
# tests/host/xolearn.log, the canned log scripts/xolearn's test reads,
# its paths moved into that directory:
#  - --log-only: each file the log names gets a plan of exactly the pages
#    logged, the ranges scripts/xolearn prints for the same log (same
#    escaped names, same order), and --get-xattr says it fits the file;
#  - without --log-only: the union of those pages and the pages plain
#    --set-xattr (the FDE planner) keeps readable;
#  - on stderr, one line each and nothing else: the "file=?" line, the
#    malformed lines (a bad number, an offset not page-aligned), the
#    suppressed lines (pages may be missing), the hugetlb file that is
#    not ELF and the "\040(deleted)" file (no plan, the others still
#    done, exit 1);
#  - LOG "-" reads standard input; FILE arguments: only they get plans,
#    matched by inode (a symlink's name will do), a FILE the log does not
#    name gets the FDE plan, or with --log-only none (an old one removed);
#    two names of one file (a hard link) make one plan;
#  - refused, exit 1, one line, no attribute: a logged page outside the
#    file's executable segments (the file changed since the log), a file
#    without a build-id, a file that is gone; uid 65534: EPERM;
#  - 300 logged ranges: merged into the 256 a plan holds, the closest
#    first (one-page gaps, not two-page ones), every logged page still
#    in, a warning with the pages added;
#  - a log without learn lines: nothing set, exit 0; an unreadable LOG:
#    nothing set, exit 1; usage errors (no LOG, --log-only alone,
#    --from-log after a FILE or with --get-xattr, an unknown option):
#    exit 2.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoplan_fromlog
xo=$top/build/guest/bin/xoload
target=$top/build/guest/lib/kernel/xoplan_target
crypto=/usr/lib/x86_64-linux-gnu/libcrypto.so.3
[ -x "$xo" ] && [ -x "$target" ] || tap_bail "build/guest/bin/xoload and lib/kernel/xoplan_target exist (make guest)"
[ -f "$crypto" ] || tap_bail "the host has $crypto (libssl3)"
# tmpfs, as the guest's /tmp, where it takes trusted.* attributes: ext4
# keeps no more than a block in one, too little for a plan of 256 ranges.
tmp=$(mktemp -d /dev/shm/xo-fromlog.XXXXXX 2>/dev/null) &&
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "trusted.xonly", bytes(4200))' "$tmp" 2>/dev/null ||
	{ rm -rf "$tmp"; tmp=$(mktemp -d /var/tmp/xo-fromlog.XXXXXX); }
trap 'rm -rf "$tmp"' EXIT
get() { python3 -c 'import os,sys; sys.stdout.write(os.getxattr(sys.argv[1], "trusted.xonly").hex())' "$1" 2>/dev/null; }
cp "$target" "$tmp/t"
if ! python3 -c 'import os,sys; os.setxattr(sys.argv[1], "trusted.xonly", b"x")' "$tmp/t" 2>/dev/null; then
	skip "cannot set trusted.* attributes here (not root, or $tmp's filesystem has none)" "xoload --set-xattr --from-log"
	tap_done; exit
fi
python3 -c 'import os,sys; os.removexattr(sys.argv[1], "trusted.xonly")' "$tmp/t"
clear() { for f in "$@"; do python3 -c 'import os,sys; os.removexattr(sys.argv[1], "trusted.xonly")' "$f" 2>/dev/null; done; }

# The files of the canned log, in $tmp: libcrypto at its pages, prog (read
# at offset 0: its headers share the code segment), hugetlb's code (not
# ELF); x (deleted) is not there.
prog="$tmp/a b\\c$(printf '\303\251')/prog"
mkdir -p "${prog%/*}"
printf 'int main(void) { return 0; }\n' > "$tmp/p.c"
gcc -O2 -Wl,-z,noseparate-code -Wl,--build-id -o "$prog" "$tmp/p.c" || tap_bail "gcc -z noseparate-code"
cp "$crypto" "$tmp/libcrypto.so.3"
head -c 8192 /dev/zero > "$tmp/code"
sed -e "s#/usr/lib/x86_64-linux-gnu/#$tmp/#; s#file=/opt/#file=$tmp/#; s#file=/tmp/x#file=$tmp/x#" \
	-e "s#file=/dev/hugepages/#file=$tmp/#" "$top/tests/host/xolearn.log" > "$tmp/log"
files=("$tmp/libcrypto.so.3" "$prog" "$tmp/code")
eprog=$(printf '%s' "$tmp" | sed 's/ /\\040/g')'/a\040b\134c\303\251/prog'

# ranges FILE: the ranges of its plan, as --get-xattr prints them.
ranges() { "$xo" --get-xattr "$1" | sed -n 's/.*(fits the file), readable: //p'; }

out=$("$xo" --set-xattr --from-log "$tmp/log" --log-only 2> "$tmp/err"); st=$?
want="$eprog: plan set, readable: 0x0-0x1000
$tmp/libcrypto.so.3: plan set, readable: 0x1c2000-0x1c5000 0x1d0000-0x1d1000"
[ "$st" = 1 ] && [ "$out" = "$want" ]
ok $? "--log-only: the pages logged, each file once, escaped, in path order; exit 1 for the files that failed ($st)"
[ "$out" = "$want" ] || { diag "got:"; printf '%s\n' "$out" | sed 's/^/#   /'; }
[ "$(ranges "$tmp/libcrypto.so.3")" = "0x1c2000-0x1c5000 0x1d0000-0x1d1000" ] &&
	[ "$(ranges "$prog")" = "0x0-0x1000" ] && [ -z "$(get "$tmp/code")" ]
ok $? "--get-xattr: both plans fit their files with those ranges; the file that is not ELF has none"
xl=$("$top/scripts/xolearn" "$tmp/log" 2>/dev/null | grep -v -e '(deleted)' -e "^$tmp/code ")
[ "$xl" = "$(printf '%s\n' "$out" | sed 's/: plan set, readable://')" ]
ok $? "the ranges are scripts/xolearn's for the same log (xolearn: $(printf '%s' "$xl" | tr '\n' ';'))"

# stderr: each diagnostic once, nothing else.
for c in ":11: a page at 0x5000 of a file whose path the kernel did not log" ":12: not a learn line" \
	":13: the kernel suppressed 7 learn lines" ":15: not a learn line" \
	"$tmp/code: $(printf 'not a 64-bit little-endian ELF file')" "$tmp/x\\040(deleted): deleted after the log"; do
	grep -qF -- "$c" "$tmp/err"
	ok $? "stderr: ${c#"$tmp/"}"
done
[ "$(wc -l < "$tmp/err")" = 6 ]
ok $? "nothing else on stderr ($(wc -l < "$tmp/err") lines)"
[ "$st" = 1 ] || cat "$tmp/err" | sed 's/^/#   /'

# The union with the FDE planner's pages (plain --set-xattr on copies).
union() { # union "R1 R2..." "R1 R2...": the merged ranges
	python3 -c '
import sys
rs = sorted(tuple(int(x, 16) for x in w.split("-")) for a in sys.argv[1:] for w in a.split())
out = []
for s, e in rs:
    if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
    else: out.append([s, e])
print(" ".join("0x%x-0x%x" % (s, e) for s, e in out))' "$@"
}
clear "${files[@]}"
"$xo" --set-xattr "$tmp/libcrypto.so.3" "$prog" > /dev/null; st=$?
fde_crypto=$(ranges "$tmp/libcrypto.so.3") fde_prog=$(ranges "$prog")
clear "${files[@]}"
out=$("$xo" --set-xattr --from-log "$tmp/log" 2>/dev/null); st=$?
u_crypto=$(union "$fde_crypto" "0x1c2000-0x1c5000 0x1d0000-0x1d1000") u_prog=$(union "$fde_prog" "0x0-0x1000")
[ "$st" = 1 ] && [ -n "$fde_crypto" ] && [ "$(ranges "$tmp/libcrypto.so.3")" = "$u_crypto" ] &&
	[ "$(ranges "$prog")" = "$u_prog" ] && [[ "$out" == *"$tmp/libcrypto.so.3: plan set, readable: $u_crypto" ]]
ok $? "without --log-only: the union of the logged pages and the FDE planner's (libcrypto: $u_crypto; prog: $u_prog)"

clear "${files[@]}"
out=$("$xo" --set-xattr --from-log - --log-only < "$tmp/log" 2>/dev/null)
[ "$out" = "$want" ]
ok $? "LOG - reads standard input: the same"

# FILE arguments, matched by inode; a small log of xoplan_target's pages.
read -r tab fn < <("$tmp/t" where | sed 's/table=\(0x[0-9a-f]*\) fn=\(0x[0-9a-f]*\)/\1 \2/')
line() { printf '[ 9.0] xonly learn: comm=t pid=9 file=%s offset=0x%x size=0x1000 ip_file=- ip_offset=0x10\n' "$1" "$2"; }
ln -s t "$tmp/t-link"
ln "$tmp/t" "$tmp/t-hard"
{ line "$tmp/t" "$fn"; line "$tmp/t-hard" "$tab"; cat "$tmp/log"; } > "$tmp/log2"
clear "${files[@]}"
out=$("$xo" --set-xattr --from-log "$tmp/log2" --log-only "$tmp/t-link" 2>/dev/null); st=$?
[ "$st" = 0 ] && [ "$out" = "$(printf '%s: plan set, readable: 0x%x-0x%x' "$tmp/t-link" "$tab" $((fn + 4096)))" ] &&
	[ -z "$(get "$tmp/libcrypto.so.3")" ] && [ -z "$(get "$prog")" ]
ok $? "FILE by a symlink: its pages under both its names, no other file touched ($st: $out)"
clear "$tmp/t"
out=$("$xo" --set-xattr --from-log "$tmp/log2" --log-only 2>/dev/null | grep -F "$tmp/t")
[ "$out" = "$(printf '%s: plan set, readable: 0x%x-0x%x' "$tmp/t" "$tab" $((fn + 4096)))" ]
ok $? "no FILE: a file logged under two names (a hard link) gets one plan with both names' pages ($out)"
cp "$target" "$tmp/t2"
out=$("$xo" --set-xattr --from-log "$tmp/log2" "$tmp/t2" 2>/dev/null); st=$?
[ "$st" = 0 ] && [ "$out" = "$(printf '%s: plan set, readable: 0x%x-0x%x' "$tmp/t2" "$tab" $((tab + 4096)))" ]
ok $? "a FILE the log does not name: the FDE planner's plan, the table's page ($st: $out)"
out=$("$xo" --set-xattr --from-log "$tmp/log2" --log-only "$tmp/t2" 2>/dev/null); st=$?
[ "$st" = 0 ] && [ "$out" = "$tmp/t2: no page needs to stay readable: no plan" ] && [ -z "$(get "$tmp/t2")" ]
ok $? "... with --log-only: no plan, the old one removed ($st: $out)"

# Refusals: one line, exit 1, no attribute.
clear "$tmp/t"
line "$tmp/t" 0 > "$tmp/log3"
err=$("$xo" --set-xattr --from-log "$tmp/log3" 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == *"its page at 0x0, which is not in its executable segments: the file changed since the log: no plan set" ]] && [ -z "$(get "$tmp/t")" ]
ok $? "a logged page outside the executable segments: refused ($st: $err)"
printf 'const char t[] __attribute__((section(".text.t"), aligned(4096))) = "x";\nint main(void) { return t[0]; }\n' > "$tmp/noid.c"
gcc -O2 -Wl,--build-id=none -o "$tmp/noid" "$tmp/noid.c" 2>/dev/null
noidpage=$(readelf -lW "$tmp/noid" | awk '$1 == "LOAD" && $8 == "E" { print $2; exit }')	# its code
line "$tmp/noid" "$noidpage" > "$tmp/log3"
err=$("$xo" --set-xattr --from-log "$tmp/log3" --log-only 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == *"has no GNU build-id"* ]] && [ -z "$(get "$tmp/noid")" ]
ok $? "a file without a build-id: refused ($st: $err)"
line "$tmp/gone" 0x1000 > "$tmp/log3"
err=$("$xo" --set-xattr --from-log "$tmp/log3" 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ "$err" = "xoload: $tmp/gone: No such file or directory: no plan set" ]
ok $? "a file that is gone: refused ($st: $err)"

# 300 ranges of one page in a program with 4 MiB of code: 50 gaps of one
# page (every sixth), 249 of two; the 44 merges must take one-page gaps.
printf '.section .note.GNU-stack,"",@progbits\n.text\n.globl main\nmain: ret\n.skip 4194304\n' > "$tmp/big.s"
gcc -Wl,--build-id -o "$tmp/big" "$tmp/big.s" || tap_bail "gcc big.s"
code=$(readelf -lW "$tmp/big" | awk '$1 == "LOAD" && $8 == "E" { print $2; exit }')
pages=$(python3 -c '
import sys
p, out = int(sys.argv[1], 16) + 0x1000, []
for i in range(300):
    out.append(p)
    p += 0x2000 if i % 6 == 0 else 0x3000	# gaps after 0, 6, ..., 294: 50 of one page
print(" ".join("%d" % x for x in out))' "$code")
for p in $pages; do line "$tmp/big" "$p"; done > "$tmp/log4"
if [ "$(stat -f -c %T "$tmp")" != tmpfs ]; then
	skip "$tmp is not on tmpfs: a 4 KiB attribute may not fit" "300 logged ranges: 256 in the plan"
else
	out=$("$xo" --set-xattr --from-log "$tmp/log4" --log-only 2> "$tmp/err"); st=$?
	python3 - "$(ranges "$tmp/big")" $pages <<'EOF2'
import sys
rs = [tuple(int(x, 16) for x in w.split("-")) for w in sys.argv[1].split()]
want = [int(p) for p in sys.argv[2:]]
assert len(rs) == 256, len(rs)
assert all(any(s <= p < e for s, e in rs) for p in want)
assert sum(e - s for s, e in rs) == (300 + 44) * 0x1000, sum(e - s for s, e in rs) // 0x1000
EOF2
	[ $? = 0 ] && [ "$st" = 0 ] &&
		grep -q "300 readable ranges, more than the 256 of a plan: the closest merged, 44 pages more readable" "$tmp/err"
	ok $? "300 logged ranges: 256 in the plan, every logged page in, the 44 closest merged: 44 pages more, warned ($st: $(cat "$tmp/err"))"
fi

if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	clear "$tmp/t"
	line "$tmp/t" "$tab" > "$tmp/log5"
	chmod 644 "$tmp/log5"
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$xo" --set-xattr --from-log "$tmp/log5" 2>&1 >/dev/null); st=$?
	[ "$st" = 1 ] && [[ "$err" == *"cannot set trusted.xonly: Operation not permitted" ]] && [ -z "$(get "$tmp/t")" ]
	ok $? "uid 65534: refused, EPERM ($st: $err)"
else
	skip "no user nobody or no setpriv" "uid 65534: refused"
fi

printf '[    1.0] random: crng init done\n' > "$tmp/none"
out=$("$xo" --set-xattr --from-log "$tmp/none" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "xoload: $tmp/none: no xonly learn line: no plan set" ]
ok $? "a log without learn lines: nothing set, exit 0 ($st: $out)"
clear "${files[@]}"
out=$("$xo" --set-xattr --from-log "$tmp/missing" 2>&1); st=$?
[ "$st" = 1 ] && [ "$out" = "xoload: $tmp/missing: No such file or directory" ]
ok $? "an unreadable LOG: exit 1, one line ($st: $out)"
for c in "--set-xattr --from-log" "--set-xattr --log-only $tmp/t" "--set-xattr $tmp/t --from-log $tmp/log" \
	"--get-xattr --from-log $tmp/log" "--set-xattr --from-log $tmp/log --bogus"; do
	# shellcheck disable=SC2086
	"$xo" $c > /dev/null 2>&1; st=$?
	[ "$st" = 2 ]
	ok $? "usage error, exit 2: xoload ${c//$tmp\//} ($st)"
done
"$xo" --help | grep -q -- '--set-xattr --from-log LOG'
ok $? "--help names --set-xattr --from-log LOG"
tap_done
