#!/usr/bin/env bash
# dynsym.sh - xo_dyn_symbol() (xoloader/run/dynsym.c), which xoload's
# ld.so hook uses on the interpreter before ld.so runs, reads nothing
# outside what its bounds callback allows: an interpreter is a file
# PT_INTERP names, so its dynamic table may be crafted.  Builds an image
# in memory of three pages, the middle one PROT_NONE (a hole between
# segments, as xoload's reservation leaves it), with a dynamic table,
# DT_GNU_HASH or DT_HASH, a symbol table and names, and proves:
#   - control: the symbol is found through either hash, within bounds;
#   - each of DT_STRTAB, DT_SYMTAB, DT_GNU_HASH, DT_HASH pointing into
#     the hole, a name running into it, a dynamic table that runs into
#     it without DT_NULL (its DT_SYMTAB, DT_STRTAB and hash entries
#     readable), a hash table's header that starts before it and ends in
#     it, a symbol across its start, a symbol table, a GNU bucket array and
#     a GNU chain that start before it and run on into it give NULL,
#     without a fault;
#   - and that each of those cases does reach the hole: the same lookup
#     without bounds (as for ld.so's own maps), and with the image's whole
#     span as its bounds (the hook's check before it knew the segments),
#     dies of SIGSEGV in a child.
# Runs on the host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init dynsym
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dynsym.h"

#define PG 4096
/* Matches the 16 bytes before the hole, so that an unbounded compare reads on into it. */
#define LONGNAME "xxxxxxxxxxxxxxxxy"
static unsigned char *img;	/* pages 0 and 2 readable, 1 a hole */

static uint64_t readable_end(const void *ctx, uint64_t a)
{
	uint64_t b = (uint64_t)img;

	(void)ctx;
	if (a >= b && a < b + PG)
		return b + PG;
	if (a >= b + 2 * PG && a < b + 3 * PG)
		return b + 3 * PG;
	return 0;
}

/* The bounds before the hook knew the segments: the image's whole span, holes included. */
static uint64_t span_end(const void *ctx, uint64_t a)
{
	uint64_t b = (uint64_t)img;

	(void)ctx;
	return a >= b && a < b + 3 * PG ? b + 3 * PG : 0;
}

/*
 * Page 0: dynamic table at 0, symbols at 0x200, names at 0x400, DT_HASH
 * at 0x600, DT_GNU_HASH at 0x800.  @hash: DT_HASH or DT_GNU_HASH; @bad:
 * which part points into the hole (0: none).
 */
static Elf64_Dyn *build(int hash, int bad)
{
	Elf64_Dyn *d = (Elf64_Dyn *)img;
	Elf64_Sym *sym = (Elf64_Sym *)(img + 0x200);
	char *str = (char *)img + 0x400;
	uint32_t *h = (uint32_t *)(img + 0x600), *g = (uint32_t *)(img + 0x800);
	uint64_t hole = (uint64_t)img + PG + 0x100;
	int i = 0;

	memset(img, 0, PG);
	memset(img + 2 * PG, 0, PG);
	strcpy(str + 1, "other");
	strcpy(str + 7, "wanted");
	sym[1].st_name = 1, sym[1].st_value = 0x10, sym[1].st_shndx = 1;
	sym[2].st_name = 7, sym[2].st_value = 0x20, sym[2].st_shndx = 1;
	h[0] = 1, h[1] = 3;		/* nbucket, nchain: 3 symbols */
	/* GNU hash: 1 bucket, symoffset 1, 1 bloom word; bucket -> 1, chain 1 then 2 (last). */
	g[0] = 1, g[1] = 1, g[2] = 1, g[3] = 0;
	*(uint64_t *)(g + 4) = ~0ull;
	g[6] = 1, g[7] = 0, g[8] = 1;
	if (bad == 5) {			/* a name that runs to the page's end, into the hole */
		memset(img + PG - 16, 'x', 16);
		sym[2].st_name = (uint32_t)(PG - 16 - 0x400);
	}
	d[i].d_tag = DT_SYMTAB, d[i++].d_un.d_ptr = bad == 2 ? hole : (uint64_t)sym;
	d[i].d_tag = DT_STRTAB, d[i++].d_un.d_ptr = bad == 1 ? hole : (uint64_t)str;
	if (bad == 7) {			/* the hash table's header across the page's end */
		h = (uint32_t *)(img + PG - 4), g = (uint32_t *)(img + PG - 8);
		h[0] = 1, g[0] = 1, g[1] = 1;
	}
	if (hash == DT_HASH)
		d[i].d_tag = DT_HASH, d[i++].d_un.d_ptr = bad == 4 ? hole : (uint64_t)h;
	else
		d[i].d_tag = DT_GNU_HASH, d[i++].d_un.d_ptr = bad == 3 ? hole : (uint64_t)g;
	if (bad == 8 || bad == 9) {	/* sym[1] across the hole's start; sym[2] in the hole */
		sym = (Elf64_Sym *)(img + PG - (bad == 8 ? 36 : 48));
		sym[1].st_name = bad == 8 ? 7 : 1, sym[1].st_shndx = 1;	/* "wanted", or "other" before it */
		if (bad == 9)
			sym[1].st_value = 0x10;
		d[0].d_un.d_ptr = (uint64_t)sym;
	}
	if (bad == 10 || bad == 11) {	/* 2 buckets, the second in the hole; or the chain runs into it */
		g = (uint32_t *)(img + PG - (bad == 10 ? 28 : 32));
		g[0] = bad == 10 ? 2 : 1, g[1] = 1, g[2] = 1, g[3] = 0;
		*(uint64_t *)(g + 4) = ~0ull;
		g[6] = 1;		/* bucket 0 -> symbol 1; case 11: chain[0] at PG - 4, no end bit */
		d[i - 1].d_un.d_ptr = (uint64_t)g;
	}
	if (bad == 6)			/* the table itself, at the end of page 0, without DT_NULL */
		return (Elf64_Dyn *)memcpy(img + PG - 3 * sizeof(*d), d, 3 * sizeof(*d));
	d[i].d_tag = DT_NULL;
	return d;
}

