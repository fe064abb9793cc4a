/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-plan --matrix: load or generate the traffic matrix, plan it with
 * one planner or all (auto), check the plan and its IR, and print the
 * figures (text or JSON) against the lower bound.  A plan that fails its
 * checks is never printed as a result.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/skew.h"
#include "collectives/skplan.h"
#include "collectives/tmat_load.h"
#include "proto/base/mono.h"
#include "proto/base/units.h"

struct skrun {
	const struct plan_opts *o;
	struct tmat             gpu, srv; /* srv: the planned matrix */
	struct skew_params      sp;
	struct skew_su          su;
	struct skew_plan        pl;
	struct skew_tried       tried[SKEW_NPLANNERS];
	uint32_t               *plane; /* each stage's, --transceivers */
	uint32_t                ntried;
	double                  predicted, lb, schedule_s;
	char                    err[512];
};

/* Plan, then check the plan and its IR before anything is printed. */
static int
plan_and_check(struct skrun *r)
{
	struct sched       s;
	struct sched_verr  ve;
	uint64_t           t0 = mono_ns();
	const struct tmat *m = &r->gpu;
	int                rv;

	if (r->o->gpus > 1) {
		if ((rv = skew_servers(&r->gpu, &r->sp, &r->srv, &r->su)) != 0)
			return (snprintf(r->err, sizeof(r->err),
			                 "--gpus-per-server %u: %u nodes are "
			                 "not %s",
			                 r->o->gpus, r->gpu.n,
			                 rv == -EINVAL
			                     ? "2 or more whole servers"
			                     : "plannable (memory)"),
			        rv);
		m = &r->srv;
	}
	if ((rv = skew_plan(r->o->algo, m, &r->sp,
	                    r->o->gpus > 1 ? &r->su : NULL, &r->pl, r->tried,
	                    &r->ntried)) == -COLL_ENODES)
		return (snprintf(r->err, sizeof(r->err),
		                 "at most %u %s (its stages grow "
		                 "as n^2 and its plan as n^3); plan per "
		                 "server with --gpus-per-server, or use "
		                 "eclipse, sorted or auto",
		                 SKEW_FAST_MAX_N,
		                 r->o->gpus > 1 ? "servers" : "nodes"),
		        rv);
	if (rv != 0)
		return (snprintf(r->err, sizeof(r->err), "planning: %s",
		                 coll_strerror(rv)),
		        rv);
	r->schedule_s = (double)(mono_ns() - t0) * 1e-9;
	if ((rv = skew_check(&r->pl, m, r->err, sizeof(r->err))) != 0)
		return (rv);
	rv = skew_build(&r->pl, m, &s);
	if (rv == 0 && (rv = sched_validate(&s, &ve)) != 0)
		snprintf(r->err, sizeof(r->err), "schedule: %s", ve.msg);
	else if (rv == 0 && r->o->export_fmt && r->o->chakra)
		rv = r->o->chakra(&s, r->sp.cp.delta, r->o->export_file,
		                  r->err, sizeof(r->err));
	else if (rv != 0)
		snprintf(r->err, sizeof(r->err), "schedule: %s",
		         coll_strerror(rv));
	sched_free(&s);
	if (rv != 0)
		return (rv);
	if ((r->plane = calloc(r->pl.nst + 1, sizeof(*r->plane))) == NULL)
		return (snprintf(r->err, sizeof(r->err), "out of memory"),
		        -ENOMEM);
	r->predicted =
	    r->o->gpus > 1
	        ? skew_cost_pipeline(&r->pl, &r->sp, &r->su)
	        : skew_cost_planes(&r->pl, &r->sp.cp, r->o->planes, r->plane);
	r->lb = skew_lower_bound_t(m, &r->sp.cp, r->o->planes);
	return (0);
}

/* predicted / bound; an all-local matrix (both 0) is at its bound. */
static double
ratio(double pred, double lb)
{
	return (lb > 0 ? pred / lb : pred > 0 ? 0.0 : 1.0);
}

