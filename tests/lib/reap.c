/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reap: run a command, then make sure it left nothing behind.  reap is a
 * child subreaper (prctl PR_SET_CHILD_SUBREAPER): every process the
 * command starts that outlives its parent, detached daemons included
 * (setsid, double fork), becomes reap's child.  When the command ends,
 * reap waits up to a second for such orphans to exit (daemons told to
 * stop must do so within half a second), then names each one still
 * there, kills it and fails.  A parent check, not a name match: it finds
 * whatever the command started, and nothing anyone else did.
 *
 * usage: reap COMMAND [ARG...]
 * Exit: the command's status, or 125 when it left processes behind.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REAP_LEFT 125

/* The processes whose parent is us now, into pids (at most cap). */
static int
orphans(pid_t *pids, int cap)
{
	DIR           *d = opendir("/proc");
	struct dirent *de;
	char           path[300], buf[512], *p;
	int            n = 0;
	FILE          *f;

	if (d == NULL)
		return (0);
	while ((de = readdir(d)) != NULL && n < cap) {
		long ppid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		/* pid (comm) state ppid: comm may hold spaces and ')'. */
		if (fgets(buf, sizeof(buf), f) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1 &&
		    ppid == (long)getpid())
			pids[n++] = (pid_t)atol(de->d_name);
		fclose(f);
	}
	closedir(d);
	return (n);
}

static void
say(pid_t pid)
{
	char   path[64], cmd[512];
	FILE  *f;
	size_t n = 0, i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((f = fopen(path, "re")) != NULL) {
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
	}
	for (i = 0; i + 1 < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	cmd[n] = '\0';
	fprintf(stderr, "reap: left behind: pid %d: %s\n", (int)pid,
	        n ? cmd : "?");
}

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	pid_t child, pids[256];
	int   st, n = 0, i, t;

	if (argc < 2) {
		fprintf(stderr, "usage: reap COMMAND [ARG...]\n");
		return (2);
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("reap: PR_SET_CHILD_SUBREAPER");
		return (2);
	}
	/* Ctrl-C reaches the command (same process group); reap stays to
	 * clean up after it. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if ((child = fork()) == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "reap: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	if (child < 0) {
		perror("reap: fork");
		return (2);
	}
	/* Orphans that end before the command are waited for as they do:
	 * a zombie would still answer kill(pid, 0). */
	for (;;) {
		int   s;
		pid_t w = waitpid(-1, &s, 0);

		if (w == child) {
			st = s;
			break;
		}
		if (w < 0 && errno != EINTR) {
			perror("reap: waitpid");
			return (2);
		}
	}
	/* Orphans that are on their way out get a second. */
	for (t = 0; t < 20; t++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if ((n = orphans(pids, 256)) == 0)
			break;
		sleep_ms(50);
	}
	for (i = 0; i < n; i++) {
		say(pids[i]);
		kill(pids[i], SIGKILL);
	}
	while (n > 0 && waitpid(-1, NULL, 0) > 0)
		;
	if (n > 0)
		return (REAP_LEFT);
	if (WIFSIGNALED(st))
		return (128 + WTERMSIG(st));
	return (WEXITSTATUS(st));
}
