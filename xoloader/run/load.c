// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - validate and map an ELF image, as binfmt_elf would.
 *
 * Every field the mapping uses is checked before use: the file is read
 * with pread into fixed buffers, every offset and size is checked against
 * the file size and for overflow, PT_LOADs must be sorted, non-overlapping
 * and congruent modulo the page size, the entry point must be in an
 * executable segment.  A corrupt file gets a one-line reason, never a crash.
 * No libc: this is the preloader's (freestanding, rt/) as much as the
 * tools'.
 */
#include "load.h"
#include "../rule/str.h"
#include "fmt.h"
#include "report.h"
#include "sys.h"

/* Larger than any real program: a bigger span is a corrupt p_memsz. */
#define MAX_SPAN	(1ull << 36)
#define USER_TOP	(1ull << 47)

#define fail(code, ...) do { rt_fmt(err, errlen, __VA_ARGS__); return code; } while (0)

/* x86-64's base page: what the kernel maps PT_LOADs with. */
static uint64_t pg(void)
{
	return RT_PAGE_SIZE;
}

int image_open(struct image *im, const char *path, char *err, size_t errlen)
{
	return image_open_obj(im, path, true, err, errlen);
}

static void copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
}

/* @dst = the file's bytes [@off, @off + @n) if the first @nhead of them, in @head, hold them. */
static bool from_head(void *dst, const unsigned char *head, long nhead, uint64_t off, uint64_t n)
{
	if (nhead < 0 || off > (uint64_t)nhead || (uint64_t)nhead - off < n)
		return false;
	copy(dst, head + off, n);
	return true;
}

