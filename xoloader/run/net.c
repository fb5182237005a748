// SPDX-License-Identifier: GPL-2.0
/*
 * run/net.c - the safety net (net.h): the table of net pages and the
 * SIGSEGV handler that reads it.  Freestanding, in the preloader and in
 * the audit module; the handler is async-signal-safe: raw system calls,
 * no locks, a line built on its own stack.
 *
 * The handler takes a fault that is a protection-key fault of a read
 * (si_code SEGV_PKUERR, the error code without the write bit) at an
 * address inside a recorded net range whose page still maps the object's
 * file (map_id(), net.h): it gives that one page key 0 and
 * PROT_READ|PROT_EXEC (pkey_mprotect, which the kernel's xonly mode leaves
 * alone, as in carve.c), writes one line and returns, and the load runs
 * again and reads.  Anything else - another fault, a net page written, a
 * SIGSEGV sent by kill - puts back the disposition it replaced and
 * returns: a fault happens again and the process dies of it exactly as
 * without the net (status, core dump); a sent signal is raised again if
 * that disposition was the default.  From then on the net is off.
 */
#include "../rule/str.h"
#include "net.h"
#include "sys.h"
#include "xonly/uapi.h"

#define SIGSEGV_		11
#define SEGV_PKUERR_		4
#define SA_SIGINFO_		4
#define SA_RESTORER_		0x04000000
#define SIG_DFL_		0
#define SIG_IGN_		1
#define PF_WRITE_		2	/* the page fault error code's write bit */
/* siginfo_t and ucontext_t on x86-64: si_code at 8, si_addr at 16; gregs at 40, RIP [16], ERR [19]. */
#define SI_CODE_OFF		8
#define SI_ADDR_OFF		16
#define SI_PKEY_OFF		32	/* SEGV_PKUERR: _addr_pkey._pkey, after si_addr and si_addr_lsb */
#define UC_GREGS_OFF		40
#define REG_RIP_		16
#define REG_ERR_		19

struct ksigaction {
	uint64_t handler, flags, restorer, mask;
};

static struct xonet_table table;
static bool installed RT_HOT;
static struct ksigaction old_act;	/* what the handler replaced: SIG_DFL or SIG_IGN */
/* The writer's own state (the handler never reads it). */
static bool closing[XONET_OBJS];	/* la_objclose seen, not yet settled */
static bool fresh[XONET_RANGES];	/* recorded, not yet watched (xonet_arm) */
static uint32_t nfresh RT_HOT;

struct xonet_table *xonet_table(void)
{
	table.version = XONET_VERSION;
	table.size = sizeof(table);
	return &table;
}

bool xonet_on(const char *no_net_env)
{
	return !no_net_env && rt_syscall6(RT_NR_prctl, XONLY_PR_GET_XONLY, 0, 0, 0, 0, 0) != XONLY_PR_XONLY_STRICT;
}

/* --- the handler ------------------------------------------------------------ */

void xonet_restorer(void);
__asm__(".text\n"
	".hidden xonet_restorer\n"
	"xonet_restorer:\n\t"
	"mov $" "15" ", %eax\n\t"		/* rt_sigreturn */
	"syscall\n\t"
	"ud2\n");

/*
 * The handler's line, on its own stack: report.c's rt_line/rt_put/rt_put_hex
 * do the same job with a 12.5 KB buffer, too big for a frame that may sit on
 * a small thread stack when the fault comes.
 */
struct line {
	char b[2 * XONET_NAME + 200];
	size_t n;
};

static void put(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = *s++;
}

static void put_hex(struct line *l, uint64_t v)
{
	char t[16];
	int n = 0;

	put(l, "0x");
	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n && l->n < sizeof(l->b) - 1)
		l->b[l->n++] = t[--n];
}

/* "OBJ+0xOFF" for @a, from the objects recorded; "0xA" if none holds it. */
static void put_where(struct line *l, uint32_t nobj, uint64_t a)
{
	uint32_t i;

	for (i = 0; i < nobj; i++) {
		const struct xonet_obj *o = &table.obj[i];

		if (a >= __atomic_load_n(&o->lo, __ATOMIC_ACQUIRE) && a < __atomic_load_n(&o->hi, __ATOMIC_ACQUIRE)) {
			put(l, o->name);
			put(l, "+");
			put_hex(l, a - o->bias);
			return;
		}
	}
	put_hex(l, a);
}

