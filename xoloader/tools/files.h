/* SPDX-License-Identifier: GPL-2.0 */
/* files.h - the file operands of the analysis tools (planproof, xodeccov, xoproven). */
#ifndef XOLOADER_TOOLS_FILES_H
#define XOLOADER_TOOLS_FILES_H

/* @fn(name) for each of the @n names of @argv; "-" reads names from stdin, one a line. */
void each_file(int n, char **argv, void (*fn)(const char *name));

#endif
