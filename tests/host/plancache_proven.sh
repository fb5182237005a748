#!/usr/bin/env bash
# plancache_proven.sh - the proven-code rule's plans reach the run path
# through the plan cache (issue 26 step 2; xoloader/README.md, "Proven
# plans in the plan cache"), and only as the planner computed them:
#  - `xoload --update-cache --rule=proven` (xoplan executes xoplan-proven)
#    fills a cache as root; each file is a hit, and the plan the run
#    path's lookup gets (xocachetest dump) is line for line the plan
#    `xoproven --plan=tsv` computes now; files whose proven plan is the
#    FDE rule's get entries of the FDE rule, the others of the proven
#    rule (both kinds are there), and `xoload --plan` says which; a second
#    run, over two names of some files too, writes nothing;
#  - the proven entries' net pages (the safety net's, issue 26 step 3)
#    are the pages the proven plan makes execute-only and the FDE rule's
#    keeps readable, computed here again from both plans; FDE entries
#    carry none;
#  - an entry of an unknown rule id (well-formed, its checksum right) is
#    a miss, "entry of another planner"; one of format version 1 (before
#    the net pages) a miss, "entry of another format version", and its
#    file planned again by --update-cache without a PATH;
#  - `--update-cache` without --rule over the same files makes them FDE
#    entries again, byte-identical to rtplan_build()'s plans;
#  - --rule=other and --rule without --update-cache: status 2, one line;
#    another user than root: status 1, one line;
#  - the safety invariant (tools/proven.h, check_*): over the same files
#    `xoproven --check` finds no page the proven plan makes execute-only
#    that is not execute-only under the FDE rule or all code and padding,
#    none it keeps readable without a seen read, none read and execute-only.
# Files: the guest test's programs and their libraries, and the objects
# the proven rule changes most, those that exist here; XO_PROVEN_ALL=1:
# every ELF file of /usr/lib/x86_64-linux-gnu and /usr/bin, as
# plancache.sh takes them (minutes).  Root only (the cache is root's),
# else skipped.  Needs make guest host-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init plancache-proven
xoplan=$top/build/guest/lib/xoplan
xoload=$top/build/guest/bin/xoload
t=$top/build/host/xocachetest
xoproven=$top/build/host/xoproven
for f in "$xoplan" "$xoplan-proven" "$xoload" "$t" "$xoproven"; do
	[ -x "$f" ] || tap_bail "$f exists (make guest host-tools)"
done
if [ "$(id -u)" != 0 ]; then
	skip "needs root" "the plan cache is written by root only"
	tap_done
	exit 0
fi
w=$(mktemp -d "$top/build/plancache-proven.XXXXXX")
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
c=$w/cache
export XOLOAD_CACHE_DIR=$c

# The reader trusts no chain of directories others can write (as
# plancache.sh): a checkout under one (a clone in /tmp) cannot hold it.
err=$(nice -n 10 "$xoplan" --update-cache /usr/bin/true 2>&1 >/dev/null)
if [[ $err == *"writable by others than root"* ]]; then
	skip "$c: $err" "the cache needs a directory chain only root can write"
	tap_done
	exit 0
fi
rm -rf "$c"

L=/usr/lib/x86_64-linux-gnu
if [ -n "${XO_PROVEN_ALL:-}" ]; then
	{ find $L -maxdepth 1 -name '*.so*'; find /usr/bin -maxdepth 1 -type f; } >"$w/names"
else
	for f in /usr/bin/openssl /usr/bin/python3 /usr/bin/gzip /usr/bin/xz /usr/bin/zstd /usr/bin/bzip2 \
		/lib64/ld-linux-x86-64.so.2 $L/libc.so.6 $L/libm.so.6 $L/libcrypto.so.3 $L/libssl.so.3 \
		$L/libz.so.1 $L/liblzma.so.5 $L/libzstd.so.1 $L/libbz2.so.1.0 $L/libffi.so.8 $L/libgcrypt.so.20 \
		$L/libGL.so.1 $L/libnettle.so.8 $L/libgmp.so.10 $L/libjpeg.so.62; do
		[ -e "$f" ] && readlink -f "$f"
	done | sort -u >"$w/names"
	# Second names of a file of each kind of entry: a run over them all
	# finds every entry current (a link's entry is the file's).
	ln -s "$(readlink -f $L/libc.so.6)" "$w/libc-link" && ln -s /usr/bin/gzip "$w/gzip-link" &&
		printf '%s\n' "$w/libc-link" "$w/gzip-link" >>"$w/names"
