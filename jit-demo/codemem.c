// SPDX-License-Identifier: GPL-2.0
/*
 * codemem.c - the four code-memory strategies of codemem.h.
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xonly/uapi.h>

#include "codemem.h"

#define ALIGN		16
#define FILL		0xcc	/* int3: what unused code memory holds */

struct codemem {
	enum cm_strategy s;
	uint8_t *exec;		/* the view that runs */
	uint8_t *rw;		/* CM_DUALMAP: the view that is written */
	size_t size, used;
	int pkey;
};

static size_t pagesz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * RDPKRU/WRPKRU by hand (tests/lib/pkru.h has the same two): jit-demo is
 * the code JIT authors copy, so it depends on nothing of the test suite.
 */
static uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	__asm__ volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

/* The memory clobber keeps the compiler's loads and stores on their side. */
static void wrpkru(uint32_t pkru)
{
	__asm__ volatile(".byte 0x0f, 0x01, 0xef" : : "a"(pkru), "c"(0), "d"(0) : "memory");
}

/* Set the calling thread's rights (PKEY_DISABLE_*) for the key of @cm. */
static int set_rights(const struct codemem *cm, unsigned int rights)
{
	uint32_t shift = 2 * (uint32_t)cm->pkey;

	if (cm->s == CM_PKEY_SYSCALL)
		return (int)syscall(XONLY_NR_pkey_set, cm->pkey, rights, 0);
	wrpkru((rdpkru() & ~(3u << shift)) | rights << shift);
	return 0;
}

/*
 * A window that does not close leaves code writable (pkey-syscall,
 * mprotect) or readable: a JIT must not go on running after that, so
 * this is fatal.  WRPKRU cannot fail; pkey_set(2) and mprotect(2) can.
 */
static void __attribute__((noreturn)) close_failed(const struct codemem *cm, const char *what)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "jit-demo: %s code memory: cannot close the window (%s: %s): aborting\n",
			 cm_strategy_name(cm->s), what, strerror(errno));

	/* write(2), not stdio: nothing that could allocate or take a lock */
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, strnlen(msg, sizeof(msg)));
	abort();
}

/* The pages that hold [off, off + n). */
static void span(const struct codemem *cm, size_t off, size_t n, uint8_t **start, size_t *len)
{
	size_t ps = pagesz(), first = off & ~(ps - 1), end = (off + n + ps - 1) & ~(ps - 1);

	*start = cm->exec + first;
	*len = end - first;
}

const char *cm_strategy_name(enum cm_strategy s)
{
	static const char *const names[] = { "pkey", "pkey-syscall", "mprotect", "dualmap" };

	return (unsigned int)s < CM_NSTRATEGIES ? names[s] : "?";
}

int cm_strategy_parse(const char *name)
{
	for (int s = 0; s < CM_NSTRATEGIES; s++)
		if (!strcmp(name, cm_strategy_name(s)))
			return s;
	return -1;
}

static struct codemem *fail(struct codemem *cm, char *err, size_t errlen, const char *what)
{
	int e = errno;

	snprintf(err, errlen, "%s code memory: %s: %s", cm_strategy_name(cm->s), what, strerror(e));
	cm_destroy(cm);
	errno = e;
	return NULL;
}

bool cm_have_pkeys(void)
{
	unsigned int eax, ebx, ecx, edx;

	/* PKU (CPUID.7.0:ECX[3]) and OSPKE (ECX[4]: the kernel enabled it) */
	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return (ecx & (1u << 3)) && (ecx & (1u << 4));
}

struct codemem *cm_create(enum cm_strategy s, size_t size, char *err, size_t errlen)
{
	return cm_create_at(s, NULL, size, err, errlen);
}

struct codemem *cm_create_at(enum cm_strategy s, void *addr, size_t size, char *err, size_t errlen)
{
	struct codemem *cm = calloc(1, sizeof(*cm));
	int fixed = addr ? MAP_FIXED : 0;
	int fd;

	if (!cm) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* Say so, rather than pkey_alloc's bare EINVAL (or ENOSPC). */
	if ((s == CM_PKEY || s == CM_PKEY_SYSCALL) && !cm_have_pkeys()) {
		snprintf(err, errlen, "%s code memory: this machine has no protection keys (PKU, or the kernel "
			 "did not enable them)", cm_strategy_name(s));
		free(cm);
		errno = EOPNOTSUPP;
		return NULL;
	}
	cm->s = s;
	cm->pkey = -1;
	cm->size = (size + pagesz() - 1) & ~(pagesz() - 1);
	if (!cm->size)
		cm->size = pagesz();
	cm->exec = MAP_FAILED;
	cm->rw = MAP_FAILED;

