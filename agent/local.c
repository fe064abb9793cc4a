/* SPDX-License-Identifier: BSD-2-Clause */
/* A server's local links made for a run: listen, hello, connect, accept
 * (see local.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/local.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

int
local_listen(const char *addr, char *bound, size_t blen, char *err, size_t len)
{
	int fd = net_listen_addr(addr, bound, blen);

	if (fd < 0)
		snprintf(err, len, "local link \"%s\": listen: %s", addr,
		         strerror(-fd));
	return (fd);
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	        (uint32_t)p[2] << 8 | p[3]);
}

void
local_hello(uint8_t *h, uint64_t run, uint32_t from, uint32_t to,
            const uint8_t *token)
{
	memcpy(h, "OCSL", 4);
	put32(h + 4, (uint32_t)(run >> 32));
	put32(h + 8, (uint32_t)run);
	put32(h + 12, from);
	put32(h + 16, to);
	memcpy(h + 20, token, PLAN_LTOKEN);
}

int
local_hello_check(const uint8_t *h, const struct plan *p, uint64_t run)
{
	uint32_t from = get32(h + 12), j;

	if (memcmp(h, "OCSL", 4) != 0 ||
	    ((uint64_t)get32(h + 4) << 32 | get32(h + 8)) != run ||
	    get32(h + 16) != p->node ||
	    memcmp(h + 20, p->ltoken, PLAN_LTOKEN) != 0)
		return (-1);
	for (j = 0; j < p->nlocal; j++)
		if (p->lnode[j] == from && from < p->node)
			return ((int)j);
	return (-1);
}

/* The peers of higher index: connect, say hello.  0 or -errno. */
static int
dial(const struct plan *p, uint64_t run, int *fds, uint64_t dl, char *err,
     size_t len)
{
	uint8_t  h[LOCAL_HELLO];
	uint32_t j;
	int      rv;

	for (j = 0; j < p->nlocal; j++) {
		if (p->lnode[j] < p->node)
			continue;
		fds[j] = net_connect_addr(
		    p->laddr[j], (int)(dl > mono_ms() ? dl - mono_ms() : 1));
		if (fds[j] < 0) {
			rv = fds[j];
			fds[j] = -1;
			snprintf(err, len,
			         "local link to node %u at %s: connect: %s",
			         p->lnode[j], p->laddr[j], strerror(-rv));
			return (rv);
		}
		local_hello(h, run, p->node, p->lnode[j], p->ltoken);
		if ((rv = net_write_all(fds[j], h, sizeof(h), dl, -1)) != 0) {
			snprintf(err, len,
			         "local link to node %u at %s: hello: %s",
			         p->lnode[j], p->laddr[j], strerror(-rv));
			return (rv);
		}
	}
	return (0);
}

/* One connection's hello, read whole by the deadline: the peer's index,
 * or -1 (not one of this run's: closed). */
static int
greet(int fd, const struct plan *p, uint64_t run, uint64_t dl)
{
	uint8_t h[LOCAL_HELLO];
	size_t  got = 0;
	ssize_t r;

	while (got < sizeof(h)) {
		r = net_read_some(fd, h + got, sizeof(h) - got, dl, -1);
		if (r <= 0)
			return (-1);
		got += (size_t)r;
	}
	return (local_hello_check(h, p, run));
}

/* Those of lower index: accept until each said its hello. */
static int
answer(int lfd, const struct plan *p, uint64_t run, int *fds, uint64_t dl,
       int timeout_ms, const struct exec_abort *ab, char *err, size_t len)
{
	uint32_t j, want = 0;
	int      fd, at;
	char     why[300];

	for (j = 0; j < p->nlocal; j++)
		want += p->lnode[j] < p->node;
	while (want > 0) {
		struct pollfd pf[2] = {
		    {.fd = lfd, .events = POLLIN},
		    {.fd = ab ? ab->fd : -1, .events = POLLIN}};
		uint64_t now = mono_ms();

		if (now >= dl || poll(pf, 2, (int)(dl - now)) == 0)
			break;
		/* The run ended elsewhere (a peer's setup failed). */
		if ((pf[1].revents & POLLIN) &&
		    ab->check(ab->arg, why, sizeof(why))) {
			snprintf(err, len,
			         "aborted while its local links were made: %s",
			         why);
			return (-ECANCELED);
		}
		if (!(pf[0].revents & POLLIN) ||
		    (fd = accept(lfd, NULL, NULL)) < 0)
			continue;
		/* A stray or a late one from an earlier run: not ours. */
		if ((at = greet(fd, p, run, dl)) < 0 || fds[at] >= 0) {
			close(fd);
			continue;
		}
		fds[at] = fd;
		want--;
	}
	for (j = 0; want > 0 && j < p->nlocal; j++)
		if (p->lnode[j] < p->node && fds[j] < 0) {
			snprintf(
			    err, len,
			    "local link from node %u (at %s) did not come "
			    "within %.1f s",
			    p->lnode[j], p->laddr[j], timeout_ms / 1e3);
			return (-ETIMEDOUT);
		}
	return (0);
}

int
local_connect(int lfd, const struct plan *p, uint64_t run,
              struct local_links *ll, int timeout_ms,
              const struct exec_abort *ab, char *err, size_t len)
{
	uint64_t dl = mono_ms() + (uint64_t)timeout_ms;
	int      fds[PLAN_MAX_LOCAL], rv, one = 1, buf = 4 << 20;
	uint32_t j;

	memset(ll, 0, sizeof(*ll));
	for (j = 0; j < PLAN_MAX_LOCAL; j++)
		fds[j] = -1;
	if (lfd < 0) {
		snprintf(err, len, "servers: this agent has no local link");
		return (-ENOTCONN);
	}
	if ((rv = dial(p, run, fds, dl, err, len)) == 0)
		rv = answer(lfd, p, run, fds, dl, timeout_ms, ab, err, len);
	for (j = 0; j < p->nlocal; j++) {
		if (rv != 0 || fds[j] < 0) {
			if (fds[j] >= 0)
				close(fds[j]);
			continue;
		}
		fcntl(fds[j], F_SETFL, fcntl(fds[j], F_GETFL) | O_NONBLOCK);
		setsockopt(fds[j], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
		setsockopt(fds[j], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		/* Fails harmlessly on a unix: link. */
		(void)setsockopt(fds[j], IPPROTO_TCP, TCP_NODELAY, &one,
		                 sizeof(one));
	}
	if (rv != 0)
		return (rv);
	local_bucket_init(&ll->tb, p->local_bps);
	for (j = 0; j < p->nlocal; j++) {
		if ((rv = xport_local_attach(&ll->x[j], fds[j], p->lnode[j],
		                             p->laddr[j], &ll->tb)) != 0) {
			while (++j < p->nlocal)
				close(fds[j]);
			local_close(ll);
			snprintf(err, len, "out of memory for local links");
			return (rv);
		}
		ll->n++;
	}
	return (0);
}

void
local_close(struct local_links *ll)
{
	uint32_t j;

	for (j = 0; j < ll->n; j++)
		xport_close(&ll->x[j]);
	ll->n = 0;
}
