// SPDX-License-Identifier: GPL-2.0
/*
 * plandiff.c - xoplandiff, the differential test of the two planners:
 * elfplan_build() (libelf, the reference) and rtplan_build() (the minimal
 * reader that xoload and xoaudit.so use at run time) must give the same
 * plan - the same ranges, the same execute-only bits, the same reasons,
 * the same TEXTREL bit - or fail with the same message, on every file.
 *
 *   xoplandiff [-v] [-p] < LIST      LIST: one path a line (find /usr -type f)
 *
 * -v shows both plans of a file that differs; -p flips the execute-only bit
 * of the minimal reader's first range (the test that the check can fail).
 *
 * Files that do not start with the ELF magic are skipped (counted); every
 * other file is compared with a page size of 4096.  Prints one line per
 * difference and a summary "N ELF files, N planned, N refused by both,
 * N differences"; exit 0 if there are none, 1 otherwise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ref/elfplan.h"
#include "../ref/plancmp.h"
#include "../run/rtplan.h"

static void show(const char *tag, const struct plan *p)
{
	int i;

	fprintf(stderr, "  %s: %d ranges%s%s%s\n", tag, p->n, p->textrel ? ", TEXTREL" : "",
		p->err[0] ? ", error: " : "", p->err);
	for (i = 0; i < p->n; i++)
		fprintf(stderr, "    %#llx-%#llx %s %s %s+%#llx/%llu\n", (unsigned long long)p->r[i].start,
			(unsigned long long)p->r[i].end, p->r[i].xo ? "xo" : "readable", p->r[i].why,
			p->r[i].sect, (unsigned long long)p->r[i].soff, (unsigned long long)p->r[i].ssize);
}

int main(int argc, char **argv)
{
	static struct plan a, b;
	char path[8192];
	long elf = 0, planned = 0, refused = 0, diffs = 0, other = 0;
	bool verbose = false, perturb = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "-p"))
			perturb = true;
		else {
			fprintf(stderr, "usage: xoplandiff [-v] [-p] < LIST\n");
			return 2;
		}
	}

	while (fgets(path, sizeof(path), stdin)) {
		unsigned char mag[4];
		const char *why;
		int fd, ra, rb;

		path[strcspn(path, "\n")] = 0;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (pread(fd, mag, 4, 0) != 4 || memcmp(mag, "\177ELF", 4)) {
			other++;
			close(fd);
			continue;
		}
		elf++;
		ra = elfplan_build(fd, 4096, &a);
		rb = rtplan_build(fd, 4096, &b);
		if (perturb && !rb && b.n)
			b.r[0].xo = !b.r[0].xo;
		close(fd);
		why = plan_differs(ra, &a, rb, &b);
		if (why) {
			diffs++;
			printf("DIFF %s: %s\n", path, why);
			if (verbose) {
				show("libelf", &a);
				show("minimal", &b);
			}
		} else if (ra) {
			refused++;
		} else {
			planned++;
		}
	}
	printf("%ld ELF files, %ld planned, %ld refused by both, %ld differences (%ld other files skipped)\n",
	       elf, planned, refused, diffs, other);
	return diffs != 0;
}
