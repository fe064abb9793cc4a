/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_planes.c: transceiver planes in the IR (which planes a
 * phase changes, validation of what it names), the model of planes apart
 * (a plane's delay hides behind another's data), and the planners: ReTri
 * with its two ring directions on two planes is never cheaper apart (the
 * planes carry the same load, and each is dark while it changes), while
 * ReTri spread over 2q transceivers on q planes taking turns hides delta
 * where a phase's data outlasts it.  Costs against closed forms.
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
#include "collectives/planes.h"

#define MIB (1024.0 * 1024.0)

/* ReTri on n nodes, reconfiguring before every phase. */
static void
retri(uint32_t n, uint64_t bytes, struct sched *s)
{
	struct a2a a;
	uint8_t    before[32];

	memset(before, 1, sizeof(before));
	assert_int_equal(a2a_init(&a, "retri", n), 0);
	assert_int_equal(a2a_build(&a, bytes, before, 1u << 26, s), 0);
	a2a_fini(&a);
}

static struct cost_params
params(double bps, double delta)
{
	struct cost_params cp;

	memset(&cp, 0, sizeof(cp));
	cp.beta = 8.0 / bps;
	cp.delta = delta;
	return (cp);
}

static void
test_planes_ir(void **state)
{
	const uint8_t     pl[2] = {0, 1};
	struct sched      s;
	struct sched_verr e;
	uint32_t          m;

	(void)state;
	retri(9, 9 * 1024, &s);
	/* One plane: nothing apart. */
	assert_int_equal(sched_apart(&s), -EINVAL);
	assert_int_equal(sched_set_planes(&s, 2, (const uint8_t[]){0, 2}),
	                 -EINVAL);
	assert_int_equal(sched_set_planes(&s, 2, pl), 0);
	/* The duplex rings join port R (plane 0) to port L (plane 1): a
	 * new stride changes both planes' links. */
	assert_int_equal(sched_planes_changed(&s, 0, &m), 0);
	assert_int_equal(m, 3);
	assert_int_equal(sched_planes_changed(&s, 1, &m), 0);
	assert_int_equal(m, 3);
	assert_int_equal(sched_apart(&s), 0);
	assert_true(sched_is_apart(&s));
	assert_int_equal(s.ph[1].planes, 3);
	assert_int_equal(sched_validate(&s, &e), 0);
	/* A phase that leaves out a plane it changes is refused, named. */
	s.ph[1].planes = 1;
	assert_int_equal(sched_validate(&s, &e), -COLL_EPLANE);
	assert_int_equal(e.phase, 1);
	assert_non_null(strstr(e.msg, "plane 1"));
	s.ph[1].planes = 4;
	assert_int_equal(sched_validate_planes(&s, &e), -COLL_EPLANE);
	assert_non_null(strstr(e.msg, "only 2"));
	sched_free(&s);
}

/* The model: phase 1 changes plane 0 only, plane 1 carries the data. */
static void
test_planes_cost_overlap(void **state)
{
	const uint8_t      pl[2] = {0, 1};
	struct sched       s;
	struct cost_params cp = params(8e9, 0.010); /* 1 GB/s */
	struct cost_phase  ph[2];
	uint32_t           blk[1];
	struct sched_seg   g1 = {0, 1, 0, 1};
	double             t;

	(void)state;
	/* Two nodes, two one-way planes.  Phase 1's configuration moves
	 * plane 0 (node 0's port 0 now into node 1's port 0 instead of
	 * nothing) and keeps plane 1 (0.1 -> 1.1). */
	assert_int_equal(
	    sched_init(&s, "t", SCHED_ALLTOALL, 2, 2, 1, 2 * 10000000), 0);
	blk[0] = sched_blk_id(&s, 0, 1, 0);
	assert_int_equal(sched_set_planes(&s, 2, pl), 0);
	assert_true(sched_add_phase(&s, 1, 0) >= 0);
	assert_int_equal(sched_add_link(&s, 0, 1, 1, 1), 0);
	assert_int_equal(sched_add_link(&s, 1, 1, 0, 1), 0);
	assert_true(sched_add_phase(&s, 1, 0) >= 0);
	assert_int_equal(sched_add_link(&s, 0, 1, 1, 1), 0);
	assert_int_equal(sched_add_link(&s, 1, 1, 0, 1), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 1, 0), 0);
	assert_int_equal(sched_add_xfer(&s, 0, 1, blk, 1, &g1, 1), 0);
	assert_int_equal(sched_apart(&s), 0);
	assert_int_equal(s.ph[1].planes, 1);
	/* Apart: plane 0 dark 10 ms while plane 1 carries its 10 ms. */
	assert_int_equal(cost_sched(&s, &cp, &t, ph), 0);
	assert_true(fabs(ph[1].total - 0.010) < 1e-12);
	assert_true(fabs(ph[1].dark - 0.010) < 1e-12);
	assert_true(ph[1].reconf < 1e-12);
	/* Together: 10 ms dark, then 10 ms of data. */
	s.ph[1].planes = 0;
	assert_int_equal(cost_sched(&s, &cp, &t, ph), 0);
	assert_true(fabs(ph[1].total - 0.020) < 1e-12);
	assert_true(fabs(ph[1].reconf - 0.010) < 1e-12);
	sched_free(&s);
}

