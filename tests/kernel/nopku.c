// SPDX-License-Identifier: GPL-2.0
/*
 * nopku - on a CPU without protection keys xonly mode is refused, not
 * claimed (issue 12, findings 3 and 8; kernel/patches/0008 and 0010).
 *
 * Runs in the nopku boot of scripts/check (tests/nopku.run), whose command
 * line also has xonly=on; on a boot with protection keys it has nothing
 * to test and says so (one skip).
 *
 * Proves, with the kernel's pkeys off (CPUID OSPKE clear):
 *  - finding 8: xonly=on on the command line was warned about (a kernel
 *    log line naming xonly and the missing PKU) and stayed off: the test
 *    and pid 1 start with GET 0 and Xonly: 0, and busybox's text is r-xp;
 *  - finding 3: PR_SET_XONLY 1 (and 2, the strict level) fails EOPNOTSUPP, and afterwards GET is 0
 *    and /proc/self/status says Xonly: 0; a file PROT_READ|PROT_EXEC
 *    mmap() is r-xp and reads;
 *  - the kernel claims no protection it does not give: if GET or Xonly:
 *    says 1 (or SET succeeded), that file mapping must be --xp and fault,
 *    which without PKU it cannot: such a kernel fails here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boot.h"
#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"
#include "xonly_sys.h"

/* A kernel message about xonly that names the missing protection keys. */
static bool warns_no_pku(const char *line)
{
	return strcasestr(line, "xonly") &&
	       (strcasestr(line, "pku") || strcasestr(line, "ospke") || strcasestr(line, "protection key"));
}

/* The perms of the first executable mapping in /proc/@pid/maps whose path has @path_part. */
static bool text_mapping(const char *pid, const char *path_part, char perms[5])
{
	char file[64], line[4096], path[256], pm[5];
	bool found = false;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%s/maps", pid);
	f = fopen(file, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%*x-%*x %4s %*s %*s %*s %255s", pm, path) >= 1 && strchr(pm, 'x') &&
		    strstr(path, path_part)) {
			memcpy(perms, pm, 5);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	bool on = cmdline_has("xonly=on");
	char perms[5] = "";
	int r, e, get, status, fd;
	struct fault f;
	unsigned char *p;
	bool claims;

	tap_init("nopku");
	if (!cmdline_has("nopku") && pkru_supported()) {
		tap_skip("not a nopku boot", "the interfaces on a CPU without protection keys");
		return tap_done();
	}
	fault_setup();
	if (!tap_ok(!cpuid_ospke(), "setup: CPUID says OSPKE clear: the kernel did not enable protection keys"))
		return tap_done();

	if (on) {
		const char *line = klog_line(warns_no_pku);

		tap_ok(line != NULL, "xonly=on without PKU was warned about in the kernel log (\"%s\")",
		       line ? line : "no such line");
		tap_ok(proc_status_int(1, "Xonly") == 0, "xonly=on without PKU stayed off: pid 1 has Xonly: %d (want 0)",
		       proc_status_int(1, "Xonly"));
		bool found = text_mapping("1", "busybox", perms);

		tap_ok(found && !strcmp(perms, "r-xp"), "xonly=on without PKU: pid 1's busybox text is r-xp (got %s)",
		       found ? perms : "none");
	}
	get = xonly_get(0, 0, 0, 0);
	status = proc_status_int(getpid(), "Xonly");
	tap_ok(get == 0 && status == 0, "at start GET %d, status Xonly: %d (want 0, 0%s)", get, status,
	       on ? ": xonly=on is no protection here" : "");

	errno = 0;
	r = xonly_set(1, 0, 0, 0);
	e = r < 0 ? errno : 0;
	tap_ok(r == -1 && e == EOPNOTSUPP, "PR_SET_XONLY 1 without PKU -> EOPNOTSUPP (got %d, %s)", r, errname(e));
	errno = 0;
	r = xonly_set(2, 0, 0, 0);
	e = r < 0 ? errno : 0;
	tap_ok(r == -1 && e == EOPNOTSUPP, "PR_SET_XONLY 2 (strict) without PKU -> EOPNOTSUPP (got %d, %s)", r,
	       errname(e));
	get = xonly_get(0, 0, 0, 0);
	status = proc_status_int(getpid(), "Xonly");
	tap_ok(get == 0 && status == 0, "after it GET %d, status Xonly: %d (want 0, 0)", get, status);

	fd = open("/proc/self/exe", O_RDONLY);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	e = p == MAP_FAILED ? errno : 0;
	if (!tap_ok(p != MAP_FAILED, "setup: mmap(/proc/self/exe, PROT_READ|PROT_EXEC) (%s)", errname(e)))
		return tap_done();
	fault_read8(p, &f);
	tap_ok(!strcmp(maps_perms(p), "r-xp") && !f.hit && !memcmp(p, "\177ELF", 4),
	       "file PROT_READ|PROT_EXEC maps %s and reads (%s; want r-xp, no fault)", maps_perms(p), fault_str(&f));

	claims = r == 0 || get == 1 || status == 1;
	tap_ok(!claims || (!strncmp(maps_perms(p), "--x", 3) && f.hit),
	       "no claim without protection: SET %d, GET %d, Xonly: %d, and that mapping %s and %s", r, get, status,
	       maps_perms(p), f.hit ? "faults" : "reads");
	return tap_done();
}
