/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Skewed All-to-All as incast-free stages (spec/skewed-alltoall.md): a
 * traffic matrix decomposed into permutations, each one circuit
 * configuration of the switch, by pluggable planners (FAST's BvN,
 * SpreadOut, a Solstice-style and an Eclipse-style decomposition), and
 * `auto`, which keeps the lowest predicted cost as R* does for ReTri.
 *
 * A plan is a list of stages; stage k sets permutation perm_k (a node's
 * one outgoing circuit) for a duration of w_k bytes, and carries real_k[i]
 * bytes of node i's traffic to perm_k[i].  Padding (FAST's doubly
 * stochastic fill) is in w_k but never in real_k, so never sent.
 */
#ifndef COLL_SKEW_H
#define COLL_SKEW_H

#include <stdint.h>

#include "collectives/cost.h"
#include "collectives/sched.h"
#include "collectives/tmat.h"

#define SKEW_IDLE UINT32_MAX /* perm entry of a node without a circuit */

struct skew_stage {
	uint64_t w;   /* duration in bytes (padding included) */
	uint32_t off; /* perm and real: entries off .. off + n - 1 */
};

/* Bytes riding a stage's circuits over several hops (circuit reuse):
 * from src along the stage's permutation to dst, `hops` circuits. */
struct skew_ride {
	uint32_t stage, src, dst, hops;
	uint64_t bytes;
};

struct skew_plan {
	char               algo[24];
	uint32_t           n;
	uint64_t           rho;    /* largest row/column sum of the input */
	int                padded; /* stages sum to rho with padding */
	struct skew_stage *st;
	uint32_t           nst, cap;
	uint32_t          *perm;       /* nst * n */
	uint64_t          *real;       /* nst * n */
	double             schedule_s; /* planner's own time */
	struct skew_ride  *ride;       /* at most one per (stage, src, dst) */
	uint32_t           nride, cap_ride;
};

/* Model parameters: the network's alpha-beta-delta, and for servers of
 * g > 1 GPUs the scale-up link. */
struct skew_params {
	struct cost_params cp;
	uint32_t           gpus; /* per server, >= 1 */
	double             su_alpha, su_beta;
	uint32_t           planes; /* transceivers a node (0 or 1: one) */
	/* Optional: told before each planner runs (its name, i of n); a
	 * non-zero answer stops the planning with -ECANCELED.  Planning a
	 * thousand nodes takes long, and whoever waits may give up. */
	const struct skew_watch *watch;
};

struct skew_watch {
	void *arg;
	int (*step)(void *arg, const char *planner, uint32_t i, uint32_t n);
};

struct skew_ops {
	const char *name;
	int (*plan)(const struct tmat *, const struct skew_params *,
	            struct skew_plan *);
	/* The most nodes it plans in reasonable time and memory, 0: any.
	 * Asked for more, skew_plan answers -COLL_ENODES; auto leaves it
	 * out. */
	uint32_t max_n;
};

/* FAST's BvN peels up to n^2 - 2n + 2 stages of n entries each, and the
 * plan's check builds one block a (pair, stage): n^3 grows past what a
 * planning tool may take (256 nodes: 29 s and 1.56 GB).  At server level
 * (--gpus-per-server) the bound is on servers, as in FAST's own code. */
#define SKEW_FAST_MAX_N 128

extern const struct skew_ops skew_fast_ops, skew_spreadout_ops,
    skew_solstice_ops, skew_eclipse_ops, skew_sorted_ops;

/* Ops by name ("auto" is not one), or NULL; names for messages. */
const struct skew_ops *skew_lookup(const char *name);
const char            *skew_names(void);

void skew_plan_init(struct skew_plan *, const char *algo, uint32_t n);
void skew_plan_free(struct skew_plan *);
/* Append a stage of duration w, every node idle; its index or -ENOMEM. */
int skew_add_stage(struct skew_plan *, uint64_t w);
static inline uint32_t *
skew_perm(const struct skew_plan *p, uint32_t k)
{
	return (p->perm + p->st[k].off);
}
static inline uint64_t *
skew_real(const struct skew_plan *p, uint32_t k)
{
	return (p->real + p->st[k].off);
}

