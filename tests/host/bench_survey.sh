#!/usr/bin/env bash
# bench_survey.sh - the host half of make bench works from a clean clone:
# in a copy of the source tree without build/, `make -n bench` builds
# xoscan before it runs xosurvey and hands it to xosurvey, and the host
# survey step itself (`make survey`, which make bench runs first) builds
# what it needs and surveys a small SURVEY_DIRS, chart included, with a
# PATH on which no xoscan is installed.  (make bench used to stop at once
# with "xosurvey: xoscan not found next to xosurvey or on PATH": issue 27.)
# The VM half of make bench is not run here.  Runs on the host: builds
# xoscan and xosurvey in the copy (about a minute); needs gnuplot
# (scripts/deps: gnuplot-nox).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init bench-survey
tmp=$(mktemp -d /tmp/xo-bench-survey.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The work tree as committed plus what is changed or new (not ignored),
# without build/: what a clean clone of it would hold.
(cd "$top" && git ls-files -z -c -o --exclude-standard | grep -zv '^build/' |
	tar --null -T - -cf - 2>/dev/null) | tar -xf - -C "$tmp" || tap_bail "copy the source tree"
[ ! -e "$tmp/build" ] || tap_bail "the copy has no build/"

cd "$tmp"
plan=$(make -n bench 2>&1)
scan_at=$(printf '%s\n' "$plan" | grep -n -- '-o build/guest/bin/xoscan ' | head -n 1 | cut -d: -f1)
survey=$(printf '%s\n' "$plan" | grep -n 'build/host/xosurvey .*--totals' | head -n 1)
[ -n "$scan_at" ] && [ -n "$survey" ] && [ "$scan_at" -lt "${survey%%:*}" ]
ok $? "make -n bench builds build/guest/bin/xoscan (line ${scan_at:-none}) before it runs xosurvey (line ${survey%%:*})"
[[ $survey == *"--xoscan build/guest/bin/xoscan"* ]]
ok $? "... and hands that xoscan to xosurvey: ${survey#*:}"

# A PATH on which no xoscan is installed: the build's own must be used.
path=/usr/bin:/bin
PATH=$path command -v xoscan >/dev/null && diag "an xoscan is installed on $path: the next check is weaker"
target=/usr/bin/true
out=$(PATH=$path make -s -j1 survey SURVEY_DIRS="$target" 2>&1); st=$?
printf '%s\n' "$out" | grep -v '^gcc ' | tail -n 8 | sed 's/^/# /'
[ "$st" = 0 ] && printf '%s\n' "$out" | grep -q '^xosurvey: 1 objects: ' &&
	printf '%s\n' "$out" | grep -q '^xosurvey: WRPKRU '
ok $? "make survey SURVEY_DIRS=$target from the clean copy: 1 object, scanned (status $st)"
grep -q '<svg' build/survey.svg 2>/dev/null
ok $? "... and the chart build/survey.svg"
# Which packages are Debian's comes from apt's lists: without them (an
# image that deleted them) survey-rules says so and fails, and this row
# cannot be run.
if apt-cache policy coreutils 2>/dev/null | grep -q 'debian\.org'; then
	printf '%s\n' "$out" | grep -q '^survey by rule: 1 objects of Debian packages' &&
		printf '%s\n' "$out" | grep -q '^survey by rule: proven-code rule ' &&
		! printf '%s\n' "$out" | grep -q 'survey by rule: FAILED'
	ok $? "... and the survey by rule (scripts/survey-rules): $target, one object of a Debian package"
else
	skip "apt's lists name no debian.org source for coreutils (no apt-get update here)" "... and the survey by rule"
fi
tap_done
