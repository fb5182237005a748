// SPDX-License-Identifier: GPL-2.0
/*
 * run/origin.c - PROG's $ORIGIN written into its dynamic strings (origin.h).
 *
 * glibc's ld.so expands $ORIGIN in a path element or a DT_NEEDED name
 * of the main program with the directory of readlink("/proc/self/exe")
 * (elf/dl-origin.c), computed once and kept; every other object's comes
 * from the name it was loaded by.  Under xoload that link names xoload,
 * and nothing in user space can change it (prctl(PR_SET_MM_EXE_FILE)
 * needs CAP_SYS_RESOURCE).  But ld.so reads those strings through PROG's
 * dynamic section, which xoload has mapped and ld.so has not yet read: an
 * entry's d_val is an offset from DT_STRTAB, so pointing it at a copy of
 * the string with the directory written in gives ld.so what it would
 * have expanded itself.  The copies live in xoload's .bss, which stays
 * mapped for PROG's life, as the strings must (PROG may read them).
 *
 * The expansion follows glibc's _dl_dst_substitute(): "$ORIGIN" not
 * followed by a letter, digit or '_', or "${ORIGIN}", replaced by the
 * directory; "$LIB", "$PLATFORM" and anything else left for ld.so.  Where
 * the copy would read otherwise than the original - a '$' of the
 * directory starts a token ld.so expands, or a search path's directory
 * holds ':' (ld.so splits the path before it expands) - PROG is refused,
 * and so it is where the strings cannot be read as ld.so will read them
 * or the entry cannot be written: no silent fallback to xoload's
 * directory, which could load a library of the same name from there.
 *
 * Read as ld.so will read them: the dynamic section up to DT_NULL, a
 * string up to its NUL, whatever DT_STRSZ says (ld.so reads neither
 * bound), from memory where image_map() left it readable data
 * (image_readable_end(): no PF_X, no later segment mapped over it), else
 * from the file where the PT_LOAD that holds the bytes in its file part
 * is what is mapped there (-z noseparate-code puts .dynstr in the code
 * segment, which may already be execute-only under the kernel's xonly
 * mode).  No libc.
 */
#include <elf.h>

#include "../rule/str.h"
#include "fmt.h"
#include "origin.h"
#include "runpath.h"
#include "sys.h"

#define ORIGIN_ARENA	16384

static char arena[ORIGIN_ARENA];
static size_t arena_used;
/*
 * The stretch image_readable_end() gave last, for the image being
 * expanded (origin_expand() forgets it): the dynamic section is read
 * entry by entry, twice, and each answer is a walk of the program headers.
 */
static RT_HOT const struct image *known_im;
static RT_HOT uint64_t known_lo, known_hi;

/*
 * Up to @cap bytes of @im from link-time address @va on, as ld.so will
 * read them (see above): *@p points at them (in memory, or in @buf); the
 * count, 0 where they cannot be read so.
 */
static uint64_t bytes_at(const struct image *im, uint64_t va, uint64_t cap, const char **p, char *buf)
{
	uint64_t a = im->bias + va, end, n, lim;
	const Elf64_Phdr *ph = NULL;
	long got;
	int i, j;

	if (im == known_im && a >= known_lo && a < known_hi) {
		end = known_hi;
	} else {
		end = image_readable_end(im, a);
		if (end > a) {
			known_im = im;
			known_lo = a;
			known_hi = end;
		}
	}

	/* The rest of the last page is mapped too (image_map() maps whole pages), as ld.so reads it. */
	end = rt_page_up(end);
	if (end > a) {
		*p = (const char *)a;
		return end - a < cap ? end - a : cap;
	}
	for (i = 0; i < im->eh.e_phnum; i++)
		if (im->ph[i].p_type == PT_LOAD && va >= im->ph[i].p_vaddr && va - im->ph[i].p_vaddr < im->ph[i].p_filesz) {
			ph = &im->ph[i];
			break;
		}
	if (!ph)
		return 0;
	lim = rt_page_up(ph->p_vaddr + ph->p_filesz);	/* the file's page, mapped whole */
	/* A later PT_LOAD mapped over the pages it starts in (image_map() maps them in order). */
	for (j = i + 1; j < im->eh.e_phnum; j++)
		if (im->ph[j].p_type == PT_LOAD && im->ph[j].p_memsz && rt_page_down(im->ph[j].p_vaddr) < lim)
			lim = rt_page_down(im->ph[j].p_vaddr);
	if (lim <= va)
		return 0;
	n = lim - va < cap ? lim - va : cap;
	got = rt_pread(im->fd, buf, n, (long)(ph->p_offset + (va - ph->p_vaddr)));
	if (got < 0)
		return 0;
	/* Past the end of the file, the last page reads as zeros. */
	for (; (uint64_t)got < n; got++)
		buf[got] = 0;
	*p = buf;
	return n;
}

