/* SPDX-License-Identifier: BSD-2-Clause */
/* Building CtlReply messages from ocsd's state. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/agents.h"
#include "ocsd/ocsd.h"
#include "ocsd/reply.h"
#include "proto/report.h"
#include "ocsd/ev.h"
#include "ocsd/run.h"
#include "ocsd/xc.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"

static void *reply_alloc(struct reply *, size_t);
static void  reply_switch(struct reply *, Ocs__CtlReply *, const struct sw *);
static char *reply_str(struct reply *, const char *);

void
reply_init(struct reply *rp)
{
	memset(rp, 0, sizeof(*rp));
	ocs__ctl_reply__init(&rp->r);
}

void
reply_free(struct reply *rp)
{
	size_t i;

	for (i = 0; i < rp->nblk; i++)
		free(rp->blk[i]);
	free(rp->blk);
	for (i = 0; i < rp->nlist; i++)
		report_free(rp->list[i]);
	free(rp->list);
	report_free(rp->owned);
	reply_init(rp);
}

/* Reports kept as JSON (runs.c) into the reply: a listing without the
 * phases and timelines, or the one asked for whole. */
int
reply_runs(struct reply *rp, const json_t *runs, int whole)
{
	Ocs__RunReport **v, *r;
	const json_t    *o;
	char             why[200];
	size_t           i;
	int              rv;

	json_array_foreach(runs, i, o)
	{
		if ((rv = report_from_json(o, &r, why, sizeof(why))) != 0) {
			if (rv == -ENOMEM)
				return (rv);
			log_warnx("runs: run %lld skipped: %s",
			          (long long)json_integer_value(
			              json_object_get(o, "run_id")),
			          why);
			continue;
		}
		if (whole) {
			report_free(rp->owned);
			rp->owned = r;
			rp->r.report = r;
			continue;
		}
		report_strip(r);
		if ((v = realloc(rp->list, (rp->nlist + 1) * sizeof(*v))) ==
		    NULL) {
			report_free(r);
			return (-ENOMEM);
		}
		rp->list = v;
		rp->list[rp->nlist++] = r;
	}
	rp->r.runs = rp->list;
	rp->r.n_runs = rp->nlist;
	return (0);
}

json_t *
reply_run_json(const struct run_report *o, const char *aborted)
{
	struct reply rp;
	json_t      *j = NULL;

	reply_init(&rp);
	reply_run(&rp, o);
	if (rp.r.report != NULL) {
		rp.r.report->aborted =
		    aborted ? reply_str(&rp, aborted) : NULL;
		j = report_to_json(rp.r.report);
	}
	reply_free(&rp);
	return (j);
}

/* Every port: its monitor's reading, the device's failed state, what it
 * is patched to and the transceiver cabled to it. */
void
reply_ports(struct reply *rp, const struct ocsd *d, const struct sw *s,
            const struct drv_port_state *st, uint32_t n, uint32_t m_eg)
{
	const struct map *m = s->have_live ? &s->live : NULL;
	Ocs__CtlReply    *r = reply_for(rp, d, s);
	uint32_t          p;

	if (r == NULL ||
	    (r->ports = reply_alloc(rp, (n + m_eg) * sizeof(void *))) == NULL)
		return;
	for (p = 1; p <= n + m_eg; p++) {
		const struct conf_trx *t;
		Ocs__PortInfo         *pi = reply_alloc(rp, sizeof(*pi));

		if (pi == NULL)
			return;
		ocs__port_info__init(pi);
		pi->port = p;
		pi->ingress = p <= n;
		pi->has_dbm = st[p].dbm != DRV_NO_READING;
		pi->dbm = st[p].dbm;
		pi->failed = st[p].failed != 0;
		if (m != NULL && m->n == n) {
			pi->peer = p <= n ? m->out[p] : map_in_of(m, p);
			pi->has_peer = pi->peer != 0;
		}
		t = p <= n ? conf_trx_by_in(d->conf, s->idx, p)
		           : conf_trx_by_out(d->conf, s->idx, p);
		if (t != NULL)
			pi->trx = reply_str(rp, t->name);
		r->ports[r->n_ports++] = pi;
	}
}

/* Zeroed memory owned by the reply; NULL when out of memory (the reply
 * then lacks that part, and the caller's message still goes out). */
