/* SPDX-License-Identifier: BSD-2-Clause */
/* The barrier link's frames (see barlink.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/barlink.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"

int
barlink_pack(const Ocs__Msg *m, uint8_t **buf, size_t *len)
{
	size_t n = ocs__msg__get_packed_size(m);

	*buf = NULL;
	if (n > MSG_MAX_BYTES)
		return (-MSG_ESIZE);
	if ((*buf = malloc(BARLINK_HDR + n)) == NULL)
		return (-ENOMEM);
	(*buf)[0] = (uint8_t)(n >> 24);
	(*buf)[1] = (uint8_t)(n >> 16);
	(*buf)[2] = (uint8_t)(n >> 8);
	(*buf)[3] = (uint8_t)n;
	ocs__msg__pack(m, *buf + BARLINK_HDR);
	*len = BARLINK_HDR + n;
	return (0);
}

/* One read into the buffer, grown first when nearly full. */
static long
read_once(struct barlink_rx *rx, int fd, size_t *space)
{
	ssize_t  r;
	size_t   want = rx->max + BARLINK_HDR;
	uint8_t *nb;

	if (rx->cap - rx->len < 4096 && rx->cap < want) {
		size_t cap = rx->cap ? rx->cap * 2 : 4096;

		if (cap > want)
			cap = want;
		if ((nb = realloc(rx->b, cap)) == NULL)
			return (-ENOMEM);
		rx->b = nb;
		rx->cap = cap;
	}
	if (rx->len == rx->cap)
		return (-EMSGSIZE); /* only a frame over max fills it */
	*space = rx->cap - rx->len;
	do
		r = read(fd, rx->b + rx->len, *space);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return (errno == EWOULDBLOCK ? -EAGAIN : -errno);
	rx->len += (size_t)r;
	return ((long)r);
}

long
barlink_rx_read(struct barlink_rx *rx, int fd)
{
	size_t space = 0;
	long   r, total = 0;

	/* A read shorter than the room took all there was: asking again
	 * would only be told EAGAIN, a system call a frame. */
	while ((r = read_once(rx, fd, &space)) > 0) {
		total += r;
		if ((size_t)r < space)
			break;
	}
	return (total > 0 ? total : r);
}

int
barlink_rx_next(struct barlink_rx *rx, Ocs__Msg **m, char *why, size_t whylen)
{
	size_t n;
	int    rv;

	*m = NULL;
	if (rx->len < BARLINK_HDR)
		return (0);
	n = (size_t)rx->b[0] << 24 | (size_t)rx->b[1] << 16 |
	    (size_t)rx->b[2] << 8 | rx->b[3];
	if (n > rx->max) {
		snprintf(why, whylen, "a frame of %zu bytes, limit %zu", n,
		         rx->max);
		return (-MSG_ESIZE);
	}
	if (rx->len < BARLINK_HDR + n)
		return (0);
	rv = msg_decode(rx->b + BARLINK_HDR, n, m, why, whylen);
	rx->len -= BARLINK_HDR + n;
	memmove(rx->b, rx->b + BARLINK_HDR + n, rx->len);
	return (rv == 0 ? 1 : rv);
}

void
barlink_rx_free(struct barlink_rx *rx)
{
	free(rx->b);
	rx->b = NULL;
	rx->len = rx->cap = 0;
}

/* Wait until fd is readable or the deadline: 0, -ETIMEDOUT, -errno. */
static int
readable(int fd, uint64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	uint64_t      now;
	int           r;

	for (;;) {
		if ((now = mono_ms()) >= deadline)
			return (-ETIMEDOUT);
		if ((r = poll(&pfd, 1, (int)(deadline - now))) > 0)
			return (0);
		if (r < 0 && errno != EINTR)
			return (-errno);
	}
}

/* The next frame within the deadline: 1 with *m, or a negative code. */
static int
next_frame(int fd, struct barlink_rx *rx, uint64_t deadline, Ocs__Msg **m,
           char *why, size_t whylen)
{
	long r;
	int  rv;

	while ((rv = barlink_rx_next(rx, m, why, whylen)) == 0) {
		r = barlink_rx_read(rx, fd);
		if (r == -EAGAIN && (r = readable(fd, deadline)) == 0)
			continue;
		if (r == 0) {
			snprintf(why, whylen, "closed the barrier link");
			return (-ECONNRESET);
		}
		if (r == -ETIMEDOUT) {
			snprintf(why, whylen,
			         "no answer on the barrier link "
			         "in time");
			return ((int)r);
		}
		if (r < 0) {
			snprintf(why, whylen, "barrier link: %s",
			         strerror((int)-r));
			return ((int)r);
		}
	}
	return (rv);
}

