// SPDX-License-Identifier: GPL-2.0
/*
 * hook.c - ld.so's debugger hook in place of the audit module (xoload's
 * default; XOLOAD_HOOK=0 asks for the module, XOLOAD_HOOK=1 for the hook
 * or an error).
 *
 * Why: an LD_AUDIT module, even one that does nothing, costs a quarter of a
 * small program's start under TCG (hello 21.6 ms natively, 26.6 ms with a
 * do-nothing module, 80 interleaved runs in the 6.1 VM): ld.so opens a
 * second namespace, loads the module and calls it for every object.  xoload already maps ld.so
 * itself, so it can ask ld.so to call it another way.
 *
 * How: ld.so calls _dl_debug_state(), an empty function it exports for
 * debuggers (their breakpoint, r_debug.r_brk), each time a link map
 * changes, with r_state RT_ADD or RT_DELETE before and RT_CONSISTENT after:
 *   - at startup, once every DT_NEEDED object is mapped and relocated,
 *     before any constructor and before PROG's entry (glibc elf/rtld.c);
 *   - in dlopen()/dlmopen(), once the new objects are mapped, before ld.so
 *     relocates them or runs their constructors (elf/dl-open.c);
 *   - in dlclose(), once the objects are unmapped (elf/dl-close.c).
 * xoload patches that function - a "ret" (or endbr64; ret) and padding up to
 * its 16-byte slot - into "movabs $hook_debug_state, %r11; jmp *%r11"
 * before ld.so runs, and this file, which stays mapped in the process as
 * xoload's own execute-only code, plans and protects each object it has not
 * seen in a consistent namespace (objprotect.c, as the module does).
 *
 * What differs from the module:
 *   - the startup libraries' code (libc's) is readable while ld.so relocates
 *     them, runs their IFUNC resolvers and libc's __libc_early_init:
 *     protected before any constructor or PROG runs, where the module
 *     protects them before relocation;
 *   - the safety net is the preloader's (net.c), not the module's.
 * In the kernel's xonly mode (xonly=on, or a parent's prctl) the kernel
 * makes each PF_X segment execute-only as ld.so maps it, and ld.so reads
 * program headers and notes from the mapping: from a call with r_state
 * RT_ADD to the consistent call that ends the load, the hook puts up the
 * module's load guard (net.c: such a read of headers or notes gets their
 * page back, as the object's plan will).  At startup ld.so makes that call
 * before it maps the first library; in dlopen() (glibc 2.35+) only once
 * the object asked for is mapped, its headers read: that object is not
 * guarded (a library with its headers in code dlopen()ed in xonly mode:
 * XOLOAD_HOOK=0, whose la_objsearch() comes first, xoload(1)).
 * Inheritance is the module's: LD_AUDIT goes into PROG's environment under
 * another name (XO_AUDIT), which ld.so does not read, and the first
 * consistent state names it LD_AUDIT again (or removes it, --no-inherit),
 * before libc reads the environment; so PROG's children load the module,
 * which protects them in place (XOLOAD_CHILDREN=reexec: re-executes them
 * under xoload, with XOLOAD_HOOK still set).
 *
 * Fail closed: ld.so's _dl_debug_state or _r_debug not found, or not the
 * shape above, gets the module, or with XOLOAD_HOOK=1 refuses to run
 * (126).  If ld.so never calls the hook, the
 * gate (xoload.h) stops PROG before its entry (the startup libraries'
 * constructors have run by then, readable).  An ld.so older than glibc
 * 2.35 (dlmopen() namespaces outside the r_next chain) and a process under
 * memory-deny-write-execute (PR_SET_MDWE: the patch's R+X refused) get the
 * module.  Other refusals of that mprotect() (SELinux without execmod) get
 * the file's page mapped back and the module, or 126 with XOLOAD_HOOK=1.
 */
#include <elf.h>
#include <link.h>

#include "../rule/str.h"
#include "dynsym.h"
#include "fmt.h"
#include "net.h"
#include "objprotect.h"
#include "report.h"
#include "hook.h"
#include "runpath.h"
#include "sys.h"
#include "xoload.h"
#include "xonly/uapi.h"

