#!/usr/bin/env bash
# xoplan_xattr.sh - xoload --set-xattr, --get-xattr, --clear-xattr (xoplan,
# xoloader/tools/xattr.c): the plan the kernel applies (trusted.xonly),
# written on the host (root, a filesystem with trusted.* attributes: the
# test skips where it cannot set one).  Needs make guest.
#
# Proves, on xoplan_target (a page of table in .text, then a function with
# an FDE on its own page, tests/kernel/lib/xoplan_target.c):
#  - --set-xattr writes the attribute in the kernel's format: "XOPL",
#    version 1, the file's size, its GNU build-id as readelf -n shows it,
#    and one range, the table's page by file offset (from the program's own
#    /proc/self/maps), not the function's; it says so on stdout, exit 0;
#  - --get-xattr prints it and says it fits the file (exit 0); after a
#    byte is appended it says stale (size), exit 1; a value with a bad
#    magic is malformed, exit 1;
#  - --clear-xattr removes it (--get-xattr: "no plan"), and again is no
#    error;
#  - refused with a one-line error, exit 1, nothing set: a file without a
#    build-id that needs readable pages, a file every page of which would
#    stay readable (the kernel refuses such a plan), a missing file, a
#    directory; a file that needs no readable page gets no plan, exit 0;
#  - an unprivileged user (65534) cannot set it: exit 1, EPERM's message;
#  - no file: exit 2; the options only as the first argument (exit 2).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoplan_xattr
xo=$top/build/guest/bin/xoload
target=$top/build/guest/lib/kernel/xoplan_target
[ -x "$xo" ] && [ -x "$target" ] || tap_bail "build/guest/bin/xoload and lib/kernel/xoplan_target exist (make guest)"
tmp=$(mktemp -d /var/tmp/xo-xattr.XXXXXX); trap 'rm -rf "$tmp"' EXIT
cp "$target" "$tmp/t"
get() { python3 -c 'import os,sys; sys.stdout.write(os.getxattr(sys.argv[1], "trusted.xonly").hex())' "$1" 2>/dev/null; }
if ! python3 -c 'import os,sys; os.setxattr(sys.argv[1], "trusted.xonly", b"x")' "$tmp/t" 2>/dev/null; then
	skip "cannot set trusted.* attributes here (not root, or $tmp's filesystem has none)" "xoload --set-xattr"
	tap_done; exit
fi
python3 -c 'import os,sys; os.removexattr(sys.argv[1], "trusted.xonly")' "$tmp/t"

