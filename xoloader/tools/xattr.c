// SPDX-License-Identifier: GPL-2.0
/*
 * xattr.c - xoload --set-xattr, --get-xattr, --clear-xattr (run by xoplan):
 * the plan the kernel applies itself.  The kernel's xonly mode maps whole
 * PF_X segments execute-only; the extended attribute trusted.xonly of a
 * file names the pages of it that stay readable (kernel/include/xonly/
 * uapi.h has the format, Documentation/userspace-api/xonly.rst "Plans" in
 * the patched tree the kernel's side).  --set-xattr computes those pages
 * with the planner xoload uses (run/rtplan.c: the readable pages of the
 * PF_X segments), by file offset, and binds them to the file's size and
 * GNU build-id, which the kernel checks before it applies the plan.  Only
 * CAP_SYS_ADMIN may set trusted.* attributes: the kernel says EPERM to
 * anyone else, and so do we.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xonly/uapi.h>

#include "../run/rtplan.h"
#include "xattr.h"

#define PAGE		XATTR_PAGE
#define PHNUM_MAX	128	/* the kernel reads no more program headers */
#define NOTES_MAX	4096	/* ... and no more of each PT_NOTE */
#define PLAN_MAX	(XONLY_PLAN_HDR + XONLY_PLAN_ID_MAX + 16 * XONLY_PLAN_RANGES_MAX)