fi
# Only what both planners take (x86-64 executables and shared objects
# the FDE rule can plan): xoproven prints a plan for those alone.
nice -n 10 "$xoproven" --plan=tsv - <"$w/names" 2>"$w/fresh" >/dev/null
cut -f1 "$w/fresh" | uniq >"$w/files"
nfiles=$(wc -l <"$w/files")
[ "$nfiles" -ge 10 ] || tap_bail "at least 10 objects to plan here ($nfiles)"

# 1. Written with the proven rule: every file a hit, its plan the fresh proven plan.
out=$(nice -n 10 "$xoload" --update-cache --rule=proven $(cat "$w/files") 2>"$w/err"); st=$?
head -n 3 "$w/err" | sed 's/^/# /'
[ "$st" = 0 ] && [[ $out == *" written, "*"proven rule: "* ]]
ok $? "xoload --update-cache --rule=proven of $nfiles objects: status $st ($out)"
"$t" dump "$c" - <"$w/files" >"$w/cached" 2>"$w/rules"
misses=$(grep -vc $'\thit\t' "$w/rules")
nprov=$(grep -c $'\thit\tproven$' "$w/rules")
nfde=$(grep -c $'\thit\tfde$' "$w/rules")
[ "$misses" = 0 ]
ok $? "every object is a hit ($nprov entries of the proven rule, $nfde of the FDE rule, $misses misses)"
diff "$w/fresh" "$w/cached" >"$w/diff"
ok $? "each cached plan is the plan xoproven computes now, line for line ($(wc -l <"$w/cached") lines$(
	[ -s "$w/diff" ] && echo "; first difference: $(head -n 2 "$w/diff" | tr '\n' ' ')"))"
[ "$nprov" -ge 1 ] && [ "$nfde" -ge 1 ]
ok $? "objects the proven rule changes get its entries ($nprov), the others the FDE rule's ($nfde)"
# The FDE entries are the objects whose two plans are the same.
same=0
while IFS=$'\t' read -r f _ rule; do
	[ "$rule" = fde ] || continue
	"$t" compare "$c" "$f" >/dev/null || { same=1; echo "# not the FDE rule's plan: $f"; }
