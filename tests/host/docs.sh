#!/usr/bin/env bash
# docs.sh - what the documentation says about how xoload and its audit
# module are built agrees with the binaries: xoload has no libelf (or
# zlib) in it and plans with run/rtplan.c, and the module has no DT_NEEDED;
# so xoload(1) does not speak of libelf or libz, nor of copies of libc the
# module would bring, and xoloader/README.md's step 2 ("It plans each
# object with ...") and its fuzzing section name run/rtplan.c, not libelf.
# (Both still described the libelf module and planner: issue 27.)  Each
# check of the text applies while the binary fact holds.  Runs on the
# host; needs make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload audit=$top/build/guest/lib/xoaudit.so
. "$top/tests/lib/tap.sh"
tap_init docs
[ -f "$xo" ] && [ -f "$audit" ] || tap_bail "build/guest/bin/xoload and build/guest/lib/xoaudit.so exist (make guest)"
command -v nm >/dev/null && command -v readelf >/dev/null || tap_bail "binutils is installed"

# The facts, from the binaries.
libelf_in_xoload=$(nm "$xo" 2>/dev/null | grep -cE ' T (elf_begin|gelf_getehdr|inflate)$')
rtplan_in_xoload=$(nm "$xo" 2>/dev/null | grep -cE ' T rtplan_build$')
needed=$(readelf -d "$audit" | grep -c '(NEEDED)')
diag "xoload: $libelf_in_xoload libelf/zlib entry points, rtplan_build: $rtplan_in_xoload; xoaudit.so: $needed DT_NEEDED"

# Text with its line breaks and roff/markdown quoting undone, for phrases.
flat() { tr '\n' ' ' | sed 's/\\-/-/g; s/\\f[BIRP]//g; s/`//g; s/  */ /g'; }
man1=$(flat <"$top/xoloader/xoload.1")
readme=$(flat <"$top/xoloader/README.md")

if [ "$libelf_in_xoload" = 0 ]; then
	hits=$(grep -noiE 'libelf|libz|zlib' "$top/xoloader/xoload.1" | tr '\n' ' ')
	[ -z "$hits" ]
	ok $? "xoload links no libelf or zlib: xoload.1 does not mention them${hits:+ (line:word $hits)}"
else
	skip "xoload links libelf" "xoload.1 does not mention libelf"
fi
if [ "$needed" = 0 ]; then
	! grep -qiE "(own|its) copies of libc|copies of libc, libelf" <<<"$man1"
	ok $? "xoaudit.so has no DT_NEEDED: xoload.1 does not give it copies of libc, libelf and libz"
else
	skip "xoaudit.so has a DT_NEEDED" "xoload.1 on the module's libraries"
fi
if [ "$rtplan_in_xoload" = 1 ]; then
	step2=$(sed -n 's/.* 2\. \(It plans each object .*\) 3\. It builds .*/\1/p' <<<"$readme")
	[ -n "$step2" ] && [[ $step2 == *rtplan.c* ]] && [[ $step2 != *"libelf, the one ELF reader"* ]]
	ok $? "xoload plans with run/rtplan.c: README step 2 says so: '${step2:0:160}'"
	! grep -qE 'elfplan.c/libelf for the file and its PT_INTERP' <<<"$readme"
	ok $? "... and the fuzzing section does not say xoload --plan runs elfplan.c"
else
	skip "xoload does not link rtplan_build" "README step 2"
	skip "xoload does not link rtplan_build" "README fuzzing section"
fi
tap_done
