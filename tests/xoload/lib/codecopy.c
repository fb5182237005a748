// SPDX-License-Identifier: GPL-2.0
/*
 * codecopy.c - is a copy of an execute-only library's code left in
 * readable memory (tests/xoload/hook.sh)?  libcodecopy.so has no build-id,
 * so the identity check of the hook and of the module (run/sameobj.c)
 * compares its code segment with the file through a buffer.  This program
 * calls codecopy_fn(), then reads every readable mapping of its own through
 * /proc/self/mem (no fault on a page that cannot be read; execute-only
 * mappings are left out by their permissions in /proc/self/maps, since
 * /proc/self/mem may read them) and counts the
 * places that hold codecopy_fn's instruction "movabs $0x5a17c0de5a17c0de,
 * %rax": natively one (the library's own code), under xoload none.  The
 * 10 bytes are compared with their complements, read from volatile data,
 * so that this program holds no copy of them itself (compiled from
 * constants, the comparison was that very instruction).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long codecopy_fn(void);

/* The instruction's bytes, complemented: neither this data nor code compiled from it holds them. */
static volatile const unsigned char not_insn[10] = { 0xb7, 0x47, 0x21, 0x3f, 0xe8, 0xa5, 0x21, 0x3f, 0xe8, 0xa5 };

static volatile const long not_value = 0xa5e83f21a5e83f21L;	/* ~0x5a17c0de5a17c0de */

static int is_insn(const unsigned char *p)
{
	int k;

	for (k = 0; k < 10; k++)
		if ((p[k] ^ not_insn[k]) != 0xff)
			return 0;
	return 1;
}

int main(void)
{
	static unsigned char buf[1 << 16];
	char line[512], perms[8], path[256];
	unsigned long lo, hi, a;
	int mem = open("/proc/self/mem", O_RDONLY), own = 0, other = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (codecopy_fn() != ~not_value || mem < 0 || !maps) {
		printf("codecopy: cannot run\n");
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perms, path) < 3 || perms[0] != 'r' ||
		    !strcmp(path, "[vvar]") || !strcmp(path, "[vsyscall]"))
			continue;
		for (a = lo; a < hi; a += sizeof(buf) - 9) {	/* 9 bytes again: a match across the end is found once */
			size_t n = hi - a < sizeof(buf) ? hi - a : sizeof(buf), i;
			ssize_t got = pread(mem, buf, n, (off_t)a);

			for (i = 0; got >= 10 && i + 10 <= (size_t)got; i++)
				if (is_insn(buf + i)) {
					if (strstr(path, "libcodecopy.so"))
						own++;
					else {
						other++;
						fprintf(stderr, "codecopy: a copy at %#lx in %s\n", a + i, line);
					}
				}
			if (n < sizeof(buf))
				break;
		}
	}
	printf("codecopy: %d in the library's own mapping, %d elsewhere\n", own, other);
	return 0;
}
