// SPDX-License-Identifier: GPL-2.0
/*
 * xo_basics - show, step by step, what execute-only memory is on this
 * kernel: a page of code that runs but cannot be read.
 *
 * It maps one page, writes a function into it, makes it PROT_EXEC only
 * (the kernel backs that with the mm's execute-only protection key), then
 * calls it, reads it, and asks the kernel about the key.  Used by
 * `make demo`; it prints for people, the tests print TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "xonly_sys.h"

/* mov eax, 42; ret */
static const unsigned char answer_code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 };

int main(void)
{
	struct fault f;
	unsigned char copy[sizeof(answer_code)];
	int (*answer)(void);
	unsigned char *page;
	int fd, pkey, rights;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!pkru_supported()) {
		fprintf(stderr, "xo_basics: this CPU or kernel has no protection keys (PKU/OSPKE)\n");
		return 1;
	}
	fault_setup();

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("xo_basics: mmap");
		return 1;
	}
	memcpy(page, answer_code, sizeof(answer_code));
	if (mprotect(page, 4096, PROT_EXEC)) {
		perror("xo_basics: mprotect(PROT_EXEC)");
		return 1;
	}
	pkey = smaps_pkey(page);
	printf("1. wrote 'mov eax, 42; ret' at %p and made the page PROT_EXEC only\n", (void *)page);
	printf("   /proc/self/smaps: ProtectionKey %d (the execute-only key)\n", pkey);
	printf("   PKRU 0x%08x: key %d access-disabled for data\n", rdpkru(), pkey);

	answer = (int (*)(void))(uintptr_t)page;
	printf("2. calling it returns %d: execution works\n", answer());

	if (fault_read8(page + 1, &f) && f.code == SEGV_PKUERR)
		printf("3. reading byte 1 faults: SIGSEGV SEGV_PKUERR, si_pkey %d, si_addr %p\n", f.pkey, f.addr);
	else
		printf("3. reading byte 1: %s (expected SEGV_PKUERR)\n", fault_str(&f));

	rights = sys_pkey_get(pkey, 0);
	if (rights < 0 && errno == EBADF)
		printf("4. pkey_get(%d): EBADF: the execute-only key is not the program's to read or change,\n"
		       "   so pkey_set() cannot open it (only a WRPKRU in user space could)\n", pkey);
	else if (rights < 0)
		printf("4. pkey_get(%d): %s (ENOSYS: a kernel without the xonly series)\n", pkey, strerror(errno));
	else
		printf("4. pkey_get(%d) returned rights %d: unexpected, the key should be hidden\n", pkey, rights);

	fd = open("/proc/self/mem", O_RDONLY);
	if (fd >= 0 && pread(fd, copy, sizeof(copy), (off_t)(uintptr_t)page) == (ssize_t)sizeof(copy))
		printf("5. pread(/proc/self/mem) returned the code bytes: %02x %02x %02x ... "
		       "(the self-read bypass: a stock kernel)\n", copy[0], copy[1], copy[2]);
	else if (errno == EACCES)
		printf("5. pread(/proc/self/mem) of the page: EACCES, the self-read bypass is closed\n");
	else
		printf("5. pread(/proc/self/mem) of the page failed: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	return 0;
}
