// SPDX-License-Identifier: GPL-2.0
/*
 * pkey_free - pkey_free() refuses key 0 and the execute-only key with
 * EINVAL (issue 12; kernel/patches/0002).
 *
 * Upstream lets a process free key 0, which every mapping without a key
 * of its own has.  While the execute-only key is not yet allocated, the
 * next mprotect(PROT_EXEC) then allocates key 0 as the execute-only key
 * and access-disables it in PKRU: all ordinary memory of the thread,
 * its stack included, is then "execute-only".
 *
 * Proves:
 *  - in a process that has no execute-only key yet, pkey_free(0) -> EINVAL,
 *    and the mprotect(PROT_EXEC) after it gets a key other than 0 and the
 *    process goes on (a forked child, which dies if key 0 was taken);
 *  - with the execute-only key allocated, pkey_free() of it -> EINVAL
 *    (upstream already hides that key: a control), the page keeps the key
 *    and still faults SEGV_PKUERR on a load, and pkey_free(0) -> EINVAL;
 *  - after those refused calls pkey_alloc() hands out keys 1..15, never 0
 *    or the execute-only key.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault.h"
#include "mapping.h"
#include "pkru.h"
#include "tap.h"

/* pkey_free(@k): 0 or the errno. */
static int free_err(int k)
{
	return pkey_free(k) ? errno : 0;
}

/* Child exit codes of test_fresh_process(). */
enum { FRESH_OK, FRESH_FREED_0, FRESH_KEY_0, FRESH_NO_KEY, FRESH_MAP };

static void test_fresh_process(void)
{
	int st = -1, err = -1;
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		tap_bail("setup: pipe: %s", errname(errno));
	pid = fork();
	if (pid == 0) {
		unsigned char *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int e, key;

		if (p == MAP_FAILED)
			_exit(FRESH_MAP);
		e = free_err(0);
		if (write(pfd[1], &e, sizeof(e)) != sizeof(e))
			_exit(FRESH_MAP);
		p[0] = 0xc3;
		if (mprotect(p, page_size(), PROT_EXEC))
			_exit(FRESH_NO_KEY);
		/* if key 0 became the execute-only key, this thread's stack faults here */
		key = smaps_pkey(p);
		_exit(key == 0 ? FRESH_KEY_0 : key < 0 ? FRESH_NO_KEY : e == 0 ? FRESH_FREED_0 : FRESH_OK);
	}
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	tap_ok(err == EINVAL, "no execute-only key yet: pkey_free(0) -> EINVAL (got %s)",
	       err < 0 ? "no answer" : errname(err));
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == FRESH_OK,
	       "... and the mprotect(PROT_EXEC) after it gets a key other than 0, the process goes on (status %#x%s)", st,
	       WIFSIGNALED(st) ? ": killed, key 0 became the execute-only key" :
	       WIFEXITED(st) && WEXITSTATUS(st) == FRESH_FREED_0 ? ": it lives, but key 0 was freed" : "");
}

int main(void)
{
	unsigned char *code;
	int xo, got, keys = 0, bad = -1, k;
	int allocated[16];
	struct fault f;

	tap_init("pkey_free");
	if (!pkru_supported())
		tap_bail("PKU and OSPKE present");
	fault_setup();
	test_fresh_process();

	code = (unsigned char *)map_anon_page();
	code[0] = 0xc3;
	if (mprotect(code, page_size(), PROT_EXEC))
		tap_bail("setup: mprotect(PROT_EXEC): %s", errname(errno));
	xo = smaps_pkey(code);
	if (!tap_ok(xo > 0 && xo < 16, "setup: mprotect(PROT_EXEC) gave the execute-only key %d", xo))
		return tap_done();

	got = free_err(xo);
	tap_ok(got == EINVAL, "pkey_free(the execute-only key %d) -> EINVAL (got %s)", xo, errname(got));
	fault_read8(code, &f);
	tap_ok(smaps_pkey(code) == xo && fault_is_pkuerr(&f, xo, code),
	       "... the page keeps key %d and a load faults SEGV_PKUERR (smaps key %d, %s)", xo, smaps_pkey(code),
	       fault_str(&f));
	got = free_err(0);
	tap_ok(got == EINVAL, "pkey_free(0) with the execute-only key allocated -> EINVAL (got %s)", errname(got));

	while (keys < 16 && (k = pkey_alloc(0, 0)) >= 0) {
		allocated[keys++] = k;
		if ((k == 0 || k == xo) && bad < 0)
			bad = k;
	}
	tap_ok(bad < 0 && keys == 14,
	       "after the refused calls pkey_alloc() gives the 14 keys that are neither 0 nor %d (got %d keys, bad key %d)",
	       xo, keys, bad);
	while (keys > 0)
		pkey_free(allocated[--keys]);
	return tap_done();
}