static void *
reply_alloc(struct reply *rp, size_t len)
{
	void *p;

	if (rp->nblk == rp->cap) {
		size_t nc = rp->cap ? 2 * rp->cap : 32;
		void **nb = realloc(rp->blk, nc * sizeof(*nb));

		if (nb == NULL)
			return (NULL);
		rp->blk = nb;
		rp->cap = nc;
	}
	if ((p = calloc(1, len ? len : 1)) == NULL)
		return (NULL);
	rp->blk[rp->nblk++] = p;
	return (p);
}

static char *
reply_str(struct reply *rp, const char *s)
{
	char *p = reply_alloc(rp, strlen(s) + 1);

	if (p)
		memcpy(p, s, strlen(s) + 1);
	return (p);
}

void
reply_message(struct reply *rp, const char *fmt, ...)
{
	va_list ap;
	char    buf[768];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rp->r.message = reply_str(rp, buf);
}

Ocs__CtlReply *
reply_for(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	Ocs__CtlReply *r;
	size_t         i;

	if (d->nsw == 1 && d->conf->sw[0].name[0] == '\0')
		return (&rp->r);
	for (i = 0; i < rp->r.n_switches; i++)
		if (rp->r.switches[i]->sw != NULL &&
		    rp->r.switches[i]->sw->name != NULL &&
		    strcmp(rp->r.switches[i]->sw->name, s->cf.name) == 0)
			return (rp->r.switches[i]);
	if (rp->r.switches == NULL &&
	    (rp->r.switches = reply_alloc(rp, d->nsw * sizeof(void *))) ==
	        NULL)
		return (NULL);
	if (rp->r.n_switches >= d->nsw ||
	    (r = reply_alloc(rp, sizeof(*r))) == NULL)
		return (NULL);
	ocs__ctl_reply__init(r);
	/* Named at once: the reply is found by it, and says whose it is
	 * even when nothing else of the switch goes in it. */
	reply_switch(rp, r, s);
	rp->r.switches[rp->r.n_switches++] = r;
	return (r);
}

/* The switch's part of show, status and diff. */
static void
reply_switch(struct reply *rp, Ocs__CtlReply *r, const struct sw *sw)
{
	Ocs__SwitchInfo *s = reply_alloc(rp, sizeof(*s));

	if (s == NULL)
		return;
	ocs__switch_info__init(s);
	s->driver = reply_str(rp, sw->cf.driver);
	s->address =
	    reply_str(rp, sw->cf.address[0] ? sw->cf.address : "in-process");
	if (sw->cf.name[0])
		s->name = reply_str(rp, sw->cf.name);
	s->connected = sw->connected;
	if (sw->nports) {
		s->has_ports = 1;
		s->ports = sw->nports;
	}
	if (sw->nout && sw->nout != sw->nports) {
		s->has_egress = 1;
		s->egress = sw->nout;
	}
	s->has_switch_ms = 1;
	s->switch_ms = sw->cf.switch_ms;
	if (sw->sw_err[0])
		s->last_error = reply_str(rp, sw->sw_err);
	if (sw->sw_warn[0])
		s->warning = reply_str(rp, sw->sw_warn);
	s->has_last_op_ms = 1;
	s->last_op_ms = sw->last_op_ms;
	if (sw->cf.poll_ms) {
		s->has_poll_ms = 1;
		s->poll_ms = sw->cf.poll_ms;
	}
	if (s->driver && s->address)
		r->sw = s;
}

/* Patches of switch sw's m (only those not in `not`, if given) into a
 * repeated field. */
static void
patches(struct reply *rp, const struct ocsd *d, uint32_t sw,
        const struct map *m, const struct map * not, Ocs__Patch ***field,
        size_t *nfield)
{
	Ocs__Patch **v;
	uint32_t     i, k = 0;

	if (m->n == 0)
		return;
	if ((v = reply_alloc(rp, m->n * sizeof(*v))) == NULL)
		return;
	for (i = 1; i <= m->n; i++) {
		const struct conf_trx *t;
		Ocs__Patch            *p;

		if (m->out[i] == 0 || (not &&not ->out[i] == m->out[i]))
			continue;
		if ((p = reply_alloc(rp, sizeof(*p))) == NULL)
			break;
		ocs__patch__init(p);
		p->in = i;
		p->out = m->out[i];
		if ((t = conf_trx_by_in(d->conf, sw, i)) != NULL)
			p->from = reply_str(rp, t->name);
		if ((t = conf_trx_by_out(d->conf, sw, m->out[i])) != NULL)
			p->to = reply_str(rp, t->name);
		v[k++] = p;
	}
	*field = v;
	*nfield = k;
}

