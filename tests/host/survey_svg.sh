#!/usr/bin/env bash
# survey_svg.sh - xosurvey --svg checks before it surveys, and charts the
# bytes (issue 27): without gnuplot on PATH, or with a FILE that cannot be
# written, it stops at once (status 2, one line, no survey output) instead
# of after the survey with gnuplot's own error; "--svg --totals" is a usage
# error, not a chart named --totals; the chart has the byte share (the
# headline: execute-only and readable by reason) besides the objects'
# coverage distribution; the package recommends gnuplot.  Runs on the
# host; needs build/host/xosurvey (and gnuplot for the chart itself).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sv=$top/build/host/xosurvey
. "$top/tests/lib/tap.sh"
tap_init survey-svg
[ -x "$sv" ] || tap_bail "build/host/xosurvey exists (make host-tools)"
tmp=$(mktemp -d /tmp/xosurvey-svg-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tree=$top/build/guest/lib/xoload
cd "$tmp" || exit 1

# stops WHAT PATTERN CMD...: status 2, one line on stderr matching PATTERN,
# nothing on stdout (the survey did not run), no stray files here.
stops() {
	local what=$1 pat=$2 st
	shift 2
	"$@" >out 2>err; st=$?
	[ "$st" = 2 ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && [[ $(cat err) == $pat ]] &&
		[ "$(ls -A | grep -cv '^\(out\|err\|ro\)$')" = 0 ]
	ok $? "$what: status 2 before the survey (status $st: $(cat err); files: $(ls -A | tr '\n' ' '))"
}
stops "--svg --totals" "xosurvey: --svg wants a file name, not '--totals'*" \
	"$sv" --no-scan --svg --totals "$tree"
nognu=$(mktemp -d /tmp/xosurvey-nognu.XXXXXX)

stops "--svg without gnuplot on PATH" "xosurvey: --svg: gnuplot is not on PATH*" \
	env PATH="$nognu" "$sv" --no-scan --totals --svg "$tmp/c.svg" "$tree"
rm -rf "$nognu"
stops "--svg into a missing directory" "xosurvey: --svg $tmp/no/c.svg: cannot create it in $tmp/no: *" \
	"$sv" --no-scan --totals --svg "$tmp/no/c.svg" "$tree"
stops "--svg FILE that is a directory" "xosurvey: --svg $tmp: a directory" \
	"$sv" --no-scan --totals --svg "$tmp" "$tree"
if [ "$(id -u)" != 0 ]; then
	mkdir ro && chmod 555 ro
	stops "--svg into a read-only directory" "xosurvey: --svg ro/c.svg: cannot create it in ro: *" \
		"$sv" --no-scan --totals --svg ro/c.svg "$tree"
	rmdir ro
else
	skip "root writes anywhere" "--svg into a read-only directory"
fi

if command -v gnuplot >/dev/null; then
	"$sv" --no-scan --totals --svg "$tmp/c.svg" "$tree" >out 2>err; st=$?
	pct=$(sed -n 's/^xosurvey: .* execute-only (\([0-9.]*%\))$/\1/p' out)
	grep -q "Executable bytes of .*: $pct execute-only" c.svg && grep -q 'readable: data in text' c.svg &&
		grep -q 'Execute-only coverage of' c.svg
	ok $? "--svg: a chart of the bytes ($pct execute-only) and one of the objects (status $st: $(head -c 200 err))"
else
	skip "gnuplot is not installed" "--svg: the charts"
fi
grep -q '^Recommends: .*gnuplot' "$top/packaging/debian/control"
ok $? "the package recommends gnuplot"
tap_done
