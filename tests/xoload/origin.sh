#!/bin/sh
# origin.sh - PROG's $ORIGIN under xoload is PROG's directory, as natively.
# ld.so takes the main program's $ORIGIN from /proc/self/exe, which names
# xoload: before run/origin.c, java ("$ORIGIN:$ORIGIN/../lib") did not find
# libjli.so, and a library of the same name in xoload's own ../lib was
# loaded in its place.  Programs that find their library through DT_RUNPATH,
# DT_RPATH ("${ORIGIN}"), a DT_NEEDED name with $ORIGIN, and DT_RUNPATH in a
# -z noseparate-code layout (.dynstr in the code segment), and DT_AUDIT
# (-Wl,--audit: an audit library found through $ORIGIN) print the same
# under xoload as natively, also run through a symlink and with a decoy
# of the library's name next to xoload; a directory whose name ld.so would
# read otherwise in the copy (':' in a search path, "$LIB") is refused with
# one line, where a DT_NEEDED name with ':' and a directory with "$b" run.
XO=/xonly/bin/xoload
O=/xonly/lib/xoload/origin
DECOY=/xonly/lib/libxoorigin.so	# xoload's $ORIGIN/../lib: where ld.so looked before
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload-origin: $2"; else echo "not ok $n - xoload-origin: $2"; fail=1; fi; }
cd /tmp || exit 1
trap 'rm -rf "$DECOY" "${DECOY%/*}/libxoorigin-audit.so" /tmp/xo-origin-crafted /tmp/xo-origin-link "/tmp/xo:origin" "/tmp/xo\$LIB" "/tmp/xo\$b"' EXIT

# In the kernel's xonly mode (xonly=on, strict) a PF_X segment is unreadable
# natively too: the -z noseparate-code program's .dynstr with it.
xonly=$(awk '/^Xonly:/ { print $2 }' /proc/self/status)
# runpath-long: a DT_RUNPATH of about 7.5 KB, $ORIGIN last.  dynsmall: runpath
# with its PT_DYNAMIC's p_filesz cut to one entry (ld.so reads on to
# DT_NULL): both were read short and took xoload's directory (review s44).
C=/tmp/xo-origin-crafted
mkdir -p $C && cp -a $O/bin $O/lib $C/
python3 - $C/bin/runpath $C/bin/dynsmall <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', b, 0x20)
phnum, = struct.unpack_from('<H', b, 0x38)
for i in range(phnum):
    o = phoff + 56 * i
    if struct.unpack_from('<I', b, o)[0] == 2:	# PT_DYNAMIC: p_filesz, one entry
        struct.pack_into('<Q', b, o + 32, 16)
open(sys.argv[2], 'wb').write(b)
PY
chmod +x $C/bin/dynsmall
for p in runpath rpath needed runpath-nosep runpath-long audit $C/bin/dynsmall; do
	case $p in /*) ;; *) p=$O/bin/$p ;; esac
	if [ $p = $O/bin/runpath-nosep ] && { [ "$xonly" = 1 ] || [ "$xonly" = 2 ]; }; then
		n=$((n + 1))
		echo "ok $n - xoload-origin: $p # SKIP xonly mode (level $xonly) makes its .dynstr, in its code segment, unreadable to ld.so natively too"
		continue
	fi
	want=$($p 2>&1); wst=$?
	got=$($XO $p 2>/dev/null); st=$?	# the nosep one's "kept readable" warning aside
	[ "$wst" = 0 ] && [ "$st" = 0 ] && [ "$got" = "$want" ]
	ok $? "$p: under xoload as natively ('$got', status $st; natively '$want')"
done

cp $O/decoy/libxoorigin.so "$DECOY"
got=$($XO $O/bin/runpath 2>&1); st=$?
[ "$st" = 0 ] && [ "$got" = "xoorigin: lib/libxoorigin.so" ]
ok $? "a library of the same name next to xoload ($DECOY) is not loaded ('$got')"
rm -f "$DECOY"
cp $O/decoy/libxoorigin-audit.so "${DECOY%/*}/libxoorigin-audit.so"
got=$($XO $O/bin/audit 2>/dev/null | head -1); st=$?
[ "$got" = "xoorigin audit: lib/libxoorigin-audit.so" ]
ok $? "DT_AUDIT: an audit library of the same name next to xoload is not loaded ('$got')"
rm -f "${DECOY%/*}/libxoorigin-audit.so"

ln -sf $O/bin/rpath /tmp/xo-origin-link
want=$(/tmp/xo-origin-link 2>&1)
got=$($XO /tmp/xo-origin-link 2>&1); st=$?
[ "$st" = 0 ] && [ "$got" = "$want" ] && [ "$got" = "xoorigin: lib/libxoorigin.so" ]
ok $? "run through a symlink in another directory: the real file's directory, as natively ('$got')"

# Names ld.so would read otherwise once the directory is written in: ':'
# in a search path (split before expansion), a '$' that starts a token
# ld.so expands ("$LIB/").  A '$' that starts none reads the same.
for d in "/tmp/xo:origin" "/tmp/xo\$LIB" "/tmp/xo\$b"; do
	mkdir -p "$d" && cp -a $O/bin $O/lib "$d/"
done
for d in "/tmp/xo:origin" "/tmp/xo\$LIB"; do
	want=$("$d/bin/runpath" 2>&1); wst=$?
	err=$($XO "$d/bin/runpath" 2>&1); st=$?
	[ "$wst" = 0 ] && [ "$st" = 126 ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
		echo "$err" | grep -q "^xoload: $d/bin/runpath: \$ORIGIN in its DT_RUNPATH, and .*$d/bin"
	ok $? "$d: refused, 126, one line (got $st: $err; natively: $want)"
done
want=$("/tmp/xo\$b/bin/runpath" 2>&1)
got=$($XO "/tmp/xo\$b/bin/runpath" 2>&1); st=$?
[ "$st" = 0 ] && [ "$got" = "$want" ] && [ "$got" = "xoorigin: lib/libxoorigin.so" ]
ok $? "/tmp/xo\$b: a '\$' that starts no token ld.so knows runs as natively ('$got')"
want=$("/tmp/xo:origin/bin/needed" 2>&1)
got=$($XO "/tmp/xo:origin/bin/needed" 2>&1); st=$?
[ "$st" = 0 ] && [ "$got" = "$want" ]
ok $? "a DT_NEEDED name is not split at ':': /tmp/xo:origin/bin/needed runs ('$got')"
err=$($XO "/tmp/xo\$LIB/bin/needed" 2>&1); st=$?
[ "$st" = 126 ] && echo "$err" | grep -q "DT_NEEDED, and a '\\$' of its directory"
ok $? "'\$LIB' in the directory: a DT_NEEDED name is refused too (got $st: $err)"

echo "1..$n"
exit $fail