done <"$w/rules"
ok $same "each FDE rule's entry is byte-identical to rtplan_build()'s plan (xocachetest compare)"
# Net pages (the safety net, issue 26 step 3): each proven entry carries
# exactly the pages its plan makes execute-only and the FDE rule's keeps
# readable, computed here again from the two plans (xoproven's, and
# rtplan_build()'s through a lookup in a directory without entries);
# the FDE rule's entries carry none.
"$t" dump "$w/nocache" - <"$w/files" >"$w/fdeplan" 2>/dev/null
# expect_net PROVEN FDE: "FILE\t0xSTART\t0xEND" of each merged run of such pages.
expect_net() {
	local -A fx=()
	local f s e x a last= cur= start=0 end=0
	while IFS=$'\t' read -r f s e x _; do
		[ "$x" = xo ] || continue
		for ((a = 16#$s; a < 16#$e; a += 4096)); do fx[$f:$a]=1; done
	done <"$2"
	while IFS=$'\t' read -r f s e x _; do
		[ "$x" = xo ] || continue
		grep -q "^$f"$'\thit\tproven$' "$w/rules" || continue
		for ((a = 16#$s; a < 16#$e; a += 4096)); do
			[ -n "${fx[$f:$a]:-}" ] && continue
			if [ "$cur" = "$f" ] && [ "$end" = "$a" ]; then
				end=$((a + 4096))
				continue
			fi
			[ -n "$cur" ] && printf '%s\t%#x\t%#x\n' "$cur" "$start" "$end"
			cur=$f start=$a end=$((a + 4096))
		done
	done <"$1"
	[ -n "$cur" ] && printf '%s\t%#x\t%#x\n' "$cur" "$start" "$end"
	return 0
}
expect_net "$w/fresh" "$w/fdeplan" >"$w/net.want"
"$t" net "$c" - <"$w/files" >"$w/net.got"
nnet=$(wc -l <"$w/net.got")
diff "$w/net.want" "$w/net.got" >"$w/net.diff"
[ "$nnet" -ge 1 ] && [ ! -s "$w/net.diff" ]
ok $? "the proven entries' net pages are the pages only the proven rule makes execute-only ($nnet ranges in $(cut -f1 "$w/net.got" | sort -u | wc -l) objects$(
	[ -s "$w/net.diff" ] && echo "; first difference: $(head -n 3 "$w/net.diff" | tr '\n' ' ')"))"
nf=0
while IFS=$'\t' read -r f _ rule; do
	[ "$rule" = fde ] && grep -q "^$f"$'\t' "$w/net.got" && nf=$((nf + 1))
done <"$w/rules"
[ "$nf" = 0 ]
ok $? "no FDE rule's entry carries net pages ($nf do)"
p=$(grep -m1 $'\thit\tproven$' "$w/rules" | cut -f1)
"$xoload" --plan=tsv --no-deps "$p" >"$w/plan" 2>"$w/err"; st=$?
[ "$st" = 0 ] && grep -q "^xoload: plan cache: $p: the proven-code rule's plan$" "$w/err" &&
	diff <(grep "^$p"$'\t' "$w/plan") <(grep "^$p"$'\t' "$w/fresh") >/dev/null
ok $? "xoload --plan $p: the proven plan, and its report names the rule ($(grep -m1 'plan cache' "$w/err"))"
out=$(nice -n 10 "$xoload" --update-cache --rule=proven $(cat "$w/files") 2>&1); st=$?
[ "$st" = 0 ] && [[ $out == *": 0 written, $nfiles current,"* ]]
ok $? "run again: every entry current, nothing written (status $st: $out)"

# 2. An entry of a rule id neither rule has is a miss.
"$t" set-rule "$c" "$p" "proven-llvm14-0000000000000000"
r=$("$t" lookup "$c" "$p" 2>&1)
[[ $r == *"miss: entry of another planner (rule id)" ]]
ok $? "an entry of an unknown rule id, checksum right: a miss ($r)"
r=$(XOLOAD_CACHE_VERBOSE=1 "$xoload" --plan=tsv --no-deps "$p" 2>&1 >/dev/null | grep -m1 "plan cache: $p")
[[ $r == *": miss: entry of another planner (rule id)"* ]]
ok $? "and the run path plans it itself ($r)"

# 2b. An entry of the format before the net pages (version 1, as that
# xoload wrote it) is a miss, and the next --update-cache plans its file
# again (an upgrade of xoload keeps the cache's files).
out=$(nice -n 10 "$xoload" --update-cache --rule=proven "$p" 2>&1)
"$t" set-version "$c" "$p" 1
r=$("$t" lookup "$c" "$p" 2>&1)
[[ $r == *"miss: entry of another format version" ]]
ok $? "an entry of format version 1, checksum right: a miss ($r)"
out=$(nice -n 10 "$xoload" --update-cache 2>&1); st=$?
r=$("$t" lookup "$c" "$p" 2>&1)
[ "$st" = 0 ] && [[ $out == *", 1 pruned, 1 planned again"* ]] && [[ $r == *": hit" ]]
ok $? "--update-cache without a PATH plans its file again ($out; $r)"

# 3. Back to the FDE rule: every entry the FDE rule's, its plan rtplan_build()'s.
out=$(nice -n 10 "$xoload" --update-cache $(cat "$w/files") 2>&1); st=$?
sum=$(nice -n 10 "$t" compare "$c" - <"$w/files" | tail -n 1)
[ "$st" = 0 ] && [[ $sum == "$nfiles files, $nfiles hits identical"* ]]
ok $? "--update-cache without --rule: all FDE entries again ($sum)"

# 4. Usage.
for args in "--update-cache --rule=other /usr/bin/true" "--rule=proven --plan /usr/bin/true"; do
	msg=$("$xoload" $args 2>&1); st=$?
	[ "$st" = 2 ] && [ "$(echo "$msg" | wc -l)" = 1 ]
	ok $? "xoload $args: status $st, one line ($msg)"
done

st=0
msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$xoplan" --update-cache --rule=proven /usr/bin/true 2>&1) || st=$?
[ "$st" = 1 ] && [ "$(echo "$msg" | wc -l)" = 1 ] && [[ $msg == *"only root writes the plan cache"* ]]
ok $? "--update-cache --rule=proven as another user: status $st, one line ($msg)"

# 5. The invariant, over the same objects.
sum=$(nice -n 10 "$xoproven" --check - <"$w/files" | tee "$w/check" | tail -n 1); st=$?
grep -v 'violations=0' "$w/check" | grep -v '^check-total' | head -n 5 | sed 's/^/# /'
[[ $sum == *"violations 0 in 0 objects" ]] && [[ $sum == *"objects $nfiles"* ]]
ok $? "the proven plans keep the invariant against the FDE rule's ($sum)"
tap_done
