#!/bin/sh
# thp.sh - xoload's and its audit module's .bss stay on small pages
# (run/sys.h, rt_bss_small_pages()).  Their .bss holds 3.5 MB and 2 MB of
# static buffers of which a run writes a few pages.  Where transparent
# huge pages are "always" (Debian's kernels, this VM's), the first write
# into a 2 MB-aligned stretch of it faulted in a whole huge page and
# cleared it: in about half of xoload's starts, 4-8 ms under TCG and 2 MB
# kept in every process run under it.  Proves, in the smaps of PROG run
# under xoload (Debian's cat reading /proc/self/smaps), 4 runs each since
# the load address varies:
#   - the anonymous mapping that follows xoload's image (its .bss; the
#     image stays in PROG under both mechanisms) carries VmFlags "nh"
#     (MADV_NOHUGEPAGE) and no AnonHugePages;
#   - under the audit module (XOLOAD_HOOK=0), the same of the anonymous
#     mapping that follows xoaudit.so's image.
# The flag is the proof: a huge page is only faulted in where a 2 MB
# stretch fits, so AnonHugePages alone would pass by chance.
. /xonly/lib/tap.sh
tap_init xoload-thp
XO=/xonly/bin/xoload
cat=/usr/bin/cat
D=/tmp/xothp
rm -rf $D && mkdir -p $D

# bss SMAPS OBJ: "nh AHP" of the anonymous mapping right after the last
# mapping of a file whose path ends in /OBJ ("no-nh AHP" without the
# flag), or "none" if there is none.  Only that one: the anonymous
# mappings after it may be anybody's (ld.so puts its own there), so a
# .bss whose tail the range left out would pass here; the range is the
# linker's own __bss_start and _end (run/sys.h).
bss() {
	awk -v obj="/$2" '
	/^[0-9a-f]+-[0-9a-f]+ / {
		split($1, r, "-")
		inbss = after != "" && r[1] == after && NF == 5
		if (inbss) { found = 1; nh = "no-nh"; ahp = "?" }
		after = (NF >= 6 && substr($6, length($6) - length(obj) + 1) == obj) ? r[2] : ""
		next
	}
	inbss && /^VmFlags:/ { for (i = 2; i <= NF; i++) if ($i == "nh") nh = "nh" }
	inbss && /^AnonHugePages:/ { ahp = $2 }
	END { if (found) print nh, ahp; else print "none" }' "$1"
}

thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
diag "transparent huge pages: ${thp:-not in this kernel}"
# Without THP in the kernel madvise() says EINVAL and sets no flag: nothing to prove.
no_thp=
[ -n "$thp" ] || no_thp="no transparent huge pages in this kernel"

$cat /proc/self/smaps >$D/native 2>&1
grep -q '^VmFlags:' $D/native
ok $? "control: a native cat's smaps has the VmFlags lines the rows read"

# rows HOOK OBJ WHAT: 4 runs of cat under xoload with XOLOAD_HOOK=HOOK.
rows() {
	if [ -n "$no_thp" ]; then
		skip "$no_thp" "$3: the mapping after $2 is MADV_NOHUGEPAGE"
		return
	fi
	i=0 bad=
	while [ $i -lt 4 ]; do
		i=$((i + 1))
		XOLOAD_HOOK=$1 $XO $cat /proc/self/smaps >$D/smaps 2>$D/err; st=$?
		got=$(bss $D/smaps "$2")
		[ "$st" = 0 ] && [ "$got" = "nh 0" ] || bad="$bad run $i: status $st, '$got';"
	done
	[ -z "$bad" ]
	ok $? "$3: the mapping after $2 is MADV_NOHUGEPAGE with no huge page, 4 runs${bad:+ ($bad $(head -c 200 $D/err))}"
}
rows "" xoload "xoload's .bss, by default"
rows 0 xoaudit.so "the module's .bss, XOLOAD_HOOK=0"
tap_done
