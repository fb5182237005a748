/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stock.h - a run on a stock kernel (make check-hw, scripts/check-hw): the
 * parts of a test that need the xonly series (pkey_get/pkey_set, the
 * /proc/PID/mem rule) are skipped there, with STOCK_SKIP as the reason,
 * instead of failing.
 *
 * Only when both hold: the runner asked for it (XONLY_STOCK_KERNEL=1 in
 * the environment, which only scripts/check-hw sets) and the kernel has no
 * pkey_get(2) (ENOSYS).  In the VM neither is so: a patched kernel that
 * lost its system calls still fails there.
 */
#ifndef XONLY_STOCK_H
#define XONLY_STOCK_H

#include <stdbool.h>

#define STOCK_SKIP "needs the xonly series: a stock kernel (make check-hw)"

bool stock_kernel(void);

#endif
