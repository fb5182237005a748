# badprogs.sh - sourced by kernel.sh and kernel_plans.sh: bad_programs DIR
# makes in DIR the programs that xoload's early paths (runpath.c,
# run_kernel_early()) must refuse as the full path does, and prints them
# with the missing ones, on one line: a path that does not exist, a name
# not on PATH, a script, a text file, a directory, a 32-bit program, a
# shared library with the execute bit, and a program cut short (its
# PT_LOADs past the end: the kernel would map it, and it would crash).
bad_programs() {
	printf '#!/bin/sh\necho script\n' >"$1/script"
	printf 'not an ELF file\n' >"$1/text"
	cp /xonly/lib/xoload/libdatatext.so "$1/lib.so"
	head -c 20000 /usr/bin/true >"$1/trunc"
	chmod +x "$1/script" "$1/text" "$1/lib.so" "$1/trunc"
	echo "/nonexistent no-such-command-xo $1/script $1/text $1 /xonly/tests/compat32/pkey_abi32 $1/lib.so $1/trunc"
}
