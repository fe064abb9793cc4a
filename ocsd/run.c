/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Collective runs: plan with the collectives library, hand each agent its
 * part, and drive the phases in lockstep with the switch.
 *
 * Barriers only where needed.  A phase that sets circuits (and phase 0)
 * is a barrier: every agent must have finished everything before it (its
 * Ready arrives only then, and a node finishes a phase only once it has
 * received all it should, so no byte is in flight), then the switch is
 * reconfigured through the worker, COMPLD and read-back checked, and only
 * then are the held Readys answered (the release).  Phases on the same
 * circuits are not gathered: agents go on as their data allows, because a
 * fibre is FIFO and frames of a later phase simply wait at the receiver.
 * The last barrier (phase = #phases) ends the run.
 *
 * Failures (an agent lost or reporting an error, a barrier past its
 * deadline, a switch error, the operator) end the run for every agent:
 * the reason is published on the event socket for agents in a phase and
 * answers every held request; the switch stays as it was last set, which
 * the desired map records.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectives/a2a.h"
#include "ocsd/log.h"
#include "ocsd/run.h"

#define RUN_MAX_BLOCKS ((uint64_t)1 << 24)
#define RUN_MAX_PHASES 64

struct run {
	uint64_t            id;
	char                algo[16];
	uint32_t            n, nph, chunk, deadline_ms;
	uint64_t            bytes;
	struct a2a          a;
	struct sched        s;
	struct sched_nplan *plans;
	struct cost_params  cp;
	double              delta_k[RUN_MAX_PHASES + 1];
	uint8_t             before[RUN_MAX_PHASES + 1];
	struct cost_phase   pc[RUN_MAX_PHASES];
	double              predicted;
	struct agent      **node;
	char (*host)[64];
	uint32_t bar[RUN_MAX_PHASES + 1], nbar, bi, nready;
	int      reconfiguring;
	uint64_t due_ms; /* the current barrier, at the latest */

	uint64_t t_first, t_start, t_end; /* us */
	double   reconf_ms[RUN_MAX_PHASES], barrier_ms[RUN_MAX_PHASES];
	double   control_ms[RUN_MAX_PHASES];
	uint64_t t_release[RUN_MAX_PHASES];
	uint64_t data_ns[RUN_MAX_PHASES], pbytes[RUN_MAX_PHASES];
	uint64_t verified, errors;

	struct job *ctl; /* the operator waiting for the report */
	nng_aio    *ctl_aio;
};

static void
run_free(struct run *r)
{
	uint32_t i;

	if (r == NULL)
		return;
	for (i = 0; r->node && i < r->n; i++)
		if (r->node[i])
			r->node[i]->node = -1;
	sched_plans_free(r->plans, r->s.n);
	sched_free(&r->s);
	a2a_fini(&r->a);
	free(r->node);
	free(r->host);
	free(r);
}

static void
msg_for(Ocs__Msg *m, const struct run *r, uint32_t phase)
{
	ocs__msg__init(m);
	m->has_run_id = 1;
	m->run_id = r->id;
	m->has_phase = 1;
	m->phase = phase;
}

/* ---- the report ---------------------------------------------------------- */

static void
report(struct run *r, struct reply *rp)
{
	Ocs__RunReport *rr = reply_alloc(rp, sizeof(*rr));
	uint32_t        k, nrb = 0;

	if (rr == NULL)
		return;
	ocs__run_report__init(rr);
	rr->run_id = r->id;
	rr->algo = reply_str(rp, r->algo);
	rr->nodes = r->n;
	rr->bytes = r->bytes;
	rr->delta_s = r->cp.delta;
	rr->bandwidth_bps = 8.0 / r->cp.beta;
	rr->alpha_s = r->cp.alpha_s;
	rr->alpha_h = r->cp.alpha_h;
	rr->reconfigure_before = reply_alloc(rp, r->nph * sizeof(uint32_t));
	for (k = 1; rr->reconfigure_before && k < r->nph; k++)
		if (r->before[k])
			rr->reconfigure_before[nrb++] = k;
	rr->n_reconfigure_before = nrb;
	rr->phases = reply_alloc(rp, r->nph * sizeof(void *));
	for (k = 0; rr->phases && k < r->nph; k++) {
		Ocs__PhaseReport *p = reply_alloc(rp, sizeof(*p));

		if (p == NULL)
			break;
		ocs__phase_report__init(p);
		p->phase = k;
		p->reconfigured = k == 0 || r->before[k];
		p->reconf_s = r->reconf_ms[k] / 1e3;
		p->data_s = r->data_ns[k] / 1e9;
		p->barrier_s = r->barrier_ms[k] / 1e3;
		p->bytes = r->pbytes[k];
		p->predicted_s = r->pc[k].total;
		if (p->reconfigured) {
			p->has_control_s = 1;
			p->control_s = r->control_ms[k] / 1e3;
		}
		rr->phases[rr->n_phases++] = p;
	}
	rr->total_s =
	    r->t_end > r->t_start ? (r->t_end - r->t_start) / 1e6 : 0;
	rr->predicted_s = r->predicted;
	rr->blocks_verified = r->verified;
	rr->errors = r->errors;
	rr->hosts = reply_alloc(rp, r->n * sizeof(char *));
	for (k = 0; rr->hosts && k < r->n; k++)
		rr->hosts[rr->n_hosts++] = reply_str(rp, r->host[k]);
	rp->r.report = rr;
}

/* The run is over: answer the operator, forget the run. */
static void
conclude(struct ocsd *d, struct run *r, int rv, const char *why)
{
	struct job *j = r->ctl;

	if (j) {
		j->rv = rv;
		if (why)
			snprintf(j->err, sizeof(j->err), "%s", why);
		report(r, &j->rep);
		nng_aio_finish(r->ctl_aio, 0);
	}
	d->run = NULL;
	run_free(r);
}

void
run_abort(struct ocsd *d, const char *fmt, ...)
{
	struct run *r = d->run;
	Ocs__Msg    m;
	Ocs__Abort  ab;
	va_list     ap;
	char        why[600];
	uint32_t    i;

	if (r == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_warnx("run %llu aborted: %s", (unsigned long long)r->id, why);
	snprintf(d->last_abort, sizeof(d->last_abort),
	         "run %llu aborted: %.450s", (unsigned long long)r->id, why);
	msg_for(&m, r, r->bar[r->bi]);
	ocs__abort__init(&ab);
	ab.reason = why;
	m.body_case = OCS__MSG__BODY_ABORT;
	m.abort = &ab;
	/* Agents in a phase hear it on the event socket; waiting ones as
	 * the answer to what they wait on. */
	agents_publish(d, &m);
	for (i = 0; i < r->n; i++)
		if (r->node[i] && r->node[i]->held)
			agents_answer(d, r->node[i], &m);
	conclude(d, r, -OCSD_EABORT, d->last_abort);
}

/* ---- plans ---------------------------------------------------------------- */

static void
send_plan(struct ocsd *d, struct run *r, struct agent *a)
{
	const struct sched_nplan *np = &r->plans[a->node];
	const struct sched       *s = &r->s;
	Ocs__Msg                  m;
	Ocs__Plan                 p;
	Ocs__PhasePlan           *pp, **ppp;
	size_t                    ns = 0, nr = 0, nv = 0, k, i;
	Ocs__Send                *sd, **sdp;
	Ocs__Relay               *rl, **rlp;
	Ocs__Recv                *rv, **rvp;

	for (k = 0; k < r->nph; k++) {
		ns += np->ph[k].nsend;
		nr += np->ph[k].nrelay;
		nv += np->ph[k].nrecv;
	}
	pp = calloc(r->nph, sizeof(*pp));
	ppp = calloc(r->nph, sizeof(*ppp));
	sd = calloc(ns + 1, sizeof(*sd));
	sdp = calloc(ns + 1, sizeof(*sdp));
	rl = calloc(nr + 1, sizeof(*rl));
	rlp = calloc(nr + 1, sizeof(*rlp));
	rv = calloc(nv + 1, sizeof(*rv));
	rvp = calloc(nv + 1, sizeof(*rvp));
	if (!pp || !ppp || !sd || !sdp || !rl || !rlp || !rv || !rvp) {
		run_abort(d, "out of memory building the plan of %s", a->host);
		goto out;
	}
	ns = nr = nv = 0;
	for (k = 0; k < r->nph; k++) {
		const struct sched_nphase *ph = &np->ph[k];

		ocs__phase_plan__init(&pp[k]);
		pp[k].barrier = ph->barrier;
		pp[k].sends = &sdp[ns];
		pp[k].relays = &rlp[nr];
		pp[k].recvs = &rvp[nv];
		for (i = 0; i < ph->nsend; i++, ns++) {
			const struct sched_xfer *x = &s->xf[ph->send[i]];

			ocs__send__init(&sd[ns]);
			sd[ns].dst = x->dst;
			sd[ns].port = s->seg[x->seg_off].port;
			sd[ns].hops = sched_xfer_hops(s, x);
			sd[ns].n_blocks = x->nblk;
			sd[ns].blocks = s->blk + x->blk_off;
			sdp[ns] = &sd[ns];
		}
		for (i = 0; i < ph->nrelay; i++, nr++) {
			const struct sched_xfer *x = &s->xf[ph->relay[i].xf];

			ocs__relay__init(&rl[nr]);
			rl[nr].src = x->src;
			rl[nr].dst = x->dst;
			rl[nr].in_port = ph->relay[i].in_port;
			rl[nr].out_port = ph->relay[i].out_port;
			rl[nr].blocks = x->nblk;
			rl[nr].bytes = x->bytes;
			rlp[nr] = &rl[nr];
		}
		for (i = 0; i < ph->nrecv; i++, nv++) {
			const struct sched_xfer *x = &s->xf[ph->recv[i].xf];

			ocs__recv__init(&rv[nv]);
			rv[nv].src = x->src;
			rv[nv].port = ph->recv[i].port;
			rv[nv].n_blocks = x->nblk;
			rv[nv].blocks = s->blk + x->blk_off;
			rvp[nv] = &rv[nv];
		}
		pp[k].n_sends = ph->nsend;
		pp[k].n_relays = ph->nrelay;
		pp[k].n_recvs = ph->nrecv;
		ppp[k] = &pp[k];
	}
	ocs__plan__init(&p);
	p.agent_id = a->id;
	p.node = (uint32_t)a->node;
	p.nodes = r->n;
	p.algo = r->algo;
	p.bytes = r->bytes;
	p.parts = s->parts;
	p.chunk = r->chunk;
	p.deadline_ms = r->deadline_ms;
	p.max_blocks = np->max_blocks;
	p.n_phases = r->nph;
	p.phases = ppp;
	msg_for(&m, r, 0);
	m.body_case = OCS__MSG__BODY_PLAN;
	m.plan = &p;
	agents_answer(d, a, &m);
	a->plan_sent = 1;
out:
	free(pp);
	free(ppp);
	free(sd);
	free(sdp);
	free(rl);
	free(rlp);
	free(rv);
	free(rvp);
}

void
run_on_poll(struct ocsd *d, struct agent *a)
{
	struct run *r = d->run;

	if (r && a->node >= 0 && !a->plan_sent && a->held && !a->held_ready)
		send_plan(d, r, a);
}

/* ---- barriers ------------------------------------------------------------- */

static void
arm_timer(struct run *r)
{
	r->due_ms = ocsd_now_ms() + r->deadline_ms;
}

static void
release(struct ocsd *d, struct run *r)
{
	uint32_t     k = r->bar[r->bi], i;
	uint64_t     now = ocsd_now_us();
	Ocs__Msg     m;
	Ocs__Release rel;

	r->barrier_ms[k] = (now - r->t_first) / 1e3 - r->reconf_ms[k];
	if (r->barrier_ms[k] < 0)
		r->barrier_ms[k] = 0;
	if (k == 0)
		r->t_start = now;
	r->t_release[k] = now;
	msg_for(&m, r, k);
	ocs__release__init(&rel);
	m.body_case = OCS__MSG__BODY_RELEASE;
	m.release = &rel;
	for (i = 0; i < r->n; i++) {
		r->node[i]->ready = AG_NONE;
		agents_answer(d, r->node[i], &m);
	}
	log_debug("run %llu: phase %u released", (unsigned long long)r->id, k);
	r->bi++;
	r->nready = 0;
	arm_timer(r);
}

static void
finish(struct ocsd *d, struct run *r)
{
	Ocs__Msg      m;
	Ocs__Finished f;
	uint32_t      i;

	r->t_end = ocsd_now_us();
	msg_for(&m, r, r->nph);
	ocs__finished__init(&f);
	m.body_case = OCS__MSG__BODY_FINISHED;
	m.finished = &f;
	for (i = 0; i < r->n; i++)
		agents_answer(d, r->node[i], &m);
	log_info("run %llu: %s on %u nodes done in %.3f s (model %.3f s), "
	         "%llu blocks verified, %llu errors",
	         (unsigned long long)r->id, r->algo, r->n,
	         (r->t_end - r->t_start) / 1e6, r->predicted,
	         (unsigned long long)r->verified,
	         (unsigned long long)r->errors);
	conclude(d, r, 0, NULL);
}

/* The switch map of phase k's circuits; other patches stay as they are
 * unless they touch a port of the run. */
static int
phase_map(struct ocsd *d, struct run *r, uint32_t k, struct map *t)
{
	const struct sched_cfg *c = &r->s.cfg[r->s.ph[k].cfg];
	uint8_t                *mine;
	uint32_t                i, p;
	char                    name[80];
	int                     rv;

	if ((rv = map_copy(t, &d->live)) != 0)
		return (rv);
	if ((mine = calloc(2 * t->n + 1, 1)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < r->n; i++)
		for (p = 0; p < 2; p++) {
			const struct conf_trx *x;

			snprintf(name, sizeof(name), "%s.%u", r->host[i], p);
			if ((x = conf_trx_find(d->conf, name)) == NULL) {
				free(mine);
				return (-ENOENT);
			}
			mine[x->in] = mine[x->out] = 1;
		}
	for (i = 1; i <= t->n; i++)
		if (mine[i] || mine[t->out[i]])
			t->out[i] = 0;
	free(mine);
	for (i = 0; i < c->ncirc; i++) {
		const struct sched_circuit *e = &r->s.circ[c->circ_off + i];
		const struct conf_trx      *a, *b;

		snprintf(name, sizeof(name), "%s.%u", r->host[e->a], e->pa);
		a = conf_trx_find(d->conf, name);
		snprintf(name, sizeof(name), "%s.%u", r->host[e->b], e->pb);
		b = conf_trx_find(d->conf, name);
		if (a == NULL || b == NULL)
			return (-ENOENT);
		t->out[a->in] = b->out;
		t->out[b->in] = a->out;
	}
	return (0);
}

static void
all_ready(struct ocsd *d, struct run *r)
{
	uint32_t k = r->bar[r->bi];
	int      rv;

	if (k == r->nph) {
		finish(d, r);
		return;
	}
	if (k > 0 && !r->before[k]) {
		release(d, r);
		return;
	}
	/* Phase 0's circuits, or a reconfiguration: through the worker. */
	if (!d->have_live) {
		run_abort(d, "switch state unknown (not read back yet)");
		return;
	}
	map_free(&d->rjob.target);
	if ((rv = phase_map(d, r, k, &d->rjob.target)) != 0) {
		run_abort(d, "cannot build the switch map of phase %u: %s", k,
		          ocsd_strerror(rv));
		return;
	}
	r->reconfiguring = 1;
	d->reconf_busy = 1;
	d->rjob.err[0] = '\0';
	d->rjob.rv = 0;
	d->rjob.took_ms = 0;
	sw_submit_reconf(d, &d->rjob, d->run_reconf);
}

static void
reconf_cb(void *arg)
{
	struct ocsd *d = arg;
	struct run  *r;
	uint32_t     k;

	nng_mtx_lock(d->mtx);
	d->reconf_busy = 0;
	r = d->run;
	if (r == NULL || !r->reconfiguring) {
		nng_mtx_unlock(d->mtx);
		return;
	}
	r->reconfiguring = 0;
	k = r->bar[r->bi];
	if (nng_aio_result(d->run_reconf) != 0)
		run_abort(d, "reconfiguration before phase %u cancelled", k);
	else if (d->rjob.rv != 0)
		run_abort(d, "reconfiguration before phase %u: %s", k,
		          d->rjob.err);
	else {
		r->reconf_ms[k] = d->rjob.took_ms;
		release(d, r);
	}
	nng_mtx_unlock(d->mtx);
}

void
run_tick(struct ocsd *d)
{
	struct run *r = d->run;
	char        late[400];
	size_t      off = 0;
	uint32_t    i;

	if (r == NULL || r->reconfiguring || ocsd_now_ms() < r->due_ms)
		return;
	late[0] = '\0';
	for (i = 0; i < r->n && off < sizeof(late) - 40; i++)
		if (r->node[i] && r->node[i]->ready != r->bi)
			off += (size_t)snprintf(late + off, sizeof(late) - off,
			                        "%s%s", off ? ", " : "",
			                        r->node[i]->host);
	run_abort(d, "%s not ready for phase %u within %.1f s", late,
	          r->bar[r->bi], r->deadline_ms / 1e3);
}

int
run_on_ready(struct ocsd *d, struct agent *a, const Ocs__Msg *m, char *err,
             size_t errlen)
{
	struct run *r = d->run;
	uint32_t    k, i, first;

	if (!m->has_run_id || r == NULL || m->run_id != r->id) {
		if (m->has_run_id && m->run_id == d->last_run_id &&
		    d->last_abort[0])
			snprintf(err, errlen, "%s", d->last_abort);
		else
			snprintf(err, errlen,
			         "ready for run %llu, which is "
			         "not running",
			         (unsigned long long)m->run_id);
		return (-OCSD_EABORT);
	}
	if (a->node < 0) {
		snprintf(err, errlen, "not in run %llu",
		         (unsigned long long)r->id);
		return (-OCSD_EREQUEST);
	}
	k = r->bar[r->bi];
	if (!m->has_phase || m->phase != k || r->reconfiguring) {
		snprintf(err, errlen, "ready for phase %u, expected %u",
		         m->has_phase ? m->phase : 0, k);
		return (-MSG_EFIELD);
	}
	if (a->ready == r->bi) {
		snprintf(err, errlen, "duplicate ready for phase %u", k);
		return (-MSG_EFIELD);
	}
	first = r->bi ? r->bar[r->bi - 1] : 0;
	for (i = 0; i < m->ready->n_done; i++) {
		const Ocs__PhaseDone *pd = m->ready->done[i];

		if (pd->phase < first || pd->phase >= k) {
			snprintf(err, errlen,
			         "report for phase %u, expected %u..%u",
			         pd->phase, first, k ? k - 1 : 0);
			return (-MSG_EFIELD);
		}
	}
	for (i = 0; i < m->ready->n_done; i++) {
		const Ocs__PhaseDone *pd = m->ready->done[i];

		if (pd->data_ns > r->data_ns[pd->phase])
			r->data_ns[pd->phase] = pd->data_ns;
		r->pbytes[pd->phase] += pd->bytes_recv;
		r->verified += pd->blocks_verified;
		r->errors += pd->errors;
	}
	a->ready = r->bi;
	if (r->nready++ == 0)
		r->t_first = ocsd_now_us();
	if (r->nready == r->n) {
		/* The stretch since the last release: what was not data
		 * (the slowest agent's, phase by phase) was control. */
		if (r->bi > 0) {
			uint32_t p0 = r->bar[r->bi - 1];
			double span = (ocsd_now_us() - r->t_release[p0]) / 1e3,
			       data = 0;

			for (i = p0; i < k; i++)
				data += r->data_ns[i] / 1e6;
			r->control_ms[p0] = span > data ? span - data : 0;
		}
		all_ready(d, r);
	}
	return (0);
}

void
run_on_agent_abort(struct ocsd *d, struct agent *a, const Ocs__Msg *m)
{
	struct run *r = d->run;

	if (r && a->node >= 0 && m->has_run_id && m->run_id == r->id)
		run_abort(d, "%s (node %d): %s", a->host, a->node,
		          m->abort->reason);
}

void
run_on_lost(struct ocsd *d, struct agent *a)
{
	struct run *r = d->run;
	int         node = a->node;
	uint32_t    k, p0;
	char        when[64];

	if (r == NULL || node < 0)
		return;
	/* Between two barriers ocsd does not see which phase an agent is
	 * in, only whether it had reported ready for the next one. */
	k = r->bar[r->bi];
	p0 = r->bi > 0 ? r->bar[r->bi - 1] : 0;
	if (a->ready == r->bi)
		snprintf(when, sizeof(when), "waiting for phase %u", k);
	else if (r->bi == 0)
		snprintf(when, sizeof(when), "before phase 0");
	else if (k - p0 == 1)
		snprintf(when, sizeof(when), "in phase %u", p0);
	else
		snprintf(when, sizeof(when), "in phases %u-%u", p0, k - 1);
	r->node[node] = NULL;
	a->node = -1;
	run_abort(d, "agent %s (node %d) lost: connection closed %s", a->host,
	          node, when);
}

/* ---- starting ------------------------------------------------------------- */

static void
ctl_cancel(nng_aio *aio, void *arg, int rv)
{
	struct ocsd *d = arg;

	nng_mtx_lock(d->mtx);
	if (d->run && d->run->ctl_aio == aio) {
		d->run->ctl = NULL; /* nobody to report to */
		run_abort(d, "the operator's request was cancelled");
		nng_mtx_unlock(d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	nng_mtx_unlock(d->mtx);
}

static int
parse_reconfig(struct run *r, const char *spec, char *err, size_t len)
{
	struct reconf_result res;
	const char          *p = spec;
	unsigned long        k, last = 0;
	char                *end;
	int                  rv;

	memset(r->before, 0, sizeof(r->before));
	if (spec == NULL || strcmp(spec, "auto") == 0) {
		if ((rv = a2a_optimise(&r->a, r->bytes, &r->cp, &res)) != 0)
			return (rv);
		memcpy(r->before, res.place + (size_t)res.rstar * r->nph,
		       r->nph);
		reconf_free(&res);
		return (0);
	}
	if (strcmp(spec, "none") == 0)
		return (0);
	if (strcmp(spec, "all") == 0) {
		memset(r->before + 1, 1, r->nph - 1);
		return (0);
	}
	while (*p) {
		if (*p < '0' || *p > '9')
			goto bad;
		k = strtoul(p, &end, 10);
		if (k < 1 || k >= r->nph || k <= last)
			goto bad;
		r->before[k] = 1;
		last = k;
		p = end;
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			goto bad;
	}
	return (0);
bad:
	snprintf(
	    err, len,
	    "reconfig \"%.60s\": expected auto, none, all or ascending phase "
	    "indices in 1..%u",
	    spec, r->nph - 1);
	return (-EINVAL);
}

int
run_start(struct ocsd *d, const Ocs__RunRequest *q, struct job *j,
          nng_aio *aio)
{
	struct agent *act[1024];
	struct run   *r;
	uint32_t      n, i, k;
	double        total;
	int           rv;

	if (d->ag == NULL) {
		snprintf(j->err, sizeof(j->err),
		         "no agents: [agents] listen is not configured");
		return (-OCSD_EREQUEST);
	}
	if (d->run || d->reconf_busy) {
		snprintf(j->err, sizeof(j->err), "run %llu is in progress",
		         (unsigned long long)(d->run ? d->run->id
		                                     : d->last_run_id));
		return (-OCSD_EBUSY);
	}
	if (!d->connected || !d->have_live) {
		snprintf(j->err, sizeof(j->err),
		         "the switch is not connected%s%s",
		         d->sw_err[0] ? ": " : "", d->sw_err);
		return (-OCSD_ESWITCH);
	}
	if (a2a_lookup(q->algo) == NULL) {
		snprintf(j->err, sizeof(j->err),
		         "algo \"%.40s\": unknown (%s)", q->algo, a2a_names());
		return (-OCSD_EREQUEST);
	}
	n = agents_active(d, act, 1024);
	if (q->has_nodes && q->nodes > 0) {
		if (q->nodes > n) {
			snprintf(j->err, sizeof(j->err),
			         "nodes %u: only %u agents have joined",
			         q->nodes, n);
			return (-OCSD_EREQUEST);
		}
		n = q->nodes;
	}
	if (n < 2) {
		snprintf(j->err, sizeof(j->err),
		         "a collective needs at least 2 agents, %u joined", n);
		return (-OCSD_EREQUEST);
	}
	for (i = 0; i < n; i++)
		if (act[i]->ntrx < 2) {
			snprintf(j->err, sizeof(j->err),
			         "agent %s has %u transceiver(s); the ring "
			         "algorithms need 2",
			         act[i]->host, act[i]->ntrx);
			return (-OCSD_EREQUEST);
		}
	if (q->bytes < 1 || q->bytes > ((uint64_t)1 << 34)) {
		snprintf(j->err, sizeof(j->err),
		         "bytes %llu: expected 1 B to 16 GiB per node",
		         (unsigned long long)q->bytes);
		return (-OCSD_EREQUEST);
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-ENOMEM);
	snprintf(r->algo, sizeof(r->algo), "%s", q->algo);
	r->n = n;
	r->bytes = q->bytes;
	r->chunk = q->has_chunk && q->chunk ? q->chunk : d->conf->run_chunk;
	r->chunk = (r->chunk + 7) & ~7u;
	if (r->chunk < 1024 || r->chunk > (1u << 20)) {
		snprintf(j->err, sizeof(j->err), "chunk %u: 1KiB..1MiB",
		         r->chunk);
		run_free(r);
		return (-OCSD_EREQUEST);
	}
	r->deadline_ms = d->conf->run_deadline_ms;
	r->cp.beta = 8.0 / (q->has_bandwidth_bps && q->bandwidth_bps > 0
	                        ? q->bandwidth_bps
	                        : d->conf->run_bps);
	r->cp.alpha_s = q->has_alpha_s ? q->alpha_s : d->conf->run_alpha_s;
	r->cp.alpha_h = q->has_alpha_h ? q->alpha_h : d->conf->run_alpha_h;
	r->cp.delta = q->has_delta ? q->delta : d->conf->switch_ms / 1e3;
	if (!(r->cp.alpha_s >= 0 && r->cp.alpha_h >= 0 && r->cp.delta >= 0 &&
	      isfinite(r->cp.beta))) {
		snprintf(j->err, sizeof(j->err), "bad model parameters");
		run_free(r);
		return (-OCSD_EREQUEST);
	}
	if ((rv = a2a_init(&r->a, r->algo, n)) != 0) {
		snprintf(j->err, sizeof(j->err), "planning %s on %u nodes: %s",
		         r->algo, n, coll_strerror(rv));
		run_free(r);
		return (rv);
	}
	r->nph = a2a_nphases(&r->a);
	if (r->nph > RUN_MAX_PHASES ||
	    (rv = parse_reconfig(r, q->reconfig, j->err, sizeof(j->err))) !=
	        0) {
		if (r->nph > RUN_MAX_PHASES)
			snprintf(j->err, sizeof(j->err), "too many phases");
		run_free(r);
		return (rv ? rv : -OCSD_EREQUEST);
	}
	if (a2a_ir_blocks(&r->a) > RUN_MAX_BLOCKS ||
	    (rv = a2a_build(&r->a, r->bytes, r->before, RUN_MAX_BLOCKS,
	                    &r->s)) != 0 ||
	    (rv = sched_validate(&r->s, NULL)) != 0 ||
	    (rv = sched_plans(&r->s, &r->plans)) != 0 ||
	    (rv = cost_sched(&r->s, &r->cp, &total, r->pc)) != 0) {
		snprintf(j->err, sizeof(j->err), "planning %s on %u nodes: %s",
		         r->algo, n,
		         rv ? coll_strerror(rv)
		            : "schedule too large to execute");
		run_free(r);
		return (rv ? rv : -COLL_ETOOBIG);
	}
	r->predicted = total;
	for (k = 0; k < r->nph; k++)
		if (r->plans[0].ph[k].barrier)
			r->bar[r->nbar++] = k;
	r->bar[r->nbar++] = r->nph;
	r->node = calloc(n, sizeof(*r->node));
	r->host = calloc(n, sizeof(*r->host));
	if (r->node == NULL || r->host == NULL) {
		run_free(r);
		return (-ENOMEM);
	}
	if (!nng_aio_begin(aio)) {
		run_free(r);
		return (-ECANCELED);
	}
	r->id = ++d->last_run_id;
	d->last_abort[0] = '\0';
	for (i = 0; i < n; i++) {
		r->node[i] = act[i];
		snprintf(r->host[i], sizeof(r->host[i]), "%s", act[i]->host);
		act[i]->node = (int)i;
		act[i]->plan_sent = 0;
		act[i]->ready = AG_NONE;
	}
	r->ctl = j;
	r->ctl_aio = aio;
	d->run = r;
	nng_aio_defer(aio, ctl_cancel, d);
	log_info("run %llu: %s, %u nodes, %llu bytes each, %u phases, model "
	         "%.6f s",
	         (unsigned long long)r->id, r->algo, n,
	         (unsigned long long)r->bytes, r->nph, r->predicted);
	for (i = 0; i < n; i++)
		run_on_poll(d, r->node[i]);
	arm_timer(r);
	return (0);
}

void
run_stop(struct ocsd *d)
{
	nng_mtx_lock(d->mtx);
	run_abort(d, "ocsd is shutting down");
	nng_mtx_unlock(d->mtx);
}

/* The run's aios live as long as ocsd. */
int
run_init(struct ocsd *d)
{
	int rv;

	if ((rv = nng_aio_alloc(&d->run_reconf, reconf_cb, d)) != 0)
		return (msg_nngerr(rv));
	/* Runs are numbered from the clock so that ids do not repeat
	 * across restarts. */
	d->last_run_id = (uint64_t)time(NULL) << 16;
	return (0);
}

void
run_fini(struct ocsd *d)
{
	if (d->run_reconf) {
		nng_aio_stop(d->run_reconf);
		nng_aio_free(d->run_reconf);
	}
	map_free(&d->rjob.target);
}
