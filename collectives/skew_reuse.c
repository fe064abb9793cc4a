/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Circuit reuse for skewed plans (see skew_reuse in skew.h): a stage
 * whose pairs can travel, over several hops, along the permutations of
 * stages that stay, and for less than the reconfiguration and stage time
 * it costs, is removed.  Costs are the model's (skew_cost): each stage's
 * busiest circuit and longest path, kept per stage and changed
 * incrementally, so a trial costs O(pairs * stages * n).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/skew.h"

struct reuse {
	struct skew_plan         *p;
	const struct cost_params *cp;
	uint32_t                  n, K;
	uint64_t                 *load; /* K * n: bytes a node sends */
	uint32_t                 *hmax; /* K */
	uint8_t                  *alive, *carries; /* K */
	/* A trial's moves: pair (src, dst, bytes) to stage `to`. */
	struct move {
		uint32_t to, src, dst, hops;
		uint64_t bytes;
	} * mv;
	uint32_t nmv;
};

static uint64_t
stage_max(const struct reuse *r, uint32_t k)
{
	const uint64_t *l = r->load + (size_t)k * r->n;
	uint64_t        mx = 0;
	uint32_t        i;

	for (i = 0; i < r->n; i++)
		mx = l[i] > mx ? l[i] : mx;
	return (mx);
}

static double
stage_cost(const struct reuse *r, uint32_t k)
{
	return (r->cp->alpha_s + r->cp->alpha_h * r->hmax[k] +
	        r->cp->beta * (double)stage_max(r, k));
}

/* Hops from i to j along stage m's permutation, 0 if j is not on i's
 * cycle. */
static uint32_t
hops(const struct reuse *r, uint32_t m, uint32_t i, uint32_t j)
{
	const uint32_t *perm = skew_perm(r->p, m);
	uint32_t        h, at = i;

	for (h = 1; h <= r->n; h++) {
		if ((at = perm[at]) == SKEW_IDLE)
			return (0);
		if (at == j)
			return (h);
		if (at == i)
			return (0);
	}
	return (0);
}

/* Add (or, with sign -1, take back) bytes along the path. */
static void
carry(struct reuse *r, const struct move *v, int sign)
{
	const uint32_t *perm = skew_perm(r->p, v->to);
	uint64_t       *l = r->load + (size_t)v->to * r->n;
	uint32_t        h, at = v->src;

	for (h = 0; h < v->hops; h++, at = perm[at])
		l[at] = sign > 0 ? l[at] + v->bytes : l[at] - v->bytes;
}

/* The cheapest stage to carry bytes from i to j; its added cost. */
static double
best_stage(struct reuse *r, uint32_t k, uint32_t i, uint32_t j, uint64_t b,
           struct move *out)
{
	double   best = -1, d, before;
	uint32_t m, h, oh;

	for (m = 0; m < r->K; m++) {
		struct move v;

		if (m == k || !r->alive[m] || (h = hops(r, m, i, j)) == 0)
			continue;
		v = (struct move){m, i, j, h, b};
		before = stage_cost(r, m);
		oh = r->hmax[m];
		carry(r, &v, 1);
		r->hmax[m] = h > oh ? h : oh;
		d = stage_cost(r, m) - before;
		carry(r, &v, -1);
		r->hmax[m] = oh;
		if (best < 0 || d < best) {
			best = d;
			*out = v;
		}
	}
	return (best);
}

/* Try to remove stage k: 1 if done. */
static int
try_remove(struct reuse *r, uint32_t k, uint32_t nalive)
{
	const uint32_t *perm = skew_perm(r->p, k);
	const uint64_t *real = skew_real(r->p, k);
	double          gain = stage_cost(r, k) + r->cp->delta, spent = 0, d;
	uint32_t        i, *oh = r->hmax + r->K; /* scratch: K more */

	if (nalive < 2 || r->carries[k])
		return (0);
	memcpy(oh, r->hmax, r->K * sizeof(*oh));
	r->nmv = 0;
	for (i = 0; i < r->n && spent < gain; i++) {
		struct move v;

		if (perm[i] == SKEW_IDLE || real[i] == 0)
			continue;
		if ((d = best_stage(r, k, i, perm[i], real[i], &v)) < 0) {
			spent = gain; /* unreachable elsewhere */
			break;
		}
		carry(r, &v, 1);
		if (v.hops > r->hmax[v.to])
			r->hmax[v.to] = v.hops;
		r->mv[r->nmv++] = v;
		spent += d;
	}
	if (spent < gain) {
		r->alive[k] = 0;
		return (1);
	}
	while (r->nmv > 0)
		carry(r, &r->mv[--r->nmv], -1);
	memcpy(r->hmax, oh, r->K * sizeof(*oh));
	return (0);
}

