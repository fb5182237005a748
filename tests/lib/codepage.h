/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codepage.h - one page of code in a memfd, mapped PROT_READ|PROT_EXEC,
 * which xonly mode makes execute-only: what the tests of the strict
 * level try to get out, with a pattern to know it by.
 */
#ifndef XONLY_CODEPAGE_H
#define XONLY_CODEPAGE_H

#include <stddef.h>

#define CODE_PAGE_RET	42	/* what the code returns */

/* Fill @img: "mov $CODE_PAGE_RET, %eax; ret", then a pattern. */
void code_page_img(unsigned char *img, size_t len);
/*
 * @img, @len bytes (whole pages), in a memfd mapped PROT_READ|PROT_EXEC.
 * NULL unless the mapping is execute-only ("--xp") with a key > 0 (in
 * *@key) and its code runs.
 */
unsigned char *code_page_map(const unsigned char *img, size_t len, int *key);

#endif