/* The lookup of case @bad with @end in a child: 1 if it died of SIGSEGV. */
static int faults(int hash, int bad, xo_readable_end_fn end)
{
	int st;
	pid_t p = fork();

	if (p == 0) {
		xo_dyn_symbol(0, build(hash, bad), bad == 5 ? LONGNAME : "wanted", end, NULL);
		_exit(0);
	}
	return waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
}

int main(void)
{
	static const char *what[] = { "", "DT_STRTAB in the hole", "DT_SYMTAB in the hole",
				      "DT_GNU_HASH in the hole", "DT_HASH in the hole",
				      "a name running into the hole", "the dynamic table running into the hole",
				      "the hash table's header across the hole's start",
				      "a symbol across the hole's start", "the symbol table running into the hole",
				      "the GNU bucket array running into the hole",
				      "a GNU chain running into the hole" };
	static const int hashes[] = { DT_HASH, DT_GNU_HASH };
	int hash, bad, k;

	img = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (img == MAP_FAILED || mprotect(img + PG, PG, PROT_NONE))
		return 1;
	for (k = 0; k < 2; k++) {
		const char *hn = (hash = hashes[k]) == DT_HASH ? "DT_HASH" : "DT_GNU_HASH";
		const Elf64_Sym *s = xo_dyn_symbol(0, build(hash, 0), "wanted", readable_end, NULL);

		printf("%s found %s\n", hn, s && s->st_value == 0x20 ? "yes" : "no");
		for (bad = 1; bad <= 11; bad++) {
			if (((bad == 3 || bad >= 10) && hash != DT_GNU_HASH) || (bad == 4 && hash != DT_HASH))
				continue;
			s = xo_dyn_symbol(0, build(hash, bad), bad == 5 ? LONGNAME : "wanted", readable_end, NULL);
			printf("%s %s: bounded %s, unbounded %s, by span %s\n", hn, what[bad], s ? "found" : "null",
			       faults(hash, bad, NULL) ? "faults" : "no-fault",
			       faults(hash, bad, span_end) ? "faults" : "no-fault");
		}
	}
	return 0;
}
C
if ! out=$(gcc -std=c11 -Wall -Wextra -Werror -I"$top/xoloader/run" -o "$tmp/t" "$tmp/t.c" \
	"$top/xoloader/run/dynsym.c" 2>&1); then
	tap_bail "the test program builds: $out"
fi
"$tmp/t" >"$tmp/out" 2>&1
ok $? "the test program ran ($(tr '\n' ';' <"$tmp/out" | head -c 300))"
for h in DT_HASH DT_GNU_HASH; do
	grep -qx "$h found yes" "$tmp/out"
	ok $? "control, $h: the symbol is found within the bounds"
done
n=0
while IFS= read -r line; do
	case $line in *": bounded "*)
		n=$((n + 1))
		[ "${line##*: }" = "bounded null, unbounded faults, by span faults" ]
		ok $? "${line%%:*}: NULL within the segments; without bounds, and within the image's span as before, the lookup faults ($line)";;
	esac
done <"$tmp/out"
[ "$n" = 18 ]
ok $? "eighteen hole cases ran ($n)"
tap_done
