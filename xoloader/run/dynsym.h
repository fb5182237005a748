/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dynsym.h - a dynamic symbol of a mapped object, from its PT_DYNAMIC.
 *
 * The audit module finds ld.so's __libc_stack_end with it, xoload's ld.so
 * hook (hook.c) _dl_debug_state and _r_debug: both read the object's
 * dynamic symbol table, which lies in a readable segment.
 */
#ifndef XOLOADER_RUN_DYNSYM_H
#define XOLOADER_RUN_DYNSYM_H

#include <elf.h>
#include <stdint.h>

/*
 * For a file ld.so has not checked yet: the end of the stretch of memory
 * that may be read from @a on (of the object @ctx), or 0 if @a may not be
 * read.  Holes between segments are reserved but not readable, and code
 * is execute-only under the kernel's xonly mode.
 */
typedef uint64_t (*xo_readable_end_fn)(const void *ctx, uint64_t a);

/*
 * The defined symbol @name of the object mapped at @bias whose dynamic
 * section is at @dyn (relocated by ld.so or not: both are read), or NULL;
 * DT_HASH or DT_GNU_HASH gives the symbol count.  With @readable_end,
 * every table, entry and name it reads must lie where it says (NULL if
 * one does not); without, ld.so's maps are trusted.
 */
const Elf64_Sym *xo_dyn_symbol(uint64_t bias, const Elf64_Dyn *dyn, const char *name,
			       xo_readable_end_fn readable_end, const void *ctx);

#endif
