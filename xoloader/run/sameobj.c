// SPDX-License-Identifier: GPL-2.0
/*
 * run/sameobj.c - the audit module's identity check (sameobj.h): the file
 * it planned against the object ld.so mapped, from the bytes both hold.
 */
#include <elf.h>
#include <stdbool.h>

#include "../rule/str.h"
#include "plancache.h"
#include "sameobj.h"
#include "sys.h"

#define PAGE		4096ull
#define CHUNK		65536

/*
 * The file's first page, read whole for every object, goes to the plan
 * cache's page for entries (page-aligned, one page, free between
 * lookups): the lookup of this very object has written it already,
 * unless the cache is off or had no entry.
 */
#define head_page	xoc_scratch_page()

/*
 * Where plancache.c is not linked in (tests/host/sameobj.sh builds the
 * check with its tool alone), a page of its own: plancache.c's strong
 * definition wins everywhere else.
 */
__attribute__((weak)) unsigned char *xoc_scratch_page(void)
{
	static unsigned char page[PAGE] RT_PAGE_ALIGNED;

	return page;
}
static unsigned char buf[CHUNK];	/* the rest, a chunk at a time */
static Elf64_Phdr far_ph[64];		/* program headers past the first page (BOLT puts them there) */
static size_t buf_used RT_HOT;		/* bytes of buf written since the last wipe */

/* @n (at most CHUNK) bytes of the file at @off into buf. */
static long read_buf(int fd, size_t n, uint64_t off)
{
	if (n > buf_used)
		buf_used = n;
	return rt_pread(fd, buf, n, off);
}

/*
 * Whether the page holding @addr can be read, without reading it:
 * rt_sigprocmask() with an invalid @how copies the 8 bytes first and
 * answers EFAULT if it cannot (protection keys bind the kernel's copy
 * too), else EINVAL, and changes nothing.  The 8 bytes at a page's start
 * do not cross into the next one.
 */
static bool readable(uint64_t addr)
{
	return rt_syscall6(RT_NR_rt_sigprocmask, 99, (long)(addr & ~(PAGE - 1)), 0, 8, 0, 0) == -RT_EINVAL;
}

/* @mem[@n] equals the file's bytes at @off, each page of @mem readable. */
static bool same_bytes(int fd, uint64_t mem, uint64_t off, uint64_t n)
{
	while (n) {
		size_t k = n < CHUNK ? (size_t)n : CHUNK, i, span;

		if (read_buf(fd, k, off) != (long)k)
			return false;
		for (i = 0; i < k; i += span) {
			span = PAGE - ((mem + i) & (PAGE - 1));	/* to the end of its page */
			if (span > k - i)
				span = k - i;
			if (!readable(mem + i) || rt_memcmp((const void *)(mem + i), buf + i, span))
				return false;
		}
		mem += k, off += k, n -= k;
	}
	return true;
}

/* @addr = @bias + @va without wrapping around; false if it would. */
static bool at(uint64_t bias, uint64_t va, uint64_t *addr)
{
	*addr = bias + va;
	return *addr >= bias;
}

/* The PT_LOAD of @ph that maps file bytes [@off, @off + @n) at @va, or NULL. */
static const Elf64_Phdr *load_of(const Elf64_Phdr *ph, int phnum, uint64_t off, uint64_t n, uint64_t va)
{
	for (int i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && off >= ph[i].p_offset && n <= ph[i].p_filesz &&
		    off - ph[i].p_offset <= ph[i].p_filesz - n && va - ph[i].p_vaddr == off - ph[i].p_offset)
			return &ph[i];
	return NULL;
}

/*
 * The file's GNU build-id note lies in a mapped PT_LOAD: 1 and its place
 * in *@off, *@va, *@n; 0 if it has none.  A PT_NOTE within the @got bytes
 * of the first page already read into head is parsed there (the usual
 * place: no read, buf untouched), any other is read into buf.
 */
