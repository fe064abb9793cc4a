/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_skew: skewed All-to-All planning (issue 15).
 *
 * 1. FAST's scheduling time at 8 GPUs a server (Zipf 0.8), the same
 *    measurement as the FAST paper's: server balancing + decomposition,
 *    median of repeats, beside its published figures.
 * 2. Every planner's scheduling time at 8-64 nodes with one NIC each.
 * 3. predicted / lower bound over delta x Zipf skew for N = 8, 16, 64 and
 *    16 MiB a node, per planner and for auto (goal: auto <= 1.3).
 * Every plan is checked and its IR validated; a bad one fails the bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/skew.h"
#include "proto/base/mono.h"
#include "proto/base/units.h"

#define REPEAT 9

static const char *const planners[] = {"fast", "spreadout", "solstice",
                                       "eclipse", "sorted"};
#define NPL (sizeof(planners) / sizeof(planners[0]))

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static struct skew_params
params(double delta, uint32_t gpus)
{
	struct skew_params sp = {
	    .cp = {.alpha_s = 1.7e-6,
	           .alpha_h = 1e-6,
	           .beta = 8 / 400e9,
	           .delta = delta},
	    .gpus = gpus,
	    .su_alpha = 0.7e-6,
	    .su_beta = 8 / 2400e9,
	};
	return (sp);
}

static int
checked(const struct skew_plan *pl, const struct tmat *m)
{
	struct sched      s;
	struct sched_verr ve;
	char              err[256];
	int               rv;

	if (skew_check(pl, m, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_skew: %s: %s\n", pl->algo, err);
		return (-1);
	}
	rv = skew_build(pl, m, &s);
	if (rv == 0 && (rv = sched_validate(&s, &ve)) != 0)
		fprintf(stderr, "bench_skew: %s: %s\n", pl->algo, ve.msg);
	sched_free(&s);
	return (rv);
}

/* FAST at g = 8: balancing + BvN, median of REPEAT, in us. */
static int
fast_servers(void)
{
	static const struct {
		uint32_t gpus;
		double   paper_us;
	} pts[] = {{16, 3.1}, {32, 25}, {64, 221}, {96, 805}, {320, 77000}};
	char   spec[64], err[256];
	size_t i;
	int    r, bad = 0;

	printf("FAST scheduling time, 8 GPUs a server, Zipf 0.8 "
	       "(balancing + decomposition, median of %d)\n",
	       REPEAT);
	printf("%6s %8s %8s %12s %12s %8s\n", "GPUs", "servers", "stages",
	       "schedule_us", "paper_us", "speedup");
	for (i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		struct skew_params sp = params(1e-6, 8);
		struct tmat        m, srv;
		struct skew_su     su;
		struct skew_plan   pl;
		double             t[REPEAT];

		snprintf(spec, sizeof(spec), "zipf:%u:0.8:%zu", pts[i].gpus,
		         i + 1);
		if (tmat_generate(spec, 16u << 20, &m, err, sizeof(err)) != 0)
			return (fprintf(stderr, "bench_skew: %s\n", err), 1);
		for (r = 0; r < REPEAT; r++) {
			uint64_t t0 = mono_ns();

			if (skew_servers(&m, &sp, &srv, &su) != 0 ||
			    skew_plan("fast", &srv, &sp, &su, &pl, NULL,
			              NULL) != 0)
				return (1);
			t[r] = (double)(mono_ns() - t0) / 1e3;
			if (r < REPEAT - 1) {
				skew_plan_free(&pl);
				tmat_free(&srv);
			}
		}
		qsort(t, REPEAT, sizeof(*t), cmp_d);
		printf("%6u %8u %8u %12.1f %12.1f %7.1fx\n", pts[i].gpus,
		       srv.n, pl.nst, t[REPEAT / 2], pts[i].paper_us,
		       pts[i].paper_us / t[REPEAT / 2]);
		bad |= checked(&pl, &srv) != 0;
		skew_plan_free(&pl);
		tmat_free(&srv);
		tmat_free(&m);
	}
	return (bad);
}

/* Every planner, one NIC a node: scheduling time and stages. */
static int
planner_times(void)
{
	static const uint32_t ns[] = {8, 16, 32, 64};
	char                  spec[64], err[256];
	size_t                i, a;
	int                   r, bad = 0;

	printf("\nscheduling time per planner, one NIC a node, Zipf 0.8, "
	       "delta 100 us (median of %d, us; stages in brackets)\n",
	       REPEAT);
	printf("%6s", "nodes");
	for (a = 0; a < NPL; a++)
		printf(" %18s", planners[a]);
	printf("\n");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct skew_params sp = params(100e-6, 1);
		struct tmat        m;

		snprintf(spec, sizeof(spec), "zipf:%u:0.8:7", ns[i]);
		if (tmat_generate(spec, 16u << 20, &m, err, sizeof(err)) != 0)
			return (1);
		printf("%6u", ns[i]);
		for (a = 0; a < NPL; a++) {
			struct skew_plan pl;
			double           t[REPEAT];
			char             cell[32];

			for (r = 0; r < REPEAT; r++) {
				if (skew_plan(planners[a], &m, &sp, NULL, &pl,
				              NULL, NULL) != 0)
					return (1);
				t[r] = pl.schedule_s * 1e6;
				if (r < REPEAT - 1)
					skew_plan_free(&pl);
			}
			qsort(t, REPEAT, sizeof(*t), cmp_d);
			snprintf(cell, sizeof(cell), "%.1f [%u]",
			         t[REPEAT / 2], pl.nst);
			printf(" %18s", cell);
			bad |= checked(&pl, &m) != 0;
			skew_plan_free(&pl);
		}
		printf("\n");
		tmat_free(&m);
	}
	return (bad);
}

