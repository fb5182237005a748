#!/usr/bin/env bash
# deb_dpkg.sh - the package's dpkg trigger, run by a real dpkg: the
# package `make deb` builds is installed with dpkg --root into a scratch
# root (busybox as /bin/sh, empty stand-ins for libc6, libcapstone4 and
# libelf1, /proc and /dev/null mounted in a private mount namespace that
# ends with the test; dpkg chroots there to run the maintainer scripts):
#  - installing it, and then a package with a library in
#    /usr/lib/x86_64-linux-gnu, creates no cache; the second install says
#    "Processing triggers for xonly-tools" (the trigger fired);
#  - root caches that library (xoload --update-cache in the chroot);
#  - upgrading the library's package to another file: the trigger runs
#    the postinst, which plans the new file (its DEV-INO entry is there,
#    the old one gone, no "not refreshed" line);
#  - purging xonly-tools removes /var/cache/xonly.
# tests/host/deb_cache.sh tests the scripts' cases one by one.  Root only,
# with unshare(1) (a mount namespace), chroot, dpkg and a static busybox;
# else skipped.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init deb-dpkg
bb=$(command -v busybox || true)
why=
[ "$(id -u)" = 0 ] || why="needs root"
[ -n "$why" ] || { [ -n "$bb" ] && file -L "$bb" | grep -q 'statically linked'; } || why="no static busybox"
[ -n "$why" ] || command -v dpkg >/dev/null || why="no dpkg"
[ -n "$why" ] || unshare -m true 2>/dev/null || why="unshare -m is not allowed here"
if [ -n "$why" ]; then
	skip "$why" "a real dpkg runs the trigger"
	tap_done
	exit 0
fi
# The rest in a mount namespace of its own: its mounts go with it.
if [ -z "${XO_DEB_DPKG_NS:-}" ]; then
	XO_DEB_DPKG_NS=1 exec unshare -m --fork bash "$0"
fi
make -s -C "$top" --no-print-directory deb >/dev/null 2>&1 || tap_bail "make deb"
deb=$(ls "$top"/build/deb/xonly-tools_*_amd64.deb | head -n 1)
x=$(mktemp -d /var/tmp/xonly-deb-dpkg.XXXXXX)
r=$x/root
trap 'umount "$r/proc" "$r/dev/null" 2>/dev/null; rm -rf "$x"' EXIT
chmod 755 "$x"

# pkg NAME VERSION [FILE DEST]: a package, empty or with one file.
pkg() {
	local d=$x/pkg-$1-$2
	mkdir -p "$d/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: test <test@example.org>\nDescription: test\n test\n' \
		"$1" "$2" >"$d/DEBIAN/control"
	if [ $# -gt 2 ]; then
		mkdir -p "$d/$(dirname "$4")" && cp "$3" "$d/$4"
	fi
	dpkg-deb --root-owner-group --build "$d" "$x/$1-$2.deb" >/dev/null || tap_bail "dpkg-deb --build $1"
}
pkg libc6 2.36 && pkg libcapstone4 4.0.2 && pkg libelf1 0.188
lib=usr/lib/x86_64-linux-gnu/libxotest.so.1
pkg libxotest 1 /usr/lib/x86_64-linux-gnu/libz.so.1 $lib
pkg libxotest 2 /usr/lib/x86_64-linux-gnu/libm.so.6 $lib
mkdir -p "$r"/var/lib/dpkg/{info,updates,triggers} "$r"/{bin,proc,tmp,dev}
chmod 755 "$r"
touch "$r/var/lib/dpkg/status" "$r/var/lib/dpkg/available" "$r/dev/null"
cp "$bb" "$r/bin/busybox" && ln -s busybox "$r/bin/sh"
mount -t proc proc "$r/proc" && mount --bind /dev/null "$r/dev/null" || tap_bail "mounting /proc and /dev/null"
d() { dpkg --root="$r" "$@" >>"$x/log" 2>&1; }
# log STATUS: dpkg's output as comments after a failed test, then a fresh log.
log() { [ "$1" = 0 ] || sed 's/^/#   /' "$x/log"; : >"$x/log"; }
entry() { printf '%x-%x' "$(stat -c %d "$r/$lib")" "$(stat -c %i "$r/$lib")"; }

d -i "$x"/libc6-*.deb "$x"/libcapstone4-*.deb "$x"/libelf1-*.deb && d -i "$deb"; st=$?
d -i "$x/libxotest-1.deb" || st=$?
[ "$st" = 0 ] && grep -q "Processing triggers for xonly-tools" "$x/log" && [ ! -e "$r/var/cache/xonly" ]
res=$?
ok $res "dpkg installs the package, then a library's: the trigger fires, no cache is created (status $st)"
log $res

out=$(chroot "$r" /usr/bin/xoload --update-cache /$lib 2>&1); st=$?
old=$(entry)
[ "$st" = 0 ] && [ -f "$r/var/cache/xonly/plans/$old" ]
ok $? "root caches the library in the chroot: entry $old (status $st: $out)"

d -i "$x/libxotest-2.deb"; st=$?
new=$(entry)
[ "$st" = 0 ] && grep -q "Processing triggers for xonly-tools" "$x/log" && ! grep -q "not refreshed" "$x/log" &&
	[ "$new" != "$old" ] && [ -f "$r/var/cache/xonly/plans/$new" ] && [ ! -e "$r/var/cache/xonly/plans/$old" ]
res=$?
ok $res "the library upgraded: the trigger plans the new file (entry $new, $old gone; status $st)"
log $res

d --purge xonly-tools; st=$?
[ "$st" = 0 ] && [ ! -e "$r/var/cache/xonly" ]
res=$?
ok $res "dpkg --purge xonly-tools removes /var/cache/xonly (status $st)"
log $res
tap_done
