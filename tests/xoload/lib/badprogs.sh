# badprogs.sh - sourced by kernel.sh and kernel_plans.sh: bad_programs DIR
# makes in DIR the programs that xoload's early paths (runpath.c,
# run_kernel_early()) must refuse as the full path does, and prints them
# with the missing ones, on one line: a path that does not exist, a name
# not on PATH, a script, a text file, a directory, a 32-bit program, a
# shared library with the execute bit, a program cut short (its PT_LOADs
# past the end); and, crafted from /usr/bin/true with python3 (review s43:
# the kernel maps them anyway and the program crashes, where the full path
# names the fault), its last PT_LOAD's p_offset off by 8 (not congruent
# with p_vaddr), a p_memsz of 64 TiB, a second PT_INTERP, and an
# interpreter cut short.
bad_programs() {
	printf '#!/bin/sh\necho script\n' >"$1/script"
	printf 'not an ELF file\n' >"$1/text"
	cp /xonly/lib/xoload/libdatatext.so "$1/lib.so"
	head -c 20000 /usr/bin/true >"$1/trunc"
	head -c 100000 /lib64/ld-linux-x86-64.so.2 >"$1/c"	# short: it replaces PT_INTERP's string in place
	chmod +x "$1/script" "$1/text" "$1/lib.so" "$1/trunc" "$1/c"
	echo "/nonexistent no-such-command-xo $1/script $1/text $1 /xonly/tests/compat32/pkey_abi32 $1/lib.so $1/trunc" \
		$(python3 - /usr/bin/true "$1" <<'PY'

import struct, sys
src, d = sys.argv[1], sys.argv[2]
base = open(src, 'rb').read()
phoff = struct.unpack_from('<Q', base, 0x20)[0]
n = struct.unpack_from('<H', base, 0x38)[0]
ph = lambda i: phoff + 56 * i
loads = [i for i in range(n) if struct.unpack_from('<I', base, ph(i))[0] == 1]
def out(name, b):
    open(d + '/' + name, 'wb').write(b)
    print(d + '/' + name)
b = bytearray(base); o = ph(loads[-1]) + 8
struct.pack_into('<Q', b, o, struct.unpack_from('<Q', b, o)[0] + 8); out('incong', b)
b = bytearray(base); struct.pack_into('<Q', b, ph(loads[-1]) + 40, 1 << 46); out('huge', b)
b = bytearray(base)
note = [i for i in range(n) if struct.unpack_from('<I', b, ph(i))[0] == 4][0]
interp = [i for i in range(n) if struct.unpack_from('<I', b, ph(i))[0] == 3][0]
b[ph(note):ph(note) + 56] = b[ph(interp):ph(interp) + 56]; out('twointerp', b)
b = bytearray(base); name = (d + '/c').encode() + b'\0'
o, size = struct.unpack_from('<Q', b, ph(interp) + 8)[0], struct.unpack_from('<Q', b, ph(interp) + 32)[0]
if len(name) <= size:
    b[o:o + size] = name + b'\0' * (size - len(name)); struct.pack_into('<Q', b, ph(interp) + 32, len(name))
    out('cutinterp', b)
PY
)
	chmod +x "$1"/incong "$1"/huge "$1"/twointerp "$1"/cutinterp 2>/dev/null
}