/* Whether [@va, @va + @n) of @im (link-time) is mapped writable: in a PF_W PT_LOAD that no later one maps over. */
static bool writable(const struct image *im, uint64_t va, uint64_t n)
{
	int i, j;

	for (i = 0; i < im->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &im->ph[i];

		if (ph->p_type != PT_LOAD || va < ph->p_vaddr || n > ph->p_memsz || va - ph->p_vaddr > ph->p_memsz - n)
			continue;
		if (!(ph->p_flags & PF_W))
			return false;
		for (j = i + 1; j < im->eh.e_phnum; j++)
			if (im->ph[j].p_type == PT_LOAD && im->ph[j].p_memsz &&
			    rt_page_down(im->ph[j].p_vaddr) < va + n && !(im->ph[j].p_flags & PF_W))
				return false;
		return true;
	}
	return false;
}

/* glibc's is_dst(): the length of @name or "{" @name "}" at @s (just after a '$'), else 0. */
static size_t dst_len(const char *s, const char *name)
{
	size_t n = rt_strlen(name);
	bool curly = *s == '{';
	const char *p = s + curly;
	char c;

	if (rt_strncmp(p, name, n))
		return 0;
	c = p[n];
	if (curly ? c != '}' : (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
		return 0;
	return curly ? n + 2 : n;
}

static bool any_dst(const char *s)
{
	return dst_len(s, "ORIGIN") || dst_len(s, "LIB") || dst_len(s, "PLATFORM");
}

static bool uses_origin(const char *s)
{
	for (; *s; s++)
		if (*s == '$' && dst_len(s + 1, "ORIGIN"))
			return true;
	return false;
}

static bool has_char(const char *s, char c)
{
	for (; *s; s++)
		if (*s == c)
			return true;
	return false;
}

enum expand_fault { EXPAND_OK, EXPAND_LONG, EXPAND_DOLLAR };

/*
 * @s with each ORIGIN token replaced by @dir, into the arena, *@copy; no
 * '$' of a copied @dir may start a token ld.so would expand in the result
 * (the text after it included: "${ORIGIN}LIB" with @dir ending in '$').
 */
static enum expand_fault expand(const char *s, const char *dir, const char **copy)
{
	size_t dlen = rt_strlen(dir), len, k;
	char *out = arena + arena_used, *w = out, *end = arena + sizeof(arena);
	const char *t;

	for (t = s; *t; t++) {
		if (*t == '$' && (len = dst_len(t + 1, "ORIGIN"))) {
			if ((size_t)(end - w) <= dlen)
				return EXPAND_LONG;
			rt_strlcpy(w, dir, dlen + 1);
			w += dlen;
			t += len;
			continue;
		}
		if (end - w <= 1)
			return EXPAND_LONG;
		*w++ = *t;
	}
	*w++ = 0;
	/* Again, now that the text after each copied @dir is there. */
	for (t = s, w = out; *t; t++) {
		if (*t == '$' && (len = dst_len(t + 1, "ORIGIN"))) {
			for (k = 0; k < dlen; k++)
				if (w[k] == '$' && any_dst(w + k + 1))
					return EXPAND_DOLLAR;
			w += dlen;
			t += len;
			continue;
		}
		w++;
	}
	arena_used = (size_t)(w + 1 - arena);
	*copy = out;
	return EXPAND_OK;
}

/*
 * What ld.so's _dl_get_origin() makes of PROG's name: the directory ("/"
 * for the root) of the link /proc/self/fd/N of the descriptor PROG is
 * open on (runpath.c's fd_path()), which names the file as /proc/self/exe
 * names an executed one; false without /proc.
 */
static bool prog_dir(const struct image *im, char *dir)
{
	long n;

	if (!fd_path(im->fd, dir))
		return false;
	n = (long)rt_strlen(dir);
	while (n > 1 && dir[n - 1] != '/')
		n--;
	dir[n > 1 ? n - 1 : 1] = 0;
	return true;
}

/*
 * The entries whose strings ld.so expands $ORIGIN in with the main
 * program's origin: search paths and lists (':' splits them before
 * expansion), and names; 0 for others.
 */
enum { ORIGIN_PATH = 1, ORIGIN_NAME };
static int origin_kind(int64_t tag)
{
	switch (tag) {
	case DT_RPATH: case DT_RUNPATH: case DT_AUDIT: case DT_DEPAUDIT: return ORIGIN_PATH;
	case DT_NEEDED: case DT_AUXILIARY: case DT_FILTER: return ORIGIN_NAME;
	}
	return 0;
}

static const char *tag_name(int64_t tag)
{
	switch (tag) {
	case DT_RPATH: return "DT_RPATH";
	case DT_RUNPATH: return "DT_RUNPATH";
	case DT_AUDIT: return "DT_AUDIT";
	case DT_DEPAUDIT: return "DT_DEPAUDIT";
	case DT_AUXILIARY: return "DT_AUXILIARY";
	case DT_FILTER: return "DT_FILTER";
	}
	return "DT_NEEDED";
}

/* Single-valued tags, the lists: ld.so keeps the last entry (elf_get_dynamic_info()'s info[tag]). */
static bool last_counts(int64_t tag)
{
	return origin_kind(tag) == ORIGIN_PATH;
}

/* Dynamic entry @i of the section at @dyn_va into @d; false past what can be read. */
static bool dyn_entry(const struct image *im, uint64_t dyn_va, uint64_t i, Elf64_Dyn *d)
{
	char buf[sizeof(*d)], *o = (char *)d;
	const char *p;
	size_t k;

	if (bytes_at(im, dyn_va + i * sizeof(*d), sizeof(*d), &p, buf) != sizeof(*d))
		return false;
	for (k = 0; k < sizeof(*d); k++)
		o[k] = p[k];
	return true;
}

/* The index of the last entry of each single-valued tag: the one ld.so uses. */
struct last_entries {
	uint64_t rpath, runpath, audit, depaudit;
};

static uint64_t *last_of(struct last_entries *l, int64_t tag)
{
	return tag == DT_RPATH ? &l->rpath : tag == DT_RUNPATH ? &l->runpath : tag == DT_AUDIT ? &l->audit :
	       &l->depaudit;
}

int origin_expand(const struct image *im, char *err, size_t errlen)
{
	static char dir[PATH_MAX], buf[ORIGIN_ARENA + 1];
	struct last_entries last = { ~0ull, ~0ull, ~0ull, ~0ull };
	uint64_t strtab = 0, dyn_va = 0, i, n, k;
	bool have_dyn = false, have_dir = false, ended = false;
	enum expand_fault f;
	Elf64_Dyn d;
	int j;

	known_im = NULL;
	for (j = 0; j < im->eh.e_phnum; j++)
		if (im->ph[j].p_type == PT_DYNAMIC) {
			dyn_va = im->ph[j].p_vaddr;
			have_dyn = true;
		}
	if (!have_dyn)
		return 0;	/* static */
	/* As ld.so's elf_get_dynamic_info(): up to DT_NULL; the last DT_STRTAB counts. */
	for (i = 0; dyn_entry(im, dyn_va, i, &d); i++) {
		if (d.d_tag == DT_NULL) {
			ended = true;
			break;
		}
		if (d.d_tag == DT_STRTAB)
			strtab = d.d_un.d_ptr;
		else if (last_counts(d.d_tag))
			*last_of(&last, d.d_tag) = i;
	}
	if (!ended || !strtab) {
		/* Nothing ld.so could expand is known to be there; where it is, say so. */
		for (k = 0; k < i; k++)
			if (dyn_entry(im, dyn_va, k, &d) && origin_kind(d.d_tag))
				break;
		if (k == i)
			return 0;
		rt_fmt(err, errlen, "%s: its dynamic section %s: its %s cannot be checked for $ORIGIN", im->path,
		       !ended ? "does not end (DT_NULL) where xoload can read it" : "has no DT_STRTAB", tag_name(d.d_tag));
		return 126;
	}
	for (i = 0; dyn_entry(im, dyn_va, i, &d) && d.d_tag != DT_NULL; i++) {
		const char *what = tag_name(d.d_tag), *name, *copy;
		uint64_t slot = dyn_va + i * sizeof(d) + offsetof(Elf64_Dyn, d_un);
		int kind = origin_kind(d.d_tag);

		/* ld.so uses the last of each; the main program's DT_RPATH not at all beside a DT_RUNPATH. */
		if (!kind || (last_counts(d.d_tag) && *last_of(&last, d.d_tag) != i) ||
		    (d.d_tag == DT_RPATH && last.runpath != ~0ull))
			continue;
		n = bytes_at(im, strtab + d.d_un.d_val, sizeof(buf), &name, buf);
		for (k = 0; k < n && name[k]; k++)
			;
		if (k == n) {
			/* Cut short where xoload can read: a token may be in it, or lie beyond. */
			for (k = 0; k < n && name[k] != '$'; k++)
				;
			if (k == n && n < sizeof(buf))
				continue;
			rt_fmt(err, errlen, "%s: its %s string %s: it cannot be checked for $ORIGIN", im->path, what,
			       n == sizeof(buf) ? "is longer than 16 KiB" : "does not end where xoload can read it");
			return 126;
		}
		if (!uses_origin(name))
			continue;
		if (!have_dir && !prog_dir(im, dir))
			return 0;	/* no /proc: ld.so's own readlink fails as it would natively */
		have_dir = true;
		if (kind == ORIGIN_PATH && has_char(dir, ':')) {
			rt_fmt(err, errlen, "%s: $ORIGIN in its %s, and its directory %s has ':', where ld.so splits "
			       "the list (xoload --kernel runs it)", im->path, what, dir);
			return 126;
		}
		if (!writable(im, slot, sizeof(d.d_un))) {
			rt_fmt(err, errlen, "%s: $ORIGIN in its %s, and its dynamic section is not writable "
			       "(xoload --kernel runs it)", im->path, what);
			return 126;
		}
		f = expand(name, dir, &copy);
		if (f == EXPAND_DOLLAR) {
			rt_fmt(err, errlen, "%s: $ORIGIN in its %s, and a '$' of its directory %s would start a token "
			       "ld.so expands (xoload --kernel runs it)", im->path, what, dir);
			return 126;
		}
		if (f == EXPAND_LONG) {
			rt_fmt(err, errlen, "%s: $ORIGIN in its %s: its strings with the directory written in take "
			       "more than %d bytes (xoload --kernel runs it)", im->path, what, ORIGIN_ARENA);
			return 126;
		}
		/* ld.so reads it at DT_STRTAB (+ the bias) + d_val, in unsigned arithmetic. */
		*(uint64_t *)(im->bias + slot) = (uint64_t)copy - (im->bias + strtab);
	}
	return 0;
}
