// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_features - the guest CPU has protection keys and the kernel turned
 * them on.  Everything else in the suite depends on this.
 *
 * Proves: CPUID.7.0:ECX reports PKU (the CPU has keys) and OSPKE (the
 * kernel set CR4.PKE); /proc/cpuinfo lists "pku" and "ospke" (the kernel
 * agrees); RDPKRU executes, and the kernel's default PKRU denies access
 * to every key but 0 (the state the execute-only key relies on).
 */
#include <stdio.h>
#include <string.h>

#include "pkru.h"
#include "tap.h"

static bool cpuinfo_has_flag(const char *flag)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok;

		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (tok = strtok(strchr(line, ':') + 1, " \n"); tok; tok = strtok(NULL, " \n"))
			if (strcmp(tok, flag) == 0)
				found = true;
	}
	fclose(f);
	return found;
}

int main(void)
{
	tap_init("cpu_features");
	tap_ok(cpuid_pku(), "CPUID.(EAX=7,ECX=0):ECX.PKU[3] is set");
	tap_ok(cpuid_ospke(), "CPUID.(EAX=7,ECX=0):ECX.OSPKE[4] is set (kernel enabled CR4.PKE)");
	tap_ok(cpuinfo_has_flag("pku"), "/proc/cpuinfo flags include pku");
	tap_ok(cpuinfo_has_flag("ospke"), "/proc/cpuinfo flags include ospke");
	if (pkru_supported()) {
		uint32_t pkru = rdpkru();
		uint32_t deny_1_15 = 0;

		for (int k = 1; k < 16; k++)
			deny_1_15 |= PKRU_AD(k);
		tap_ok((pkru & deny_1_15) == deny_1_15 && !(pkru & (PKRU_AD(0) | PKRU_WD(0))),
		       "default PKRU 0x%08x denies access to keys 1-15 and allows key 0", pkru);
	} else {
		tap_ok(false, "RDPKRU usable (needs PKU and OSPKE)");
	}
	return tap_done();
}