/*
 * ReTri's two ring directions on two planes (a fabric's port R on A and
 * L on B): both planes change at every reconfiguration and carry the
 * same load, so apart costs what together does, whatever delta and the
 * rate; auto keeps together (as every run did before), never worse.
 */
static void
test_planes_retri_two_planes_never_worse(void **state)
{
	const uint8_t pl[2] = {0, 1};
	const double rates[] = {1e8, 1e9, 1e10, 1e11}, deltas[] = {1e-3, 1e-2};
	uint32_t     i, j, n;

	(void)state;
	for (n = 9; n <= 27; n += 18)
		for (i = 0; i < 4; i++)
			for (j = 0; j < 2; j++) {
				struct cost_params cp =
				    params(rates[i], deltas[j]);
				struct sched s;
				double       t, a;

				retri(n, 16 * 1024 * 1024, &s);
				assert_int_equal(sched_set_planes(&s, 2, pl),
				                 0);
				assert_int_equal(planes_choose(&s, &cp,
				                               PLANES_AUTO, &t,
				                               &a),
				                 0);
				assert_false(sched_is_apart(&s));
				assert_true(a >= t * (1 - 1e-12));
				assert_true(a <= t * (1 + 1e-12));
				assert_int_equal(planes_choose(&s, &cp,
				                               PLANES_APART,
				                               NULL, NULL),
				                 1);
				assert_true(sched_is_apart(&s));
				sched_free(&s);
			}
}

/* Spread ReTri (n = 27, three phases) on two planes of two ports: both
 * spreads are valid schedules, and the planes take turns apart. */
static void
test_planes_spread_valid(void **state)
{
	struct sched        src, t, a;
	struct sched_verr   e;
	struct sched_nplan *np;

	(void)state;
	retri(27, 27 * 4096, &src);
	assert_int_equal(planes_spread(&src, 1, 0, &t), -EINVAL);
	sched_free(&t);
	assert_int_equal(planes_spread(&src, 2, 0, &t), 0);
	assert_int_equal(planes_spread(&src, 2, 1, &a), 0);
	assert_int_equal(t.ports, 4);
	assert_int_equal(sched_validate(&t, &e), 0);
	assert_int_equal(sched_validate(&a, &e), 0);
	assert_false(sched_is_apart(&t));
	/* Phase 0 sets both planes (epochs 0 and 1); phase 1 runs on
	 * plane 1 while plane 0 changes for epoch 2; phase 2 needs no
	 * barrier (its plane was set during phase 1). */
	assert_int_equal(a.ph[0].planes, 3);
	assert_int_equal(a.ph[1].planes, 1);
	assert_int_equal(a.ph[2].cfg, -1);
	assert_int_equal(sched_plans(&a, &np), 0);
	assert_true(np[0].ph[1].barrier);
	assert_false(np[0].ph[2].barrier);
	sched_plans_free(np, a.n);
	sched_free(&t);
	sched_free(&a);
	sched_free(&src);
}

/*
 * Where overlap pays: delta 10 ms, 16 MiB a node, 27 nodes, 10 Gb/s.
 * With b = beta * 16 MiB / 27 (one block on one link), every ReTri phase
 * sends 9 blocks each way on each ring.  Together on two planes each
 * plane carries 5 of them (9 cut 4 + 5) after every delta:
 * 3 * 5b + 2 delta.  Apart, one plane carries all 9 while the other
 * changes: 9b + max(9b, delta) + 9b.  27.5 ms against 19.0 ms: 0.69.
 */
static void
test_planes_spread_apart_hides_delta(void **state)
{
	struct cost_params cp = params(1e10, 0.010);
	struct sched       src, out;
	double             t, a, b = cp.beta * 16 * MIB / 27;
	int                rv;

	(void)state;
	retri(27, 16 * 1024 * 1024, &src);
	rv = planes_spread_choose(&src, 2, &cp, PLANES_AUTO, &out, &t, &a);
	assert_int_equal(rv, 1);
	assert_true(sched_is_apart(&out));
	assert_true(fabs(t - (15 * b + 0.020)) < 1e-9);
	assert_true(fabs(a - (18 * b + fmax(9 * b, 0.010))) < 1e-9);
	assert_true(a <= 0.7 * t);
	sched_free(&out);
	/* Delta small beside the data: together is cheaper, auto keeps
	 * it, and apart asked for is what the model says. */
	cp = params(1e9, 0.001);
	b = cp.beta * 16 * MIB / 27;
	rv = planes_spread_choose(&src, 2, &cp, PLANES_AUTO, &out, &t, &a);
	assert_int_equal(rv, 0);
	assert_false(sched_is_apart(&out));
	assert_true(fabs(t - (15 * b + 0.002)) < 1e-9);
	assert_true(fabs(a - 27 * b) < 1e-9);
	assert_true(t < a);
	sched_free(&out);
	sched_free(&src);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_planes_ir),
	    cmocka_unit_test(test_planes_cost_overlap),
	    cmocka_unit_test(test_planes_retri_two_planes_never_worse),
	    cmocka_unit_test(test_planes_spread_valid),
	    cmocka_unit_test(test_planes_spread_apart_hides_delta),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
