// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stock.h"
#include "xonly_sys.h"

bool stock_kernel(void)
{
	const char *v = getenv("XONLY_STOCK_KERNEL");

	if (!v || strcmp(v, "1"))
		return false;
	errno = 0;
	return sys_pkey_get(0, 0) < 0 && errno == ENOSYS;
}
