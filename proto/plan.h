/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A node's plan and its phase reports (collectives/plan.h) on the wire:
 * ocs.Plan and ocs.Ready.  Each direction is one function here, so ocsd,
 * the agents and the tests share one conversion, tested by round trip.
 */
#ifndef OCS_PLAN_H
#define OCS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/plan.h"
#include "proto/ocs.pb-c.h"

/* A plan as an ocs.Plan: w->p points into w and into p's blocks. */
struct plan_wire {
	Ocs__Plan       p;
	Ocs__PhasePlan *pp, **ppp;
	Ocs__Send      *sd, **sdp;
	Ocs__Relay     *rl, **rlp;
	Ocs__Recv      *rv, **rvp;
	Ocs__VBlock    *vb, **vbp;
	Ocs__LocalPeer  lp[PLAN_MAX_LOCAL], *lpp[PLAN_MAX_LOCAL];
	uint32_t        plane[8];
};
/* 0 or -ENOMEM; free w with plan_wire_free either way.  algo must
 * outlive w. */
int  plan_encode(const struct plan *p, uint32_t agent_id, const char *algo,
                 struct plan_wire *w);
void plan_wire_free(struct plan_wire *w);

/*
 * An ocs.Plan for run, for an agent with ntrx transceivers (and, with
 * local links, local_from <= ntrx of them in the plan, the links after
 * them).  Only the shape is checked here (what the plan means is exec_check's); p's
 * block arrays point into m, which must outlive it.  0, -EINVAL (reason
 * in err) or -ENOMEM; free p with plan_free either way.
 */
int plan_decode(const Ocs__Plan *m, uint64_t run, uint32_t ntrx,
                struct plan *p, char *err, size_t len);

/* Phase reports as an ocs.Ready (w->r points into w): 0, or -E2BIG
 * (nothing encoded) for more than PLAN_MAX_DONE. */
struct ready_wire {
	Ocs__Ready     r;
	Ocs__PhaseDone pd[PLAN_MAX_DONE], *pp[PLAN_MAX_DONE];
};
int plan_ready_encode(uint32_t agent_id, const struct plan_done *d, size_t nd,
                      struct ready_wire *w);
/* The reports of a Ready into d (room for PLAN_MAX_DONE).  The count,
 * or -EINVAL when there are more. */
int plan_ready_decode(const Ocs__Ready *r, struct plan_done *d);

#endif
