/* SPDX-License-Identifier: BSD-2-Clause */
/* Node plans and phase reports to and from the wire (see plan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/plan.h"

void
plan_wire_free(struct plan_wire *w)
{
	free(w->pp);
	free(w->ppp);
	free(w->sd);
	free(w->sdp);
	free(w->rl);
	free(w->rlp);
	free(w->rv);
	free(w->rvp);
	free(w->vb);
	free(w->vbp);
	memset(w, 0, sizeof(*w));
}

/* One phase into the wire arrays at the running offsets ns, nr, nv. */
static void
phase_encode(const struct plan_phase *ph, struct plan_wire *w,
             Ocs__PhasePlan *pp, size_t *ns, size_t *nr, size_t *nv)
{
	uint32_t i;

	ocs__phase_plan__init(pp);
	pp->barrier = ph->barrier;
	pp->sends = &w->sdp[*ns];
	pp->relays = &w->rlp[*nr];
	pp->recvs = &w->rvp[*nv];
	pp->n_sends = ph->nsend;
	pp->n_relays = ph->nrelay;
	pp->n_recvs = ph->nrecv;
	for (i = 0; i < ph->nsend; i++, (*ns)++) {
		Ocs__Send *o = &w->sd[*ns];

		ocs__send__init(o);
		o->dst = ph->send[i].dst;
		o->port = ph->send[i].port;
		o->hops = ph->send[i].hops;
		o->n_blocks = ph->send[i].nblk;
		o->blocks = (uint32_t *)(uintptr_t)ph->send[i].blk;
		w->sdp[*ns] = o;
	}
	for (i = 0; i < ph->nrelay; i++, (*nr)++) {
		Ocs__Relay *o = &w->rl[*nr];

		ocs__relay__init(o);
		o->src = ph->relay[i].src;
		o->dst = ph->relay[i].dst;
		o->in_port = ph->relay[i].in_port;
		o->out_port = ph->relay[i].out_port;
		o->blocks = ph->relay[i].nblk;
		o->bytes = ph->relay[i].bytes;
		w->rlp[*nr] = o;
	}
	for (i = 0; i < ph->nrecv; i++, (*nv)++) {
		Ocs__Recv *o = &w->rv[*nv];

		ocs__recv__init(o);
		o->src = ph->recv[i].src;
		o->port = ph->recv[i].port;
		o->n_blocks = ph->recv[i].nblk;
		o->blocks = (uint32_t *)(uintptr_t)ph->recv[i].blk;
		w->rvp[*nv] = o;
	}
}

int
plan_encode(const struct plan *p, uint32_t agent_id, const char *algo,
            struct plan_wire *w)
{
	size_t   ns = 0, nr = 0, nv = 0;
	uint32_t k;

