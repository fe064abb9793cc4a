/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Skewed All-to-All plans: storage, the byte assignment every planner
 * ends with, the independent check, the cost model and its lower bound,
 * and the choice among planners.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/skew.h"
#include "proto/base/errf.h"
#include "proto/base/mono.h"

static const struct skew_ops *const skew_all[] = {
    &skew_fast_ops,    &skew_spreadout_ops, &skew_solstice_ops,
    &skew_eclipse_ops, &skew_sorted_ops,
};
#define SKEW_NOPS (sizeof(skew_all) / sizeof(skew_all[0]))

const struct skew_ops *
skew_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < SKEW_NOPS; i++)
		if (strcmp(skew_all[i]->name, name) == 0)
			return (skew_all[i]);
	return (NULL);
}

const char *
skew_names(void)
{
	return ("fast, spreadout, solstice, eclipse, sorted, auto");
}

void
skew_plan_init(struct skew_plan *p, const char *algo, uint32_t n)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->algo, sizeof(p->algo), "%s", algo);
	p->n = n;
}

void
skew_plan_free(struct skew_plan *p)
{
	free(p->st);
	free(p->perm);
	free(p->real);
	free(p->ride);
	p->st = NULL;
	p->perm = NULL;
	p->real = NULL;
	p->ride = NULL;
	p->nst = p->cap = p->nride = p->cap_ride = 0;
}

int
skew_add_stage(struct skew_plan *p, uint64_t w)
{
	uint32_t k;

	if (p->nst == p->cap) {
		uint32_t           nc = p->cap ? p->cap * 2 : 16;
		struct skew_stage *st;
		uint32_t          *perm;
		uint64_t          *real;

		/* A stage costs 12 bytes a node: stay under 1 GiB. */
		if ((uint64_t)nc * p->n * 12 > ((uint64_t)1 << 30))
			return (-COLL_ETOOBIG);
		if ((st = realloc(p->st, nc * sizeof(*st))) == NULL)
			return (-ENOMEM);
		p->st = st;
		if ((perm = realloc(p->perm, (size_t)nc * p->n *
		                                 sizeof(*perm))) == NULL)
			return (-ENOMEM);
		p->perm = perm;
		if ((real = realloc(p->real, (size_t)nc * p->n *
		                                 sizeof(*real))) == NULL)
			return (-ENOMEM);
		p->real = real;
		p->cap = nc;
	}
	k = p->nst++;
	p->st[k].w = w;
	p->st[k].off = k * p->n;
	for (uint32_t i = 0; i < p->n; i++) {
		p->perm[(size_t)k * p->n + i] = SKEW_IDLE;
		p->real[(size_t)k * p->n + i] = 0;
	}
	return ((int)k);
}

int
skew_assign(struct skew_plan *p, const struct tmat *m)
{
	uint64_t *left;
	uint32_t  n = p->n, k, i, keep = 0;

	if ((left = malloc((size_t)n * n * sizeof(*left))) == NULL)
		return (-ENOMEM);
	memcpy(left, m->b, (size_t)n * n * sizeof(*left));
	for (k = 0; k < p->nst; k++) {
		uint32_t *perm = skew_perm(p, k);
		uint64_t *real = skew_real(p, k), any = 0;

		for (i = 0; i < n; i++) {
			uint64_t *l;

			real[i] = 0;
			if (perm[i] == SKEW_IDLE || perm[i] == i)
				continue;
			l = &left[(size_t)i * n + perm[i]];
			real[i] = *l < p->st[k].w ? *l : p->st[k].w;
			*l -= real[i];
			any |= real[i];
		}
		if (any == 0)
			continue;
		/* Compact: stage keep takes stage k's place. */
		if (keep != k) {
			memmove(skew_perm(p, keep), perm, n * sizeof(*perm));
			p->st[keep].w = p->st[k].w;
			memmove(p->real + (size_t)keep * n, real,
			        n * sizeof(*real));
		}
		keep++;
	}
	p->nst = keep;
	free(left);
	return (0);
}

#define CHK(...) errf(-EINVAL, err, errlen, __VA_ARGS__)

