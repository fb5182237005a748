// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codepage.h"
#include "mapping.h"

void code_page_img(unsigned char *img, size_t len)
{
	size_t i;

	memset(img, 0, len);
	img[0] = 0xb8;		/* mov $CODE_PAGE_RET, %eax */
	img[1] = CODE_PAGE_RET;
	img[5] = 0xc3;		/* ret */
	for (i = 6; i < len; i++)
		img[i] = (unsigned char)(i * 7 + 1);
}

unsigned char *code_page_map(const unsigned char *img, size_t len, int *key)
{
	int fd = memfd_create("xonly_code_page", 0);
	unsigned char *p = MAP_FAILED;

	if (fd >= 0 && write(fd, img, len) == (ssize_t)len)
		p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*key = smaps_pkey(p);
	if (*key > 0 && !strcmp(maps_perms(p), "--xp") && ((int (*)(void))p)() == CODE_PAGE_RET)
		return p;
	munmap(p, len);
	return NULL;
}
