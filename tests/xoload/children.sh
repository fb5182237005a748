#!/bin/sh
# children.sh - the programs a program under xoload executes (xoload(1),
# "Children"): they inherit LD_AUDIT, and the audit module, loaded again,
# protects each of them in place by default, or with
# XOLOAD_CHILDREN=reexec runs it under xoload again.  Proves, for a child
# of bash run under xoload:
#  - by default the module is mapped in the child and in a grandchild,
#    and no xoload (hookprobe), and the child's /proc/self/exe is its own
#    file, not xoload;
#  - its main, libc, ld.so and a dlopen()ed library are execute-only:
#    reads fault SEGV_PKUERR with the execute-only key (xo_probe --child),
#    also with another audit module listed before xoaudit.so;
#  - that other module's code (libnullaudit.so; sotruss-lib.so and its own
#    copy of libc) is execute-only too, with a key, for the rest of the run
#    (the module finds it through ld.so's _r_debug: its la_version() and
#    its libraries' constructors ran readable before);
#  - code that runs before main (a preinit_array entry, a DT_NEEDED
#    library's constructor, the program's constructor and IFUNC resolver)
#    reads libc's code and faults SEGV_PKUERR: in place, the module
#    protects each object before any of its code runs (hookctor);
#  - a script as a child runs, its interpreter protected (before this
#    session the re-exec ran "xoload SCRIPT", which refuses scripts: 126);
#  - without /proc a script child runs in place all the same (its
#    interpreter found by argv[0], not AT_EXECFN);
#  - a child that runs ld.so as its program ("ld.so PROG", as ldd and
#    some launchers do; /proc/self/exe is ld.so, not PROG): PROG's code
#    is execute-only, none of it left readable, for bash and for bigtext
#    (256 KiB of code where ld.so's is: ld.so's plan applied to it would
#    mprotect() without error and leave its end readable);
#  - XOLOAD_CHILDREN=reexec: the child runs under xoload again (xoload
#    mapped, AT_XOLOAD), execute-only the same way, a script too, and a
#    child whose LD_AUDIT lists another module before xoaudit.so (xoload
#    is found beside the module's own file, not LD_AUDIT's first entry);
#  - a bad XOLOAD_CHILDREN is a usage error of xoload (2, one line,
#    nothing run) and, set by PROG for its child, stops that child (126,
#    one line naming it) before its code runs;
#  - xoload whose module's path has 255 bytes or more refuses (126, one
#    line): ld.so skips such an LD_AUDIT entry, and the children ran
#    without the module; at 254 bytes they load it.
# In the kernel's xonly mode (xonly=on, strict, learn) the kernel made the
# child's code execute-only and the module carves its data out in place,
# with or without XOLOAD_CHILDREN=reexec.
. /xonly/lib/tap.sh
tap_init xoload-children
XO=/xonly/bin/xoload
L=/xonly/lib/xoload
T=/xonly/tests/xoload
AUD=/xonly/lib/xoaudit.so
D=/tmp/xochildren
rm -rf $D && mkdir -p $D
xonly=$(awk '/^Xonly:/ { print $2 }' /proc/self/status)
inplace="LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=0"
reexec="LD_AUDIT=$AUD xoaudit=0 nullaudit=0 xoload=1"
# The xonly.hook=0 boot: xoload itself uses the module, so a re-executed child maps both.
[ "${XOLOAD_HOOK:-}" = 0 ] && reexec="LD_AUDIT=$AUD xoaudit=1 nullaudit=0 xoload=1"
[ "${xonly:-0}" != 0 ] && reexec=$inplace

