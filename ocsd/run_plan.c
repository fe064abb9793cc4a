/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run's plan: the request checked against the configuration and the
 * agents, the schedule built and validated with the collectives library,
 * per-node plans and the model's prediction; and the switch map of each
 * configuration, from the ports the agents' transceivers are cabled to.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/a2a.h"
#include "collectives/skew.h"
#include "ocsd/run_int.h"
#include "proto/base/mono.h"
#include "proto/base/units.h"

void
run_free(struct run *r)
{
	uint32_t i;

	if (r == NULL)
		return;
	/* Its agents are idle and eligible at once: quiet in a phase is not
	 * a missed heartbeat (the registry's clock starts again now). */
	for (i = 0; r->node && i < r->n; i++)
		if (r->node[i]) {
			r->node[i]->node = -1;
			r->node[i]->seen_ms = mono_ms();
		}
	sched_plans_free(r->plans, r->s.n);
	free(r->rxmap);
	sched_free(&r->s);
	a2a_fini(&r->a);
	if (r->has_topo)
		topo_free(&r->topo);
	free(r->node);
	free(r->member);
	free(r->host);
	free(r->nt);
	free(r->lk);
	free(r);
}

/* auto (the optimum R*), none, all, or ascending phases "1,3". */
static int
parse_reconfig(struct run *r, const char *spec, char *err, size_t len)
{
	struct reconf_result res;
	const char          *p = spec;
	unsigned long        k, last = 0;
	char                *end;
	int                  rv;

	memset(r->before, 0, sizeof(r->before));
	if (spec[0] == '\0' || strcmp(spec, "auto") == 0) {
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
	return (-OCSD_EUSAGE);
}

/* Transceivers a node needs, into *need: two a ring of the
 * configurations the algorithm sets on n nodes (ReTri of radix 2q + 1
 * and two-port Bruck set more than one), one for the skewed planners.
 * 0 or a2a_init_radix()'s error. */
static int
transceivers(const struct run_req *q, int skew, uint32_t n, uint32_t *need)
{
	struct a2a a;
	int        rv;

	*need = 1;
	if (skew)
		return (0);
	if ((rv = a2a_init_radix(&a, q->algo, n, q->radix)) == 0)
		*need = 2 * a2a_rings(&a);
	a2a_fini(&a);
	return (rv);
}

/* The request against the agents there are: 0, -OCSD_EUSAGE (a bad
 * argument) or -OCSD_EREQUEST. */
static int
check_request(const struct run_req *q, const struct run_member *act,
              uint32_t *n, char *err, size_t len)
{
	int      skew = run_is_skew(q->algo), rv;
	uint32_t i, need;

	if (a2a_lookup(q->algo) == NULL && !skew) {
		snprintf(err, len, "algo \"%.40s\": unknown (%s; %s)", q->algo,
		         a2a_names(), skew_names());
		return (-OCSD_EUSAGE);
	}
	if (q->radix && strcmp(q->algo, "retri") != 0) {
		snprintf(err, len, "radix %u: only with algo retri", q->radix);
		return (-OCSD_EUSAGE);
	}
	if (skew && q->matrix == NULL) {
		snprintf(err, len,
		         "algo %s: a skewed All-to-All needs a traffic matrix "
		         "(--matrix)",
		         q->algo);
		return (-OCSD_EUSAGE);
	}
	if (q->matrix != NULL) {
		if (q->nodes > 0 && q->nodes != q->mn) {
			snprintf(err, len,
			         "nodes %u: the matrix is for %u nodes",
			         q->nodes, q->mn);
			return (-OCSD_EUSAGE);
		}
		if (q->mn > *n) {
			snprintf(err, len,
			         "matrix of %u nodes: only %u agents have "
			         "joined",
			         q->mn, *n);
			return (-OCSD_EREQUEST);
		}
		*n = q->mn;
	} else if (q->nodes > 0) {
		if (q->nodes > *n) {
			snprintf(err, len,
			         "nodes %u: only %u agents have joined",
			         q->nodes, *n);
			return (-OCSD_EREQUEST);
		}
		*n = q->nodes;
	}
	if (*n < 2) {
		snprintf(err, len,
		         "a collective needs at least 2 agents, %u joined",
		         *n);
		return (-OCSD_EREQUEST);
	}
	if ((rv = transceivers(q, skew, *n, &need)) != 0) {
		snprintf(err, len, "algo %s (radix %u) on %u nodes: %s",
		         q->algo, q->radix, *n, coll_strerror(rv));
		return (rv == -ENOMEM ? -ENOMEM : -OCSD_EUSAGE);
	}
	for (i = 0; i < *n; i++)
		if (act[i].ntrx < need) {
			snprintf(err, len,
			         "agent %s has %u transceiver(s); %s needs "
			         "%u",
			         act[i].host, act[i].ntrx, q->algo, need);
			return (-OCSD_EREQUEST);
		}
	if ((rv = run_srv_check(q, act, *n, err, len)) != 0)
		return (rv);
	if (q->bytes < 1 || q->bytes > ((uint64_t)1 << 34)) {
		snprintf(err, len,
		         "bytes %llu: expected 1 B to 16 GiB per node",
		         (unsigned long long)q->bytes);
		return (-OCSD_EUSAGE);
	}
	return (0);
}

/* Frames and the model: the request's, else the configuration's. */
static int
set_params(const struct run_env *c, const struct run_req *q, struct run *r,
           char *err, size_t len)
{
	r->chunk = q->chunk ? q->chunk : c->chunk;
	r->chunk = (r->chunk + 7) & ~7u; /* frames stay 8-byte aligned */
	if (r->chunk < 1024 || r->chunk > (1u << 20)) {
		snprintf(err, len, "chunk %u: 1KiB..1MiB", r->chunk);
		return (-OCSD_EUSAGE);
	}
	r->deadline_ms = c->deadline_ms;
	r->cp.beta = 8.0 / (q->bandwidth_bps > 0 ? q->bandwidth_bps : c->bps);
	r->cp.alpha_s = q->has_alpha_s ? q->alpha_s : c->alpha_s;
	r->cp.alpha_h = q->has_alpha_h ? q->alpha_h : c->alpha_h;
	/* The switch's delta, and what a reconfiguration costs beyond it
	 * (the command, read-back and light check; calibrated). */
	r->switch_s = q->has_delta ? q->delta : c->switch_ms / 1e3;
	r->link_up_s = c->link_up_s;
	r->link_deadline_ms = c->link_deadline_ms;
	/* On real optics a reconfiguration ends when the links have
	 * retrained, not when the mirrors settle: link-up is part of
	 * delta. */
	r->cp.delta = r->switch_s + r->link_up_s + c->reconf_s;
	r->gpus = q->gpus > 1 ? q->gpus : 0;
	r->su_bps = q->su_bps > 0 ? q->su_bps : c->su_bps;
	r->su_alpha = q->has_su_alpha ? q->su_alpha : c->su_alpha;
	/* Agents relay multi-hop blocks a frame at a time. */
	r->cp.sf_bytes = r->chunk;
	if (!(r->cp.alpha_s >= 0 && r->cp.alpha_h >= 0 && r->cp.delta >= 0 &&
	      isfinite(r->cp.beta))) {
		snprintf(err, len, "bad model parameters");
		return (-OCSD_EUSAGE);
	}
	return (0);
}

int
run_is_skew(const char *algo)
{
	return (skew_lookup(algo) != NULL || strcmp(algo, "auto") == 0);
}

/* A row of more than 16 GiB is more than an agent may be asked for. */
static int
check_rows(const struct run_req *q, char *err, size_t len)
{
	struct tmat m = {q->mn, (uint64_t *)(uintptr_t)q->matrix};
	uint32_t    i;

	for (i = 0; i < q->mn; i++)
		if (tmat_row(&m, i) > ((uint64_t)1 << 34) ||
		    tmat_col(&m, i) > ((uint64_t)1 << 34)) {
			snprintf(err, len,
			         "matrix: node %u sends or receives more than "
			         "16 GiB",
			         i);
			return (-OCSD_EUSAGE);
		}
	return (0);
}

/* A skewed All-to-All: the stages of the planner (or of the cheapest,
 * for auto), every one a phase with its own configuration. */
static int
build_skew(struct run *r, const struct run_req *q,
           const struct skew_watch *hook, char *err, size_t len)
{
	struct tmat        m = {q->mn, (uint64_t *)(uintptr_t)q->matrix};
	struct skew_params sp = {.cp = r->cp, .gpus = 1, .watch = hook};
	struct skew_plan   pl;
	int                rv;

	if ((rv = check_rows(q, err, len)) != 0)
		return (rv);
	if (r->gpus > 1)
		return (run_srv_build(r, q, hook, err, len));
	if ((rv = skew_plan(q->algo, &m, &sp, NULL, &pl, NULL, NULL)) != 0) {
		snprintf(err, len, "planning %s on %u nodes: %s", q->algo,
		         r->n,
		         rv == -ECANCELED ? "given up" : coll_strerror(rv));
		return (rv);
	}
	if (strcmp(q->algo, "auto") == 0)
		snprintf(r->algo, sizeof(r->algo), "auto:%s", pl.algo);
	if (pl.nst == 0 || pl.nst > RUN_MAX_PHASES) {
		snprintf(err, len,
		         "%s on %s: %u stages; a run has 1 to %u phases (try "
		         "--algo auto)",
		         pl.algo, q->matrix_name, pl.nst, RUN_MAX_PHASES);
		skew_plan_free(&pl);
		return (-OCSD_EUSAGE);
	}
	r->nph = pl.nst;
	memset(r->before + 1, 1, r->nph - 1);
	rv = skew_build(&pl, &m, &r->s);
	skew_plan_free(&pl);
	return (rv);
}

/* Uniform algorithms carrying a skewed matrix: their blocks, sized by
 * it (sched_resize_v). */
static int
build_a2a(struct run *r, const struct run_req *q, char *err, size_t len)
{
	int rv;

	if ((rv = a2a_init_radix(&r->a, q->algo, r->n, q->radix)) != 0) {
		snprintf(err, len, "planning %s on %u nodes: %s", r->algo,
		         r->n, coll_strerror(rv));
		return (rv);
	}
	if (q->radix > 3)
		snprintf(r->algo, sizeof(r->algo), "retri (radix %u)",
		         q->radix);
	r->nph = a2a_nphases(&r->a);
	if (r->nph > RUN_MAX_PHASES) {
		snprintf(err, len, "too many phases");
		return (-OCSD_EREQUEST);
	}
	if ((rv = parse_reconfig(r, q->reconfig, err, len)) != 0)
		return (rv);
	if (a2a_ir_blocks(&r->a) > RUN_MAX_BLOCKS)
		return (-COLL_ETOOBIG);
	if ((rv = a2a_build(&r->a, r->bytes, r->before, RUN_MAX_BLOCKS,
	                    &r->s)) != 0)
		return (rv);
	if (q->matrix != NULL) {
		if ((rv = check_rows(q, err, len)) != 0)
			return (rv);
		return (sched_resize_v(&r->s, q->matrix));
	}
	return (0);
}

/* Spread over the planes when every node has nsw * P transceivers, the
 * P of plane j being j P .. j P + P - 1 (2q transceivers on q planes). */
static int
spreads(const struct run *r, const struct run_member *m, uint32_t nsw)
{
	uint32_t P = r->s.ports, i, t;

	if (nsw * P > SCHED_MAX_PLANES)
		return (0);
	for (i = 0; i < r->n; i++) {
		if (m[i].ntrx < nsw * P)
			return (0);
		for (t = 0; t < nsw * P; t++)
			if (m[i].sw[t] != t / P)
				return (0);
	}
	return (1);
}

/* The schedule spread over nsw planes, together or apart. */
static int
spread(struct run *r, uint32_t nsw)
{
	struct sched out;
	uint32_t     k;
	int          rv;

	rv = planes_spread_choose(&r->s, nsw, &r->cp, r->planes, &out,
	                          &r->pred_together, &r->pred_apart);
	if (rv < 0) {
		sched_free(&out);
		return (rv);
	}
	sched_free(&r->s);
	r->s = out;
	r->spread = 1;
	for (k = 1; k < r->nph; k++)
		r->before[k] = r->s.ph[k].cfg >= 0;
	return (0);
}

/*
 * --planes: the schedule's transceivers on the fabric's planes (port t
 * on the switch every node's transceiver t is cabled to), or spread over
 * them; then together or apart as asked, auto the model's cheaper, with
 * each plane's own delta.  0, -OCSD_EUSAGE / -OCSD_EREQUEST with err.
 */
static int
apply_planes(const struct run_env *env, struct run *r, const struct run_req *q,
             const struct run_member *m, char *err, size_t len)
{
	uint8_t  plane[SCHED_MAX_PLANES];
	uint32_t t, i, p, nsw = env->nsw;
	int      rv;

	if (q->planes[0] == '\0')
		return (0);
	if (planes_parse(q->planes, &r->planes) != 0 || run_is_skew(q->algo) ||
	    q->matrix != NULL) {
		snprintf(err, len,
		         "planes %.20s: together, apart or auto, with retri, "
		         "bridge, static or bruck and no matrix",
		         q->planes);
		return (-OCSD_EUSAGE);
	}
	if (nsw < 2 || nsw > CONF_SWITCH_MAX) {
		snprintf(
		    err, len,
		    "planes %s: one switch; planes reconfigure apart on a "
		    "fabric of several ([switch NAME], one a plane)",
		    q->planes);
		return (-OCSD_EREQUEST);
	}
	for (p = 0; p < nsw; p++)
		r->plane_delta[p] =
		    (q->has_delta ? q->delta : env->sw_ms[p] / 1e3) +
		    r->link_up_s + env->reconf_s;
	r->cp.delta_plane = r->plane_delta;
	r->cp.ndelta_plane = nsw;
	if (spreads(r, m, nsw))
		return (spread(r, nsw));
	for (t = 0; t < r->s.ports && t < SCHED_MAX_PLANES; t++) {
		plane[t] = m[0].sw[t];
		for (i = 1; i < r->n; i++)
			if (m[i].sw[t] != plane[t]) {
				snprintf(
				    err, len,
				    "planes %s: %s.%u and %s.%u are on "
				    "different switches (a plane is every "
				    "node's transceiver t)",
				    q->planes, m[0].host, t, m[i].host, t);
				return (-OCSD_EREQUEST);
			}
	}
	if (r->s.ports > SCHED_MAX_PLANES ||
	    sched_set_planes(&r->s, nsw, plane) != 0 ||
	    (rv = planes_choose(&r->s, &r->cp, r->planes, &r->pred_together,
	                        &r->pred_apart)) == -EINVAL) {
		snprintf(err, len,
		         "planes %s: the schedule's %u transceivers "
		         "are not on the fabric's planes",
		         q->planes, r->s.ports);
		return (-OCSD_EREQUEST);
	}
	return (rv < 0 ? rv : 0);
}

/* The schedule, its validation, per-node plans and the prediction. */
static int
build(struct run *r, const struct run_req *q, const struct skew_watch *hook,
      const struct run_env *env, const struct run_member *act, char *err,
      size_t len)
{
	double total;
	int    rv;

	if (q->matrix != NULL) {
		struct tmat m = {q->mn, (uint64_t *)(uintptr_t)q->matrix};

		/* R* for the heaviest row; blocks then take the matrix's
		 * sizes. */
		r->bytes = tmat_rho(&m) ? tmat_rho(&m) : 1;
		snprintf(r->matrix_name, sizeof(r->matrix_name), "%s",
		         q->matrix_name);
	}
	rv = run_is_skew(q->algo) ? build_skew(r, q, hook, err, len)
	                          : build_a2a(r, q, err, len);
	if (rv == -OCSD_EUSAGE || rv == -OCSD_EREQUEST || rv == -ECANCELED)
		return (rv);
	if (rv == 0 && q->matrix != NULL)
		r->bytes = r->s.bytes; /* the largest row */
	if (rv == 0 && (rv = apply_planes(env, r, q, act, err, len)) != 0 &&
	    (rv == -OCSD_EUSAGE || rv == -OCSD_EREQUEST))
		return (rv);
	if (rv != 0 || (rv = sched_validate(&r->s, NULL)) != 0 ||
	    (rv = sched_plans(&r->s, &r->plans)) != 0 ||
	    (rv = cost_sched(&r->s, &r->cp, &total, r->pc)) != 0 ||
	    (r->predicted = total, rv = run_srv_predict(r)) != 0) {
		snprintf(
		    err, len, "planning %s on %u nodes: %s", r->algo, r->n,
		    rv ? coll_strerror(rv) : "schedule too large to execute");
		return (rv ? rv : -COLL_ETOOBIG);
	}
	return (0);
}

/* Each agent can hold its part: its buffers within the limit it said at
 * its join (refused here, before any agent allocates anything). */
static int
check_memory(const struct run *r, const struct run_member *act, char *err,
             size_t len)
{
	char     a[32], b[32];
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		uint64_t need =
		    r->s.vb != NULL
		        ? plan_vbuffer_bytes(
		              sched_nplan_vbytes(&r->s, &r->plans[i]),
		              r->s.ports, r->chunk)
		        : plan_buffer_bytes(r->plans[i].max_blocks, r->bytes,
		                            r->n, r->s.parts, r->s.ports,
		                            r->chunk);

		if (act[i].mem_limit && need > act[i].mem_limit) {
			snprintf(
			    err, len,
			    "bytes %llu: agent %s (node %u) would need %s "
			    "of buffers, its limit is %s",
			    (unsigned long long)r->bytes, act[i].host, i,
			    unit_fmt_size(need, a, sizeof(a)),
			    unit_fmt_size(act[i].mem_limit, b, sizeof(b)));
			return (-OCSD_EUSAGE);
		}
	}
	return (0);
}

