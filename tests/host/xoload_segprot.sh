#!/usr/bin/env bash
# xoload_segprot.sh - crafted programs against load.c's image_map() and
# run/origin.c, on the host (make bench-host's timing build of xoload,
# which runs programs without protection keys; the mapping is the same).
# A PT_LOAD without PF_W whose last file page is part bss (p_memsz a little
# above p_filesz): image_map() maps it writable to zero that page, and
# until session 44 put only the last page back, so the others stayed
# writable (rw-p where the kernel maps r--p); a copy of cat, its first
# PT_LOAD so changed, prints its maps natively and under xoload.  A
# program whose $ORIGIN needs its dynamic section written, in a segment
# without PF_W: 126 and one line, not a crash in xoload (review s44).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoload-segprot
hb=$top/build/hostbench
origin=$top/build/guest/lib/xoload/origin
[ -x "$hb/bin/xoload" ] && [ -x "$origin/bin/runpath" ] || tap_bail "$hb/bin/xoload and $origin exist (make host-tools guest)"
command -v python3 >/dev/null || tap_bail "python3 is there"
tmp=$(mktemp -d /tmp/xo-segprot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XOLOAD_NO_CACHE=1

# flags MATCH NEWFLAGS ADD_MEMSZ: a copy of $1 to $2 with the first PT_LOAD
# whose p_flags are MATCH changed to NEWFLAGS and ADD_MEMSZ added to p_memsz.
craft() {
	python3 - "$@" <<'PY'
import struct, sys
src, dst, match, new, add = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
b = bytearray(open(src, 'rb').read())
phoff, = struct.unpack_from('<Q', b, 0x20)
phnum, = struct.unpack_from('<H', b, 0x38)
for i in range(phnum):
    o = phoff + 56 * i
    t, fl = struct.unpack_from('<II', b, o)
    if t == 1 and fl == match:
        struct.pack_into('<I', b, o + 4, new)
        fs, ms = struct.unpack_from('<QQ', b, o + 32)
        struct.pack_into('<Q', b, o + 40, ms + add)
        break
else:
    sys.exit('no PT_LOAD with flags %d' % match)
open(dst, 'wb').write(b)
PY
	chmod +x "$2"
}

craft /usr/bin/cat "$tmp/catbss" 4 4 16	# PF_R: 16 bytes of bss on its last page
native=$("$tmp/catbss" /proc/self/maps | awk -v f="$tmp/catbss" '$6 == f && $3 == "00000000" { print $2 }')
under=$("$hb/bin/xoload" "$tmp/catbss" /proc/self/maps 2>/dev/null | awk -v f="$tmp/catbss" '$6 == f && $3 == "00000000" { print $2 }')
[ "$native" = r--p ] && [ "$under" = r--p ]
ok $? "a PT_LOAD without PF_W with a part-bss last page: its first page r--p under xoload as natively (got '$under', natively '$native')"
writable=$("$hb/bin/xoload" "$tmp/catbss" /proc/self/maps 2>/dev/null | awk -v f="$tmp/catbss" '$6 == f && $2 ~ /w/' | wc -l)
[ "$writable" = 1 ]
ok $? "and only the PF_W segment's mapping of the file is writable ($writable writable mappings, want 1)"

craft "$origin/bin/runpath" "$tmp/runpath-ro" 6 4 0	# its RW PT_LOAD (.dynamic) without PF_W
mkdir -p "$tmp/bin" && mv "$tmp/runpath-ro" "$tmp/bin/" && cp -a "$origin/lib" "$tmp/"
err=$("$hb/bin/xoload" "$tmp/bin/runpath-ro" 2>&1); st=$?
[ "$st" = 126 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
	[ "$err" = "xoload: $tmp/bin/runpath-ro: \$ORIGIN in its DT_RUNPATH, and its dynamic section is not writable (xoload --kernel runs it)" ]
ok $? "\$ORIGIN with the dynamic section in a segment without PF_W: 126, one line (got $st: $err)"
tap_done
