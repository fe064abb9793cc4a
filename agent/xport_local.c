/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local-link transport: one stream socket to another agent of the
 * node's server (local.h), shaped at the sender by a token bucket that
 * every local link of the node shares (a GPU's one scale-up link out).
 * A link that cannot send yet says how long in hold(), so the executor
 * sleeps in poll() instead of asking again; the kernel's socket moves
 * the bytes, nothing here sleeps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/local.h"
#include "proto/base/mono.h"

/* Writes of TB_MIN at least; a bucket of TB_MS of the rate (within
 * TB_MIN..TB_MAX).  The executor sleeps in poll(), whole milliseconds
 * and later on a busy machine: a bucket of one millisecond overflowed
 * while it slept and the link ran at half its rate (bench_servers);
 * five keep the rate and bound the burst a phase may start with. */
#define TB_MIN (16u << 10)
#define TB_MAX (4u << 20)
#define TB_MS  5

struct lx {
	int                  fd;
	uint32_t             peer;
	char                 addr[PLAN_LADDR_MAX];
	struct local_bucket *tb;
	char                 why[200];
};

void
local_bucket_init(struct local_bucket *tb, double bps)
{
	tb->rate = bps / 8e9;
	tb->depth = tb->rate * 1e6 * TB_MS;
	tb->depth = tb->depth < TB_MIN   ? TB_MIN
	            : tb->depth > TB_MAX ? TB_MAX
	                                 : tb->depth;
	tb->tokens = tb->depth;
	tb->t_ns = mono_ns();
}

size_t
local_bucket_take(struct local_bucket *tb, size_t want, uint64_t now,
                  uint64_t *wait_ns)
{
	double need = want < TB_MIN ? (double)want : TB_MIN;

	if (now > tb->t_ns) {
		tb->tokens += (double)(now - tb->t_ns) * tb->rate;
		tb->tokens = tb->tokens > tb->depth ? tb->depth : tb->tokens;
		tb->t_ns = now;
	}
	/* Writes of TB_MIN at least (or all that was asked for): no
	 * dribble of a few bytes each time a token comes. */
	if (tb->tokens >= need && need > 0)
		return ((size_t)(tb->tokens < (double)want ? tb->tokens
		                                           : (double)want));
	if (wait_ns != NULL)
		*wait_ns = (uint64_t)((need - tb->tokens) / tb->rate) + 1;
	return (0);
}

void
local_bucket_spend(struct local_bucket *tb, size_t n)
{
	tb->tokens -= (double)n;
}

static int
lx_open(void *priv, const char *addr, uint32_t ingress, uint32_t egress,
        int timeout_ms, char *err, size_t errlen)
{
	struct lx *l = priv;

	(void)addr;
	(void)ingress;
	(void)egress;
	(void)timeout_ms;
	l->fd = -1;
	/* A local link is made by local_connect, for a run. */
	snprintf(err, errlen, "a local link is made for a run only");
	return (-EOPNOTSUPP);
}

static int
lx_fd(void *priv)
{
	return (((struct lx *)priv)->fd);
}

/* A socket call's result as the ops say it, the failure named. */
static ssize_t
moved(struct lx *l, ssize_t n, const char *what)
{
	if (n >= 0)
		return (n);
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return (-EAGAIN);
	snprintf(l->why, sizeof(l->why), "local link to node %u (%s): %s: %s",
	         l->peer, l->addr, what, strerror(errno));
	return (-errno);
}

static ssize_t
lx_sendv(void *priv, const struct iovec *iov, int cnt)
{
	struct lx    *l = priv;
	struct iovec  v[8];
	struct msghdr m = {.msg_iov = v};
	size_t        want = 0, n;
	ssize_t       w;
	int           i;

	for (i = 0; i < cnt && i < 8; i++) {
		v[i] = iov[i];
		want += iov[i].iov_len;
	}
	if ((n = local_bucket_take(l->tb, want, mono_ns(), NULL)) == 0)
		return (-EAGAIN);
	/* Cut the gather at what the bucket allows. */
	for (i = 0, want = 0; i < cnt && i < 8 && want < n; i++) {
		if (want + v[i].iov_len > n)
			v[i].iov_len = n - want;
		want += v[i].iov_len;
	}
	m.msg_iovlen = (size_t)i;
	w = moved(l, sendmsg(l->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT), "send");
	if (w > 0)
		local_bucket_spend(l->tb, (size_t)w);
	return (w);
}

static ssize_t
lx_send(void *priv, const void *buf, size_t len)
{
	struct iovec v = {(void *)(uintptr_t)buf, len};

	return (lx_sendv(priv, &v, 1));
}

static ssize_t
lx_recv(void *priv, void *buf, size_t len)
{
	struct lx *l = priv;
	ssize_t    r = recv(l->fd, buf, len, MSG_DONTWAIT);

	/* The far agent went (or its link did): named, not "unplugged". */
	if (r == 0) {
		snprintf(l->why, sizeof(l->why),
		         "local link to node %u (%s): closed by the other "
		         "agent",
		         l->peer, l->addr);
		return (-EPIPE);
	}
	return (moved(l, r, "receive"));
}

static uint64_t
lx_hold(void *priv)
{
	struct lx *l = priv;
	uint64_t   wait = 0;

	/* What sendv needs to move anything of a queue of any length. */
	if (local_bucket_take(l->tb, TB_MIN, mono_ns(), &wait) > 0)
		return (0);
	return (wait);
}

static const char *
lx_why(void *priv)
{
	struct lx *l = priv;

	return (l->why[0] ? l->why : NULL);
}

static void
lx_close(void *priv)
{
	struct lx *l = priv;

	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

const struct xport_ops xport_local_ops = {
    .name = "local",
    .priv_size = sizeof(struct lx),
    .open = lx_open,
    .fd = lx_fd,
    .send = lx_send,
    .sendv = lx_sendv,
    .recv = lx_recv,
    .hold = lx_hold,
    .why = lx_why,
    .close = lx_close,
};

int
xport_local_attach(struct xport *x, int fd, uint32_t peer, const char *addr,
                   struct local_bucket *tb)
{
	struct lx *l;

	if ((l = calloc(1, sizeof(*l))) == NULL) {
		close(fd);
		return (-ENOMEM);
	}
	l->fd = fd;
	l->peer = peer;
	l->tb = tb;
	snprintf(l->addr, sizeof(l->addr), "%s", addr);
	x->ops = &xport_local_ops;
	x->priv = l;
	return (0);
}