/* Put a committed trial's moves into the plan. */
static int
commit(struct reuse *r)
{
	struct skew_plan *p = r->p;
	uint32_t          t, x;

	for (t = 0; t < r->nmv; t++) {
		const struct move *v = &r->mv[t];

		r->carries[v->to] = 1;
		if (v->hops == 1) { /* its own circuit there: direct */
			skew_real(p, v->to)[v->src] += v->bytes;
			if (skew_real(p, v->to)[v->src] > p->st[v->to].w)
				p->st[v->to].w = skew_real(p, v->to)[v->src];
			continue;
		}
		for (x = 0; x < p->nride; x++)
			if (p->ride[x].stage == v->to &&
			    p->ride[x].src == v->src &&
			    p->ride[x].dst == v->dst)
				break;
		if (x == p->nride) {
			if (p->nride == p->cap_ride) {
				uint32_t nc =
				    p->cap_ride ? 2 * p->cap_ride : 64;
				struct skew_ride *nr =
				    realloc(p->ride, nc * sizeof(*nr));

				if (nr == NULL)
					return (-ENOMEM);
				p->ride = nr;
				p->cap_ride = nc;
			}
			p->ride[p->nride++] = (struct skew_ride){
			    v->to, v->src, v->dst, v->hops, 0};
		}
		p->ride[x].bytes += v->bytes;
	}
	return (0);
}

/* Drop the removed stages; rides follow their stage's new index. */
static void
compact(struct reuse *r)
{
	struct skew_plan *p = r->p;
	uint32_t          k, keep = 0, x, *to = r->hmax; /* reused */

	for (k = 0; k < r->K; k++) {
		to[k] = keep;
		if (!r->alive[k])
			continue;
		if (keep != k) {
			memmove(skew_perm(p, keep), skew_perm(p, k),
			        r->n * sizeof(*p->perm));
			memmove(skew_real(p, keep), skew_real(p, k),
			        r->n * sizeof(*p->real));
			p->st[keep].w = p->st[k].w;
		}
		keep++;
	}
	for (x = 0; x < p->nride; x++)
		p->ride[x].stage = to[p->ride[x].stage];
	p->nst = keep;
}

static int
cmp_cost(const void *a, const void *b, void *arg)
{
	const double *c = arg;
	double        x = c[*(const uint32_t *)a], y = c[*(const uint32_t *)b];

	return (x < y ? -1 : x > y);
}

int
skew_reuse(struct skew_plan *p, const struct cost_params *cp,
           uint32_t max_stages)
{
	struct reuse r = {.p = p, .cp = cp, .n = p->n, .K = p->nst};
	double      *c = NULL;
	uint32_t    *ord = NULL, k, i, nalive = p->nst, removed = 0, pass;
	int          rv = -ENOMEM;

	if (p->nst < 2 || p->nst > max_stages || p->nride > 0)
		return (0);
	r.load = calloc((size_t)r.K * r.n, sizeof(*r.load));
	r.hmax = calloc(2 * (size_t)r.K, sizeof(*r.hmax));
	r.alive = malloc(r.K);
	r.carries = calloc(r.K, 1);
	r.mv = malloc((r.n + 1) * sizeof(*r.mv));
	c = malloc(r.K * sizeof(*c));
	ord = malloc(r.K * sizeof(*ord));
	if (!r.load || !r.hmax || !r.alive || !r.carries || !r.mv || !c ||
	    !ord)
		goto out;
	memset(r.alive, 1, r.K);
	for (k = 0; k < r.K; k++) {
		for (i = 0; i < r.n; i++)
			r.load[(size_t)k * r.n + i] = skew_real(p, k)[i];
		r.hmax[k] = 1;
		c[k] = stage_cost(&r, k);
		ord[k] = k;
	}
	qsort_r(ord, r.K, sizeof(*ord), cmp_cost, c);
	rv = 0;
	for (pass = 0, removed = 1; removed && pass < 4 && rv == 0; pass++)
		for (removed = 0, k = 0; k < r.K && rv == 0; k++)
			if (r.alive[ord[k]] &&
			    try_remove(&r, ord[k], nalive)) {
				rv = commit(&r);
				nalive--;
				removed++;
			}
	if (rv == 0 && nalive < p->nst) {
		compact(&r);
		p->padded = 0; /* no longer FAST's decomposition of rho */
		strncat(p->algo, "+reuse",
		        sizeof(p->algo) - strlen(p->algo) - 1);
	}
out:
	free(r.load);
	free(r.hmax);
	free(r.alive);
	free(r.carries);
	free(r.mv);
	free(c);
	free(ord);
	return (rv);
}
