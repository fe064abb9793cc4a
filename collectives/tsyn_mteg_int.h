/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside mteg: the search state shared by the deadline search
 * (tsyn_mteg.c) and the rip-up and re-lay that refines its plan
 * (tsyn_mteg_refine.c).
 */
#ifndef COLL_TSYN_MTEG_INT_H
#define COLL_TSYN_MTEG_INT_H

#include <stdint.h>

#include "collectives/heap.h"
#include "collectives/tsyn_int.h"

#define MTEG_NCOST 4 /* edge costs tried (see mteg_cost) */

struct mteg {
	const struct tsyn_model *m;
	const struct topo       *t;
	uint32_t                 H; /* deadline: last slot a chunk lands */
	uint32_t                 stride;  /* slots allocated a link in used */
	uint32_t                 mu, lam; /* cost weights (see settle) */
	uint32_t                *order;   /* [nchunk]: broadcast order */
	uint8_t                 *used;    /* [nlink * stride] reserved slots */
	uint32_t                *hold;    /* [n]: tree holds the chunk from */
	uint32_t                *arr;     /* [n]: arrival slot of the label */
	uint32_t                *cost;    /* [n]: slots since the tree */
	uint32_t                *pred;    /* [n]: link of the best path */
	uint32_t                *dep;     /* [n]: departure slot on pred */
	struct heap              pq;
};

/*
 * Chunk k's tree by deadline g->H over the link-slots not in g->used:
 * its sends are added to p and reserved, *last raised to its last
 * arrival.  0; 1 if it does not fit (what was laid of it stays in p and
 * reserved); or -ENOMEM.
 */
int mteg_broadcast(struct mteg *, uint32_t k, struct tsyn_plan *p,
                   uint32_t *last);
/* Edge cost c of MTEG_NCOST: TM's slots since the tree; arrival plus one
 * or two slots a link-slot taken; slots since the tree plus link-slots. */
void mteg_cost(struct mteg *, uint32_t c);
/*
 * Rip-up and re-lay: best (within g->stride slots, its link-slots not
 * yet reserved) made shorter where it can be, in slots and then in the
 * real-time replay.  Its sends' order is not kept (sort it after).  0
 * or -ENOMEM.
 */
int mteg_refine(struct mteg *, struct tsyn_plan *best);

#endif
