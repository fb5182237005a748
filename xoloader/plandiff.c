// SPDX-License-Identifier: GPL-2.0
/*
 * plandiff.c - xoplandiff, the differential test of the two planners:
 * elfplan_build() (libelf, the reference) and rtplan_build() (the minimal
 * reader that xoload and xoaudit.so use at run time) must give the same
 * plan - the same ranges, the same execute-only bits, the same reasons,
 * the same TEXTREL bit - or fail with the same message, on every file.
 *
 *   xoplandiff [-v] < LIST      LIST: one path a line (find /usr -type f)
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

#include "elfplan.h"
#include "rt/rtplan.h"

static void show(const char *tag, const struct plan *p)
{
	int i;

	fprintf(stderr, "  %s: %d ranges%s%s%s\n", tag, p->n, p->textrel ? ", TEXTREL" : "",
		p->err[0] ? ", error: " : "", p->err);
	for (i = 0; i < p->n; i++)
		fprintf(stderr, "    %#llx-%#llx %s %s\n", (unsigned long long)p->r[i].start,
			(unsigned long long)p->r[i].end, p->r[i].xo ? "xo" : "readable", p->r[i].why);
}

/* The first difference between @a and @b, or NULL. */
static const char *differs(int ra, const struct plan *a, int rb, const struct plan *b)
{
	int i;

	if (ra != rb)
		return ra ? "only libelf refused" : "only the minimal reader refused";
	if (ra)
		return strcmp(a->err, b->err) ? "different errors" : NULL;
	if (a->textrel != b->textrel)
		return "TEXTREL";
	if (a->n != b->n)
		return "number of ranges";
	for (i = 0; i < a->n; i++)
		if (a->r[i].start != b->r[i].start || a->r[i].end != b->r[i].end ||
		    a->r[i].xo != b->r[i].xo || strcmp(a->r[i].why, b->r[i].why))
			return "a range";
	return NULL;
}

int main(int argc, char **argv)
{
	static struct plan a, b;
	char path[8192];
	long elf = 0, planned = 0, refused = 0, diffs = 0, other = 0;
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");

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
		close(fd);
		why = differs(ra, &a, rb, &b);
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
