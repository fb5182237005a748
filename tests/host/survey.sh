#!/usr/bin/env bash
# survey.sh - xosurvey on a directory of objects built here whose answers
# are known by construction: for each, the executable bytes, the bytes made
# execute-only, the readable bytes by category and the WRPKRU/XRSTOR
# findings; then the totals, the skipped files (relocatable, 32-bit,
# separate debug info, non-ELF, a symlink, a second hard link), the same
# output for 1 and 4 workers, the human summary, the SVG chart and bad
# input.  Runs on the host; needs build/host/xosurvey and build/guest/bin/xoscan.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/host/xosurvey xoscan=$top/build/guest/bin/xoscan
. "$top/tests/lib/tap.sh"
tap_init survey

[ -x "$sv" ] && [ -x "$xoscan" ] || tap_bail "build/host/xosurvey and build/guest/bin/xoscan exist (make guest host-tools)"
tmp=$(mktemp -d /tmp/xosurvey-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src t=$tmp/tree
mkdir -p "$src" "$t/sub"

# sep: -z separate-code, .text exactly 2 pages, a WRPKRU and an XRSTOR at
# instruction boundaries: 8192 executable, 8192 execute-only.
cat >"$src/sep.S" <<'EOF'
	.text
	.globl _start
_start:
	wrpkru
	xrstor (%rdi)
	.fill 0x2000 - 6, 1, 0x90
EOF
# nosep: -z noseparate-code, one R+X segment: page 0 the headers, pages 1-2
# .text (page-aligned, 2 pages), page 3 .rodata holding WRPKRU's bytes (data).
cat >"$src/nosep.S" <<'EOF'
	.text
	.p2align 12
	.globl _start
_start:
	.fill 0x2000, 1, 0x90
	.section .rodata, "a"
	.byte 0x0f, 0x01, 0xef
EOF
# mixed: a linker script puts .data's segment on the code's only page.
cat >"$src/mixed.S" <<'EOF'
	.text
	.globl _start
_start:
	nop
	ret
	.data
	.long 42
EOF
cat >"$src/mixed.lds" <<'EOF'
PHDRS { text PT_LOAD FILEHDR PHDRS FLAGS(5); data PT_LOAD FLAGS(6); }
SECTIONS {
	. = 0x400000 + SIZEOF_HEADERS;
	.text : { *(.text) } :text
	.data : { *(.data) } :data
}
EOF
# textrel: non-PIC code in a shared object (an absolute address in .text).
cat >"$src/textrel.S" <<'EOF'
	.text
	.globl f
f:
	movabs $var, %rax
	ret
	.data
	.globl var
var:	.quad 1
EOF
cc=${CC:-gcc}
build() { "$cc" -nostdlib "$@" 2>&1; }
out=$(build -static -no-pie -Wl,-z,separate-code -o "$t/sep" "$src/sep.S" &&
      build -static -no-pie -Wl,-z,noseparate-code -o "$t/nosep" "$src/nosep.S" &&
      build -static -no-pie -Wl,-T,"$src/mixed.lds" -o "$t/mixed" "$src/mixed.S" &&
      build -shared -Wl,-z,notext -o "$t/libtextrel.so" "$src/textrel.S" &&
      "$cc" -c -o "$t/sub/reloc.o" "$src/sep.S" 2>&1 &&
      objcopy --only-keep-debug "$t/sep" "$t/sub/sep.debug" 2>&1)
[ $? = 0 ] || tap_bail "the test objects build: $out"
# noshdr: sep with its section headers gone (e_shoff, e_shnum, e_shstrndx 0).
cp "$t/sep" "$t/noshdr"
printf '\0\0\0\0\0\0\0\0' | dd of="$t/noshdr" bs=1 seek=40 conv=notrunc status=none
printf '\0\0\0\0' | dd of="$t/noshdr" bs=1 seek=60 conv=notrunc status=none
# elf32: sep claiming ELFCLASS32; a text file; a symlink; a second hard link.
cp "$t/sep" "$t/sub/elf32"
printf '\1' | dd of="$t/sub/elf32" bs=1 seek=4 conv=notrunc status=none
echo 'not an object' >"$t/sub/notes.txt"
ln -s ../sep "$t/sub/symlink-to-sep"
ln "$t/sep" "$t/sub/hardlink-to-sep"

json=$("$sv" --json --xoscan "$xoscan" -j 4 "$t" 2>"$tmp/err"); st=$?
ok $st "xosurvey --json exits 0 ($(head -c 300 "$tmp/err"))"
printf '%s\n' "$json" >"$tmp/out.json"

# expect NAME "exec xo headers mixed data textrel noshdr other wrpkru wrpkru_b xrstor xrstor_b"
expect() {
	python3 - "$tmp/out.json" "$t/$1" $2 <<'EOF'
import json, sys
path, want = sys.argv[2], [int(x) for x in sys.argv[3:]]
rows = [json.loads(l) for l in open(sys.argv[1])]
o = [r for r in rows if r.get("object") == path]
if len(o) != 1:
    sys.exit("%d rows for %s" % (len(o), path))
o = o[0]
rd = o["readable"]
got = [o["exec"], o["xo"], rd["headers"], rd["mixed_pages"], rd["data_in_text"], rd["textrel"],
       rd["no_section_headers"], rd["other"], o["wrpkru"], o["wrpkru_boundary"], o["xrstor"], o["xrstor_boundary"]]
if got != want:
    sys.exit("got %s, want %s" % (got, want))
EOF
}
#                   exec   xo    hdr  mixed data textrel noshdr other wrpkru wb xrstor xb
r=$(expect sep           "8192  8192  0    0     0    0       0      0     1      1  1      1" 2>&1)
ok $? "sep (separate-code): all 8192 bytes execute-only, WRPKRU and XRSTOR at boundaries${r:+: $r}"
r=$(expect nosep         "16384 8192  4096 0     4096 0       0      0     1      0  0      0" 2>&1)
ok $? "nosep: 16384 executable, 8192 xo, the headers' page and .rodata's page readable, WRPKRU in data${r:+: $r}"
r=$(expect mixed         "4096  0     0    4096  0    0       0      0     0      0  0      0" 2>&1)
ok $? "mixed: the code's page shares its page with the data segment: readable${r:+: $r}"
r=$(expect libtextrel.so "4096  0     0    0     0    4096    0      0     0      0  0      0" 2>&1)
ok $? "libtextrel.so: TEXTREL keeps its code page readable${r:+: $r}"
r=$(expect noshdr        "8192  0     0    0     0    0       8192   0     1      0  1      0" 2>&1)
ok $? "noshdr: without section headers nothing is execute-only${r:+: $r}"

# The executable bytes agree with readelf's PF_X PT_LOADs, page-rounded.
for o in sep nosep mixed libtextrel.so noshdr; do
	ref=0
	while read -r va sz; do
		lo=$(( va / 4096 * 4096 )) hi=$(( (va + sz + 4095) / 4096 * 4096 ))
		ref=$(( ref + hi - lo ))
	done < <(readelf -lW "$t/$o" | awk '$1 == "LOAD" && ($7 ~ /E/ || $8 == "E") { print $3, $6 }')
	got=$(printf '%s\n' "$json" | python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("object") == sys.argv[1]: print(r["exec"])' "$t/$o")
	[ "$ref" = "$got" ]
	ok $? "$o: executable bytes $got = readelf's PF_X segments, page-rounded ($ref)"
done

r=$(python3 - "$tmp/out.json" "$t" <<'EOF' 2>&1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
t = sys.argv[2]
tot = [r for r in rows if r.get("total")]
objs = [r for r in rows if "exec" in r and not r.get("total")]
skipped = {r["object"][len(t) + 1:]: r["skipped"] for r in rows if "skipped" in r and not r.get("total")}
assert len(tot) == 1 and rows[-1] is tot[0], "one total line, the last"
tot = tot[0]
assert tot["objects"] == len(objs) == 5, "5 objects planned, not %d/%d" % (tot["objects"], len(objs))
for k in ("exec", "xo", "wrpkru", "xrstor", "wrpkru_boundary", "xrstor_boundary"):
    assert tot[k] == sum(o[k] for o in objs), "total %s" % k
for k in tot["readable"]:
    assert tot["readable"][k] == sum(o["readable"][k] for o in objs), "total readable %s" % k
assert tot["exec"] == 40960 and tot["xo"] == 16384, "totals %d/%d" % (tot["exec"], tot["xo"])
assert tot["objects_all_xo"] == 1 and tot["objects_no_xo"] == 3, "all-xo/no-xo counts"
want = {"sub/reloc.o": "relocatable object", "sub/elf32": "not x86-64",
        "sub/sep.debug": "no code in the file (separate debug info?)"}
assert skipped == want, "skipped %s" % skipped
assert tot["non_elf_files"] == 1, "non-ELF files: %d" % tot["non_elf_files"]
assert not any("symlink" in r.get("object", "") or "hardlink" in r.get("object", "") for r in rows), "a link was counted"
assert tot["errors"] == 0
EOF
)
ok $? "totals are the sums; 3 skipped with their reasons, 1 non-ELF file, links counted once${r:+: $r}"

"$sv" --json --xoscan "$xoscan" -j 1 "$t" >"$tmp/j1.json" 2>/dev/null
cmp -s "$tmp/j1.json" "$tmp/out.json"
ok $? "the output with 1 worker is the same as with 4"

human=$("$sv" --totals --xoscan "$xoscan" "$t" 2>&1); st=$?
printf '%s\n' "$human" | grep -q '^xosurvey: 5 objects: 40 KiB executable, 16 KiB execute-only (40.00%)$'
ok $(( st | $? )) "the readable summary: 5 objects, 40 KiB executable, 16 KiB (40.00%) execute-only"
printf '%s\n' "$human" | grep -q 'WRPKRU 3 (1 at instruction boundaries) in 3 objects; XRSTOR\* 2 (1 at boundaries) in 2 objects'
ok $? "the readable summary counts WRPKRU and XRSTOR* and those at boundaries"
[ -n "$("$sv" --xoscan "$xoscan" "$t" 2>/dev/null | grep -F "$t/nosep" | grep ' 50.00% ')" ]
ok $? "the table has a row per object (nosep: 50.00%)"

if command -v gnuplot >/dev/null; then
	"$sv" --totals --no-scan --svg "$tmp/cov.svg" "$t" >/dev/null 2>"$tmp/err"; st=$?
	grep -q '<svg' "$tmp/cov.svg" 2>/dev/null && grep -q '100%' "$tmp/cov.svg"
	ok $(( st | $? )) "--svg draws the coverage chart with gnuplot ($(head -c 200 "$tmp/err"))"
else
	ok 1 "--svg: gnuplot is not installed (scripts/deps installs gnuplot-nox)"
fi

# The progress line: on stderr only when it is a terminal (script(1) gives one).
"$sv" --totals --no-scan "$t" 2>"$tmp/err" >/dev/null
! grep -q 'files planned' "$tmp/err"
ok $? "no progress line when stderr is not a terminal"
if command -v script >/dev/null; then
	script -qec "'$sv' --totals --no-scan '$t' >/dev/null" /dev/null >"$tmp/tty" 2>&1
	grep -q 'xosurvey: 8/8 files planned' "$tmp/tty"
	ok $? "a progress line on a terminal ($(tr '\r' '|' <"$tmp/tty" | head -c 120))"
else
	skip "script(1) is not installed" "a progress line on a terminal"
fi

# A missing operand is an error, named; the others are still surveyed and
# the exit status is 1 at the end (xosurvey(1); it used to stop with 2).
"$sv" --no-scan --json --totals "$tmp/does-not-exist" "$t" >"$tmp/out" 2>"$tmp/err"; st=$?
[ "$st" = 1 ] && grep -q 'does-not-exist: No such file or directory' "$tmp/err" &&
	grep -q '"objects":5,.*"errors":1,' "$tmp/out"
ok $? "a missing directory: named, the other still surveyed, exit 1 (status $st: $(head -c 200 "$tmp/err"; head -c 300 "$tmp/out"))"
"$sv" >/dev/null 2>&1; st=$?
[ "$st" = 2 ]
ok $? "no directory: exit 2 (status $st)"
"$sv" -j 0 "$t" >/dev/null 2>&1; st=$?
[ "$st" = 2 ]
ok $? "-j 0: exit 2 (status $st)"
"$sv" --xoscan /nonexistent "$t" >/dev/null 2>&1; st=$?
[ "$st" = 2 ]
ok $? "a missing scanner: exit 2 (status $st)"
cp "$t/sep" "$tmp/unreadable" && chmod 000 "$tmp/unreadable"
if [ "$(id -u)" != 0 ]; then
	"$sv" --no-scan "$tmp/unreadable" >/dev/null 2>"$tmp/err"; st=$?
	[ "$st" = 1 ] && grep -q unreadable "$tmp/err"
	ok $? "an unreadable file: exit 1, named (status $st)"
else
	skip "root reads every file" "an unreadable file: exit 1, named"
fi
tap_done
