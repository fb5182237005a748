/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codemem.h - memory for generated code, behind one interface, with four
 * ways to make it writable for the emitter and executable for everyone:
 *
 *   CM_PKEY          one mapping, PROT_READ|WRITE|EXEC, tagged with a key
 *                    of its own (pkey_alloc + pkey_mprotect).  Every thread's
 *                    PKRU denies data access to the key, so the code is
 *                    execute-only; the emitting thread alone opens a window
 *                    with WRPKRU for that key and closes it right after.
 *   CM_PKEY_SYSCALL  the same window through our pkey_set() system call
 *                    (kernel/patches): slower, but the kernel sees it.
 *   CM_MPROTECT      one mapping, flipped RX -> RW -> RX around each
 *                    emission: the pages are writable by every thread (and
 *                    not executable by any) while the flip lasts.
 *   CM_DUALMAP       one memfd mapped twice: an RX view that runs, an RW
 *                    view that is always writable by every thread.
 *
 * Emission: p = cm_begin(cm, n, &wr); write n bytes at wr; verify them at p
 * (readable until cm_end); cm_end(cm, p, n).  cm_begin/cm_end must be
 * called by the same thread, with no thread creation in between: a thread
 * inherits its creator's PKRU, window included.
 */
#ifndef JIT_CODEMEM_H
#define JIT_CODEMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cm_strategy { CM_PKEY, CM_PKEY_SYSCALL, CM_MPROTECT, CM_DUALMAP, CM_NSTRATEGIES };

struct codemem;

/* True if the CPU has protection keys and the kernel enabled them (OSPKE). */
bool cm_have_pkeys(void);
/*
 * Maps @size bytes (rounded up to pages); NULL with a message in @err
 * (errno EOPNOTSUPP: a pkey strategy on a machine without pkeys).
 */
struct codemem *cm_create(enum cm_strategy s, size_t size, char *err, size_t errlen);
/*
 * The same, with the executable view at @addr (MAP_FIXED: the caller owns
 * that range, e.g. a PROT_NONE reservation; NULL: anywhere).  Tests use it
 * to put readable memory right below the code.
 */
struct codemem *cm_create_at(enum cm_strategy s, void *addr, size_t size, char *err, size_t errlen);
void cm_destroy(struct codemem *cm);

/*
 * Reserve @n bytes (16-byte aligned) and open the write window for the
 * calling thread; *@wr is where to write them.  Returns their executable
 * address, or NULL (errno ENOSPC: the code memory is full; or the error of
 * the system call that failed).
 */
void *cm_begin(struct codemem *cm, size_t n, uint8_t **wr);
/*
 * Close the window cm_begin opened.  It cannot fail: if the system call
 * that closes it fails (pkey_set(2), mprotect(2); WRPKRU cannot), the code
 * would stay writable, so cm_end prints why and aborts the process.
 */
void cm_end(struct codemem *cm, void *code, size_t n);
/*
 * Copy @n bytes of code at @code out to @buf through a read window: 0, or
 * -1 with errno if the window does not open; aborts if it does not close.
 */
int cm_read(struct codemem *cm, const void *code, size_t n, void *buf);

/* Bytes cm_begin can still hand out. */
size_t cm_avail(const struct codemem *cm);
/*
 * Make the next allocation start at offset @keep rounded up to a page:
 * forgets the code after it (its callers must be done with it).
 */
void cm_reset(struct codemem *cm, size_t keep);
size_t cm_used(const struct codemem *cm);
/* The executable address of offset 0. */
void *cm_base(const struct codemem *cm);

/* The key of a CM_PKEY* code memory, else -1. */
int cm_pkey(const struct codemem *cm);
/*
 * Deny the calling thread data access to the code (CM_PKEY*; a no-op for
 * the others).  Threads that run JIT code call it first: they may have been
 * created by a thread whose PKRU had the key open.  Aborts if it cannot
 * (pkey_set(2) failing), like cm_end.
 */
void cm_thread_lock(const struct codemem *cm);

const char *cm_strategy_name(enum cm_strategy s);
/* "pkey", "pkey-syscall", "mprotect", "dualmap" -> strategy, or -1. */
int cm_strategy_parse(const char *name);

#endif
