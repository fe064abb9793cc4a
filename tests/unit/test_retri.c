/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_retri.c: balanced ternary, centred offsets, the per-phase
 * block balance of ReTri and Bridge, and subring membership of the
 * circuits each phase sets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/a2a.h"
#include "collectives/retri.h"

static void
test_retri_digits_roundtrip_and_unique(void **state)
{
	int8_t   tau[6];
	int64_t  x, lim = (729 - 1) / 2, v, p3;
	uint8_t *seen = calloc(729, 1);
	uint32_t k, code;

	(void)state;
	assert_non_null(seen);
	for (x = -lim; x <= lim; x++) {
		assert_int_equal(retri_digits(x, 6, tau), 0);
		v = 0;
		code = 0;
		for (k = 0, p3 = 1; k < 6; k++, p3 *= 3) {
			assert_true(tau[k] >= -1 && tau[k] <= 1);
			v += tau[k] * p3;
			code = code * 3 + (uint32_t)(tau[k] + 1);
		}
		assert_int_equal(v, x);
		/* Balanced ternary is a bijection on [-lim, lim]. */
		assert_int_equal(seen[code], 0);
		seen[code] = 1;
	}
	free(seen);
}

static void
test_retri_digits_out_of_range(void **state)
{
	int8_t tau[3];

	(void)state;
	assert_int_equal(retri_digits(13, 3, tau), 0);
	assert_int_equal(retri_digits(14, 3, tau), -ERANGE);
	assert_int_equal(retri_digits(-14, 3, tau), -ERANGE);
	assert_int_equal(retri_digits(5, 3, tau), 0);
	/* 5 = 9 - 3 - 1 */
	assert_int_equal(tau[0], -1);
	assert_int_equal(tau[1], -1);
	assert_int_equal(tau[2], 1);
}

static void
test_retri_centre_and_phases(void **state)
{
	(void)state;
	assert_int_equal(retri_centre(0, 9), 0);
	assert_int_equal(retri_centre(4, 9), 4);
	assert_int_equal(retri_centre(5, 9), -4);
	assert_int_equal(retri_centre(8, 9), -1);
	/* Even n: the tie n/2 is centred positive (ReTri then splits its
	 * block, one half each way: test_retri_even_tie_split). */
	assert_int_equal(retri_centre(5, 10), 5);
	assert_int_equal(retri_centre(6, 10), -4);
	assert_int_equal(retri_nphases(2, 3), 1);
	assert_int_equal(retri_nphases(3, 3), 1);
	assert_int_equal(retri_nphases(4, 3), 2);
	assert_int_equal(retri_nphases(27, 3), 3);
	assert_int_equal(retri_nphases(28, 3), 4);
	assert_int_equal(retri_nphases(19683, 3), 9);
	assert_int_equal(retri_nphases(2, 2), 1);
	assert_int_equal(retri_nphases(256, 2), 8);
	assert_int_equal(retri_nphases(257, 2), 9);
}

/* n = 3^s: every node sends exactly n/3 blocks each way in every phase,
 * in the profile and in the materialised IR. */
static void
test_retri_balance_power_of_three(void **state)
{
	uint32_t     n, s, k, i;
	struct a2a   a;
	struct sched sc;
	uint8_t      before[8] = {0, 1, 1, 1, 1, 1, 1, 1};

	(void)state;
	for (n = 3, s = 1; n <= 729; n *= 3, s++) {
		assert_int_equal(a2a_init(&a, "retri", n), 0);
		assert_int_equal(a2a_nphases(&a), s);
		for (k = 0; k < s; k++) {
			assert_int_equal(a.prof.ph[k].cls[0].units, n / 3);
			assert_int_equal(a.prof.ph[k].cls[1].units, n / 3);
		}
		assert_int_equal(
		    a2a_build(&a, 3 * 1000 * n, before, 1u << 26, &sc), 0);
		for (i = 0; i < sc.nxf; i++) {
			assert_int_equal(sc.xf[i].nblk, n / 3);
			/* m/3 bytes per direction (m = 3000n, blocks of
			 * 3000 B). */
			assert_int_equal(sc.xf[i].bytes, 1000 * n);
		}
		assert_int_equal(sc.nxf, 2 * n * s);
		sched_free(&sc);
		a2a_fini(&a);
	}
}

