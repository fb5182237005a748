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

long smaps_field(const void *addr, const char *field)
{
	char line[4096], name[64];
	unsigned long start, end, a = (unsigned long)addr;
	long val = -1, v;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* Mapping lines start "lo-hi "; field lines never have a '-' there. */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start <= a && a < end;
		else if (in && sscanf(line, "%63[^:]: %ld", name, &v) == 2 && !strcmp(name, field)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

int smaps_pkey(const void *addr)
{
	return (int)smaps_field(addr, "ProtectionKey");
}

const char *maps_perms(const void *addr)
{
	static __thread char perms[5];
	char line[512];
	unsigned long lo, hi, a = (unsigned long)addr;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && lo <= a && a < hi;
	if (f)
		fclose(f);
	if (!found)
		perms[0] = 0;
	return perms;
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
