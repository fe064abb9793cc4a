/* SPDX-License-Identifier: BSD-2-Clause */
/* The optical cross-connect model (see oxc.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ocs-drivers/oxc.h"

int
oxc_init(struct oxc *x, uint32_t n, uint64_t switch_ns)
{
	memset(x, 0, sizeof(*x));
	if (n < 1 || n > DRV_MAX_PORTS)
		return (-EINVAL);
	x->n = n;
	x->switch_ns = switch_ns;
	x->out_of = calloc(n + 1, sizeof(*x->out_of));
	x->in_of = calloc(2 * n + 1, sizeof(*x->in_of));
	x->settle = calloc(n + 1, sizeof(*x->settle));
	x->closed = calloc(2 * n + 1, 1);
	x->failed = calloc(2 * n + 1, 1);
	if (!x->out_of || !x->in_of || !x->settle || !x->closed ||
	    !x->failed) {
		oxc_free(x);
		return (-ENOMEM);
	}
	return (0);
}

void
oxc_free(struct oxc *x)
{
	free(x->out_of);
	free(x->in_of);
	free(x->settle);
	free(x->closed);
	free(x->failed);
	memset(x, 0, sizeof(*x));
}

int
oxc_valid_port(const struct oxc *x, uint32_t port)
{
	return (port >= 1 && port <= 2 * x->n);
}

static int
refuse(struct oxc_err *err, int code, uint32_t port, uint32_t other)
{
	if (err) {
		err->code = code;
		err->port = port;
		err->other = other;
	}
	return (code);
}

/* Validate a connect batch against the current patches. */
static int
check_connect(const struct oxc *x, const struct drv_patch *p, size_t np,
              struct oxc_err *err)
{
	uint8_t *seen;
	size_t   i;
	int      rv = 0;

	if (np == 0)
		return (refuse(err, -EINVAL, 0, 0));
	if ((seen = calloc(2 * x->n + 1, 1)) == NULL)
		return (refuse(err, -ENOMEM, 0, 0));
	for (i = 0; i < np && rv == 0; i++) {
		uint32_t in = p[i].in, out = p[i].out;

		if (in < 1 || in > x->n)
			rv = refuse(err, -DRV_EPORT, in, out);
		else if (out <= x->n || out > 2 * x->n)
			rv = refuse(err, -DRV_EPORT, out, in);
		else if (seen[in]++)
			rv = refuse(err, -EINVAL, in, out);
		else if (seen[out]++)
			rv = refuse(err, -EINVAL, out, in);
		else if (x->busy_replace ||
		         (x->out_of[in] == out && x->in_of[out] == in))
			continue;
		else if (x->out_of[in] != 0)
			rv = refuse(err, -DRV_EBUSY, in, x->out_of[in]);
		else if (x->in_of[out] != 0)
			rv = refuse(err, -DRV_EBUSY, out, x->in_of[out]);
	}
	free(seen);
	return (rv);
}

static void
unpatch_in(struct oxc *x, uint32_t in)
{
	uint32_t out = x->out_of[in];

	if (out != 0) {
		x->in_of[out] = 0;
		x->out_of[in] = 0;
		x->settle[in] = 0;
		if (x->carried)
			x->carried[in] = 0;
		x->gen++;
	}
}

static void
do_connect(struct oxc *x, const struct drv_patch *p, size_t np, uint64_t now)
{
	size_t i;

	for (i = 0; i < np; i++) {
		uint32_t in = p[i].in, out = p[i].out;

		/* An identical patch stays as it is: no dark period, as on a real
		 * switch asked to make what it already has. */
		if (x->out_of[in] == out)
			continue;
		/* Re-pointing: the old path goes dark first. */
		unpatch_in(x, in);
		if (x->in_of[out] != 0)
			unpatch_in(x, x->in_of[out]);
		x->out_of[in] = (uint16_t)out;
		x->in_of[out] = (uint16_t)in;
		/* Light passes only once the mirrors have moved. */
		x->settle[in] = now + x->switch_ns;
		if (x->carried)
			x->carried[in] = 0;
		x->gen++;
	}
}