static int
check_stage(const struct skew_plan *p, const struct tmat *m, uint32_t k,
            uint8_t *hit, uint64_t *carried, char *err, size_t errlen)
{
	const uint32_t *perm = skew_perm(p, k);
	const uint64_t *real = skew_real(p, k);
	uint32_t        i, n = p->n;

	memset(hit, 0, n);
	for (i = 0; i < n; i++) {
		if (perm[i] == SKEW_IDLE) {
			if (real[i] != 0)
				return (CHK("stage %u: idle node %u carries "
				            "%llu bytes",
				            k, i,
				            (unsigned long long)real[i]));
			continue;
		}
		if (perm[i] >= n || perm[i] == i || hit[perm[i]]++)
			return (CHK("stage %u: node %u -> %u breaks the "
			            "permutation (incast or bad peer)",
			            k, i, perm[i]));
		if (real[i] > p->st[k].w)
			return (CHK("stage %u: node %u carries %llu bytes in "
			            "a stage of %llu",
			            k, i, (unsigned long long)real[i],
			            (unsigned long long)p->st[k].w));
		if (real[i] != 0 && tmat_at(m, i, perm[i]) == 0)
			return (CHK("stage %u: node %u sends padding to %u", k,
			            i, perm[i]));
		carried[(size_t)i * n + perm[i]] += real[i];
	}
	return (0);
}

/* A ride follows its stage's circuits from src to dst in its hops. */
static int
check_ride(const struct skew_plan *p, const struct tmat *m,
           const struct skew_ride *r, uint64_t *carried, char *err,
           size_t errlen)
{
	uint32_t h, at = r->src;

	if (r->stage >= p->nst || r->src >= p->n || r->dst >= p->n ||
	    r->hops < 2 || r->hops >= p->n || r->bytes == 0)
		return (CHK("ride %u -> %u in stage %u: bad", r->src, r->dst,
		            r->stage));
	for (h = 0; h < r->hops && at != SKEW_IDLE; h++)
		at = skew_perm(p, r->stage)[at];
	if (at != r->dst)
		return (CHK("ride %u -> %u: %u hops of stage %u end at %d",
		            r->src, r->dst, r->hops, r->stage,
		            at == SKEW_IDLE ? -1 : (int)at));
	if (tmat_at(m, r->src, r->dst) == 0)
		return (CHK("ride %u -> %u: no traffic", r->src, r->dst));
	carried[(size_t)r->src * p->n + r->dst] += r->bytes;
	return (0);
}

int
skew_check(const struct skew_plan *p, const struct tmat *m, char *err,
           size_t errlen)
{
	uint64_t *carried, sum = 0;
	uint8_t  *hit;
	uint32_t  n = p->n, k, i, j;
	int       rv = 0;

	if (m->n != n)
		return (CHK("plan for %u nodes, matrix of %u", n, m->n));
	carried = calloc((size_t)n * n, sizeof(*carried));
	hit = malloc(n);
	if (carried == NULL || hit == NULL) {
		rv = errf(-ENOMEM, err, errlen, "out of memory");
		goto out;
	}
	for (k = 0; k < p->nst && rv == 0; k++) {
		rv = check_stage(p, m, k, hit, carried, err, errlen);
		sum += p->st[k].w;
	}
	for (k = 0; k < p->nride && rv == 0; k++)
		rv = check_ride(p, m, &p->ride[k], carried, err, errlen);
	for (i = 0; i < n && rv == 0; i++)
		for (j = 0; j < n && rv == 0; j++)
			if (i != j &&
			    carried[(size_t)i * n + j] != tmat_at(m, i, j))
				rv =
				    CHK("pair %u -> %u: %llu bytes carried of "
				        "%llu",
				        i, j,
				        (unsigned long long)
				            carried[(size_t)i * n + j],
				        (unsigned long long)tmat_at(m, i, j));
	if (rv == 0 && p->padded && sum > tmat_rho(m))
		rv = CHK("stage durations sum to %llu, above rho %llu",
		         (unsigned long long)sum,
		         (unsigned long long)tmat_rho(m));
out:
	free(carried);
	free(hit);
	return (rv);
}

double
skew_lower_bound_t(const struct tmat *m, const struct cost_params *cp,
                   uint32_t t)
{
	double   a = cp->alpha_s + cp->alpha_h, d = cp->delta, rho = 0, v;
	double   lb;
	uint32_t i, j, k, deg = 0, s;

	t = t ? t : 1;
	/* A direct schedule needs a stage per peer of its busiest line
	 * (deg of them, over the t planes) and stages lasting at least the
	 * heaviest line's bytes (rho, over the t planes).  The two lines
	 * need not be the same one: the bound takes each at its worst, so
	 * a matrix whose heaviest row has one peer and whose widest row
	 * many small ones is bounded by both (issue 40: the per-line bound
	 * called an optimal plan 1.97 times it). */
	for (i = 0; i < m->n; i++)
		for (k = 0; k < 2; k++) {
			v = (double)(k ? tmat_col(m, i) : tmat_row(m, i));
			rho = v > rho ? v : rho;
			j = k ? tmat_col_nnz(m, i) : tmat_row_nnz(m, i);
			deg = j > deg ? j : deg;
		}
	if (deg == 0)
		return (0);
	/* Plane p takes K_p (a + d) - d + beta W_p, the sums of K_p and W_p
	 * at least deg and rho: the busiest plane is no less than their
	 * mean over t planes. */
	lb = ((double)deg * (a + d) + cp->beta * rho) / t - d;
	s = (deg + t - 1) / t; /* stages on the plane with the most */
	v = s * (a + d) - d;
	lb = v > lb ? v : lb;
	/* Some plane carries a t-th of the heaviest line at least (a pair
	 * may be split over stages and planes: its largest entry bounds
	 * nothing). */
	v = a + cp->beta * rho / t;
	return (v > lb ? v : lb);
}

