#!/usr/bin/env bash
# deb_cache.sh - the Debian package keeps the plan cache fresh
# (packaging/debian/triggers, postinst, postrm; xoload(1) "The plan
# cache"): the control files of the package `make deb` builds, run here as
# dpkg would run them, on a sandbox.
#  - triggers: only interest-noawait lines, on the library and program
#    directories (/usr/lib, /lib, /usr/bin, /bin, /usr/sbin, /sbin);
#  - the scripts name /usr/bin/xoload (a file of the package) and
#    /var/cache/xonly; the test replaces exactly those two assignments,
#    with the staged package's xoload (build/deb/root) and a cache in a
#    scratch directory, and runs them:
#  - "configure" without a cache does nothing, creates nothing;
#  - "triggered" after a cached library was upgraded (another file renamed
#    over it, as dpkg does): its entry is planned again, a hit, nothing on
#    stdout; a cached program left alone stays a hit;
#  - "configure" after an upgrade of the planner (every entry's rule id
#    rewritten, checksum made right: an entry of another planner) plans
#    them all again: hits (but not with DPKG_ROOT set: the entries name
#    paths of the running system);
#  - an unknown argument: status 1; postrm "remove" keeps the cache,
#    "purge" removes /var/cache/xonly.
# Root only (the cache is root's), in a directory chain only root can
# write, as tests/host/plancache.sh.  Needs make deb (run here), python3
# and build/host/xocachetest (make host-tools).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init deb-cache
t=$top/build/host/xocachetest
[ -x "$t" ] || tap_bail "$t exists (make host-tools)"
if [ "$(id -u)" != 0 ]; then
	skip "needs root" "the plan cache is written by root only"
	tap_done
	exit 0
fi
make -s -C "$top" --no-print-directory deb >/dev/null 2>&1 || tap_bail "make deb"
deb=$(ls "$top"/build/deb/xonly-tools_*_amd64.deb | head -n 1)
root=$top/build/deb/root
x=$(mktemp -d "$top/build/deb-cache-test.XXXXXX")
trap 'rm -rf "$x"' EXIT
chmod 755 "$x"
dpkg-deb -e "$deb" "$x/ctl" || tap_bail "dpkg-deb -e $deb"

lines=$(sed 's/#.*//; /^[[:space:]]*$/d' "$x/ctl/triggers")
bad=$(echo "$lines" | grep -v '^interest-noawait /[^ ]*$')
miss=
for d in /usr/lib /lib /usr/bin /bin /usr/sbin /sbin; do
	echo "$lines" | grep -qx "interest-noawait $d" || miss="$miss $d"
done
[ -z "$bad" ] && [ -z "$miss" ]
ok $? "triggers: interest-noawait only, on the library and program directories${bad:+; bad: $bad}${miss:+; missing:$miss}"

grep -qx 'XOLOAD=/usr/bin/xoload' "$x/ctl/postinst" && grep -qx 'CACHE=/var/cache/xonly/plans' "$x/ctl/postinst" &&
	grep -qx 'CACHE=/var/cache/xonly' "$x/ctl/postrm" && dpkg-deb -c "$deb" >"$x/list" &&
	grep -q ' \./usr/bin/xoload -> \.\./libexec/xonly/xoload$' "$x/list" &&
	[ -x "$root/usr/bin/xoload" ]
ok $? "the scripts run the package's /usr/bin/xoload on /var/cache/xonly/plans"
c=$x/var/cache/xonly/plans
sed "s|^XOLOAD=/usr/bin/xoload\$|XOLOAD=$root/usr/bin/xoload|; s|^CACHE=/var/cache/xonly/plans\$|CACHE=$c|" \
	"$x/ctl/postinst" >"$x/postinst"
sed "s|^CACHE=/var/cache/xonly\$|CACHE=$x/var/cache/xonly|" "$x/ctl/postrm" >"$x/postrm"
[ "$(diff "$x/ctl/postinst" "$x/postinst" | grep -c '^>')" = 2 ] &&
	[ "$(diff "$x/ctl/postrm" "$x/postrm" | grep -c '^>')" = 1 ]
ok $? "the sandbox's scripts differ from the package's in those assignments only"

