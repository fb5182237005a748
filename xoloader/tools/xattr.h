/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xattr.h - xoload --set-xattr, --get-xattr, --clear-xattr (xoplan): the
 * plan the kernel applies, trusted.xonly (kernel/include/xonly/uapi.h).
 */
#ifndef XOLOADER_TOOLS_XATTR_H
#define XOLOADER_TOOLS_XATTR_H

/*
 * If argv[1] is one of the three options, do it for every FILE after it
 * and return the exit status (0, 1 if any FILE failed, 2 usage); else -1.
 */
int xattr_main(int argc, char **argv);

#endif
