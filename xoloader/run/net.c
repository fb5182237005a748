// SPDX-License-Identifier: GPL-2.0
/*
 * run/net.c - the safety net (net.h): the table of net pages and the
 * SIGSEGV handler that reads it.  Freestanding, in the preloader and in
 * the audit module; the handler is async-signal-safe: raw system calls,
 * no locks, a line built on its own stack.
 *
 * The handler takes a fault that is a protection-key fault of a read
 * (si_code SEGV_PKUERR, the error code without the write bit) at an
 * address inside a recorded net range: it gives that one page key 0 and
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
static uint32_t armed;			/* ranges [0, armed) are watched */
static bool installed;
static struct ksigaction old_act;	/* what the handler replaced: SIG_DFL or SIG_IGN */
static bool closing[XONET_OBJS];	/* la_objclose seen, not yet settled (writer only) */

struct xonet_table *xonet_table(void)
{
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

		if (a >= o->lo && a < __atomic_load_n(&o->hi, __ATOMIC_RELAXED)) {
			put(l, o->name);
			put(l, "+");
			put_hex(l, a - o->bias);
			return;
		}
	}
	put_hex(l, a);
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

		if (addr < r->start || addr >= __atomic_load_n(&r->end, __ATOMIC_RELAXED))
			continue;
		if (rt_pkey_mprotect(addr & ~(uint64_t)(RT_PAGE_SIZE - 1), RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_EXEC, 0))
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

uint32_t xonet_add(const char *name, uint64_t bias, const struct plan *p, const struct xoc_net *net)
{
	uint32_t o = table.nobj, k;
	struct xonet_obj *ob;
	int i;

	if (p->n == 0)
		return 0;
	if (o < XONET_OBJS) {
		ob = &table.obj[o];
		ob->bias = bias;
		ob->lo = p->r[0].start + bias;
		ob->hi = p->r[p->n - 1].end + bias;
		copy_name(ob->name, name);
		__atomic_store_n(&table.nobj, o + 1, __ATOMIC_RELEASE);
	}
	for (i = 0; net && i < net->n; i++) {
		uint64_t s = net->r[i].start + bias, e = net->r[i].end + bias;

		k = table.nrange;
		if (o >= XONET_OBJS || k >= XONET_RANGES) {
			release(name, s, e, "the safety net's table is full");
			continue;
		}
		table.r[k].start = s;
		table.r[k].end = e;
		table.r[k].obj = o;
		__atomic_store_n(&table.nrange, k + 1, __ATOMIC_RELEASE);
	}
	return o < XONET_OBJS ? o + 1 : 0;
}

/* Object @o's entries no longer match anything. */
static void forget(uint32_t o)
{
	uint32_t n = table.nrange, i;

	for (i = 0; i < n; i++)
		if (table.r[i].obj == o)
			__atomic_store_n(&table.r[i].end, table.r[i].start, __ATOMIC_RELEASE);
	__atomic_store_n(&table.obj[o].hi, table.obj[o].lo, __ATOMIC_RELEASE);
}

void xonet_close(uint32_t c)
{
	if (c && c <= table.nobj)
		closing[c - 1] = true;
}

/* Whether the page at @a is mapped: mincore() fails with ENOMEM on a hole. */
static bool mapped(uint64_t a)
{
	unsigned char v;

	return rt_syscall(RT_NR_mincore, a & ~(uint64_t)(RT_PAGE_SIZE - 1), RT_PAGE_SIZE, (long)&v) != -12;
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

	if (armed == n)
		return;
	if (rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, 0, (long)&cur, 8, 0, 0) == 0 &&
	    (cur.handler == (uint64_t)handler || cur.handler == SIG_DFL_ || cur.handler == SIG_IGN_)) {
		if (cur.handler != (uint64_t)handler) {
			act.handler = (uint64_t)handler;
			act.flags = SA_SIGINFO_ | SA_RESTORER_;
			act.restorer = (uint64_t)xonet_restorer;
			old_act = cur;
			if (rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, (long)&act, 0, 8, 0, 0) == 0)
				installed = true;
			else
				cur.handler = ~0ull;
		}
		if (cur.handler != ~0ull) {
			armed = n;
			return;
		}
	}
	/* The program's own handler (or none can be installed): those pages stay readable. */
	for (i = armed; i < n; i++) {
		const struct xonet_range *r = &table.r[i];

		release(table.obj[r->obj].name, r->start, r->end, installed ?
			"the program replaced the safety net's SIGSEGV handler" :
			"the program has a SIGSEGV handler of its own");
		__atomic_store_n(&table.r[i].end, r->start, __ATOMIC_RELEASE);
	}
	armed = n;
}

void xonet_import(const struct xonet_table *from)
{
	uint32_t no = __atomic_load_n(&from->nobj, __ATOMIC_ACQUIRE), nr = __atomic_load_n(&from->nrange, __ATOMIC_ACQUIRE);
	uint32_t i, base = table.nobj;

	/* Field by field: a struct copy may be a memcpy() call, and there is none here. */
	for (i = 0; i < no && base + i < XONET_OBJS; i++) {
		table.obj[base + i].bias = from->obj[i].bias;
		table.obj[base + i].lo = from->obj[i].lo;
		table.obj[base + i].hi = from->obj[i].hi;
		copy_name(table.obj[base + i].name, from->obj[i].name);
	}
	__atomic_store_n(&table.nobj, base + i, __ATOMIC_RELEASE);
	for (i = 0; i < nr && from->r[i].obj + base < table.nobj && table.nrange < XONET_RANGES; i++) {
		uint32_t k = table.nrange;

		table.r[k].start = from->r[i].start;
		table.r[k].end = from->r[i].end;
		table.r[k].obj = from->r[i].obj + base;
		__atomic_store_n(&table.nrange, k + 1, __ATOMIC_RELEASE);
	}
	/* What did not fit here (it fit there: never with equal sizes) stays readable. */
	for (; i < nr; i++)
		release(from->obj[from->r[i].obj].name, from->r[i].start, from->r[i].end,
			"the safety net's table is full");
}
