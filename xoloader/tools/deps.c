// SPDX-License-Identifier: GPL-2.0
/*
 * deps.c - resolve DT_NEEDED as glibc's ld.so does (elf/dl-load.c,
 * _dl_map_object), from the files alone: xoload --plan's library closure.
 *
 * Search order for a name without '/': the DT_RPATH of the needing object
 * and of the objects that loaded it (only when the needing object has no
 * DT_RUNPATH), LD_LIBRARY_PATH, the needing object's DT_RUNPATH,
 * /etc/ld.so.cache, then the default directories.  Not modelled: the
 * glibc-hwcaps subdirectories (cache entries for them are not preferred),
 * LD_PRELOAD, and a library already loaded under its DT_SONAME (the caller
 * merges objects by resolved path).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deps.h"

#define fail(...) do { snprintf(err, errlen, __VA_ARGS__); return 126; } while (0)

/* Larger than any real dynamic section or string table. */
#define MAX_DYN		(1u << 20)
#define MAX_STRSZ	(64u << 20)

/* The file offset of link-time address @va, inside a PT_LOAD's file image. */
static int va_to_off(const struct image *im, uint64_t va, uint64_t len, uint64_t *off)
{
	int i;

	for (i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];

		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va - ph->p_vaddr <= ph->p_filesz &&
		    len <= ph->p_filesz - (va - ph->p_vaddr)) {
			*off = ph->p_offset + (va - ph->p_vaddr);
			return 0;
		}
	}
	return -1;
}

int dyn_read(const struct image *im, struct dyninfo *d, char *err, size_t errlen)
{
	const Elf64_Phdr *dyn = NULL;
	uint64_t strtab = 0, strsz = 0, off, rpath = UINT64_MAX, runpath = UINT64_MAX;
	bool have_strtab = false, have_strsz = false;
	struct stat st;
	Elf64_Dyn *v;
	size_t n, i;
	int k;

	memset(d, 0, sizeof(*d));
	for (k = 0; k < im->eh.e_phnum; k++)
		if (im->ph[k].p_type == PT_DYNAMIC) {
			if (dyn)
				fail("%s: more than one PT_DYNAMIC", im->path);
			dyn = &im->ph[k];
		}
	if (!dyn || !dyn->p_filesz)
		return 0;
	if (fstat(im->fd, &st))
		fail("%s: %s", im->path, strerror(errno));
	if (dyn->p_filesz > MAX_DYN || dyn->p_offset > (uint64_t)st.st_size ||
	    (uint64_t)st.st_size - dyn->p_offset < dyn->p_filesz)
		fail("%s: bad PT_DYNAMIC", im->path);
	n = dyn->p_filesz / sizeof(*v);
	v = malloc(n * sizeof(*v) + 1);
	if (!v)
		fail("%s: out of memory", im->path);
	if (pread(im->fd, v, n * sizeof(*v), (off_t)dyn->p_offset) != (ssize_t)(n * sizeof(*v))) {
		free(v);
		fail("%s: cannot read PT_DYNAMIC", im->path);
	}
	for (i = 0; i < n && v[i].d_tag != DT_NULL; i++) {
		switch (v[i].d_tag) {
		case DT_STRTAB: strtab = v[i].d_un.d_ptr; have_strtab = true; break;
		case DT_STRSZ: strsz = v[i].d_un.d_val; have_strsz = true; break;
		case DT_RPATH: rpath = v[i].d_un.d_val; break;
		case DT_RUNPATH: runpath = v[i].d_un.d_val; break;
		case DT_NEEDED:
			if (d->nneeded == DEPS_MAX_NEEDED) {
				free(v);
				fail("%s: more than %d DT_NEEDED entries", im->path, DEPS_MAX_NEEDED);
			}
			d->needed[d->nneeded++] = v[i].d_un.d_val;
			break;
		}
	}
	free(v);
	if (!d->nneeded && rpath == UINT64_MAX && runpath == UINT64_MAX)
		return 0;
	if (!have_strtab || !have_strsz || strsz == 0 || strsz > MAX_STRSZ ||
	    va_to_off(im, strtab, strsz, &off))
		fail("%s: bad dynamic string table (DT_STRTAB/DT_STRSZ)", im->path);
	d->strtab = malloc(strsz + 1);
	if (!d->strtab)
		fail("%s: out of memory", im->path);
	if (pread(im->fd, d->strtab, strsz, (off_t)off) != (ssize_t)strsz) {
		free(d->strtab);
		d->strtab = NULL;
		fail("%s: cannot read the dynamic string table", im->path);
	}
	d->strtab[strsz] = 0;
	for (k = 0; k < d->nneeded; k++)
		if (d->needed[k] >= strsz || !d->strtab[d->needed[k]]) {
			free(d->strtab);
			d->strtab = NULL;
			fail("%s: bad DT_NEEDED entry %d", im->path, k);
		}
	if (rpath != UINT64_MAX && rpath < strsz)
		d->rpath = d->strtab + rpath;
	if (runpath != UINT64_MAX && runpath < strsz)
		d->runpath = d->strtab + runpath;
	return 0;
}

