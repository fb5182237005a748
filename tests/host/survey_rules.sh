#!/usr/bin/env bash
# survey_rules.sh - scripts/survey-rules, the survey by rule of make bench
# (issue 26): its totals are xoproven's on the same objects whatever the
# number of parts; it counts each inode once and only regular ELF files
# under the DIRs (not a symlink, a second hard link, a text file, a file
# outside the DIR or one that is gone); /bin/NAME in a package's file
# list is /usr/bin/NAME on a merged-/usr system; the packages that count
# are those a debian.org source carries in any version, not those whose
# only source is dpkg's status file (a fake dpkg-query and apt-cache on
# PATH); with none it fails with a line; usage errors exit 2.  Runs on
# the host; needs build/host/xoproven (make host-tools).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init survey-rules
SR=$top/scripts/survey-rules
XP=$top/build/host/xoproven
[ -x "$XP" ] || tap_bail "no $XP (make host-tools)"
tmp=$(mktemp -d /tmp/xo-survey-rules-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

d=$tmp/d
mkdir -p $d/sub
cp /usr/bin/true $d/a
ln $d/a $d/hard
cp /usr/lib/x86_64-linux-gnu/libnettle.so.8 $d/sub/libn.so 2>/dev/null || cp /usr/bin/cat $d/sub/libn.so
ln -s a $d/link
echo text >$d/t
cp /usr/bin/cat $tmp/outside
printf '%s\n' $d/a $d/hard $d/link $d/t $d/sub/libn.so $d/gone $tmp/outside >$tmp/owned

out=$($SR --owned $tmp/owned --jobs 1 $d 2>$tmp/err); st=$?
sed 's/^/# /' $tmp/err; printf '%s\n' "$out" | sed 's/^/# /'
[ "$st" = 0 ] && printf '%s\n' "$out" | grep -q '^survey by rule: 2 objects of Debian packages, 2 of them with code (of 2 ELF files'
ok $? "two objects: a, once for its two names, and sub/libn.so; not the symlink, the text file, the gone one or the file outside (status $st)"

# xoproven's own totals on the same two files.
want=$($XP $d/a $d/sub/libn.so | awk -F'\t' '/^total/ { for (i = 1; i <= NF; i++) if ($i ~ /^code-bytes /) { split($(i + 1), f, /[()%]/); split($(i + 2), p, /[()%]/); print f[2] " " p[2] } }')
got=$(printf '%s\n' "$out" | awk '/FDE rule/ { sub(/%.*/, "", $NF); } /FDE rule \(the default\)/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) f = $i } /proven-code rule/ { for (i = 1; i <= NF; i++) if ($i ~ /%$/) p = $i } END { sub(/%/, "", f); sub(/%/, "", p); print f " " p }')
[ -n "$want" ] && [ "$want" = "$got" ]
ok $? "FDE and proven code-byte shares are xoproven's on the same files (want '$want', got '$got')"

out3=$($SR --owned $tmp/owned --jobs 3 $d 2>/dev/null)
[ "$out3" = "$out" ]
ok $? "three parts give what one gives"

# An object xoproven cannot plan: no verdict on the target, status 1.
head -c 3000 /usr/bin/true >$d/cut
chmod +x $d/cut
printf '%s\n' $d/a $d/cut >$tmp/owned-cut
out=$($SR --owned $tmp/owned-cut --jobs 2 $d 2>/dev/null); st=$?
[ "$st" = 1 ] && printf '%s\n' "$out" | grep -q '^survey by rule: INCOMPLETE: ' &&
	! printf '%s\n' "$out" | grep -q 'target >='
ok $? "a truncated ELF file: INCOMPLETE instead of the target's verdict, status 1 (status $st)"
rm $d/cut

# Sums past 2^31 (mawk's %d stops there): a fake xoproven with 3e9 code bytes an object, all execute-only.
cat >$tmp/fakexp <<'EOF'
#!/bin/sh
while read -r f; do printf 'object\t%s\t1\t1\t1\t3000000000\t3000000000\t3000000000\n' "$f"; done
printf 'total\tfailed 0\n'
EOF
chmod +x $tmp/fakexp
out=$($SR --owned $tmp/owned --xoproven $tmp/fakexp --jobs 1 $d 2>/dev/null)
printf '%s\n' "$out" | grep -q 'relocation roots (walk) *100.00%'
ok $? "the walk column past 2^31 bytes: 100.00% ($(printf '%s\n' "$out" | grep walk))"

# /bin/NAME in a file list is /usr/bin/NAME when /bin links there.
if [ -L /bin ] && [ "$(realpath /bin)" = /usr/bin ]; then
	echo /bin/true >$tmp/owned2
	out=$($SR --owned $tmp/owned2 --jobs 1 /usr/bin/true 2>/dev/null); st=$?
	[ "$st" = 0 ] && printf '%s\n' "$out" | grep -q '^survey by rule: 1 objects'
	ok $? "/bin/true in a file list counts for /usr/bin/true (status $st)"
else
	skip "/bin is not a link to /usr/bin here" "/bin/true in a file list counts for /usr/bin/true"
fi

# Which packages count: a fake dpkg-query and apt-cache.
mkdir $tmp/bin
cat >$tmp/bin/dpkg-query <<'EOF'
#!/bin/sh
printf 'deb-old\nvendor\nlib-ma:amd64\nsecurity\n'
EOF
cat >$tmp/bin/apt-cache <<'EOF'
#!/bin/sh
[ -n "${FAKE_EMPTY:-}" ] && exit 0
cat <<'T'
deb-old:
  Installed: 1.0-1
  Candidate: 1.0-2
  Version table:
     1.0-2 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
 *** 1.0-1 100
        100 /var/lib/dpkg/status
vendor:
  Installed: 528.0
  Candidate: 528.0
  Version table:
 *** 528.0 100
        100 /var/lib/dpkg/status
lib-ma:
  Installed: 2.0
  Candidate: 2.0
  Version table:
 *** 2.0 500
        500 http://deb.debian.org/debian bookworm/main amd64 Packages
        100 /var/lib/dpkg/status
security:
  Installed: 3.0
  Candidate: 3.0
  Version table:
 *** 3.0 500
        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
        100 /var/lib/dpkg/status
T
EOF
chmod +x $tmp/bin/*
got=$(PATH=$tmp/bin:$PATH $SR --list-packages 2>&1 | tr '\n' ' '); st=$?
[ "$got" = "deb-old lib-ma security " ]
ok $? "packages with a debian.org source in any version count, multi-arch names too; one known only to dpkg's status does not ('$got')"
err=$(FAKE_EMPTY=1 PATH=$tmp/bin:$PATH $SR --jobs 1 $d 2>&1); st=$?
[ "$st" = 1 ] && [[ $err == *"run apt-get update"* ]]
ok $? "no package from a Debian archive: status 1 and a line saying what to do (status $st: $err)"

# Usage.
for args in "" "--jobs 0 $d" "--top x $d" "--bogus $d"; do
	# shellcheck disable=SC2086
	$SR $args >/dev/null 2>&1; st=$?
	ok $([ "$st" = 2 ] && echo 0 || echo 1) "survey-rules $args: usage error, status 2 (got $st)"
done
err=$($SR --owned $tmp/owned $tmp/nonexistent 2>&1); st=$?
[ "$st" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ]
ok $? "a missing DIR: status 1, one line ($err)"
$SR --help | grep -q -- '--list-packages'
ok $? "--help lists the options"
tap_done
