/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The finer model: a link-level discrete-event simulation of a schedule.
 * Every transfer is cut into chunks; each directed link (a transceiver's
 * transmit side) serialises one chunk at a time at 1/beta bytes/s from a
 * FIFO queue, a chunk reaches the next node alpha_h after it has been
 * sent, and a relay forwards a chunk once it has it whole (chunked
 * store-and-forward, so consecutive chunks pipeline along a path).  Phases
 * are synchronous: phase k+1 starts when the last chunk of phase k has
 * arrived (plus alpha_s, plus delta_k when reconfiguring).
 *
 * It differs from cost_sched() by the pipeline fill, (h - 1) chunk
 * serialisations on an h-hop path, and by idle gaps when a relay's queue
 * runs dry before upstream data arrives; both vanish as chunks shrink
 * relative to the message.
 */
#ifndef COLL_SIM_H
#define COLL_SIM_H

#include "collectives/cost.h"
#include "collectives/sched.h"

struct sim_params {
	struct cost_params cost;
	double             chunk_bytes; /* model bytes per chunk, > 0 */
};

/* Simulate; per_phase (nullable, s->nph entries) gets each phase's time
 * including its reconfiguration.  0, -EINVAL, -ENOMEM, or a path error. */
int sim_run(const struct sched *, const struct sim_params *, double *total,
            double *per_phase);

#endif