int image_open_obj(struct image *im, const char *path, bool need_entry, char *err, size_t errlen)
{
	const Elf64_Ehdr *eh = &im->eh;
	enum load_fault fault;
	struct load_span span;
	unsigned char head[4096];
	struct rt_stat st;
	uint64_t fsize;
	long n, nhead;
	int i, at;

	/*
	 * Not the 7.6 KB of ph[] and interp[], which are read only as far as
	 * they are filled: a byte loop over them is a tenth of a millisecond
	 * per object under emulation.
	 */
	rt_memzero(im, offsetof(struct image, ph));
	im->interp[0] = 0;
	im->path = path;
	/*
	 * O_NONBLOCK: opening a FIFO would otherwise wait for a writer (a
	 * device could block too) before fstat() can tell us it is no file.
	 * For a regular file the flag changes nothing.
	 */
	n = rt_open(path, RT_O_RDONLY | RT_O_CLOEXEC | RT_O_NONBLOCK | RT_O_NOCTTY);
	if (n < 0) {
		im->fd = -1;
		fail(n == -RT_ENOENT || n == -RT_ENOTDIR ? 127 : 126, "%s: %s", path, rt_strerror((int)-n));
	}
	im->fd = (int)n;
	if (rt_fstat(im->fd, &st) || (st.mode & RT_S_IFMT) != RT_S_IFREG) {
		im->not_regular = true;
		fail(126, "%s: not a regular file", path);
	}
	fsize = st.size;
	/*
	 * The file's first page in one read: the ELF header, and as a rule
	 * the program headers and PT_INTERP's string too (a system call less
	 * for each, on every start; what lies further is read below).
	 */
	nhead = rt_pread(im->fd, head, sizeof(head), 0);
	n = nhead < (long)sizeof(im->eh) ? nhead : (long)sizeof(im->eh);
	if (n > 0)
		copy(&im->eh, head, (size_t)n);
	switch (ehdr_check(eh, n, fsize)) {
	case EHDR_OK: break;
	case EHDR_SCRIPT: fail(126, "%s: a script: run its interpreter under xoload instead", path);
	case EHDR_NOT_ELF: fail(126, "%s: not an ELF file", path);
	case EHDR_TRUNCATED: fail(126, "%s: truncated ELF header", path);
	case EHDR_CLASS: fail(126, "%s: not a 64-bit ELF file", path);
	case EHDR_MACHINE: fail(126, "%s: not an x86-64 ELF file", path);
	case EHDR_TYPE: fail(126, "%s: not an executable (ELF type %u)", path, eh->e_type);
	case EHDR_PHENTSIZE: fail(126, "%s: bad program header size %u", path, eh->e_phentsize);
	case EHDR_PHNUM:
		fail(126, "%s: program header count %u out of range 1..%d", path, eh->e_phnum, LOAD_MAX_PHNUM);
	case EHDR_PH_TRUNCATED: fail(126, "%s: truncated program headers", path);
	}
	if (!from_head(im->ph, head, nhead, eh->e_phoff, eh->e_phnum * sizeof(Elf64_Phdr))) {
		n = rt_pread(im->fd, im->ph, eh->e_phnum * sizeof(Elf64_Phdr), eh->e_phoff);
		if (n != (long)(eh->e_phnum * sizeof(Elf64_Phdr)))
			fail(126, "%s: cannot read program headers", path);
	}

	fault = load_check(eh, im->ph, fsize, need_entry, &span, &at);
	/*
	 * PT_INTERP's string, read here, is wrong before any fault of a later
	 * program header or of the whole (load_check() checks in their
	 * order, the string aside): the first thing wrong is what is said.
	 */
	for (i = 0; i < eh->e_phnum && (fault == LOAD_OK || at < 0 || i < at); i++) {
		const Elf64_Phdr *ph = &im->ph[i];

		if (ph->p_type != PT_INTERP)
			continue;
		if ((!from_head(im->interp, head, nhead, ph->p_offset, ph->p_filesz) &&
		     rt_pread(im->fd, im->interp, ph->p_filesz, ph->p_offset) != (long)ph->p_filesz) ||
		    im->interp[ph->p_filesz - 1] || rt_strlen(im->interp) != ph->p_filesz - 1)
			fail(126, "%s: bad PT_INTERP string", path);
		break;
	}
	switch (fault) {
	case LOAD_OK: break;
	case LOAD_INTERP_TWICE: fail(126, "%s: more than one PT_INTERP", path);
	case LOAD_INTERP_BAD: fail(126, "%s: bad PT_INTERP", path);
	case LOAD_FILESZ: fail(126, "%s: PT_LOAD %d: p_filesz > p_memsz", path, at);
	case LOAD_HUGE: fail(126, "%s: PT_LOAD %d: huge or out-of-range p_memsz/p_vaddr", path, at);
	case LOAD_PAST_EOF: fail(126, "%s: PT_LOAD %d: extends past the end of the file (truncated?)", path, at);
	case LOAD_CONGRUENT:
		fail(126, "%s: PT_LOAD %d: p_offset and p_vaddr not congruent modulo the page size", path, at);
	case LOAD_ALIGN: fail(126, "%s: PT_LOAD %d: p_align not a power of two", path, at);
	case LOAD_ORDER: fail(126, "%s: PT_LOAD %d: overlaps or precedes the previous PT_LOAD", path, at);
	case LOAD_NONE: fail(126, "%s: no PT_LOAD segment", path);
	case LOAD_SPAN: fail(126, "%s: PT_LOADs span more than %llu GiB", path, MAX_SPAN >> 30);
	case LOAD_ENTRY:
		fail(126, "%s: entry point 0x%llx is not in an executable segment", path,
		     (unsigned long long)eh->e_entry);
	case LOAD_NO_PHDRS: fail(126, "%s: program headers are not in a loaded segment", path);
	case LOAD_LOW_EXEC: fail(126, "%s: ET_EXEC below 64 KiB", path);
	}
	im->lo = span.lo;
	im->hi = span.hi;
	im->phdr_va = span.phdr_va;
	im->has_interp = span.has_interp;
	return 0;
}