/* The number at *@p (hex or decimal) up to @e, and *@p past it and one separator. */
static uint64_t field(const char **p, const char *e, uint64_t base)
{
	uint64_t v = 0;

	for (; *p < e; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			break;
		v = v * base + (uint64_t)d;
	}
	if (*p < e)
		(*p)++;
	return v;
}

/*
 * The device (major << 32 | minor) and inode of the mapping that holds @a,
 * from /proc/self/maps (inode 0: not a file); false if none holds it or the
 * file cannot be read.  Raw system calls and small buffers on the stack:
 * the handler calls it.  A line is "START-END PERMS OFFSET MAJ:MIN INODE
 * PATH"; its first 128 characters are kept, the path is not needed.
 */
static bool map_id(uint64_t a, uint64_t *dev, uint64_t *ino)
{
	char b[512], ln[128];
	long fd = rt_open("/proc/self/maps", RT_O_RDONLY | RT_O_CLOEXEC), n, i;
	size_t ll = 0;
	bool found = false;

	if (fd < 0)
		return false;
	while (!found && (n = rt_read((int)fd, b, sizeof(b))) > 0) {
		for (i = 0; i < n && !found; i++) {
			const char *p = ln, *e;
			uint64_t lo, hi, maj;

			if (b[i] != '\n') {
				if (ll < sizeof(ln))
					ln[ll++] = b[i];
				continue;
			}
			e = ln + ll;
			ll = 0;
			lo = field(&p, e, 16);
			hi = field(&p, e, 16);
			if (a < lo || a >= hi)
				continue;
			while (p < e && *p++ != ' ')
				;	/* the permissions */
			field(&p, e, 16);	/* the offset */
			maj = field(&p, e, 16);
			*dev = maj << 32 | field(&p, e, 16);
			*ino = field(&p, e, 10);
			found = true;
		}
	}
	rt_close((int)fd);
	return found;
}

static void handler(int sig, void *info, void *uc)
{
	int code = *(const int *)((const char *)info + SI_CODE_OFF);
	uint64_t addr = *(const uint64_t *)((const char *)info + SI_ADDR_OFF);
	uint32_t pkey = *(const uint32_t *)((const char *)info + SI_PKEY_OFF);
	const uint64_t *gregs = (const uint64_t *)((const char *)uc + UC_GREGS_OFF);
	uint32_t n = __atomic_load_n(&table.nrange, __ATOMIC_ACQUIRE), nobj, i;
	struct line l;

	(void)sig;
	/* A read fault of a protection key; key 0 is never the execute-only one. */
	for (i = 0; code == SEGV_PKUERR_ && pkey && !(gregs[REG_ERR_] & PF_WRITE_) && i < n; i++) {
		const struct xonet_range *r = &table.r[i];
		const struct xonet_obj *o;
		uint64_t dev, ino;

		/* start before end: the order that slot_gone() and slot_set() write against. */
		if (addr < __atomic_load_n(&r->start, __ATOMIC_ACQUIRE) ||
		    addr >= __atomic_load_n(&r->end, __ATOMIC_ACQUIRE))
			continue;
		/* Still the recorded object's file there (net.h)?  A stale entry may precede the right one. */
		o = &table.obj[r->obj < XONET_OBJS ? r->obj : 0];
		if (!map_id(addr, &dev, &ino) || !ino || dev != o->dev || ino != o->ino)
			continue;
		if (rt_pkey_mprotect(rt_page_down(addr), RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_EXEC, 0))
			break;
		nobj = __atomic_load_n(&table.nobj, __ATOMIC_ACQUIRE);
		l.n = 0;
		put(&l, "xoload: read of ");
		put_where(&l, nobj, addr);
		put(&l, " (a page only the proven-code rule made execute-only) by the instruction at ");
		put_where(&l, nobj, gregs[REG_RIP_]);
		put(&l, ": made readable\n");
		rt_write(2, l.b, l.n);
		return;
	}
	/* Not ours: as if there were no net, from now on. */
	rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, (long)&old_act, 0, 8, 0, 0);
	/*
	 * Raised again, so that it kills: a fault would repeat, but a signal
	 * that was sent (kill, sigqueue, a forged si_code) or forced by the
	 * kernel without a faulting access (SI_KERNEL) would not.
	 */
	if (old_act.handler == SIG_DFL_)
		rt_syscall(RT_NR_tgkill, rt_syscall(RT_NR_getpid, 0, 0, 0), rt_syscall(RT_NR_gettid, 0, 0, 0),
			   SIGSEGV_);
}

