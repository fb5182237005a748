#!/usr/bin/env bash
# man_pages.sh - every man page that make install installs (the Makefile's
# INSTALL_TABLE) renders without warnings, from where it is installed: groff
# -ww, and `man -l` with MANWIDTH=80 and --warnings (pkey_set.2's .so link
# resolved as man resolves it); man finds each by name in that tree and
# lexgrog (whatis) parses its NAME.  Each has the sections of its kind, and
# the SEE ALSO pages of ours exist.  For each command's page, --help and
# OPTIONS document the same long options (either gaining one the other lacks
# fails).  pkey_get(2) and xonly(7) give the numbers, options and errnos of
# kernel/include/xonly/uapi.h and of the v2 semantics.  Host only (--help
# needs no pkeys); needs make guest host-tools; groff-base and man-db.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init man-pages

command -v groff >/dev/null && command -v man >/dev/null || tap_bail "groff and man are installed (scripts/deps: groff-base, man-db)"
tmp=$(mktemp -d /tmp/xo-man-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/dest
make -s -C "$top" --no-print-directory install DESTDIR="$d" >"$tmp/log" 2>&1 || tap_bail "make install DESTDIR=...: $(tail -n 3 "$tmp/log")"
mandir=$d/usr/local/share/man bindir=$d/usr/local/bin
pages=$(make -s -C "$top" --no-print-directory install-list DESTDIR="$d" | awk '$2 ~ /\/man[0-9]\// { print $2 }')
[ "$(printf '%s\n' "$pages" | grep -c .)" -ge 7 ] || tap_bail "the table installs the man pages (found: $pages)"

render() { (cd "$mandir" && MANWIDTH=80 MAN_KEEP_FORMATTING= man --warnings=all -l "${1#"$mandir"/}"); }
for p in $pages; do
	rel=${p#"$mandir"/} name=$(basename "$p") sect=${p##*.} cmd=${name%.*}
	warn=$(cd "$mandir" && groff -man -Tutf8 -ww -z "$rel" 2>&1)
	ok $([ -z "$warn" ] && echo 0 || echo 1) "$name: groff -man -ww renders it without warnings${warn:+: $warn}"
	text=$(render "$p" 2>"$tmp/err" | col -bx); warn=$(cat "$tmp/err")
	[ -z "$warn" ] && [ "$(printf '%s\n' "$text" | wc -l)" -gt 10 ]
	ok $? "$name: man --warnings -l renders it (MANWIDTH=80) without warnings${warn:+: $warn}"
	found=$(MANPATH=$mandir man -w "$sect" "$cmd" 2>&1)
	# A .so link is found as the page it names.
	so=$(sed -n '1s/^\.so //p' "$p")
	[ "$found" = "$p" ] || { [ -n "$so" ] && [ "$found" = "$mandir/$so" ]; }
	ok $? "$name: man $sect $cmd finds it in the installed tree (${found#"$mandir"/}${so:+, through .so $so})"
	lex=$(lexgrog "$p" 2>&1)
	printf '%s\n' "$lex" | grep -q "\"$cmd - "
	ok $? "$name: lexgrog parses its NAME for whatis ($(printf '%s' "$lex" | head -n 1))"
	case $sect in
	1) want="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT_STATUS EXAMPLES SEE_ALSO" ;;
	2) want="NAME SYNOPSIS DESCRIPTION RETURN_VALUE ERRORS VERSIONS STANDARDS NOTES SEE_ALSO" ;;
	*) want="NAME SYNOPSIS DESCRIPTION VERSIONS NOTES SEE_ALSO" ;;
	esac
	miss=
	for s in $want; do printf '%s\n' "$text" | grep -qx "${s//_/ }" || miss="$miss ${s//_/ }"; done
	[ -z "$miss" ]
	ok $? "$name: has the sections of a section-$sect page${miss:+; missing:$miss}"
	refs=$(printf '%s\n' "$text" | sed -n '/^SEE ALSO$/,$p' | grep -oE '(xo[a-z]*|jit-demo|pkey_get|pkey_set|xonly)\([0-9]\)' | sort -u)
	bad=
	for r in $refs; do
		n=${r%(*} s=${r#*(}; s=${s%)}
		[ -f "$mandir/man$s/$n.$s" ] || bad="$bad $r"
	done
	[ -z "$bad" ]
	ok $? "$name: the pages of ours in SEE ALSO exist ($(echo $refs))${bad:+; missing:$bad}"
	[ "$sect" = 1 ] || continue
	help=$("$bindir/$cmd" --help 2>&1); st=$?
	ok $st "$cmd --help exits 0"
	# The options --help documents: the first long option of each option line.
	hopts=$(printf '%s\n' "$help" | sed -nE 's/^ {1,6}(-[a-zA-Z], )?(--[a-z][a-z0-9-]*).*/\2/p' | sort -u)
	# The options the page documents: the tags of its OPTIONS section.
	mopts=$(printf '%s\n' "$text" | sed -n '/^OPTIONS$/,/^[A-Z]/p' | grep -E -- '^ {7}-' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	[ -n "$hopts" ] && [ -n "$mopts" ]
	ok $? "$cmd: --help and the page list long options"
	only_h=$(comm -23 <(printf '%s\n' "$hopts") <(printf '%s\n' "$mopts") | tr '\n' ' ')
	only_m=$(comm -13 <(printf '%s\n' "$hopts") <(printf '%s\n' "$mopts") | tr '\n' ' ')
	[ -z "$only_h" ]
	ok $? "$cmd: every option of --help is in the page's OPTIONS${only_h:+; not: $only_h}"
	[ -z "$only_m" ]
	ok $? "$cmd: every option of the page's OPTIONS is in --help${only_m:+; not: $only_m}"
done

# pkey_set.2 is pkey_get.2.
cmp -s <(render "$mandir/man2/pkey_set.2" 2>&1) <(render "$mandir/man2/pkey_get.2" 2>&1)
ok $? "pkey_set(2) renders as pkey_get(2) (a .so link)"

# The pages say what the header and the kernel say.
uapi=$top/kernel/include/xonly/uapi.h
num() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' "$uapi"; }
t2=$(render "$mandir/man2/pkey_get.2" | col -bx | tr -s ' \n' ' ')
t7=$(render "$mandir/man7/xonly.7" | col -bx | tr -s ' \n' ' ')
for n in XONLY_NR_pkey_get XONLY_NR_pkey_set; do
	v=$(num $n)
	printf '%s\n' "$t2" | grep -q "$v ($n)\|$n) and $v\|$v ( $n )"
	ok $? "pkey_get(2) gives $n as $v, as uapi.h does"
done
for e in EBADF EINTR EINVAL ENOSYS; do
	printf '%s\n' "$t2" | sed -n 's/.* ERRORS \(.*\) VERSIONS .*/\1/p' | grep -qw "$e"
	ok $? "pkey_get(2) ERRORS has $e"
done
printf '%s\n' "$t2" | grep -q 'use syscall(2) with the numbers from <xonly/uapi.h>'
ok $? "pkey_get(2) says: not in glibc, use syscall(2) with the numbers from <xonly/uapi.h>"
for n in XONLY_PR_SET_XONLY XONLY_PR_GET_XONLY XONLY_PR_XONLY_STRICT XONLY_PR_XONLY_EXEC_CARVE XONLY_PR_XONLY_LEARN; do
	v=$(num $n)
	printf '%s\n' "$t7" | grep -q "$n ($v)"
	ok $? "xonly(7) gives $n as $v, as uapi.h does"
done
for e in EINVAL EOPNOTSUPP ENOSPC EPERM EIO; do
	printf '%s\n' "$t7" | grep -qw "$e"
	ok $? "xonly(7) documents $e"
done
for w in 'xonly=on' 'xonly=strict' 'Xonly:' '/proc/pid/mem' 'What execute-only code does not stop'; do
	printf '%s\n' "$t7" | grep -qF "$w"
	ok $? "xonly(7) covers '$w'"
done
tap_done
