/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/flink.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

int
flink_line(struct flink *l, struct carrier *c, uint32_t i, const char *line)
{
	struct carrier_trx *t;
	unsigned long       n;
	char               *end;

	if (i >= CARRIER_MAX)
		return (-EINVAL);
	t = &c->t[i];
	if (strcmp(line, "dark") == 0) {
		if (t->state == CARRIER_NONE)
			return (0);
		t->state = CARRIER_NONE;
		return (1);
	}
	if (strncmp(line, "up ", 3) != 0 || line[3] < '0' || line[3] > '9')
		return (-EINVAL);
	errno = 0;
	n = strtoul(line + 3, &end, 10);
	if (*end != '\0' || errno != 0 || n > UINT32_MAX)
		return (-EINVAL);
	if (t->state == CARRIER_UP && l->said[i] == (uint32_t)n)
		return (0);
	l->said[i] = (uint32_t)n;
	t->state = CARRIER_UP;
	t->ups++;
	return (1);
}

int
flink_init(struct flink *l)
{
	int i;

	for (i = 0; i < CARRIER_MAX; i++)
		l->fd[i] = -1;
	memset(l->len, 0, sizeof(l->len));
	memset(l->said, 0, sizeof(l->said));
	if ((l->ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return (-errno);
	return (0);
}

void
flink_close(struct flink *l, struct carrier *c, uint32_t i)
{
	if (i >= CARRIER_MAX || l->fd[i] < 0)
		return;
	close(l->fd[i]); /* and out of the epoll set */
	l->fd[i] = -1;
	l->len[i] = 0;
	l->said[i] = 0;
	c->t[i].state = CARRIER_UNKNOWN;
}

void
flink_fini(struct flink *l)
{
	int i;

	for (i = 0; i < CARRIER_MAX; i++)
		if (l->fd[i] >= 0)
			close(l->fd[i]);
	if (l->ep >= 0)
		close(l->ep);
	l->ep = -1;
}

/* One line from fd by the deadline (byte by byte: what follows is the
 * stream of states), without its newline. */
static int
read_line(int fd, char *line, size_t len, uint64_t dl)
{
	size_t  got = 0;
	ssize_t r;

	while (got + 1 < len) {
		r = net_read_some(fd, line + got, 1, dl, -1);
		if (r <= 0)
			return (r == 0 ? -ECONNRESET : (int)r);
		if (line[got] == '\n') {
			line[got] = '\0';
			return (0);
		}
		got++;
	}
	return (-EPROTO);
}

int
flink_open(struct flink *l, struct carrier *c, uint32_t i, const char *addr,
           uint32_t egress, int timeout_ms, char *err, size_t errlen)
{
	struct epoll_event ev = {.events = EPOLLIN};
	uint64_t           dl = mono_ms() + (uint64_t)timeout_ms;
	char               line[128];
	int                fd, rv;

	if (i >= CARRIER_MAX)
		return (-EINVAL);
	flink_close(l, c, i);
	if ((fd = net_connect_addr(addr, timeout_ms)) < 0) {
		snprintf(err, errlen, "link watch %s: %s", addr,
		         strerror(-fd));
		return (fd);
	}
	snprintf(line, sizeof(line), "LINK %u\n", egress);
	if ((rv = net_write_all(fd, line, strlen(line), dl, -1)) != 0 ||
	    (rv = read_line(fd, line, sizeof(line), dl)) != 0) {
		snprintf(err, errlen, "link watch %s, egress %u: %s", addr,
		         egress, strerror(-rv));
		close(fd);
		return (rv);
	}
	if (strcmp(line, "OK") != 0) {
		snprintf(err, errlen,
		         "link watch %s, egress %u refused: %.80s", addr,
		         egress, line);
		close(fd);
		return (-EPROTO);
	}
	/* Its first state comes with the answer. */
	if ((rv = read_line(fd, line, sizeof(line), dl)) != 0 ||
	    flink_line(l, c, i, line) < 0) {
		snprintf(err, errlen, "link watch %s, egress %u: %s", addr,
		         egress, rv ? strerror(-rv) : "not a link state");
		close(fd);
		return (rv ? rv : -EPROTO);
	}
	ev.data.u32 = i;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
		rv = -errno;
		snprintf(err, errlen, "link watch: %s", strerror(errno));
		close(fd);
		return (rv);
	}
	l->fd[i] = fd;
	return (0);
}

/* Transceiver i's watch has something: its lines taken; 1 if its state
 * changed. */
static int
take(struct flink *l, struct carrier *c, uint32_t i)
{
	char    tmp[512];
	ssize_t r;
	int     ch = 0;
	size_t  j;

	while ((r = recv(l->fd[i], tmp, sizeof(tmp), 0)) > 0)
		for (j = 0; j < (size_t)r; j++) {
			if (tmp[j] != '\n') {
				/* A line longer than any state: dropped
				 * whole, to its newline. */
				if (l->len[i] < sizeof(l->buf[i]) - 1)
					l->buf[i][l->len[i]++] = tmp[j];
				continue;
			}
			l->buf[i][l->len[i]] = '\0';
			l->len[i] = 0;
			if (flink_line(l, c, i, l->buf[i]) > 0)
				ch = 1;
		}
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		/* The relay went: no light from it any more. */
		close(l->fd[i]);
		l->fd[i] = -1;
		l->len[i] = 0;
		l->said[i] = 0;
		c->t[i].state = CARRIER_GONE;
		ch = 1;
	}
	return (ch);
}

int
flink_read(struct flink *l, struct carrier *c)
{
	struct epoll_event evs[CARRIER_MAX];
	int                n, k, mask = 0;

	n = epoll_wait(l->ep, evs, CARRIER_MAX, 0);
	for (k = 0; k < n; k++) {
		uint32_t i = evs[k].data.u32;

		if (i < CARRIER_MAX && l->fd[i] >= 0 && take(l, c, i))
			mask |= 1 << i;
	}
	return (mask);
}
