/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_sim.c: the link-level simulator on a hand-timed case,
 * exact on single-hop phases, and within 5% of the cost model when the
 * messages are large next to the chunks (sim.h says why it differs).
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
#include "collectives/sim.h"

/*
 * 3-ring, one transfer 0 -> 2 over two hops, two chunks of 10 B, beta 1 s/B,
 * alpha_h 1 s, alpha_s 0.5 s.  Chunk A: link 0 [0,10], at node 1 at 11,
 * link 1 [11,21], at node 2 at 22.  Chunk B: link 0 [10,20], at node 1 at
 * 21, link 1 [21,31], at node 2 at 32.  Phase: 0.5 + 32.
 */
static void
test_sim_hand_timed_pipeline(void **state)
{
	struct sim_params sp = {
	    .cost = {.alpha_s = 0.5, .alpha_h = 1, .beta = 1},
	    .chunk_bytes = 10};
	struct sched     s;
	struct sched_seg seg = {.node = 0, .port = SCHED_PORT_R, .hops = 2};
	uint32_t         b[2] = {2, 1}, i;
	double           t, ph[1], cost;

	(void)state;
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 3, 2, 1, 30), 0);
	assert_int_equal(sched_add_phase(&s, 1, 1), 0);
	for (i = 0; i < 3; i++)
		sched_add_circuit(&s, i, SCHED_PORT_R, (i + 1) % 3,
		                  SCHED_PORT_L);
	assert_int_equal(sched_add_xfer(&s, 0, 2, b, 2, &seg, 1), 0);
	assert_int_equal(sim_run(&s, &sp, &t, ph), 0);
	assert_true(t == 32.5);
	assert_true(ph[0] == 32.5);
	/* The model: 0.5 + 2*1 + 20*1; the difference is the pipeline fill
	 * (one chunk) plus alpha_h hidden by nothing here. */
	assert_int_equal(cost_sched(&s, &sp.cost, &cost, NULL), 0);
	assert_true(cost == 22.5);
	/* One chunk per transfer: store-and-forward of the whole message. */
	sp.chunk_bytes = 20;
	assert_int_equal(sim_run(&s, &sp, &t, NULL), 0);
	assert_true(t == 0.5 + 2 * (20 + 1));
	sched_free(&s);
}

static void
test_sim_exact_on_single_hop_phases(void **state)
{
	struct sim_params sp = {.cost = {.alpha_s = 1.7e-6,
	                                 .alpha_h = 1e-6,
	                                 .beta = 2e-11,
	                                 .delta = 5e-6},
	                        .chunk_bytes = 4096};
	struct a2a        a;
	struct sched      s;
	uint8_t           before[8] = {0, 1, 1, 1, 1, 1, 1, 1};
	double            sim, cost;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 81), 0);
	assert_int_equal(a2a_build(&a, 1 << 20, before, 1u << 26, &s), 0);
	assert_int_equal(sim_run(&s, &sp, &sim, NULL), 0);
	assert_int_equal(cost_sched(&s, &sp.cost, &cost, NULL), 0);
	assert_true(fabs(sim - cost) <= 1e-12 * cost);
	sched_free(&s);
	a2a_fini(&a);
}

static void
check_close(const char *algo, uint32_t n, uint32_t mask)
{
	struct sim_params sp = {.cost = {.alpha_s = 1.7e-6,
	                                 .alpha_h = 1e-6,
	                                 .beta = 8.0 / 400e9,
	                                 .delta = 1e-6}};
	struct a2a        a;
	struct sched      s;
	uint8_t           before[16] = {0};
	uint64_t          m = 64ull << 20;
	double            sim, cost, ph_sim[16];
	struct cost_phase ph[16];
	uint32_t          k;

	assert_int_equal(a2a_init(&a, algo, n), 0);
	for (k = 1; k < a2a_nphases(&a); k++)
		before[k] = (mask >> (k - 1)) & 1;
	assert_int_equal(a2a_build(&a, m, before, 1u << 26, &s), 0);
	/* Chunks 1/256 of the message: large messages, small chunks. */
	sp.chunk_bytes = (double)m / 256;
	assert_int_equal(sim_run(&s, &sp, &sim, ph_sim), 0);
	assert_int_equal(cost_sched(&s, &sp.cost, &cost, ph), 0);
	if (fabs(sim - cost) > 0.05 * cost)
		fail_msg("%s n=%u mask %#x: sim %.6g cost %.6g", algo, n, mask,
		         sim, cost);
	/* No phase beats its busiest link. */
	for (k = 0; k < s.nph; k++)
		assert_true(ph_sim[k] >= sp.cost.beta * ph[k].link_bytes);
	sched_free(&s);
	a2a_fini(&a);
}

static void
test_sim_agrees_with_cost_for_large_messages(void **state)
{
	static const uint32_t ns[] = {5, 16, 27, 64, 81, 100};
	size_t                i;
	uint32_t              mask;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (mask = 0; mask < 8; mask++) {
			check_close("retri", ns[i], mask);
			check_close("bridge", ns[i], mask);
		}
		check_close("static", ns[i], 0);
	}
}

static void
test_sim_rejects_bad_params(void **state)
{
	struct sim_params sp = {.chunk_bytes = 0};
	struct a2a        a;
	struct sched      s;
	uint8_t           before[4] = {0};
	double            t;

	(void)state;
	assert_int_equal(a2a_init(&a, "retri", 9), 0);
	assert_int_equal(a2a_build(&a, 900, before, 1u << 26, &s), 0);
	assert_int_equal(sim_run(&s, &sp, &t, NULL), -EINVAL);
	sp.chunk_bytes = NAN;
	assert_int_equal(sim_run(&s, &sp, &t, NULL), -EINVAL);
	sched_free(&s);
	a2a_fini(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sim_hand_timed_pipeline),
	    cmocka_unit_test(test_sim_exact_on_single_hop_phases),
	    cmocka_unit_test(test_sim_agrees_with_cost_for_large_messages),
	    cmocka_unit_test(test_sim_rejects_bad_params),
	};

	return (cmocka_run_group_tests_name("sim", tests, NULL, NULL));
}
