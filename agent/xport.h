/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A host transceiver as the agent sees it: a byte stream out of its TX
 * and into its RX.  Pluggable (ops struct), so a kernel-interface
 * transport (xport_kernel.c) sits beside the fibre-over-TCP one.  send and recv
 * never block: they move what they can and return -EAGAIN otherwise; the
 * executor polls xport_fd().
 */
#ifndef OCS_XPORT_H
#define OCS_XPORT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct xport_ops {
	const char *name;
	size_t      priv_size;
	/* Plug the transceiver whose TX is on switch ingress `ingress` and
	 * RX on egress `egress` into the switch at addr; blocks at most
	 * timeout_ms.  0 or -errno (-EPROTO if the switch refused, with the
	 * reason in err). */
	int (*open)(void *priv, const char *addr, uint32_t ingress,
	            uint32_t egress, int timeout_ms, char *err, size_t errlen);
	int (*fd)(void *priv);
	/* Bytes moved, -EAGAIN, or -errno. */
	ssize_t (*send)(void *priv, const void *buf, size_t len);
	/* Optional: send (gather) cnt pieces as one; bytes moved, -EAGAIN
	 * or -errno.  Lets a frame go from its header and its block's slot
	 * without being copied together first. */
	ssize_t (*sendv)(void *priv, const struct iovec *iov, int cnt);
	/* Bytes moved, 0 when the fibre was unplugged, -EAGAIN, -errno. */
	ssize_t (*recv)(void *priv, void *buf, size_t len);
	/* Optional: node begins phase `phase` of run run32 (what is sent
	 * from now on starts a new stream; the kernel transport numbers its
	 * bytes per phase and labels its segments for captures). */
	void (*epoch)(void *priv, uint32_t run32, uint16_t phase,
	              uint16_t node);
	/* Optional: a shaped link (xport_local): the ns before send may
	 * move bytes again, 0 now.  The executor then leaves POLLOUT out
	 * and wakes in time instead of asking again and again. */
	uint64_t (*hold)(void *priv);
	/* Optional: the last error in words, or NULL. */
	const char *(*why)(void *priv);
	/* Optional: how long (ms) a stream that stopped short of what the
	 * phase needs may stay quiet before its rest counts as lost, and in
	 * what where it stopped ("interface h1-0: ... after byte N of the
	 * stream from <mac>").  0 (or absent) for a transport that loses
	 * nothing unnoticed: a byte stream that is whole or broken. */
	uint32_t (*gap)(void *priv, char *what, size_t len);
	/* Optional: send one probe (agent/frame.h) whole, out of band of
	 * the stream: 0, -EAGAIN or -errno.  Absent: the probe goes into
	 * the stream (the relay's fibre), where the executor skips it. */
	int (*probe_send)(void *priv, const void *buf, size_t len);
	/* Optional: the next probe that came, whole, into buf: its length,
	 * -EAGAIN when none has, or -errno.  Idle only: whatever else came
	 * is dropped.  Absent: xport_recv, the probes found in the stream
	 * by their magic. */
	ssize_t (*probe_recv)(void *priv, void *buf, size_t len);
	void (*close)(void *priv);
};

extern const struct xport_ops xport_fibre_ops;
/* Raw Ethernet on a network interface; addr is its name. */
extern const struct xport_ops xport_kernel_ops;

struct xport {
	const struct xport_ops *ops;
	void                   *priv;
};

int  xport_open(struct xport *, const struct xport_ops *, const char *addr,
                uint32_t ingress, uint32_t egress, int timeout_ms, char *err,
                size_t errlen);
void xport_close(struct xport *);
static inline int
xport_fd(struct xport *x)
{
	return (x->ops->fd(x->priv));
}
static inline ssize_t
xport_send(struct xport *x, const void *b, size_t n)
{
	return (x->ops->send(x->priv, b, n));
}
/* -ENOTSUP when the transport cannot gather (the caller copies). */
static inline ssize_t
xport_sendv(struct xport *x, const struct iovec *iov, int cnt)
{
	return (x->ops->sendv ? x->ops->sendv(x->priv, iov, cnt) : -ENOTSUP);
}
static inline ssize_t
xport_recv(struct xport *x, void *b, size_t n)
{
	return (x->ops->recv(x->priv, b, n));
}
static inline void
xport_epoch(struct xport *x, uint32_t run32, uint16_t phase, uint16_t node)
{
	if (x->ops->epoch)
		x->ops->epoch(x->priv, run32, phase, node);
}
static inline uint32_t
xport_gap(struct xport *x, char *what, size_t len)
{
	return (x->ops->gap ? x->ops->gap(x->priv, what, len) : 0);
}
static inline uint64_t
xport_hold(struct xport *x)
{
	return (x->ops->hold ? x->ops->hold(x->priv) : 0);
}
static inline const char *
xport_why(struct xport *x)
{
	return (x->ops->why ? x->ops->why(x->priv) : NULL);
}

/* A probe out of x: 0, -EAGAIN (try again) or -errno.  Into the stream,
 * the transport may take part of it: the rest is sent before returning
 * (a probe is small; the socket's buffer is empty while idle). */
int xport_probe_send(struct xport *x, const void *b, size_t n);
static inline ssize_t
xport_probe_recv(struct xport *x, void *b, size_t n)
{
	return (x->ops->probe_recv ? x->ops->probe_recv(x->priv, b, n)
	                           : x->ops->recv(x->priv, b, n));
}

#endif
