/* SPDX-License-Identifier: BSD-2-Clause */
/* Cross-connect requests through the cabling map (see xc.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/xc.h"

int
xc_resolve(const struct conf *c, uint32_t sw, uint32_t n, const char *s,
           struct xc_ep *ep, char *err, size_t errlen)
{
	const char *p;
	uint64_t    v = 0;

	memset(ep, 0, sizeof(*ep));
	if (s[0] >= '0' && s[0] <= '9') {
		for (p = s; *p; p++) {
			if (*p < '0' || *p > '9' || v > 100000) {
				snprintf(
				    err, errlen,
				    "\"%.64s\" is neither a port number nor "
				    "a transceiver",
				    s);
				return (-EINVAL);
			}
			v = v * 10 + (uint64_t)(*p - '0');
		}
		if (v < 1 || v > 2 * (uint64_t)n) {
			snprintf(err, errlen,
			         "port %llu is not on a %ux%u switch (ingress "
			         "1..%u, egress %u..%u)",
			         (unsigned long long)v, n, n, n, n + 1, 2 * n);
			return (-EINVAL);
		}
		ep->port = (uint32_t)v;
		return (0);
	}
	if ((ep->trx = conf_trx_find(c, s)) == NULL) {
		snprintf(err, errlen,
		         "unknown transceiver \"%.64s\" (not in [cabling])",
		         s);
		return (-EINVAL);
	}
	if (ep->trx->sw != sw) {
		snprintf(err, errlen,
		         "transceiver %.64s is cabled to switch %s, not %s", s,
		         conf_switch_label(c, ep->trx->sw),
		         conf_switch_label(c, sw));
		ep->trx = NULL;
		return (-EINVAL);
	}
	return (0);
}

const char *
xc_port_name(const struct conf *c, uint32_t sw, uint32_t n, uint32_t port,
             char *buf, size_t len)
{
	const struct conf_trx *t = port <= n ? conf_trx_by_in(c, sw, port)
	                                     : conf_trx_by_out(c, sw, port);

	if (t)
		snprintf(buf, len, "%u (%s %s)", port, t->name,
		         port <= n ? "TX" : "RX");
	else
		snprintf(buf, len, "%u", port);
	return (buf);
}

/* Is the patch in -> out free to make in m?  0 or -DRV_EBUSY. */
static int
free_in(const struct conf *c, uint32_t sw, const struct map *m,
        const char *what, uint32_t in, uint32_t out, char *err, size_t errlen)
{
	char     b1[96], b2[96];
	uint32_t other;

	/* Both maps are checked (the caller passes each): a port busy only
	 * on the switch is as busy as one busy only in the desired map. */
	if (m->out[in] && m->out[in] != out) {
		snprintf(
		    err, errlen,
		    "ingress %s is patched to %s on the %s map; disconnect "
		    "it first",
		    xc_port_name(c, sw, m->n, in, b1, sizeof(b1)),
		    xc_port_name(c, sw, m->n, m->out[in], b2, sizeof(b2)),
		    what);
		return (-DRV_EBUSY);
	}
	other = map_in_of(m, out);
	if (other && other != in) {
		snprintf(err, errlen,
		         "egress %s is fed by ingress %s on the %s map; "
		         "disconnect it first",
		         xc_port_name(c, sw, m->n, out, b1, sizeof(b1)),
		         xc_port_name(c, sw, m->n, other, b2, sizeof(b2)),
		         what);
		return (-DRV_EBUSY);
	}
	return (0);
}

/* Patches of one endpoint pair, without the busy checks. */
static int
pair_patches(const struct conf *c, uint32_t sw, uint32_t n, const char *a,
             const char *b, struct drv_patch p[2], size_t *np, char *err,
             size_t errlen)
{
	struct xc_ep ea, eb;
	int          rv;

	if ((rv = xc_resolve(c, sw, n, a, &ea, err, errlen)) != 0 ||
	    (rv = xc_resolve(c, sw, n, b, &eb, err, errlen)) != 0)
		return (rv);
	if (ea.trx && eb.trx) {
		p[0].in = ea.trx->in;
		p[0].out = eb.trx->out;
		*np = 1;
		if (ea.trx != eb.trx) { /* else a loopback: one patch */
			p[1].in = eb.trx->in;
			p[1].out = ea.trx->out;
			*np = 2;
		}
		return (0);
	}
	if (ea.trx || eb.trx) {
		snprintf(
		    err, errlen,
		    "%s %s: connect two transceivers, or an ingress port to "
		    "an egress port",
		    a, b);
		return (-EINVAL);
	}
	if (ea.port > n && eb.port <= n) {
		uint32_t t = ea.port;
		ea.port = eb.port;
		eb.port = t;
	}
	if (ea.port > n || eb.port <= n) {
		snprintf(err, errlen,
		         "%s %s: a patch joins an ingress port (1..%u) to an "
		         "egress port (%u..%u)",
		         a, b, n, n + 1, 2 * n);
		return (-EINVAL);
	}
	p[0].in = (uint16_t)ea.port;
	p[0].out = (uint16_t)eb.port;
	*np = 1;
	return (0);
}

