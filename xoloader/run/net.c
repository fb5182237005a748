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
 *
 * The same handler is the load guard (xonet_guard(), the kernel's xonly
 * mode: --kernel, and xoload's module or hook under xonly=on or =strict):
 * there the kernel maps every PF_X segment execute-only as ld.so maps it, and ld.so
 * reads an object's program headers and notes from its mapping before
 * la_objopen(), where the module would make them readable.  Where those
 * lie in a code segment (BOLT's librustc_driver, -z noseparate-code
 * objects) ld.so's read faults.  The guard, there only while ld.so loads
 * (la_objsearch to LA_ACT_CONSISTENT, or the hook's RT_ADD to
 * RT_CONSISTENT, over the default disposition),
 * takes such a fault - a read of a protection key by ld.so's own code -
 * and, if the byte read is one of the file's ELF header, program headers
 * or notes inside a code segment (header_byte(), from the file the
 * mapping shows), makes its page readable, as the object's plan will
 * (a page with such bytes is never execute-only in a plan), and returns;
 * any other read by ld.so gets one line naming the object, the offset
 * and why, then dies as without the guard.
 */
#include <elf.h>

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
/* The load guard: ld.so's code, the reader it serves (xonet_guard()); whether it installed the handler. */
static uint64_t guard_lo, guard_hi;
static bool guard_owns;
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

bool xonet_on(const char *no_net_env, long xonly_level)
{
	return !no_net_env && xonly_level != XONLY_PR_XONLY_STRICT;
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
	char b[2 * XONET_NAME + 400];
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
 * The mapping that holds @a, from /proc/self/maps: its start, file offset,
 * device (major << 32 | minor) and inode (0: not a file), in @perms its
 * permissions ("r-xp"), and in *@path its file's name inside @ln (NULL if
 * the line did not fit in @lnsz); false if none holds it or the file
 * cannot be read.  Raw system calls, buffers on the stack: the handler
 * calls it.  A line is "START-END PERMS OFFSET MAJ:MIN INODE PATH".
 */
struct mapping {
	uint64_t lo, off, dev, ino;
	char perms[5];
	const char *path;
};

static bool map_file(uint64_t a, struct mapping *m, char *ln, size_t lnsz)
{
	char b[512];
	long fd = rt_open("/proc/self/maps", RT_O_RDONLY | RT_O_CLOEXEC), n, i;
	size_t ll = 0, k;
	bool found = false;

	if (fd < 0)
		return false;
	while (!found && (n = rt_read((int)fd, b, sizeof(b))) > 0) {
		for (i = 0; i < n && !found; i++) {
			const char *p = ln, *e;
			uint64_t hi, maj;

			if (b[i] != '\n') {
				if (ll < lnsz)
					ln[ll++] = b[i];
				else
					ll = lnsz + 1;	/* too long: no path */
				continue;
			}
			e = ln + (ll > lnsz ? lnsz : ll);
			m->lo = field(&p, e, 16);
			hi = field(&p, e, 16);
			if (a < m->lo || a >= hi) {
				ll = 0;
				continue;
			}
			for (k = 0; p < e && *p != ' '; p++)
				if (k < sizeof(m->perms) - 1)
					m->perms[k++] = *p;
			m->perms[k] = 0;
			if (p < e)
				p++;
			m->off = field(&p, e, 16);
			maj = field(&p, e, 16);
			m->dev = maj << 32 | field(&p, e, 16);
			m->ino = field(&p, e, 10);
			while (p < e && *p == ' ')
				p++;
			m->path = NULL;
			if (ll < lnsz && p < e) {
				ln[ll] = 0;
				m->path = p;
			}
			found = true;
		}
	}
	rt_close((int)fd);
	return found;
}

/* The device and inode of the mapping that holds @a (map_file()), for the net's entries. */
static bool map_id(uint64_t a, uint64_t *dev, uint64_t *ino)
{
	char ln[128];
	struct mapping m;

	if (!map_file(a, &m, ln, sizeof(ln)))
		return false;
	*dev = m.dev;
	*ino = m.ino;
	return true;
}

static bool inside(uint64_t x, uint64_t off, uint64_t len)
{
	return x >= off && x - off < len;
}

/* As the kernel reads them for a plan (kernel/patches 0072): no more. */
#define GUARD_MAX_PHNUM		128
#define GUARD_MAX_NOTE		4096

/*
 * Whether the byte at file offset @fo of the ELF file open on @fd is one
 * of its headers or notes, inside the file range of a PF_X PT_LOAD: what
 * ld.so reads there before la_objopen() and what rtplan's plan always
 * keeps readable (the ELF header, the program headers, non-code sections;
 * a byte past a segment's p_filesz in the same page is not the segment's,
 * so not given back).  NULL if so, else why not.
 */
static const char *header_byte(long fd, uint64_t fo)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[8];
	bool head, code = false;
	int i, j, k;

	if (rt_pread((int)fd, &eh, sizeof(eh), 0) != sizeof(eh) || rt_memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > GUARD_MAX_PHNUM)
		return "not an ELF file the guard reads";
	head = fo < sizeof(eh) || inside(fo, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr));
	for (i = 0; i < eh.e_phnum; i += k) {
		k = eh.e_phnum - i < 8 ? eh.e_phnum - i : 8;
		if (rt_pread((int)fd, ph, (size_t)k * sizeof(ph[0]), eh.e_phoff + (uint64_t)i * sizeof(ph[0])) !=
		    (long)(k * sizeof(ph[0])))
			return "its program headers cannot be read";
		for (j = 0; j < k; j++) {
			if ((ph[j].p_type == PT_NOTE || ph[j].p_type == PT_GNU_PROPERTY) &&
			    ph[j].p_filesz <= GUARD_MAX_NOTE && inside(fo, ph[j].p_offset, ph[j].p_filesz))
				head = true;
			if (ph[j].p_type == PT_LOAD && (ph[j].p_flags & PF_X) && inside(fo, ph[j].p_offset, ph[j].p_filesz))
				code = true;
		}
	}
	return !head ? "not its headers" : !code ? "past its code segment" : NULL;
}