out=$(sh "$x/postinst" configure 2>&1); st=$?
[ "$st" = 0 ] && [ -z "$out" ] && [ ! -e "$x/var" ]
ok $? "configure without a cache: nothing done, nothing created (status $st${out:+: $out})"

# The cache trusts no chain of directories that others can write: a
# checkout under one cannot hold the test's cache (as plancache.sh).
err=$(XOLOAD_CACHE_DIR=$x/probe "$root/usr/bin/xoload" --update-cache 2>&1 >/dev/null)
rm -rf "$x/probe"
if [[ $err == *"writable by others than root"* ]]; then
	skip "$err" "the cache needs a directory chain only root can write"
	tap_done
	exit 0
fi
mkdir -p "$x/lib" "$x/bin"
cp /usr/lib/x86_64-linux-gnu/libz.so.1 "$x/lib/libz.so.1" && cp /usr/bin/true "$x/bin/true"
XOLOAD_CACHE_DIR=$c "$root/usr/bin/xoload" --update-cache "$x/lib/libz.so.1" "$x/bin/true" >/dev/null 2>&1
look() { "$t" lookup "$c" "$1" 2>&1; }
cp /usr/lib/x86_64-linux-gnu/libm.so.6 "$x/lib/new" && mv "$x/lib/new" "$x/lib/libz.so.1"
r=$(look "$x/lib/libz.so.1")
[[ $r == *"miss: no entry"* ]] && look "$x/bin/true" | grep -q ': hit$'
ok $? "cached library upgraded (renamed over): a miss ($r)"
out=$(sh "$x/postinst" triggered "/usr/lib /lib" 2>"$x/err"); st=$?
r=$(look "$x/lib/libz.so.1")
[ "$st" = 0 ] && [ -z "$out" ] && [[ $r == *": hit" ]] && look "$x/bin/true" | grep -q ': hit$'
ok $? "triggered: the upgraded library planned again, a hit; the program still one (status $st: $r$(sed 's/^/; /' "$x/err"))"

# An older planner's entries: another rule id, the checksum made right.
python3 - "$c" <<'PY' || tap_bail "rewriting the entries"
import os, struct, sys
for n in os.listdir(sys.argv[1]):
    p = os.path.join(sys.argv[1], n)
    e = bytearray(open(p, 'rb').read())
    hs = struct.unpack_from('<I', e, 12)[0]
    e[16:48] = b'an-older-planner'.ljust(32, b'\0')
    e[hs - 8:hs] = bytes(8)
    h = 0xcbf29ce484222325
    for b in e:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    struct.pack_into('<Q', e, hs - 8, h)
    open(p, 'wb').write(e)
PY
r=$(look "$x/bin/true")
[[ $r == *"another planner"* ]]
ok $? "entries of an older planner: misses ($r)"
out=$(DPKG_ROOT=$x/target sh "$x/postinst" configure 0.0 2>&1); st=$?
r=$(look "$x/bin/true")
[ "$st" = 0 ] && [ -z "$out" ] && [[ $r == *"another planner"* ]]
ok $? "configure with DPKG_ROOT set (scripts outside the target's root): nothing done (status $st: $r)"
out=$(sh "$x/postinst" configure 0.0 2>"$x/err"); st=$?
[ "$st" = 0 ] && [ -z "$out" ] && look "$x/bin/true" | grep -q ': hit$' && look "$x/lib/libz.so.1" | grep -q ': hit$'
ok $? "configure (xoload upgraded): both planned again with this planner, hits (status $st$(sed 's/^/; /' "$x/err"))"

sh "$x/postinst" bogus >/dev/null 2>&1; st=$?
sh "$x/postrm" bogus >/dev/null 2>&1; st2=$?
[ "$st" = 1 ] && [ "$st2" = 1 ]
ok $? "an unknown argument: status 1 ($st, $st2)"
sh "$x/postrm" remove; st=$?
[ "$st" = 0 ] && [ -d "$c" ]
ok $? "postrm remove: the cache stays (status $st)"
sh "$x/postrm" purge; st=$?
[ "$st" = 0 ] && [ ! -e "$x/var/cache/xonly" ]
ok $? "postrm purge: /var/cache/xonly is gone (status $st)"
tap_done
