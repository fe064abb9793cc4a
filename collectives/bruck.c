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
 *
 * Two-port Bruck (bruck2, the paper's other motivating baseline): the
 * offset in base 3, a block whose digit k is t in {1, 2} moves by t 3^k in
 * phase k, rightwards, over one of two rings (strides 3^k and 2 3^k), so
 * before phase k it sits at r + (o mod 3^k).  ceil(log3 n) phases like
 * ReTri, but each node sends on two R sides while both L sides idle:
 * four transceivers a node where ReTri needs two.
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

/* Digit k of o in base 3. */
static uint32_t
digit3(uint32_t o, uint64_t p3)
{
	return ((uint32_t)((o / p3) % 3));
}

static int
bruck2_init(struct a2a *a)
{
	uint32_t          n = a->n, s = retri_nphases(n, 3), k, o, t;
	struct circ_prof *p = &a->prof;
	uint64_t          total = 0, p3;
	int               rv;

	for (k = 0, p3 = 1; k < s; k++, p3 *= 3)
		for (o = 0; o < n; o++)
			total += digit3(o, p3) != 0;
	if ((rv = circ_alloc(p, n, 1, s, 2 * s, total)) != 0)
		return (rv);
	total = 0;
	for (k = 0, p3 = 1; k < s; k++, p3 *= 3) {
		struct circ_phase *ph = &p->ph[k];

		ph->stride = p3;
		/* The second ring only where some offset has a digit 2. */
		ph->nring = 2 * p3 < n ? 2 : 1;
		ph->more[1] = 2 * p3;
		ph->ncls = ph->nring;
		ph->cls = p->pool + 2 * k;
		for (t = 1; t <= ph->nring; t++) {
			struct circ_class *cl = &ph->cls[t - 1];

			cl->offset = (int64_t)(t * p3);
			cl->pref = +1;
			cl->ring = (uint8_t)(t - 1);
			cl->blk = p->blkpool + total;
			for (o = 0; o < n; o++) {
				struct circ_blk *b;

				if (digit3(o, p3) != t)
					continue;
				b = &cl->blk[cl->units++];
				b->part = 0;
				b->v = o;
				b->pre = o % p3;
			}
			total += cl->units;
		}
	}
	return (0);
}

const struct a2a_ops a2a_bruck_ops = {
    .name = "bruck",
    .radix = 2,
    .init = bruck_init,
};

const struct a2a_ops a2a_bruck2_ops = {
    .name = "bruck2",
    .radix = 3,
    .init = bruck2_init,
};