double
skew_lower_bound(const struct tmat *m, const struct cost_params *cp)
{
	return (skew_lower_bound_t(m, cp, 1));
}

static int
cmp_desc(const void *a, const void *b, void *arg)
{
	const double *c = arg;
	double        x = c[*(const uint32_t *)a], y = c[*(const uint32_t *)b];

	return (x > y ? -1 : x < y);
}

double
skew_cost_planes(const struct skew_plan *p, const struct cost_params *cp,
                 uint32_t t, uint32_t *plane_of)
{
	uint64_t *load = malloc((p->n + 1) * sizeof(*load)), mx;
	double   *c = malloc((p->nst + 1) * sizeof(*c));
	double   *end = calloc(t ? t : 1, sizeof(*end)), worst = 0;
	uint32_t *ord = malloc((p->nst + 1) * sizeof(*ord)), *used;
	uint32_t  k, q, best, h;

	used = calloc(t ? t : 1, sizeof(*used));
	if (t == 1 && load && c && end && ord && used) {
		/* One plane: the serial sum, in stage order (the same
		 * figure as skew_cost, to the last bit). */
		for (k = 0; plane_of != NULL && k < p->nst; k++)
			plane_of[k] = 0;
		worst = skew_cost(p, cp);
		goto out;
	}
	if (!load || !c || !end || !ord || !used || t == 0) {
		worst = t == 0 ? 0 : 1e300;
		goto out;
	}
	for (k = 0; k < p->nst; k++) {
		skew_stage_load(p, k, load, &mx, &h);
		c[k] = cp->alpha_s + cp->alpha_h * (h ? h : 1) +
		       cp->beta * (double)mx;
		ord[k] = k;
	}
	qsort_r(ord, p->nst, sizeof(*ord), cmp_desc, c);
	for (k = 0; k < p->nst; k++) {
		for (best = 0, q = 1; q < t; q++)
			if (end[q] + (used[q] ? cp->delta : 0) <
			    end[best] + (used[best] ? cp->delta : 0))
				best = q;
		end[best] += c[ord[k]] + (used[best] ? cp->delta : 0);
		used[best]++;
		if (plane_of != NULL)
			plane_of[ord[k]] = best;
	}
	for (q = 0; q < t; q++)
		worst = end[q] > worst ? end[q] : worst;
out:
	free(load);
	free(c);
	free(end);
	free(ord);
	free(used);
	return (worst);
}

void
skew_stage_load(const struct skew_plan *p, uint32_t k, uint64_t *load,
                uint64_t *mx, uint32_t *hops)
{
	const uint32_t *perm = skew_perm(p, k);
	uint32_t        i, x, h, at;

	*hops = 0;
	for (i = 0; i < p->n; i++) {
		load[i] = skew_real(p, k)[i];
		if (load[i] > 0)
			*hops = 1;
	}
	for (x = 0; x < p->nride; x++) {
		if (p->ride[x].stage != k)
			continue;
		for (h = 0, at = p->ride[x].src; h < p->ride[x].hops;
		     h++, at = perm[at])
			load[at] += p->ride[x].bytes;
		*hops = p->ride[x].hops > *hops ? p->ride[x].hops : *hops;
	}
	for (*mx = 0, i = 0; i < p->n; i++)
		*mx = load[i] > *mx ? load[i] : *mx;
}

double
skew_cost(const struct skew_plan *p, const struct cost_params *cp)
{
	uint64_t *load = malloc((p->n + 1) * sizeof(*load)), mx;
	double    t = 0;
	uint32_t  k, h;

	if (load == NULL)
		return (1e300); /* never chosen */
	for (k = 0; k < p->nst; k++) {
		skew_stage_load(p, k, load, &mx, &h);
		t += cp->alpha_s + cp->alpha_h * (h ? h : 1) +
		     cp->beta * (double)mx + (k > 0 ? cp->delta : 0);
	}
	free(load);
	return (t);
}