/* Unconnected, what the switch holds is not known: no verdict. */
static void
sync_state(Ocs__CtlReply *r, const struct sw *s)
{
	if (s->connected && s->have_live && s->have_desired) {
		r->has_in_sync = 1;
		r->in_sync = map_equal(&s->live, &s->desired);
	}
	if (s->connected && s->have_live) {
		r->has_live_age_ms = 1;
		r->live_age_ms = mono_ms() - s->live_ms;
	}
}

static void
circuits(struct reply *rp, Ocs__CtlReply *r, const struct ocsd *d,
         const struct sw *s, const struct map *m)
{
	struct xc_circuit *cv;
	size_t             i, n;

	if (m->n == 0 || d->conf->ntrx == 0)
		return;
	cv = calloc(d->conf->ntrx, sizeof(*cv));
	r->circuits = reply_alloc(rp, d->conf->ntrx * sizeof(void *));
	if (cv == NULL || r->circuits == NULL) {
		free(cv);
		return;
	}
	n = xc_circuits(d->conf, s->idx, m, cv, d->conf->ntrx);
	for (i = 0; i < n; i++) {
		Ocs__Circuit *c = reply_alloc(rp, sizeof(*c));

		if (c == NULL)
			break;
		ocs__circuit__init(c);
		c->a = reply_str(rp, cv[i].a->name);
		c->b = reply_str(rp, cv[i].b->name);
		c->complete = cv[i].complete;
		r->circuits[r->n_circuits++] = c;
	}
	free(cv);
}

static void
show_one(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	const struct map *m = s->have_live ? &s->live : &s->desired;
	Ocs__CtlReply    *r = reply_for(rp, d, s);
	size_t            i;

	if (r == NULL)
		return;
	reply_switch(rp, r, s);
	if (s->have_live)
		patches(rp, d, s->idx, &s->live, NULL, &r->live, &r->n_live);
	if (s->have_desired)
		patches(rp, d, s->idx, &s->desired, NULL, &r->desired,
		        &r->n_desired);
	sync_state(r, s);
	r->cabling = reply_alloc(rp, d->conf->ntrx * sizeof(void *));
	for (i = 0; r->cabling && i < d->conf->ntrx; i++) {
		Ocs__Transceiver *t;

		if (d->conf->trx[i].sw != s->idx)
			continue;
		if ((t = reply_alloc(rp, sizeof(*t))) == NULL)
			break;
		ocs__transceiver__init(t);
		t->name = reply_str(rp, d->conf->trx[i].name);
		t->in = d->conf->trx[i].in;
		t->out = d->conf->trx[i].out;
		r->cabling[r->n_cabling++] = t;
	}
	circuits(rp, r, d, s, m);
}

void
reply_show(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	uint32_t i;

	for (i = 0; i < d->nsw; i++)
		if (s == NULL || s == &d->sw[i])
			show_one(rp, d, &d->sw[i]);
}

void
reply_status(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	Ocs__CtlReply *r;
	uint64_t       id;
	uint32_t       phase, i;
	char           plan[256];

	for (i = 0; i < d->nsw; i++) {
		if (s != NULL && s != &d->sw[i])
			continue;
		if ((r = reply_for(rp, d, &d->sw[i])) == NULL)
			continue;
		reply_switch(rp, r, &d->sw[i]);
		sync_state(r, &d->sw[i]);
	}
	rp->r.has_uptime_s = 1;
	rp->r.uptime_s = (mono_ms() - d->start_ms) / 1000;
	if (run_where(d, &id, &phase))
		reply_message(rp, "run %llu in progress, phase %u",
		              (unsigned long long)id, phase);
	else if (run_planning(d, plan, sizeof(plan)))
		reply_message(rp, "%s", plan);
}

static void
diff_one(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	Ocs__CtlReply *r = reply_for(rp, d, s);

	if (r == NULL)
		return;
	reply_switch(rp, r, s);
	if (!s->have_live || !s->have_desired)
		return;
	patches(rp, d, s->idx, &s->live, &s->desired, &r->only_live,
	        &r->n_only_live);
	patches(rp, d, s->idx, &s->desired, &s->live, &r->only_desired,
	        &r->n_only_desired);
	r->has_in_sync = 1;
	r->in_sync = map_equal(&s->live, &s->desired);
}

