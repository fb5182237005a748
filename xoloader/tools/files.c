// SPDX-License-Identifier: GPL-2.0
/* files.c - see files.h. */
#include <stdio.h>
#include <string.h>

#include "files.h"

void each_file(int n, char **argv, void (*fn)(const char *name))
{
	char line[4096];
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(argv[i], "-")) {
			fn(argv[i]);
			continue;
		}
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\n")] = 0;
			if (line[0])
				fn(line);
		}
	}
}