	memset(w, 0, sizeof(*w));
	for (k = 0; k < p->nph; k++) {
		ns += p->ph[k].nsend;
		nr += p->ph[k].nrelay;
		nv += p->ph[k].nrecv;
	}
	/* Every message of a phase sits in one array of its kind. */
	w->pp = calloc(p->nph + 1, sizeof(*w->pp));
	w->ppp = calloc(p->nph + 1, sizeof(*w->ppp));
	w->sd = calloc(ns + 1, sizeof(*w->sd));
	w->sdp = calloc(ns + 1, sizeof(*w->sdp));
	w->rl = calloc(nr + 1, sizeof(*w->rl));
	w->rlp = calloc(nr + 1, sizeof(*w->rlp));
	w->rv = calloc(nv + 1, sizeof(*w->rv));
	w->rvp = calloc(nv + 1, sizeof(*w->rvp));
	w->vb = calloc(p->nvb + 1, sizeof(*w->vb));
	w->vbp = calloc(p->nvb + 1, sizeof(*w->vbp));
	if (!w->pp || !w->ppp || !w->sd || !w->sdp || !w->rl || !w->rlp ||
	    !w->rv || !w->rvp || !w->vb || !w->vbp)
		return (-ENOMEM);
	ns = nr = nv = 0;
	for (k = 0; k < p->nph; k++) {
		phase_encode(&p->ph[k], w, &w->pp[k], &ns, &nr, &nv);
		w->ppp[k] = &w->pp[k];
	}
	ocs__plan__init(&w->p);
	w->p.agent_id = agent_id;
	w->p.node = p->node;
	w->p.nodes = p->n;
	w->p.algo = (char *)(uintptr_t)algo;
	w->p.bytes = p->bytes;
	w->p.parts = p->parts;
	w->p.chunk = p->chunk;
	w->p.deadline_ms = p->deadline_ms;
	w->p.max_blocks = p->max_blocks;
	w->p.n_phases = p->nph;
	w->p.phases = w->ppp;
	for (k = 0; k < p->nvb; k++) {
		ocs__vblock__init(&w->vb[k]);
		w->vb[k].id = p->vb[k].id;
		w->vb[k].src = p->vb[k].src;
		w->vb[k].dst = p->vb[k].dst;
		w->vb[k].off = p->vb[k].off;
		w->vb[k].len = p->vb[k].len;
		w->vbp[k] = &w->vb[k];
	}
	if (p->coll != 0) {
		w->p.has_collective = 1;
		w->p.collective = p->coll;
		w->p.has_ag_from = 1;
		w->p.ag_from = p->ag_from;
	}
	w->p.n_vblocks = p->nvb;
	w->p.vblocks = p->nvb ? w->vbp : NULL;
	if (p->nplanes > 1) {
		for (k = 0; k < p->nports && k < 8; k++)
			w->plane[k] = p->plane[k];
		w->p.n_port_plane = k;
		w->p.port_plane = w->plane;
	}
	if (p->local_from == 0)
		return (0);
	w->p.has_local_from = 1;
	w->p.local_from = p->local_from;
	for (k = 0; k < p->nlocal && k < PLAN_MAX_LOCAL; k++) {
		ocs__local_peer__init(&w->lp[k]);
		w->lp[k].node = p->lnode[k];
		w->lp[k].addr = (char *)(uintptr_t)p->laddr[k];
		w->lpp[k] = &w->lp[k];
	}
	w->p.n_local = k;
	w->p.local = w->lpp;
	w->p.has_local_token = 1;
	w->p.local_token.len = PLAN_LTOKEN;
	w->p.local_token.data = (uint8_t *)(uintptr_t)p->ltoken;
	w->p.has_local_bps = 1;
	w->p.local_bps = p->local_bps;
	return (0);
}

/* Local links: each peer a node of the run with an address, the token
 * whole, a rate, and the links after transceivers the agent has. */
static int
local_decode(const Ocs__Plan *m, uint32_t ntrx, struct plan *p, char *err,
             size_t len)
{
	size_t i;

	if (!m->has_local_from)
		return (0);
	if (m->local_from < 1 || m->local_from > ntrx || m->n_local < 1 ||
	    m->n_local > PLAN_MAX_LOCAL ||
	    m->local_from + m->n_local > PLAN_MAX_LOCAL + 1) {
		snprintf(err, len,
		         "plan: local links from port %u, %zu of them (the "
		         "agent has %u transceivers)",
		         m->local_from, m->n_local, ntrx);
		return (-EINVAL);
	}
	if (!m->has_local_token || m->local_token.len != PLAN_LTOKEN ||
	    !m->has_local_bps ||
	    !(m->local_bps >= 1e3 && m->local_bps <= 1e13)) {
		snprintf(err, len,
		         "plan: local links without a token or a "
		         "rate of 1 kbps to 10 Tbps");
		return (-EINVAL);
	}
	p->local_from = m->local_from;
	p->nlocal = (uint32_t)m->n_local;
	p->nports = p->local_from + p->nlocal;
	p->local_bps = m->local_bps;
	memcpy(p->ltoken, m->local_token.data, PLAN_LTOKEN);
	for (i = 0; i < m->n_local; i++) {
		const Ocs__LocalPeer *l = m->local[i];

		if (l->node >= p->n || l->node == p->node ||
		    strlen(l->addr) >= PLAN_LADDR_MAX) {
			snprintf(err, len,
			         "plan: local link %zu: node %u at \"%.40s\"",
			         i, l->node, l->addr);
			return (-EINVAL);
		}
		p->lnode[i] = l->node;
		snprintf(p->laddr[i], PLAN_LADDR_MAX, "%s", l->addr);
	}
	return (0);
}

