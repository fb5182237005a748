#!/usr/bin/env bash
# survey_operands.sh - what xosurvey does with the operands of its command
# line.  A symlink named there is followed, as find -H, du and ls do (a
# merged-/usr /bin, /lib64/ld-linux-x86-64.so.2): a link to a directory
# is walked and its objects shown under the name given, a link to an
# object is planned; symlinks inside a tree are still not followed.  An
# operand that is not an ELF object - an empty file, a script, a text
# file, /dev/null, a FIFO, a symlink loop, a dangling symlink - gets one
# line on stderr saying why, counts as an error, and the status is 1; the
# other operands are still surveyed.  (Each of these was dropped without
# a word and exit 0: issue 27.)  Runs on the host; needs make guest
# host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/host/xosurvey hello=$top/build/guest/lib/xoload/hello
. "$top/tests/lib/tap.sh"
tap_init survey-operands
[ -x "$sv" ] && [ -x "$hello" ] || tap_bail "build/host/xosurvey and build/guest/lib/xoload/hello exist (make guest host-tools)"
tmp=$(mktemp -d /tmp/xosurvey-operands.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p tree other
cp "$hello" tree/hello
cp "$hello" other/hello2
ln -s ../other tree/link-inside      # inside the tree: not followed
ln -s tree dirlink
ln -s tree/hello filelink

# objects PATH...: the "object" names of the JSON lines, sorted, one a line.
objects() { "$sv" --no-scan --json "$@" 2>/dev/null | sed -n 's/^{"object":"\([^"]*\)".*/\1/p'; }

got=$(objects dirlink)
[ "$got" = dirlink/hello ]
ok $? "a symlink to a directory is walked, its objects named under the link: '$got'"
"$sv" --no-scan --totals dirlink >/dev/null 2>&1; st=$?
[ "$st" = 0 ]
ok $? "... status 0 (status $st)"
got=$(objects filelink)
[ "$got" = filelink ]
ok $? "a symlink to an object is planned: '$got'"
got=$(objects tree)
[ "$got" = tree/hello ]
ok $? "a symlink inside a tree is not followed: '$(echo $got)'"

# The system's own links, where it has them (merged /usr).
ld=/lib64/ld-linux-x86-64.so.2
if [ -L "$ld" ]; then
	out=$("$sv" --no-scan --totals "$ld" 2>&1); st=$?
	[ "$st" = 0 ] && printf '%s\n' "$out" | grep -q '^xosurvey: 1 objects: '
	ok $? "xosurvey $ld (a symlink): 1 object, status 0 (status $st: $(printf '%s' "$out" | head -n 1))"
else
	skip "$ld is not a symlink here" "xosurvey $ld: 1 object"
fi
if [ -L /bin ] && [ -d /bin ]; then
	n=$("$sv" --no-scan --json /bin 2>/dev/null | grep -c '^{"object":"/bin/')
	[ "$n" -gt 10 ]
	ok $? "xosurvey /bin (a symlink to usr/bin): $n objects named /bin/..."
else
	skip "/bin is not a symlink here" "xosurvey /bin: its objects"
fi

# Operands that are not ELF objects.
: >empty
printf '#!/bin/sh\necho hi\n' >script
echo 'just text, long enough to be longer than an ELF header, which is sixty-four bytes' >text
printf '\177ELF' >short
mkfifo fifo
ln -s loop loop
ln -s nowhere dangling
for c in "empty|an empty file" "script|a script" "text|not an ELF object" "short|a truncated ELF header" \
	 "/dev/null|a device" "fifo|a FIFO" "loop|a symlink loop" "dangling|a dangling symlink"; do
	f=${c%%|*} why=${c#*|}
	timeout 10 "$sv" --no-scan --totals "$f" >"$tmp/out" 2>"$tmp/err"; st=$?
	err=$(cat "$tmp/err")
	[ "$st" = 1 ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && [[ $err == "xosurvey: $f: $why"* ]] &&
		grep -q '1 ERRORS' "$tmp/out"
	ok $? "operand $f: status 1, one line '$err', counted as an error (status $st)"
done

# The others are still surveyed; the JSON total counts the errors.
tot=$("$sv" --no-scan --json script tree fifo 2>"$tmp/err" | tail -n 1)
[[ $tot == *'"objects":1,'* ]] && [[ $tot == *'"errors":2,'* ]] && [ "$(grep -c . "$tmp/err")" = 2 ]
ok $? "bad operands beside a good one: it is still planned, \"errors\":2 ($tot)"
"$sv" --no-scan --totals script tree >/dev/null 2>&1; st=$?
[ "$st" = 1 ]
ok $? "... and the status is 1 (status $st)"
tap_done