#define HOOK_MAX	4096	/* objects in all namespaces at once */
#define PATCH_LEN	13	/* movabs $imm64, %r11 (10); jmp *%r11 (3) */

struct seen { const struct link_map *map; uint64_t addr, ld; uint32_t cookie; bool kept; };

static struct r_debug_extended *rdebug RT_HOT;	/* ld.so's _r_debug */
static RT_HOT uint64_t prog_bias, interp_bias, vdso_base;
static struct xo_objprotect op RT_HOT;
static char *hidden_audit RT_HOT;	/* "XO_AUDIT=...": LD_AUDIT, hidden from PROG's ld.so */
static char *hidden_tunables RT_HOT;	/* "XOIBC_TUNABLES=...": the module's GLIBC_TUNABLES (runpath.c) */
static bool user_tunables RT_HOT;	/* the user's entry, which PROG's ld.so read, is in the one above */
static char **hook_envp RT_HOT;	/* PROG's environment, on its initial stack */
static bool started RT_HOT;
static RT_HOT uint64_t ld_code_lo, ld_code_hi;	/* ld.so's PF_X span: the load guard's reader */
static bool in_xonly_mode RT_HOT;	/* the kernel's xonly mode, level 1 or 2, when xoload ran */
/*
 * The objects of the last call (.now, nseen of them) and of this one
 * (.next): side by side, so that a few dozen of each are one page, not
 * one page in each of two 128 KB arrays.
 */
static struct { struct seen now, next; } tab[HOOK_MAX];
static int nseen RT_HOT;
/*
 * ld.so calls the hook under its load lock, but _dl_debug_state is
 * public (r_debug.r_brk): a program may call it from another thread at
 * the same time, or from a signal handler that interrupted it.  The
 * tables above and objprotect's plan are shared, so one caller at a time
 * (the tid of the one inside, 0 if none); a call from inside itself stops
 * the program.
 */
static long hook_owner RT_HOT;

void hook_debug_state(void);

/* The entry of @m in the table of the last call, or NULL. */
static struct seen *was_seen(const struct link_map *m)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (tab[i].now.map == m && tab[i].now.addr == m->l_addr && tab[i].now.ld == (uint64_t)m->l_ld)
			return &tab[i].now;
	return NULL;
}

/* PROG, ld.so and the vDSO were done by xoload, or are kept readable (the vDSO's symbol tables). */
static bool done_before(const struct link_map *m, bool first_of_base)
{
	return (first_of_base && m->l_addr == prog_bias) || m->l_addr == interp_bias ||
	       (vdso_base && m->l_addr == vdso_base);
}

/* The first consistent state: before libc reads the environment or any constructor runs. */
static void start(void)
{
	char **r, **w;

	started = true;
	rt_step("hook", NULL);
	if (hidden_audit && hook_envp) {
		/*
		 * --no-inherit: neither is left.  Else both are named again, ours
		 * in place of the user's first GLIBC_TUNABLES, which it holds
		 * (found by its name: ld.so put its own copy of it there).
		 */
		bool keep = !(op.flags & XOF_NO_INHERIT), placed = false;

		if (keep && hidden_tunables && user_tunables)
			for (r = hook_envp; *r; r++)
				if (!rt_strncmp(*r, "GLIBC_TUNABLES=", 15)) {
					*r = hidden_tunables;
					break;
				}
		for (r = w = hook_envp; *r; r++) {
			bool ours = *r == hidden_tunables;

			if ((!keep && (*r == hidden_audit || ours)) || (ours && placed))
				continue;
			placed |= ours;
			*w++ = *r;
		}
		*w = NULL;
		if (keep) {
			hidden_audit[0] = 'L';
			hidden_audit[1] = 'D';
			if (hidden_tunables) {
				hidden_tunables[0] = 'G';
				hidden_tunables[1] = 'L';
			}
		}
	}
	/* AT_ENTRY is PROG's again for the program; ld.so already took the gate's. */
	if (gate.auxv_entry)
		*gate.auxv_entry = gate.entry;
	gate.confirmed = XOLOAD_GATE_OK;
}

