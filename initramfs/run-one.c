// SPDX-License-Identifier: GPL-2.0
/*
 * run-one - run one test program so that nothing it starts outlives it.
 *
 * usage: run-one [-t SECONDS] -o LOG PROG [ARG...]
 *
 * PROG runs with stdin /dev/null and stdout and stderr appended to LOG, in
 * a session of its own.  run-one is a child subreaper (PR_SET_CHILD_SUBREAPER):
 * every process PROG starts, however it detaches (setsid, double fork), is
 * re-parented to run-one when its parent dies, never to the VM's init.  When
 * PROG has exited (or was killed at the time limit), run-one kills every
 * process left, names each on stderr ("# leftover process PID (COMM)
 * killed"), and waits until it has reaped them all: when run-one returns,
 * nothing of the test runs and nothing writes to LOG any more.
 *
 * Exit status: PROG's, 128+N if a signal N killed it (137 at the time limit,
 * with "# time limit of S s hit" on stderr), 127 if it could not be run.
 *
 * initramfs/run-tests runs each test this way: the 6.12 tree's
 * protection_keys selftest left a process that printed into the next test's
 * output.  A PID namespace per test would do the same, but it needs
 * CONFIG_PID_NS and a /proc of its own, where /proc/1 is no longer
 * busybox's init (tests/kernel/xonly_mode looks at it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: run-one [-t SECONDS] -o LOG PROG [ARG...]\n");
	exit(127);
}

/* The parent pid and state of @pid from /proc/PID/stat; false if gone. */
static bool proc_stat(pid_t pid, pid_t *ppid, char *state, char *comm, size_t commsz)
{
	char path[64], buf[512], *lp, *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "PID (COMM) S PPID ...": COMM may hold spaces and ')', so the last ')'. */
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return false;
	snprintf(comm, commsz, "%.*s", (int)(rp - lp - 1), lp + 1);
	return sscanf(rp + 1, " %c %d", state, ppid) == 2;
}

/* Whether @pid was named already: a killed child may take a while to die. */
static bool named_before(pid_t pid)
{
	static pid_t named[256];
	static unsigned n;

	for (unsigned i = 0; i < n && i < 256; i++)
		if (named[i] == pid)
			return true;
	named[n++ % 256] = pid;
	return false;
}

/* SIGKILL every child of ours that still runs, naming it once. */
static void kill_children(void)
{
	pid_t self = getpid(), pid, ppid;
	char state, comm[64];
	struct dirent *de;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc) {
		perror("run-one: /proc");
		exit(127);
	}
	while ((de = readdir(proc))) {
		pid = (pid_t)atoi(de->d_name);
		if (pid <= 0 || !proc_stat(pid, &ppid, &state, comm, sizeof(comm)) ||
		    ppid != self || state == 'Z')
			continue;
		if (!named_before(pid))
			fprintf(stderr, "# leftover process %d (%s) killed\n", (int)pid, comm);
		kill(pid, SIGKILL);
	}
	closedir(proc);
}

int main(int argc, char **argv)
{
	const char *log = NULL;
	unsigned limit = 0;
	struct sigaction sa;
	int opt, fd, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+t:o:")) != -1) {
		switch (opt) {
		case 't': limit = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'o': log = optarg; break;
		default: usage();
		}
	}
	if (!log || optind >= argc)
		usage();
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		fprintf(stderr, "run-one: %s: %s\n", log, strerror(errno));
		return 127;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("run-one: PR_SET_CHILD_SUBREAPER");
		return 127;
	}

	pid = fork();
	if (pid < 0) {
		perror("run-one: fork");
		return 127;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		setsid();
		execvp(argv[optind], argv + optind);
		dprintf(2, "run-one: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(fd);

	/* No SA_RESTART: the alarm interrupts waitpid(). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(limit);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("run-one: waitpid");
			return 127;
		}
		if (timed_out) {
			fprintf(stderr, "# time limit of %u s hit: %s killed\n", limit, argv[optind]);
			kill(pid, SIGKILL);
		}
	}
	alarm(0);

	/*
	 * Kill what is left and reap it, until the kernel says we have no
	 * child.  A child we reap may have had children of its own: the kernel
	 * has re-parented them to us before its exit reached us, so the next
	 * pass finds them.
	 */
	for (;;) {
		pid_t reaped;

		kill_children();
		reaped = waitpid(-1, NULL, WNOHANG);
		if (reaped < 0 && errno == ECHILD)
			break;
		if (reaped == 0)
			usleep(10000);	/* killed, not dead yet */
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
