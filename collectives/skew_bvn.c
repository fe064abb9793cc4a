/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Decompositions into permutations: FAST's Birkhoff-von Neumann (pad to
 * a scaled doubly stochastic matrix, peel perfect matchings weighted by
 * their smallest entry), a Solstice-style one (the same padding, peeled
 * in slices of decreasing power-of-two thresholds) and the SpreadOut
 * baseline (fixed shifts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/match.h"
#include "collectives/skew.h"

/*
 * The off-diagonal traffic padded to row and column sums rho: the deficit
 * of every row that is short is spread over the columns that are short
 * (north-west corner, so at most 2n - 1 entries change).  Padding on the
 * diagonal is allowed: a node matched to itself is idle in that stage.
 * If `onto_traffic`, deficits go first to entries that already carry
 * traffic, so padding adds as few new circuits as possible (Solstice).
 */
uint64_t *
skew_pad(const struct tmat *m, uint64_t rho, int onto_traffic)
{
	uint32_t  n = m->n, i, j;
	uint64_t *p = malloc((size_t)n * n * sizeof(*p));
	uint64_t *rd = malloc(n * sizeof(*rd)), *cd = malloc(n * sizeof(*cd));

	if (p == NULL || rd == NULL || cd == NULL) {
		free(p);
		p = NULL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		rd[i] = rho - tmat_row(m, i);
		cd[i] = rho - tmat_col(m, i);
		for (j = 0; j < n; j++)
			p[(size_t)i * n + j] = i == j ? 0 : tmat_at(m, i, j);
	}
	if (onto_traffic)
		for (i = 0; i < n; i++)
			for (j = 0; j < n && rd[i] > 0; j++) {
				uint64_t a = rd[i] < cd[j] ? rd[i] : cd[j];

				if (a == 0 || p[(size_t)i * n + j] == 0)
					continue;
				p[(size_t)i * n + j] += a;
				rd[i] -= a;
				cd[j] -= a;
			}
	for (i = 0, j = 0; i < n && j < n;) {
		uint64_t a = rd[i] < cd[j] ? rd[i] : cd[j];

		p[(size_t)i * n + j] += a;
		rd[i] -= a;
		cd[j] -= a;
		if (rd[i] == 0)
			i++;
		else
			j++;
	}
out:
	free(rd);
	free(cd);
	return (p);
}

/* Append the matching as a stage of duration w, and take w off every
 * matched entry (dropping the pairs that reach zero). */
static int
peel(struct skew_plan *pl, struct match *mt, uint64_t *p, uint64_t w)
{
	uint32_t n = pl->n, i, *perm;
	int      k;

	if ((k = skew_add_stage(pl, w)) < 0)
		return (k);
	perm = skew_perm(pl, (uint32_t)k);
	for (i = 0; i < n; i++) {
		uint32_t j = mt->r2c[i];

		perm[i] = j == i ? SKEW_IDLE : j;
		if ((p[(size_t)i * n + j] -= w) == 0)
			match_drop(mt, i);
	}
	return (0);
}

int
skew_bvn(uint64_t *p, uint64_t rho, struct skew_plan *pl)
{
	struct match mt;
	uint64_t     left = rho, w;
	uint32_t     n = pl->n, i;
	int          rv;

	if ((rv = match_init(&mt, n)) != 0)
		return (rv);
	while (left > 0) {
		/* Birkhoff: a positive matrix with equal line sums has a
		 * perfect matching on its support. */
		if (match_grow(&mt, p, 1) != n) {
			rv = -EDOM;
			break;
		}
		for (w = UINT64_MAX, i = 0; i < n; i++)
			if (p[(size_t)i * n + mt.r2c[i]] < w)
				w = p[(size_t)i * n + mt.r2c[i]];
		if ((rv = peel(pl, &mt, p, w)) != 0)
			break;
		left -= w;
	}
	match_fini(&mt);
	return (rv);
}

static int
fast_plan(const struct tmat *m, const struct skew_params *sp,
          struct skew_plan *pl)
{
	uint64_t *p;
	int       rv;

	(void)sp;
	pl->rho = tmat_rho(m);
	pl->padded = 1;
	if ((p = skew_pad(m, pl->rho, 0)) == NULL)
		return (-ENOMEM);
	rv = skew_bvn(p, pl->rho, pl);
	free(p);
	return (rv != 0 ? rv : skew_assign(pl, m));
}

/*
 * Solstice (Liu et al., CoNEXT 2015): thresholds r = 2^k from the largest
 * entry down; a perfect matching on the entries >= r becomes a stage as
 * long as the matching's smallest entry (>= r), as published, so a
 * permutation is one stage, never the same one back to back in slices of
 * r (issue 40: [[0,7MiB],[3MiB,0]] took 3 stages, uniform:12:3MiB 22).
 * Each stage keeps the line sums equal, so the threshold ends at 1 with
 * Birkhoff's guarantee at worst.
 */
static int
solstice_plan(const struct tmat *m, const struct skew_params *sp,
              struct skew_plan *pl)
{
	struct match mt;
	uint64_t    *p, rho = tmat_rho(m), left = rho, r = 1, mx = 0, w;
	uint32_t     n = m->n, i;
	int          rv;

	(void)sp;
	pl->rho = rho;
	pl->padded = 1;
	if ((p = skew_pad(m, rho, 1)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < n * n; i++)
		mx = p[i] > mx ? p[i] : mx;
	while (r <= mx / 2)
		r *= 2;
	if ((rv = match_init(&mt, n)) != 0) {
		free(p);
		return (rv);
	}
	while (left > 0) {
		for (i = 0; i < n; i++)
			if (mt.r2c[i] != MATCH_NONE &&
			    p[(size_t)i * n + mt.r2c[i]] < r)
				match_drop(&mt, i);
		if (match_grow(&mt, p, r) != n) {
			if (r == 1) {
				rv = -EDOM;
				break;
			}
			r /= 2;
			continue;
		}
		for (w = UINT64_MAX, i = 0; i < n; i++)
			if (p[(size_t)i * n + mt.r2c[i]] < w)
				w = p[(size_t)i * n + mt.r2c[i]];
		if ((rv = peel(pl, &mt, p, w)) != 0)
			break;
		left -= w;
	}
	match_fini(&mt);
	free(p);
	return (rv != 0 ? rv : skew_assign(pl, m));
}

/* SpreadOut: stage k sends i -> i + k for k = 1 .. n-1, as long as the
 * longest of its pairs. */
static int
spreadout_plan(const struct tmat *m, const struct skew_params *sp,
               struct skew_plan *pl)
{
	uint32_t n = m->n, i, k;
	uint64_t w;
	int      s;

	(void)sp;
	pl->rho = tmat_rho(m);
	for (k = 1; k < n; k++) {
		for (w = 0, i = 0; i < n; i++)
			if (tmat_at(m, i, (i + k) % n) > w)
				w = tmat_at(m, i, (i + k) % n);
		if (w == 0)
			continue;
		if ((s = skew_add_stage(pl, w)) < 0)
			return (s);
		for (i = 0; i < n; i++)
			skew_perm(pl, (uint32_t)s)[i] = (i + k) % n;
	}
	return (skew_assign(pl, m));
}

const struct skew_ops skew_fast_ops = {"fast", fast_plan, SKEW_FAST_MAX_N};
const struct skew_ops skew_solstice_ops = {"solstice", solstice_plan, 0};
const struct skew_ops skew_spreadout_ops = {"spreadout", spreadout_plan, 0};
