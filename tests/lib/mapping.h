/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mapping.h - anonymous pages for tests and what /proc/self/smaps says
 * about them.
 */
#ifndef XONLY_MAPPING_H
#define XONLY_MAPPING_H

#include <stddef.h>
#include <sys/types.h>

size_t page_size(void);
/* One private anonymous RW page; a failure is fatal (tap_bail). */
char *map_anon_page(void);
/* The "ProtectionKey:" of the smaps entry that holds @addr, or -1. */
int smaps_pkey(const void *addr);
/* A numeric "Field:" (kB for sizes) of the smaps entry holding @addr; -1 if none. */
long smaps_field(const void *addr, const char *field);
/* The perms column ("r-xp") of the /proc/self/maps line holding @addr; "" if none. */
const char *maps_perms(const void *addr);
/* The number in the "@field:" line of /proc/@pid/status, or -1. */
int proc_status_int(pid_t pid, const char *field);

#endif
