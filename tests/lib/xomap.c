// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codemem.h"
#include "mapping.h"
#include "xomap.h"

#define HUGE_2M		(2ul << 20)
#define BEFORE_FILL	0x5a	/* the readable page below the code */
#define FILE_FILL	0xcc	/* the "file" kind's file around the code (int3) */

static size_t one_page(void)
{
	return page_size();
}

static size_t two_mib(void)
{
	return HUGE_2M;
}

static int fail(struct xomap *m, int ret, const char *what)
{
	snprintf(m->why, sizeof(m->why), "%s: %s", what, strerror(errno));
	return ret;
}

static int map_rw(struct xomap *m, int extra_flags)
{
	void *p = mmap(m->code, m->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | extra_flags, -1, 0);

	return p == MAP_FAILED ? fail(m, -1, "mmap") : 0;
}

static int anon_map(struct xomap *m)
{
	return map_rw(m, 0);
}

static int thp_map(struct xomap *m)
{
	long kb;

	if (map_rw(m, 0))
		return -1;
	if (madvise(m->code, m->len, MADV_HUGEPAGE))
		return fail(m, 1, "madvise(MADV_HUGEPAGE)");
	m->code[0] = 1;	/* the first touch of an aligned VMA takes a huge page */
	kb = smaps_field(m->code, "AnonHugePages");
	if (kb < (long)(m->len >> 10)) {
		char mode[64] = "?";
		FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

		if (f) {
			if (!fgets(mode, sizeof(mode), f))
				strcpy(mode, "?");
			mode[strcspn(mode, "\n")] = 0;
			fclose(f);
		}
		snprintf(m->why, sizeof(m->why), "no huge page: AnonHugePages %ld kB, THP mode '%s'", kb, mode);
		return 1;
	}
	return 0;
}

static int hugetlb_map(struct xomap *m)
{
	void *p = mmap(m->code, m->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED && errno == ENOMEM) {
		snprintf(m->why, sizeof(m->why), "no free 2 MiB hugetlb page (vm.nr_hugepages)");
		return 1;
	}
	if (p == MAP_FAILED)
		return fail(m, -1, "mmap(MAP_HUGETLB)");
	m->code[0] = 1;
	return 0;
}

/* The key smaps reports must be @want, or any non-zero key if @want < 0. */
static int check_key(struct xomap *m, int want)
{
	int k = smaps_pkey(m->code);

	if (want < 0 ? k < 1 || k > 15 : k != want) {
		snprintf(m->why, sizeof(m->why), "smaps ProtectionKey %d, want %d", k, want);
		return -1;
	}
	m->pkey = k;
	return 0;
}

static int xo_protect(struct xomap *m)
{
	if (mprotect(m->code, m->len, PROT_EXEC))
		return fail(m, -1, "mprotect(PROT_EXEC)");
	return check_key(m, -1);
}

static int thp_protect(struct xomap *m)
{
	long kb;

	if (xo_protect(m))
		return -1;
	kb = smaps_field(m->code, "AnonHugePages");
	if (kb < (long)(m->len >> 10)) {
		snprintf(m->why, sizeof(m->why), "mprotect(PROT_EXEC) split the huge page: AnonHugePages %ld kB", kb);
		return -1;
	}
	return 0;
}

static int pkey_protect_prot(struct xomap *m, int prot)
{
	int k = pkey_alloc(0, PKEY_DISABLE_ACCESS);

	if (k < 0)
		return fail(m, -1, "pkey_alloc");
	m->alloc_key = k;
	if (pkey_mprotect(m->code, m->len, prot, k))
		return fail(m, -1, "pkey_mprotect");
	return check_key(m, k);
}

static int pkey_rx_protect(struct xomap *m)
{
	return pkey_protect_prot(m, PROT_READ | PROT_EXEC);
}

static int pkey_x_protect(struct xomap *m)
{
	return pkey_protect_prot(m, PROT_EXEC);
}

/*
 * "jit": code memory of jit-demo/codemem.h (CM_PKEY), placed in our
 * reservation.  The pages are PROT_READ|PROT_WRITE|PROT_EXEC with the
 * JIT's own key: only PKRU keeps data accesses out.  Mapping opens the
 * emitter's write window (cm_begin), so the caller writes and decodes
 * the code the way the JIT does; protecting closes it (cm_end).
 */
static int jit_map(struct xomap *m)
{
	uint8_t *wr;

	m->cm = cm_create_at(CM_PKEY, m->code, m->len, m->why, sizeof(m->why));
	if (!m->cm)
		return -1;
	if (cm_begin(m->cm, m->len, &wr) != m->code || wr != (uint8_t *)m->code)
		return fail(m, -1, "cm_begin did not give the whole code memory");
	return 0;
}

static int jit_protect(struct xomap *m)
{
	cm_end(m->cm, m->code, m->len);	/* aborts if the window stays open */
	return check_key(m, cm_pkey(m->cm));
}

