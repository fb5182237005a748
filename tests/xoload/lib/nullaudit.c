// SPDX-License-Identifier: GPL-2.0
/*
 * nullaudit.c - libnullaudit.so, an LD_AUDIT module that does nothing:
 * built as xoaudit.so is (freestanding, no DT_NEEDED), so that make bench
 * can time a native run with an audit namespace and nothing else - the
 * part of xoload's startup that is ld.so's audit machinery, not ours.
 *
 * Built again with -DTIME_MARKS as libtimeaudit.so: the same, but each
 * callback prints the clock as xoaudit.so does under XOLOAD_TIMES
 * ("xoload: time: EVENT NS" on stderr, CLOCK_MONOTONIC), at the same
 * points (la_version, each named object's la_objopen, the load's first
 * LA_ACT_CONSISTENT), and at la_preinit: make bench's phases of a native
 * run, the baseline that the module's phases are read against (how long
 * ld.so itself takes to get there).  Not for tests: it always prints.
 */
#include <link.h>
#include <stdint.h>

#ifdef TIME_MARKS
#include "../../../xoloader/run/sys.h"

static void mark(const char *event, const char *obj)
{
	char line[512], digits[24];
	uint64_t ns = rt_clock_ns();
	size_t n = 0, k = 0;
	const char *p;

	for (p = "xoload: time: "; *p; p++)
		line[n++] = *p;
	for (p = event; *p && n < 200; p++)
		line[n++] = *p;
	if (obj) {
		line[n++] = ' ';
		for (p = obj; *p && n < 480; p++)
			line[n++] = *p;
	}
	line[n++] = ' ';
	do
		digits[k++] = (char)('0' + ns % 10);
	while ((ns /= 10) && k < sizeof(digits));
	while (k)
		line[n++] = digits[--k];
	line[n++] = '\n';
	rt_syscall(RT_NR_write, 2, (long)line, (long)n);
}
#else
#define mark(event, obj) ((void)0)
#endif

__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	mark("la_version", NULL);
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

__attribute__((visibility("default")))
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	(void)cookie;
	if (map->l_name && map->l_name[0])
		mark("objopen", map->l_name);
	return 0;
}

#ifdef TIME_MARKS
__attribute__((visibility("default"))) void la_activity(uintptr_t *cookie, unsigned int flag)
{
	static int loaded;

	(void)cookie;
	if (flag == LA_ACT_CONSISTENT && !loaded++)
		mark("loaded", NULL);
}

__attribute__((visibility("default"))) void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	mark("preinit", NULL);
}
#endif
