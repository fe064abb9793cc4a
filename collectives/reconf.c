/* SPDX-License-Identifier: BSD-2-Clause */
/* Optimal reconfiguration placement by DP over phase boundaries. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/reconf.h"

/* Cost of running phases j..k-1 on the configuration set before j. */
static double
run_cost(uint32_t nph, const double *c, uint32_t j, uint32_t k)
{
	double   sum = 0;
	uint32_t p;

	for (p = j; p < k; p++)
		sum += c[j * nph + p];
	return (sum);
}

double
reconf_eval(uint32_t nph, const double *c, const double *delta,
            const uint8_t *before)
{
	double   sum = 0;
	uint32_t j = 0, k;

	for (k = 1; k <= nph; k++) {
		if (k == nph || before[k]) {
			sum += run_cost(nph, c, j, k);
			if (k < nph)
				sum += delta[k];
			j = k;
		}
	}
	return (sum);
}

uint32_t
reconf_count(uint32_t nph, const uint8_t *before)
{
	uint32_t k, r = 0;

	for (k = 1; k < nph; k++)
		r += before[k] != 0;
	return (r);
}

int
reconf_solve(uint32_t nph, const double *c, const double *delta,
             struct reconf_result *res)
{
	/*
	 * f[R][k]: cheapest way to finish phases 0..k-1 with exactly R
	 * reconfigurations, the last run ending at boundary k.  arg[R][k]:
	 * where that last run starts.
	 */
	double   *f = NULL, *run = NULL;
	uint32_t *arg = NULL;
	uint32_t  R, j, k, N = nph + 1;
	int       rv = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (nph == 0)
		return (-EINVAL);
	f = malloc((size_t)nph * N * sizeof(*f));
	arg = malloc((size_t)nph * N * sizeof(*arg));
	run = malloc((size_t)N * N * sizeof(*run));
	res->by_r = malloc(nph * sizeof(*res->by_r));
	res->place = calloc((size_t)nph * nph, 1);
	if (!f || !arg || !run || !res->by_r || !res->place)
		goto out;
	res->nph = nph;

	for (j = 0; j < nph; j++)
		for (k = j + 1; k <= nph; k++)
			run[j * N + k] = run_cost(nph, c, j, k);
	for (R = 0; R < nph; R++)
		for (k = 0; k <= nph; k++) {
			f[R * N + k] = INFINITY;
			arg[R * N + k] = 0;
		}
	for (k = 1; k <= nph; k++)
		f[k] = run[k];
	for (R = 1; R < nph; R++) {
		for (k = R + 1; k <= nph; k++) {
			double best = INFINITY;
			/* Scan j downwards so that ties keep the later
			 * reconfiguration (strict < below). */
			for (j = k - 1; j >= R; j--) {
				double v = f[(R - 1) * N + j] + delta[j] +
				           run[j * N + k];
				if (v < best) {
					best = v;
					arg[R * N + k] = j;
				}
				if (j == 0)
					break;
			}
			f[R * N + k] = best;
		}
	}
	res->rstar = 0;
	res->best = INFINITY;
	for (R = 0; R < nph; R++) {
		uint8_t *pl = res->place + (size_t)R * nph;
		uint32_t r = R;

		res->by_r[R] = f[R * N + nph];
		for (k = nph; r > 0; r--) {
			k = arg[r * N + k];
			pl[k] = 1;
		}
		if (res->by_r[R] < res->best) {
			res->best = res->by_r[R];
			res->rstar = R;
		}
	}
	rv = 0;
out:
	free(f);
	free(arg);
	free(run);
	if (rv != 0)
		reconf_free(res);
	return (rv);
}

void
reconf_free(struct reconf_result *res)
{
	free(res->by_r);
	free(res->place);
	memset(res, 0, sizeof(*res));
}
