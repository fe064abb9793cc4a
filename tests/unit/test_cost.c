/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_cost.c: the cost model against the closed forms of
 * spec/alltoall-ocs.md for power-of-radix n, to 1e-9 relative, computed
 * both from the materialised IR and from the compact profile, for every
 * placement of reconfigurations and with per-boundary delays.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/a2a.h"

#define REL 1e-9

static void
close_enough(double got, double want, const char *what, uint32_t n,
             uint32_t mask)
{
	if (!(fabs(got - want) <= REL * fabs(want)))
		fail_msg("%s n=%u placement %#x: got %.15g want %.15g", what,
		         n, mask, got, want);
}

/*
 * Closed form: sum over runs of r phases of r*as + y*g(r), plus the delays
 * of the boundaries where a run starts.  g(r) = (3^r - 1)/2 for ReTri and
 * 2^r - 1 for Bridge.
 */
static double
closed(uint32_t radix, uint32_t nph, const uint8_t *before, double as,
       double y, const double *delta)
{
	double   sum = 0, g;
	uint32_t k, start = 0, r, i;

	for (k = 1; k <= nph; k++) {
		if (k < nph && !before[k])
			continue;
		r = k - start;
		g = 1;
		for (i = 0; i < r; i++)
			g *= radix;
		g = radix == 3 ? (g - 1) / 2 : g - 1;
		sum += r * as + y * g;
		if (k < nph)
			sum += delta[k];
		start = k;
	}
	return (sum);
}

static void
check_power(const char *algo, uint32_t radix, uint32_t smax, uint32_t s_ir)
{
	double             delta[16], cost;
	struct cost_params cp;
	uint64_t           m = 64ull << 20;
	uint32_t           s, n, k, mask;
	uint8_t            before[16];

	for (k = 0; k < 16; k++)
		delta[k] = 1e-6 * (1 + (k * 7) % 5); /* uneven on purpose */
	memset(&cp, 0, sizeof(cp));
	cp.alpha_s = 1.7e-6;
	cp.alpha_h = 1e-6;
	cp.beta = 8.0 / 400e9;
	cp.delta_k = delta;
	cp.ndelta_k = 16;
	for (s = 1, n = radix; s <= smax; s++, n *= radix) {
		struct a2a a;
		/* ReTri moves m/3 each way per phase, Bridge m/4. */
		double y =
		    cp.alpha_h + cp.beta * (double)m / (radix == 3 ? 3 : 4);

		assert_int_equal(a2a_init(&a, algo, n), 0);
		assert_int_equal(a2a_nphases(&a), s);
		for (mask = 0; mask < (1u << (s - 1)); mask++) {
			double want;

			memset(before, 0, sizeof(before));
			for (k = 1; k < s; k++)
				before[k] = (mask >> (k - 1)) & 1;
			want = closed(radix, s, before, cp.alpha_s, y, delta);
			assert_int_equal(
			    a2a_predict(&a, m, &cp, before, &cost), 0);
			close_enough(cost, want, "profile", n, mask);
			if (s <= s_ir) {
				struct sched sc;

				assert_int_equal(
				    a2a_build(&a, m, before, 1u << 26, &sc),
				    0);
				assert_int_equal(
				    cost_sched(&sc, &cp, &cost, NULL), 0);
				close_enough(cost, want, "IR", n, mask);
				sched_free(&sc);
			}
		}
		a2a_fini(&a);
	}
}

static void
test_cost_retri_closed_form(void **state)
{
	(void)state;
	check_power("retri", 3, 10, 5);
}

static void
test_cost_bridge_closed_form(void **state)
{
	(void)state;
	check_power("bridge", 2, 12, 7);
}

/* The two named cases of the spec. */
static void
test_cost_retri_extremes(void **state)
{
	struct cost_params cp = {
	    .alpha_s = 2e-6, .alpha_h = 0.5e-6, .beta = 1e-10, .delta = 7e-6};
	struct a2a a;
	uint8_t    before[8] = {0};
	double     m = 3e6, y = 0.5e-6 + 1e-10 * m / 3, c;
	uint32_t   n = 2187, s = 7;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", n), 0);
	assert_int_equal(a2a_predict(&a, (uint64_t)m, &cp, before, &c), 0);
	close_enough(c, s * cp.alpha_s + y * (n - 1) / 2, "R=0", n, 0);
	memset(before + 1, 1, s - 1);
	assert_int_equal(a2a_predict(&a, (uint64_t)m, &cp, before, &c), 0);
	close_enough(c,
	             s * (cp.alpha_s + cp.alpha_h + cp.beta * m / 3) +
	                 (s - 1) * cp.delta,
	             "R=s-1", n, 0);
	a2a_fini(&a);
}

/* Static ring: h = floor(n/2), c = (n^2-1)/8 blocks (odd n) or n^2/8
 * (even n, ties split). */