/* --- the table ----------------------------------------------------------------- */

/* Make @what of object @name readable again (fail safe), with one line saying why. */
static void release(const char *name, uint64_t start, uint64_t end, const char *why)
{
	struct line m;

	for (; start < end; start += RT_PAGE_SIZE)
		rt_pkey_mprotect(start, RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_EXEC, 0);
	m.n = 0;
	put(&m, "xoload: ");
	put(&m, name);
	put(&m, ": pages only the proven-code rule made execute-only kept readable (");
	put(&m, why);
	put(&m, ")\n");
	rt_write(2, m.b, m.n);
}

static void copy_name(char *dst, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i < XONET_NAME - 1; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
	dst[i] = 0;
}

/*
 * Slots are reused (a dlopen/dlclose loop would fill any fixed table).  A
 * gone slot is [~0, 0): empty whichever half the handler sees.  It goes
 * from [s, e) to gone by writing start then end, and from gone to
 * [s', e') by writing end then start, while the handler loads start then
 * end: each pair it can see is empty, [s, e) or [s', e').  (A handler
 * that stalls between its two loads across a whole close and reuse of
 * the same slot could see [s, e'): the race of a new mapping at a closed
 * object's address, xoloader/README.md.)
 */
#define GONE_LO		(~(uint64_t)0)

static void slot_gone(uint64_t *lo, uint64_t *hi)
{
	__atomic_store_n(lo, GONE_LO, __ATOMIC_RELEASE);
	__atomic_store_n(hi, 0, __ATOMIC_RELEASE);
}

static void slot_set(uint64_t *lo, uint64_t *hi, uint64_t s, uint64_t e)
{
	__atomic_store_n(hi, e, __ATOMIC_RELEASE);
	__atomic_store_n(lo, s, __ATOMIC_RELEASE);
}

/* A free object slot (gone and settled, or never used), filled; XONET_OBJS if none. */
static uint32_t obj_put(const char *name, uint64_t bias, uint64_t lo, uint64_t hi, uint64_t dev, uint64_t ino)
{
	uint32_t o;

	for (o = 0; o < table.nobj && !(table.obj[o].lo == GONE_LO && !closing[o]); o++)
		;
	if (o == XONET_OBJS)
		return o;
	table.obj[o].bias = bias;
	table.obj[o].dev = dev;
	table.obj[o].ino = ino;
	copy_name(table.obj[o].name, name);
	slot_set(&table.obj[o].lo, &table.obj[o].hi, lo, hi);
	if (o == table.nobj)
		__atomic_store_n(&table.nobj, o + 1, __ATOMIC_RELEASE);
	return o;
}

/* Range [@s, @e) of object @o in a free slot, not yet watched; false if none is free. */
static bool range_put(uint32_t o, uint64_t s, uint64_t e)
{
	uint32_t k;

	for (k = 0; k < table.nrange && table.r[k].start != GONE_LO; k++)
		;
	if (k == XONET_RANGES)
		return false;
	table.r[k].obj = o;
	slot_set(&table.r[k].start, &table.r[k].end, s, e);
	if (k == table.nrange)
		__atomic_store_n(&table.nrange, k + 1, __ATOMIC_RELEASE);
	fresh[k] = true;
	nfresh++;
	return true;
}

uint32_t xonet_add(const char *name, uint64_t bias, const struct plan *p, const struct xoc_net *net)
{
	uint32_t o;
	int i;

	uint64_t dev = 0, ino = 0;
	bool id;

	if (p->n == 0)
		return 0;
	/*
	 * The table's first page written before obj_put() reads it: a read
	 * first would map the zero page and the write copy it, two faults.
	 */
	xonet_table();
	/* Its file, as the handler will look it up (net.h); only objects with net pages pay for it. */
	id = !net || !net->n || (map_id(net->r[0].start + bias, &dev, &ino) && ino);
	o = obj_put(name, bias, p->r[0].start + bias, p->r[p->n - 1].end + bias, dev, ino);
	for (i = 0; net && i < net->n; i++) {
		uint64_t s = net->r[i].start + bias, e = net->r[i].end + bias;

		if (!id)
			release(name, s, e, "its mapping cannot be looked up in /proc/self/maps");
		else if (o == XONET_OBJS || !range_put(o, s, e))
			release(name, s, e, "the safety net's table is full");
	}
	return o < XONET_OBJS ? o + 1 : 0;
}

