/* SPDX-License-Identifier: BSD-2-Clause */
/* Transport handles over the ops of xport.h. */
#include <errno.h>
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
