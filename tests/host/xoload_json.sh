#!/usr/bin/env bash
# xoload_json.sh - --plan=json and --scan=json are valid JSON lines that say
# the same as the tsv formats, object names with '"', '\' and a tab survive
# the escaping, and a bad format name is a usage error.  Runs on the host
# (--plan needs no pkeys; json is parsed with python3).  The same code
# prints --report=json in the VM (tests/xoload/layouts.sh checks it there).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xo=$top/build/guest/bin/xoload l=$top/build/guest/lib/xoload
. "$top/tests/lib/tap.sh"
tap_init xoload-json
if ! command -v python3 >/dev/null; then
	skip "no python3 on this host" "json checks"
	tap_done
	exit
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# A program name that needs escaping: quote, backslash, tab.
odd="$tmp/a\"b\\c	d"
cp "$l/hello-nosep" "$odd"
for prog in "$l/hello-nosep" "$top/build/guest/tests/xoload/xo_scan" "$odd"; do
	# The plan on stdout, the scan lines on stderr: both, in that order.
	# --plan plans the library closure: xo_scan's RUNPATH is the VM's
	# /xonly/lib/xoload, LD_LIBRARY_PATH finds its library here.
	export LD_LIBRARY_PATH=$l
	"$xo" --plan=json --scan=json "$prog" >"$tmp/json" 2>&1; s1=$?
	"$xo" --plan=tsv --scan=tsv "$prog" >"$tmp/tsv" 2>&1; s2=$?
	# Each json line -> the tsv line it must equal (report or scan line).
	python3 - "$tmp/json" "$tmp/tsv" "$prog" >"$tmp/why" 2>&1 <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8", errors="surrogateescape")]
tsv = [l.rstrip("\n").split("\t") for l in open(sys.argv[2], encoding="utf-8", errors="surrogateescape")]
want = []
for t in tsv:
    # tsv cannot quote a tab in an object name: rejoin the object's fields
    if t[0] == "scan":
        want.append({"scan": "finding", "object": "\t".join(t[1:-5]), "vaddr": int(t[-5], 16),
                     "offset": int(t[-4], 16), "section": t[-3], "where": t[-2], "insn": t[-1]})
    elif t[0] == "scan-total":
        want.append({"scan": "total", "object": "\t".join(t[1:-2]), "found": int(t[-2]), "bytes": int(t[-1])})
    elif len(t) >= 8 and t[-4] == "not covered by any FDE":
        # data in text: three more columns, section, offset (hex), size
        want.append({"object": "\t".join(t[:-7]), "start": int(t[-7], 16), "end": int(t[-6], 16),
                     "xo": t[-5] == "xo", "why": t[-4], "section": t[-3], "offset": int(t[-2], 16),
                     "size": int(t[-1])})
    else:
        want.append({"object": "\t".join(t[:-4]), "start": int(t[-4], 16), "end": int(t[-3], 16),
                     "xo": t[-2] == "xo", "why": t[-1]})
# The json total says what the tsv's four columns do not: what the decoder skipped.
for j in js:
    if j.get("scan") == "total":
        u, d, dec = j.pop("undecodable", None), j.pop("disassembled", None), j.pop("decoder", None)
        if not (isinstance(u, int) and isinstance(d, int) and 0 <= u <= d and dec in ("capstone", "llvm")):
            print("scan total without undecodable <= disassembled and a decoder:", u, d, dec)
            sys.exit(1)
if js != want:
    print("json:", js[:3], "\nwant:", want[:3])
    sys.exit(1)
if not any(j.get("object") == sys.argv[3] for j in js):
    print("no line names", repr(sys.argv[3]))
    sys.exit(1)
print(len(js), "lines")
PY
	r=$?
	ok $([ $r = 0 ] && [ $s1 = 0 ] && [ $s2 = 0 ] && echo 0 || echo 1) \
		"--plan=json --scan=json ${prog##*/}: valid JSON lines, the same as tsv ($(head -c 300 "$tmp/why"))"
done
"$xo" --report=yaml "$l/hello" >/dev/null 2>"$tmp/err"; s=$?
[ $s = 2 ] && grep -q "^xoload: .*'json'" "$tmp/err"
ok $? "--report=yaml: usage error (status $s): $(cat "$tmp/err")"
tap_done