uint64_t xattr_page_up(uint64_t x)
{
	return (x + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The ELF header and program headers of @fd, as the kernel admits them. */
static bool read_phdrs(int fd, Elf64_Ehdr *eh, Elf64_Phdr *ph)
{
	return read_at(fd, eh, sizeof(*eh), 0) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_phentsize == sizeof(*ph) && eh->e_phnum && eh->e_phnum <= PHNUM_MAX &&
	       read_at(fd, ph, eh->e_phnum * sizeof(*ph), eh->e_phoff);
}

/* The GNU build-id of @fd in @id: its length, 0 if none (the kernel's reading). */
static int build_id(int fd, uint8_t id[XONLY_PLAN_ID_MAX])
{
	static Elf64_Phdr ph[PHNUM_MAX];
	static uint8_t notes[NOTES_MAX];
	Elf64_Ehdr eh;
	int i;

	if (!read_phdrs(fd, &eh, ph))
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		uint64_t size = ph[i].p_filesz < NOTES_MAX ? ph[i].p_filesz : NOTES_MAX;
		uint64_t align = ph[i].p_align == 8 ? 8 : 4, off = 0;

		if (ph[i].p_type != PT_NOTE || !read_at(fd, notes, size, ph[i].p_offset))
			continue;
		while (off + sizeof(Elf64_Nhdr) <= size) {
			Elf64_Nhdr nh;
			uint64_t name = off + sizeof(nh), desc;

			memcpy(&nh, notes + off, sizeof(nh));
			desc = name + ((nh.n_namesz + align - 1) & ~(align - 1));
			if (desc + nh.n_descsz > size)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(notes + name, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= XONLY_PLAN_ID_MAX) {
				memcpy(id, notes + desc, nh.n_descsz);
				return (int)nh.n_descsz;
			}
			off = desc + ((nh.n_descsz + align - 1) & ~(align - 1));
		}
	}
	return 0;
}

int xattr_fde_ranges(int fd, uint64_t size, struct xrange *r, char *err, size_t errlen)
{
	static struct plan p;
	static Elf64_Phdr ph[PHNUM_MAX];
	Elf64_Ehdr eh;
	int n = 0, i, k;

	if (!read_phdrs(fd, &eh, ph)) {
		snprintf(err, errlen, XATTR_NOT_ELF);
		return -1;
	}
	if (rtplan_build(fd, PAGE, &p)) {
		snprintf(err, errlen, "cannot be planned: %s", p.err);
		return -1;
	}
	for (i = 0; i < p.n; i++) {
		uint64_t va;

		if (p.r[i].xo)
			continue;
		for (va = p.r[i].start; va < p.r[i].end; va += PAGE) {
			for (k = 0; k < eh.e_phnum; k++) {
				uint64_t va0 = ph[k].p_vaddr & ~(uint64_t)(PAGE - 1);
				uint64_t off0 = ph[k].p_offset & ~(uint64_t)(PAGE - 1);

				if (ph[k].p_type != PT_LOAD || !(ph[k].p_flags & PF_X) || va < va0 ||
				    va >= xattr_page_up(ph[k].p_vaddr + ph[k].p_filesz))
					continue;
				if (off0 + (va - va0) >= xattr_page_up(size))
					break;
				if (n && r[n - 1].end == off0 + (va - va0)) {
					r[n - 1].end += PAGE;
				} else if (n == XONLY_PLAN_RANGES_MAX) {
					snprintf(err, errlen, "more than %d readable ranges", XONLY_PLAN_RANGES_MAX);
					return -1;
				} else {
					r[n].start = off0 + (va - va0);
					r[n].end = r[n].start + PAGE;
					n++;
				}
				break;
			}
		}
	}
	/* The plan's ranges come in address order; offsets follow it in every PF_X segment. */
	for (i = 1; i < n; i++)
		if (r[i].start < r[i - 1].end) {
			snprintf(err, errlen, "its executable segments are not in file order");
			return -1;
		}
	return n;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void print_ranges(const uint8_t *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		printf(" 0x%" PRIx64 "-0x%" PRIx64, get_le(r + 16 * i, 8), get_le(r + 16 * i + 8, 8));
}

int xattr_write_plan(const char *name, int fd, uint64_t size, const struct xrange *r, int n)
{
	static uint8_t v[PLAN_MAX];
	uint8_t id[XONLY_PLAN_ID_MAX];
	int idlen, i;
	size_t len;

	if (n == 0) {
		/* Nothing to keep readable: xonly mode maps it right as it is. */
		if (fremovexattr(fd, XONLY_PLAN_XATTR) && errno != ENODATA) {
			fprintf(stderr, "xoload: %s: cannot remove %s: %s\n", name, XONLY_PLAN_XATTR, strerror(errno));
			return 1;
		}
		printf("%s: no page needs to stay readable: no plan\n", name);
		return 0;
	}
	if (n > XONLY_PLAN_RANGES_MAX) {
		fprintf(stderr, "xoload: %s: more than %d readable ranges: no plan set\n", name, XONLY_PLAN_RANGES_MAX);
		return 1;
	}
	if (n == 1 && r[0].start == 0 && r[0].end >= xattr_page_up(size)) {
		fprintf(stderr, "xoload: %s: every page would stay readable, a plan the kernel refuses: no plan set\n",
			name);
		return 1;
	}
	idlen = build_id(fd, id);
	if (!idlen) {
		fprintf(stderr, "xoload: %s: has no GNU build-id, which the kernel binds a plan to: no plan set\n", name);
		return 1;
	}
	memcpy(v, XONLY_PLAN_MAGIC, 4);
	v[4] = XONLY_PLAN_VERSION;
	v[5] = (uint8_t)idlen;
	put_le(v + 6, (uint64_t)n, 2);
	put_le(v + 8, size, 8);
	memcpy(v + XONLY_PLAN_HDR, id, (size_t)idlen);
	for (i = 0; i < n; i++) {
		put_le(v + XONLY_PLAN_HDR + idlen + 16 * i, r[i].start, 8);
		put_le(v + XONLY_PLAN_HDR + idlen + 16 * i + 8, r[i].end, 8);
	}
	len = XONLY_PLAN_HDR + (size_t)idlen + 16 * (size_t)n;
	/* By the descriptor: the plan lands on the file its pages were read from. */
	if (fsetxattr(fd, XONLY_PLAN_XATTR, v, len, 0)) {
		int e = errno;

		fprintf(stderr, "xoload: %s: cannot set %s: %s", name, XONLY_PLAN_XATTR, strerror(e));
		/* ext4 without ea_inode keeps no more than a block: about 250 ranges. */
		if (e == ENOSPC || e == E2BIG)
			fprintf(stderr, " (the plan, %zu bytes, is more than this filesystem keeps in an attribute)", len);
		fputc('\n', stderr);
		return 1;
	}
	printf("%s: plan set, readable:", name);
	print_ranges(v + XONLY_PLAN_HDR + idlen, n);
	printf("\n");
	return 0;
}

static int set_one(const char *path, int fd, uint64_t size)
{
	static struct xrange r[XONLY_PLAN_RANGES_MAX];
	char err[256];
	int n = xattr_fde_ranges(fd, size, r, err, sizeof(err));

	if (n < 0) {
		fprintf(stderr, "xoload: %s: %s: no plan set\n", path, err);
		return 1;
	}
	return xattr_write_plan(path, fd, size, r, n);
}

int xattr_exec_segments(int fd, struct xrange *seg, int max)
{
	static Elf64_Phdr ph[PHNUM_MAX];
	Elf64_Ehdr eh;
	int i, n = 0;

	if (!read_phdrs(fd, &eh, ph))
		return -1;
	for (i = 0; i < eh.e_phnum && n < max; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			seg[n].start = ph[i].p_offset & ~(uint64_t)(PAGE - 1);
			seg[n].end = xattr_page_up(ph[i].p_offset + ph[i].p_filesz);
			n++;
		}
	return n;
}

/* Print the plan of @path and whether it still fits the file, as the kernel judges it. */
static int get_one(const char *path, int fd, uint64_t size)
{
	static uint8_t v[PLAN_MAX + 1];
	uint8_t id[XONLY_PLAN_ID_MAX];
	ssize_t len = getxattr(path, XONLY_PLAN_XATTR, v, sizeof(v));
	int idlen, n, i;
	const char *state = "fits the file";

	if (len < 0 && errno == ENODATA) {
		printf("%s: no plan\n", path);
		return 0;
	}
	if (len < 0) {
		fprintf(stderr, "xoload: %s: cannot read %s: %s\n", path, XONLY_PLAN_XATTR, strerror(errno));
		return 1;
	}
	idlen = len >= XONLY_PLAN_HDR ? v[5] : 0;
	n = len >= XONLY_PLAN_HDR ? (int)get_le(v + 6, 2) : 0;
	if (len < XONLY_PLAN_HDR || memcmp(v, XONLY_PLAN_MAGIC, 4) || v[4] != XONLY_PLAN_VERSION || !idlen ||
	    idlen > XONLY_PLAN_ID_MAX || !n || n > XONLY_PLAN_RANGES_MAX ||
	    (size_t)len != XONLY_PLAN_HDR + (size_t)idlen + 16 * (size_t)n) {
		printf("%s: malformed plan (%zd bytes)\n", path, len);
		return 1;
	}
	if (get_le(v + 8, 8) != size)
		state = "stale: the file's size is not the plan's";
	else if (build_id(fd, id) != idlen || memcmp(id, v + XONLY_PLAN_HDR, (size_t)idlen))
		state = "stale: the file's build-id is not the plan's";
	printf("%s: plan of size 0x%" PRIx64 " build-id ", path, get_le(v + 8, 8));
	for (i = 0; i < idlen; i++)
		printf("%02x", v[XONLY_PLAN_HDR + i]);
	printf(" (%s), readable:", state);
	print_ranges(v + XONLY_PLAN_HDR + idlen, n);
	printf("\n");
	return strcmp(state, "fits the file") != 0;
}

int xattr_main(int argc, char **argv)
{
	enum { SET, GET, CLEAR } op;
	int i, st = 0;

	if (argc < 2)
		return -1;
	if (!strcmp(argv[1], "--set-xattr"))
		op = SET;
	else if (!strcmp(argv[1], "--get-xattr"))
		op = GET;
	else if (!strcmp(argv[1], "--clear-xattr"))
		op = CLEAR;
	else
		return -1;
	if (argc < 3) {
		fprintf(stderr, "xoload: %s: no file given (see --help)\n", argv[1]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		/* The log's options belong right after --set-xattr: never taken for a FILE. */
		if (!strncmp(argv[i], "--from-log", 10) || !strcmp(argv[i], "--log-only")) {
			if (op == SET && i == 2)
				return fromlog_main(argc - 2, argv + 2);
			fprintf(stderr, "xoload: %s: only right after --set-xattr, as --set-xattr --from-log LOG "
				"[--log-only] [FILE...] (see --help)\n", argv[i]);
			return 2;
		}
	}
	for (i = 2; i < argc; i++) {
		const char *path = argv[i];
		struct stat sb;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
			fprintf(stderr, "xoload: %s: %s\n", path, fd < 0 ? strerror(errno) : "not a regular file");
			st = 1;
		} else if (op == CLEAR) {
			if (removexattr(path, XONLY_PLAN_XATTR) && errno != ENODATA) {
				fprintf(stderr, "xoload: %s: cannot remove %s: %s\n", path, XONLY_PLAN_XATTR,
					strerror(errno));
				st = 1;
			} else {
				printf("%s: no plan\n", path);
			}
		} else {
			st |= (op == SET ? set_one : get_one)(path, fd, (uint64_t)sb.st_size);
		}
		if (fd >= 0)
			close(fd);
	}
	return st;
}