static int
plan_one(const struct skew_ops *ops, const struct tmat *m,
         const struct skew_params *sp, struct skew_plan *p)
{
	uint64_t t0 = mono_ns();
	int      rv;

	skew_plan_init(p, ops->name, m->n);
	if ((rv = ops->plan(m, sp, p)) != 0) {
		skew_plan_free(p);
		return (rv);
	}
	p->schedule_s = (double)(mono_ns() - t0) * 1e-9;
	return (0);
}

static double
predict(const struct skew_plan *p, const struct skew_params *sp,
        const struct skew_su *su)
{
	if (su != NULL)
		return (skew_cost_pipeline(p, sp, su));
	if (sp->planes > 1)
		return (skew_cost_planes(p, &sp->cp, sp->planes, NULL));
	return (skew_cost(p, &sp->cp));
}

/* Keep cand if it beats *out (or there is none yet); free the loser. */
static void
keep_best(struct skew_plan *out, int *have, double *best,
          struct skew_plan *cand, double c)
{
	if (!*have || c < *best) {
		if (*have)
			skew_plan_free(out);
		*out = *cand;
		*best = c;
		*have = 1;
	} else
		skew_plan_free(cand);
}

/* A copy of p (for trying reuse on it), or -ENOMEM. */
static int
plan_copy(const struct skew_plan *p, struct skew_plan *q)
{
	size_t e = (size_t)p->nst * p->n;

	*q = *p;
	q->ride = NULL;
	q->nride = q->cap_ride = 0;
	q->cap = p->nst ? p->nst : 1;
	q->st = malloc(q->cap * sizeof(*q->st));
	q->perm = malloc((e + 1) * sizeof(*q->perm));
	q->real = malloc((e + 1) * sizeof(*q->real));
	if (!q->st || !q->perm || !q->real) {
		skew_plan_free(q);
		return (-ENOMEM);
	}
	memcpy(q->st, p->st, p->nst * sizeof(*q->st));
	memcpy(q->perm, p->perm, e * sizeof(*q->perm));
	memcpy(q->real, p->real, e * sizeof(*q->real));
	return (0);
}

int
skew_plan(const char *name, const struct tmat *m, const struct skew_params *sp,
          const struct skew_su *su, struct skew_plan *out,
          struct skew_tried *tried, uint32_t *ntried)
{
	const struct skew_ops *one = NULL;
	struct skew_plan       cand, re;
	uint64_t               t0 = mono_ns(), t1;
	double                 best = 0, c;
	size_t                 i;
	uint32_t               nt = 0;
	int                    rv, have = 0;

	if (strcmp(name, "auto") != 0 && (one = skew_lookup(name)) == NULL)
		return (-COLL_EALGO);
	for (i = 0; i < SKEW_NOPS; i++) {
		if (one != NULL && skew_all[i] != one)
			continue;
		if (skew_all[i]->max_n && m->n > skew_all[i]->max_n) {
			if (one == NULL) /* auto: the others will do */
				continue;
			rv = -COLL_ENODES;
			goto fail;
		}
		if (sp->watch != NULL &&
		    sp->watch->step(sp->watch->arg, skew_all[i]->name,
		                    one ? 0 : (uint32_t)i,
		                    one ? 1 : (uint32_t)SKEW_NOPS) != 0) {
			rv = -ECANCELED;
			goto fail;
		}
		if ((rv = plan_one(skew_all[i], m, sp, &cand)) != 0)
			goto fail;
		c = predict(&cand, sp, su);
		if (tried != NULL)
			tried[nt] =
			    (struct skew_tried){skew_all[i]->name, cand.nst, c,
			                        cand.schedule_s, 0};
		nt++;
		/* auto: the same plan with circuit reuse, one NIC a node. */
		if (one == NULL && su == NULL && cand.nst <= 4 * m->n &&
		    cand.nst > 1) {
			t1 = mono_ns();
			if ((rv = plan_copy(&cand, &re)) != 0 ||
			    (rv = skew_reuse(&re, &sp->cp, 4 * m->n)) != 0) {
				skew_plan_free(&cand);
				goto fail;
			}
			re.schedule_s =
			    cand.schedule_s + (double)(mono_ns() - t1) * 1e-9;
			if (re.nride > 0 || re.nst < cand.nst) {
				double cr = predict(&re, sp, su);

				if (tried != NULL)
					tried[nt] = (struct skew_tried){
					    skew_all[i]->name, re.nst, cr,
					    re.schedule_s, 1};
				nt++;
				keep_best(out, &have, &best, &re, cr);
			} else
				skew_plan_free(&re);
		}
		keep_best(out, &have, &best, &cand, c);
	}
	if (one == NULL)
		out->schedule_s = (double)(mono_ns() - t0) * 1e-9;
	if (ntried != NULL)
		*ntried = nt;
	return (0);
fail:
	if (have)
		skew_plan_free(out);
	return (rv);
}