/*
 * FAST's steps, exposed for tests: the off-diagonal traffic padded to
 * line sums rho (deficient rows against deficient columns; onto_traffic
 * puts padding on entries that carry traffic first), malloc'd n * n or
 * NULL; and the Birkhoff-von Neumann decomposition of such a matrix p
 * (consumed: zero after) into pl's stages, perm i -> i meaning idle.
 * 0, -ENOMEM, -EDOM (p's line sums are not rho).
 */
uint64_t *skew_pad(const struct tmat *, uint64_t rho, int onto_traffic);
int       skew_bvn(uint64_t *p, uint64_t rho, struct skew_plan *pl);

/*
 * Give every stage its real bytes: each matched pair takes, stage by
 * stage, what remains of its traffic up to the stage's duration.  Stages
 * left carrying nothing are dropped.  Planners call it last.
 */
int skew_assign(struct skew_plan *, const struct tmat *);

/*
 * Check a plan against its matrix: every stage a (partial) permutation,
 * real bytes only where there is traffic and never above the duration,
 * and every pair's traffic carried exactly once.  For padded plans the
 * durations sum to at most rho (to rho before stages of pure padding are
 * dropped).  0 or -EINVAL with one line in err.
 */
int skew_check(const struct skew_plan *, const struct tmat *, char *err,
               size_t errlen);

/*
 * Lower bound for schedules that carry every byte directly (no circuit
 * reuse): beta * rho + deg * alpha + (deg - 1) * delta, rho the largest
 * line sum and deg the largest number of peers of any line (row or
 * column; not necessarily the same line): deg stages at least, whose
 * durations sum to rho at least, each paying the per-stage alpha_s +
 * alpha_h of the cost model.  It is at least the per-line bound (the
 * max over lines of beta * load + (nnz - 1) * delta + nnz * alpha).
 */
double skew_lower_bound(const struct tmat *, const struct cost_params *);

/*
 * Circuit reuse: remove stages whose bytes are cheaper carried over
 * several hops of the circuits other stages set (as ReTri reuses its
 * subrings) than paid a reconfiguration for, greedily, cheapest stage
 * first, as long as the predicted time falls.  Plans of more than
 * max_stages stages are left alone (the search is O(K^2 n^2)).  The
 * plan's name gets "+reuse" when a stage went.  0 or -ENOMEM.
 */
int skew_reuse(struct skew_plan *, const struct cost_params *,
               uint32_t max_stages);

/* Stage k's bytes a node sends (load, n entries), the busiest circuit's
 * and the longest path, rides included. */
void skew_stage_load(const struct skew_plan *, uint32_t k, uint64_t *load,
                     uint64_t *mx, uint32_t *hops);

/* Predicted time: per stage alpha_s + alpha_h * longest path + beta *
 * bytes on its busiest circuit, plus delta between stages. */
double skew_cost(const struct skew_plan *, const struct cost_params *);

/*
 * The schedule IR of a plan: one phase per stage, whose configuration is
 * the stage's one-way circuits, one transfer per carried pair, one
 * block per (pair, stage).  sched_free() it in every case.
 */
int skew_build(const struct skew_plan *, const struct tmat *, struct sched *);

/* What one planner gave, for `auto`'s report. */
struct skew_tried {
	const char *algo;
	uint32_t    stages;
	double      predicted_s, schedule_s;
	int         reuse; /* the same plan after skew_reuse */
};
#define SKEW_NPLANNERS 10 /* each planner, alone and with reuse */

struct skew_su;
/*
 * Plan with one planner (name) or all of them ("auto", keeping the lowest
 * predicted time: skew_cost, or skew_cost_pipeline when su is given for
 * FAST's server level; auto also tries each plan of at most 4n stages
 * with circuit reuse, one NIC a node only).  tried (nullable) gets SKEW_NPLANNERS entries, of
 * which *ntried are filled.  0, -COLL_EALGO, -ENOMEM, -COLL_ETOOBIG.
 */
