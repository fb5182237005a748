#!/usr/bin/env bash
# xoload_programs.sh - Debian's own programs run under xoload as they run
# natively, on the host (make bench-host's timing build, which runs
# programs without protection keys: what it proves is the loading, not
# the protection; tests/xoload/programs_*.sh run real programs in the VM
# under enforced protection keys, but the image holds only some of them).
# Each program of the list below that this machine has runs with its
# arguments, stdin from /dev/null or from a fixed file, in an empty
# directory: natively twice, then under xoload.  A row wants the same exit
# status, the same stdout and the same stderr, less xoload's "kept
# readable" warnings; where the two native runs differ (a time, a pid), it
# compares the status only and says so.  The list covers what the loader
# must get right for a program: PIE and ET_EXEC, C, C++, Fortran, Ada,
# COBOL, Tcl, Perl, Python, Java (DT_RUNPATH with $ORIGIN: libjli.so, the
# session 44 bug, made every java row fail), node, LLVM's large objects,
# programs that run others (gcc, make, git).  Session 44's sweep of every
# ELF program in /usr/bin and /usr/sbin this way found that bug; this is
# that sweep kept, on a list fixed so that a row means the same on each run.
# XOLOAD_UNDER_TEST=PATH runs another build of xoload (an older one, to
# watch the rows fail).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init xoload-programs
xo=${XOLOAD_UNDER_TEST:-$top/build/hostbench/bin/xoload}
[ -x "$xo" ] || tap_bail "$xo exists (make host-tools)"
tmp=$(mktemp -d /tmp/xo-programs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cwd" "$tmp/home"
seq 1 50000 >"$tmp/in"
echo 'puts [expr {6 * 7}]' >"$tmp/t.tcl"
export XOLOAD_NO_CACHE=1

# One program a line, then its arguments, as the shell reads them ($tmp is
# this run's directory); a last word \< gives it $tmp/in on stdin
# (otherwise /dev/null).  Programs this machine lacks, or has as scripts
# (xoload runs ELF programs), are named in one line and skipped.
list() {
	cat <<'LIST'
/usr/bin/true
/usr/bin/ls --version
/usr/bin/cp --version
/usr/bin/date -d @0 -u
/usr/bin/sort -r \<
/usr/bin/wc \<
/usr/bin/sha256sum \<
/usr/bin/base64 \<
/usr/bin/env --version
/usr/bin/stat --version
/usr/bin/id --version
/usr/bin/seq 1 3
/usr/bin/factor 1234567890
/usr/bin/numfmt --to=iec 123456789
/usr/bin/grep -c 7 \<
/usr/bin/sed -n 100p \<
/usr/bin/mawk -W version
/usr/bin/gawk --version
/usr/bin/find --version
/usr/bin/xargs --version
/usr/bin/diff --version
/usr/bin/cmp --version
/usr/bin/tar --version
/usr/bin/gzip -c -n \<
/usr/bin/bzip2 -c \<
/usr/bin/xz -c \<
/usr/bin/zstd -c \<
/usr/bin/lz4 -c \<
/usr/bin/lzip -c \<
/usr/bin/lzop -c \<
/usr/bin/cpio --version
/usr/bin/file --version
/usr/bin/make --version
/usr/bin/gcc --version
/usr/bin/cpp --version
/usr/bin/as --version
/usr/bin/ld --version
/usr/bin/objdump --version
/usr/bin/readelf -h /usr/bin/true
/usr/bin/nm --version
/usr/bin/perl -e 'print 2**40, "\n"'
/usr/bin/python3 -c 'import hashlib; print(hashlib.sha256(b"xo").hexdigest())'
/usr/bin/tclsh8.6 "$tmp/t.tcl"
/usr/bin/node -e 'console.log(6 * 7)'
/usr/bin/java -version
/usr/bin/javac -version
/usr/bin/jar --version
/usr/bin/jshell --version
/usr/bin/gfortran --version
/usr/bin/gnatmake --version
/usr/bin/cobc --version
/usr/bin/git --version
/usr/bin/curl --version
/usr/bin/wget --version
/usr/bin/openssl dgst -sha256 \<
/usr/bin/qemu-system-x86_64 --version
/usr/bin/clang-14 --version
/usr/bin/llvm-objdump-14 --version
/usr/bin/llvm-readelf-14 -h /usr/bin/true
/usr/bin/clang-format-14 --version
/usr/bin/cmake --version
/usr/bin/ctest --version
/usr/bin/sqlite3 :memory: 'select 6 * 7'
/usr/bin/bc --version
/usr/bin/flex --version
/usr/bin/bison --version
/usr/bin/m4 --version
/usr/bin/patch --version
/usr/bin/gpg --version
/usr/bin/xmllint --version
/usr/bin/zip -v
/usr/bin/rsync --version
/usr/bin/tmux -V
/usr/bin/bash -c 'echo $((6 * 7)) "$0" "$1"' a 'b c'
/usr/bin/dash -c 'echo $((6 * 7)) "$0" "$1"' a 'b c'
/usr/bin/cppcheck --version
/usr/bin/busybox echo static
/usr/bin/qemu-img --version
/usr/bin/rustc --version
/usr/bin/cargo --version
/usr/bin/ruby --version
/usr/bin/gdb --version
/usr/bin/strace -V
LIST
}

# run OUT [xoload] PROG ARGS...: status, stdout and stderr into OUT.*
run() {
	local out=$1 in=/dev/null
	shift
	if [ "${!#}" = '<' ]; then in=$tmp/in; set -- "${@:1:$#-1}"; fi
	(cd "$tmp/cwd" && HOME=$tmp/home timeout -k 2 60 "$@" <"$in" >"$out.out" 2>"$out.err"; echo $? >"$out.st")
}

ran=0 missing=
while IFS= read -r line; do
	eval "set -- $line" || tap_bail "the list's line $line"
	if ! [ -f "$1" ] || ! [ -x "$1" ] || [ "$(head -c 4 "$1")" != "$(printf '\177ELF')" ]; then
		missing="$missing ${1##*/}"
		continue
	fi
	ran=$((ran + 1))
	run "$tmp/a" "$@"; run "$tmp/b" "$@"; run "$tmp/x" "$xo" "$@"
	sed -E '/^xoload: (.*: )?warning: .*kept readable/d' "$tmp/x.err" >"$tmp/x.err2"
	st=$(cat "$tmp/a.st") xst=$(cat "$tmp/x.st")
	if cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.err" "$tmp/b.err"; then
		[ "$st" = "$xst" ] && [ "$st" != 124 ] && cmp -s "$tmp/a.out" "$tmp/x.out" && cmp -s "$tmp/a.err" "$tmp/x.err2"
		same=$? what="status, stdout and stderr"
	else
		[ "$st" = "$xst" ] && [ "$st" != 124 ]
		same=$? what="status (the native runs' output differs, not compared)"
	fi
	ok $same "$line: the native run's $what under xoload (native $st, xoload $xst)"
	[ $same = 0 ] || diag "its stderr under xoload: $(head -c 300 "$tmp/x.err" | tr '\n' ' ')"
done < <(list)
[ -z "$missing" ] || diag "not on this machine:$missing"
[ "$ran" -ge 20 ]
ok $? "$ran programs of the list ran (at least 20)"
tap_done
