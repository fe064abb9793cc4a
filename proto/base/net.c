/* SPDX-License-Identifier: BSD-2-Clause */
/* TCP helpers with deadlines (see net.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/base/mono.h"
#include "proto/base/net.h"

int
net_hostport(const char *s, const char *defport, char *host, size_t hl,
             char *port, size_t pl)
{
	const char *c, *e;
	size_t      n;

	if (s == NULL || *s == '\0')
		return (-EINVAL);
	if (*s == '[') {
		if ((e = strchr(s, ']')) == NULL)
			return (-EINVAL);
		n = (size_t)(e - s - 1);
		c = e[1] == ':' ? e + 1 : NULL;
		if (e[1] != '\0' && c == NULL)
			return (-EINVAL);
		s++;
	} else {
		c = strrchr(s, ':');
		if (c && strchr(s, ':') != c)
			return (-EINVAL); /* bare v6 needs brackets */
		n = c ? (size_t)(c - s) : strlen(s);
	}
	if (n == 0 || n >= hl)
		return (-EINVAL);
	memcpy(host, s, n);
	host[n] = '\0';
	if (c) {
		const char *p = c + 1;
		long        v = 0;

		if (*p == '\0' || strlen(p) >= pl)
			return (-EINVAL);
		for (; *p; p++) {
			if (*p < '0' || *p > '9')
				return (-EINVAL);
			v = v * 10 + (*p - '0');
			if (v > 65535)
				return (-EINVAL);
		}
		snprintf(port, pl, "%s", c + 1);
	} else {
		if (defport == NULL)
			return (-EINVAL);
		snprintf(port, pl, "%s", defport);
	}
	return (0);
}

/* Wait for ev on fd until the deadline, or until cancel_fd (when > 0)
 * is readable: -ECANCELED, and the caller gives up at once. */
static int
wait_fd(int fd, short ev, uint64_t deadline, int cancel_fd)
{
	struct pollfd pfd[2] = {{.fd = fd, .events = ev},
	                        {.fd = cancel_fd, .events = POLLIN}};
	uint64_t      now;
	int           r;

	for (;;) {
		now = mono_ms();
		if (now >= deadline)
			return (-ETIMEDOUT);
		r = poll(pfd, cancel_fd > 0 ? 2 : 1, (int)(deadline - now));
		if (r > 0 && cancel_fd > 0 && pfd[1].revents)
			return (-ECANCELED);
		if (r > 0)
			return (0);
		if (r == 0)
			return (-ETIMEDOUT);
		if (errno != EINTR)
			return (-errno);
	}
}

int
net_sleep(uint32_t ms, int cancel_fd)
{
	if (cancel_fd <= 0) {
		mono_sleep_ms(ms);
		return (0);
	}
	return (wait_fd(-1, 0, mono_ms() + ms, cancel_fd) == -ECANCELED
	            ? -ECANCELED
	            : 0);
}