int skew_plan(const char *name, const struct tmat *,
              const struct skew_params *, const struct skew_su *su,
              struct skew_plan *, struct skew_tried *tried, uint32_t *ntried);

/*
 * FAST's server level for servers of g = sp->gpus GPUs (GPU i on server
 * i / g): senders balance each destination server's bytes over their g
 * GPUs (scale-up), GPU k of server a then sends only to GPU k of server b,
 * so the g NIC planes carry the same server-level matrix srv (each pair's
 * bytes / g, rounded up), and receivers redistribute over scale-up.
 * su gets the scale-up time that precedes the first stage: balancing and
 * the traffic that stays inside a server.  0, -EINVAL (n not a multiple
 * of g, or fewer than 2 servers), -ENOMEM.
 */
struct skew_su {
	uint32_t servers, gpus;
	uint64_t balance_bytes; /* moved by the busiest GPU before stage 1 */
	double   intra_s;
};
int skew_servers(const struct tmat *gpu, const struct skew_params *,
                 struct tmat       *srv, struct skew_su *);

/*
 * Several transceivers a node: t planes, each a switch configuration of
 * its own that reconfigures independently of the others.  Stages are
 * packed onto the planes (longest first onto the plane that ends
 * soonest); plane_of (nullable, nst entries) gets each stage's plane.
 * Returns the completion: the latest plane's sum of stage times and its
 * own reconfigurations.  With t = 1 this is skew_cost.
 */
double skew_cost_planes(const struct skew_plan *, const struct cost_params *,
                        uint32_t t, uint32_t *plane_of);
/* The lower bound for direct schedules on t transceivers a node: the
 * largest of (deg (alpha + delta) + beta rho) / t - delta (the mean
 * plane), ceil(deg / t) (alpha + delta) - delta (the plane with the most
 * stages) and alpha + beta * rho / t; with t = 1,
 * skew_lower_bound. */
double skew_lower_bound_t(const struct tmat *, const struct cost_params *,
                          uint32_t t);

/* FAST's pipeline over a server-level plan: (stage 1 || scale-up part),
 * then (stage k || redistribution of k-1), then the last redistribution;
 * a receiver forwards (g-1)/g of what a stage brings. */
double skew_cost_pipeline(const struct skew_plan *, const struct skew_params *,
                          const struct skew_su *);

/*
 * FAST's server level executed (skew_srv.c): pl, planned on the server
 * matrix of m (skew_servers) for servers of g GPUs, as a schedule of m's
 * GPUs with ports = g: port 0 the NIC, ports 1.. the server's local
 * links (sched.local_from = 1).  Phase 0 balances over the local links
 * (and delivers what stays in a server), phase s + 1 carries stage s on
 * circuits (GPU k of a server to GPU k of the stage's peer) and the
 * redistribution of stage s - 1 over the local links; phase K + 1 the
 * last redistribution.  0, -EINVAL (g, m and pl do not fit), -EDOM (pl
 * does not carry m's server matrix), -ENOMEM; sched_free() it always.
 */
int skew_srv_build(const struct skew_plan *pl, const struct tmat *m,
                   uint32_t g, struct sched *s);

/* A phase's bytes: over the local links and on circuits. */
struct skew_srv_bytes {
	uint64_t local, circuit;
};
/*
 * The model of such a schedule as it runs: phase p costs its
 * reconfiguration (not phase 0's), alpha_s, and the longer of its
 * circuits (alpha_h + beta * the busiest NIC's bytes) and its local
 * links (su_alpha + su_beta * the most bytes one GPU sends over them, a
 * GPU's scale-up being one shared link out).  pc gets s->nph entries, by
 * (nullable) each phase's bytes (added to).  0 or -ENOMEM.
 */
int skew_srv_cost(const struct sched *s, const struct cost_params *cp,
                  double su_alpha, double su_beta, struct cost_phase *pc,
                  double *total, struct skew_srv_bytes *by);

#endif
