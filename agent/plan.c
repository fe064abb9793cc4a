/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run plan message (ocs.Plan) as the executor wants it.  Only the
 * shape is taken here; what the plan means (ports, nodes, blocks, sizes)
 * is checked by exec_check before anything is allocated for the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/plan.h"

int
plan_from_msg(const Ocs__Plan *m, uint64_t run, uint32_t ntrx,
              struct exec_plan *p, char *err, size_t len)
{
	uint32_t k, i;

	memset(p, 0, sizeof(*p));
	if (m == NULL) {
		snprintf(err, len, "plan: missing");
		return (-EINVAL);
	}
	if (m->n_phases == 0 || m->n_phases > 64) {
		snprintf(err, len, "plan: %zu phases (1 to 64)", m->n_phases);
		return (-EINVAL);
	}
	p->run = run;
	p->node = m->node;
	p->n = m->nodes;
	p->parts = m->parts;
	p->chunk = m->chunk;
	p->deadline_ms = m->deadline_ms;
	p->max_blocks = m->max_blocks;
	p->bytes = m->bytes;
	p->nph = (uint32_t)m->n_phases;
	p->nports = ntrx;
	if ((p->ph = calloc(p->nph, sizeof(*p->ph))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < p->nph; k++) {
		const Ocs__PhasePlan *pp = m->phases[k];
		struct exec_phase    *ph = &p->ph[k];

		ph->barrier = pp->barrier;
		ph->nsend = (uint32_t)pp->n_sends;
		ph->nrelay = (uint32_t)pp->n_relays;
		ph->nrecv = (uint32_t)pp->n_recvs;
		ph->send = calloc(ph->nsend + 1, sizeof(*ph->send));
		ph->relay = calloc(ph->nrelay + 1, sizeof(*ph->relay));
		ph->recv = calloc(ph->nrecv + 1, sizeof(*ph->recv));
		if (!ph->send || !ph->relay || !ph->recv)
			return (-ENOMEM);
		for (i = 0; i < ph->nsend; i++) {
			const Ocs__Send *s = pp->sends[i];

			ph->send[i] = (struct exec_send){
			    s->dst, s->port, s->hops, (uint32_t)s->n_blocks,
			    s->blocks};
		}
		for (i = 0; i < ph->nrelay; i++) {
			const Ocs__Relay *r = pp->relays[i];

			ph->relay[i] = (struct exec_relay){
			    r->src,      r->dst,    r->in_port,
			    r->out_port, r->blocks, r->bytes};
		}
		for (i = 0; i < ph->nrecv; i++) {
			const Ocs__Recv *r = pp->recvs[i];

			ph->recv[i] = (struct exec_recv){
			    r->src, r->port, (uint32_t)r->n_blocks, r->blocks};
		}
	}
	return (0);
}
