/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - the preloader's own ELF loading: validate the headers of PROG or
 * its interpreter and map their PT_LOADs the way the kernel would.
 *
 * This is deliberately separate from elfplan (libelf): it is the part that
 * must trust nothing, and it is what `make fuzz` exercises.
 */
#ifndef XOLOADER_RUN_LOAD_H
#define XOLOADER_RUN_LOAD_H

#include <elf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOAD_MAX_PHNUM	64

struct image {
	const char *path;
	int fd;
	Elf64_Ehdr eh;
	uint64_t bias;		/* load address - link address (0 for ET_EXEC) */
	uint64_t lo, hi;	/* page-aligned link-time span of the PT_LOADs */
	uint64_t phdr_va;	/* link-time address of the program headers */
	bool has_interp;
	bool not_regular;	/* image_open() refused it as no regular file (a FIFO, a device, a directory) */
	/* Last: not zeroed by image_open(), read only as far as it filled them. */
	Elf64_Phdr ph[LOAD_MAX_PHNUM];	/* e_phnum of them */
	char interp[PATH_MAX];		/* if has_interp */
};

/*
 * Open and validate @path.  Returns 0, or the exit status a shell would
 * give (127 missing, 126 not executable/bad format) with a one-line
 * message in @err.
 */
int image_open(struct image *im, const char *path, char *err, size_t errlen);
/*
 * The same for any object: with !@need_entry, an ET_DYN (a library, a
 * plugin) whose entry point is 0 or not in an executable segment is
 * admitted too (xoload --plan plans any object; it does not run it).
 */
int image_open_obj(struct image *im, const char *path, bool need_entry, char *err, size_t errlen);
/* What ehdr_check() finds wrong first (image_open_obj() says it in words). */
enum ehdr_fault {
	EHDR_OK, EHDR_SCRIPT, EHDR_NOT_ELF, EHDR_TRUNCATED, EHDR_CLASS, EHDR_MACHINE, EHDR_TYPE,
	EHDR_PHENTSIZE, EHDR_PHNUM, EHDR_PH_TRUNCATED,
};
/*
 * The checks of an object's ELF header @eh, of which the first @n bytes
 * were read (the rest zero), that need nothing but its numbers and the
 * file's @fsize: an x86-64 ELF64 ET_EXEC or ET_DYN ("#!" said apart) with
 * 1..LOAD_MAX_PHNUM program headers of the right size within the file.
 * The first fault in image_open_obj()'s order.  Arithmetic only, as
 * load_check(): the early paths run it too, so that they admit exactly
 * the headers the full path admits.
 */
enum ehdr_fault ehdr_check(const Elf64_Ehdr *eh, long n, uint64_t fsize);
/* What load_check() finds wrong first (image_open_obj() says it in words). */
enum load_fault {
	LOAD_OK, LOAD_INTERP_TWICE, LOAD_INTERP_BAD, LOAD_FILESZ, LOAD_HUGE, LOAD_PAST_EOF, LOAD_CONGRUENT,
	LOAD_ALIGN, LOAD_ORDER, LOAD_NONE, LOAD_SPAN, LOAD_ENTRY, LOAD_NO_PHDRS, LOAD_LOW_EXEC,
};
struct load_span {
	uint64_t lo, hi, phdr_va;	/* as in struct image */
	bool has_interp;
};
/*
 * The checks of an object's program headers @phs (e_phnum of them, @eh's)
 * that need nothing but their numbers and the file's @fsize: each PT_LOAD
 * within the file, page-congruent, in order and not overlapping, within
 * the user address space; one PT_INTERP within the file; the entry point
 * in an executable segment (with !@need_entry not for an ET_DYN); the
 * program headers in a loaded segment.  The first fault in their order,
 * *@at the program header it is about (-1 for the whole), and @span.
 * Arithmetic only: run_kernel_early() calls it before xoload is
 * relocated, so that the early paths refuse what image_open_obj() does.
 */
enum load_fault load_check(const Elf64_Ehdr *eh, const Elf64_Phdr *phs, uint64_t fsize, bool need_entry,
			   struct load_span *span, int *at);
/*
 * Whether ld.so's first reads of the object - its program headers (at
 * @phdr_va, load_check()'s span) and its PT_NOTE and PT_GNU_PROPERTY
 * segments, read where they are mapped - fall on a page of a PF_X
 * segment: under the kernel's xonly mode that page is execute-only
 * before anything of xoload's runs in PROG (-z noseparate-code, BOLT).
 * Arithmetic only (the early path).
 */
bool load_headers_in_code(const Elf64_Ehdr *eh, const Elf64_Phdr *phs, uint64_t phdr_va);
/* Map the validated image; returns 0 or 126 with @err set. */
int image_map(struct image *im, char *err, size_t errlen);
/*
 * After image_map(): the end of the stretch from @a on that its PT_LOADs
 * with PF_R and without PF_X left readable, or 0 if @a is not in one
 * (a hole between segments, code, which the kernel's xonly mode maps
 * execute-only, or the last page of a segment that a later PT_LOAD
 * starting in it mapped over with its own protection).  xo_dyn_symbol()'s
 * bounds for ld.so before it runs (run/hook.c).
 */
uint64_t image_readable_end(const struct image *im, uint64_t a);

#endif
