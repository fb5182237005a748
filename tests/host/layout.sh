#!/usr/bin/env bash
# layout.sh - xoloader/'s layers (xoloader/README.md, issue 23): every
# #include "..." of a source file resolves to a file of its own layer or
# of one below it, so that data flows one way (ELF file -> plan -> apply,
# tools read plans):
#   rule/   the plan type, the admission check, ehframe, fill: rule/ only
#   run/    the run path (xoload, xoaudit.so, rtplan, carve): rule/, run/
#   ref/    the libelf reference (elfplan, plancmp): rule/, ref/
#   tools/  survey, xoscan, planproof, plandiff, fuzz, bench: any of them
# and kernel/include/xonly/ (the kernel's uapi) from anywhere.  A source
# file outside the four folders, or an include that does not resolve, is
# a failure too.  So that the check can fail, it runs once more on a copy
# of xoloader/ in which run/rtplan.c includes ../ref/elfplan.h (what
# rt/rtplan.h did before the layers): that copy must be refused, naming
# the line.  Runs on the host; builds nothing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init layout

# allowed LAYER: the layers its files may include.
allowed() {
	case $1 in
	rule) echo rule ;;
	run) echo rule run ;;
	ref) echo rule ref ;;
	tools) echo rule run ref tools ;;
	esac
}

# check_tree DIR (a copy of xoloader/): one line per violation on stdout.
check_tree() {
	local dir=$1 f rel layer n inc target tlayer
	while IFS= read -r f; do
		rel=${f#"$dir"/}
		layer=${rel%%/*}
		if [ "$layer" = "$rel" ] || [ -z "$(allowed "$layer")" ]; then
			echo "$rel: a source file outside rule/, run/, ref/, tools/"
			continue
		fi
		while IFS=: read -r n inc; do
			inc=${inc#*\"} inc=${inc%%\"*}
			case $inc in
			xonly/*)
				[ -f "$top/kernel/include/$inc" ] ||
					echo "$rel:$n: \"$inc\" is not in kernel/include"
				continue ;;
			esac
			target=$(realpath -m "$(dirname "$f")/$inc")
			if [ ! -f "$target" ]; then
				echo "$rel:$n: \"$inc\" does not resolve"
				continue
			fi
			case $target in
			"$dir"/*/*) tlayer=${target#"$dir"/} tlayer=${tlayer%%/*} ;;
			*) echo "$rel:$n: \"$inc\" is outside xoloader's layers"; continue ;;
			esac
			case " $(allowed "$layer") " in
			*" $tlayer "*) ;;
			*) echo "$rel:$n: $layer/ includes $tlayer/ (\"$inc\"): $layer/ may include $(allowed "$layer" | sed 's# #/, #g')/ only" ;;
			esac
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done < <(find "$dir" -name '*.[ch]' | sort)
}

bad=$(check_tree "$top/xoloader")
[ -z "$bad" ]
ok $? "every #include \"...\" under xoloader/ stays in its layer or below${bad:+: $(echo "$bad" | head -5 | tr '\n' ';')}"

for d in rule run ref tools; do
	ls "$top"/xoloader/$d/*.c >/dev/null 2>&1
	ok $? "xoloader/$d/ has sources"
done

tmp=$(mktemp -d /tmp/xo-layout-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/xoloader" "$tmp/xoloader"
sed -i '0,/^#include "/s|^#include "|#include "../ref/elfplan.h"\n&|' "$tmp/xoloader/run/rtplan.c"
bad=$(check_tree "$tmp/xoloader")
[ "$(printf '%s\n' "$bad" | grep -c .)" = 1 ] && [[ $bad == "run/rtplan.c:"*": run/ includes ref/ (\"../ref/elfplan.h\")"* ]]
ok $? "a copy in which run/rtplan.c includes ../ref/elfplan.h is refused, that line named: ${bad:-nothing found}"
tap_done