/* The run's schedule, planned and checked against the agents: an
 * All-to-All or a synthesised collective. */
static int
plan(const struct run_env *env, struct run *r, const struct run_req *q,
     const struct run_member *act, uint32_t *n, const struct skew_watch *hook,
     char *err, size_t len)
{
	int rv;

	snprintf(r->algo, sizeof(r->algo), "%s", q->algo);
	r->keep = q->keep;
	r->bytes = q->bytes;
	if ((rv = set_params(env, q, r, err, len)) != 0)
		return (rv);
	if (q->collective[0] != '\0') {
		if ((rv = run_topo_request(r, q, n, err, len)) != 0)
			return (rv);
		r->n = *n;
		rv = run_topo_build(r, q, act, err, len);
	} else {
		r->n = *n;
		rv = build(r, q, hook, env, act, err, len);
	}
	return (rv != 0 ? rv : check_memory(r, act, err, len));
}

int
run_plan(const struct run_env *env, const struct run_req *q,
         const struct run_member *act, uint32_t n,
         const struct skew_watch *hook, struct run **out, char *err,
         size_t len)
{
	struct run *r;
	uint32_t    k;
	int         rv;

	*out = NULL;
	if (q->collective[0] == '\0' &&
	    (rv = check_request(q, act, &n, err, len)) != 0)
		return (rv);
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return (-ENOMEM);
	if ((rv = plan(env, r, q, act, &n, hook, err, len)) != 0) {
		run_free(r);
		return (rv);
	}
	/* Node 0's barriers are everyone's (one schedule). */
	for (k = 0; k < r->nph; k++)
		if (r->plans[0].ph[k].barrier)
			r->bar[r->nbar++] = k;
	r->bar[r->nbar++] = r->nph;
	r->node = calloc(n, sizeof(*r->node));
	r->member = calloc(n, sizeof(*r->member));
	r->host = calloc(n, sizeof(*r->host));
	r->nt = calloc(n, sizeof(*r->nt));
	r->lk = calloc(n, sizeof(*r->lk));
	if (r->node == NULL || r->member == NULL || r->host == NULL ||
	    r->nt == NULL || r->lk == NULL) {
		run_free(r);
		return (-ENOMEM);
	}
	memcpy(r->member, act, n * sizeof(*act));
	for (k = 0; k < n; k++)
		snprintf(r->host[k], sizeof(r->host[k]), "%s", act[k].host);
	*out = r;
	return (0);
}

