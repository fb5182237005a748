#!/usr/bin/env bash
# plancache.sh - the plan cache (xoloader/run/plancache.c, issue 23) can
# never serve a stale or untrusted plan, and serves the same plan:
#  - filled by the real writer (xoplan --update-cache) for every ELF file
#    of /usr/lib/x86_64-linux-gnu and /usr/bin, each cached plan is
#    byte-identical to what rtplan_build() computes now (0 differences,
#    0 misses), and a perturbed plan is seen as a difference;
#  - a file changed after it was cached - rewritten, touched, rewritten
#    in place with the same size and its mtime put back, replaced by a
#    rename - is a miss (the run path's lookup, xocachetest lookup), and
#    so is a file others than root can write;
#  - the racy-git rule: a file changed less than 2 s before planning, or
#    with a timestamp in the future, gets no entry (--no-wait);
#  - entries that are damaged, not root's, or in a directory others can
#    write are misses; --plan says why in its report and plans as without;
#  - a file open for writing while it would be planned - an fd, or a
#    shared writable mapping whose dirty pages change neither mtime nor
#    ctime - gets no entry (the writer's read lease);
#  - the writer removes nothing of a cache directory but its own entries
#    and temporary files, and two writers at once both succeed;
#  - a cache directory below a symbolic link, or relative: refused, and
#    nothing created (the writer's mkdir -p follows no link);
#  - --update-cache without a PATH plans again the file of a stale entry
#    (replaced by a rename: a hit again), and only prunes a deleted one;
#  - only root writes: --update-cache as another user fails with one line;
#  - 10,000 fuzzed entries through the reader (xocachetest fuzz).
# Writes a cache under build/ (its directories must be root's and not
# group/other-writable, as the reader demands).  Runs as root (the cache
# is root's by design), else skipped.  Needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init plancache
xoplan=$top/build/guest/lib/xoplan
xoload=$top/build/guest/bin/xoload
t=$top/build/host/xocachetest
for f in "$xoplan" "$xoload" "$t"; do
	[ -x "$f" ] || tap_bail "$f exists (make guest host-tools)"
done
if [ "$(id -u)" != 0 ]; then
	skip "needs root" "the plan cache is written by root only"
	tap_done
	exit 0
fi
w=$(mktemp -d "$top/build/plancache-test.XXXXXX")
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
c=$w/cache
export XOLOAD_CACHE_DIR=$c
update() { nice -n 10 "$xoplan" --update-cache "$@"; }
look() { "$t" lookup "$c" "$1" 2>&1; }

# The reader trusts no chain of directories others can write: a checkout
# under one cannot hold the test's cache.
err=$(update /usr/bin/true 2>&1 >/dev/null)
if [[ $err == *"writable by others than root"* ]]; then
	skip "$c: $err" "the cache needs a directory chain only root can write"
	tap_done
	exit 0
fi

# 1. Every ELF file of the directories: cached plan == fresh plan.
out=$(update /usr/lib/x86_64-linux-gnu /usr/bin 2>&1 >/dev/null | head -n 5)
[ -z "$out" ] || diag "writer: $out"
sum=$( { find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name '*.so*'; find /usr/bin -maxdepth 1 -type f; } |
	nice -n 10 "$t" compare "$c" - | tee "$w/compare" | tail -n 1)
grep -E '^(MISS|DIFF)' "$w/compare" | head -n 5 | sed 's/^/# /'
hits=$(echo "$sum" | sed -n 's/^[0-9]* files, \([0-9]*\) hits.*/\1/p')
[[ $sum == *" 0 misses, 0 differences"* ]] && [ "${hits:-0}" -ge 500 ]
ok $? "every cached plan of /usr/lib/x86_64-linux-gnu and /usr/bin is byte-identical to a fresh one: $sum"
"$t" compare "$c" -p /usr/bin/true | grep -q '^DIFF /usr/bin/true'
ok $? "the comparison can fail: a perturbed cached plan is a difference"

