#!/usr/bin/env bash
# image_reuse.sh - image_open() (xoloader/run/load.c) gives the same image
# whether its struct is fresh or held another file before: it zeroes the
# fields and leaves the program headers and the interpreter name, which
# it reads only as far as it fills them.  A dynamic program, ld.so, a
# library and a static ET_EXEC program (no PT_INTERP, no PT_PHDR), each
# opened into a zeroed struct and into one that held each of the others.
# Runs on the host; needs build/guest/lib/xoload (make guest).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init image-reuse
L=$top/build/guest/lib/xoload
[ -x "$L/hello-static" ] || tap_bail "$L/hello-static missing: make guest"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "load.h"

/* What a caller may read of @im: the fields, ph[0..e_phnum), interp if has_interp. */
static int same(const struct image *a, const struct image *b)
{
	return !strcmp(a->path, b->path) && !memcmp(&a->eh, &b->eh, sizeof(a->eh)) && a->bias == b->bias &&
	       a->lo == b->lo && a->hi == b->hi && a->phdr_va == b->phdr_va && a->has_interp == b->has_interp &&
	       !memcmp(a->ph, b->ph, a->eh.e_phnum * sizeof(a->ph[0])) &&
	       (!a->has_interp || !strcmp(a->interp, b->interp));
}

int main(int argc, char **argv)
{
	static struct image fresh, used;
	char err[4200];
	int i, j, bad = 0;

	for (i = 1; i < argc; i++)
		for (j = 1; j < argc; j++) {
			memset(&fresh, 0, sizeof(fresh));
			if (image_open_obj(&fresh, argv[i], false, err, sizeof(err)) ||
			    image_open_obj(&used, argv[j], false, err, sizeof(err)) ||
			    image_open_obj(&used, argv[i], false, err, sizeof(err))) {
				printf("error: %s\n", err);
				return 1;
			}
			close(fresh.fd);
			close(used.fd);
			if (!same(&fresh, &used)) {
				printf("differs: %s after %s\n", argv[i], argv[j]);
				bad = 1;
			}
		}
	printf("%s\n", bad ? "differs" : "same");
	return 0;
}
C
run=$top/xoloader/run
out=$(gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$run" -I"$top/kernel/include" -o "$tmp/t" "$tmp/t.c" \
	"$run/load.c" "$run/fmt.c" "$run/report.c" 2>&1 && "$tmp/t" /bin/true /lib64/ld-linux-x86-64.so.2 \
	"$L/libdatatext.so" "$L/hello-static" 2>&1)
[ "$out" = same ]
ok $? "the same image from a fresh struct and from one that held another file ($(echo $out | head -c 200))"
tap_done