void dep_origin(const char *path, char *out)
{
	char *slash;

	if (!realpath(path, out))
		snprintf(out, PATH_MAX, "%s", path);
	slash = strrchr(out, '/');
	if (slash == out)
		out[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(out, PATH_MAX, ".");
}

/* A file ld.so would take: a 64-bit little-endian x86-64 ELF file. */
static bool usable(const char *path)
{
	Elf64_Ehdr eh;
	struct stat st;
	bool ok;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && S_ISREG(st.st_mode) && pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	     !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	     eh.e_ident[EI_DATA] == ELFDATA2LSB && eh.e_machine == EM_X86_64;
	close(fd);
	return ok;
}

/* DIR (one path-list element, tokens expanded) + "/" + @name, if usable. */
static bool try_dir(const char *dir, size_t dlen, const char *origin, const char *name, char *out)
{
	char d[PATH_MAX];
	size_t k = 0, i;

	for (i = 0; i < dlen && k < sizeof(d) - 1; ) {
		static const struct { const char *tok; size_t len; } toks[] = {
			{ "$ORIGIN", 7 }, { "${ORIGIN}", 9 }, { "$LIB", 4 }, { "${LIB}", 6 },
			{ "$PLATFORM", 9 }, { "${PLATFORM}", 11 },
		};
		const char *val = NULL;
		size_t t;

		if (dir[i] == '$')
			for (t = 0; t < sizeof(toks) / sizeof(toks[0]); t++)
				if (dlen - i >= toks[t].len && !memcmp(dir + i, toks[t].tok, toks[t].len)) {
					val = t < 2 ? origin : t < 4 ? "lib/x86_64-linux-gnu" : "x86_64";
					i += toks[t].len;
					break;
				}
		if (val) {
			k += (size_t)snprintf(d + k, sizeof(d) - k, "%s", val);
			if (k >= sizeof(d))
				return false;
		} else {
			d[k++] = dir[i++];
		}
	}
	d[k] = 0;
	if (!k)
		snprintf(d, sizeof(d), ".");	/* an empty element: the working directory */
	if (snprintf(out, PATH_MAX, "%s/%s", d, name) >= PATH_MAX)
		return false;
	return usable(out);
}

/* Each element of the ':'- (or ';'-) separated @list. */
static bool try_list(const char *list, const char *origin, const char *name, char *out)
{
	const char *p = list, *e;

	if (!list)
		return false;
	for (;; p = e + 1) {
		e = p + strcspn(p, ":;");
		if (try_dir(p, (size_t)(e - p), origin, name, out))
			return true;
		if (!*e)
			return false;
	}
}

/*
 * /etc/ld.so.cache, glibc's "glibc-ld.so.cache1.1" format (alone, or after
 * the old "ld.so-1.7.0" table): entries of (flags, key, value, osversion,
 * hwcap), strings at offsets from the start of the new header.
 */
struct cache_new {
	char magic[17], version[3];
	uint32_t nlibs, len_strings;
	uint8_t flags, pad[3];
	uint32_t ext_offset, unused[3];
};
struct cache_entry {
	int32_t flags;
	uint32_t key, value, osversion;
	uint64_t hwcap;
};

static bool try_cache(const char *name, char *out)
{
	static const char *map;
	static size_t size;
	static bool tried;
	const struct cache_new *h;
	const struct cache_entry *e;
	size_t base = 0, i;

	if (!tried) {
		int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		struct stat st;

		tried = true;
		if (fd < 0)
			return false;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (m != MAP_FAILED) {
				map = m;
				size = (size_t)st.st_size;
			}
		}
		close(fd);
	}
	if (!map)
		return false;
	if (size >= 16 && !memcmp(map, "ld.so-1.7.0", 11)) {
		uint32_t n;

		memcpy(&n, map + 12, 4);
		base = 16 + (size_t)n * 12;
		base = (base + 7) & ~(size_t)7;
	}
	if (base > size || size - base < sizeof(*h) || memcmp(map + base, "glibc-ld.so.cache1.1", 20))
		return false;
	h = (const void *)(map + base);
	if (h->nlibs > (size - base - sizeof(*h)) / sizeof(*e))
		return false;
	e = (const void *)(h + 1);
	for (i = 0; i < h->nlibs; i++) {
		const char *k = map + base + e[i].key, *v = map + base + e[i].value;

		/* libc6, x86-64, not a glibc-hwcaps subdirectory's entry */
		if ((e[i].flags & 0xffff) != 0x0303 || e[i].hwcap ||
		    e[i].key >= size - base || e[i].value >= size - base ||
		    !memchr(k, 0, size - base - e[i].key) || !memchr(v, 0, size - base - e[i].value) ||
		    strcmp(k, name))
			continue;
		if (strlen(v) < PATH_MAX && usable(v)) {
			snprintf(out, PATH_MAX, "%s", v);
			return true;
		}
	}
	return false;
}

static const char default_dirs[] =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib";

int dep_find(const char *name, const struct rpath *rp, int nrp, const char *origin,
	     const char *runpath, char *out)
{
	const char *llp;
	int i;

	if (strchr(name, '/')) {
		snprintf(out, PATH_MAX, "%s", name);
		return 0;
	}
	for (i = 0; i < nrp; i++)
		if (try_list(rp[i].path, rp[i].origin, name, out))
			return 0;
	llp = getenv("LD_LIBRARY_PATH");
	if ((llp && *llp && try_list(llp, ".", name, out)) ||
	    try_list(runpath, origin, name, out) ||
	    try_cache(name, out) ||
	    try_list(default_dirs, "/", name, out))
		return 0;
	return 127;
}

int dep_find_lib(const char *name, char *out)
{
	return dep_find(name, NULL, 0, ".", NULL, out);
}
