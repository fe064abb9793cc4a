/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bruck, unmirrored (Bruck et al., SPAA 1994; the ReTri paper's first
 * motivating baseline): block B[r,d] with offset o = (d - r) mod n in
 * binary goes to i + 2^k in phase k when bit k of o is set, so before
 * phase k it sits at r + (o mod 2^k).  Every block whole, one direction:
 * on a fresh configuration a node sends about m/2 bytes a phase over its
 * R transceiver while its L side idles (Bridge mirrors half of each block
 * to use both).  Circuits as Bridge's: rings of stride 2^k, reusable by
 * later phases (2^t hops for phase k + t).
 */
#include <errno.h>
#include <stdlib.h>

#include "collectives/a2a.h"
#include "collectives/retri.h"

static int
bruck_init(struct a2a *a)
{
	uint32_t          n = a->n, s = retri_nphases(n, 2), k, o;
	struct circ_prof *p = &a->prof;
	uint64_t          total = 0;
	int               rv;

	for (k = 0; k < s; k++)
		for (o = 0; o < n; o++)
			total += (o >> k) & 1;
	if ((rv = circ_alloc(p, n, 1, s, s, total)) != 0)
		return (rv);
	total = 0;
	for (k = 0; k < s; k++) {
		struct circ_phase *ph = &p->ph[k];
		struct circ_class *cl = p->pool + k;
		uint64_t           p2 = (uint64_t)1 << k;

		ph->stride = p2;
		ph->ncls = 1;
		ph->cls = cl;
		cl->offset = (int64_t)p2;
		cl->pref = +1;
		cl->blk = p->blkpool + total;
		for (o = 0; o < n; o++) {
			struct circ_blk *b;

			if (!((o >> k) & 1))
				continue;
			b = &cl->blk[cl->units++];
			b->part = 0;
			b->v = o;
			b->pre = o & (p2 - 1);
		}
		total += cl->units;
	}
	return (0);
}

const struct a2a_ops a2a_bruck_ops = {
    .name = "bruck",
    .radix = 2,
    .init = bruck_init,
};
