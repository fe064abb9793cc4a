/* SPDX-License-Identifier: BSD-2-Clause */
/* A skewed All-to-All plan as the schedule IR (SCHED_ALLTOALLV). */
#include <errno.h>
#include <stdlib.h>

#include "collectives/coll.h"
#include "collectives/skew.h"

/* Stage k's rides: one transfer each, a one-hop segment per circuit. */
static int
add_rides(const struct skew_plan *p, uint32_t k, struct sched *s,
          uint64_t *sent)
{
	struct sched_seg *seg;
	uint32_t          x, h, at, b;
	int               rv = 0;

	if ((seg = malloc((p->n + 1) * sizeof(*seg))) == NULL)
		return (-ENOMEM);
	for (x = 0; x < p->nride && rv == 0; x++) {
		const struct skew_ride *r = &p->ride[x];
		uint64_t               *at_pair;

		if (r->stage != k)
			continue;
		for (h = 0, at = r->src; h < r->hops && h < p->n; h++) {
			seg[h] = (struct sched_seg){at, 0, 0, 1};
			at = skew_perm(p, k)[at];
			if (at == SKEW_IDLE)
				break;
		}
		at_pair = &sent[(size_t)r->src * p->n + r->dst];
		if ((rv = sched_add_vblk(s, r->src, r->dst, *at_pair,
		                         r->bytes)) < 0)
			break;
		b = (uint32_t)rv;
		*at_pair += r->bytes;
		rv = sched_add_xfer(s, r->src, r->dst, &b, 1, seg, h);
	}
	free(seg);
	return (rv < 0 ? rv : 0);
}

int
skew_build(const struct skew_plan *p, const struct tmat *m, struct sched *s)
{
	uint64_t *sent;
	uint32_t  n = p->n, k, i, b;
	int       rv;

	if ((rv = sched_init_v(s, p->algo, n, 1, m->b)) != 0)
		return (rv);
	if ((sent = calloc((size_t)n * n, sizeof(*sent))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < p->nst; k++) {
		const uint32_t *perm = skew_perm(p, k);
		const uint64_t *real = skew_real(p, k);

		if ((rv = sched_add_phase(s, 1, 0)) < 0)
			goto out;
		for (i = 0; i < n; i++)
			if (perm[i] != SKEW_IDLE &&
			    (rv = sched_add_link(s, i, 0, perm[i], 0)) != 0)
				goto out;
		for (i = 0; i < n; i++) {
			struct sched_seg seg = {i, 0, 0, 1};
			uint64_t        *at;

			if (perm[i] == SKEW_IDLE || real[i] == 0)
				continue;
			at = &sent[(size_t)i * n + perm[i]];
			if ((rv = sched_add_vblk(s, i, perm[i], *at,
			                         real[i])) < 0)
				goto out;
			b = (uint32_t)rv;
			*at += real[i];
			if ((rv = sched_add_xfer(s, i, perm[i], &b, 1, &seg,
			                         1)) != 0)
				goto out;
		}
		if ((rv = add_rides(p, k, s, sent)) != 0)
			goto out;
	}
	rv = 0;
out:
	free(sent);
	return (rv);
}
