// SPDX-License-Identifier: GPL-2.0
/* objprotect.c - plan and protect one object that ld.so mapped (objprotect.h). */
#include "objprotect.h"

#include "../rule/str.h"
#include "carve.h"
#include "fmt.h"
#include "net.h"
#include "plancache.h"
#include "report.h"
#include "rtplan.h"
#include "sameobj.h"
#include "sys.h"
#include "xoload.h"

#define PATH_MAX_ 4096

void xo_say(const char *a, const char *b)
{
	static struct rt_line l;

	l.n = 0;
	rt_put(&l, "xoload: ");
	rt_put_safe(&l, a);
	rt_put_safe(&l, b);
	rt_flush(&l);
}

void xo_refuse(const char *a, const char *b)
{
	xo_say(a, b);
	rt_exit_group(126);
}

/*
 * The file open on @fd is the object ld.so mapped at @bias with its
 * dynamic section at @ld (run/sameobj.h): we opened it by name after ld.so
 * did, and another file's plan must not be applied to this mapping.
 * /proc/self/exe is the mapped file itself.  True if it is, or if
 * --permissive let it go unprotected (the warning said so).
 */
static bool mapped_file(const struct xo_objprotect *o, long fd, const char *path, const char *name, uint64_t bias,
			uint64_t ld)
{
	static char l[PATH_MAX_ + 200];
	const char *why;

	if (!rt_strcmp(path, "/proc/self/exe") || !xo_same_object((int)fd, bias, ld, &why))
		return true;
	rt_close((int)fd);
	if (!(o->flags & XOF_PERMISSIVE)) {
		rt_fmt(l, sizeof(l), ": is not the file ld.so mapped (%s): not run", why);
		xo_refuse(name, l);
	}
	rt_fmt(l, sizeof(l), ": warning: is not the file ld.so mapped (%s): its code stays readable (--permissive)",
	       why);
	xo_say(name, l);
	return false;
}

/* The object's net pages (net.h) watched, from the plan just applied; its cookie. */
static uint32_t watch(const struct xo_objprotect *o, const char *name, uint64_t bias, const struct plan *p)
{
	uint32_t c = xonet_add(name, bias, p, o->net_on ? xoc_last_net() : NULL);

	if (o->net_on)
		xonet_arm();
	return c;
}

uint32_t xo_protect_object(const struct xo_objprotect *o, const char *path, long fd, const char *name,
			   const char *tag, uint64_t bias, uint64_t ld)
{
	struct plan *p = o->plan;	/* no recursion: ld.so holds its lock around both callers */
	const char *note = NULL;

	rt_step("opened", NULL);
	if (fd < 0 || xoc_plan((int)fd, name, 4096, p, o->net, &note)) {
		if (fd >= 0)
			rt_close((int)fd);
		if (!(o->flags & XOF_PERMISSIVE))
			xo_refuse(name, fd < 0 ? ": cannot be planned (cannot open it): not run" :
				  ": cannot be planned (malformed ELF): not run");
		xo_say(name, ": warning: cannot be planned: its code stays readable (--permissive)");
		return 0;
	}
	rt_step("planned", NULL);
	/*
	 * Planned first: a text-relocated (DT_TEXTREL) object, whose code
	 * bytes the check would find relocated at the hook's startup call,
	 * gets a plan that changes nothing in memory (no page execute-only,
	 * nothing to carve), which needs no identity check.  Only that one: a
	 * file swapped for another whose plan leaves everything readable must
	 * still be caught.
	 */
	if ((o->kernel_mode || !p->textrel || rtplan_xo_pages(p, 4096)) && !mapped_file(o, fd, path, name, bias, ld))
		return 0;
	rt_close((int)fd);
	rt_step("same object", NULL);
	if (note && (o->flags & XOF_REPORT)) {
		static char l[PATH_MAX_ + 300];

		rt_fmt(l, sizeof(l), "%s: %s: planned again", name, note);
		xo_say("plan cache: ", l);
	}
	if (xoc_last_hit() && xoc_last_rule() == XOC_RULE_PROVEN && (o->flags & XOF_REPORT)) {
		static char l[PATH_MAX_ + 300];

		rt_fmt(l, sizeof(l), "%s: the proven-code rule's plan", name);
		xo_say("plan cache: ", l);
	}
	if (o->kernel_mode) {
		/* The kernel mapped it execute-only: give the data in it back its read. */
		if (rt_carve(p, bias))
			xo_say(name, ": pkey_mprotect(PROT_READ|PROT_EXEC, 0) failed: its data in text stays unreadable");
		rt_step("carved", NULL);
		return watch(o, name, bias, p);
	}
	if (rtplan_xo_pages(p, 4096) == 0 && p->n) {
		if (o->flags & XOF_STRICT)
			xo_refuse(name, ": no page can be execute-only; refused (--strict)");
		xo_say(name, ": warning: no page can be execute-only: kept readable");
	}
	if (rt_apply(p, bias)) {
		if (!(o->flags & XOF_PERMISSIVE))
			xo_refuse(name, ": mprotect(PROT_EXEC) failed: not run");
		xo_say(name, ": warning: mprotect(PROT_EXEC) failed: its code stays readable (--permissive)");
	}
	rt_step("applied", NULL);
	if (o->flags & XOF_REPORT)
		rt_report_plan(name, p, bias,
			       o->flags & XOF_JSON ? REPORT_JSON : o->flags & XOF_TSV ? REPORT_TSV : REPORT_HUMAN);
	if ((o->flags & XOF_SCAN) && o->scan)
		o->scan(path, tag);
	return watch(o, name, bias, p);
}