static int
phase_decode(const Ocs__PhasePlan *pp, struct plan_phase *ph)
{
	uint32_t i;

	ph->barrier = pp->barrier;
	if (plan_phase_alloc(ph, (uint32_t)pp->n_sends, (uint32_t)pp->n_relays,
	                     (uint32_t)pp->n_recvs) != 0)
		return (-ENOMEM);
	for (i = 0; i < ph->nsend; i++) {
		const Ocs__Send *s = pp->sends[i];

		ph->send[i] =
		    (struct plan_send){s->dst, s->port, s->hops,
		                       (uint32_t)s->n_blocks, s->blocks};
	}
	for (i = 0; i < ph->nrelay; i++) {
		const Ocs__Relay *r = pp->relays[i];

		ph->relay[i] =
		    (struct plan_relay){r->src,      r->dst,    r->in_port,
		                        r->out_port, r->blocks, r->bytes};
	}
	for (i = 0; i < ph->nrecv; i++) {
		const Ocs__Recv *r = pp->recvs[i];

		ph->recv[i] = (struct plan_recv){
		    r->src, r->port, (uint32_t)r->n_blocks, r->blocks};
	}
	return (0);
}

/* Explicit blocks: strictly ascending ids (plan_vblk searches them). */
static int
vblocks_decode(const Ocs__Plan *m, struct plan *p, char *err, size_t len)
{
	size_t i;

	if (m->n_vblocks == 0)
		return (0);
	if (m->n_vblocks > (1u << 24)) {
		snprintf(err, len, "plan: %zu blocks (at most %u)",
		         m->n_vblocks, 1u << 24);
		return (-EINVAL);
	}
	if ((p->vb = calloc(m->n_vblocks, sizeof(*p->vb))) == NULL)
		return (-ENOMEM);
	p->nvb = (uint32_t)m->n_vblocks;
	for (i = 0; i < m->n_vblocks; i++) {
		const Ocs__VBlock *v = m->vblocks[i];

		if (i > 0 && v->id <= p->vb[i - 1].id) {
			snprintf(err, len,
			         "plan: block %u listed after block %u (ids "
			         "must ascend)",
			         v->id, p->vb[i - 1].id);
			return (-EINVAL);
		}
		p->vb[i] =
		    (struct plan_vblk){v->id, v->src, v->dst, v->off, v->len};
	}
	return (0);
}

static int planes_decode(const Ocs__Plan *m, struct plan *p, char *err,
                         size_t len);