/* Plan and protect @m; its safety net cookie (net.h). */
static uint32_t protect_new(const struct link_map *m)
{
	uint32_t c;

	if (!m->l_name || !m->l_name[0])
		xo_refuse("an object without a name in ld.so's link map: ", "cannot be planned: not run");
	rt_step("hooked", m->l_name);
	c = xo_protect_object(&op, m->l_name, xo_open_object(m->l_name), m->l_name, "", m->l_addr, (uint64_t)m->l_ld);
	rt_step("protected", m->l_name);
	return c;
}

/*
 * A fork() while another thread is inside the hook leaves the child's
 * hook_owner naming a thread the child does not have (glibc resets ld.so's
 * lock in the child): the child takes it over instead of waiting forever.
 */
static void hook_enter(void)
{
	long tid = rt_syscall(RT_NR_gettid, 0, 0, 0), owner = 0;

	if (__atomic_load_n(&hook_owner, __ATOMIC_RELAXED) == tid)
		xo_refuse("ld.so's hook (_dl_debug_state) ", "called again from within itself: not run");
	while (!__atomic_compare_exchange_n(&hook_owner, &owner, tid, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		if (rt_syscall(RT_NR_tgkill, rt_syscall(RT_NR_getpid, 0, 0, 0), owner, 0) == -RT_ESRCH)
			continue;	/* gone: owner holds its tid, the exchange takes it over */
		owner = 0;
		rt_syscall(RT_NR_sched_yield, 0, 0, 0);
	}
}

/*
 * A load (some namespace in RT_ADD): in the kernel's xonly mode, the load
 * guard (net.h); the call that ends it takes it down.  Whether the process
 * is in xonly mode is asked once, in hook_install(), before the program
 * runs: a prctl() inside its dlopen() could meet a seccomp filter it has
 * installed since.  Learn mode (level 3) reads code without a fault: no
 * guard there.
 */
static void guard_load(bool loading)
{
	if (!loading)
		xonet_guard_end();
	else if (in_xonly_mode && ld_code_hi)
		xonet_guard(ld_code_lo, ld_code_hi);
}

/*
 * Called by ld.so where it calls _dl_debug_state(), under its load lock.
 * Every namespace (r_next: hook_install() requires glibc 2.35+) whose map is consistent: its
 * objects not seen before are protected.  Objects of a namespace in the
 * middle of a change are left for its own consistent call; objects gone
 * (dlclose) drop out of the table, so that a new object that ld.so maps at
 * the same address with the same link map is protected again.
 */
__attribute__((used)) void hook_debug_state(void)
{
	struct r_debug_extended *r;
	const struct link_map *m;
	int n = 0, i;
	bool base = true, loading = false;

	hook_enter();
	for (r = rdebug; r; r = r->base.r_version >= 2 ? r->r_next : NULL)
		loading |= r->base.r_state == RT_ADD;
	guard_load(loading);
	for (r = rdebug; r; r = r->base.r_version >= 2 ? r->r_next : NULL, base = false) {
		bool consistent = r->base.r_state == RT_CONSISTENT, first = true;

		if (base && consistent && !started)
			start();
		for (m = r->base.r_map; m; m = m->l_next, first = false) {
			struct seen *old = was_seen(m);

			if (!old && !consistent)
				continue;
			if (n == HOOK_MAX)
				xo_refuse("more objects than xoload's ld.so hook can follow: ", "not run");
			tab[n].next.map = m;
			tab[n].next.addr = m->l_addr;
			tab[n].next.ld = (uint64_t)m->l_ld;
			tab[n].next.cookie = old ? old->cookie : done_before(m, base && first) ? 0 : protect_new(m);
			tab[n++].next.kept = false;
			if (old)
				old->kept = true;
		}
	}
	/* Unmapped (dlclose): the net forgets their pages (xonet_settle checks that they are gone). */
	for (i = 0; i < nseen; i++)
		if (!tab[i].now.kept && tab[i].now.cookie)
			xonet_close(tab[i].now.cookie);
	for (i = 0; i < n; i++)
		tab[i].now = tab[i].next;
	nseen = n;
	xonet_settle();
	__atomic_store_n(&hook_owner, 0, __ATOMIC_RELEASE);
}

/* Bytes of the padding assemblers put between functions (multi-byte NOPs, int3). */
static bool is_padding(const uint8_t *p, int n)
{
	static const uint8_t pad[] = { 0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x40, 0x44, 0x80, 0xcc };
	size_t k;
	int i;

	for (i = 0; i < n; i++) {
		for (k = 0; k < sizeof(pad) && pad[k] != p[i]; k++)
			;
		if (k == sizeof(pad))
			return false;
	}
	return true;
}

/* _dl_debug_state's 16-byte slot: "ret" or "endbr64; ret", then padding only. */
static const char *check_slot(const Elf64_Sym *s, uint64_t a)
{
	const uint8_t *p = (const uint8_t *)a;
	uint64_t body;

	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || a % 16)
		return "_dl_debug_state is not a 16-byte aligned function";
	if (s->st_size == 1 && p[0] == 0xc3)
		body = 1;
	else if (s->st_size == 5 && !rt_memcmp(p, "\xf3\x0f\x1e\xfa\xc3", 5))
		body = 5;
	else
		return "_dl_debug_state is not an empty function";
	if (!is_padding(p + body, (int)(16 - body)))
		return "_dl_debug_state is not followed by padding";
	return NULL;
}

