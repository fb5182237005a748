// SPDX-License-Identifier: GPL-2.0
/*
 * tools/provenwrite.c - xoplan-proven: `xoload --update-cache --rule=proven
 * [--no-wait] [PATH...]`, which xoplan executes with its own arguments.
 * It writes the plan cache (tools/cachewrite.c, as root) with the plans of
 * the proven-code rule (tools/proven.c, issue 26 step 2), computed here,
 * offline, with LLVM's decoder: the run path reads those entries as it
 * reads the FDE rule's and never computes them (it has no decoder).
 * An object whose proven plan is its FDE plan gets an FDE rule's entry
 * (cachewrite.h).  Static, so that the decoder and libelf are nobody's
 * shared libraries to replace; not linked into xoplan, which every
 * --plan and --report runs.
 */
#include <gelf.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cachewrite.h"
#include "decode.h"
#include "proven.h"

/* The rule id (XO_PROVEN_RULE_ID) names LLVM: its plans are LLVM's. */
#ifndef XO_DECODE_LLVM
#error "xoplan-proven decodes with LLVM 14 (XO_LLVM_CFLAGS)"
#endif

static struct dec *dec;
/* The default rule, as xoproven and planproof --rule=proven plan: no relocation walk. */
static const struct proven_opts opts = { PROVEN_RELOC_NONE, false, false, NULL, false };

static int plan_proven(int fd, size_t pagesz, struct plan *p)
{
	struct proven_stats st;

	p->err[0] = 0;
	return proven_plan(fd, pagesz, dec, &opts, p, &st);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "update-cache", no_argument, NULL, 'U' },
		{ "rule", required_argument, NULL, 'R' },
		{ "no-wait", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cache_planner proven = { XOC_RULE_PROVEN, plan_proven };
	bool update = false, wait = true, rule_proven = false;
	const char *err;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (c) {
		case 'U': update = true; break;
		case 'W': wait = false; break;
		case 'R': rule_proven = !strcmp(optarg, "proven"); break;
		default: update = false; break;
		}
		if (c != 'U' && c != 'W' && c != 'R')
			break;
	}
	if (!update || !rule_proven) {
		fputs("usage: xoload --update-cache --rule=proven [--no-wait] [PATH...]  (see xoload --help)\n", stderr);
		return 2;
	}
	elf_version(EV_CURRENT);
	dec = dec_open(DEC_DEFAULT, 1, &err);
	if (!dec) {
		fprintf(stderr, "xoload: --rule=proven: no decoder (%s): %s\n", dec_name(DEC_DEFAULT), err);
		return 126;
	}
	rc = cache_update_cmd(argc - optind, argv + optind, wait, &proven);
	dec_close(dec);
	return rc;
}