static void
tell(const struct oxc *x, uint64_t gen0)
{
	if (x->changed && x->gen != gen0)
		x->changed(x->changed_arg);
}

int
oxc_connect(struct oxc *x, const struct drv_patch *p, size_t np, uint64_t now,
            struct oxc_err *err)
{
	int rv;

	uint64_t gen0 = x->gen;

	if ((rv = check_connect(x, p, np, err)) != 0)
		return (rv);
	do_connect(x, p, np, now);
	tell(x, gen0);
	return (0);
}

int
oxc_connect_prefix(struct oxc *x, const struct drv_patch *p, size_t np,
                   size_t k, uint64_t now, struct oxc_err *err)
{
	int rv;

	uint64_t gen0 = x->gen;

	if ((rv = check_connect(x, p, np, err)) != 0)
		return (rv);
	do_connect(x, p, k < np ? k : np, now);
	tell(x, gen0);
	return (0);
}

int
oxc_disconnect(struct oxc *x, const uint16_t *ports, size_t np, uint64_t now,
               struct oxc_err *err)
{
	uint64_t gen0 = x->gen;
	size_t   i;

	(void)now;
	if (np == 0)
		return (refuse(err, -EINVAL, 0, 0));
	for (i = 0; i < np; i++)
		if (!oxc_valid_port(x, ports[i]))
			return (refuse(err, -DRV_EPORT, ports[i], 0));
	for (i = 0; i < np; i++) {
		uint32_t pt = ports[i];

		if (pt <= x->n)
			unpatch_in(x, pt);
		else if (x->in_of[pt] != 0)
			unpatch_in(x, x->in_of[pt]);
	}
	tell(x, gen0);
	return (0);
}

void
oxc_clear(struct oxc *x)
{
	uint64_t gen0 = x->gen;
	uint32_t in;

	for (in = 1; in <= x->n; in++)
		unpatch_in(x, in);
	tell(x, gen0);
}

uint32_t
oxc_count(const struct oxc *x)
{
	uint32_t in, c = 0;

	for (in = 1; in <= x->n; in++)
		c += x->out_of[in] != 0;
	return (c);
}

uint64_t
oxc_settled_at(const struct oxc *x)
{
	uint64_t t = 0;
	uint32_t in;

	for (in = 1; in <= x->n; in++)
		if (x->out_of[in] && x->settle[in] > t)
			t = x->settle[in];
	return (t);
}

int
oxc_passes(const struct oxc *x, uint32_t in, uint64_t now)
{
	uint32_t out;

	if (in < 1 || in > x->n || (out = x->out_of[in]) == 0)
		return (0);
	return (now >= x->settle[in] && !x->closed[in] && !x->closed[out] &&
	        !x->failed[in] && !x->failed[out]);
}

int
oxc_carried_all(const struct oxc *x, uint64_t now)
{
	uint32_t in;

	for (in = 1; x->carried && in <= x->n; in++)
		if (!x->carried[in] && oxc_passes(x, in, now))
			return (0);
	return (1);
}

int
oxc_lit(const struct oxc *x, uint32_t in, uint64_t now)
{
	return (oxc_passes(x, in, now) && (!x->carried || x->carried[in]));
}

double
oxc_power(const struct oxc *x, uint32_t port, uint64_t now)
{
	if (!oxc_valid_port(x, port) || x->failed[port])
		return (OXC_NO_LIGHT);
	/* An ingress monitor reads the light coming in from the host. */
	/* An egress reads light only through a settled, open path. */
	if (port <= x->n)
		return (OXC_LIT_DBM);
	if (x->in_of[port] == 0 || !oxc_lit(x, x->in_of[port], now))
		return (OXC_NO_LIGHT);
	return (OXC_LIT_DBM - OXC_LOSS_DB);
}
