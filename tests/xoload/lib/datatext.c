// SPDX-License-Identifier: GPL-2.0
/*
 * datatext.c - run under `xoload` or `xoload --kernel` by
 * tests/xoload/datatext.sh: a table in .text between two CFI-covered
 * functions (datatext.S, linked in) and the same in a dlopen()ed library
 * (libdatatext.so): the code that loads the table runs, the table reads,
 * both functions fault on read with the execute-only key (SEGV_PKUERR,
 * the smaps key, at the function's first byte).  Prints TAP.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

#define LIB "/xonly/lib/xoload/libdatatext.so"

int dt_sum(void);
const uint32_t *dt_second(void);
extern const uint32_t dt_table[8];

static void check(const char *obj, int (*sum)(void), const uint32_t *(*second)(void), const uint32_t *table)
{
	struct fault f;
	int key;

	tap_ok(sum() == 36, "%s: dt_sum() loads the table from .text RIP-relative: %d (want 36)", obj, sum());
	tap_ok(second() == table, "%s: dt_second() returns the table's address", obj);
	fault_read8(table, &f);
	tap_ok(!f.hit && table[7] == 8, "%s: the table in .text reads (%s, last word %u), smaps key %d",
	       obj, fault_str(&f), f.hit ? 0 : table[7], smaps_pkey(table));
	key = smaps_pkey((const void *)sum);
	fault_read8((const void *)sum, &f);
	tap_ok(key > 0 && fault_is_pkuerr(&f, key, (const void *)sum),
	       "%s: reading dt_sum's first byte: %s (want SEGV_PKUERR pkey %d)", obj, fault_str(&f), key);
	key = smaps_pkey((const void *)second);
	fault_read8((const void *)second, &f);
	tap_ok(key > 0 && fault_is_pkuerr(&f, key, (const void *)second),
	       "%s: reading dt_second's first byte: %s (want SEGV_PKUERR pkey %d)", obj, fault_str(&f), key);
}

int main(int argc, char **argv)
{
	void *h;

	tap_init(argc > 1 ? argv[1] : "datatext");
	if (!pkru_supported())
		tap_bail("no PKU");
	fault_setup();
	check("program", dt_sum, dt_second, dt_table);
	h = dlopen(LIB, RTLD_NOW);
	if (tap_ok(h != NULL, "dlopen %s: %s", LIB, h ? "ok" : dlerror()))
		check("libdatatext.so", (int (*)(void))dlsym(h, "dt_sum"),
		      (const uint32_t *(*)(void))dlsym(h, "dt_second"), dlsym(h, "dt_table"));
	return tap_done();
}
