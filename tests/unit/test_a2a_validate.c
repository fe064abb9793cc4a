/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_a2a_validate.c: every All-to-All algorithm, materialised
 * and validated for every n in 2..200 and n = 243, 256, 729, with several
 * reconfiguration placements (all of them for small n); and the IR's cost
 * equals the profile's prediction, i.e. the cost-only path uses the real
 * path lengths and link loads of the schedule.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/a2a.h"

static const struct cost_params cp = {
    .alpha_s = 1.7e-6,
    .alpha_h = 1e-6,
    .beta = 8.0 / 400e9,
    .delta = 3e-6,
};

static void
check_one(const struct a2a *a, const uint8_t *before, uint64_t bytes)
{
	struct sched      s;
	struct sched_verr e;
	double            ir, pred;
	int               rv;

	rv = a2a_build(a, bytes, before, 1u << 26, &s);
	if (rv != 0)
		fail_msg("%s n=%u: build: %s", a->ops->name, a->n,
		         coll_strerror(rv));
	if (sched_validate(&s, &e) != 0)
		fail_msg("%s n=%u: %s", a->ops->name, a->n, e.msg);
	assert_int_equal(cost_sched(&s, &cp, &ir, NULL), 0);
	assert_int_equal(a2a_predict(a, bytes, &cp, before, &pred), 0);
	if (fabs(ir - pred) > 1e-9 * pred)
		fail_msg("%s n=%u: IR cost %.15g != profile %.15g",
		         a->ops->name, a->n, ir, pred);
	sched_free(&s);
}

static void
check_algo(const char *name, uint32_t n)
{
	struct a2a           a;
	struct reconf_result res;
	uint8_t              pl[4][64];
	uint32_t             nph, mask, k, i, j, npl = 0;

	assert_int_equal(a2a_init(&a, name, n), 0);
	nph = a2a_nphases(&a);
	assert_true(nph < 64);
	if (n <= 40) {
		uint8_t before[64];

		/* Every placement. */
		for (mask = 0; mask < (1u << (nph - 1)); mask++) {
			memset(before, 0, sizeof(before));
			for (k = 1; k < nph; k++)
				before[k] = (mask >> (k - 1)) & 1;
			check_one(&a, before, 1000003);
		}
		a2a_fini(&a);
		return;
	}
	/* None, all, every other, and the optimum: the distinct ones. */
	memset(pl, 0, sizeof(pl));
	memset(pl[1] + 1, 1, nph - 1);
	for (k = 1; k < nph; k += 2)
		pl[2][k] = 1;
	assert_int_equal(a2a_optimise(&a, 1 << 20, &cp, &res), 0);
	memcpy(pl[3], res.place + (size_t)res.rstar * nph, nph);
	reconf_free(&res);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < i; j++)
			if (memcmp(pl[i] + 1, pl[j] + 1, nph - 1) == 0)
				break;
		if (j == i) {
			check_one(&a, pl[i], 1000003);
			npl++;
		}
	}
	assert_true(npl >= 1);
	a2a_fini(&a);
}

static void
run_range(const char *name)
{
	static const uint32_t big[] = {243, 256, 729};
	uint32_t              n, i;

	for (n = 2; n <= 200; n++)
		check_algo(name, n);
	for (i = 0; i < 3; i++)
		check_algo(name, big[i]);
}

static void
test_a2a_retri_valid_for_every_n(void **state)
{
	(void)state;
	run_range("retri");
}

static void
test_a2a_bridge_valid_for_every_n(void **state)
{
	(void)state;
	run_range("bridge");
}

static void
test_a2a_static_valid_for_every_n(void **state)
{
	(void)state;
	run_range("static");
}

/* a's data time is factor times b's with every phase on fresh
 * circuits, beta only (1 MiB a node), and a needs rings_a rings. */
static void
data_time_ratio(const char *a_name, const char *b_name, uint32_t n,
                double factor, uint32_t rings_a)
{
	struct cost_params beta_only = {0, 0, 1e-9, 0, NULL, 0, 0, NULL, 0};
	uint8_t            all[16];
	struct a2a         a, b;
	double             ca, cb;

	memset(all, 1, sizeof(all));
	assert_int_equal(a2a_init(&a, a_name, n), 0);
	assert_int_equal(a2a_init(&b, b_name, n), 0);
	assert_int_equal(a2a_rings(&a), rings_a);
	assert_int_equal(a2a_predict(&a, 1u << 20, &beta_only, all, &ca), 0);
	assert_int_equal(a2a_predict(&b, 1u << 20, &beta_only, all, &cb), 0);
	assert_float_equal(ca, factor * cb, cb * 1e-12);
	a2a_fini(&a);
	a2a_fini(&b);
}