void
reply_diff(struct reply *rp, const struct ocsd *d, const struct sw *s)
{
	uint32_t i;

	for (i = 0; i < d->nsw; i++)
		if (s == NULL || s == &d->sw[i])
			diff_one(rp, d, &d->sw[i]);
}

/* Each agent's setup, per-phase data, verification and barrier wait. */
static void
timeline(struct reply *rp, const struct run_report *o, Ocs__RunReport *rr)
{
	uint32_t i, k;

	rr->timeline = reply_alloc(rp, (o->nodes + 1) * sizeof(void *));
	for (i = 0; rr->timeline && i < o->nodes; i++) {
		const struct run_node_time *t = &o->nt[i];
		Ocs__AgentTimeline         *at = reply_alloc(rp, sizeof(*at));

		if (at == NULL)
			return;
		ocs__agent_timeline__init(at);
		if ((at->phases = reply_alloc(rp, (o->nph + 1) *
		                                      sizeof(void *))) == NULL)
			return;
		at->host = reply_str(rp, o->hosts[i]);
		at->node = i;
		at->has_setup_s = t->setup_ns != 0;
		at->setup_s = t->setup_ns / 1e9;
		at->has_teardown_s = t->teardown_ns != 0;
		at->teardown_s = t->teardown_ns / 1e9;
		for (k = 0; at->phases && k < o->nph; k++) {
			Ocs__PhaseTime *pt = reply_alloc(rp, sizeof(*pt));

			if (pt == NULL)
				return;
			ocs__phase_time__init(pt);
			pt->phase = k;
			pt->data_s = t->ph[k].data_ns / 1e9;
			pt->verify_s = t->ph[k].verify_ns / 1e9;
			pt->wait_s = t->ph[k].wait_ns / 1e9;
			at->phases[at->n_phases++] = pt;
		}
		rr->timeline[rr->n_timeline++] = at;
	}
}

/* Planes apart: each plane of a phase that starts with a barrier. */
static void
planes(struct reply *rp, const struct run_report *o,
       const struct run_phase_report *q, Ocs__PhaseReport *p)
{
	uint32_t i;

	if (!q->apart || o->plane_name == NULL ||
	    (p->planes = reply_alloc(rp, (o->nplanes + 1) * sizeof(void *))) ==
	        NULL)
		return;
	for (i = 0; i < o->nplanes && i < 8; i++) {
		Ocs__PlaneTime *t = reply_alloc(rp, sizeof(*t));

		if (t == NULL)
			return;
		ocs__plane_time__init(t);
		t->name = reply_str(rp, o->plane_name[i]);
		t->reconfigured = (q->pmask >> i) & 1;
		t->has_reconf_s = t->reconfigured;
		t->reconf_s = q->plane_reconf_s[i];
		t->has_release_s = 1;
		t->release_s = q->plane_release_s[i];
		p->planes[p->n_planes++] = t;
	}
}

