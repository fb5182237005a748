#!/bin/sh
# coreutils.sh - real Debian programs (ls, sort, sha256sum, cat, wc, bash)
# give byte-identical output and status under xoload and natively, and
# under xoload their code is execute-only: every executable mapping of a
# process run under xoload, bar the vDSO and the ranges its --report keeps
# readable (data in text), has a non-zero protection key.
XO=/xonly/bin/xoload
# Debian's programs by full path: on PATH, busybox applets come first.
ls=/usr/bin/ls sort=/usr/bin/sort sha256sum=/usr/bin/sha256sum cat=/usr/bin/cat wc=/usr/bin/wc bash=/bin/bash
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - xoload: $2"; else echo "not ok $n - xoload: $2"; fail=1; fi; }
cd /tmp || exit 1
mkdir -p xo-data && cd xo-data || exit 1
i=0; while [ $i -lt 300 ]; do echo "line $(( (i * 7919) % 1000 )) $i"; i=$((i + 1)); done >input.txt
dd if=/dev/urandom of=blob bs=64k count=16 2>/dev/null
cat >script.bash <<'EOF'
fib() { local n=$1; if [ "$n" -lt 2 ]; then echo "$n"; else echo $(( $(fib $((n - 1))) + $(fib $((n - 2))) )); fi; }
declare -A seen
for w in a b c a b a; do seen[$w]=$(( ${seen[$w]:-0} + 1 )); done
for k in a b c; do printf '%s=%s\n' "$k" "${seen[$k]}"; done
echo "fib 12 = $(fib 12)"
( cd / && echo "subshell in $PWD" ); echo "back in ${PWD##*/}"
seq_sum=0; for ((i = 1; i <= 100; i++)); do seq_sum=$((seq_sum + i)); done; echo "sum $seq_sum"
/usr/bin/sort -n -k2 input.txt | head -n 5 | /usr/bin/wc -l
/usr/bin/cat input.txt | while read -r a b c; do echo "$b"; done | /usr/bin/sort -u | /usr/bin/wc -l
exit 7
EOF
# same CMD... : run natively and under xoload, compare stdout, stderr, status
same() {
	"$@" >native.out 2>native.err; s1=$?
	$XO "$@" >xo.out 2>xo.err; s2=$?
	cmp -s native.out xo.out && cmp -s native.err xo.err && [ "$s1" = "$s2" ]
	r=$?
	ok $r "'$*': identical output and status ($s1) natively and under xoload ($(wc -c <xo.out) bytes)"
	if [ $r != 0 ]; then
		echo "# status $s1 natively, $s2 under xoload; diff native xoload:"
		diff native.out xo.out | head -n 10 | sed 's/^/#   /'
		diff native.err xo.err | head -n 10 | sed 's/^/#   /'
	fi
}
# --time-style=+ drops the times: a minute boundary between the two runs
# must not count as a difference (it did, once, in CI).
same $ls -la --color=never --time-style=+ /xonly /usr /etc
same $ls -R /xonly/lib
same $sort -k2 -n input.txt
same $sort -r input.txt
same $sha256sum blob input.txt
same $cat input.txt blob
same $wc input.txt blob
same $ls /nonexistent
same $bash ./script.bash
same $bash -c 'for i in 1 2 3; do echo $i | /usr/bin/cat; done | /usr/bin/wc -l; f() { return 3; }; f; echo $?'
# Code of each of them, run under xoload, is execute-only: the program
# blocks on a fifo while its /proc/PID/smaps is read from outside.
mkfifo ff
# smaps_of in|out CMD...: run CMD under xoload with stdin (or stdout) on ff
smaps_of() {
	dir=$1; shift
	if [ "$dir" = in ]; then $XO --report=tsv "$@" <ff >/dev/null 2>rep.tsv & pid=$!; exec 3>ff
	else $XO --report=tsv "$@" >ff 2>rep.tsv & pid=$!; exec 3<ff; fi
	t=0
	# loaded: libc mapped and the process asleep on the fifo
	while [ $t -lt 100 ]; do
		grep -q 'libc.so.6' /proc/$pid/maps 2>/dev/null && grep -q '^State:.*S' /proc/$pid/status && break
		sleep 0.1; t=$((t + 1))
	done
	cat /proc/$pid/smaps >smaps 2>/dev/null
	exec 3>&-
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
}
for p in ls sort sha256sum cat wc bash; do
	case $p in
	ls) smaps_of out /usr/bin/ls -laR / ;;
	bash) smaps_of in /bin/bash ;;
	*) smaps_of in /usr/bin/$p ;;
	esac
	# executable mappings: "addr perms offset dev inode path", then ProtectionKey
	# (xoload's own image included: it makes its code execute-only too).  A
	# readable one must be a range the plan keeps readable (--report: data
	# in text, e.g. libc's CFI-less clone child path).  [vsyscall] --xp with
	# key 0 is the legacy vsyscall page of a stock kernel's default
	# vsyscall=xonly: no page at all, a read faults and a call is emulated
	# by the kernel (the VM's kernel has none); r-xp there (vsyscall=emulate)
	# is readable and counts.
	bad=$(awk -F'\t' 'function h(x,  i, v) { v = 0; for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return v }
		FNR == NR { if ($4 == "readable") { ra[++nr] = h($2); rb[nr] = h($3) } next }
		{ split($0, f, " ") }
		/^[0-9a-f]+-[0-9a-f]+ / { perm = f[2]; name = f[6]; split(f[1], ab, "-"); a = h(ab[1]); b = h(ab[2]) }
		/^ProtectionKey:/ { if (perm ~ /x/ && name != "[vdso]" && !(name == "[vsyscall]" && perm == "--xp") && (f[2] == 0 || perm ~ /^r/)) {
			# [a, b) must be covered by readable ranges (adjacent ones too)
			x = a; do { moved = 0; for (i = 1; i <= nr; i++) if (x >= ra[i] && x < rb[i]) { x = rb[i]; moved = 1 } } while (moved && x < b)
			if (x < b || perm != "r-xp" || f[2] != 0) print name, perm, f[2] } }' rep.tsv smaps)
	xo=$(awk '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (perm == "--xp" && $2 != 0) c++ } END { print c + 0 }' smaps)
	own=$(awk -v p="/$p\$" '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (name ~ p && perm == "--xp" && $2 != 0) c++ } END { print c + 0 }' smaps)
	[ -z "$bad" ] && [ "$xo" -ge 3 ] && [ "$own" -ge 1 ]
	ok $? "$p under xoload: $xo execute-only code mappings ($own of $p itself), none readable or key 0 except the vDSO${bad:+ (bad: $bad)}"
done
# Inheritance: a child bash execs is run under xoload too (default)...
$XO /bin/bash -c '/usr/bin/cat /proc/self/smaps' >smaps
k=$(awk '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (name ~ /\/cat$/ && perm == "--xp") print $2 }' smaps | head -n 1)
[ -n "$k" ] && [ "$k" != 0 ]
ok $? "a program exec'd by a program under xoload is execute-only too (cat's code key ${k:-none})"
# ...and not with --no-inherit.
$XO --no-inherit /bin/bash -c '/usr/bin/cat /proc/self/smaps' >smaps
k=$(awk '/^[0-9a-f]+-[0-9a-f]+ /{perm=$2; name=$6} /^ProtectionKey:/{ if (name ~ /\/cat$/ && perm ~ /x/) print perm $2 }' smaps | head -n 1)
[ "$k" = r-xp0 ]
ok $? "--no-inherit: the exec'd cat runs normally (its code: ${k:-none})"
echo "1..$n"
exit $fail
