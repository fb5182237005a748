/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkru.h - the PKRU register and the CPU features behind it.
 *
 * CPUID can claim PKU while RDPKRU still faults (the OS has not set
 * CR4.PKE), so pkru_supported() requires OSPKE as well.
 */
#ifndef XONLY_PKRU_H
#define XONLY_PKRU_H

#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>

#define PKRU_AD(pkey)	(1u << (2 * (pkey)))
#define PKRU_WD(pkey)	(2u << (2 * (pkey)))

/* @pkru with key @k's two bits replaced by @rights (PKEY_DISABLE_*). */
static inline uint32_t pkru_with(uint32_t pkru, int k, unsigned int rights)
{
	pkru &= ~(3u << (2 * k));
	return pkru | (rights & 3u) << (2 * k);
}

/* Key @k's PKEY_DISABLE_* bits in @pkru. */
static inline unsigned int pkru_rights(uint32_t pkru, int k)
{
	return (pkru >> (2 * k)) & 3u;
}

static inline bool cpuid_pku(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 3));
}

static inline bool cpuid_ospke(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 4));
}

static inline bool pkru_supported(void)
{
	return cpuid_pku() && cpuid_ospke();
}

static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	/* rdpkru, spelled out for assemblers that predate it */
	__asm__ volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static inline void wrpkru(uint32_t pkru)
{
	/* wrpkru; the memory clobber keeps accesses on their side of it */
	__asm__ volatile(".byte 0x0f, 0x01, 0xef" : : "a"(pkru), "c"(0), "d"(0) : "memory");
}

#endif