/*
 * "file": program text the way xoload maps it (xoloader/run/load.c): the
 * file's pages mmap()ed MAP_PRIVATE|MAP_FIXED with PROT_EXEC alone, which
 * gives them the execute-only key at mmap time (no mprotect).  The file
 * is an unlinked one in /tmp (tmpfs in the VM): mapping it shared and
 * writable first lets the caller write the code into the page cache.
 */
static int file_map(struct xomap *m)
{
	char path[] = "/tmp/xomap-file-XXXXXX";

	m->fd = mkstemp(path);
	if (m->fd < 0)
		return fail(m, -1, "mkstemp in /tmp");
	unlink(path);
	if (ftruncate(m->fd, (off_t)m->len))
		return fail(m, -1, "ftruncate");
	if (mmap(m->code, m->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->fd, 0) == MAP_FAILED)
		return fail(m, -1, "mmap(MAP_SHARED) of the file");
	memset(m->code, FILE_FILL, m->len);
	return 0;
}

static int file_protect(struct xomap *m)
{
	if (mmap(m->code, m->len, PROT_EXEC, MAP_PRIVATE | MAP_FIXED, m->fd, 0) == MAP_FAILED)
		return fail(m, -1, "mmap(PROT_EXEC, MAP_PRIVATE) of the file");
	return check_key(m, -1);
}

const struct xomap_kind xomap_kinds[] = {
	{ "anon", "anonymous page, mprotect(PROT_EXEC)", one_page, 0, anon_map, xo_protect, true, false, false },
	{ "pkey", "anonymous page, pkey_mprotect(PROT_READ|PROT_EXEC) with a PKEY_DISABLE_ACCESS key",
	  one_page, 0, anon_map, pkey_rx_protect, false, true, false },
	{ "pkey-x", "anonymous page, pkey_mprotect(PROT_EXEC) with a PKEY_DISABLE_ACCESS key",
	  one_page, 0, anon_map, pkey_x_protect, false, false, false },
	{ "thp", "2 MiB transparent huge page (MADV_HUGEPAGE), mprotect(PROT_EXEC)",
	  two_mib, HUGE_2M, thp_map, thp_protect, true, false, false },
	{ "hugetlb", "2 MiB MAP_HUGETLB page, mprotect(PROT_EXEC)", two_mib, HUGE_2M, hugetlb_map, xo_protect,
	  true, false, false },
	{ "jit", "jit-demo code memory (CM_PKEY): PROT_READ|PROT_WRITE|PROT_EXEC, the JIT's key, written in its window",
	  one_page, 0, jit_map, jit_protect, false, true, false },
	{ "file", "a tmpfs file's page mmap()ed PROT_EXEC, MAP_PRIVATE, as xoload maps program text",
	  one_page, 0, file_map, file_protect, true, false, true },
};
const int xomap_nkinds = sizeof(xomap_kinds) / sizeof(xomap_kinds[0]);

const struct xomap_kind *xomap_kind(const char *name)
{
	for (int i = 0; i < xomap_nkinds; i++)
		if (!strcmp(xomap_kinds[i].name, name))
			return &xomap_kinds[i];
	return NULL;
}

int xomap_map(const struct xomap_kind *k, struct xomap *m)
{
	size_t pg = page_size(), align = k->align ? k->align : pg;
	uintptr_t code;
	int r;

	memset(m, 0, sizeof(*m));
	m->kind = k;
	m->pkey = m->alloc_key = m->fd = -1;
	m->len = k->size();
	/* Room for the page below and for aligning the code: PROT_NONE until used. */
	m->resv_len = m->len + align + pg;
	m->resv = mmap(NULL, m->resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->resv == MAP_FAILED) {
		m->resv = NULL;
		return fail(m, -1, "mmap of the reservation");
	}
	code = ((uintptr_t)m->resv + pg + align - 1) & ~(uintptr_t)(align - 1);
	m->code = (char *)code;
	m->before = m->code - pg;
	if (mmap(m->before, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		r = fail(m, -1, "mmap of the page below");
	else
		r = k->map(m);
	if (r) {
		xomap_unmap(m);
		return r;
	}
	memset(m->before, BEFORE_FILL, pg);
	return 0;
}

int xomap_protect(struct xomap *m)
{
	return m->kind->protect(m);
}

void xomap_unmap(struct xomap *m)
{
	if (m->cm) {
		cm_thread_lock(m->cm);	/* a failed map may have left the window open */
		cm_destroy(m->cm);	/* unmaps the code and frees the JIT's key */
	}
	if (m->fd >= 0)
		close(m->fd);
	m->cm = NULL;
	m->fd = -1;
	if (m->resv)
		munmap(m->resv, m->resv_len);
	if (m->alloc_key >= 0)
		pkey_free(m->alloc_key);
	m->resv = NULL;
	m->alloc_key = -1;
}
