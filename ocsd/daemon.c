/* SPDX-License-Identifier: BSD-2-Clause */
/* Detaching with a readiness handshake (see daemon.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "ocsd/daemon.h"

int
daemon_start(struct daemon *dm, int foreground, const char *pidfile)
{
	int   p[2], st;
	pid_t pid;
	char  ok = 0, cwd[PATH_MAX];

	dm->fd = -1;
	dm->pidfile[0] = '\0';
	/* Absolute: the daemon's cwd becomes /, where a relative name
	 * could not be removed at exit (ocsd.pid was left behind). */
	if (pidfile && pidfile[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
	    (size_t)snprintf(dm->pidfile, sizeof(dm->pidfile), "%s/%s", cwd,
	                     pidfile) >= sizeof(dm->pidfile))
		return (-ENAMETOOLONG);
	if (pidfile && dm->pidfile[0] == '\0')
		snprintf(dm->pidfile, sizeof(dm->pidfile), "%s", pidfile);
	if (foreground)
		return (0);
	if (pipe2(p, O_CLOEXEC) != 0 || (pid = fork()) < 0)
		return (-errno);
	if (pid > 0) {
		/* One byte means ready; end of file without it, a child
		 * that failed and said why on our shared stderr. */
		close(p[1]);
		while (read(p[0], &ok, 1) < 0 && errno == EINTR)
			;
		if (ok == 'R')
			_exit(0);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		_exit(1);
	}
	close(p[0]);
	setsid();
	dm->fd = p[1];
	return (0);
}

int
daemon_ready(struct daemon *dm, char *err, size_t errlen)
{
	FILE *f;
	int   fd;

	if (dm->pidfile[0]) {
		if ((f = fopen(dm->pidfile, "we")) == NULL ||
		    fprintf(f, "%ld\n", (long)getpid()) < 0 ||
		    fclose(f) != 0) {
			snprintf(err, errlen, "pid file %s: %s", dm->pidfile,
			         strerror(errno));
			return (-errno);
		}
	}
	(void)sd_notify(0, "READY=1");
	if (dm->fd < 0)
		return (0);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (chdir("/") != 0) {
		/* Nothing relies on the cwd (paths are absolute). */
	}
	(void)!write(dm->fd, "R", 1);
	close(dm->fd);
	dm->fd = -1;
	return (0);
}

void
daemon_notify(const char *state)
{
	(void)sd_notify(0, state);
}

void
daemon_stop(struct daemon *dm)
{
	if (dm->pidfile[0])
		unlink(dm->pidfile);
}

unsigned long
daemon_nofile(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return (0);
	if (rl.rlim_cur < want && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return ((unsigned long)rl.rlim_cur);
}
