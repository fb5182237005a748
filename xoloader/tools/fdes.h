/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdes.h - the FDE ranges of an object as a growable list, and the file
 * bytes of a range: what planproof and xodeccov sweep with a decoder.
 */
#ifndef XOLOADER_TOOLS_FDES_H
#define XOLOADER_TOOLS_FDES_H

#include <gelf.h>
#include <stdint.h>

struct fdes { uint64_t (*r)[2]; size_t n, cap; };

/* ehframe_walk()'s callback: append [lo, hi) to the struct fdes @arg (exits on ENOMEM). */
void fdes_add(void *arg, uint64_t lo, uint64_t hi);

/*
 * The file bytes of [lo, hi) in the file image @img of @size bytes: the
 * PF_X PT_LOAD of @e that maps all of it, or NULL if none does.
 */
const uint8_t *fdes_bytes(Elf *e, const uint8_t *img, uint64_t size, uint64_t lo, uint64_t hi);

#endif
