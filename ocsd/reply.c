/* SPDX-License-Identifier: BSD-2-Clause */
/* Building CtlReply messages from ocsd's state. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/ocsd.h"
#include "ocsd/reply.h"
#include "ocsd/run.h"
#include "ocsd/xc.h"
#include "proto/base/mono.h"

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
	reply_init(rp);
}

/* Zeroed memory owned by the reply; NULL when out of memory (the reply
 * then lacks that part, and the caller's message still goes out). */
void *
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

char *
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

/* The switch's part of show, status and diff. */
static void
reply_switch(struct reply *rp, const struct ocsd *d)
{
	Ocs__SwitchInfo *s = reply_alloc(rp, sizeof(*s));

	if (s == NULL)
		return;
	ocs__switch_info__init(s);
	s->driver = reply_str(rp, d->conf->driver);
	s->address = reply_str(rp, d->conf->address[0] ? d->conf->address
	                                               : "in-process");
	s->connected = d->connected;
	if (d->nports) {
		s->has_ports = 1;
		s->ports = d->nports;
	}
	s->has_switch_ms = 1;
	s->switch_ms = d->conf->switch_ms;
	if (d->sw_err[0])
		s->last_error = reply_str(rp, d->sw_err);
	if (d->sw_warn[0])
		s->warning = reply_str(rp, d->sw_warn);
	s->has_last_op_ms = 1;
	s->last_op_ms = d->last_op_ms;
	if (s->driver && s->address)
		rp->r.sw = s;
}

/* Patches of m (only those not in `not`, if given) into a repeated field. */
static void
patches(struct reply *rp, const struct ocsd *d, const struct map *m,
        const struct map * not, Ocs__Patch ***field, size_t *nfield)
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
		if ((t = conf_trx_by_in(d->conf, i)) != NULL)
			p->from = reply_str(rp, t->name);
		if ((t = conf_trx_by_out(d->conf, m->out[i])) != NULL)
			p->to = reply_str(rp, t->name);
		v[k++] = p;
	}
	*field = v;
	*nfield = k;
}

void
reply_show(struct reply *rp, const struct ocsd *d)
{
	const struct map  *m = d->have_live ? &d->live : &d->desired;
	struct xc_circuit *cv;
	size_t             i, n;

	reply_switch(rp, d);
	if (d->have_live)
		patches(rp, d, &d->live, NULL, &rp->r.live, &rp->r.n_live);
	if (d->have_desired)
		patches(rp, d, &d->desired, NULL, &rp->r.desired,
		        &rp->r.n_desired);
	/* Unconnected, what the switch holds is not known: no verdict. */
	if (d->connected && d->have_live && d->have_desired) {
		rp->r.has_in_sync = 1;
		rp->r.in_sync = map_equal(&d->live, &d->desired);
	}
	if (d->connected && d->have_live) {
		rp->r.has_live_age_ms = 1;
		rp->r.live_age_ms = mono_ms() - d->live_ms;
	}
	rp->r.cabling = reply_alloc(rp, d->conf->ntrx * sizeof(void *));
	for (i = 0; rp->r.cabling && i < d->conf->ntrx; i++) {
		Ocs__Transceiver *t = reply_alloc(rp, sizeof(*t));

		if (t == NULL)
			break;
		ocs__transceiver__init(t);
		t->name = reply_str(rp, d->conf->trx[i].name);
		t->in = d->conf->trx[i].in;
		t->out = d->conf->trx[i].out;
		rp->r.cabling[rp->r.n_cabling++] = t;
	}
	if (m->n == 0 || d->conf->ntrx == 0)
		return;
	cv = calloc(d->conf->ntrx, sizeof(*cv));
	rp->r.circuits = reply_alloc(rp, d->conf->ntrx * sizeof(void *));
	if (cv == NULL || rp->r.circuits == NULL) {
		free(cv);
		return;
	}
	n = xc_circuits(d->conf, m, cv, d->conf->ntrx);
	for (i = 0; i < n; i++) {
		Ocs__Circuit *c = reply_alloc(rp, sizeof(*c));

		if (c == NULL)
			break;
		ocs__circuit__init(c);
		c->a = reply_str(rp, cv[i].a->name);
		c->b = reply_str(rp, cv[i].b->name);
		c->complete = cv[i].complete;
		rp->r.circuits[rp->r.n_circuits++] = c;
	}
	free(cv);
}

void
reply_status(struct reply *rp, const struct ocsd *d)
{
	uint64_t id;
	uint32_t phase;

	reply_switch(rp, d);
	rp->r.has_uptime_s = 1;
	rp->r.uptime_s = (mono_ms() - d->start_ms) / 1000;
	if (run_where(d, &id, &phase))
		reply_message(rp, "run %llu in progress, phase %u",
		              (unsigned long long)id, phase);
	if (d->connected && d->have_live && d->have_desired) {
		rp->r.has_in_sync = 1;
		rp->r.in_sync = map_equal(&d->live, &d->desired);
	}
	if (d->connected && d->have_live) {
		rp->r.has_live_age_ms = 1;
		rp->r.live_age_ms = mono_ms() - d->live_ms;
	}
}

void
reply_diff(struct reply *rp, const struct ocsd *d)
{
	reply_switch(rp, d);
	if (!d->have_live || !d->have_desired)
		return;
	patches(rp, d, &d->live, &d->desired, &rp->r.only_live,
	        &rp->r.n_only_live);
	patches(rp, d, &d->desired, &d->live, &rp->r.only_desired,
	        &rp->r.n_only_desired);
	rp->r.has_in_sync = 1;
	rp->r.in_sync = map_equal(&d->live, &d->desired);
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
		rr->phases[rr->n_phases++] = p;
	}
	rr->total_s = o->total_s;
	rr->predicted_s = o->predicted_s;
	rr->blocks_verified = o->verified;
	rr->errors = o->errors;
	rr->hosts = reply_alloc(rp, (o->nodes + 1) * sizeof(char *));
	for (k = 0; rr->hosts && k < o->nodes; k++)
		rr->hosts[rr->n_hosts++] = reply_str(rp, o->hosts[k]);
	rp->r.report = rr;
}
