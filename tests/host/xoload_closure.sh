#!/usr/bin/env bash
# xoload_closure.sh - xoload --plan plans any object with its whole library
# closure, as ld.so would resolve it, on stdout (issue 27: it planned PROG
# and ld.so only, on stderr, and refused a library, "entry point 0x0"):
#   - a program's closure is ldd's list (DT_RUNPATH with $ORIGIN, DT_RPATH,
#     LD_LIBRARY_PATH, ld.so.cache), the plan on stdout, nothing on stderr;
#   - a library named bare (libc.so.6) is found and planned, with its own
#     closure; --no-deps plans PROG and its interpreter only;
#   - a library that cannot be found: 127, one line naming it;
#   - two formats for the same lines: a usage error (2), not the last one.
# Runs on the host (--plan needs no pkeys; ldd and python3 for the checks);
# needs make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload
. "$top/tests/lib/tap.sh"
tap_init xoload-closure
[ -x "$xo" ] || tap_bail "build/guest/bin/xoload exists (make guest)"
command -v python3 >/dev/null && command -v ldd >/dev/null && command -v gcc >/dev/null ||
	tap_bail "python3, ldd and gcc on this host"
tmp=$(mktemp -d /tmp/xo-closure-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir -p lib rlib llp
printf 'int f(void) { return 1; }\n' >f.c
printf 'int g(void) { return 2; }\n' >g.c
printf 'int h(void) { return 3; }\n' >h.c
printf 'int f(void); int g(void); int h(void); int main(void) { return f() + g() + h(); }\n' >m.c
gcc -shared -fPIC -o lib/libf.so f.c && gcc -shared -fPIC -o rlib/libg.so g.c &&
	gcc -shared -fPIC -o llp/libh.so h.c &&
	gcc -o m m.c -Llib -Lrlib -Lllp -lf -lg -lh -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib' &&
	gcc -o m2 m.c -Llib -Lrlib -Lllp -lf -lg -lh -Wl,--disable-new-dtags,-rpath,"$tmp/lib:$tmp/rlib" ||
	tap_bail "gcc builds the test program"
# m: DT_RUNPATH $ORIGIN/lib finds libf; libg and libh from LD_LIBRARY_PATH.
# m2: DT_RPATH finds libf and libg; libh from LD_LIBRARY_PATH.

# closure WHAT CMD...: the objects CMD --plan=json names (resolved paths,
# in order) are ldd's for the same program, stdout valid JSON, stderr empty.
closure() {
	local what=$1 prog=$2 st
	shift 2
	env "$@" "$xo" --plan=json "$prog" >out 2>err; st=$?
	env "$@" ldd "$prog" >ldd.out 2>&1
	python3 - out ldd.out >why 2>&1 <<'PY'
import json, os, sys
objs = []
for l in open(sys.argv[1]):
    j = json.loads(l)
    if os.path.realpath(j["object"]) not in objs:
        objs.append(os.path.realpath(j["object"]))
want = []
for l in open(sys.argv[2]):
    f = l.split()
    p = f[2] if len(f) > 2 and f[1] == "=>" else f[0]
    if p.startswith("/"):
        want.append(os.path.realpath(p))
if sorted(objs[1:]) != sorted(want):
    print("planned", objs, "ldd", want)
    sys.exit(1)
print(len(objs), "objects:", " ".join(os.path.basename(o) for o in objs))
PY
	[ $? = 0 ] && [ "$st" = 0 ] && [ ! -s err ]
	ok $? "$what: --plan=json on stdout plans what ldd lists (status $st, stderr '$(head -c 200 err)'): $(head -c 300 why)"
}
closure "DT_RUNPATH \$ORIGIN + LD_LIBRARY_PATH" ./m LD_LIBRARY_PATH="$tmp/rlib:$tmp/llp"
closure "DT_RPATH + LD_LIBRARY_PATH" ./m2 LD_LIBRARY_PATH="$tmp/llp"
for p in /usr/bin/openssl /usr/bin/python3 /bin/ls; do
	[ -x "$p" ] && closure "${p##*/} (ld.so.cache)" "$p"
done

# The readable ranges of each object have their reason.
"$xo" --plan=tsv ./m2 2>/dev/null | awk -F'\t' 'NF < 5 || $5 == "" { bad++ } END { exit bad > 0 }'
ok $? "--plan=tsv: every line has its reason"

# A library by its bare name, as ld.so finds it; a library by path.
"$xo" --plan=json libc.so.6 >out 2>err; st=$?
libc=$(python3 -c 'import json,sys; print(json.loads(open("out").readline())["object"])' 2>/dev/null)
[ "$st" = 0 ] && [ ! -s err ] && [[ $libc == /*/libc.so.6 ]] && grep -q 'ld-linux-x86-64.so.2' out
ok $? "--plan libc.so.6: found ($libc) and planned with ld.so (status $st: $(head -c 200 err))"
"$xo" --plan=tsv "$tmp/lib/libf.so" >out 2>err; st=$?
[ "$st" = 0 ] && [ ! -s err ] && [ "$(cut -f1 out | head -n 1)" = "$tmp/lib/libf.so" ]
ok $? "--plan LIB by path: planned, not refused for its entry point (status $st: $(head -c 200 err))"

# --no-deps: PROG and its interpreter only.
LD_LIBRARY_PATH="$tmp/rlib:$tmp/llp" "$xo" --plan=tsv --no-deps ./m >out 2>err; st=$?
n=$(cut -f1 out | sort -u | wc -l)
[ "$st" = 0 ] && [ "$n" = 2 ]
ok $? "--plan --no-deps: two objects ($n, status $st)"
"$xo" --no-deps ./m >/dev/null 2>err; st=$?
[ "$st" = 2 ] && grep -q '^xoload: --no-deps: only with --plan' err
ok $? "--no-deps without --plan: usage error (status $st: $(cat err))"

# Not found: 127, one line naming the library and who needs it.
"$xo" --plan ./m >out 2>err; st=$?
[ "$st" = 127 ] && [ "$(wc -l <err)" = 1 ] && grep -q '^xoload: ./m: libg.so: not found (needed by ./m)$' err &&
	[ ! -s out ]
ok $? "a library that is not found: status 127, one line, no plan printed (status $st: $(cat err); stdout $(wc -l <out) lines)"

# Two formats for the same lines: an error.
for opts in "--plan=json --report=tsv" "--plan=tsv --plan=json" "--report=json --plan=human" "--scan=tsv --scan=json"; do
	# shellcheck disable=SC2086
	"$xo" $opts /bin/true >out 2>err; st=$?
	[ "$st" = 2 ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && grep -q "^xoload: --.*format is already" err
	ok $? "$opts: usage error (status $st: $(cat err))"
done
"$xo" --plan=json --plan /bin/true >out 2>/dev/null; st=$?
[ "$st" = 0 ] && head -n 1 out | grep -q '^{'
ok $? "--plan=json --plan: the same format, json (status $st)"
tap_done