# --- which mechanism, and what the child is -----------------------------------
out=$($XO /bin/bash -c "$L/hookprobe env; exit \$?" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$inplace" ]
ok $? "a child of bash under xoload: the module, no xoload mapped (in place) ($out, status $st)"

out=$($XO /bin/bash -c "/bin/bash -c '$L/hookprobe env; exit \$?'" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$inplace" ]
ok $? "a grandchild: the same ($out, status $st)"

out=$($XO /bin/bash -c '/usr/bin/ls -l /proc/self/exe' 2>&1); st=$?
[ "$st" = 0 ] && [ "${out##* -> }" = /usr/bin/ls ]
ok $? "a child's /proc/self/exe is its own file, not xoload (ls: ${out##* -> }, status $st)"

note=
[ "${xonly:-0}" != 0 ] && note=" (xonly mode $xonly: in place)"
out=$(XOLOAD_CHILDREN=reexec $XO /bin/bash -c "$L/hookprobe env; exit \$?" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$reexec" ]
ok $? "XOLOAD_CHILDREN=reexec: the child runs under xoload again$note ($out, status $st)"

out=$(XOLOAD_CHILDREN=inplace $XO /bin/bash -c "$L/hookprobe env; exit \$?" 2>&1); st=$?
[ "$st" = 0 ] && [ "$out" = "$inplace" ]
ok $? "XOLOAD_CHILDREN=inplace: the default ($out, status $st)"

# A script: the kernel executes its interpreter, AT_EXECFN names the script.
# script HOW: run $D/script.sh as a child of bash under xoload, with
# XOLOAD_CHILDREN=HOW; it saves its interpreter's smaps.  Sets $st, $out.
printf '#!/bin/bash\n/usr/bin/cat /proc/$$/smaps >%s/script.smaps\necho "script ran: $1"\n' "$D" >$D/script.sh
chmod +x $D/script.sh
script() {
	rm -f $D/script.smaps
	out=$(XOLOAD_CHILDREN=$1 $XO /bin/bash -c "$D/script.sh arg; echo \$?" 2>&1); st=$?
	# bash's own code: execute-only (--xp, a key); which of xoload and xoaudit.so are mapped
	key=$(awk '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (name ~ /\/bash$/ && perm == "--xp") print $2 }' $D/script.smaps 2>/dev/null | head -n 1)
	mapped=$(grep -oE '/xonly/(bin/xoload|lib/xoaudit.so)$' $D/script.smaps 2>/dev/null | sort -u | tr '\n' ' ')
}
script ""
[ "$st" = 0 ] && [ "$out" = "$(printf 'script ran: arg\n0')" ] && [ -n "$key" ] && [ "$key" != 0 ] &&
	[ "$mapped" = "/xonly/lib/xoaudit.so " ]
ok $? "a script as a child: runs, its interpreter protected in place (bash's code key ${key:-none}; mapped: $mapped; $(echo $out), status $st)"
script reexec
want="/xonly/bin/xoload *"
[ "${xonly:-0}" != 0 ] && want="/xonly/lib/xoaudit.so "
[ "$st" = 0 ] && [ "$out" = "$(printf 'script ran: arg\n0')" ] && [ -n "$key" ] && [ "$key" != 0 ] &&
	case $mapped in $want) true ;; *) false ;; esac
ok $? "XOLOAD_CHILDREN=reexec: a script as a child runs, its interpreter under xoload again$note (key ${key:-none}; mapped: $mapped; $(echo $out), status $st)"

# Without /proc (unmounted in a mount namespace of its own) the module
# opens the main program by AT_EXECFN, for a script by argv[0], its
# interpreter as the #! line names it; the identity check confirms it.
printf '#!/bin/bash\necho "ran without /proc: $1"\n' >$D/noproc.sh
chmod +x $D/noproc.sh
if unshare -m true 2>/dev/null; then
	out=$(unshare -m sh -c "umount -l /proc && LD_AUDIT=$AUD $D/noproc.sh a; echo \$?; LD_AUDIT=$AUD /usr/bin/true; echo \$?" 2>&1); st=$?
	[ "$st" = 0 ] && [ "$out" = "$(printf 'ran without /proc: a\n0\n0')" ]
	ok $? "without /proc: a script child and /usr/bin/true run in place, the script's interpreter found by argv[0] ($(echo $out), status $st)"
else
	skip "no unshare -m here" "without /proc: a script child in place"
fi

# --- the child's code is execute-only -----------------------------------------
# probe NAME ENV WANT-DIAG: xo_probe --child as a child of bash; every line ok.
probe() {
	env $2 $XO /bin/bash -c "$T/xo_probe --child; exit \$?" >$D/probe 2>&1; st=$?
	sed 's/^/#   /' $D/probe
	[ "$st" = 0 ] && [ "$(grep -c '^ok' $D/probe)" -ge 10 ] && ! grep -q '^not ok' $D/probe &&
		grep -q "^# xoload-probe: a child, $3" $D/probe
	ok $? "$1: main, libc, ld.so and a dlopen()ed library execute-only, reads SEGV_PKUERR (status $st)"
}
probe "a child, in place" "" "in place"
if [ "${xonly:-0}" = 0 ]; then
	probe "a child, XOLOAD_CHILDREN=reexec" XOLOAD_CHILDREN=reexec "run under xoload again"
else
	probe "a child, XOLOAD_CHILDREN=reexec (xonly mode: in place)" XOLOAD_CHILDREN=reexec "in place"
fi
$XO /bin/bash -c "LD_AUDIT=$L/libnullaudit.so:$AUD $T/xo_probe --child; exit \$?" >$D/probe 2>&1; st=$?
[ "$st" = 0 ] && [ "$(grep -c '^ok' $D/probe)" -ge 10 ] && ! grep -q '^not ok' $D/probe
ok $? "a child with another audit module before xoaudit.so: execute-only the same (status $st)"

# XOLOAD_CHILDREN=reexec with the other module first: the module finds
# xoload beside itself, not beside the first entry of LD_AUDIT (where it
# looked before, found none and ran the child in place without a word).
out=$(XOLOAD_CHILDREN=reexec $XO /bin/bash -c "LD_AUDIT=$L/libnullaudit.so:$AUD $L/hookprobe env; exit \$?" 2>&1); st=$?
want="xoload=1"
[ "${xonly:-0}" != 0 ] && want="xoload=0"
[ "$st" = 0 ] && [ "${out##* }" = "$want" ]
ok $? "XOLOAD_CHILDREN=reexec, a child with LD_AUDIT=libnullaudit.so:xoaudit.so: run under xoload again$note ($out, status $st)"

# The other module itself: ld.so loaded it (and its libraries) in its own
# namespace before ours, and la_objopen() never saw it; the module finds it
# through _r_debug's namespace chain at its start.  smaps_of FILE NAME: the
# perms and keys of NAME's executable mappings in FILE, "perm:key" each.
smaps_of() {
	awk -v n="$2" '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (name ~ n && perm ~ /x/) printf "%s:%s ", perm, $2 }' "$1"
}
$XO /bin/bash -c "LD_AUDIT=$L/libnullaudit.so:$AUD /usr/bin/cat /proc/self/smaps" >$D/null.smaps 2>$D/err; st=$?
sed 's/^/#   /' $D/err
m=$(smaps_of $D/null.smaps '/libnullaudit[.]so$')
[ "$st" = 0 ] && [ -n "$m" ] && ! echo "$m" | grep -q -e 'r-xp' -e ':0 '
ok $? "a child with LD_AUDIT=libnullaudit.so:xoaudit.so: libnullaudit.so's code execute-only, a key (${m:-no mapping}, status $st)"
# One that links libc (its own copy, in its namespace): both copies of libc protected.
SOTRUSS=/usr/lib/x86_64-linux-gnu/audit/sotruss-lib.so
if [ -e $SOTRUSS ]; then
	$XO /bin/bash -c "LD_AUDIT=$AUD /usr/bin/cat /proc/self/smaps" >$D/one.smaps 2>$D/err; st1=$?
	$XO /bin/bash -c "LD_AUDIT=$SOTRUSS:$AUD /usr/bin/cat /proc/self/smaps" >$D/two.smaps 2>$D/err; st=$?
	m=$(smaps_of $D/two.smaps '/sotruss-lib[.]so$')
	n1=$(smaps_of $D/one.smaps '/libc[.]so[.]6$' | tr ' ' '\n' | grep -c '^--xp:[1-9]')
	n2=$(smaps_of $D/two.smaps '/libc[.]so[.]6$' | tr ' ' '\n' | grep -c '^--xp:[1-9]')
	[ "$st" = 0 ] && [ "$st1" = 0 ] && [ -n "$m" ] && ! echo "$m" | grep -q -e 'r-xp' -e ':0 ' &&
		[ "$n1" -ge 1 ] && [ "$n2" = $((2 * n1)) ]
	ok $? "a child with LD_AUDIT=sotruss-lib.so:xoaudit.so: its code and its own libc's execute-only ($m; libc: $n2 execute-only mappings, $n1 with one copy; status $st)"
else
	skip "no $SOTRUSS here" "a child with LD_AUDIT=sotruss-lib.so:xoaudit.so"
fi

# --- code before main --------------------------------------------------------
early="hookctor's preinit_array entry: SEGV_PKUERR
the constructor of libhookctor.so (DT_NEEDED): SEGV_PKUERR
hookctor's constructor: SEGV_PKUERR"
$XO /bin/bash -c "$L/hookctor; exit \$?" >$D/out 2>$D/err; st=$?
sed 's/^/#   /' $D/out $D/err
[ "$st" = 0 ] && [ "$(head -n 3 $D/out)" = "$early" ] &&
	grep -Eq "^hookctor's IFUNC resolver: (SEGV_PKUERR|fault: signal 11 code 4 )" $D/out
ok $? "a child in place: its preinit_array entry, a DT_NEEDED library's constructor, its constructor and its IFUNC resolver read libc: SEGV_PKUERR (status $st)"

# --- ld.so run as the child's program ------------------------------------------
# ld.so mapped bash itself: the module must plan bash, not /proc/self/exe (ld.so).
LDSO=/lib64/ld-linux-x86-64.so.2
BASH=$(readlink -f /bin/bash)
$XO /bin/bash -c "$LDSO /bin/bash -c 'cat /proc/\$\$/maps; true'" >$D/maps 2>$D/err; st=$?
grep " $BASH\$" $D/maps | sed 's/^/#   /'
sed 's/^/#   /' $D/err
xo=$(grep " $BASH\$" $D/maps | grep -c ' --xp ')
rx=$(grep " $BASH\$" $D/maps | grep -c ' r-xp ')
[ "$st" = 0 ] && [ "$xo" -ge 1 ] && [ "$rx" = 0 ]
ok $? "a child runs $LDSO /bin/bash: bash's code execute-only, none left readable ($xo --xp, $rx r-xp, status $st)"
$XO /bin/bash -c "$LDSO $L/bigtext; exit \$?" >$D/big 2>&1; st=$?
sed 's/^/#   /' $D/big
[ "$st" = 0 ] && grep -q ' --xp ' $D/big && ! grep -q ' r-xp ' $D/big && grep -qx 'tail: SEGV_PKUERR' $D/big
ok $? "a child runs $LDSO bigtext: all of its code execute-only, a read of its last function SEGV_PKUERR (status $st)"

# --- XOLOAD_CHILDREN's values -------------------------------------------------
out=$(XOLOAD_CHILDREN=yes $XO /bin/bash -c "echo > $D/ran" 2>&1); st=$?
[ "$st" = 2 ] && [ "$out" = "xoload: XOLOAD_CHILDREN: must be inplace (the default), reexec or unset (see --help)" ] &&
	[ ! -e $D/ran ]
ok $? "XOLOAD_CHILDREN=yes: a usage error of xoload, nothing run ($out, status $st)"

out=$($XO /bin/bash -c "XOLOAD_CHILDREN=yes /usr/bin/sort -o $D/ran /dev/null; echo \$?" 2>&1); st=$?
if [ "${xonly:-0}" != 0 ]; then
	# xonly mode: the module protects the child in place and never reads XOLOAD_CHILDREN.
	[ "$st" = 0 ] && [ "$out" = 0 ] && [ -e $D/ran ]
	ok $? "XOLOAD_CHILDREN=yes set by PROG, xonly mode $xonly: not read, the child runs in place ($out, status $st)"
else
	[ "$st" = 0 ] && [ "$out" = "$(printf 'xoload: /usr/bin/sort: XOLOAD_CHILDREN must be inplace, reexec or unset: not run\n126')" ] &&
		[ ! -e $D/ran ]
	ok $? "XOLOAD_CHILDREN=yes set by PROG for its child: the child stops, 126, one line naming it ($out, status $st)"
fi

# --- where the module's path is too long for LD_AUDIT ---------------------------
# glibc's ld.so skips an LD_AUDIT entry of 255 bytes or more: xoload
# installed where its module's path is that long refuses (126, one line),
# where its children ran without the module, their code readable, and
# nothing said so.  deep_layout LEN: a copy of xoload and the module
# under $D/deep, the module's path LEN bytes long.
deep_layout() {
	dir=$D/deep
	rm -rf $D/deep
	p=$dir/lib/xoaudit.so
	while [ ${#p} -lt $(($1 - 10)) ]; do dir=$dir/dddddddd; p=$dir/lib/xoaudit.so; done
	while [ ${#p} -lt $1 ]; do dir=${dir}d; p=$dir/lib/xoaudit.so; done
	mkdir -p $dir/bin $dir/lib && cp $XO $dir/bin/xoload && cp $AUD $dir/lib/xoaudit.so
}
# /usr/bin/cat, not cat: the VM's cat is busybox's, static, with no ld.so and no module.
deep_layout 254
out=$($dir/bin/xoload /bin/bash -c "/usr/bin/cat /proc/self/maps" 2>&1); st=$?
libc=$(echo "$out" | grep -c ' --xp .*/libc\.so')
[ "$st" = 0 ] && [ "$libc" -ge 1 ] && echo "$out" | grep -q "$dir/lib/xoaudit\.so"
ok $? "xoload whose module's path has 254 bytes: a child loads the module, libc execute-only ($libc --xp, status $st)"
deep_layout 255
out=$($dir/bin/xoload /bin/bash -c "/usr/bin/cat /proc/self/maps" 2>&1); st=$?
[ "$st" = 126 ] && [ "$out" = "xoload: audit module $dir/lib/xoaudit.so: a path of 255 bytes, which ld.so ignores in LD_AUDIT (at most 254)" ]
ok $? "xoload whose module's path has 255 bytes: refused, 126, one line (status $st: $(echo "$out" | grep -c ' r-xp .*/libc\.so') r-xp libc lines, $(echo "$out" | head -n 1 | cut -c1-60)...)"
rm -rf $D/deep
tap_done
