// SPDX-License-Identifier: GPL-2.0
/*
 * nullaudit.c - libnullaudit.so, an LD_AUDIT module that does nothing:
 * built as xoaudit.so is (freestanding, no DT_NEEDED), so that make bench
 * can time a native run with an audit namespace and nothing else - the
 * part of xoload's startup that is ld.so's audit machinery, not ours.
 */
#include <link.h>
#include <stdint.h>

__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

__attribute__((visibility("default")))
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map;
	(void)lmid;
	(void)cookie;
	return 0;
}
