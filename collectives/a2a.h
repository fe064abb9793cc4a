/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * All-to-All algorithms on a reconfigurable ring network: ReTri, Bridge
 * and the static ring baseline (spec/alltoall-ocs.md), as pluggable ops
 * found by name.  An instance for n nodes carries the compact circulant
 * profile (cost without blocks) and can materialise the full IR for any
 * placement of reconfigurations.
 */
#ifndef COLL_A2A_H
#define COLL_A2A_H

#include <stdint.h>

#include "collectives/circ.h"
#include "collectives/cost.h"
#include "collectives/reconf.h"
#include "collectives/sched.h"

struct a2a;

struct a2a_ops {
	const char *name;  /* "retri", "bridge", "static" */
	uint32_t    radix; /* 3, 2; 0 for the static ring */
	/* Fill a->prof, classes and their block lists, for a->n nodes.
	 * 0, -ENOMEM.  a->prof is freed by a2a_fini() even after a failure. */
	int (*init)(struct a2a *);
};

struct a2a {
	const struct a2a_ops *ops;
	uint32_t              n;
	uint32_t              radix; /* ReTri's (3, 5, 7, 9); 0: the ops' */
	struct circ_prof      prof;
};

extern const struct a2a_ops a2a_retri_ops;
extern const struct a2a_ops a2a_bridge_ops;
extern const struct a2a_ops a2a_static_ops;
extern const struct a2a_ops a2a_bruck_ops;
extern const struct a2a_ops a2a_bruck2_ops;

/* Ops by name, or NULL. */
const struct a2a_ops *a2a_lookup(const char *name);
/* Names, comma separated, for messages. */
const char *a2a_names(void);

/* Instantiate for n >= 2 nodes.  0, -EINVAL, -ENOMEM, -COLL_EALGO.
 * a2a_fini() is safe after a failed init. */
int a2a_init(struct a2a *, const char *name, uint32_t n);
/* The same with ReTri's radix b = 2q + 1 (3..9, odd): q rings a phase,
 * 2q transceivers a node.  Other algorithms take only 0 (their own). */
int a2a_init_radix(struct a2a *, const char *name, uint32_t n, uint32_t radix);
void a2a_fini(struct a2a *);

static inline uint32_t
a2a_nphases(const struct a2a *a)
{
	return (a->prof.nph);
}

/*
 * Optimise the placement of reconfigurations for payload `bytes` per node
 * under cp (the per-boundary delays in cp).  The cost matrix comes from the
 * profile, so nothing of size n^2 is built.  0, -ENOMEM, or a routing
 * error.
 */
int a2a_optimise(const struct a2a *, uint64_t bytes,
                 const struct cost_params *, struct reconf_result *);

/* Predicted cost of one placement (before[k], k = 1..nph-1). */
int a2a_predict(const struct a2a *, uint64_t bytes, const struct cost_params *,
                const uint8_t *before, double *cost);

/* Rings a configuration has at most: the instance needs twice as many
 * transceivers a node (2 for the ring algorithms, radix - 1 for ReTri of
 * a larger radix). */
uint32_t a2a_rings(const struct a2a *);

/* Blocks and circuits the IR of this instance will hold (for limits). */
uint64_t a2a_ir_blocks(const struct a2a *);

/*
 * Materialise the IR for payload `bytes` and placement `before`.
 * 0, -ENOMEM, -COLL_ETOOBIG (more than max_blocks block ids, or ids that do
 * not fit in 32 bits), or a routing error.  The schedule is initialised
 * here; sched_free() it in every case.
 */
int a2a_build(const struct a2a *, uint64_t bytes, const uint8_t *before,
              uint64_t max_blocks, struct sched *);

#endif