/* The PT_LOAD of @im that holds [@a, @a + @len) with the flags @pf, or NULL. */
static const Elf64_Phdr *segment_of(const struct image *im, uint64_t a, uint64_t len, uint32_t pf)
{
	int i;

	for (i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & pf) == pf && a >= im->bias + ph->p_vaddr &&
		    a - (im->bias + ph->p_vaddr) <= ph->p_memsz && len <= ph->p_memsz - (a - (im->bias + ph->p_vaddr)))
			return ph;
	}
	return NULL;
}

/* xo_dyn_symbol()'s bounds for ld.so before it runs: image_readable_end(). */
static uint64_t readable_end(const void *ctx, uint64_t a)
{
	return image_readable_end(ctx, a);
}

/* PR_GET_MDWE (Linux 6.3+): memory-deny-write-execute refuses the R+X that the patch gives back. */
#define PR_GET_MDWE_	66

int hook_install(const struct image *prog, const struct image *interp, uint64_t vdso, unsigned long flags,
		 bool net_on, bool required, char *err, size_t errlen)
{
	const Elf64_Phdr *dyn = NULL, *text;
	const Elf64_Sym *ds, *rd;
	const Elf64_Dyn *d;
	uint64_t a, end, page, off, target = (uint64_t)&hook_debug_state;
	uint8_t patch[PATCH_LEN] = { 0x49, 0xbb };	/* then the address, then 0x41 0xff 0xe3 */
	volatile uint8_t *code;
	const char *why;
	long level;
	int i;

	for (i = 0; i < interp->eh.e_phnum; i++)
		if (interp->ph[i].p_type == PT_DYNAMIC)
			dyn = &interp->ph[i];
	a = dyn ? interp->bias + dyn->p_vaddr : 0;
	end = dyn ? readable_end(interp, a) : 0;
	if (!dyn || end <= a || dyn->p_memsz > end - a) {
		if (!required)
			return HOOK_USE_MODULE;
		rt_fmt(err, errlen, "XOLOAD_HOOK: %s has no readable dynamic section", interp->path);
		return 126;
	}
	d = (const Elf64_Dyn *)(interp->bias + dyn->p_vaddr);
	/*
	 * glibc 2.35 linked every namespace's r_debug into _r_debug's r_next
	 * chain; an older ld.so keeps dlmopen() namespaces out of it, where
	 * the hook would not see them.  __rseq_offset came with 2.35.
	 */
	if (!xo_dyn_symbol(interp->bias, d, "__rseq_offset", readable_end, interp) ||
	    rt_syscall6(RT_NR_prctl, PR_GET_MDWE_, 0, 0, 0, 0, 0) > 0)
		return HOOK_USE_MODULE;
	ds = xo_dyn_symbol(interp->bias, d, "_dl_debug_state", readable_end, interp);
	rd = xo_dyn_symbol(interp->bias, d, "_r_debug", readable_end, interp);
	if (!ds || !rd) {
		if (!required)
			return HOOK_USE_MODULE;
		rt_fmt(err, errlen, "XOLOAD_HOOK: %s exports no _dl_debug_state or _r_debug", interp->path);
		return 126;
	}
	a = interp->bias + ds->st_value;
	if (!(text = segment_of(interp, a, 16, PF_R | PF_X)) ||
	    !segment_of(interp, interp->bias + rd->st_value, sizeof(struct r_debug), PF_R | PF_W)) {
		if (!required)
			return HOOK_USE_MODULE;
		rt_fmt(err, errlen, "XOLOAD_HOOK: %s: _dl_debug_state or _r_debug is not where it should be",
		       interp->path);
		return 126;
	}
	for (i = 0; i < 8; i++)
		patch[2 + i] = (uint8_t)(target >> (8 * i));
	patch[10] = 0x41;
	patch[11] = 0xff;
	patch[12] = 0xe3;
	/* 16-byte aligned, so the patch is on one page. */
	page = a & ~(uint64_t)4095;
	/* Readable only so: under the kernel's xonly mode ld.so's code is execute-only already. */
	if (rt_mprotect(page, 4096, RT_PROT_READ | RT_PROT_WRITE)) {
		if (!required)
			return HOOK_USE_MODULE;
		rt_fmt(err, errlen, "XOLOAD_HOOK: %s: cannot write to its code", interp->path);
		return 126;
	}
	why = check_slot(ds, a);
	if (why && required) {
		rt_fmt(err, errlen, "XOLOAD_HOOK: %s: %s", interp->path, why);
		return 126;	/* xoload exits: the page's protection does not matter */
	}
	if (why) {
		/* Unwritten: the R+X it was mapped with back, and rt_apply() does the rest. */
		if (rt_mprotect(page, 4096, RT_PROT_READ | RT_PROT_EXEC)) {
			rt_fmt(err, errlen, "XOLOAD_HOOK: %s: cannot restore its code's protection", interp->path);
			return 126;
		}
		return HOOK_USE_MODULE;
	}
	code = (volatile uint8_t *)a;
	for (i = 0; i < PATCH_LEN; i++)
		code[i] = patch[i];
	/*
	 * The R+X back; rt_apply() then makes the page execute-only where the
	 * plan says.  A policy that refuses execute permission to code written
	 * to (SELinux without execmod) refuses this: the file's page, unpatched,
	 * is mapped in its place, and the module does the job.
	 */
	if (rt_mprotect(page, 4096, RT_PROT_READ | RT_PROT_EXEC)) {
		off = text->p_offset + (page - (interp->bias + text->p_vaddr));
		if (required || rt_mmap(page, 4096, RT_PROT_READ | RT_PROT_EXEC, RT_MAP_PRIVATE | RT_MAP_FIXED, interp->fd,
					off) != (long)page) {
			rt_fmt(err, errlen, "XOLOAD_HOOK: %s: cannot restore its code's protection", interp->path);
			return 126;
		}
		return HOOK_USE_MODULE;
	}
	rdebug = (struct r_debug_extended *)(interp->bias + rd->st_value);
	level = run_xonly_level();
	in_xonly_mode = level == XONLY_PR_XONLY_ON || level == XONLY_PR_XONLY_STRICT;
	xonet_code_span(interp->bias, interp->ph, interp->eh.e_phnum, &ld_code_lo, &ld_code_hi);
	prog_bias = prog->bias;
	interp_bias = interp->bias;
	vdso_base = vdso;
	op.flags = flags;
	op.net_on = net_on;
	op.plan = run_plan(NULL);	/* where xoload made PROG's and ld.so's: written, and free by then */
	op.net = run_net(NULL);
	return 0;
}

void hook_hide_audit(char *audit_env, char *tunables, char *user_tunables_, char **envp)
{
	hidden_audit = audit_env;
	hidden_tunables = audit_env ? tunables : NULL;
	user_tunables = hidden_tunables && user_tunables_;
	hook_envp = envp;
	if (hidden_audit) {
		hidden_audit[0] = 'X';
		hidden_audit[1] = 'O';
	}
	if (hidden_tunables) {
		hidden_tunables[0] = 'X';
		hidden_tunables[1] = 'O';
	}
}