int
xc_connect(const struct conf *c, uint32_t sw, const struct map *desired,
           const struct map *live, const char *a, const char *b,
           struct drv_patch p[2], size_t *np, char *err, size_t errlen)
{
	size_t i;
	int    rv;

	*np = 0;
	if ((rv = pair_patches(c, sw, live->n, a, b, p, np, err, errlen)) != 0)
		return (rv);
	for (i = 0; i < *np; i++) {
		if ((rv = free_in(c, sw, desired, "desired", p[i].in, p[i].out,
		                  err, errlen)) != 0 ||
		    (rv = free_in(c, sw, live, "switch's", p[i].in, p[i].out,
		                  err, errlen)) != 0)
			return (rv);
	}
	return (0);
}

static void
add_in(uint16_t *ins, size_t *nin, uint32_t in)
{
	size_t i;

	if (in == 0)
		return;
	for (i = 0; i < *nin; i++)
		if (ins[i] == in)
			return;
	ins[(*nin)++] = (uint16_t)in;
}

int
xc_disconnect(const struct conf *c, uint32_t sw, const struct map *desired,
              const struct map *live, const char *a, uint16_t *ins,
              size_t *nin, char *err, size_t errlen)
{
	const struct map *maps[2] = {desired, live};
	struct xc_ep      e;
	size_t            k;
	int               rv;

	*nin = 0;
	if ((rv = xc_resolve(c, sw, live->n, a, &e, err, errlen)) != 0)
		return (rv);
	for (k = 0; k < 2; k++) {
		const struct map *m = maps[k];

		if (e.trx) {
			if (m->out[e.trx->in])
				add_in(ins, nin, e.trx->in);
			add_in(ins, nin, map_in_of(m, e.trx->out));
		} else if (e.port <= m->n) {
			if (m->out[e.port])
				add_in(ins, nin, e.port);
		} else
			add_in(ins, nin, map_in_of(m, e.port));
	}
	return (0);
}

int
xc_build(const struct conf *c, uint32_t sw, uint32_t n, char *const *a,
         char *const *b, size_t npairs, struct map *target, char *err,
         size_t errlen)
{
	struct drv_patch p[2];
	uint32_t        *owner;
	size_t           i, k, np;
	char             why[300], b1[96];
	int              rv;

	if ((rv = map_init(target, n)) != 0)
		return (rv);
	if ((owner = calloc(2 * n + 1, sizeof(*owner))) == NULL) {
		map_free(target);
		return (-ENOMEM);
	}
	for (i = 0; i < npairs; i++) {
		if (pair_patches(c, sw, n, a[i], b[i], p, &np, why,
		                 sizeof(why)) != 0) {
			snprintf(err, errlen, "entry %zu: %s", i + 1, why);
			rv = -EINVAL;
			goto fail;
		}
		for (k = 0; k < np; k++) {
			uint32_t pt = owner[p[k].in] ? p[k].in : p[k].out;

			if (owner[p[k].in] || owner[p[k].out]) {
				snprintf(
				    err, errlen,
				    "entry %zu: %s %s: port %s is already "
				    "used by entry %u",
				    i + 1, a[i], b[i],
				    xc_port_name(c, sw, n, pt, b1, sizeof(b1)),
				    owner[pt]);
				rv = -EINVAL;
				goto fail;
			}
			owner[p[k].in] = owner[p[k].out] = (uint32_t)i + 1;
			target->out[p[k].in] = p[k].out;
		}
	}
	free(owner);
	return (0);
fail:
	free(owner);
	map_free(target);
	return (rv);
}

void
xc_delta(struct map *m, const uint16_t *ins, size_t nin,
         const struct drv_patch *p, size_t np)
{
	size_t   i;
	uint32_t other;

	for (i = 0; i < nin; i++)
		m->out[ins[i]] = 0;
	for (i = 0; i < np; i++) {
		if ((other = map_in_of(m, p[i].out)) != 0)
			m->out[other] = 0;
		m->out[p[i].in] = p[i].out;
	}
}

size_t
xc_circuits(const struct conf *c, uint32_t sw, const struct map *m,
            struct xc_circuit *out, size_t cap)
{
	size_t i, j, k = 0;

	for (i = 0; i < c->ntrx && k < cap; i++) {
		const struct conf_trx *a = &c->trx[i], *b;
		int                    dup = 0;

		if (a->sw != sw || a->in > m->n || m->out[a->in] == 0)
			continue;
		if ((b = conf_trx_by_out(c, sw, m->out[a->in])) == NULL)
			continue;
		for (j = 0; j < k; j++)
			if (out[j].a == b && out[j].b == a)
				dup = 1;
		if (dup)
			continue;
		out[k].a = a;
		out[k].b = b;
		out[k].complete = b->in <= m->n && m->out[b->in] == a->out;
		k++;
	}
	return (k);
}