# 2. A changed file is a miss.
p=$w/prog
cp /usr/bin/true "$p"
update "$p" >/dev/null 2>&1
look "$p" | grep -q ': hit$'
ok $? "a copy of /usr/bin/true, cached: a hit ($(look "$p"))"
cp /usr/bin/false "$p"
r=$(look "$p")
[[ $r == *"miss: stale entry"* ]]
ok $? "rewritten (cp over it): a miss ($r)"
update "$p" >/dev/null 2>&1
touch "$p"
r=$(look "$p")
[[ $r == *"miss: stale entry"* ]]
ok $? "touched: a miss ($r)"
update "$p" >/dev/null 2>&1
cp -p "$p" "$w/ref"
size=$(stat -c %s "$p")
# One byte of .text changed in place, the size kept, the mtime put back: only ctime tells.
off=$(( 0x$(readelf -SW "$p" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" { print $4 }') + 16 ))
printf '\xcc' | dd of="$p" bs=1 seek="$off" conv=notrunc status=none
touch -r "$w/ref" "$p"
r=$(look "$p")
[ "$(stat -c %s "$p")" = "$size" ] && [ "$(stat -c %Y "$p")" = "$(stat -c %Y "$w/ref")" ] &&
	! cmp -s "$p" "$w/ref" && [[ $r == *"miss: stale entry"* ]]
ok $? "rewritten in place, same size, mtime restored: a miss ($r)"
update "$p" >/dev/null 2>&1
cp "$p" "$w/new" && mv "$w/new" "$p"
r=$(look "$p")
[[ $r == *"miss: no entry"* ]]
ok $? "replaced by a rename (another inode): a miss ($r)"
update "$p" >/dev/null 2>&1
chmod o+w "$p"
r=$(look "$p")
[[ $r == *"miss: not cached: a file others than root can change"* ]]
ok $? "made writable by others: a miss ($r)"
update "$p" >/dev/null 2>"$w/err"; st=$?
[ "$st" = 1 ] && grep -q "not cached: others than root can change it" "$w/err"
ok $? "and not cached: status $st, $(head -n 1 "$w/err")"
chmod o-w "$p"

# 3. The racy-git rule.
cp /usr/bin/true "$w/racy"
update --no-wait "$w/racy" >/dev/null 2>"$w/err"; st=$?
r=$(look "$w/racy")
[ "$st" = 1 ] && grep -q "changed less than 2 s before planning" "$w/err" && [[ $r == *"miss: no entry"* ]]
ok $? "a file changed just before planning: no entry (status $st, $(head -n 1 "$w/err"))"
update "$w/racy" >/dev/null 2>&1
look "$w/racy" | grep -q ': hit$'
ok $? "without --no-wait the writer waits until it is 2 s old: a hit"
cp /usr/bin/true "$w/future" && touch -d '+1 hour' "$w/future"
update "$w/future" >/dev/null 2>"$w/err"; st=$?
[ "$st" = 1 ] && grep -q "in the future" "$w/err" && [[ $(look "$w/future") == *"miss: no entry"* ]]
ok $? "a file with an mtime in the future: no entry (status $st)"

# 4. Entries and directories that cannot be trusted, damaged entries.
update /usr/bin/true >/dev/null 2>&1
e=$c/$(printf '%x-%x' "$(stat -L -c %d /usr/bin/true)" "$(stat -L -c %i /usr/bin/true)")
[ -f "$e" ]
ok $? "the entry of /usr/bin/true is named DEV-INO ($e)"
chown 65534 "$e"
r=$(look /usr/bin/true)
[[ $r == *"entry not root's"* ]]
ok $? "an entry not owned by root: a miss ($r)"
chown 0 "$e"
chmod g+w "$c"
r=$(look /usr/bin/true)
[[ $r == *"writable by others than root"* ]]
ok $? "a cache directory others can write: a miss ($r)"
chmod 755 "$c"
chmod o+w "$w"
r=$(look /usr/bin/true)
[[ $r == *"writable by others than root"* ]]
ok $? "a directory above it that others can write: a miss ($r)"
chmod 755 "$w"
look /usr/bin/true | grep -q ': hit$'
ok $? "all of it put right: a hit again"
cp "$e" "$w/entry"
for cut in 0 100 200; do
	head -c "$cut" "$w/entry" >"$e"
	r=$(look /usr/bin/true)
	[[ $r == *"miss: damaged entry"* ]]
	ok $? "an entry cut to $cut bytes: a miss ($r)"
done
{ cat "$w/entry"; head -c 600000 /dev/zero; } >"$e"
r=$(look /usr/bin/true)
[[ $r == *"miss: damaged entry (too large)"* ]]
ok $? "an oversized entry: a miss ($r)"
cp "$w/entry" "$e"
printf '\x01' | dd of="$e" bs=1 seek=200 conv=notrunc status=none
"$xoload" --plan=tsv --no-deps /usr/bin/true >"$w/plan" 2>"$w/err"; st=$?
"$xoload" --no-cache --plan=tsv --no-deps /usr/bin/true >"$w/plan0" 2>/dev/null
[ "$st" = 0 ] && cmp -s "$w/plan" "$w/plan0" &&
	grep -q "^xoload: plan cache: /usr/bin/true: damaged entry (checksum): planned again" "$w/err"
ok $? "--plan with a damaged entry: the same plan as --no-cache, and its report says why ($(head -n 1 "$w/err"))"

# 5. Writers: files open for writing, other files in the directory, two at once.
cp /usr/bin/true "$w/held"
exec 9<>"$w/held"
update "$w/held" >/dev/null 2>"$w/err"; st=$?
exec 9>&-
[ "$st" = 1 ] && grep -q "not cached: open for writing" "$w/err" && [[ $(look "$w/held") == *"miss: no entry"* ]]
ok $? "a file open for writing elsewhere: no entry (status $st, $(head -n 1 "$w/err"))"
if command -v python3 >/dev/null; then
	# Its pages dirty before planning: later writes through it move no timestamp.
	python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "r+b"); m = mmap.mmap(f.fileno(), 0); f.close()
m[0:4] = m[0:4]; print("mapped", flush=True); time.sleep(60)' "$w/held" >"$w/py" &
	py=$!
	for _ in $(seq 50); do grep -q mapped "$w/py" && break; sleep 0.1; done
	update "$w/held" >/dev/null 2>"$w/err"; st=$?
	kill $py; wait $py 2>/dev/null
	[ "$st" = 1 ] && grep -q "not cached: open for writing" "$w/err" &&
		[[ $(look "$w/held") == *"miss: no entry"* ]]
	ok $? "a file mapped shared and writable (fd closed): no entry (status $st, $(head -n 1 "$w/err"))"
else
	skip "no python3" "a shared writable mapping without its fd"
fi
update "$w/held" >/dev/null 2>&1
look "$w/held" | grep -q ': hit$'
ok $? "the same file with no writer left: a hit"
echo keep >"$c/config" && mkdir -p "$c/sub" && echo keep >"$c/.hidden"
update /usr/bin/true >/dev/null 2>&1
[ -f "$c/config" ] && [ -d "$c/sub" ] && [ -f "$c/.hidden" ]
ok $? "files of the cache directory that are not entries survive an update (a wrong XOLOAD_CACHE_DIR loses nothing)"
rm -rf "$c/config" "$c/sub" "$c/.hidden"
# The cache directory's path through a symbolic link, or relative: refused
# before anything is created (root's mkdir -p followed links).
mkdir "$w/elsewhere" && ln -s "$w/elsewhere" "$w/link"
err=$(XOLOAD_CACHE_DIR=$w/link/sub/cache update 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ -z "$(ls -A "$w/elsewhere")" ] && [ "$(echo "$err" | wc -l)" = 1 ] &&
	[[ $err == *": cannot create it: a symbolic link in its path" ]]
ok $? "a cache directory below a symbolic link: refused, nothing created where it points (status $st: $err)"
err=$(cd "$w" && XOLOAD_CACHE_DIR=rel/cache update 2>&1 >/dev/null); st=$?
[ "$st" = 1 ] && [ ! -e "$w/rel" ] && [[ $err == *"not an absolute path" ]]
ok $? "a relative cache directory: refused, nothing created (status $st: $err)"
# A writer filling a new cache while others prune it (run with no PATH)
# over and over: without the lock a prune takes the filler's .tmp.* file
# for an interrupted write's and the filler's rename fails.
c2=$w/cache2
( export XOLOAD_CACHE_DIR=$c2; update /usr/lib/x86_64-linux-gnu >/dev/null 2>"$w/err1" ) & p1=$!
st1=0 st2=0 rounds=0
while kill -0 $p1 2>/dev/null && [ $rounds -lt 200 ]; do
	XOLOAD_CACHE_DIR=$c2 update >/dev/null 2>>"$w/err2" || st2=$?
	rounds=$((rounds + 1))
done
wait $p1 || st1=$?
n=$(find "$c2" -maxdepth 1 -name '*-*' | wc -l)
[ "$st1" = 0 ] && [ "$st2" = 0 ] && [ "$n" -ge 100 ] && ! grep -q "cannot" "$w/err1" "$w/err2"
ok $? "two writers at once: a filler and $rounds prunes, all status 0 ($st1, $st2), $n entries ($(grep -h cannot "$w/err1" "$w/err2" | head -n 1))"

# 5b. Without a PATH: the files of stale entries planned again (a library upgrade).
cp /usr/bin/true "$w/up"
update "$w/up" >/dev/null 2>&1
cp /usr/bin/false "$w/new" && mv "$w/new" "$w/up"
r=$(look "$w/up")
out=$(update 2>&1); st=$?
[[ $r == *"miss: no entry"* ]] && [ "$st" = 0 ] && look "$w/up" | grep -q ': hit$' && [[ $out == *" planned again" ]]
ok $? "--update-cache without a PATH: a file replaced since it was cached ($r) is planned again, a hit (status $st: $out)"
rm "$w/up"
out=$(update 2>&1); st=$?
[ "$st" = 0 ] && [[ $out == *" 0 written, "*" 0 planned again" ]] && [[ $out != *" 0 pruned,"* ]]
ok $? "and once deleted, only pruned (status $st: $out)"

# 6. Only root writes.
st=0
msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$xoplan" --update-cache /usr/bin/true 2>&1) || st=$?
[ "$st" = 1 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && [[ $msg == *"only root writes the plan cache"* ]]
ok $? "--update-cache as another user: status $st, one line ($msg)"
out=$("$xoload" --update-cache /usr/bin/true 2>&1); st=$?
[ "$st" = 0 ] && [[ $out == "xoload: plan cache $c: "*" current"* ]]
ok $? "xoload --update-cache is xoplan's (status $st: $out)"

# 7. The reader, fuzzed.
l=$top/build/guest/lib/xoload
mkdir -p "$w/fuzz"
out=$(nice -n 10 "$t" fuzz -n 10000 -s 1 "$w/fuzz" /usr/lib/x86_64-linux-gnu/libc.so.6 "$l/hello" \
	"$l/hello-nosep" "$l/libtextrel.so" 2>&1); st=$?
sum=$(echo "$out" | tail -n 1)
echo "$out" | grep '^FAIL' | head -n 5 | sed 's/^/# /'
[ "$st" = 0 ] && [[ $sum == "10000 mutants"*" 0 failures" ]]
ok $? "10,000 fuzzed entries: no crash, nothing but canonical entries accepted ($sum)"
tap_done