	if (s == CM_DUALMAP) {
		fd = memfd_create("jit-code", MFD_CLOEXEC);
		if (fd < 0)
			return fail(cm, err, errlen, "memfd_create");
		if (ftruncate(fd, (off_t)cm->size)) {
			close(fd);
			return fail(cm, err, errlen, "ftruncate");
		}
		cm->rw = mmap(NULL, cm->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		cm->exec = mmap(addr, cm->size, PROT_READ | PROT_EXEC, MAP_SHARED | fixed, fd, 0);
		close(fd);
		if (cm->rw == MAP_FAILED || cm->exec == MAP_FAILED)
			return fail(cm, err, errlen, "mmap");
		memset(cm->rw, FILL, cm->size);
		return cm;
	}

	cm->exec = mmap(addr, cm->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | fixed, -1, 0);
	if (cm->exec == MAP_FAILED)
		return fail(cm, err, errlen, "mmap");
	memset(cm->exec, FILL, cm->size);
	if (s == CM_MPROTECT) {
		if (mprotect(cm->exec, cm->size, PROT_READ | PROT_EXEC))
			return fail(cm, err, errlen, "mprotect");
		return cm;
	}

	/*
	 * The pages stay RWX in the page tables: PKRU is the only gate, which
	 * is what lets one thread write while the others cannot even read.
	 * pkey_alloc() denies the key to this thread from the start.
	 */
	cm->pkey = pkey_alloc(0, PKEY_DISABLE_ACCESS);
	if (cm->pkey < 0)
		return fail(cm, err, errlen, "pkey_alloc");
	if (pkey_mprotect(cm->exec, cm->size, PROT_READ | PROT_WRITE | PROT_EXEC, cm->pkey))
		return fail(cm, err, errlen, "pkey_mprotect");
	if (s == CM_PKEY_SYSCALL && syscall(XONLY_NR_pkey_get, cm->pkey, 0) < 0)
		return fail(cm, err, errlen, "pkey_get (needs the xonly kernel)");
	return cm;
}

void cm_destroy(struct codemem *cm)
{
	if (!cm)
		return;
	if (cm->exec != MAP_FAILED)
		munmap(cm->exec, cm->size);
	if (cm->rw != MAP_FAILED)
		munmap(cm->rw, cm->size);
	if (cm->pkey >= 0)
		pkey_free(cm->pkey);
	free(cm);
}

void *cm_begin(struct codemem *cm, size_t n, uint8_t **wr)
{
	size_t off = (cm->used + ALIGN - 1) & ~(size_t)(ALIGN - 1), len;
	uint8_t *start;

	if (n == 0 || off > cm->size || n > cm->size - off) {
		errno = ENOSPC;
		return NULL;
	}
	switch (cm->s) {
	case CM_PKEY:
	case CM_PKEY_SYSCALL:
		if (set_rights(cm, 0))
			return NULL;
		break;
	case CM_MPROTECT:
		span(cm, off, n, &start, &len);
		if (mprotect(start, len, PROT_READ | PROT_WRITE))
			return NULL;
		break;
	default:
		break;
	}
	cm->used = off + n;
	*wr = (cm->s == CM_DUALMAP ? cm->rw : cm->exec) + off;
	return cm->exec + off;
}

void cm_end(struct codemem *cm, void *code, size_t n)
{
	uint8_t *start;
	size_t len;

	switch (cm->s) {
	case CM_PKEY:
	case CM_PKEY_SYSCALL:
		if (set_rights(cm, PKEY_DISABLE_ACCESS))
			close_failed(cm, "pkey_set");
		break;
	case CM_MPROTECT:
		span(cm, (size_t)((uint8_t *)code - cm->exec), n, &start, &len);
		if (mprotect(start, len, PROT_READ | PROT_EXEC))
			close_failed(cm, "mprotect");
		break;
	default:
		break;
	}
}

int cm_read(struct codemem *cm, const void *code, size_t n, void *buf)
{
	if (cm->pkey >= 0 && set_rights(cm, PKEY_DISABLE_WRITE))
		return -1;
	memcpy(buf, code, n);
	if (cm->pkey >= 0 && set_rights(cm, PKEY_DISABLE_ACCESS))
		close_failed(cm, "pkey_set");
	return 0;
}

size_t cm_avail(const struct codemem *cm)
{
	size_t off = (cm->used + ALIGN - 1) & ~(size_t)(ALIGN - 1);

	return off < cm->size ? cm->size - off : 0;
}

void cm_reset(struct codemem *cm, size_t keep)
{
	keep = (keep + pagesz() - 1) & ~(pagesz() - 1);
	cm->used = keep < cm->size ? keep : cm->size;
}

size_t cm_used(const struct codemem *cm)
{
	return cm->used;
}

void *cm_base(const struct codemem *cm)
{
	return cm->exec;
}

int cm_pkey(const struct codemem *cm)
{
	return cm->pkey;
}

void cm_thread_lock(const struct codemem *cm)
{
	if (cm->pkey >= 0 && set_rights(cm, PKEY_DISABLE_ACCESS))
		close_failed(cm, "pkey_set");
}