/* The stage's busiest circuit, rides included. */
static uint64_t
stage_bytes(const struct skew_plan *p, uint32_t k)
{
	uint64_t *load = malloc((p->n + 1) * sizeof(*load)), mx = 0;
	uint32_t  h;

	if (load != NULL)
		skew_stage_load(p, k, load, &mx, &h);
	free(load);
	return (mx);
}

static json_t *
stages_json(const struct skew_plan *p, const uint32_t *plane)
{
	json_t  *a = json_array(), *perm;
	uint32_t k, i;

	for (k = 0; a != NULL && k < p->nst; k++) {
		perm = json_array();
		for (i = 0; perm != NULL && i < p->n; i++)
			json_array_append_new(
			    perm, skew_perm(p, k)[i] == SKEW_IDLE
			              ? json_null()
			              : json_integer(skew_perm(p, k)[i]));
		json_array_append_new(
		    a, json_pack("{s:I,s:I,s:I,s:o*}", "weight_bytes",
		                 (json_int_t)p->st[k].w, "bytes",
		                 (json_int_t)stage_bytes(p, k), "plane",
		                 (json_int_t)(plane ? plane[k] : 0), "perm",
		                 perm));
	}
	return (a);
}

static json_t *
tried_json(const struct skrun *r)
{
	json_t  *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < r->ntried; i++)
		json_array_append_new(
		    a,
		    json_pack("{s:s,s:b,s:I,s:f,s:f,s:f}", "algo",
		              r->tried[i].algo, "reuse", r->tried[i].reuse,
		              "stages", (json_int_t)r->tried[i].stages,
		              "predicted_s", r->tried[i].predicted_s, "ratio",
		              ratio(r->tried[i].predicted_s, r->lb),
		              "schedule_us", r->tried[i].schedule_s * 1e6));
	return (a);
}

static json_t *
rides_json(const struct skew_plan *p)
{
	json_t  *a = json_array();
	uint32_t x;

	for (x = 0; a != NULL && x < p->nride; x++)
		json_array_append_new(
		    a, json_pack("{s:I,s:I,s:I,s:I,s:I}", "stage",
		                 (json_int_t)p->ride[x].stage, "src",
		                 (json_int_t)p->ride[x].src, "dst",
		                 (json_int_t)p->ride[x].dst, "hops",
		                 (json_int_t)p->ride[x].hops, "bytes",
		                 (json_int_t)p->ride[x].bytes));
	return (a);
}

static int
print_json(const struct skrun *r)
{
	const struct skew_plan *p = &r->pl;
	json_t                 *j;
	int                     rv;

	j = json_pack(
	    "{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:I,s:b,s:f,"
	    "s:o*,s:o*}",
	    "algo", p->algo, "requested", r->o->algo, "matrix", r->o->matrix,
	    "nodes", (json_int_t)r->gpu.n, "gpus_per_server",
	    (json_int_t)r->o->gpus, "servers",
	    (json_int_t)(r->gpu.n / r->o->gpus), "stages", (json_int_t)p->nst,
	    "reconfigurations", (json_int_t)(p->nst ? p->nst - 1 : 0),
	    "predicted_s", r->predicted, "lower_bound_s", r->lb, "ratio",
	    ratio(r->predicted, r->lb), "schedule_us", p->schedule_s * 1e6,
	    "rho_bytes", (json_int_t)p->rho, "valid", 1, "delta_s",
	    r->sp.cp.delta, "planners", tried_json(r), "stage_list",
	    stages_json(p, r->plane));
	if (j != NULL && p->nride > 0)
		json_object_set_new(j, "rides", rides_json(p));
	if (j != NULL)
		json_object_set_new(j, "lower_bound_of",
		                    json_string("direct schedules"));
	if (j != NULL)
		json_object_set_new(j, "transceivers",
		                    json_integer(r->o->planes));
	if (j == NULL)
		return (-ENOMEM);
	rv = json_dumpf(j, stdout, JSON_COMPACT) == 0 && putchar('\n') != EOF
	         ? 0
	         : -EIO;
	json_decref(j);
	return (rv);
}