/* Unmirrored Bruck: every n, and twice Bridge's data time with every
 * phase reconfigured on n = 2^s (whole blocks one way, not halves both
 * ways: the ReTri paper's motivation). */
static void
test_a2a_bruck_valid_for_every_n(void **state)
{
	uint32_t n;

	(void)state;
	run_range("bruck");
	for (n = 2; n <= 1024; n *= 2)
		data_time_ratio("bruck", "bridge", n, 2, 1);
}

/* Two-port Bruck: every n; on n = 3^s with every phase reconfigured
 * each node sends a third of its blocks on each of two rings one hop,
 * as ReTri does on one ring's two sides: the same data time, on twice
 * the transceivers. */
static void
test_a2a_bruck2_valid_for_every_n(void **state)
{
	struct a2a a, b;
	uint32_t   n;

	(void)state;
	run_range("bruck2");
	for (n = 3; n <= 2187; n *= 3) {
		data_time_ratio("bruck2", "retri", n, 1, 2);
		assert_int_equal(a2a_init(&a, "bruck2", n), 0);
		assert_int_equal(a2a_init(&b, "retri", n), 0);
		assert_int_equal(a2a_nphases(&a), a2a_nphases(&b));
		a2a_fini(&a);
		a2a_fini(&b);
	}
	/* n = 2: one phase, one ring (no offset has a digit 2). */
	assert_int_equal(a2a_init(&a, "bruck2", 2), 0);
	assert_int_equal(a2a_rings(&a), 1);
	a2a_fini(&a);
}

static void
test_a2a_lookup_and_bad_init(void **state)
{
	struct a2a a;

	(void)state;
	assert_non_null(a2a_lookup("retri"));
	assert_non_null(a2a_lookup("bridge"));
	assert_non_null(a2a_lookup("static"));
	assert_non_null(a2a_lookup("bruck"));
	assert_non_null(a2a_lookup("bruck2"));
	assert_null(a2a_lookup("pairwise"));
	assert_int_equal(a2a_init(&a, "pairwise", 9), -COLL_EALGO);
	a2a_fini(&a);
	assert_int_equal(a2a_init(&a, "retri", 1), -EINVAL);
	a2a_fini(&a);
}

/* The validator is not a rubber stamp: a schedule with one block id
 * swapped fails and names the block. */
static void
test_a2a_validate_catches_a_swapped_block(void **state)
{
	struct a2a        a;
	struct sched      s;
	struct sched_verr e;
	uint8_t           before[4] = {0, 1, 1, 1};
	uint32_t          tmp;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 27), 0);
	assert_int_equal(a2a_build(&a, 27000, before, 1u << 26, &s), 0);
	/* Swap a block of node 0's first transfer with one of node 1's. */
	tmp = s.blk[s.xf[0].blk_off];
	s.blk[s.xf[0].blk_off] = s.blk[s.xf[1].blk_off];
	s.blk[s.xf[1].blk_off] = tmp;
	assert_int_equal(sched_validate(&s, &e), -COLL_ENOTHELD);
	assert_int_equal(e.phase, 0);
	assert_int_equal(e.node, 0);
	assert_non_null(strstr(e.msg, "is held by node 1"));
	sched_free(&s);
	a2a_fini(&a);
}

static void
test_a2a_build_refuses_too_big(void **state)
{
	struct a2a   a;
	struct sched s;
	uint8_t      before[16] = {0};

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 729), 0);
	assert_int_equal(a2a_build(&a, 1 << 20, before, 1000, &s),
	                 -COLL_ETOOBIG);
	sched_free(&s);
	a2a_fini(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a2a_retri_valid_for_every_n),
	    cmocka_unit_test(test_a2a_bridge_valid_for_every_n),
	    cmocka_unit_test(test_a2a_static_valid_for_every_n),
	    cmocka_unit_test(test_a2a_bruck_valid_for_every_n),
	    cmocka_unit_test(test_a2a_bruck2_valid_for_every_n),
	    cmocka_unit_test(test_a2a_lookup_and_bad_init),
	    cmocka_unit_test(test_a2a_validate_catches_a_swapped_block),
	    cmocka_unit_test(test_a2a_build_refuses_too_big),
	};

	return (
	    cmocka_run_group_tests_name("a2a_validate", tests, NULL, NULL));
}