int
barlink_call(int fd, struct barlink_rx *rx, const Ocs__Msg *m, int timeout_ms,
             const char *peer, Ocs__Msg **rep, char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + (uint64_t)timeout_ms;
	uint8_t *buf;
	size_t   len;
	char     why[300];
	int      rv;

	*rep = NULL;
	if ((rv = barlink_pack(m, &buf, &len)) != 0) {
		snprintf(err, errlen, "encoding: %s", msg_strerror(rv));
		return (rv);
	}
	rv = net_write_all(fd, buf, len, deadline, -1);
	free(buf);
	if (rv != 0) {
		snprintf(err, errlen, "%s: barrier link: %s", peer,
		         strerror(-rv));
		return (rv);
	}
	for (;;) {
		if ((rv = next_frame(fd, rx, deadline, rep, why,
		                     sizeof(why))) < 0) {
			snprintf(err, errlen, "%s: %s", peer,
			         rv == -ECONNRESET ? "closed the barrier link "
			                             "before answering (it "
			                             "stopped or restarted)"
			                           : why);
			return (rv);
		}
		if ((*rep)->has_seq && (*rep)->seq == m->seq)
			return (0);
		msg_free(*rep); /* a request given up on: skipped */
		*rep = NULL;
	}
}

/* The Attach's exchange on fd: 0, or a code and one line in err. */
static int
attach_call(int fd, const Ocs__JoinReply *jr, uint32_t agent_id, uint64_t seq,
            int timeout_ms, struct barlink_rx *rx, char *err, size_t errlen)
{
	Ocs__Msg    m, *rep;
	Ocs__Attach at;
	char        peer[300];
	int         rv;

	msg_init(&m, seq);
	ocs__attach__init(&at);
	at.agent_id = agent_id;
	at.token = jr->barrier_token;
	m.body_case = OCS__MSG__BODY_ATTACH;
	m.attach = &at;
	snprintf(peer, sizeof(peer), "controller %s", jr->barrier);
	if ((rv = barlink_call(fd, rx, &m, timeout_ms, peer, &rep, err,
	                       errlen)) != 0)
		return (rv);
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(err, errlen, "%s: %s", peer, rep->error->text);
		rv = rep->error->code < 0 ? rep->error->code : -EPERM;
	} else if (rep->body_case != OCS__MSG__BODY_IDLE) {
		snprintf(err, errlen, "%s: unexpected answer to attach", peer);
		rv = -MSG_EBODY;
	}
	msg_free(rep);
	return (rv);
}

int
barlink_attach(const Ocs__JoinReply *jr, uint32_t agent_id, uint64_t seq,
               int timeout_ms, struct barlink_rx *rx, int *fd, char *err,
               size_t errlen)
{
	char addr[300];
	int  rv;

	*fd = -1;
	if (jr->barrier == NULL || jr->barrier[0] == '\0')
		return (0);
	if (!jr->has_barrier_token || jr->barrier_token.len != BARLINK_TOKEN ||
	    net_url_addr(jr->barrier, addr, sizeof(addr)) != 0) {
		snprintf(err, errlen,
		         "controller: barrier link \"%.100s\" without a "
		         "usable address or token",
		         jr->barrier);
		return (-MSG_EFIELD);
	}
	if ((rv = net_connect_addr(addr, timeout_ms)) < 0) {
		snprintf(err, errlen, "barrier link %s: %s", jr->barrier,
		         strerror(-rv));
		return (rv);
	}
	barlink_rx_free(rx);
	rx->max = MSG_MAX_BYTES;
	if ((*fd = rv) >= 0 &&
	    (rv = attach_call(*fd, jr, agent_id, seq, timeout_ms, rx, err,
	                      errlen)) != 0) {
		close(*fd);
		*fd = -1;
		barlink_rx_free(rx);
	}
	return (rv);
}
