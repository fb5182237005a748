#!/usr/bin/env bash
# interp_bounds.sh - image_readable_end() (xoloader/run/load.c), the
# bounds xoload's ld.so hook gives xo_dyn_symbol() for the interpreter
# before ld.so runs, claims only memory that image_map() left readable
# and not executable: interpreters are mapped with load.c's own
# image_open()/image_map(), and for every address of the image's span the
# stretch it claims must lie in mappings of /proc/self/maps with "r" and
# without "x".  Proves:
#   - control: Debian's ld.so: the claims hold and _dl_debug_state,
#     _r_debug and __rseq_offset are found within them;
#   - a crafted interpreter whose readable segment ends in the middle of a
#     page, with its .dynamic and tables in that page, followed in the same
#     page by a PT_LOAD without PF_R (mapped PROT_NONE over it), with PF_X
#     (execute-only under the kernel's xonly mode, and on a PKU CPU without
#     PF_R) or with PF_R|PF_X: the claims hold, and the lookup gives NULL
#     where the later segment is not plain data, without a fault; with a
#     later PF_R segment (control) it finds the symbol;
#   - an object linked -z noseparate-code (its .dynsym in its R+X
#     segment): the claims hold, and the lookup gives NULL (the hook then
#     leaves such an ld.so to the audit module).
# Runs on the host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init interp_bounds
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dynsym.h"
#include "load.h"

static struct { unsigned long s, e; int ok; } maps[4096];
static int nmaps;

static void read_maps(void)
{
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	for (nmaps = 0; f && nmaps < 4096 && fgets(line, sizeof(line), f); nmaps++) {
		sscanf(line, "%lx-%lx %7s", &maps[nmaps].s, &maps[nmaps].e, perm);
		maps[nmaps].ok = perm[0] == 'r' && perm[2] != 'x';
	}
	if (f)
		fclose(f);
}

/* [a, e) lies in readable, non-executable mappings. */
static int readable(unsigned long a, unsigned long e)
{
	int i;

	while (a < e) {
		for (i = 0; i < nmaps && !(a >= maps[i].s && a < maps[i].e); i++)
			;
		if (i == nmaps || !maps[i].ok)
			return 0;
		a = maps[i].e;
	}
	return 1;
}

static uint64_t bounds(const void *ctx, uint64_t a)
{
	return image_readable_end(ctx, a);
}

/* A crafted interpreter: A (R) [0, 0x1f80) with .dynamic at 0x1e00, B (@bflags) [0x1f80, 0x2000), C (R+X) [0x2000, 0x3000). */
static int craft(const char *path, uint32_t bflags)
{
	static unsigned char f[0x3000];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + 64);
	Elf64_Dyn *d = (Elf64_Dyn *)(f + 0x1e00);
	Elf64_Sym *sym = (Elf64_Sym *)(f + 0x1100);
	uint32_t *h = (uint32_t *)(f + 0x1000);
	FILE *o;

	memset(f, 0, sizeof(f));
	memcpy(eh->e_ident, ELFMAG "\2\1\1", 7);
	eh->e_type = ET_DYN, eh->e_machine = EM_X86_64, eh->e_version = 1, eh->e_entry = 0x2000;
	eh->e_phoff = 64, eh->e_ehsize = 64, eh->e_phentsize = sizeof(*ph), eh->e_phnum = 4;
	ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R, 0, 0, 0, 0x1f80, 0x1f80, 0x1000 };
	ph[1] = (Elf64_Phdr){ PT_LOAD, bflags, 0x1f80, 0x1f80, 0x1f80, 0x80, 0x80, 0x1000 };
	ph[2] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, 0x2000, 0x2000, 0x2000, 0x1000, 0x1000, 0x1000 };
	ph[3] = (Elf64_Phdr){ PT_DYNAMIC, PF_R | PF_W, 0x1e00, 0x1e00, 0x1e00, 0x40, 0x40, 8 };
	h[0] = 1, h[1] = 2, h[2] = 1;
	strcpy((char *)f + 0x1201, "__rseq_offset");
	sym[1] = (Elf64_Sym){ 1, STT_OBJECT | STB_GLOBAL << 4, 0, 1, 0x1f00, 8 };
	d[0] = (Elf64_Dyn){ DT_HASH, { 0x1000 } }, d[1] = (Elf64_Dyn){ DT_SYMTAB, { 0x1100 } };
	d[2] = (Elf64_Dyn){ DT_STRTAB, { 0x1200 } };
	f[0x2000] = 0xc3;
	return !(o = fopen(path, "w")) || fwrite(f, sizeof(f), 1, o) != 1 || fclose(o);
}