void
reply_run(struct reply *rp, const struct run_report *o)
{
	Ocs__RunReport *rr = reply_alloc(rp, sizeof(*rr));
	uint32_t        k;

	if (rr == NULL)
		return;
	ocs__run_report__init(rr);
	rr->run_id = o->id;
	rr->algo = reply_str(rp, o->algo);
	rr->nodes = o->nodes;
	rr->bytes = o->bytes;
	rr->delta_s = o->delta_s;
	rr->has_switch_s = 1;
	rr->switch_s = o->switch_s;
	rr->has_link_up_s = 1;
	rr->link_up_s = o->link_up_s;
	rr->has_gpus_per_server = rr->has_scaleup_bps = o->gpus > 1;
	rr->gpus_per_server = o->gpus;
	rr->scaleup_bps = o->su_bps;
	rr->bandwidth_bps = o->bandwidth_bps;
	rr->alpha_s = o->alpha_s;
	rr->alpha_h = o->alpha_h;
	rr->reconfigure_before =
	    reply_alloc(rp, (o->nbefore + 1) * sizeof(uint32_t));
	for (k = 0; rr->reconfigure_before && k < o->nbefore; k++)
		rr->reconfigure_before[rr->n_reconfigure_before++] =
		    o->before[k];
	rr->phases = reply_alloc(rp, (o->nph + 1) * sizeof(void *));
	for (k = 0; rr->phases && k < o->nph; k++) {
		const struct run_phase_report *q = &o->ph[k];
		Ocs__PhaseReport              *p = reply_alloc(rp, sizeof(*p));

		if (p == NULL)
			break;
		ocs__phase_report__init(p);
		p->phase = k;
		p->reconfigured = q->reconfigured;
		p->reconf_s = q->reconf_s;
		p->data_s = q->data_s;
		p->barrier_s = q->barrier_s;
		p->bytes = q->bytes;
		p->predicted_s = q->predicted_s;
		p->has_control_s = q->has_control;
		p->control_s = q->control_s;
		/* Measured only where the switch moved and links were
		 * watched. */
		p->has_link_s = q->reconfigured;
		p->link_s = q->link_s;
		p->has_planned_bytes = p->has_local_bytes = o->gpus > 1;
		p->planned_bytes = q->planned_bytes;
		p->local_bytes = q->local_bytes;
		planes(rp, o, q, p);
		rr->phases[rr->n_phases++] = p;
	}
	if (o->planes != NULL) {
		rr->planes = reply_str(rp, o->planes);
		rr->has_predicted_together_s = rr->has_predicted_apart_s = 1;
		rr->predicted_together_s = o->pred_together_s;
		rr->predicted_apart_s = o->pred_apart_s;
	}
	rr->total_s = o->total_s;
	rr->predicted_s = o->predicted_s;
	rr->blocks_verified = o->verified;
	rr->errors = o->errors;
	rr->hosts = reply_alloc(rp, (o->nodes + 1) * sizeof(char *));
	for (k = 0; rr->hosts && k < o->nodes; k++)
		rr->hosts[rr->n_hosts++] = reply_str(rp, o->hosts[k]);
	rr->matrix = o->matrix ? reply_str(rp, o->matrix) : NULL;
	rr->topology = o->topology ? reply_str(rp, o->topology) : NULL;
	rr->has_joined = o->joined != 0;
	rr->joined = o->joined;
	rr->left_out = o->left_out ? reply_str(rp, o->left_out) : NULL;
	rr->has_started_unix_ms = o->started_unix_ms != 0;
	rr->started_unix_ms = o->started_unix_ms;
	rr->has_wall_s = 1;
	rr->wall_s = o->wall_s;
	if (o->nt != NULL)
		timeline(rp, o, rr);
	rp->r.report = rr;
}

void
reply_capture(struct reply *rp, const struct drv_capture *c)
{
	Ocs__CaptureReport *r = reply_alloc(rp, sizeof(*r));
	uint32_t            i;

	if (r == NULL || c == NULL)
		return;
	ocs__capture_report__init(r);
	r->frames = c->frames;
	r->unlit = c->unlit;
	r->has_first_unlit_phase = r->has_first_unlit_node = c->has_first;
	r->first_unlit_phase = c->first_phase;
	r->first_unlit_node = c->first_node;
	r->has_drops = c->has_drops;
	r->drops = c->drops;
	r->gaps = reply_alloc(rp, (c->ngaps + 1) * sizeof(*r->gaps));
	for (i = 0; r->gaps && i < c->ngaps; i++) {
		Ocs__PhaseGap *g = reply_alloc(rp, sizeof(*g));

		if (g == NULL)
			break;
		ocs__phase_gap__init(g);
		g->phase = c->gap[i].phase;
		g->seconds = c->gap[i].ms / 1e3;
		r->gaps[r->n_gaps++] = g;
	}
	rp->r.capture = r;
}

/* Each transceiver's link the agent said, with ocsd's word for it. */
static void
links_info(struct reply *rp, const struct agent_info *a, Ocs__AgentInfo *ai)
{
	uint32_t t;

	ai->links = reply_alloc(rp, AGENT_MAX_TRX * sizeof(void *));
	for (t = 0; ai->links && t < a->ntrx && t < AGENT_MAX_TRX; t++) {
		const struct agent_link *l = &a->links[t];
		Ocs__TrxLink            *x;

		if (l->state == 0 || (x = reply_alloc(rp, sizeof(*x))) == NULL)
			continue;
		ocs__trx_link__init(x);
		x->trx = t;
		x->state = (Ocs__TrxLink__State)l->state;
		x->has_mtu = l->mtu != 0;
		x->mtu = l->mtu;
		x->has_carrier_ups = 1;
		x->carrier_ups = l->ups;
		if (l->iface[0])
			x->iface = reply_str(rp, l->iface);
		x->shown = reply_str(rp, a->shown[t]);
		ai->links[ai->n_links++] = x;
	}
}