enum ehdr_fault ehdr_check(const Elf64_Ehdr *eh, long n, uint64_t fsize)
{
	if (n >= 4 && !rt_memcmp(eh->e_ident, "#!", 2))
		return EHDR_SCRIPT;
	if (n < 4 || rt_memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return EHDR_NOT_ELF;
	if (n != sizeof(*eh))
		return EHDR_TRUNCATED;
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return EHDR_CLASS;
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return EHDR_MACHINE;
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return EHDR_TYPE;
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return EHDR_PHENTSIZE;
	if (eh->e_phnum == 0 || eh->e_phnum > LOAD_MAX_PHNUM)
		return EHDR_PHNUM;
	if (eh->e_phoff > fsize || fsize - eh->e_phoff < (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))
		return EHDR_PH_TRUNCATED;
	return EHDR_OK;
}

/* [@a, @a + @n) meets [@lo, @hi); @a + @n may wrap (a PT_NOTE's numbers are not checked). */
static bool va_overlaps(uint64_t a, uint64_t n, uint64_t lo, uint64_t hi)
{
	return n && a < hi && (lo <= a || lo - a < n);
}

bool load_headers_in_code(const Elf64_Ehdr *eh, const Elf64_Phdr *phs, uint64_t phdr_va)
{
	int i, j;

	for (i = 0; i < eh->e_phnum; i++) {
		uint64_t lo, hi;

		if (phs[i].p_type != PT_LOAD || !(phs[i].p_flags & PF_X))
			continue;
		lo = rt_page_down(phs[i].p_vaddr);
		hi = rt_page_up(phs[i].p_vaddr + phs[i].p_memsz);
		if (va_overlaps(phdr_va, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), lo, hi))
			return true;
		for (j = 0; j < eh->e_phnum; j++)
			if ((phs[j].p_type == PT_NOTE || phs[j].p_type == PT_GNU_PROPERTY) &&
			    va_overlaps(phs[j].p_vaddr, phs[j].p_memsz, lo, hi))
				return true;
	}
	return false;
}

enum load_fault load_check(const Elf64_Ehdr *eh, const Elf64_Phdr *phs, uint64_t fsize, bool need_entry,
			   struct load_span *span, int *at)
{
	uint64_t prev_end = 0;
	bool have_load = false, entry_ok = false;
	int i;

	span->lo = span->hi = span->phdr_va = 0;
	span->has_interp = false;
	*at = -1;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phs[i];

		*at = i;
		if (ph->p_type == PT_INTERP) {
			if (span->has_interp)
				return LOAD_INTERP_TWICE;
			if (ph->p_filesz < 2 || ph->p_filesz > PATH_MAX ||
			    ph->p_offset > fsize || fsize - ph->p_offset < ph->p_filesz)
				return LOAD_INTERP_BAD;
			span->has_interp = true;
		}
		if (ph->p_type == PT_PHDR)
			span->phdr_va = ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_filesz > ph->p_memsz)
			return LOAD_FILESZ;
		if (ph->p_memsz > MAX_SPAN || ph->p_vaddr > USER_TOP || ph->p_vaddr + ph->p_memsz > USER_TOP)
			return LOAD_HUGE;
		if (ph->p_offset > fsize || fsize - ph->p_offset < ph->p_filesz)
			return LOAD_PAST_EOF;
		if ((ph->p_offset ^ ph->p_vaddr) & (pg() - 1))
			return LOAD_CONGRUENT;
		if (ph->p_align & (ph->p_align - 1))
			return LOAD_ALIGN;
		if (have_load && ph->p_vaddr < prev_end)
			return LOAD_ORDER;
		if (!have_load)
			span->lo = rt_page_down(ph->p_vaddr);
		have_load = true;
		prev_end = ph->p_vaddr + ph->p_memsz;
		span->hi = rt_page_up(prev_end);
		if ((ph->p_flags & PF_X) && eh->e_entry >= ph->p_vaddr && eh->e_entry < prev_end)
			entry_ok = true;
		/* Program headers without PT_PHDR: find them in the file image. */
		if (!span->phdr_va && eh->e_phoff >= ph->p_offset &&
		    eh->e_phoff + eh->e_phnum * sizeof(Elf64_Phdr) <= ph->p_offset + ph->p_filesz)
			span->phdr_va = ph->p_vaddr + (eh->e_phoff - ph->p_offset);
	}
	*at = -1;
	if (!have_load)
		return LOAD_NONE;
	if (span->hi - span->lo > MAX_SPAN)
		return LOAD_SPAN;
	if (!entry_ok && (need_entry || eh->e_type != ET_DYN))
		return LOAD_ENTRY;
	if (!span->phdr_va)
		return LOAD_NO_PHDRS;
	if (eh->e_type == ET_EXEC && span->lo < 0x10000)
		return LOAD_LOW_EXEC;
	return LOAD_OK;
}

static int prot_of(uint32_t f)
{
	return (f & PF_R ? RT_PROT_READ : 0) | (f & PF_W ? RT_PROT_WRITE : 0) | (f & PF_X ? RT_PROT_EXEC : 0);
}

