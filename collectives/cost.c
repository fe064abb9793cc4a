/* SPDX-License-Identifier: BSD-2-Clause */
/* The alpha-beta-delta model evaluated on a materialised schedule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/cost.h"

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
			if (p > 0)
				c.reconf = cost_delta(cp, p);
		} else if (p == 0) {
			rv = -COLL_ENOCFG;
			goto out;
		}
		memset(load, 0, (size_t)np * sizeof(*load));
		for (i = 0; i < ph->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[ph->xfer_off + i];
			struct sched_walk        w;
			uint32_t                 h = 0;
			uint64_t units = vb ? x->bytes : x->nblk;
			int64_t  tx;

			sched_walk_init(&w, s, peer, x);
			while ((tx = sched_walk_next(&w)) >= 0 &&
			       tx != SCHED_NONE) {
				load[tx] += units;
				h++;
			}
			if (tx < 0) {
				rv = (int)tx;
				goto out;
			}
			if (h > c.hops)
				c.hops = h;
			if (units > maxblk)
				maxblk = units;
		}
		for (i = 0; i < np; i++)
			if (load[i] > maxload)
				maxload = load[i];
		c.link_bytes = (double)maxload * blk;
		c.dir_bytes = (double)maxblk * blk;
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
