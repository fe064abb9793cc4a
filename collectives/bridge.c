/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bridge: reconfigurable Bruck, radix 2, mirrored (spec/alltoall-ocs.md).
 * Each block is cut in two halves.  Half 0 follows Bruck: offset
 * o = (d - r) mod n in binary, bit k set -> sent to i + 2^k in phase k, so
 * before phase k it sits at r + (o mod 2^k).  Half 1 is the mirror image:
 * offset o' = (r - d) mod n, sent to i - 2^k, sitting at r - (o' mod 2^k).
 * Works for any n >= 2 with ceil(log2 n) phases.
 */
#include <errno.h>
#include <stdlib.h>

#include "collectives/a2a.h"
#include "collectives/retri.h"

static int
bridge_init(struct a2a *a)
{
	uint32_t          n = a->n, s = retri_nphases(n, 2), k, o, c;
	struct circ_prof *p = &a->prof;
	uint64_t          total = 0, cnt;
	int               rv;

	for (k = 0; k < s; k++)
		for (o = 0; o < n; o++)
			total += 2 * ((o >> k) & 1);
	if ((rv = circ_alloc(p, n, 2, s, 2 * s, total)) != 0)
		return (rv);
	total = 0;
	for (k = 0; k < s; k++) {
		struct circ_phase *ph = &p->ph[k];
		uint64_t           p2 = (uint64_t)1 << k;

		cnt = 0;
		for (o = 0; o < n; o++)
			cnt += (o >> k) & 1;
		ph->stride = p2;
		ph->ncls = 2;
		ph->cls = p->pool + 2 * k;
		for (c = 0; c < 2; c++) {
			struct circ_class *cl = &ph->cls[c];

			cl->offset = c == 0 ? (int64_t)p2 : -(int64_t)p2;
			cl->pref = c == 0 ? +1 : -1;
			cl->blk = p->blkpool + total;
			total += cnt;
			for (o = 0; o < n; o++) {
				struct circ_blk *b;

				if (!((o >> k) & 1))
					continue;
				b = &cl->blk[cl->units++];
				b->part = c;
				if (c == 0) {
					b->v = o;
					b->pre = o & (p2 - 1);
				} else {
					b->v = (n - o) % n;
					b->pre = -(int64_t)(o & (p2 - 1));
				}
			}
		}
	}
	return (0);
}

const struct a2a_ops a2a_bridge_ops = {
    .name = "bridge",
    .radix = 2,
    .init = bridge_init,
};
