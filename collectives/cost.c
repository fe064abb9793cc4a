/* SPDX-License-Identifier: BSD-2-Clause */
/* The alpha-beta-delta model evaluated on a materialised schedule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/cost.h"

/* Plane p's delay before phase k. */
static double
plane_delta(const struct cost_params *cp, uint32_t k, uint32_t p)
{
	if (cp->delta_plane != NULL && p < cp->ndelta_plane &&
	    cp->delta_plane[p] > 0)
		return (cp->delta_plane[p]);
	return (cost_delta(cp, k));
}

/*
 * The reconfiguration and data terms of phase k (sched.h's planes): load
 * is each transmitter's, maxload the busiest.  Together: the slowest
 * plane's delay, then the data.  Apart: each plane's own delay (if it
 * changes) and data, the latest of them: reconf is what that adds to
 * the data, dark the longest delay.
 */
static void
reconf_data(const struct sched *s, const struct cost_params *cp, uint32_t k,
            const uint64_t *load, uint64_t maxload, double blk,
            struct cost_phase *c)
{
	const struct sched_phase *ph = &s->ph[k];
	uint64_t                  lp[SCHED_MAX_PLANES] = {0};
	uint32_t                  np = s->n * s->ports, i, p, nplanes;
	double t, worst = 0, data = cp->beta * maxload * blk;

	nplanes = s->nplanes > 1 ? s->nplanes : 1;
	if (ph->cfg < 0 || k == 0)
		return;
	if (ph->planes == 0 || nplanes < 2) {
		for (p = 0; p < nplanes; p++)
			if ((t = plane_delta(cp, k, p)) > c->dark)
				c->dark = t;
		c->reconf = nplanes < 2 ? cost_delta(cp, k) : c->dark;
		return;
	}
	for (i = 0; i < np; i++)
		if (load[i] > lp[s->plane[i % s->ports]])
			lp[s->plane[i % s->ports]] = load[i];
	for (p = 0; p < nplanes; p++) {
		double d = (ph->planes >> p) & 1 ? plane_delta(cp, k, p) : 0;

		if (d > c->dark)
			c->dark = d;
		if ((t = d + cp->beta * lp[p] * blk) > worst)
			worst = t;
	}
	c->reconf = worst > data ? worst - data : 0;
}

/* Walk phase k's transfers: each transmitter's load, the longest path
 * and the largest transfer into c. */
static int
phase_load(const struct sched *s, uint32_t k, const uint32_t *peer,
           uint64_t *load, struct cost_phase *c, uint64_t *maxblk)
{
	const struct sched_phase *ph = &s->ph[k];
	int                       vb = s->coll == SCHED_ALLTOALLV;
	uint32_t                  i;

	memset(load, 0, (size_t)s->n * s->ports * sizeof(*load));
	for (i = 0; i < ph->nxfer; i++) {
		const struct sched_xfer *x = &s->xf[ph->xfer_off + i];
		struct sched_walk        w;
		uint32_t                 h = 0;
		uint64_t                 units = vb ? x->bytes : x->nblk;
		int64_t                  tx;

		sched_walk_init(&w, s, peer, x);
		while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE) {
			load[tx] += units;
			h++;
		}
		if (tx < 0)
			return ((int)tx);
		if (h > c->hops)
			c->hops = h;
		if (units > *maxblk)
			*maxblk = units;
	}
	return (0);
}

int
cost_sched(const struct sched *s, const struct cost_params *cp, double *total,
           struct cost_phase *per_phase)
{
	uint32_t *peer;
	uint64_t *load;
	uint32_t  np = s->n * s->ports, p, i, bad;
	/* Uniform blocks are counted and costed at the model's real-valued
	 * size (closed forms stay exact); explicit ones by their bytes. */
	int    vb = s->coll == SCHED_ALLTOALLV;
	double blk = vb ? 1.0 : sched_blk_model_bytes(s), sum = 0;
	int    rv = 0;

	peer = malloc((size_t)np * sizeof(*peer));
	load = malloc((size_t)np * sizeof(*load));
	if (peer == NULL || load == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];
		struct cost_phase         c;
		uint64_t                  maxload = 0, maxblk = 0;

		memset(&c, 0, sizeof(c));
		if (ph->cfg >= 0) {
			if ((rv = sched_peers(s, &s->cfg[ph->cfg], peer,
			                      &bad)) != 0)
				goto out;
		} else if (p == 0) {
			rv = -COLL_ENOCFG;
			goto out;
		}
		if ((rv = phase_load(s, p, peer, load, &c, &maxblk)) != 0)
			goto out;
		for (i = 0; i < np; i++)
			if (load[i] > maxload)
				maxload = load[i];
		c.link_bytes = (double)maxload * blk;
		c.dir_bytes = (double)maxblk * blk;
		reconf_data(s, cp, p, load, maxload, blk, &c);
		c.total = c.reconf + cp->alpha_s + cp->alpha_h * c.hops +
		          cp->beta * c.link_bytes +
		          cost_sf(cp, c.hops, c.dir_bytes);
		sum += c.total;
		if (per_phase)
			per_phase[p] = c;
	}
	*total = sum;
out:
	free(peer);
	free(load);
	return (rv);
}
