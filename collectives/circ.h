/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Circulant phase profiles: the compact form of the ring All-to-All
 * algorithms, used for cost-only evaluation without materialising blocks.
 *
 * ReTri, Bridge and the static ring are invariant under rotation i -> i+1:
 * in every phase each node sends, for each "class", the same number of
 * block units to i + offset (mod n), and a configuration is the rings
 * i.R - (i + stride).L.  On such a configuration a class is routed the
 * shorter way round its cycle (ties go the preferred way), and by symmetry
 * every directed link of one direction carries sum(units * hops) over the
 * classes routed that way.  So a phase on any earlier configuration is
 * costed in O(classes), and the hop counts and link loads are the ones the
 * materialised IR really has (tests check the two agree for every n).
 */
#ifndef COLL_CIRC_H
#define COLL_CIRC_H

#include <stdint.h>

#include "collectives/cost.h"

/*
 * A block a class carries, relative to the sending node i: the block of
 * source r = i - pre and destination d = r + v (mod n), part `part`.
 * By shift invariance the same list serves every node.
 */
struct circ_blk {
	uint32_t v, part;
	int64_t  pre;
};

struct circ_class {
	int64_t          offset; /* each node i sends to i + offset (mod n) */
	uint32_t         units;  /* blocks per node: entries in blk */
	int8_t           pref;   /* +1: R ports (rightwards), -1: L ports */
	uint8_t          ring;   /* the ring of its own phase it goes on */
	struct circ_blk *blk;
};

/*
 * A phase's configuration, if it sets one: nring rings (0 counts as 1),
 * ring r of stride stride[r] on transceivers 2r (R: to i + stride) and
 * 2r + 1 (L).  ReTri of radix 2q + 1 has q rings (strides a * b^k).
 */
#define CIRC_MAX_RINGS 4

struct circ_phase {
	uint64_t           stride; /* ring 0's: circuits if reconfigured */
	uint64_t           more[CIRC_MAX_RINGS]; /* rings 1..: more[r] */
	uint32_t           nring;
	uint32_t           ncls;
	struct circ_class *cls;
};

static inline uint32_t
circ_nring(const struct circ_phase *ph)
{
	return (ph->nring ? ph->nring : 1);
}

static inline uint64_t
circ_stride(const struct circ_phase *ph, uint32_t r)
{
	return (r == 0 ? ph->stride : ph->more[r]);
}

struct circ_prof {
	uint32_t           n, parts, nph;
	struct circ_phase *ph;
	struct circ_class *pool; /* all classes, ph[k].cls points here */
	struct circ_blk   *blkpool;
	uint64_t           nblk; /* entries in blkpool */
};

/*
 * Allocate nph phases, ncls classes and nblk block entries in total
 * (zeroed).  The caller points ph[k].cls into pool and cls->blk into
 * blkpool.  0 / -ENOMEM.  circ_free() is safe after a failure.
 */
int  circ_alloc(struct circ_prof *, uint32_t n, uint32_t parts, uint32_t nph,
                uint32_t ncls, uint64_t nblk);
void circ_free(struct circ_prof *);

/* Reduce every block entry's pre and v into [0, n); algorithms may fill
 * them with any representative (a2a_init calls this). */
void circ_normalise(struct circ_prof *);

/* Ids of the blocks node `node` sends in class cls of phase ph (units of
 * them) into out; returns the count.  Needs a normalised profile. */
uint32_t circ_blocks(const struct circ_prof *, uint32_t ph, uint32_t cls,
                     uint32_t node, uint32_t *out);

/*
 * Route `offset` on the rings of `stride` over n nodes: *hops hops in
 * direction *dir (+1 R, -1 L), the shorter way, ties to pref.  The cycle
 * through i is i + x*stride, x = 0..n/gcd(n,stride)-1.  Returns 0, or
 * -COLL_EUNREACH when i + offset is not on that cycle.
 */
int circ_route(uint64_t n, uint64_t stride, int64_t offset, int pref,
               uint64_t *hops, int *dir);

/*
 * Route class c on the configuration of phase j: on the ring of j that
 * reaches it in the fewest hops (ties: the class's own ring, then the
 * lower), as circ_route does on one ring.  *ring, *hops, *dir; 0 or
 * -COLL_EUNREACH.
 */
int circ_route_cfg(const struct circ_prof *, uint32_t j,
                   const struct circ_class *c, uint32_t *ring, uint64_t *hops,
                   int *dir);

/* Cost of phase k run on the configuration set before phase j (j <= k),
 * not counting any reconfiguration. */
int circ_phase_cost(const struct circ_prof *, uint32_t j, uint32_t k,
                    const struct cost_params *, double blk_bytes,
                    struct cost_phase *out);

/* c[j * nph + k] = circ_phase_cost(j, k) for all j <= k (others 0). */
int circ_cost_matrix(const struct circ_prof *, const struct cost_params *,
                     double blk_bytes, double *c);

#endif
