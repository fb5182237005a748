// SPDX-License-Identifier: GPL-2.0
/* plancmp.c - compare two plans of one file (see plancmp.h). */
#include <string.h>

#include "plancmp.h"

const char *plan_differs(int ra, const struct plan *a, int rb, const struct plan *b)
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
		    a->r[i].xo != b->r[i].xo || strcmp(a->r[i].why, b->r[i].why) ||
		    strcmp(a->r[i].sect, b->r[i].sect) || a->r[i].soff != b->r[i].soff ||
		    a->r[i].ssize != b->r[i].ssize)
			return "a range";
	return NULL;
}