static int build_id(int fd, const unsigned char *head, uint64_t got, const Elf64_Phdr *ph, int phnum, uint64_t *off,
		    uint64_t *va, uint64_t *n)
{
	for (int i = 0; i < phnum; i++) {
		uint64_t size = ph[i].p_filesz < CHUNK ? ph[i].p_filesz : CHUNK, pos = 0;
		const unsigned char *notes = buf;

		if (ph[i].p_type != PT_NOTE)
			continue;
		/* 4-aligned there only: the note headers are read as Elf64_Nhdr (buf is aligned). */
		if (ph[i].p_offset <= got && size <= got - ph[i].p_offset && !(ph[i].p_offset % 4))
			notes = head + ph[i].p_offset;
		else if (read_buf(fd, size, ph[i].p_offset) != (long)size)
			continue;
		while (pos + sizeof(Elf64_Nhdr) <= size) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(notes + pos);
			uint64_t len = sizeof(*nh) + ((nh->n_namesz + 3ull) & ~3ull) + ((nh->n_descsz + 3ull) & ~3ull);

			if (len > size - pos)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && nh->n_descsz &&
			    !rt_memcmp(nh + 1, "GNU", 4) &&
			    load_of(ph, phnum, ph[i].p_offset + pos, len, ph[i].p_vaddr + pos)) {
				*off = ph[i].p_offset + pos;
				*va = ph[i].p_vaddr + pos;
				*n = len;
				return 1;
			}
			pos += len;
		}
	}
	return 0;
}

/*
 * The mapped dynamic section at @ld against the file's @dyn: the same
 * entries, each equal or (ld.so relocated the address entries in place)
 * equal plus @bias; DT_DEBUG is ld.so's to write.
 */
static bool same_dynamic(int fd, const Elf64_Phdr *dyn, uint64_t bias, uint64_t ld)
{
	uint64_t size = dyn->p_filesz < CHUNK ? dyn->p_filesz : CHUNK, page = ~0ull;
	const Elf64_Dyn *f = (const Elf64_Dyn *)buf;

	if (read_buf(fd, size, dyn->p_offset) != (long)size)
		return false;
	for (uint64_t i = 0; (i + 1) * sizeof(*f) <= size; i++) {
		const Elf64_Dyn *m = (const Elf64_Dyn *)ld + i;

		/* An entry does not cross a page: ld is 8-aligned, entries are 16 bytes. */
		if (((uint64_t)m & ~(PAGE - 1)) != page) {
			page = (uint64_t)m & ~(PAGE - 1);
			if ((uint64_t)m % 8 || !readable(page))
				return false;
		}
		if (m->d_tag != f[i].d_tag)
			return false;
		if (f[i].d_tag == DT_NULL)
			return true;
		if (m->d_un.d_val != f[i].d_un.d_val && m->d_un.d_val != f[i].d_un.d_val + bias &&
		    f[i].d_tag != DT_DEBUG)
			return false;
	}
	return false;	/* no DT_NULL in the file's */
}

/* Every read-only PT_LOAD that can be read in memory, whole: the check without a build-id. */
static bool same_segments(int fd, const Elf64_Phdr *ph, int phnum, uint64_t bias)
{
	uint64_t mem;

	for (int i = 0; i < phnum; i++) {
		if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_W) || !ph[i].p_filesz)
			continue;
		if (!at(bias, ph[i].p_vaddr, &mem) || mem + ph[i].p_filesz < mem)
			return false;
		if (readable(mem) && !same_bytes(fd, mem, ph[i].p_offset, ph[i].p_filesz))
			return false;
	}
	return true;
}