/*
 * Even n: the tie block (offset n/2) is cut in halves that go +n/2 and
 * -n/2 (mirror digits), so in every phase both directions carry the same
 * units; schedules validate for every even n up to 200 with every phase
 * reconfigured and with none; and the closed forms for n = 2 and 4 with
 * every phase reconfigured (the old whole tie cost beta m/2 and 3 beta m/4).
 */
static void
test_retri_even_tie_split(void **state)
{
	struct cost_params cp = {1.7e-6, 1e-6, 8 / 400e9, 1e-6, NULL,
	                         0,      0,    NULL,      0};
	uint8_t            all[16], none[16] = {0};
	uint64_t           m = 256u << 20;
	struct sched       sc;
	struct a2a         a;
	double             c;
	uint32_t           n, k;

	(void)state;
	memset(all, 1, sizeof(all));
	for (n = 2; n <= 200; n += 2) {
		assert_int_equal(a2a_init(&a, "retri", n), 0);
		assert_int_equal(a.prof.parts, 2);
		for (k = 0; k < a2a_nphases(&a); k++)
			assert_int_equal(a.prof.ph[k].cls[0].units,
			                 a.prof.ph[k].cls[1].units);
		assert_int_equal(a2a_build(&a, 2000 * n, all, 1u << 26, &sc),
		                 0);
		assert_int_equal(sched_validate(&sc, NULL), 0);
		sched_free(&sc);
		assert_int_equal(a2a_build(&a, 2000 * n, none, 1u << 26, &sc),
		                 0);
		assert_int_equal(sched_validate(&sc, NULL), 0);
		sched_free(&sc);
		a2a_fini(&a);
	}
	assert_int_equal(a2a_init(&a, "retri", 2), 0);
	assert_int_equal(a2a_predict(&a, m, &cp, all, &c), 0);
	assert_float_equal(c, cp.alpha_s + cp.alpha_h + cp.beta * m / 4,
	                   1e-15);
	a2a_fini(&a);
	assert_int_equal(a2a_init(&a, "retri", 4), 0);
	assert_int_equal(a2a_predict(&a, m, &cp, all, &c), 0);
	assert_float_equal(
	    c, 2 * (cp.alpha_s + cp.alpha_h) + cp.delta + cp.beta * m / 2,
	    1e-15);
	a2a_fini(&a);
}

/*
 * ReTri of radix b = 2q + 1 (2q transceivers): balanced base-b digits
 * round trip; schedules validate for every n in 2..300 and n = 625, 2401
 * with every phase reconfigured and with none; on n = b^s with every phase
 * reconfigured the cost is s (as + ah + beta m / b) + (s - 1) delta; and
 * the optimal placement equals the best of every placement.
 */
static void
radix_valid(uint32_t b, uint32_t n)
{
	uint8_t      all[16], none[16] = {0};
	struct sched sc;
	struct a2a   a;

	memset(all, 1, sizeof(all));
	assert_int_equal(a2a_init_radix(&a, "retri", n, b), 0);
	assert_int_equal(a2a_rings(&a), (b - 1) / 2);
	assert_int_equal(a2a_build(&a, 64 * n, all, 1u << 26, &sc), 0);
	if (sched_validate(&sc, NULL) != 0)
		fail_msg("radix %u n %u: every phase reconfigured", b, n);
	sched_free(&sc);
	assert_int_equal(a2a_build(&a, 64 * n, none, 1u << 26, &sc), 0);
	if (sched_validate(&sc, NULL) != 0)
		fail_msg("radix %u n %u: no reconfiguration", b, n);
	sched_free(&sc);
	a2a_fini(&a);
}

