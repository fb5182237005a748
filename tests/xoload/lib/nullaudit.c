// SPDX-License-Identifier: GPL-2.0
/*
 * nullaudit.c - libnullaudit.so, an LD_AUDIT module that does nothing:
 * built as xoaudit.so is (freestanding, no DT_NEEDED), so that make bench
 * can time a native run with an audit namespace and nothing else - the
 * part of xoload's startup that is ld.so's audit machinery, not ours.
 *
 * Built again with -DTIME_MARKS as libtimeaudit.so, with run/report.c:
 * the same, but each callback prints the clock with xoaudit.so's
 * rt_time() under XOLOAD_TIMES ("xoload: time: EVENT NS" on stderr,
 * CLOCK_MONOTONIC), at the same
 * points (la_version, each named object's la_objopen, the load's first
 * LA_ACT_CONSISTENT), and at la_preinit: make bench's phases of a native
 * run, the baseline that the module's phases are read against (how long
 * ld.so itself takes to get there).  Not for tests: it always prints.
 */
#include <link.h>
#include <stdint.h>

#ifdef TIME_MARKS
#include "../../../xoloader/run/report.h"
#include "../../../xoloader/run/sys.h"

/* xoaudit.so's own line (run/report.c), which make bench parses. */
#define mark(event, obj) rt_time(event, obj, rt_clock_ns())
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
