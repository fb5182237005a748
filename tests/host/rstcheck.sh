#!/usr/bin/env bash
# rstcheck.sh - the series' Documentation/ changes are valid reST on both
# trees (scripts/rstcheck: each changed .rst parses under Debian's docutils
# with no error, each added one is in a toctree), and the check can fail:
# made-up patches with a docutils error, a document in no toctree and a
# hunk that does not apply are each reported "not ok", while Sphinx-only
# roles and directives in a valid file are tolerated.  Runs on the host;
# the first run unpacks each tree's Documentation/ into the cache.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init rstcheck
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The series itself: each of rstcheck's results becomes one of ours.
"$top/scripts/rstcheck" >"$tmp/series.out" 2>"$tmp/series.err"; st=$?
n=0
while IFS= read -r line; do
	case "$line" in
	"ok "*" # SKIP "*) what=${line#ok * - rstcheck: }; skip "${what##* # SKIP }" "${what% # SKIP *}"; n=$((n + 1)) ;;
	"ok "*) ok 0 "${line#ok * - rstcheck: }"; n=$((n + 1)) ;;
	"not ok "*) ok 1 "${line#not ok * - rstcheck: }"; n=$((n + 1)) ;;
	"#"*) echo "$line" ;;
	esac
done <"$tmp/series.out"
[ "$st" = 0 ] && [ "$n" -gt 0 ]
ok $? "scripts/rstcheck passes the series on 6.1 and 6.12 (status $st, $n results)$(
	[ -s "$tmp/series.err" ] && printf '; stderr: %s' "$(tail -n 3 "$tmp/series.err" | tr '\n' ' ')")"

# new_file PATH: a patch that adds PATH with the text on stdin.
new_file() {
	mkdir -p "$tmp/src/$(dirname "$1")"
	cat >"$tmp/src/$1"
	(cd "$tmp/src" && git diff --no-index -- /dev/null "$1")
}
mkdir -p "$tmp/bad" "$tmp/good"
new_file Documentation/xo-rstcheck/broken.rst >"$tmp/bad/0001-broken.patch" <<'EOF'
=====
Title
=====

.. no-such-directive:: is the error docutils reports

Text.

.. only:: html

   The reST of an only block is parsed too:

   .. another-unknown-directive::
EOF
new_file Documentation/xo-rstcheck/orphan.rst >"$tmp/bad/0002-orphan.patch" <<'EOF'
Orphan
======

Valid, but no toctree lists it.
EOF
cat >"$tmp/bad/0003-stale.patch" <<'EOF'
diff --git a/Documentation/core-api/protection-keys.rst b/Documentation/core-api/protection-keys.rst
--- a/Documentation/core-api/protection-keys.rst
+++ b/Documentation/core-api/protection-keys.rst
@@ -1,3 +1,4 @@
 a context line
+that no tree has
 so the hunk
 cannot apply
EOF
"$top/scripts/rstcheck" --patches "$tmp/bad" 6.12 >"$tmp/bad.out" 2>&1; st=$?
[ "$st" = 1 ]
ok $? "made-up broken patches fail scripts/rstcheck (status $st)"
grep -q '^not ok .*6.12: Documentation/xo-rstcheck/broken.rst: docutils .*: 2 error' "$tmp/bad.out" &&
	grep -q 'broken.rst:5: ERROR: Unknown directive type "no-such-directive"' "$tmp/bad.out"
ok $? "an unknown directive is 'not ok', with its line: $(grep -m1 'no-such-directive' "$tmp/bad.out")"
grep -q 'broken.rst:13: ERROR: Unknown directive type "another-unknown-directive"' "$tmp/bad.out"
ok $? "so is one inside a Sphinx 'only' block: $(grep -m1 'another-unknown' "$tmp/bad.out")"
grep -q '^not ok .*6.12: Documentation/xo-rstcheck/orphan.rst: the new document is in no toctree' "$tmp/bad.out"
ok $? "a new document that no toctree lists is 'not ok'"
grep -q '^not ok .*6.12: the Documentation/ hunks of 0003-stale.patch do not apply' "$tmp/bad.out"
ok $? "a Documentation/ hunk that does not apply is 'not ok'"

new_file Documentation/xo-rstcheck/index.rst >"$tmp/good/0001-index.patch" <<'EOF'
=====
Index
=====

.. toctree::
   :maxdepth: 1

   sphinx
EOF
new_file Documentation/xo-rstcheck/sphinx.rst >"$tmp/good/0002-sphinx.patch" <<'EOF'
.. SPDX-License-Identifier: GPL-2.0

======
Sphinx
======

See :ref:`some-label`, :c:func:`pkey_set` and :manpage:`prctl(2)`.

.. kernel-doc:: mm/mprotect.c
   :functions: do_mprotect_pkey

.. only:: html

   Section in an only block
   ========================

   Its reST is parsed, with ``literals`` and *emphasis*.

.. code-block:: c

	int main(void) { return 0; }
EOF
"$top/scripts/rstcheck" --patches "$tmp/good" 6.12 >"$tmp/good.out" 2>&1
grep -q '^ok .*6.12: Documentation/xo-rstcheck/sphinx.rst: docutils .*: 0 error' "$tmp/good.out" &&
	grep -q '^ok .*6.12: Documentation/xo-rstcheck/sphinx.rst: the new document is in a toctree' "$tmp/good.out"
parsed=$?
tolerated=$(grep -m1 'sphinx.rst: Sphinx-only, not checked:' "$tmp/good.out")
missing=
for c in :ref: :c:func: :manpage: '.. kernel-doc::' '.. only::'; do
	case "$tolerated" in *"$c x1"*) ;; *) missing="$missing $c" ;; esac
done
[ "$parsed" = 0 ] && [ -z "$missing" ]
ok $? "Sphinx-only roles and directives are tolerated in a valid file that a toctree lists${missing:+ (not reported:$missing)}:${tolerated#*:}"
if [ "$tap_failed" != 0 ]; then
	for f in bad good; do sed "s/^/# $f: /" "$tmp/$f.out"; done
fi
tap_done
