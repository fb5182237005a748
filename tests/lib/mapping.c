// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mapping.h"
#include "tap.h"

size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

char *map_anon_page(void)
{
	void *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		tap_bail("setup: mmap of one page: %s", strerror(errno));
	return p;
}

int smaps_pkey(const void *addr)
{
	char line[4096];
	unsigned long start, end, a = (unsigned long)addr;
	bool in = false;
	int key = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* Mapping lines start "lo-hi "; field lines never have a '-' there. */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start <= a && a < end;
		else if (in && sscanf(line, "ProtectionKey: %d", &key) == 1)
			break;
	}
	fclose(f);
	return key;
}

int proc_status_int(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%d", &v) == 1)
			break;
	fclose(f);
	return v;
}
