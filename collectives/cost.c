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
	uint32_t *peer, *load;
	uint32_t  np = s->n * s->ports, p, i, bad;
	double    blk = sched_blk_model_bytes(s), sum = 0;
	int       rv = 0;

	peer = malloc((size_t)np * sizeof(*peer));
	load = malloc((size_t)np * sizeof(*load));
	if (peer == NULL || load == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];
		struct cost_phase         c;
		uint32_t                  maxload = 0, maxblk = 0;

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
			int64_t                  tx;

			sched_walk_init(&w, s, peer, x);
			while ((tx = sched_walk_next(&w)) >= 0 &&
			       tx != SCHED_NONE) {
				load[tx] += x->nblk;
				h++;
			}
			if (tx < 0) {
				rv = (int)tx;
				goto out;
			}
			if (h > c.hops)
				c.hops = h;
			if (x->nblk > maxblk)
				maxblk = x->nblk;
		}
		for (i = 0; i < np; i++)
			if (load[i] > maxload)
				maxload = load[i];
		c.link_bytes = maxload * blk;
		c.dir_bytes = maxblk * blk;
		c.total = c.reconf + cp->alpha_s + cp->alpha_h * c.hops +
		          cp->beta * c.link_bytes;
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