int
run_bind(struct ocsd *d, struct run *r, char *err, size_t len)
{
	struct agent *a;
	uint32_t      i;

	for (i = 0; i < r->n; i++) {
		a = agents_get(d, r->member[i].id);
		if (a == NULL || a->fibres_up < a->ntrx) {
			snprintf(err, len,
			         "agent %s (node %u) was lost or unplugged "
			         "while the run was planned",
			         r->member[i].host, i);
			return (-OCSD_EABORT);
		}
		/* The cabling may have changed since it joined (SIGHUP). */
		if (agents_ports(d, a) != 0) {
			snprintf(err, len,
			         "agent %s: a transceiver is no longer cabled "
			         "in ocsd's configuration",
			         a->host);
			return (-OCSD_EREQUEST);
		}
	}
	for (i = 0; i < r->n; i++)
		r->node[i] = agents_get(d, r->member[i].id);
	r->apart = d->nsw > 1 && sched_is_apart(&r->s);
	r->nplanes = d->nsw;
	for (i = 0; i < d->nsw && i < CONF_SWITCH_MAX; i++)
		snprintf(r->plane_name[i], sizeof(r->plane_name[i]), "%.15s",
		         d->sw[i].label);
	return (run_fab_bind(d, r, err, len));
}

int
run_phase_map(const struct ocsd *d, const struct run *r, uint32_t k,
              uint32_t sw, struct map *t)
{
	int32_t                 cfgi = r->s.ph[k].cfg;
	const struct sched_cfg *c = &r->s.cfg[cfgi];
	uint8_t                *mine;
	uint32_t                i, p;
	int                     rv;

	if ((rv = map_copy(t, &d->sw[sw].live)) != 0)
		return (rv);
	if ((mine = calloc(2 * t->n + 1, 1)) == NULL)
		return (-ENOMEM);
	/* Every patch into or out of a port of the run goes; what the run
	 * does not use stays as the operator left it. */
	for (i = 0; i < r->n; i++)
		for (p = 0; p < r->s.ports && p < r->node[i]->ntrx; p++)
			if (r->node[i]->sw[p] == sw)
				mine[r->node[i]->in[p]] =
				    mine[r->node[i]->out[p]] = 1;
	for (i = 1; i <= t->n; i++)
		if (mine[i] || mine[t->out[i]])
			t->out[i] = 0;
	free(mine);
	for (i = 0; i < c->ncirc; i++) {
		const struct sched_circuit *e = &r->s.circ[c->circ_off + i];
		const struct agent *a = r->node[e->a], *b = r->node[e->b];

		/* Each direction on its sender's switch (run_fab.c). */
		if (a->sw[e->pa] == sw)
			t->out[a->in[e->pa]] =
			    b->out[run_fab_rx(r, (uint32_t)cfgi, e->b, e->pb)];
		if (!e->oneway && b->sw[e->pb] == sw)
			t->out[b->in[e->pb]] =
			    a->out[run_fab_rx(r, (uint32_t)cfgi, e->a, e->pa)];
	}
	return (0);
}
