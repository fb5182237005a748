/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/origin.h - PROG's $ORIGIN as ld.so would have it had the kernel
 * executed PROG.
 *
 * ld.so takes the main program's $ORIGIN from /proc/self/exe, which under
 * xoload names xoload: java's DT_RPATH "$ORIGIN:$ORIGIN/../lib" then
 * searches xoload's directories, libjli.so is not found, and a library of
 * the same name there would be loaded in its place.  xoload maps PROG
 * itself, so before ld.so reads PROG's dynamic section it points the
 * strings that use $ORIGIN (search paths, DT_NEEDED and the like) at copies
 * with PROG's directory written in, the directory that /proc/self/exe
 * would give (readlink of /proc/self/fd/N of PROG's descriptor: the same
 * name of the same file).
 */
#ifndef XOLOADER_RUN_ORIGIN_H
#define XOLOADER_RUN_ORIGIN_H

#include <stddef.h>

#include "load.h"

/*
 * For @prog, mapped (image_map()) and its descriptor still open: 0 when
 * nothing ld.so expands $ORIGIN in uses it (DT_RPATH, DT_RUNPATH,
 * DT_NEEDED, DT_AUDIT, DT_DEPAUDIT, DT_AUXILIARY, DT_FILTER) or every use
 * was written in; 126 with a one-line @err where ld.so would read a copy
 * otherwise than the original (PROG's directory has ':' for a list, or a
 * '$' that starts a token ld.so expands), where the entry is not mapped
 * writable, where the copies take more than 16 KiB, and where such an
 * entry or its string cannot be read as ld.so will read it (a string cut
 * short with no '$' before the cut is left as it is).  Without /proc the
 * strings stay as they are: ld.so's own readlink fails there as well.
 */
int origin_expand(const struct image *prog, char *err, size_t errlen);

#endif
