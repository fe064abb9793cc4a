/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The floor of a barrier over bare sockets on this machine
 * (nng_floor.h): nng's floor with nng taken out.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "tests/bench/nng_floor.h"

#define READY_BYTES   48 /* as nng_floor.c's */
#define RELEASE_BYTES 16

static int
unix_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return (-1);
	strcpy(sa->sun_path, path);
	return (0);
}

/* Reads what fd has; returns how many whole units of `unit` bytes it
 * completed (part carries the remainder), or -1 at EOF or an error. */
static int
units(int fd, size_t unit, size_t *part)
{
	char    b[4096];
	ssize_t r;
	int     k = 0;

	while ((r = read(fd, b, sizeof(b))) > 0) {
		*part += (size_t)r;
		k += (int)(*part / unit);
		*part %= unit;
		if ((size_t)r < sizeof(b))
			break;
	}
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
		return (-1);
	return (k);
}

static int
put(int fd, size_t len)
{
	char b[READY_BYTES];

	memset(b, 'r', len);
	return (write(fd, b, len) == (ssize_t)len ? 0 : -1);
}

/* The child: n clients in one epoll loop, until it is killed. */
static void
clients(const char *path, uint32_t n)
{
	struct sockaddr_un sa;
	struct epoll_event ev[256];
	size_t            *part = calloc(n, sizeof(*part));
	uint32_t           i;
	int                ep = epoll_create1(0), fd, k, j, got;

	if (part == NULL || ep < 0 || unix_addr(path, &sa) != 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0)) <
		        0 ||
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			_exit(1);
		ev[0].events = EPOLLIN;
		ev[0].data.u64 = ((uint64_t)i << 32) | (uint32_t)fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev[0]) != 0 ||
		    put(fd, READY_BYTES) != 0)
			_exit(1);
	}
	for (;;) {
		k = epoll_wait(ep, ev, 256, -1);
		for (j = 0; j < k; j++) {
			fd = (int)(uint32_t)ev[j].data.u64;
			i = (uint32_t)(ev[j].data.u64 >> 32);
			if ((got = units(fd, RELEASE_BYTES, &part[i])) < 0)
				_exit(0); /* the server went away */
			while (got-- > 0)
				if (put(fd, READY_BYTES) != 0)
					_exit(0);
		}
	}
}

void
sock_floor_child(int argc, char **argv)
{
	long n;

	if (argc != 4 || strcmp(argv[1], "--sock-floor-clients") != 0)
		return;
	n = strtol(argv[3], NULL, 10);
	if (n < 1 || n > 100000)
		_exit(2);
	clients(argv[2], (uint32_t)n);
}

struct srv {
	int      ep, *fd;
	size_t  *part;
	uint32_t n;
};

/* Until `want` Readys have come, or the deadline: 0 or -1. */
static int
srv_gather(struct srv *s, uint32_t want, uint64_t deadline_ms)
{
	struct epoll_event ev[256];
	uint32_t           got = 0;
	int                k, j, u;

	while (got < want) {
		if (mono_ms() > deadline_ms)
			return (-1);
		k = epoll_wait(s->ep, ev, 256, 100);
		for (j = 0; j < k; j++) {
			u = units(s->fd[ev[j].data.u32], READY_BYTES,
			          &s->part[ev[j].data.u32]);
			if (u < 0)
				return (-1);
			got += (uint32_t)u;
		}
	}
	return (0);
}

static int
srv_accept(struct srv *s, int lfd)
{
	struct epoll_event ev;
	uint32_t           i;

	for (i = 0; i < s->n; i++) {
		if ((s->fd[i] = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) < 0)
			return (-1);
		ev.events = EPOLLIN;
		ev.data.u32 = i;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd[i], &ev) != 0)
			return (-1);
	}
	return (0);
}

static double
srv_rounds(struct srv *s, int rounds)
{
	double  *t = calloc((size_t)rounds, sizeof(*t)), res = -1;
	uint64_t t0;
	uint32_t i;
	int      r;

	if (t == NULL || srv_gather(s, s->n, mono_ms() + 30000) != 0)
		goto out;
	for (r = 0; r < rounds; r++) {
		t0 = mono_ns();
		for (i = 0; i < s->n; i++)
			if (put(s->fd[i], RELEASE_BYTES) != 0)
				goto out;
		if (srv_gather(s, s->n, mono_ms() + 30000) != 0)
			goto out;
		t[r] = (double)(mono_ns() - t0) / 1e6;
	}
	res = floor_median(t, rounds);
out:
	free(t);
	return (res);
}

double
sock_floor_ms(uint32_t n, uint32_t procs, int rounds)
{
	struct sockaddr_un sa;
	struct srv         s = {.ep = epoll_create1(0), .n = n};
	char               path[96];
	double             res = -1;
	pid_t             *pid = calloc(procs ? procs : 1, sizeof(*pid));
	uint32_t           i;
	int                lfd = -1, st;

	snprintf(path, sizeof(path), "/tmp/ocs-sock-floor-%d.sock",
	         (int)getpid());
	s.fd = malloc(n * sizeof(*s.fd));
	s.part = calloc(n, sizeof(*s.part));
	for (i = 0; s.fd != NULL && i < n; i++)
		s.fd[i] = -1;
	if (s.fd == NULL || s.part == NULL || s.ep < 0 || pid == NULL ||
	    procs == 0 || procs > n || unix_addr(path, &sa) != 0 ||
	    (lfd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(lfd, (int)n) != 0)
		goto out;
	if (floor_spawn("--sock-floor-clients", path, n, procs, pid) == 0 &&
	    srv_accept(&s, lfd) == 0)
		res = srv_rounds(&s, rounds);
out:
	for (i = 0; pid != NULL && i < procs; i++)
		if (pid[i] > 0) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &st, 0);
		}
	free(pid);
	for (i = 0; s.fd != NULL && i < n; i++)
		if (s.fd[i] >= 0)
			close(s.fd[i]);
	if (lfd >= 0)
		close(lfd);
	if (s.ep >= 0)
		close(s.ep);
	unlink(path);
	free(s.fd);
	free(s.part);
	return (res);
}
