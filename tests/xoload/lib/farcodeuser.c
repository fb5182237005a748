// SPDX-License-Identifier: GPL-2.0
/*
 * farcodeuser [LIB] - calls farcode_fn() of libfarcode.so (DT_NEEDED) and,
 * given LIB, of LIB loaded with dlopen() after main started; prints each
 * result and SIGSEGV's disposition at main and after the dlopen()
 * ("SIGSEGV: default": xoload's load guard is gone by then), then for
 * every executable mapping of a file whose name holds
 * "farcode" its permissions and protection key from /proc/self/smaps
 * ("map NAME PERMS key K"), so that the test sees which code stayed
 * execute-only.  Exit 1 if LIB cannot be loaded.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int farcode_fn(int x);

static void disposition(void)
{
	struct sigaction sa;

	if (sigaction(SIGSEGV, NULL, &sa) == 0)
		printf("SIGSEGV: %s\n", sa.sa_handler == SIG_DFL ? "default" : "a handler");
}

int main(int argc, char **argv)
{
	char line[512], perms[8] = "", name[256] = "";
	FILE *f;

	printf("farcode_fn(2) = %d\n", farcode_fn(2));
	disposition();
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*fn)(int) = h ? (int (*)(int))dlsym(h, "farcode_fn") : NULL;

		if (!fn) {
			printf("dlopen %s: %s\n", argv[1], dlerror());
			return 1;
		}
		printf("dlopen: farcode_fn(3) = %d\n", fn(3));
		disposition();
	}
	fflush(stdout);
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		int key;

		if (sscanf(line, "%*x-%*x %7s", perms) == 1) {	/* a mapping's first line */
			name[0] = 0;
			sscanf(line, "%*x-%*x %*s %*s %*s %*s %255s", name);
			continue;
		}
		if (sscanf(line, "ProtectionKey: %d", &key) == 1 && strstr(name, "farcode") && strchr(perms, 'x'))
			printf("map %s %s key %d\n", strrchr(name, '/') ? strrchr(name, '/') + 1 : name, perms, key);
	}
	fclose(f);
	return 0;
}
