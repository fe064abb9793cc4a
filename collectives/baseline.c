/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The static baseline: one bidirectional ring i <-> i+1 for the whole
 * collective and a single phase in which every block goes straight to its
 * destination the shorter way round.  For even n the block at distance n/2
 * is the one tie; it is split in two halves, one each way ("ties split
 * evenly"), so even n uses two parts per block.
 */
#include <errno.h>

#include "collectives/a2a.h"

static int
static_init(struct a2a *a)
{
	uint32_t           n = a->n, parts = n % 2 == 0 ? 2 : 1, v, c = 0;
	uint32_t           ncls = n - 1 + (n % 2 == 0);
	struct circ_prof  *p = &a->prof;
	struct circ_phase *ph;
	uint64_t           total = 0;
	int                rv;

	if ((rv = circ_alloc(p, n, parts, 1, ncls,
	                     (uint64_t)(n - 1) * parts)) != 0)
		return (rv);
	ph = &p->ph[0];
	ph->stride = 1;
	ph->ncls = ncls;
	ph->cls = p->pool;
	for (v = 1; v < n; v++) {
		int      tie = 2 * v == n;
		uint32_t k, h;

		for (h = 0; h < (tie ? 2u : 1u); h++) {
			struct circ_class *cl = &ph->cls[c++];

			cl->offset = v;
			cl->pref = (2 * v < n || (tie && h == 0)) ? +1 : -1;
			cl->blk = p->blkpool + total;
			for (k = 0; k < (tie ? 1 : parts); k++) {
				struct circ_blk *b = &cl->blk[cl->units++];

				b->v = v;
				b->pre = 0;
				b->part = tie ? h : k;
			}
			total += cl->units;
		}
	}
	return (0);
}

const struct a2a_ops a2a_static_ops = {
    .name = "static",
    .radix = 0,
    .init = static_init,
};
