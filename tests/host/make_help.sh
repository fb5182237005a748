#!/usr/bin/env bash
# make_help.sh - the help and the source tree are what README.md promises
# (issue 27): `make help` names every target README.md runs ("make X") and
# every variable it mentions (VAR= or `VAR`) that the Makefile or scripts/
# read; `man -l man/pkey_set.2` works from the source tree (it renders
# pkey_get(2), as the installed .so link does); the package's Maintainer
# is the repository's git author identity, and the changelog is signed by
# it.  Host only; needs make and man.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init make-help
cd "$top" || exit 1
help=$(make -s --no-print-directory help 2>&1)

targets=$(grep -o 'make [a-z][a-z0-9-]*' README.md | awk '{ print $2 }' | sort -u)
miss=
for t in $targets; do
	printf '%s\n' "$help" | grep -qE "^ +make $t( |$)" || miss="$miss $t"
done
[ -z "$miss" ]
ok $? "make help lists every target README.md names ($(echo $targets | wc -w))${miss:+; not:$miss}"

vars=$( { grep -oE '\b[A-Z][A-Z0-9_]{1,}=' README.md | tr -d '='; grep -oE '`[A-Z][A-Z0-9_]{1,}`' README.md | tr -d '`'; } | sort -u)
miss= n=0
for v in $vars; do
	# a variable of ours: the Makefile or a script reads it
	grep -qE "\\\$[({]$v[)}:-]|\\\$$v\\b|^$v *[?:]?=" Makefile scripts/* 2>/dev/null || continue
	n=$((n + 1))
	printf '%s\n' "$help" | grep -qE "(^|[ (])$v([=) ]|$)" || miss="$miss $v"
done
[ -z "$miss" ] && [ "$n" -ge 10 ]
ok $? "make help names every variable README.md mentions ($n)${miss:+; not:$miss}"

if command -v man >/dev/null; then
	out=$(MANWIDTH=80 man --warnings=all -l man/pkey_set.2 2>&1 >/dev/null)
	[ -z "$out" ] && cmp -s <(MANWIDTH=80 man -l man/pkey_set.2 2>&1) <(MANWIDTH=80 man -l man/pkey_get.2 2>&1)
	ok $? "man -l man/pkey_set.2 renders pkey_get(2) from the source tree${out:+: $out}"
else
	skip "no man here" "man -l man/pkey_set.2"
fi

if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	who=$(git -C "$top" log --format='%an <%ae>' | sort | uniq -c | sort -rn | head -n 1 | sed 's/^ *[0-9]* //')
	m=$(sed -n 's/^Maintainer: //p' packaging/debian/control)
	signed=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' packaging/debian/changelog | head -n 1)
	[ -n "$who" ] && [ "$m" = "$who" ] && [ "$signed" = "$who" ]
	ok $? "Maintainer and the changelog's signature are the git author '$who' (Maintainer: '$m', changelog: '$signed')"
else
	skip "not a git checkout" "Maintainer is the git author"
fi
tap_done
