/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An Eclipse-style greedy for makespan with reconfiguration delay: each
 * stage is the matching and duration t that serve the most bytes per
 * unit of time spent on them, min(t, D_ij) summed over the matching
 * divided by (alpha + beta * t + delta).  Durations are tried on a
 * power-of-two grid below the largest remaining entry; each is judged by
 * a greedy matching (one sort a stage), the winner is then matched
 * exactly by maximum weight.  No padding: stages carry only traffic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/match.h"
#include "collectives/skew.h"

#define ECL_TRIES 96 /* durations tried a stage, 2^(1/4) apart */

struct ecl {
	uint32_t  n;
	uint64_t *d;   /* remaining traffic */
	uint32_t *ord; /* positive entries, largest first */
	uint32_t  nord;
	uint8_t  *rbusy, *cbusy;
	int64_t  *w;
	double    fixed, beta; /* alpha + delta; s per byte */
	int       whole;       /* never cut an entry: t is the largest */
};

static int
by_size_desc(const void *a, const void *b, void *arg)
{
	const uint64_t *d = arg;
	uint64_t x = d[*(const uint32_t *)a], y = d[*(const uint32_t *)b];

	return (x < y ? 1 : x > y ? -1 : 0);
}

/* Bytes a greedy matching serves in a stage of duration t, and the
 * longest it needs (the stage's real duration). */
static uint64_t
greedy(struct ecl *e, uint64_t t, uint64_t *teff)
{
	uint64_t served = 0;
	uint32_t k;

	memset(e->rbusy, 0, e->n);
	memset(e->cbusy, 0, e->n);
	*teff = 0;
	for (k = 0; k < e->nord; k++) {
		uint32_t i = e->ord[k] / e->n, j = e->ord[k] % e->n;
		uint64_t v = e->d[e->ord[k]] < t ? e->d[e->ord[k]] : t;

		if (e->rbusy[i] || e->cbusy[j])
			continue;
		e->rbusy[i] = e->cbusy[j] = 1;
		served += v;
		*teff = v > *teff ? v : *teff;
	}
	return (served);
}

/* The duration with the best bytes per second, larger on a tie. */
static uint64_t
pick_t(struct ecl *e)
{
	uint64_t t = e->d[e->ord[0]], best_t = t, teff, s;
	double   best = -1, u;
	int      k;

	for (k = 0; k < ECL_TRIES && t > 0;
	     k++, t = (uint64_t)((double)t * 0.8408964152537145)) {
		s = greedy(e, t, &teff);
		u = (double)s / (e->fixed + e->beta * (double)teff);
		if (u > best * (1 + 1e-12)) {
			best = u;
			best_t = t;
		}
	}
	return (best_t);
}

static int
stage(struct ecl *e, struct match *mt, struct skew_plan *pl)
{
	uint32_t n = e->n, i, k;
	uint64_t t, teff = 0;
	int      s;

	for (e->nord = 0, k = 0; k < n * n; k++)
		if (e->d[k] > 0)
			e->ord[e->nord++] = k;
	qsort_r(e->ord, e->nord, sizeof(*e->ord), by_size_desc, e->d);
	t = e->whole ? e->d[e->ord[0]] : pick_t(e);
	for (k = 0; k < n * n; k++)
		e->w[k] = (int64_t)(e->d[k] < t ? e->d[k] : t);
	match_max_weight(mt, e->w);
	for (i = 0; i < n; i++)
		if (mt->r2c[i] != MATCH_NONE &&
		    (uint64_t)e->w[(size_t)i * n + mt->r2c[i]] > teff)
			teff = (uint64_t)e->w[(size_t)i * n + mt->r2c[i]];
	if ((s = skew_add_stage(pl, teff)) < 0)
		return (s);
	for (i = 0; i < n; i++) {
		uint32_t j = mt->r2c[i];

		if (j == MATCH_NONE)
			continue;
		skew_perm(pl, (uint32_t)s)[i] = j;
		e->d[(size_t)i * n + j] -= (uint64_t)e->w[(size_t)i * n + j];
	}
	return (0);
}

static int
greedy_plan(const struct tmat *m, const struct skew_params *sp,
            struct skew_plan *pl, int whole)
{
	struct match mt;
	struct ecl   e;
	uint32_t     n = m->n, i;
	uint64_t     left = 0;
	int          rv;

	memset(&e, 0, sizeof(e));
	e.n = n;
	e.whole = whole;
	e.fixed = sp->cp.alpha_s + sp->cp.alpha_h + sp->cp.delta;
	e.beta = sp->cp.beta;
	if (e.fixed <= 0)
		e.fixed = 1e-12; /* a stage is never free */
	pl->rho = tmat_rho(m);
	e.d = malloc((size_t)n * n * sizeof(*e.d));
	e.ord = malloc((size_t)n * n * sizeof(*e.ord));
	e.w = malloc((size_t)n * n * sizeof(*e.w));
	e.rbusy = malloc(n);
	e.cbusy = malloc(n);
	rv = match_init(&mt, n);
	if (!e.d || !e.ord || !e.w || !e.rbusy || !e.cbusy || rv != 0) {
		rv = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n * n; i++) {
		e.d[i] = i / n == i % n ? 0 : m->b[i];
		left += e.d[i];
	}
	while (left > 0 && rv == 0) {
		uint64_t before = 0, after = 0;

		for (i = 0; i < n * n; i++)
			before += e.d[i];
		rv = stage(&e, &mt, pl);
		for (i = 0; i < n * n; i++)
			after += e.d[i];
		left = after;
		if (rv == 0 && after >= before)
			rv = -EDOM; /* cannot happen: a stage serves bytes */
	}
	if (rv == 0)
		rv = skew_assign(pl, m);
out:
	match_fini(&mt);
	free(e.d);
	free(e.ord);
	free(e.w);
	free(e.rbusy);
	free(e.cbusy);
	return (rv);
}

static int
eclipse_plan(const struct tmat *m, const struct skew_params *sp,
             struct skew_plan *pl)
{
	return (greedy_plan(m, sp, pl, 0));
}

/*
 * Whole entries, heaviest matching first: every stage is the maximum
 * weight matching of what remains, each pair sent whole.  On a dense
 * matrix that is exactly n - 1 stages (what remains stays regular), the
 * fewest reconfigurations a direct schedule can have, with large entries
 * grouped so that a stage's duration is spent by most of its pairs.
 */
static int
sorted_plan(const struct tmat *m, const struct skew_params *sp,
            struct skew_plan *pl)
{
	return (greedy_plan(m, sp, pl, 1));
}

const struct skew_ops skew_eclipse_ops = {"eclipse", eclipse_plan, 0};
const struct skew_ops skew_sorted_ops = {"sorted", sorted_plan, 0};
