#!/usr/bin/env bash
# xolearn.sh - scripts/xolearn turns a canned kernel log of xonly learn mode
# into each file's readable page ranges.  Runs on the host; prints TAP
# framed like a guest test program.
#
# Proves, on one log (tests/host/xolearn.log, which xoplan_fromlog.sh
# reads too) with dmesg timestamps, a console line, journalctl -k
# prefixes and noise: the learn lines are found wherever they are in a
# line; pages of each file are merged where they touch (0x1000 + 0x2000 ->
# one range), kept apart where they do not, listed once when logged twice
# (two processes, or the same page again), and a hugetlb page's size is
# honoured; files come out in byte order of their paths, a path with a
# space, a backslash and a non-ASCII byte comes out escaped as the kernel
# escapes it (one word), and a deleted file keeps its "\040(deleted)";
# --pid keeps one process's lines; --sites names the first reader of each
# page; a "file=?" line, a malformed line (a bad number, an offset not
# page-aligned) and a "callbacks suppressed" line are reported on stderr
# and change nothing; no learn line at all is
# an empty result and exit 0; an unreadable log is exit 1, a bad option 2.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xolearn=$top/scripts/xolearn
. "$top/tests/lib/tap.sh"
tap_init xolearn
tmp=$(mktemp -d /tmp/xo-xolearn.XXXXXX); trap 'rm -rf "$tmp"' EXIT

log=$top/tests/host/xolearn.log	# shared with xoplan_fromlog.sh
cp "$log" "$tmp/log"

out=$("$xolearn" "$tmp/log" 2> "$tmp/err"); st=$?
want='/dev/hugepages/code 0x200000-0x400000
/opt/a\040b\134c\303\251/prog 0x0-0x1000
/tmp/x\040(deleted) 0x2000-0x3000
/usr/lib/x86_64-linux-gnu/libcrypto.so.3 0x1c2000-0x1c5000 0x1d0000-0x1d1000'
[ "$st" = 0 ] && [ "$out" = "$want" ]
ok $? "the canned log gives each file its merged page ranges, escaped paths, in path order (exit $st)"
[ "$st" = 0 ] && [ "$out" = "$want" ] || { diag "got:"; printf '%s\n' "$out" | sed 's/^/#   /'; }

grep -q 'file whose path the kernel did not log' "$tmp/err"
ok $? "a file=? line is reported on stderr"
grep -q ':12: not a learn line' "$tmp/err"
ok $? "a malformed line is reported on stderr with its line number"
grep -q ':15: not a learn line' "$tmp/err"
ok $? "a page offset that is not page-aligned is malformed: the kernel logs whole pages"
grep -q 'suppressed 7 learn lines' "$tmp/err"
ok $? "a 'callbacks suppressed' line is reported: pages are missing"
[ "$(wc -l < "$tmp/err")" = 4 ]
ok $? "nothing else on stderr ($(wc -l < "$tmp/err") lines)"

out=$("$xolearn" < "$tmp/log" 2>/dev/null)
[ "$out" = "$want" ]
ok $? "the log on standard input gives the same"

out=$("$xolearn" --pid 121 --pid 122 "$tmp/log" 2>/dev/null)
[ "$out" = '/opt/a\040b\134c\303\251/prog 0x0-0x1000
/usr/lib/x86_64-linux-gnu/libcrypto.so.3 0x1c3000-0x1c4000' ]
ok $? "--pid keeps the lines of the processes named"

out=$("$xolearn" --sites --pid 120 "$tmp/log" 2>/dev/null)
[ "$out" = '/usr/lib/x86_64-linux-gnu/libcrypto.so.3 0x1c2000-0x1c5000 0x1d0000-0x1d1000
#   0x1c2000 openssl ip=/usr/lib/x86_64-linux-gnu/libcrypto.so.3+0x1c2a60
#   0x1c3000 openssl ip=/usr/lib/x86_64-linux-gnu/libcrypto.so.3+0x1c2a4f
#   0x1c4000 openssl ip=/usr/lib/x86_64-linux-gnu/libcrypto.so.3+0x1c2a4f
#   0x1d0000 openssl ip=/usr/lib/x86_64-linux-gnu/libcrypto.so.3+0x1cffe0' ]
ok $? "--sites names the first thread and instruction that read each page"

printf '[    1.0] random: crng init done\n' > "$tmp/none"
out=$("$xolearn" "$tmp/none" 2>&1); st=$?
[ "$st" = 0 ] && [ -z "$out" ]
ok $? "a log without learn lines: no output, exit 0 (exit $st)"

"$xolearn" "$tmp/missing" >/dev/null 2>&1; st=$?
[ "$st" = 1 ]
ok $? "a log that cannot be read: exit 1 (exit $st)"
"$xolearn" --bogus "$tmp/log" >/dev/null 2>&1; st=$?
[ "$st" = 2 ]
ok $? "an unknown option: exit 2 (exit $st)"
"$xolearn" --help | grep -q '^usage: scripts/xolearn'
ok $? "--help prints the usage"

tap_done