static void
test_retri_radix(void **state)
{
	static const uint32_t radices[] = {5, 7};
	struct cost_params    cp = {1.7e-6, 1e-6, 8 / 400e9, 3e-6, NULL,
	                            0,      0,    NULL,      0};
	struct reconf_result  res;
	uint8_t               all[16], pl[16];
	int8_t                tau[8];
	uint64_t              m = 64u << 20;
	struct a2a            a;
	double                c, best;
	int64_t               x, v, pk;
	uint32_t              i, n, b, s, k, mask;

	(void)state;
	memset(all, 1, sizeof(all));
	for (x = -1200; x <= 1200; x++) {
		assert_int_equal(retri_digits_b(x, 5, 5, tau), 0);
		for (v = 0, k = 0, pk = 1; k < 5; k++, pk *= 5) {
			assert_true(tau[k] >= -2 && tau[k] <= 2);
			v += tau[k] * pk;
		}
		assert_int_equal(v, x);
	}
	assert_int_equal(retri_digits_b(1563, 5, 5, tau), -ERANGE);
	for (i = 0; i < 2; i++) {
		b = radices[i];
		for (n = 2; n <= 300; n++)
			radix_valid(b, n);
	}
	radix_valid(5, 625);
	radix_valid(7, 2401);
	for (i = 0; i < 2; i++)
		for (b = radices[i], n = b, s = 1; n <= 2401; n *= b, s++) {
			assert_int_equal(a2a_init_radix(&a, "retri", n, b), 0);
			assert_int_equal(a2a_nphases(&a), s);
			assert_int_equal(a2a_predict(&a, m, &cp, all, &c), 0);
			assert_float_equal(c,
			                   s * (cp.alpha_s + cp.alpha_h +
			                        cp.beta * (double)m / b) +
			                       (s - 1) * cp.delta,
			                   c * 1e-9);
			/* R* against every placement. */
			assert_int_equal(a2a_optimise(&a, m, &cp, &res), 0);
			best = 1e300;
			for (mask = 0; mask < (1u << (s - 1)); mask++) {
				memset(pl, 0, sizeof(pl));
				for (k = 1; k < s; k++)
					pl[k] = (mask >> (k - 1)) & 1;
				assert_int_equal(
				    a2a_predict(&a, m, &cp, pl, &c), 0);
				best = c < best ? c : best;
			}
			assert_float_equal(res.best, best, best * 1e-12);
			reconf_free(&res);
			a2a_fini(&a);
		}
	/* Not a ReTri radix, or a radix for another algorithm. */
	assert_int_equal(a2a_init_radix(&a, "retri", 9, 4), -EINVAL);
	assert_int_equal(a2a_init_radix(&a, "retri", 9, 11), -EINVAL);
	assert_int_equal(a2a_init_radix(&a, "bridge", 9, 5), -EINVAL);
}

/* Bridge on n = 2^s moves m/4 each way per phase: n/2 halves. */
static void
test_bridge_balance_power_of_two(void **state)
{
	uint32_t   n, k;
	struct a2a a;

	(void)state;
	for (n = 2; n <= 1024; n *= 2) {
		assert_int_equal(a2a_init(&a, "bridge", n), 0);
		for (k = 0; k < a2a_nphases(&a); k++) {
			assert_int_equal(a.prof.ph[k].cls[0].units, n / 2);
			assert_int_equal(a.prof.ph[k].cls[1].units, n / 2);
			assert_int_equal(a.prof.ph[k].stride, 1u << k);
		}
		a2a_fini(&a);
	}
}

/*
 * Circuits set before phase k, E_k = {i, i + 3^k}, form 3^k subrings
 * S_i = {u : u = i mod 3^k} of n / 3^k nodes, and every later peer of u
 * (offsets +-3^j, j > k) lies in u's subring.
 */
