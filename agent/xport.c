/* SPDX-License-Identifier: BSD-2-Clause */
/* Transport handles over the ops of xport.h. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent/xport.h"

int
xport_open(struct xport *x, const struct xport_ops *ops, const char *addr,
           uint32_t ingress, uint32_t egress, int timeout_ms, char *err,
           size_t errlen)
{
	int rv;

	x->ops = ops;
	if ((x->priv = calloc(1, ops->priv_size)) == NULL)
		return (-ENOMEM);
	if ((rv = ops->open(x->priv, addr, ingress, egress, timeout_ms, err,
	                    errlen)) != 0) {
		ops->close(x->priv);
		free(x->priv);
		x->priv = NULL;
	}
	return (rv);
}

void
xport_close(struct xport *x)
{
	if (x->priv) {
		x->ops->close(x->priv);
		free(x->priv);
	}
	x->priv = NULL;
}

int
xport_probe_send(struct xport *x, const void *b, size_t n)
{
	struct pollfd p = {.fd = xport_fd(x), .events = POLLOUT};
	size_t        done = 0;
	ssize_t       r;
	int           tries = 0;

	if (x->ops->probe_send)
		return (x->ops->probe_send(x->priv, b, n));
	/* Into the stream: once begun, the frame goes out whole, or the
	 * receiver finds a torn one (which its scan for the magic skips). */
	while (done < n) {
		r = xport_send(x, (const uint8_t *)b + done, n - done);
		if (r > 0) {
			done += (size_t)r;
			continue;
		}
		if (r != -EAGAIN && r != 0)
			return ((int)r);
		if (done == 0)
			return (-EAGAIN);
		if (++tries > 10)
			return (-ETIMEDOUT);
		(void)poll(&p, 1, 100);
	}
	return (0);
}