/* Object @o's entries no longer match anything. */
static void forget(uint32_t o)
{
	uint32_t n = table.nrange, i;

	for (i = 0; i < n; i++)
		if (table.r[i].obj == o && table.r[i].start != GONE_LO)
			slot_gone(&table.r[i].start, &table.r[i].end);
	slot_gone(&table.obj[o].lo, &table.obj[o].hi);
}

void xonet_close(uint32_t c)
{
	if (c && c <= table.nobj && table.obj[c - 1].lo != GONE_LO)
		closing[c - 1] = true;
}

/* Whether the page at @a is mapped: mincore() fails with ENOMEM on a hole. */
static bool mapped(uint64_t a)
{
	unsigned char v;

	return rt_syscall(RT_NR_mincore, rt_page_down(a), RT_PAGE_SIZE, (long)&v) != -12;
}

void xonet_settle(void)
{
	uint32_t i;

	/* Still mapped: closed at exit, not unmapped, its code may still run (net.h). */
	for (i = 0; i < table.nobj; i++)
		if (closing[i]) {
			closing[i] = false;
			if (!mapped(table.obj[i].lo))
				forget(i);
		}
}

void xonet_arm(void)
{
	struct ksigaction act = { 0, 0, 0, 0 }, cur;
	uint32_t n = table.nrange, i;
	bool ok = false;

	if (!nfresh)
		return;
	if (rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, 0, (long)&cur, 8, 0, 0) == 0 &&
	    (cur.handler == (uint64_t)handler || cur.handler == SIG_DFL_ || cur.handler == SIG_IGN_)) {
		ok = cur.handler == (uint64_t)handler;
		if (!ok) {
			act.handler = (uint64_t)handler;
			act.flags = SA_SIGINFO_ | SA_RESTORER_;
			act.restorer = (uint64_t)xonet_restorer;
			old_act = cur;
			ok = rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, (long)&act, 0, 8, 0, 0) == 0;
			installed |= ok;
		}
	}
	for (i = 0; i < n; i++) {
		struct xonet_range *r = &table.r[i];

		if (!fresh[i])
			continue;
		fresh[i] = false;
		if (ok)
			continue;
		/* The program's own handler (or none can be installed): those pages stay readable. */
		release(table.obj[r->obj].name, r->start, r->end, installed ?
			"the program replaced the safety net's SIGSEGV handler" :
			"the program has a SIGSEGV handler of its own");
		slot_gone(&r->start, &r->end);
	}
	nfresh = 0;
}

bool xonet_import(const struct xonet_table *from)
{
	uint32_t no, nr, i, map[XONET_OBJS];

	if (from->version != XONET_VERSION || from->size != sizeof(*from))
		return false;
	no = __atomic_load_n(&from->nobj, __ATOMIC_ACQUIRE);
	nr = __atomic_load_n(&from->nrange, __ATOMIC_ACQUIRE);

	for (i = 0; i < no && i < XONET_OBJS; i++)
		map[i] = from->obj[i].lo == GONE_LO ? XONET_OBJS :
			obj_put(from->obj[i].name, from->obj[i].bias, from->obj[i].lo, from->obj[i].hi,
				from->obj[i].dev, from->obj[i].ino);
	/* What did not fit here (it fit there: never with equal sizes) stays readable. */
	for (i = 0; i < nr; i++) {
		const struct xonet_range *r = &from->r[i];

		if (r->start == GONE_LO || r->obj >= no || r->obj >= XONET_OBJS)
			continue;
		if (map[r->obj] == XONET_OBJS || !range_put(map[r->obj], r->start, r->end))
			release(from->obj[r->obj].name, r->start, r->end, "the safety net's table is full");
	}
	return true;
}