static void
test_retri_subring_membership(void **state)
{
	uint32_t     n = 243, s = 5, k, j, i, u, len;
	uint8_t      before[5] = {0, 1, 1, 1, 1};
	struct a2a   a;
	struct sched sc;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", n), 0);
	assert_int_equal(a2a_build(&a, n, before, 1u << 26, &sc), 0);
	for (k = 0; k < s; k++) {
		const struct sched_cfg *c = &sc.cfg[sc.ph[k].cfg];
		uint32_t                stride = 1;
		uint32_t               *next = calloc(n, sizeof(*next));

		for (j = 0; j < k; j++)
			stride *= 3;
		assert_int_equal(c->ncirc, n);
		for (i = 0; i < c->ncirc; i++) {
			const struct sched_circuit *e =
			    &sc.circ[c->circ_off + i];
			/* R of a to L of b, and b in a's residue class. */
			assert_int_equal(e->pa, SCHED_PORT_R);
			assert_int_equal(e->pb, SCHED_PORT_L);
			assert_int_equal(e->b % stride, e->a % stride);
			next[e->a] = e->b;
		}
		/* Each cycle is one residue class, of n / 3^k nodes. */
		for (i = 0; i < stride; i++) {
			u = i;
			len = 0;
			do {
				assert_int_equal(u % stride, i);
				u = next[u];
				len++;
			} while (u != i);
			assert_int_equal(len, n / stride);
		}
		/* Later peers stay in the subring. */
		for (j = k + 1; j < s; j++) {
			int64_t off = a.prof.ph[j].cls[0].offset;
			assert_int_equal(off % stride, 0);
		}
		free(next);
	}
	sched_free(&sc);
	a2a_fini(&a);
}

/* Reusing the configuration of phase k for phase k+t costs h = c = 3^t. */
static void
test_retri_reuse_hops_and_congestion(void **state)
{
	struct cost_params cp = {.alpha_s = 0, .alpha_h = 1, .beta = 0};
	struct cost_phase  pc;
	struct a2a         a;
	uint32_t           k, t;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 729), 0);
	for (k = 0; k < 6; k++)
		for (t = 0; k + t < 6; t++) {
			uint32_t p3 = 1, i;
			for (i = 0; i < t; i++)
				p3 *= 3;
			assert_int_equal(
			    circ_phase_cost(&a.prof, k, k + t, &cp, 1.0, &pc),
			    0);
			assert_int_equal(pc.hops, p3);
			/* c = 3^t messages of n/3 blocks on each link */
			assert_true(pc.link_bytes == (double)p3 * 243);
		}
	a2a_fini(&a);
}

static void
test_circ_route_any_n(void **state)
{
	uint64_t h;
	int      dir;

	(void)state;
	/* n = 10, stride 3: one cycle 0,3,6,9,2,5,8,1,4,7; +9 is 3 hops. */
	assert_int_equal(circ_route(10, 3, 9, +1, &h, &dir), 0);
	assert_int_equal(h, 3);
	assert_int_equal(dir, +1);
	/* -9 = +1 is 7 hops right or 3 left. */
	assert_int_equal(circ_route(10, 3, -9, -1, &h, &dir), 0);
	assert_int_equal(h, 3);
	assert_int_equal(dir, -1);
	/* Tie on a 2-cycle goes the preferred way. */
	assert_int_equal(circ_route(6, 3, 3, -1, &h, &dir), 0);
	assert_int_equal(h, 1);
	assert_int_equal(dir, -1);
	/* n = 12, stride 3: cycles of 4; offset 1 is on another cycle. */
	assert_int_equal(circ_route(12, 3, 1, +1, &h, &dir), -COLL_EUNREACH);
	assert_int_equal(circ_route(12, 3, 0, +1, &h, &dir), -COLL_EUNREACH);
	assert_int_equal(circ_route(12, 12, 3, +1, &h, &dir), -COLL_EUNREACH);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_retri_digits_roundtrip_and_unique),
	    cmocka_unit_test(test_retri_digits_out_of_range),
	    cmocka_unit_test(test_retri_centre_and_phases),
	    cmocka_unit_test(test_retri_balance_power_of_three),
	    cmocka_unit_test(test_retri_even_tie_split),
	    cmocka_unit_test(test_retri_radix),
	    cmocka_unit_test(test_bridge_balance_power_of_two),
	    cmocka_unit_test(test_retri_subring_membership),
	    cmocka_unit_test(test_retri_reuse_hops_and_congestion),
	    cmocka_unit_test(test_circ_route_any_n),
	};

	return (cmocka_run_group_tests_name("retri", tests, NULL, NULL));
}
