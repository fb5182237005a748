/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run/sameobj.h - is the file we opened the one ld.so mapped?
 *
 * The audit module plans a library by opening its name (link_map's
 * l_name) after ld.so mapped it.  If the file at that path was replaced or
 * renamed in between (a package upgrade during a run, anyone who can write
 * the directory), the plan is another file's: applied to this mapping it
 * would leave code readable or make data execute-only.  xo_same_object()
 * compares what identifies the object in memory with the file open on
 * @fd, before the plan of @fd is applied to the mapping:
 *
 *  1. the object's dynamic section is where the file's PT_DYNAMIC says
 *     (l_ld - l_addr == p_vaddr);
 *  2. the file's first page (ELF header, program headers, and with
 *     -z separate-code the notes, .gnu.hash, .dynsym...) equals the mapped
 *     first page, byte for byte - at la_objopen() ld.so has not relocated
 *     the object yet, so the mapping holds the file's bytes;
 *  3. if the file has a GNU build-id note (a hash of the whole object,
 *     which every Debian package has), the note in memory equals it and
 *     that is enough; without one, every read-only PT_LOAD that is
 *     readable in memory is compared whole with the file (slow, rare).
 *
 * A page of the mapping may be unreadable (xoload --kernel: every PF_X
 * page is execute-only; a PF_X-only segment): before it reads a page the
 * check asks the kernel (rt_sigprocmask() copies 8 bytes from it, or says
 * EFAULT) instead of faulting.  If the first page is unreadable (the
 * header page of a -z noseparate-code object under --kernel), the mapped
 * dynamic section is compared with the file's instead (ld.so's in-place
 * relocation of its address entries allowed).  What is compared is in
 * xoloader/README.md ("The audit module's identity check").
 *
 * Freestanding, no allocation; not reentrant (a static buffer): the audit
 * module runs under ld.so's lock.
 */
#ifndef XOLOADER_RUN_SAMEOBJ_H
#define XOLOADER_RUN_SAMEOBJ_H

#include <stdint.h>

/*
 * 0 if the object mapped at @bias (l_addr) with its dynamic section at
 * @ld (l_ld, 0 if none) is the file open on @fd; else -1 with *@why saying
 * what differs or why it cannot be told.
 */
int xo_same_object(int fd, uint64_t bias, uint64_t ld, const char **why);

#endif