static void
test_cost_static_closed_form(void **state)
{
	struct cost_params cp = {
	    .alpha_s = 1.7e-6, .alpha_h = 1e-6, .beta = 2e-11};
	uint8_t  before[1] = {0};
	uint64_t m = 1 << 24;
	uint32_t n;
	double   cost, c, want;

	(void)state;
	for (n = 2; n <= 300; n++) {
		struct a2a a;

		c = n % 2 ? ((double)n * n - 1) / 8 : (double)n * n / 8;
		want = cp.alpha_s + (n / 2) * cp.alpha_h +
		       cp.beta * c * (double)m / n;
		assert_int_equal(a2a_init(&a, "static", n), 0);
		assert_int_equal(a2a_predict(&a, m, &cp, before, &cost), 0);
		close_enough(cost, want, "static profile", n, 0);
		if (n <= 64 || n == 255 || n == 256) {
			struct sched sc;

			assert_int_equal(
			    a2a_build(&a, m, before, 1u << 26, &sc), 0);
			assert_int_equal(cost_sched(&sc, &cp, &cost, NULL), 0);
			close_enough(cost, want, "static IR", n, 0);
			sched_free(&sc);
		}
		a2a_fini(&a);
	}
}

/* Per-phase breakdown from the IR matches the spec's h and c. */
static void
test_cost_per_phase_breakdown(void **state)
{
	struct cost_params cp = {
	    .alpha_s = 1, .alpha_h = 10, .beta = 0.001, .delta = 100};
	struct cost_phase pc[3];
	struct a2a        a;
	struct sched      sc;
	uint8_t           before[3] = {0, 0, 1};
	double            total;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 27), 0);
	assert_int_equal(a2a_build(&a, 27000, before, 1u << 26, &sc), 0);
	assert_int_equal(cost_sched(&sc, &cp, &total, pc), 0);
	/* Phase 0 on its own rings; phase 1 reuses them (h = c = 3);
	 * phase 2 reconfigures. */
	assert_int_equal(pc[0].hops, 1);
	assert_true(pc[0].link_bytes == 9000);
	assert_true(pc[0].reconf == 0);
	assert_int_equal(pc[1].hops, 3);
	assert_true(pc[1].link_bytes == 27000);
	assert_true(pc[1].dir_bytes == 9000);
	assert_int_equal(pc[2].hops, 1);
	assert_true(pc[2].reconf == 100);
	close_enough(total, pc[0].total + pc[1].total + pc[2].total, "sum", 27,
	             0);
	close_enough(pc[1].total, 1 + 30 + 27, "phase 1", 27, 0);
	sched_free(&sc);
	a2a_fini(&a);
}

/* The store-and-forward term: exactly (h - 1) * beta * min(F, D) a phase,
 * the same from the IR (cost_sched) and from the profile the optimiser
 * uses (a2a_predict), absent in one-hop phases and with F = 0. */
static void
test_cost_store_and_forward(void **state)
{
	struct cost_params cp = {
	    .alpha_s = 1, .alpha_h = 10, .beta = 0.001, .delta = 100};
	struct cost_phase pc[3], pf[3];
	struct a2a        a;
	struct sched      sc;
	uint8_t           before[3] = {0, 0, 1};
	double            plain, sf, pred;
	uint32_t          k;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 27), 0);
	assert_int_equal(a2a_build(&a, 27000, before, 1u << 26, &sc), 0);
	assert_int_equal(cost_sched(&sc, &cp, &plain, pc), 0);
	cp.sf_bytes = 4000; /* below the phase-1 transfer's 9000 bytes */
	assert_int_equal(cost_sched(&sc, &cp, &sf, pf), 0);
	for (k = 0; k < 3; k++)
		close_enough(pf[k].total - pc[k].total,
		             pc[k].hops > 1 ? (pc[k].hops - 1) * 0.001 * 4000
		                            : 0,
		             "per phase", 27, k);
	close_enough(sf - plain, 2 * 0.001 * 4000, "whole", 27, 0);
	assert_int_equal(a2a_predict(&a, 27000, &cp, before, &pred), 0);
	close_enough(pred, sf, "profile vs IR", 27, 0);
	cp.sf_bytes = 1e9; /* a frame above the transfer: the transfer */
	assert_int_equal(cost_sched(&sc, &cp, &sf, pf), 0);
	close_enough(sf - plain, 2 * 0.001 * 9000, "whole block", 27, 0);
	sched_free(&sc);
	a2a_fini(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cost_retri_closed_form),
	    cmocka_unit_test(test_cost_bridge_closed_form),
	    cmocka_unit_test(test_cost_retri_extremes),
	    cmocka_unit_test(test_cost_static_closed_form),
	    cmocka_unit_test(test_cost_per_phase_breakdown),
	    cmocka_unit_test(test_cost_store_and_forward),
	};

	return (cmocka_run_group_tests_name("cost", tests, NULL, NULL));
}