static void
print_text(const struct skrun *r)
{
	const struct skew_plan *p = &r->pl;
	char                    a[32], b[32], c[32];
	uint32_t                k, i;

	printf("%s on %s: %u nodes", p->algo, r->o->matrix, r->gpu.n);
	if (r->o->gpus > 1)
		printf(" (%u servers of %u GPUs, planned per server)",
		       r->gpu.n / r->o->gpus, r->o->gpus);
	if (r->o->planes > 1)
		printf(", %u transceivers (stages on %u planes that "
		       "reconfigure apart)",
		       r->o->planes, r->o->planes);
	printf(", %u stages, %u reconfigurations of %s\n", p->nst,
	       p->nst
	           ? p->nst - (r->o->planes < p->nst ? r->o->planes : p->nst)
	           : 0,
	       unit_fmt_time(r->sp.cp.delta, a, sizeof(a)));
	printf("predicted %s, lower bound for direct schedules %s, ratio "
	       "%.3f; scheduled in %s; valid\n",
	       unit_fmt_time(r->predicted, a, sizeof(a)),
	       unit_fmt_time(r->lb, b, sizeof(b)), ratio(r->predicted, r->lb),
	       unit_fmt_time(p->schedule_s, c, sizeof(c)));
	for (i = 0; r->ntried > 1 && i < r->ntried; i++) {
		snprintf(c, sizeof(c), "%s%s", r->tried[i].algo,
		         r->tried[i].reuse ? "+reuse" : "");
		printf("  %-16s %5u stages  predicted %-10s ratio %.3f  "
		       "(%s)\n",
		       c, r->tried[i].stages,
		       unit_fmt_time(r->tried[i].predicted_s, a, sizeof(a)),
		       ratio(r->tried[i].predicted_s, r->lb),
		       unit_fmt_time(r->tried[i].schedule_s, b, sizeof(b)));
	}
	for (k = 0; r->o->phases && k < p->nst; k++) {
		printf("stage %u", k);
		if (r->o->planes > 1)
			printf(" (plane %u)", r->plane[k]);
		printf(": %s:",
		       unit_fmt_size(stage_bytes(p, k), a, sizeof(a)));
		for (i = 0; i < p->n; i++)
			if (skew_perm(p, k)[i] != SKEW_IDLE &&
			    skew_real(p, k)[i] > 0)
				printf(" %u>%u", i, skew_perm(p, k)[i]);
		for (i = 0; i < p->nride; i++)
			if (p->ride[i].stage == k)
				printf(" %u>%u(%u hops)", p->ride[i].src,
				       p->ride[i].dst, p->ride[i].hops);
		printf("\n");
	}
}

int
skplan_run(const struct plan_opts *o)
{
	struct skrun *r = calloc(1, sizeof(*r));
	int           ex = 1;

	if (r == NULL) {
		fprintf(stderr, "ocs-plan: out of memory\n");
		return (1);
	}
	r->o = o;
	r->sp.cp = (struct cost_params){.alpha_s = o->alpha_s,
	                                .alpha_h = o->alpha_h,
	                                .beta = 8.0 / o->rate,
	                                .delta = o->delay[0]};
	r->sp.gpus = o->gpus;
	r->sp.su_alpha = o->su_alpha;
	r->sp.su_beta = 8.0 / o->su_rate;
	r->sp.planes = o->planes;
	if (tmat_load(o->matrix, o->bytes, &r->gpu, r->err, sizeof(r->err)) !=
	    0) {
		fprintf(stderr, "ocs-plan: %s\n", r->err);
		ex = 2;
		goto out;
	}
	if (plan_and_check(r) != 0) {
		fprintf(stderr, "ocs-plan: %s: %s\n", o->algo, r->err);
		goto out;
	}
	if (o->json) {
		if (print_json(r) != 0)
			goto out;
	} else
		print_text(r);
	ex = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	if (ex)
		fprintf(stderr, "ocs-plan: writing output failed\n");
out:
	skew_plan_free(&r->pl);
	tmat_free(&r->gpu);
	tmat_free(&r->srv);
	free(r->plane);
	free(r);
	return (ex);
}
