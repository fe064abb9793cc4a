/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_reconf.c: the reconfiguration DP against brute force
 * over all 2^(s-1) placements for s <= 10, on random cost matrices with
 * random per-boundary delays and on the matrices of the real algorithms.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/a2a.h"

static double
rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return ((double)(*x >> 11) / 9007199254740992.0);
}

/* DP result equals brute force for every R. */
static void
check_against_brute(uint32_t nph, const double *c, const double *d)
{
	struct reconf_result res;
	double               best[16], gbest = INFINITY;
	uint8_t              before[16];
	uint32_t             mask, k, R, gr = 0;

	assert_int_equal(reconf_solve(nph, c, d, &res), 0);
	for (R = 0; R < nph; R++)
		best[R] = INFINITY;
	for (mask = 0; mask < (1u << (nph - 1)); mask++) {
		double v;

		memset(before, 0, sizeof(before));
		for (k = 1; k < nph; k++)
			before[k] = (mask >> (k - 1)) & 1;
		v = reconf_eval(nph, c, d, before);
		R = reconf_count(nph, before);
		if (v < best[R])
			best[R] = v;
	}
	for (R = 0; R < nph; R++) {
		const uint8_t *pl = res.place + (size_t)R * nph;

		if (fabs(res.by_r[R] - best[R]) > 1e-12 * fabs(best[R]))
			fail_msg("nph=%u R=%u: dp %.15g brute %.15g", nph, R,
			         res.by_r[R], best[R]);
		/* The placement reported achieves it with exactly R. */
		assert_int_equal(reconf_count(nph, pl), R);
		assert_true(fabs(reconf_eval(nph, c, d, pl) - best[R]) <=
		            1e-12 * fabs(best[R]));
		if (best[R] < gbest) {
			gbest = best[R];
			gr = R;
		}
	}
	assert_int_equal(res.rstar, gr);
	assert_true(res.best == res.by_r[gr]);
	reconf_free(&res);
}

static void
test_reconf_dp_matches_brute_force_random(void **state)
{
	uint64_t x = 88172645463325252ull;
	double   c[16 * 16], d[16];
	uint32_t nph, trial, j, k;

	(void)state;
	for (nph = 1; nph <= 10; nph++)
		for (trial = 0; trial < 200; trial++) {
			for (j = 0; j < nph; j++)
				for (k = 0; k < nph; k++)
					c[j * nph + k] =
					    k >= j ? rnd(&x) * (1 + k - j) : 0;
			for (k = 0; k < nph; k++)
				d[k] = rnd(&x) * (trial % 3);
			check_against_brute(nph, c, d);
		}
}

static void
test_reconf_dp_matches_brute_force_algorithms(void **state)
{
	static const char *const algos[] = {"retri", "bridge"};
	static const uint32_t    ns[] = {9,   27,  81,   100,  243,
	                                 500, 729, 2187, 6561, 19683};
	static const double      deltas[] = {0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3};
	struct cost_params       cp = {
	          .alpha_s = 1.7e-6, .alpha_h = 1e-6, .beta = 2e-11};
	double   c[32 * 32], d[32];
	size_t   ai, ni, di;
	uint32_t k;

	(void)state;
	for (ai = 0; ai < 2; ai++)
		for (ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
			struct a2a a;

			assert_int_equal(a2a_init(&a, algos[ai], ns[ni]), 0);
			if (a2a_nphases(&a) > 10) {
				a2a_fini(&a);
				continue;
			}
			for (di = 0; di < sizeof(deltas) / sizeof(deltas[0]);
			     di++) {
				uint32_t nph = a2a_nphases(&a);

				assert_int_equal(
				    circ_cost_matrix(
				        &a.prof, &cp,
				        (double)(1 << 20) /
				            (ns[ni] * a.prof.parts),
				        c),
				    0);
				for (k = 0; k < nph; k++)
					d[k] = deltas[di] * (1 + k % 2);
				check_against_brute(nph, c, d);
			}
			a2a_fini(&a);
		}
}

static void
test_reconf_ties_prefer_fewer_and_later(void **state)
{
	struct reconf_result res;
	double               c[16], d[4] = {0, 0, 0, 0};
	uint32_t             i;

	(void)state;
	for (i = 0; i < 16; i++)
		c[i] = 1;
	assert_int_equal(reconf_solve(4, c, d, &res), 0);
	/* Every placement costs 4: R* = 0 and R = 2 reconfigures late. */
	assert_int_equal(res.rstar, 0);
	assert_true(res.best == 4);
	assert_int_equal(res.place[2 * 4 + 2], 1);
	assert_int_equal(res.place[2 * 4 + 3], 1);
	assert_int_equal(res.place[2 * 4 + 1], 0);
	reconf_free(&res);
}

static void
test_reconf_single_phase_and_bad_input(void **state)
{
	struct reconf_result res;
	double               c[1] = {5}, d[1] = {9};

	(void)state;
	assert_int_equal(reconf_solve(1, c, d, &res), 0);
	assert_int_equal(res.rstar, 0);
	assert_true(res.by_r[0] == 5);
	reconf_free(&res);
	assert_int_equal(reconf_solve(0, c, d, &res), -EINVAL);
}

/* As delta grows, R* never grows. */
static void
test_reconf_rstar_falls_with_delta(void **state)
{
	struct cost_params cp = {
	    .alpha_s = 1.7e-6, .alpha_h = 1e-6, .beta = 2e-11};
	struct reconf_result res;
	struct a2a           a;
	uint32_t             last = UINT32_MAX;
	double               delta;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 19683), 0);
	for (delta = 1e-8; delta < 10; delta *= 2) {
		cp.delta = delta;
		assert_int_equal(a2a_optimise(&a, 1 << 24, &cp, &res), 0);
		assert_true(res.rstar <= last);
		last = res.rstar;
		reconf_free(&res);
	}
	assert_int_equal(last, 0);
	a2a_fini(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reconf_dp_matches_brute_force_random),
	    cmocka_unit_test(test_reconf_dp_matches_brute_force_algorithms),
	    cmocka_unit_test(test_reconf_ties_prefer_fewer_and_later),
	    cmocka_unit_test(test_reconf_single_phase_and_bad_input),
	    cmocka_unit_test(test_reconf_rstar_falls_with_delta),
	};

	return (cmocka_run_group_tests_name("reconf", tests, NULL, NULL));
}
