/* SPDX-License-Identifier: GPL-2.0 */
/*
 * boot.h - what the kernel was booted with and what it said: the words
 * of /proc/cmdline and the kernel log (as dmesg reads it), for tests whose
 * rows depend on the boot (xonly=on, nopku) or check a boot warning.
 */
#ifndef XONLY_BOOT_H
#define XONLY_BOOT_H

#include <stdbool.h>

/* /proc/cmdline has @word as one whole word. */
bool cmdline_has(const char *word);
/*
 * The first line of the kernel log for which @match is true, leaving out
 * the kernel's echo of its command line (which names every parameter);
 * a static copy, or NULL if none (or the log cannot be read).
 */
const char *klog_line(bool (*match)(const char *line));

#endif
