/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Netlink requests in batches, for the kernel datapath (emu_kdp.c).
 *
 * A reconfiguration is a filter change (and later a link change) for
 * every port it moves.  Sent one sendmsg each and acknowledged one
 * recvmsg each, 81 of them cost 162 system calls and as many answers the
 * kernel builds and queues.  The kernel takes a datagram holding many
 * requests in order, and answers a request without NLM_F_ACK only if it
 * fails, naming it by its sequence number: so the requests of a batch go
 * in one datagram, only the last asks for an ACK, and once that ACK has
 * come every request's outcome is known (a failure's answer was queued
 * before it).  The answers of a batch are at most one a request, which
 * the socket's 1 MiB receive buffer holds many times over at
 * EMU_NLB_MAX; an answer that never comes ends the wait after
 * NLB_WAIT_MS with the batch failed.
 *
 * The batches number their requests themselves (the caller's counter),
 * never from libnl's: libnl expects the answer to each number it gave
 * out to come to its own receive, and would take the next one it reads
 * for a mismatch.  Its requests on the same socket are answered before
 * it returns, so the two never have answers outstanding at once.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_nlb.h"

#define NLB_WAIT_MS 2000 /* the kernel answers at once; this is a fault */

int
emu_nlb_answers(const void *buf, size_t len, uint32_t seq0, size_t n,
                int *errs)
{
	const unsigned char *p = buf;
	int                  done = 0;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		struct nlmsgerr e;
		uint32_t        i;
		size_t          step;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
			return (-EBADMSG);
		if (h.nlmsg_type == NLMSG_ERROR) {
			if (h.nlmsg_len < NLMSG_LENGTH(sizeof(e)))
				return (-EBADMSG);
			memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
			i = h.nlmsg_seq - seq0;
			if (i < n) {
				/* The kernel says -errno; anything else is
				 * not an answer it gives. */
				errs[i] = e.error <= 0 ? e.error : -EPROTO;
				done |= i == n - 1;
			}
		}
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return (done);
}

/* Wait for the answers to seq0 .. seq0+n-1 (into errs, -errno). */
static int
read_answers(struct nl_sock *sk, uint32_t seq0, size_t n, int *errs)
{
	unsigned char buf[16384];
	uint64_t      end = mono_ms() + NLB_WAIT_MS;
	int           fd = nl_socket_get_fd(sk), r;
	ssize_t       got;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t      now = mono_ms();

		if (now >= end)
			return (-NLE_BUSY);
		if ((r = poll(&pfd, 1, (int)(end - now))) < 0 &&
		    errno != EINTR)
			return (-nl_syserr2nlerr(errno));
		if (r <= 0)
			continue;
		got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			/* ENOBUFS: the kernel dropped an answer. */
			return (-nl_syserr2nlerr(errno));
		}
		if ((r = emu_nlb_answers(buf, (size_t)got, seq0, n, errs)) < 0)
			return (-NLE_MSG_TRUNC);
		if (r == 1)
			return (0);
	}
}

/* Up to EMU_NLB_MAX requests in one datagram. */
static int
batch(struct nl_sock *sk, uint32_t *seq, struct nl_msg **m, size_t n,
      int *errs)
{
	unsigned char *buf;
	size_t         i, len = 0, off = 0;
	uint32_t       seq0 = *seq;
	int            rv = 0;

	for (i = 0; i < n; i++) {
		len += NLMSG_ALIGN(nlmsg_hdr(m[i])->nlmsg_len);
		errs[i] = 0; /* silence is success */
	}
	if ((buf = calloc(1, len)) == NULL)
		rv = -NLE_NOMEM;
	for (i = 0; i < n; i++) {
		struct nlmsghdr *h = nlmsg_hdr(m[i]);

		h->nlmsg_seq = seq0 + (uint32_t)i;
		h->nlmsg_pid = nl_socket_get_local_port(sk);
		h->nlmsg_flags =
		    (uint16_t)((h->nlmsg_flags & ~NLM_F_ACK) | NLM_F_REQUEST |
		               (i == n - 1 ? NLM_F_ACK : 0));
		if (buf != NULL)
			memcpy(buf + off, h, h->nlmsg_len);
		off += NLMSG_ALIGN(h->nlmsg_len);
		nlmsg_free(m[i]);
	}
	*seq += (uint32_t)n;
	if (rv == 0 && (rv = nl_sendto(sk, buf, len)) >= 0)
		rv = read_answers(sk, seq0, n, errs);
	free(buf);
	for (i = 0; i < n; i++) {
		if (errs[i] < 0)
			errs[i] = -nl_syserr2nlerr(-errs[i]);
		else if (rv < 0)
			errs[i] = rv; /* not known to have been done */
	}
	return (rv < 0 ? rv : 0);
}

int
emu_nlb_send(struct nl_sock *sk, uint32_t *seq, struct nl_msg **m, size_t n,
             int *errs)
{
	int   *e = errs, rv = 0;
	size_t i, c;

	if (n == 0)
		return (0);
	if (e == NULL && (e = calloc(n, sizeof(*e))) == NULL) {
		for (i = 0; i < n; i++)
			nlmsg_free(m[i]);
		return (-NLE_NOMEM);
	}
	for (i = 0; i < n; i += c) {
		c = n - i < EMU_NLB_MAX ? n - i : EMU_NLB_MAX;
		(void)batch(sk, seq, m + i, c, e + i);
	}
	for (i = 0; i < n && rv == 0; i++)
		rv = e[i];
	if (e != errs)
		free(e);
	return (rv);
}