/* "claims hold" or not; then for each name: found, null or faults (the lookup in a child). */
static void run(const char *what, const char *path, int n, const char **names)
{
	static struct image im;
	char err[512];
	const Elf64_Phdr *dyn = NULL;
	uint64_t a, e;
	int i, ok = 1, st;

	if (image_open(&im, path, err, sizeof(err)) || image_map(&im, err, sizeof(err))) {
		printf("%s: refused: %s\n", what, err);
		return;
	}
	read_maps();
	for (a = im.bias + im.lo; a < im.bias + im.hi; a++)
		if ((e = image_readable_end(&im, a)) && (e <= a || !readable(a, e)))
			ok = 0;
	for (i = 0; i < im.eh.e_phnum; i++)
		if (im.ph[i].p_type == PT_DYNAMIC)
			dyn = &im.ph[i];
	printf("%s: claims %s", what, ok ? "hold" : "broken");
	for (i = 0; i < n; i++) {
		pid_t p;

		fflush(stdout);
		if ((p = fork()) == 0)
			_exit(dyn && xo_dyn_symbol(im.bias, (const Elf64_Dyn *)(im.bias + dyn->p_vaddr), names[i], bounds, &im)
			      ? 0 : 1);
		waitpid(p, &st, 0);
		printf(", %s %s", names[i], WIFSIGNALED(st) ? "faults" : WEXITSTATUS(st) ? "null" : "found");
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static const char *ld[] = { "_dl_debug_state", "_r_debug", "__rseq_offset" }, *rseq[] = { "__rseq_offset" };
	static const struct { const char *what; uint32_t flags; } b[] = {
		{ "later PT_LOAD R", PF_R }, { "later PT_LOAD none", 0 }, { "later PT_LOAD X", PF_X },
		{ "later PT_LOAD RX", PF_R | PF_X },
	};
	char path[4096];
	size_t k;

	if (argc != 3)
		return 2;

	run("ld.so", "/lib64/ld-linux-x86-64.so.2", 3, ld);
	run("noseparate-code", argv[2], 1, rseq);
	for (k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
		snprintf(path, sizeof(path), "%s/crafted%zu.so", argv[1], k);
		if (craft(path, b[k].flags))
			return 1;
		run(b[k].what, path, 1, rseq);
	}
	return 0;
}
C
R=$top/xoloader/run
if ! out=$(gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$R" -I"$top" -o "$tmp/t" "$tmp/t.c" "$R/load.c" \
	"$R/dynsym.c" "$R/report.c" "$R/fmt.c" 2>&1); then
	tap_bail "the test program builds: $out"
fi
echo 'int __rseq_offset = 1;' >"$tmp/l.c"
if ! out=$(gcc -shared -fPIC -Wl,-z,noseparate-code -o "$tmp/noseparate.so" "$tmp/l.c" 2>&1); then
	tap_bail "the -z noseparate-code object builds: $out"
fi
"$tmp/t" "$tmp" "$tmp/noseparate.so" >"$tmp/out" 2>&1
ok $? "the test program ran ($(tr '\n' ';' <"$tmp/out" | head -c 600))"
# expect WHAT REST: the line of case WHAT reads "WHAT: REST".
expect() {
	grep -qxF "$1: $2" "$tmp/out"
	ok $? "$1: $2 ($(grep -F "$1:" "$tmp/out"))"
}
expect ld.so "claims hold, _dl_debug_state found, _r_debug found, __rseq_offset found"
expect noseparate-code "claims hold, __rseq_offset null"
expect "later PT_LOAD R" "claims hold, __rseq_offset found"
expect "later PT_LOAD none" "claims hold, __rseq_offset null"
expect "later PT_LOAD X" "claims hold, __rseq_offset null"
expect "later PT_LOAD RX" "claims hold, __rseq_offset null"
tap_done
