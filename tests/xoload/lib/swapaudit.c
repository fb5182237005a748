// SPDX-License-Identifier: GPL-2.0
/*
 * swapaudit.c - libswapaudit.so, an LD_AUDIT module that replaces a
 * library's file right after ld.so mapped it (tests/xoload/sameobj.sh,
 * tests/host/sameobj.sh).
 *
 * Listed before xoaudit.so in LD_AUDIT, its la_objopen() runs first for
 * each object: for an object named DIR/libx.so it renames DIR/libx.new
 * (if there is one) over that name, so that xoaudit.so, which opens the
 * object by its name next, opens another file than the one mapped - the
 * race of a package upgrade during a run, made deterministic.  For the
 * main program (an empty name) it renames progx.new over progx in the
 * working directory, if there is one: a program run as ./progx is then
 * another file by that name when xoaudit.so opens it.
 * Freestanding, built as xoaudit.so is (a raw rename system call, no libc).
 */
#include <link.h>
#include <stdint.h>

static long sys_rename(const char *from, const char *to)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(82L), "D"(from), "S"(to) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

__attribute__((visibility("default")))
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	static const char so[] = "/libx.so";
	static char next[4096];
	unsigned long n = 0, i;

	(void)lmid;
	(void)cookie;
	if (map->l_name && !map->l_name[0]) {
		sys_rename("progx.new", "progx");
		return 0;
	}
	while (map->l_name && map->l_name[n] && n < sizeof(next) - 2)
		n++;
	if (n < sizeof(so) - 1 || map->l_name[n])
		return 0;
	for (i = 0; i < sizeof(so) - 1; i++)
		if (map->l_name[n - (sizeof(so) - 1) + i] != so[i])
			return 0;
	/* DIR/libx.so -> DIR/libx.new */
	for (i = 0; i < n - 2; i++)
		next[i] = map->l_name[i];
	next[i++] = 'n', next[i++] = 'e', next[i++] = 'w', next[i] = 0;
	sys_rename(next, map->l_name);
	return 0;
}
