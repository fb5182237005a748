/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkeys.h - whether this CPU and kernel give protection keys: xoload
 * checks before it runs PROG, the audit module before it protects a
 * program in place (a child of one under xoload, audit.c).
 *
 * Without them (PKU in CPUID, and OSPKE: the kernel enabled them),
 * PROT_EXEC alone is readable on x86: running the program then would look
 * like success and protect nothing.  CPUID can claim PKU where the kernel
 * left CR4.PKE off, hence both bits.
 */
#ifndef XOLOADER_RUN_PKEYS_H
#define XOLOADER_RUN_PKEYS_H

#include <cpuid.h>
#include <stdbool.h>

#ifdef XOLOAD_BENCH_NO_PKEYS
/* What tests/host/xoload_nopkeys.sh looks for in every xoload and module the build made (stripped ones too). */
static const char bench_build_mark[] __attribute__((used)) = "xoload: make bench-host's timing build, no protection-key check";
#endif

static inline bool rt_have_pkeys(void)
{
	unsigned int eax, ebx, ecx, edx;

#ifdef XOLOAD_BENCH_NO_PKEYS
	/*
	 * make bench-host's build only (build/hostbench/, never installed):
	 * xoload's startup timed on a CPU without PKU, every step the same.
	 */
	return true;
#endif
	if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return (ecx & (1u << 3)) && (ecx & (1u << 4));
}

#endif
