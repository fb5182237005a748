// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>

#include "boot.h"

/* SYSLOG_ACTION_READ_ALL of syslog(2): the ring buffer, as dmesg reads it */
#define KLOG_READ_ALL	3

bool cmdline_has(const char *word)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

const char *klog_line(bool (*match)(const char *line))
{
	static char buf[1 << 20], line[1024];
	int len = klogctl(KLOG_READ_ALL, buf, sizeof(buf) - 1);
	const char *p, *end;

	if (len < 0)
		return NULL;
	buf[len] = 0;
	for (p = buf; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		if (!strcasestr(line, "command line") && match(line))
			return line;
	}
	return NULL;
}