int
plan_decode(const Ocs__Plan *m, uint64_t run, uint32_t ntrx, struct plan *p,
            char *err, size_t len)
{
	uint32_t k;

	memset(p, 0, sizeof(*p));
	if (m == NULL) {
		snprintf(err, len, "plan: missing");
		return (-EINVAL);
	}
	/* The one bound needed before allocating; the rest of what the plan
	 * means is exec_check's, against the executor's own limits. */
	if (m->n_phases == 0 || m->n_phases > PLAN_MAX_PHASES) {
		snprintf(err, len, "plan: %zu phases (1 to %d)", m->n_phases,
		         PLAN_MAX_PHASES);
		return (-EINVAL);
	}
	*p = (struct plan){.run = run,
	                   .node = m->node,
	                   .n = m->nodes,
	                   .parts = m->parts,
	                   .chunk = m->chunk,
	                   .deadline_ms = m->deadline_ms,
	                   .max_blocks = m->max_blocks,
	                   .bytes = m->bytes,
	                   .nph = (uint32_t)m->n_phases,
	                   .nports = ntrx,
	                   .coll = m->has_collective ? m->collective : 0,
	                   .ag_from = m->has_ag_from ? m->ag_from : 0};
	if ((p->ph = calloc(p->nph, sizeof(*p->ph))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < p->nph; k++)
		if (phase_decode(m->phases[k], &p->ph[k]) != 0)
			return (-ENOMEM);
	if (local_decode(m, ntrx, p, err, len) != 0 ||
	    planes_decode(m, p, err, len) != 0)
		return (-EINVAL);
	return (vblocks_decode(m, p, err, len));
}

/* Each transceiver's plane, one per transceiver, each below 8. */
static int
planes_decode(const Ocs__Plan *m, struct plan *p, char *err, size_t len)
{
	size_t k;

	if (m->n_port_plane == 0)
		return (0);
	if (m->n_port_plane != p->nports || p->nports > 8) {
		snprintf(err, len,
		         "plan: port_plane has %zu entries, expected %u (one "
		         "a transceiver)",
		         m->n_port_plane, p->nports);
		return (-EINVAL);
	}
	p->nplanes = 1;
	for (k = 0; k < m->n_port_plane; k++) {
		if (m->port_plane[k] >= 8) {
			snprintf(err, len,
			         "plan: port_plane[%zu] = %u, expected 0..7",
			         k, m->port_plane[k]);
			return (-EINVAL);
		}
		p->plane[k] = (uint8_t)m->port_plane[k];
		if (p->plane[k] + 1u > p->nplanes)
			p->nplanes = p->plane[k] + 1u;
	}
	/* One plane named is no plane apart. */
	if (p->nplanes < 2)
		p->nplanes = 0;
	return (0);
}

int
plan_ready_encode(uint32_t agent_id, const struct plan_done *d, size_t nd,
                  struct ready_wire *w)
{
	size_t i;

	ocs__ready__init(&w->r);
	w->r.agent_id = agent_id;
	/* Reports dropped would be phases ocsd never hears of. */
	if (nd > PLAN_MAX_DONE)
		return (-E2BIG);
	w->r.agent_id = agent_id;
	for (i = 0; i < nd; i++) {
		ocs__phase_done__init(&w->pd[i]);
		w->pd[i].phase = d[i].phase;
		w->pd[i].data_ns = d[i].data_ns;
		w->pd[i].bytes_sent = d[i].sent;
		w->pd[i].bytes_recv = d[i].recv;
		w->pd[i].bytes_relayed = d[i].relayed;
		w->pd[i].blocks_verified = d[i].verified;
		w->pd[i].errors = d[i].errors;
		w->pd[i].has_verify_ns = 1;
		w->pd[i].verify_ns = d[i].verify_ns;
		w->pd[i].has_wait_ns = 1;
		w->pd[i].wait_ns = d[i].wait_ns;
		w->pp[i] = &w->pd[i];
	}
	w->r.n_done = nd;
	w->r.done = w->pp;
	return (0);
}

int
plan_ready_decode(const Ocs__Ready *r, struct plan_done *d)
{
	size_t i;

	if (r->n_done > PLAN_MAX_DONE)
		return (-EINVAL);
	for (i = 0; i < r->n_done; i++) {
		const Ocs__PhaseDone *pd = r->done[i];

		d[i] = (struct plan_done){
		    .phase = pd->phase,
		    .data_ns = pd->data_ns,
		    .sent = pd->bytes_sent,
		    .recv = pd->bytes_recv,
		    .relayed = pd->bytes_relayed,
		    .verified = pd->blocks_verified,
		    .errors = pd->errors,
		    .verify_ns = pd->has_verify_ns ? pd->verify_ns : 0,
		    .wait_ns = pd->has_wait_ns ? pd->wait_ns : 0};
	}
	return ((int)r->n_done);
}
