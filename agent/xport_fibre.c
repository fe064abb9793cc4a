/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fibre transport: one TCP connection to ocs-emu's fibre listener per
 * transceiver, announced as "FIBRE <ingress> <egress>\n" and acknowledged
 * with "OK\n" (or "ERR <reason>\n").  After that the connection is the
 * fibre pair: what the agent writes enters the switch at the ingress,
 * what the switch puts out at the egress arrives here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/xport.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

struct fibre {
	int fd;
};

static int
fibre_open(void *priv, const char *addr, uint32_t ingress, uint32_t egress,
           int timeout_ms, char *err, size_t errlen)
{
	struct fibre *f = priv;
	char          host[256], port[16], line[128];
	uint64_t      dl = mono_ms() + (uint64_t)timeout_ms;
	size_t        got = 0;
	ssize_t       r;
	int           rv, buf = 4 << 20;

	f->fd = -1;
	if (strncmp(addr, "unix:", 5) != 0 &&
	    net_hostport(addr, NULL, host, sizeof(host), port, sizeof(port)) !=
	        0) {
		snprintf(
		    err, errlen,
		    "fibre address \"%s\": expected HOST:PORT or unix:PATH",
		    addr);
		return (-EINVAL);
	}
	if ((f->fd = net_connect_addr(addr, timeout_ms)) < 0) {
		rv = f->fd;
		snprintf(err, errlen, "fibre %s: %s", addr, strerror(-rv));
		f->fd = -1;
		return (rv);
	}
	/* Room for a few frames in flight each way. */
	setsockopt(f->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(f->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	snprintf(line, sizeof(line), "FIBRE %u %u\n", ingress, egress);
	if ((rv = net_write_all(f->fd, line, strlen(line), dl, -1)) != 0)
		goto fail;
	/* Read the answer byte by byte: nothing after it is ours yet. */
	while (got + 1 < sizeof(line)) {
		r = net_read_some(f->fd, line + got, 1, dl, -1);
		if (r <= 0) {
			rv = r == 0 ? -ECONNRESET : (int)r;
			goto fail;
		}
		if (line[got++] == '\n')
			break;
	}
	line[got] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, "OK") != 0) {
		snprintf(err, errlen,
		         "fibre %s: ingress %u, egress %u "
		         "refused: %s",
		         addr, ingress, egress, line);
		close(f->fd);
		f->fd = -1;
		return (-EPROTO);
	}
	return (0);
fail:
	snprintf(err, errlen, "fibre %s: plugging ingress %u, egress %u: %s",
	         addr, ingress, egress, strerror(-rv));
	close(f->fd);
	f->fd = -1;
	return (rv);
}

static int
fibre_fd(void *priv)
{
	return (((struct fibre *)priv)->fd);
}

/* A socket call's result as the ops say it: bytes, -EAGAIN or -errno. */
static ssize_t
moved(ssize_t n)
{
	if (n >= 0)
		return (n);
	return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
	            ? -EAGAIN
	            : -errno);
}

static ssize_t
fibre_send(void *priv, const void *buf, size_t len)
{
	return (moved(send(((struct fibre *)priv)->fd, buf, len,
	                   MSG_NOSIGNAL | MSG_DONTWAIT)));
}

static ssize_t
fibre_sendv(void *priv, const struct iovec *iov, int cnt)
{
	struct msghdr m = {.msg_iov = (struct iovec *)(uintptr_t)iov,
	                   .msg_iovlen = (size_t)cnt};

	return (moved(sendmsg(((struct fibre *)priv)->fd, &m,
	                      MSG_NOSIGNAL | MSG_DONTWAIT)));
}

static ssize_t
fibre_recv(void *priv, void *buf, size_t len)
{
	return (
	    moved(recv(((struct fibre *)priv)->fd, buf, len, MSG_DONTWAIT)));
}

static void
fibre_close(void *priv)
{
	struct fibre *f = priv;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

const struct xport_ops xport_fibre_ops = {
    .name = "fibre",
    .priv_size = sizeof(struct fibre),
    .open = fibre_open,
    .fd = fibre_fd,
    .send = fibre_send,
    .sendv = fibre_sendv,
    .recv = fibre_recv,
    .close = fibre_close,
};
