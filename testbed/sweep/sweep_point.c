/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One point of a sweep: R* and the predicted time from the collectives
 * library's exact optimiser, and with --simulate the link simulator on
 * the materialised schedule (skipped, cell left empty, when the schedule
 * would be too big to build).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/a2a.h"
#include "collectives/coll.h"
#include "collectives/sim.h"
#include "testbed/sweep/sweep.h"

/* Beyond this many blocks a simulation takes minutes a point: the cell
 * stays empty (the model's is always there). */
#define SIM_MAX_BLOCKS 20000u

static void
fmt_before(const uint8_t *before, uint32_t nph, char *buf, size_t len)
{
	size_t   o = 0;
	uint32_t k;

	buf[0] = '\0';
	for (k = 1; k < nph && o < len; k++)
		if (before[k])
			o += (size_t)snprintf(buf + o, len - o, "%s%u",
			                      o ? ";" : "", k);
}

static int
simulate(const struct a2a *a, uint64_t bytes, const struct cost_params *cp,
         const uint8_t *before, double *t)
{
	struct sched      s;
	struct sim_params sp;
	int               rv;

	*t = NAN;
	if (a2a_ir_blocks(a) > SIM_MAX_BLOCKS)
		return (0);
	if ((rv = a2a_build(a, bytes, before, SIM_MAX_BLOCKS, &s)) != 0)
		return (rv);
	sp.cost = *cp;
	sp.chunk_bytes = fmax(64.0, bytes / 256.0);
	rv = sim_run(&s, &sp, t, NULL);
	sched_free(&s);
	if (rv == -COLL_ETOOBIG) { /* too many chunks: left empty too */
		*t = NAN;
		rv = 0;
	}
	return (rv);
}

int
sweep_point(const struct sweep *sw, struct sweep_row *r, char *err, size_t len)
{
	struct cost_params   cp = {0};
	struct reconf_result res = {0};
	struct a2a           a;
	uint8_t             *before = NULL;
	uint32_t             nph;
	int                  rv;

	if ((rv = a2a_init(&a, r->algo, r->nodes)) != 0) {
		snprintf(err, len, "%s with %u nodes: %s", r->algo, r->nodes,
		         coll_strerror(rv));
		return (rv);
	}
	cmodel_params(&sw->m, r->delta_s, &cp);
	nph = a2a_nphases(&a);
	if ((before = calloc(nph + 1, 1)) == NULL ||
	    (rv = a2a_optimise(&a, r->bytes, &cp, &res)) != 0) {
		rv = before ? rv : -ENOMEM;
		snprintf(err, len, "optimising: %s", coll_strerror(rv));
		goto out;
	}
	if (sw->reconf == SWEEP_AUTO)
		memcpy(before, res.place + (size_t)res.rstar * nph, nph);
	else if (sw->reconf == SWEEP_ALL && nph > 1)
		memset(before + 1, 1, nph - 1);
	r->reconfs = reconf_count(nph, before);
	fmt_before(before, nph, r->before, sizeof(r->before));
	if ((rv = a2a_predict(&a, r->bytes, &cp, before, &r->predicted_s)) !=
	    0) {
		snprintf(err, len, "predicting: %s", coll_strerror(rv));
		goto out;
	}
	r->simulated_s = NAN;
	if ((sw->simulate & SWEEP_SIM_OURS) &&
	    (rv = simulate(&a, r->bytes, &cp, before, &r->simulated_s)) != 0)
		snprintf(err, len, "simulating: %s", coll_strerror(rv));
	r->packet_s = NAN;
	if (rv == 0 && (sw->simulate & SWEEP_SIM_NS3))
		rv = sweep_ns3_point(sw, &a, r->bytes, &cp, before,
		                     &r->packet_s, err, len);
out:
	free(before);
	reconf_free(&res);
	a2a_fini(&a);
	return (rv);
}

void
sweep_hash(struct sweep *s)
{
	char extra[300];

	snprintf(s->backend, sizeof(s->backend), "model%s%s%s%s%s",
	         s->simulate & SWEEP_SIM_OURS ? "+sim" : "",
	         s->simulate & SWEEP_SIM_NS3 ? "+ns3" : "",
	         s->measure ? "+measure:" : "",
	         !s->measure ? ""
	         : s->netns  ? "netns:"
	         : s->local  ? "local:"
	                     : "ocsd:",
	         !s->measure ? ""
	         : s->local  ? s->rate
	                     : s->ocsd);
	snprintf(extra, sizeof(extra), "reconfig=%d|%s", (int)s->reconf,
	         s->backend);
	cmodel_hash(&s->m, extra, s->hash);
}
