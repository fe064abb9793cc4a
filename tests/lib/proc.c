/* SPDX-License-Identifier: BSD-2-Clause */
/* Process helpers for integration tests (see proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "tests/lib/proc.h"

const char *
proc_bin(const char *name, char *buf, size_t len)
{
	const char *b = getenv("OCS_BIN");

	snprintf(buf, len, "%s/%s", b ? b : "bin", name);
	return (buf);
}

int
proc_start(struct proc *p, char *const argv[], const char *errlog)
{
	int fd[2], e;

	memset(p, 0, sizeof(*p));
	snprintf(p->log, sizeof(p->log), "%s", errlog ? errlog : "/dev/null");
	if (pipe2(fd, O_CLOEXEC) != 0)
		return (-errno);
	p->pid = fork();
	if (p->pid < 0) {
		e = errno;
		close(fd[0]);
		close(fd[1]);
		return (-e);
	}
	if (p->pid == 0) {
		int lf = open(p->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		/* A test killed (a timeout, a crash) takes its programs with
		 * it: none is left serving on a port for the next run. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fd[1], 1);
		if (lf >= 0)
			dup2(lf, 2);
		/* The program gets 0, 1 and 2, nothing else of ours (a
		 * pipe of another program's would keep its reader waiting). */
		close_range(3, ~0u, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	p->out = fd[0];
	return (0);
}

int
proc_line(struct proc *p, char *buf, size_t len, int timeout_ms)
{
	struct pollfd pfd = {.fd = p->out, .events = POLLIN};
	size_t        n = 0;
	char          c;

	while (n + 1 < len) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return (-1);
		if (read(p->out, &c, 1) != 1)
			return (-1);
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return (0);
}

int
proc_alive(struct proc *p)
{
	return (p->pid > 0 && waitpid(p->pid, NULL, WNOHANG) == 0);
}

int
proc_stop(struct proc *p, int sig)
{
	struct timespec ts = {0, 10000000};
	int             st = -1, i;

	if (p->pid <= 0)
		return (-1);
	kill(p->pid, sig);
	for (i = 0; i < 500; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid)
			break;
		nanosleep(&ts, NULL);
	}
	if (i == 500) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &st, 0);
	}
	if (p->out > 0)
		close(p->out);
	p->pid = 0;
	p->out = -1;
	return (st);
}

int
proc_term_ms(struct proc *p, int *st)
{
	struct timespec ts = {0, 1000000};
	uint64_t        t0;
	int             i, ms = -1;

	*st = -1;
	if (p->pid <= 0)
		return (-1);
	t0 = mono_ms();
	kill(p->pid, SIGTERM);
	for (i = 0; i < 5000; i++) {
		if (waitpid(p->pid, st, WNOHANG) == p->pid) {
			ms = (int)(mono_ms() - t0);
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (ms < 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, st, 0);
	}
	if (p->out > 0)
		close(p->out);
	p->pid = 0;
	p->out = -1;
	return (ms);
}

static char *
slurp(int fd)
{
	size_t  cap = 4096, n = 0;
	char   *b = malloc(cap);
	ssize_t r;

	if (b == NULL)
		return (NULL);
	while ((r = read(fd, b + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 2) {
			char *nb = realloc(b, cap * 2);
			if (nb == NULL)
				break;
			b = nb;
			cap *= 2;
		}
	}
	b[n] = '\0';
	return (b);
}

int
proc_run(char *const argv[], char **out, char **err)
{
	char  ef[] = "/tmp/ocs-test-errXXXXXX";
	int   po[2], fe, st;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) != 0 || (fe = mkostemp(ef, O_CLOEXEC)) < 0)
		return (-1);
	unlink(ef);
	if ((pid = fork()) == 0) {
		dup2(po[1], 1);
		dup2(fe, 2);
		/* Only 0, 1 and 2: a daemon that keeps an extra copy of the
		 * pipe would keep the reader waiting for ever. */
		close_range(3, ~0u, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	*out = slurp(po[0]);
	close(po[0]);
	waitpid(pid, &st, 0);
	lseek(fe, 0, SEEK_SET);
	*err = slurp(fe);
	close(fe);
	/* Said where a test prints what the program wrote. */
	if (WIFSIGNALED(st))
		fprintf(stderr, "proc_run: %s killed by signal %d (%s)\n",
		        argv[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
	return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

char *
proc_tmpdir(const char *tag)
{
	char *d = malloc(128);

	if (d == NULL)
		return (NULL);
	snprintf(d, 128, "/tmp/ocs-%s-XXXXXX", tag);
	if (mkdtemp(d) == NULL) {
		free(d);
		return (NULL);
	}
	return (d);
}

void
proc_rmtree(const char *dir)
{
	char *argv[] = {"/bin/rm", "-rf", (char *)(uintptr_t)dir, NULL};
	char *o, *e;

	if (dir && strncmp(dir, "/tmp/ocs-", 9) == 0) {
		proc_run(argv, &o, &e);
		free(o);
		free(e);
	}
}

size_t
proc_nlines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return (n);
}

double
proc_cpu_s(pid_t pid)
{
	char               path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE              *f;
	size_t             n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the command's closing parenthesis (the name may hold
	 * blanks): fields 3 on; utime and stime are fields 14 and 15. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2,
	           "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
	           &ut, &st) != 2)
		return (-1);
	return ((double)(ut + st) / (double)sysconf(_SC_CLK_TCK));
}

int
proc_log_dirty(const struct proc *p)
{
	char  line[512];
	FILE *f = fopen(p->log, "re");
	int   dirty = 0;

	if (f == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "Sanitizer") ||
		    strstr(line, "runtime error:"))
			dirty = 1;
		if (dirty)
			fprintf(stderr, "%s: %s", p->log, line);
	}
	fclose(f);
	return (dirty);
}

int
proc_wait(struct proc *p, int timeout_ms)
{
	struct timespec ts = {0, 10000000};
	int             st, i;

	for (i = 0; i < timeout_ms / 10; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
			if (p->out > 0)
				close(p->out);
			p->pid = 0;
			p->out = -1;
			return (WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
		nanosleep(&ts, NULL);
	}
	return (-1);
}