/* @s with control characters as '?', as the net's names (copy_name()). */
static void put_clean(struct line *l, const char *s)
{
	for (; *s && l->n < sizeof(l->b) - 1; s++)
		l->b[l->n++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
}

/*
 * The load guard's case (see the top): ld.so's read of @a faulted.  True
 * if the byte read is one of the ELF header, program headers or notes of
 * the file mapped there (header_byte()), in a code mapping, and its page
 * is now readable; otherwise one line, and false.  The file is the one
 * /proc/self/maps names, checked by inode and type: not by device, which
 * btrfs (a subvolume's) and overlayfs (on 6.1) report otherwise in
 * fstat() than in maps.  Not inlined: its frame, some 6 KB, is taken
 * only on such a fault, not by every run of the handler on a small
 * thread stack.
 */
static __attribute__((noinline)) bool guard_read(uint64_t a)
{
	char ln[128 + 4096];	/* a maps line: 128 for its fields, PATH_MAX for its name */
	const char *why = "its mapping cannot be looked up in /proc/self/maps";
	struct mapping m = { 0, 0, 0, 0, "", NULL };
	uint64_t st[18];
	struct line l;
	long fd;

	if (map_file(a, &m, ln, sizeof(ln))) {
		why = !m.ino ? "not a file" : !m.path ? "its name is too long" :
		      m.perms[1] == 'w' || m.perms[2] != 'x' ? "not a code mapping" : NULL;
	}
	if (!why) {
		fd = rt_open(m.path, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
		if (fd < 0)
			why = "its file cannot be opened";
		else if (rt_syscall(RT_NR_fstat, fd, (long)st, 0) || ((uint32_t)st[3] & RT_S_IFMT) != RT_S_IFREG ||
			 st[1] != m.ino)
			why = "its file is not the one mapped";
		else
			why = header_byte(fd, a - m.lo + m.off);
		if (fd >= 0)
			rt_close((int)fd);
	}
	if (!why && !rt_pkey_mprotect(rt_page_down(a), RT_PAGE_SIZE, RT_PROT_READ | RT_PROT_EXEC, 0))
		return true;
	l.n = 0;
	put(&l, "xoload: ld.so read ");
	if (m.path) {
		put_clean(&l, m.path);
		put(&l, "+");
		put_hex(&l, a - m.lo + m.off);
	} else {
		put_hex(&l, a);
	}
	put(&l, " (");
	put(&l, why ? why : "its headers, but its page could not be made readable");
	put(&l, ") while it loaded it, mapped execute-only by the kernel: in the kernel's xonly mode (--kernel,"
		" xonly=on) only headers and notes are given back before xoload plans it (outside it, a"
		" -z noseparate-code object runs under xoload without --kernel)");
	if (l.n >= sizeof(l.b) - 1)
		l.n = sizeof(l.b) - 2;
	l.b[l.n++] = '\n';
	rt_write(2, l.b, l.n);
	return false;
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
	/* ld.so reading an object it is loading (--kernel): its headers, or a line. */
	if (code == SEGV_PKUERR_ && pkey && !(gregs[REG_ERR_] & PF_WRITE_) && gregs[REG_RIP_] >= guard_lo &&
	    gregs[REG_RIP_] < guard_hi && guard_read(addr))
		return;
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

/*
 * SIGSEGV's handler ours: 2 if installed now (the disposition was the
 * default or ignored, kept in old_act), 1 if it already was, 0 if the
 * program's own handler is there or none can be installed.
 */
static int install(void)
{
	struct ksigaction act = { 0, 0, 0, 0 }, cur;

	if (rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, 0, (long)&cur, 8, 0, 0))
		return 0;
	if (cur.handler == (uint64_t)handler)
		return 1;
	if (cur.handler != SIG_DFL_ && cur.handler != SIG_IGN_)
		return 0;
	act.handler = (uint64_t)handler;
	act.flags = SA_SIGINFO_ | SA_RESTORER_;
	act.restorer = (uint64_t)xonet_restorer;
	old_act = cur;
	return rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, (long)&act, 0, 8, 0, 0) == 0 ? 2 : 0;
}

void xonet_arm(void)
{
	uint32_t n = table.nrange, i;
	bool ok;

	if (!nfresh)
		return;
	ok = install() != 0;
	installed |= ok;
	if (ok)
		guard_owns = false;	/* the net keeps it from now on */
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

bool xonet_guard(uint64_t ld_lo, uint64_t ld_hi)
{
	int r;

	guard_lo = ld_lo;
	guard_hi = ld_hi;
	if (guard_owns)
		return true;
	r = install();
	guard_owns = r == 2;
	return r != 0;
}

void xonet_code_span(uint64_t bias, const Elf64_Phdr *ph, int phnum, uint64_t *lo, uint64_t *hi)
{
	int i;

	*lo = ~(uint64_t)0;
	*hi = 0;
	for (i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			if (bias + ph[i].p_vaddr < *lo)
				*lo = bias + ph[i].p_vaddr;
			if (bias + ph[i].p_vaddr + ph[i].p_memsz > *hi)
				*hi = bias + ph[i].p_vaddr + ph[i].p_memsz;
		}
}

void xonet_guard_end(void)
{
	struct ksigaction cur;

	if (!guard_owns)
		return;
	guard_owns = false;
	/* Still ours (not put back by the handler, nor replaced): the disposition the program had. */
	if (rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, 0, (long)&cur, 8, 0, 0) == 0 && cur.handler == (uint64_t)handler)
		rt_syscall6(RT_NR_rt_sigaction, SIGSEGV_, (long)&old_act, 0, 8, 0, 0);
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