int
net_connect(const char *host, const char *port, int timeout_ms, int cancel_fd)
{
	struct addrinfo hints, *res, *ai;
	uint64_t        deadline = mono_ms() + (uint64_t)timeout_ms;
	int             fd = -1, rv = -EHOSTUNREACH, one = 1, err;
	socklen_t       el = sizeof(err);

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return (-EHOSTUNREACH);
	/* Every address the name has, in order, all within the one
	 * deadline the caller gave. */
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
		            ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		            ai->ai_protocol);
		if (fd < 0) {
			rv = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			if ((rv = wait_fd(fd, POLLOUT, deadline, cancel_fd)) ==
			        0 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) ==
			        0) {
				if (err == 0)
					break;
				rv = -err;
			}
		} else
			rv = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return (rv);
	/* TL1 commands are small and answered one at a time: Nagle would
	 * hold each behind the last answer. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return (fd);
}

int
net_listen(const char *host, const char *port, char *bound, size_t bl)
{
	struct addrinfo         hints, *res;
	struct sockaddr_storage ss;
	socklen_t               sl = sizeof(ss);
	char                    h[64], p[16];
	int                     fd, one = 1, rv;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return (-EADDRNOTAVAIL);
	fd = socket(res->ai_family,
	            res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
	            res->ai_protocol);
	if (fd < 0) {
		rv = -errno;
		freeaddrinfo(res);
		return (rv);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 ||
	    listen(fd, 64) != 0) {
		rv = -errno;
		close(fd);
		freeaddrinfo(res);
		return (rv);
	}
	freeaddrinfo(res);
	if (bound && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
	                NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(bound, bl,
		         ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, p);
	return (fd);
}

int
net_write_all(int fd, const void *buf, size_t n, uint64_t deadline,
              int cancel_fd)
{
	const char *p = buf;
	ssize_t     w;
	int         rv;

	while (n > 0) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if ((rv = wait_fd(fd, POLLOUT, deadline, cancel_fd)) !=
			    0)
				return (rv);
			continue;
		}
		return (w < 0 ? -errno : -EPIPE);
	}
	return (0);
}

ssize_t
net_read_some(int fd, void *buf, size_t n, uint64_t deadline, int cancel_fd)
{
	ssize_t r;
	int     rv;

	for (;;) {
		r = recv(fd, buf, n, 0);
		if (r >= 0)
			return (r);
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return (-errno);
		if ((rv = wait_fd(fd, POLLIN, deadline, cancel_fd)) != 0)
			return (rv);
	}
}

static int
unix_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (path[0] == '\0' || strlen(path) >= sizeof(sun->sun_path))
		return (-ENAMETOOLONG);
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return (0);
}

/* A non-blocking UNIX stream socket for path (its address in sun); the
 * fd, or -errno. */
static int
unix_socket(const char *path, struct sockaddr_un *sun)
{
	int fd, rv;

	if ((rv = unix_addr(path, sun)) != 0)
		return (rv);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return (fd < 0 ? -errno : fd);
}

int
net_connect_addr(const char *addr, int timeout_ms)
{
	struct sockaddr_un sun;
	char               host[256], port[16];
	int                fd, rv;

	if (strncmp(addr, "unix:", 5) != 0) {
		if (net_hostport(addr, NULL, host, sizeof(host), port,
		                 sizeof(port)) != 0)
			return (-EINVAL);
		return (net_connect(host, port, timeout_ms, -1));
	}
	if ((fd = unix_socket(addr + 5, &sun)) < 0)
		return (fd);
	/* A local connect completes or fails at once. */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 &&
	    errno != EINPROGRESS) {
		rv = -errno;
		close(fd);
		return (rv);
	}
	return (fd);
}

int
net_url_addr(const char *url, char *out, size_t len)
{
	int n;

	if (strncmp(url, "tcp://", 6) == 0)
		n = snprintf(out, len, "%s", url + 6);
	else if (strncmp(url, "ipc://", 6) == 0 && url[6] == '/')
		n = snprintf(out, len, "unix:%s", url + 6);
	else
		return (-EINVAL);
	if (n < 0 || (size_t)n >= len || out[0] == '\0' ||
	    strcmp(out, "unix:") == 0)
		return (-EINVAL);
	return (0);
}

int
net_listen_addr(const char *addr, char *bound, size_t bl)
{
	struct sockaddr_un sun;
	char               host[256], port[16];
	int                fd, rv;

	if (strncmp(addr, "unix:", 5) != 0) {
		if (net_hostport(addr, NULL, host, sizeof(host), port,
		                 sizeof(port)) != 0)
			return (-EINVAL);
		return (net_listen(host, port, bound, bl));
	}
	if ((fd = unix_socket(addr + 5, &sun)) < 0)
		return (fd);
	unlink(sun.sun_path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    listen(fd, 256) != 0) {
		rv = -errno;
		close(fd);
		return (rv);
	}
	if (bound)
		snprintf(bound, bl, "%s", addr);
	return (fd);
}