static int same_object(int fd, uint64_t bias, uint64_t ld, const char **why)
{
	unsigned char *head = head_page;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)head;
	const Elf64_Phdr *ph, *hdr = NULL, *dyn = NULL;
	uint64_t phend, first, n, mem, off, va;
	long got = rt_pread(fd, head, PAGE, 0);
	int phnum, i;

	*why = "its file's program headers cannot be read";
	if (got < (long)sizeof(*eh) || rt_memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(*ph) || !eh->e_phnum ||
	    eh->e_phnum > 64 || eh->e_phoff % 8 || eh->e_phoff < sizeof(*eh))
		return -1;
	phnum = eh->e_phnum;
	if (eh->e_phoff <= (uint64_t)got && (uint64_t)got - eh->e_phoff >= phnum * sizeof(*ph)) {
		ph = (const Elf64_Phdr *)(head + eh->e_phoff);
		phend = eh->e_phoff + phnum * sizeof(*ph);
	} else {
		/*
		 * Past the first page: BOLT's rewrite (Rust's librustc_driver
		 * and libLLVM) moves them to the end of the file.  Read there;
		 * the first page compared below holds e_phoff, and where they
		 * are mapped and can be read they are compared too.
		 */
		if (rt_pread(fd, far_ph, phnum * sizeof(*ph), eh->e_phoff) != (long)(phnum * sizeof(*ph)))
			return -1;
		ph = far_ph;
		phend = sizeof(*eh);
		*why = "its program headers differ from the file's";
		for (i = 0; i < phnum; i++)
			if (ph[i].p_type == PT_LOAD && eh->e_phoff >= ph[i].p_offset &&
			    phnum * sizeof(*ph) <= ph[i].p_filesz &&
			    eh->e_phoff - ph[i].p_offset <= ph[i].p_filesz - phnum * sizeof(*ph)) {
				if (at(bias, ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset), &mem) && readable(mem) &&
				    !same_bytes(fd, mem, eh->e_phoff, phnum * sizeof(*ph)))
					return -1;
				break;
			}
	}
	for (i = 0; i < phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !ph[i].p_offset && !hdr)
			hdr = &ph[i];
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
	}

	/* 1. The dynamic section where the file says: one comparison. */
	*why = "its dynamic section is not where the file's is";
	if (dyn ? !ld || ld - bias != dyn->p_vaddr : ld != 0)
		return -1;

	/* 2. The first page, if it holds the headers and can be read. */
	first = hdr ? (hdr->p_filesz < (uint64_t)got ? hdr->p_filesz : (uint64_t)got) : 0;
	if (!hdr || first < phend || hdr->p_vaddr % PAGE || !at(bias, hdr->p_vaddr, &mem) || !readable(mem)) {
		/* Only the dynamic section can be compared (sameobj.h). */
		*why = dyn ? "its dynamic section differs from the file's" :
			     "its headers cannot be read in memory and it has no dynamic section";
		return dyn && same_dynamic(fd, dyn, bias, ld) ? 0 : -1;
	}
	*why = "its headers differ from the file's";
	if (rt_memcmp((const void *)mem, head, first))
		return -1;

	/* 3. The build-id: in the first page (compared already), or compared now. */
	if (build_id(fd, head, (uint64_t)got, ph, phnum, &off, &va, &n)) {
		*why = "its build-id differs from the file's";
		if (off + n <= first)
			return 0;
		return at(bias, va, &mem) && readable(mem) && same_bytes(fd, mem, off, n) ? 0 : -1;
	}
	*why = "it has no build-id and its contents differ from the file's";
	return same_segments(fd, ph, phnum, bias) ? 0 : -1;
}

/*
 * The buffers held file bytes, code among them (a -z noseparate-code
 * first page, the read-only segments of an object without build-id): a
 * copy of an execute-only object's code must not stay in readable memory.
 * Only what was written: most checks never touch buf, and zeroing all of
 * it would fault in 16 pages of it on every start.
 */
int xo_same_object(int fd, uint64_t bias, uint64_t ld, const char **why)
{
	int r = same_object(fd, bias, ld, why);

	rt_memzero(head_page, PAGE);
	rt_memzero(buf, buf_used);
	buf_used = 0;
	return r;
}