void
reply_agents(struct reply *rp, const struct agent_info *in, uint32_t n)
{
	uint32_t i;

	if (n == 0 ||
	    (rp->r.agents = reply_alloc(rp, n * sizeof(void *))) == NULL)
		return;
	for (i = 0; i < n; i++) {
		const struct agent_info *a = &in[i];
		Ocs__AgentInfo          *ai = reply_alloc(rp, sizeof(*ai));

		if (ai == NULL)
			break;
		ocs__agent_info__init(ai);
		ai->agent_id = a->id;
		ai->host = reply_str(rp, a->host);
		ai->transceivers = a->ntrx;
		ai->state = reply_str(rp, a->state);
		ai->has_seen_ms_ago = 1;
		ai->seen_ms_ago = a->seen_ms_ago;
		ai->has_fibres_up = 1;
		ai->fibres_up = a->fibres_up;
		ai->has_mem_limit = a->mem_limit != 0;
		ai->mem_limit = a->mem_limit;
		if (a->transport[0])
			ai->transport = reply_str(rp, a->transport);
		if (a->ifaces[0])
			ai->ifaces = reply_str(rp, a->ifaces);
		if (a->down[0])
			ai->down = reply_str(rp, a->down);
		ai->has_link = 1;
		ai->link = a->link;
		if (a->peer[0])
			ai->link_peer = reply_str(rp, a->peer);
		ai->has_readys = 1;
		ai->readys = a->readys;
		ai->has_attach_refused = a->attach_refused != 0;
		ai->attach_refused = a->attach_refused;
		links_info(rp, a, ai);
		rp->r.agents[rp->r.n_agents++] = ai;
	}
}

void
reply_probes(struct reply *rp, const struct probe_info *in, uint32_t n)
{
	uint32_t i, k;

	if (n == 0 ||
	    (rp->r.probes = reply_alloc(rp, n * sizeof(void *))) == NULL)
		return;
	for (i = 0; i < n; i++) {
		const struct probe_info *p = &in[i];
		Ocs__ProbeReport        *o = reply_alloc(rp, sizeof(*o));

		if (o == NULL)
			break;
		ocs__probe_report__init(o);
		if (p->nheard && (o->heard = reply_alloc(
		                      rp, p->nheard * sizeof(char *))) == NULL)
			break;
		o->trx = reply_str(rp, p->trx);
		o->sent = p->sent;
		o->has_unsent = p->unsent;
		o->unsent = p->unsent;
		for (k = 0; k < p->nheard; k++)
			o->heard[o->n_heard++] = reply_str(rp, p->heard[k]);
		if (p->why[0])
			o->why = reply_str(rp, p->why);
		rp->r.probes[rp->r.n_probes++] = o;
	}
}

void
reply_events(struct reply *rp, const struct ev_rec *ev, size_t n,
             uint64_t last, int lost)
{
	size_t i;

	rp->r.has_event_seq = 1;
	rp->r.event_seq = last;
	if (lost) {
		rp->r.has_events_lost = 1;
		rp->r.events_lost = 1;
	}
	if (n == 0 ||
	    (rp->r.events = reply_alloc(rp, n * sizeof(void *))) == NULL)
		return;
	for (i = 0; i < n; i++) {
		Ocs__Event *e = reply_alloc(rp, sizeof(*e));

		if (e == NULL)
			return;
		ocs__event__init(e);
		e->seq = ev[i].seq;
		e->unix_ms = ev[i].unix_ms;
		e->kind = reply_str(rp, ev[i].kind);
		e->what = reply_str(rp, ev[i].what);
		if (e->kind == NULL || e->what == NULL)
			return;
		if (ev[i].host[0])
			e->host = reply_str(rp, ev[i].host);
		e->has_run_id = ev[i].has_run;
		e->run_id = ev[i].run_id;
		e->has_phase = ev[i].has_phase;
		e->phase = ev[i].phase;
		if (ev[i].text[0])
			e->text = reply_str(rp, ev[i].text);
		rp->r.events[rp->r.n_events++] = e;
	}
}
