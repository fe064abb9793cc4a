/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Placement of explicit blocks (skewed runs) in one slab, worked out
 * before a run from the plan alone: a node's own blocks from the start,
 * a received block from the start of its phase, and a sent block's bytes
 * free again after its phase; first fit.  The executor then allocates
 * nothing per block and holds about the most bytes it holds at once.
 */
#ifndef OCS_VPLACE_H
#define OCS_VPLACE_H

#include <stdint.h>

#include "collectives/plan.h"

/* at[i]: where p->vb[i] goes; *peak: the slab's size.  0, -ENOMEM, or
 * -EINVAL when the plan names a block that is not in p->vb. */
int vplace(const struct plan *p, uint64_t *at, uint64_t *peak);

#endif
