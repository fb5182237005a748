#!/bin/sh
# failclosed.sh - xoload stops PROG before any of its code runs when the
# protection cannot be given, with exit status 126 and one line of its own
# naming the object, unless --permissive (then PROG runs and a warning
# says what stayed readable):
#   - the audit module cannot be loaded (not ELF; no la_version): ld.so
#     only warns and would run PROG with every library readable; xoload's
#     gate at AT_ENTRY stops it;
#   - the audit module is a FIFO: ld.so would wait on it forever (PROG's,
#     or under the hook its children's); xoload refuses it, given with
#     --audit or found next to xoload;
#   - a library (LD_PRELOAD) that cannot be planned (corrupt section
#     header table): the module stops the process in la_objopen();
#   - PROG itself cannot be planned: xoload refuses it;
# and the gate gives AT_ENTRY back to the program once the module ran.
. /xonly/lib/tap.sh
tap_init xoload-failclosed
XO=/xonly/bin/xoload
H=/xonly/lib/xoload/hello
cd /tmp || exit 1
mkdir -p xo-fc && cd xo-fc || exit 1
# patch FILE OFFSET BYTES...: overwrite bytes (octal escapes) at OFFSET
patch() { f=$1 off=$2; shift 2; printf "$@" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null; }

# closed WHAT 'LAST-LINE-PATTERN' CMD...: status 126, no stdout (PROG did
# not run), the last stderr line is xoload's and matches.
closed() {
	what=$1 pat=$2; shift 2
	"$@" >out 2>err; s=$?
	last=$(tail -n 1 err)
	[ $s = 126 ] && [ ! -s out ] && echo "$last" | grep -q "^xoload: .*$pat"
	ok $? "$what: status $s, PROG did not run, '$last'"
}
# permissive WHAT 'WARNING-PATTERN' CMD...: PROG runs (status 0, its output), and a warning.
permissive() {
	what=$1 pat=$2; shift 2
	"$@" >out 2>err; s=$?
	[ $s = 0 ] && [ "$(cat out)" = "hello p" ] && grep -q "^xoload: .*warning.*$pat" err
	ok $? "$what with --permissive: runs (status $s, '$(cat out)'), warns: '$(grep warning err | head -n 1)'"
}

echo 'not a shared object' >notelf.so
closed "audit module not ELF" "audit module $PWD/notelf.so did not run.*$H not run" $XO --audit=$PWD/notelf.so $H p
[ "$(wc -l <err)" -le 2 ] && grep -q 'cannot be loaded as audit interface' err
ok $? "... after ld.so's own warning, at most 2 lines ($(wc -l <err))"
closed "audit module without la_version" "audit module /xonly/lib/xoload/libxoprobe.so did not run" \
	$XO --audit=/xonly/lib/xoload/libxoprobe.so $H p
permissive "audit module not ELF" "did not run.*readable" $XO --permissive --audit=$PWD/notelf.so $H p
# A module cut short (an interrupted copy): ld.so would map it and die of
# SIGBUS (status 135) before the gate could speak; xoload checks its
# PT_LOADs against the file size first.
head -c 3000 /xonly/lib/xoaudit.so >short.so
closed "audit module cut short" "audit module $PWD/short.so: PT_LOAD [0-9]*: extends past the end of the file" \
	$XO --audit=$PWD/short.so $H p
[ "$(wc -l <err)" = 1 ]
ok $? "... one line, nothing of ld.so's ($(wc -l <err) lines)"
permissive "audit module cut short" "did not run.*readable" $XO --permissive --audit=$PWD/short.so $H p
grep -q "^xoload: warning: audit module $PWD/short.so: PT_LOAD" err
ok $? "... and the warning says why: '$(head -n 1 err)'"

# A FIFO: ld.so opens the module without O_NONBLOCK and would wait forever.
rm -f fifo.so && mkfifo fifo.so
closed "audit module a FIFO" "audit module $PWD/fifo.so: not a regular file" timeout 20 $XO --audit=$PWD/fifo.so $H p
permissive "audit module a FIFO" "audit module $PWD/fifo.so: not a regular file" \
	timeout 20 $XO --permissive --audit=$PWD/fifo.so $H p
# The same found next to xoload (a copy, with a FIFO for lib/xoaudit.so), by default (the hook).
rm -rf copy && mkdir -p copy/bin copy/lib && cp $XO copy/bin/xoload && mkfifo copy/lib/xoaudit.so
closed "audit module a FIFO next to xoload, the hook" "audit module $PWD/copy/lib/xoaudit.so: not a regular file" \
	timeout 20 copy/bin/xoload $H p

# A library ld.so loads happily but the planner refuses: e_shoff past the end.
cp /xonly/lib/xoload/libxoprobe.so badsh.so
patch badsh.so 40 '\377\377\377\000\000\000\000\000'
closed "LD_PRELOAD library that cannot be planned" "$PWD/badsh.so: cannot be planned (malformed ELF): not run" \
	env LD_PRELOAD=$PWD/badsh.so $XO $H p
permissive "LD_PRELOAD library that cannot be planned" "cannot be planned.*readable" \
	env LD_PRELOAD=$PWD/badsh.so $XO --permissive $H p

cp $H badprog; patch badprog 40 '\377\377\377\000\000\000\000\000'
$XO ./badprog p >out 2>err; s=$?
[ $s = 126 ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && grep -q '^xoload: ./badprog: cannot be planned: bad section header table$' err
ok $? "PROG that cannot be planned: status $s, one line '$(cat err)'"

out=$($XO $H entry 2>&1); s=$?
[ $s = 0 ] && [ "$out" = "AT_ENTRY is _start" ]
ok $? "the module gives AT_ENTRY back: getauxval(AT_ENTRY) is PROG's _start ('$out')"
out=$($XO $H ok 2>&1); s=$?
[ $s = 0 ] && [ "$out" = "hello ok" ]
ok $? "and a good module, library and PROG still run, silently ('$out')"
tap_done