int image_map(struct image *im, char *err, size_t errlen)
{
	uint64_t align = pg(), span = im->hi - im->lo, base;
	long res;
	int i;

	for (i = 0; i < im->eh.e_phnum; i++)
		if (im->ph[i].p_type == PT_LOAD && im->ph[i].p_align > align && im->ph[i].p_align <= (1u << 30))
			align = im->ph[i].p_align;
	if (im->eh.e_type == ET_EXEC) {
		/* Fixed addresses: refuse to replace anything (xoload itself lives somewhere). */
		res = rt_mmap(im->lo, span, 0, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | RT_MAP_FIXED_NOREPLACE, -1, 0);
		if (rt_failed(res) || (uint64_t)res != im->lo)
			fail(126, "%s: cannot map at 0x%llx: %s", im->path, (unsigned long long)im->lo,
			     rt_failed(res) ? rt_strerror((int)-res) : "address in use");
		base = im->lo;
	} else {
		res = rt_mmap(0, span + align - pg(), 0, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS, -1, 0);
		if (rt_failed(res))
			fail(126, "%s: cannot reserve %llu bytes: %s", im->path, (unsigned long long)span,
			     rt_strerror((int)-res));
		base = ((uint64_t)res + align - 1) & ~(align - 1);
		if (base > (uint64_t)res)
			rt_munmap((uint64_t)res, base - (uint64_t)res);
		if ((uint64_t)res + span + align - pg() > base + span)
			rt_munmap(base + span, (uint64_t)res + span + align - pg() - (base + span));
	}
	im->bias = base - im->lo;
	rt_step("reserved", im->path);

	for (i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];
		uint64_t va, fend, mend, zpage;
		int prot = prot_of(ph->p_flags);

		if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
			continue;
		va = rt_page_down(ph->p_vaddr) + im->bias;
		fend = ph->p_vaddr + ph->p_filesz + im->bias;
		mend = ph->p_vaddr + ph->p_memsz + im->bias;
		if (ph->p_filesz) {
			/* Writable while we zero the partial bss page. */
			int p = prot | (mend > fend && (fend & (pg() - 1)) ? RT_PROT_WRITE : 0);

			res = rt_mmap(va, rt_page_up(fend) - va, p, RT_MAP_PRIVATE | RT_MAP_FIXED, im->fd, rt_page_down(ph->p_offset));
			if (rt_failed(res))
				fail(126, "%s: cannot map segment %d: %s", im->path, i, rt_strerror((int)-res));
			if (mend > fend && (fend & (pg() - 1)))
				rt_memzero((void *)fend, rt_page_up(fend) - fend);
			/* All of it: the mapping above made every page writable, not just the last. */
			if (p != prot && rt_mprotect(va, rt_page_up(fend) - va, prot))
				fail(126, "%s: cannot protect segment %d", im->path, i);
		}
		zpage = ph->p_filesz ? rt_page_up(fend) : va;
		if (mend > zpage) {
			res = rt_mmap(zpage, rt_page_up(mend) - zpage, prot, RT_MAP_PRIVATE | RT_MAP_ANONYMOUS | RT_MAP_FIXED, -1, 0);
			if (rt_failed(res))
				fail(126, "%s: cannot map bss of segment %d: %s", im->path, i, rt_strerror((int)-res));
		}
	}
	rt_step("mapped", im->path);
	return 0;
}

/*
 * A PT_LOAD image_map() maps readable for a reader that may not read code
 * (xonly mode makes it execute-only): PF_R without PF_X.
 */
static bool data_segment(const Elf64_Phdr *ph)
{
	return ph->p_type == PT_LOAD && ph->p_memsz && (ph->p_flags & (PF_R | PF_X)) == PF_R;
}

uint64_t image_readable_end(const struct image *im, uint64_t a)
{
	int i, j;

	for (i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];
		uint64_t s = im->bias + ph->p_vaddr, e = s + ph->p_memsz;

		if (ph->p_type != PT_LOAD || a < s || a - s >= ph->p_memsz)
			continue;
		if (!data_segment(ph))
			return 0;
		/*
		 * image_map() maps the PT_LOADs in order, each from its first
		 * page on: a later one that starts in this one's last page
		 * replaced that page with its own protection.
		 */
		for (j = i + 1; j < im->eh.e_phnum; j++) {
			const Elf64_Phdr *q = &im->ph[j];
			uint64_t qs = rt_page_down(im->bias + q->p_vaddr);

			if (q->p_type == PT_LOAD && q->p_memsz && !data_segment(q) && qs < e)
				e = qs;
		}
		return e > a ? e : 0;
	}
	return 0;
}