/* The plain planner a's prediction among what auto tried. */
static double
tried_plain(const struct skew_tried *tr, uint32_t nt, const char *algo)
{
	uint32_t i;

	for (i = 0; i < nt; i++)
		if (!tr[i].reuse && strcmp(tr[i].algo, algo) == 0)
			return (tr[i].predicted_s);
	return (0);
}

/* predicted / LB over delta x skew, per planner and auto. */
static int
ratios(void)
{
	static const uint32_t ns[] = {8, 16, 64};
	static const double   ss[] = {0, 0.4, 0.8, 1.2};
	static const double   ds[] = {1e-6, 100e-6, 1e-3, 10e-3};
	char                  spec[64], err[256], b[32];
	size_t                i, j, k, a;
	double                worst = 0, worst_r = 0;
	int                   bad = 0;

	printf("\npredicted / lower bound for direct schedules, 16 MiB a "
	       "node (Zipf s, delta)\n"
	       "direct = the lowest of the five planners; auto = that or a "
	       "plan with circuit reuse\n"
	       "(multi-hop rides on kept configurations: it may go below the "
	       "direct bound)\n");
	printf("%4s %4s %7s", "N", "s", "delta");
	for (a = 0; a < NPL; a++)
		printf(" %9s", planners[a]);
	printf(" %9s %9s %18s\n", "direct", "auto", "auto chose");
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (j = 0; j < sizeof(ss) / sizeof(ss[0]); j++) {
			struct tmat m;

			snprintf(spec, sizeof(spec), "zipf:%u:%g:%zu", ns[i],
			         ss[j], 11 + j);
			if (tmat_generate(spec, 16u << 20, &m, err,
			                  sizeof(err)) != 0)
				return (1);
			for (k = 0; k < sizeof(ds) / sizeof(ds[0]); k++) {
				struct skew_params sp = params(ds[k], 1);
				struct skew_tried  tr[SKEW_NPLANNERS];
				struct skew_plan   pl;
				uint32_t           nt;
				double lb = skew_lower_bound(&m, &sp.cp), q,
				       direct = 1e300, v;

				if (skew_plan("auto", &m, &sp, NULL, &pl, tr,
				              &nt) != 0)
					return (1);
				printf("%4u %4.1f %7s", ns[i], ss[j],
				       unit_fmt_time(ds[k], b, sizeof(b)));
				for (a = 0; a < NPL; a++) {
					v = tried_plain(tr, nt, planners[a]);
					direct = v < direct ? v : direct;
					printf(" %9.3f", v / lb);
				}
				q = skew_cost(&pl, &sp.cp) / lb;
				worst =
				    direct / lb > worst ? direct / lb : worst;
				worst_r = q > worst_r ? q : worst_r;
				printf(" %9.3f %9.3f %18s\n", direct / lb, q,
				       pl.algo);
				bad |= checked(&pl, &m) != 0;
				skew_plan_free(&pl);
			}
			tmat_free(&m);
		}
	printf("worst direct ratio %.3f, worst auto ratio %.3f (goal: auto "
	       "<= 1.3 at N <= 64)\n",
	       worst, worst_r);
	return (bad);
}

/* More transceivers: stages packed on planes that reconfigure apart. */
static int
planes(void)
{
	static const double ds[] = {100e-6, 1e-3};
	char                err[256], b[32];
	struct tmat         m;
	size_t              k;
	uint32_t            t;
	int                 bad = 0;

	printf("\ntransceivers a node (planes), N = 16, Zipf 0.8, 16 MiB: "
	       "auto predicted, its bound for t\n");
	printf("%7s %3s %12s %12s %7s %18s\n", "delta", "t", "predicted",
	       "bound_t", "ratio", "chose");
	if (tmat_generate("zipf:16:0.8:13", 16u << 20, &m, err, sizeof(err)) !=
	    0)
		return (1);
	for (k = 0; k < sizeof(ds) / sizeof(ds[0]); k++)
		for (t = 1; t <= 4; t *= 2) {
			struct skew_params sp = params(ds[k], 1);
			struct skew_plan   pl;
			double             c, lb;
			char               c1[32], c2[32];

			sp.planes = t;
			if (skew_plan("auto", &m, &sp, NULL, &pl, NULL,
			              NULL) != 0)
				return (1);
			c = skew_cost_planes(&pl, &sp.cp, t, NULL);
			lb = skew_lower_bound_t(&m, &sp.cp, t);
			printf("%7s %3u %12s %12s %7.3f %18s\n",
			       unit_fmt_time(ds[k], b, sizeof(b)), t,
			       unit_fmt_time(c, c1, sizeof(c1)),
			       unit_fmt_time(lb, c2, sizeof(c2)), c / lb,
			       pl.algo);
			bad |= checked(&pl, &m) != 0;
			skew_plan_free(&pl);
		}
	tmat_free(&m);
	return (bad);
}

int
main(void)
{
	int bad = 0;

	printf("bench_skew: skewed All-to-All planners (400 Gbps, alpha 1.7 "
	       "+ 1 us, scale-up 2400 Gbps / 0.7 us)\n\n");
	bad |= fast_servers();
	bad |= planner_times();
	bad |= ratios();
	bad |= planes();
	return (bad ? 1 : 0);
}