le() { # le HEX: the little-endian number of HEX bytes
	python3 -c 'import sys; print(int.from_bytes(bytes.fromhex(sys.argv[1]), "little"))' "$1"
}
read -r tab fn < <("$tmp/t" where | sed 's/table=\(0x[0-9a-f]*\) fn=\(0x[0-9a-f]*\)/\1 \2/')
out=$("$xo" --set-xattr "$tmp/t"); st=$?
want=$(printf '%s: plan set, readable: 0x%x-0x%x' "$tmp/t" "$tab" $((tab + 4096)))
[ "$st" = 0 ] && [ "$out" = "$want" ]
ok $? "--set-xattr: the table's page ($tab), not the function's ($fn) (exit $st: $out)"
v=$(get "$tmp/t")
id=$(readelf -n "$tmp/t" | sed -n 's/.*Build ID: //p')
idlen=$(( ${#id} / 2 ))
size=$(stat -c %s "$tmp/t")
[ "${v:0:8}" = 584f504c ]
ok $? "the value starts with XOPL (${v:0:8})"
[ "${v:8:2}" = 01 ] && [ "$(le "${v:10:2}")" = "$idlen" ] && [ "$(le "${v:12:4}")" = 1 ]
ok $? "version 1, the build-id's length $idlen, one range (${v:8:8})"
[ "$(le "${v:16:16}")" = "$size" ] && [ "${v:32:$((2 * idlen))}" = "$id" ]
ok $? "the file's size ($size) and its build-id as readelf -n shows it ($id)"
r=${v:$((32 + 2 * idlen))}
[ ${#r} = 32 ] && [ "$(le "${r:0:16}")" = $((tab)) ] && [ "$(le "${r:16:16}")" = $((tab + 4096)) ]
ok $? "the range: [$((tab)), $((tab + 4096))) by file offset ($r)"

out=$("$xo" --get-xattr "$tmp/t"); st=$?
[ "$st" = 0 ] && [[ "$out" == *"build-id $id (fits the file), readable: $(printf '0x%x-0x%x' "$tab" $((tab + 4096)))" ]]
ok $? "--get-xattr: it fits the file (exit $st: $out)"
cp -p "$tmp/t" "$tmp/t2"
python3 -c 'import os,sys; os.setxattr(sys.argv[1], "trusted.xonly", bytes.fromhex(sys.argv[2]))' "$tmp/t2" "$v"
printf x >> "$tmp/t2"
out=$("$xo" --get-xattr "$tmp/t2"); st=$?
[ "$st" = 1 ] && [[ "$out" == *"(stale: the file's size is not the plan's)"* ]]
ok $? "--get-xattr after a byte is appended: stale, exit 1 ($st: $out)"
python3 -c 'import os,sys; os.setxattr(sys.argv[1], "trusted.xonly", b"XOPX" + bytes(12))' "$tmp/t2"
out=$("$xo" --get-xattr "$tmp/t2"); st=$?
[ "$st" = 1 ] && [[ "$out" == *"malformed plan (16 bytes)" ]]
ok $? "--get-xattr of a bad magic: malformed, exit 1 ($st: $out)"

out=$("$xo" --clear-xattr "$tmp/t"); st=$?
[ "$st" = 0 ] && [ -z "$(get "$tmp/t")" ] && [ "$("$xo" --get-xattr "$tmp/t")" = "$tmp/t: no plan" ]
ok $? "--clear-xattr removes it (exit $st: $out)"
"$xo" --clear-xattr "$tmp/t" > /dev/null
ok $? "--clear-xattr of a file without a plan: exit 0"

# Refusals: one line on stderr, exit 1, no attribute.
printf '.globl _start\n_start:\nmov $60,%%eax\nxor %%edi,%%edi\nsyscall\n' > "$tmp/s.s"
gcc -nostdlib -static -Wl,-z,noseparate-code -Wl,--build-id -o "$tmp/allread" "$tmp/s.s"
printf 'const char t[] __attribute__((section(".text.t"), aligned(4096))) = "x";\nint main(void) { return t[0]; }\n' > "$tmp/noid.c"
gcc -O2 -Wl,--build-id=none -o "$tmp/noid" "$tmp/noid.c" 2>/dev/null
gcc -nostdlib -static -Wl,--build-id=none -o "$tmp/nodata" "$tmp/s.s"
for c in "allread:every page would stay readable" "noid:has no GNU build-id" "missing:No such file" ".:not a regular file"; do
	f=$tmp/${c%%:*} msg=${c#*:}
	err=$("$xo" --set-xattr "$f" 2>&1 >/dev/null); st=$?
	[ "$st" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == *"$msg"* ]] && [ -z "$(get "$f")" ]
	ok $? "--set-xattr ${c%%:*}: refused, exit 1, one line ($st: $err)"
done
out=$("$xo" --set-xattr "$tmp/nodata"); st=$?
[ "$st" = 0 ] && [ "$out" = "$tmp/nodata: no page needs to stay readable: no plan" ] && [ -z "$(get "$tmp/nodata")" ]
ok $? "a file that needs no readable page: no plan, exit 0 ($st: $out)"

if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$xo" --set-xattr "$tmp/t" 2>&1 >/dev/null); st=$?
	[ "$st" = 1 ] && [[ "$err" == *"cannot set trusted.xonly: Operation not permitted" ]] && [ -z "$(get "$tmp/t")" ]
	ok $? "uid 65534: --set-xattr fails, EPERM ($st: $err)"
else
	skip "no user nobody or no setpriv" "uid 65534: --set-xattr fails"
fi

"$xo" --set-xattr > /dev/null 2>&1
ok $(( $? != 2 )) "--set-xattr without a file: exit 2"
"$xo" --strict --set-xattr "$tmp/t" > /dev/null 2>&1
ok $(( $? != 2 )) "--set-xattr after another option: exit 2"
tap_done
