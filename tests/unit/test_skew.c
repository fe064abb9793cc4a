/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_skew.c: skewed All-to-All.  FAST's worked steps
 * (padding, BvN reconstruction, server balancing), properties of every
 * planner on random matrices (permutations, every byte once, padding
 * never sent, the stage bound, never below the lower bound, auto never
 * worse than any planner), and the IR rules of explicit blocks and
 * one-way circuits.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/coll.h"
#include "collectives/skew.h"
#include "collectives/tmat.h"

static const char *const planners[] = {"fast", "spreadout", "solstice",
                                       "eclipse", "sorted"};
#define NPLANNERS (sizeof(planners) / sizeof(planners[0]))

static void
mat(struct tmat *m, uint32_t n, const uint64_t *v)
{
	assert_int_equal(tmat_alloc(m, n), 0);
	memcpy(m->b, v, (size_t)n * n * sizeof(*v));
}

static struct skew_params
params(double delta)
{
	struct skew_params sp = {
	    .cp = {.alpha_s = 1.7e-6,
	           .alpha_h = 1e-6,
	           .beta = 8 / 400e9,
	           .delta = delta},
	    .gpus = 1,
	};
	return (sp);
}

/*
 * A 4x4 example worked by hand: rows sum to 3, 2, 2, 2 and columns to 2,
 * 3, 3, 1, so rho = 3; the short rows 1, 2, 3 (one byte each) are padded
 * against the short columns 0 (one) and 3 (two), north-west corner:
 * (1,0), (2,3), (3,3).  The padded matrix then peels into permutations
 * whose weights sum to 3 and rebuild it exactly.
 */
static void
test_fast_worked_4x4(void **state)
{
	static const uint64_t t[16] = {0, 2, 1, 0, 0, 0, 2, 0,
	                               1, 0, 0, 1, 1, 1, 0, 0};
	static const uint64_t want[16] = {0, 2, 1, 0, 1, 0, 2, 0,
	                                  1, 0, 0, 2, 1, 1, 0, 1};
	struct tmat           m;
	struct skew_plan      pl;
	uint64_t             *p, recon[16] = {0}, sum = 0;
	uint32_t              k, i;

	(void)state;
	mat(&m, 4, t);
	assert_int_equal(tmat_rho(&m), 3);
	p = skew_pad(&m, 3, 0);
	assert_non_null(p);
	assert_memory_equal(p, want, sizeof(want));
	skew_plan_init(&pl, "fast", 4);
	assert_int_equal(skew_bvn(p, 3, &pl), 0);
	for (i = 0; i < 16; i++)
		assert_int_equal(p[i], 0); /* consumed */
	assert_true(pl.nst >= 2 && pl.nst <= 4 * 4 - 2 * 4 + 2);
	for (k = 0; k < pl.nst; k++) {
		sum += pl.st[k].w;
		for (i = 0; i < 4; i++) {
			uint32_t j = skew_perm(&pl, k)[i];

			recon[i * 4 + (j == SKEW_IDLE ? i : j)] += pl.st[k].w;
		}
	}
	assert_int_equal(sum, 3);
	assert_memory_equal(recon, want, sizeof(want));
	/* Real bytes: padding is never carried. */
	assert_int_equal(skew_assign(&pl, &m), 0);
	assert_int_equal(skew_check(&pl, &m, NULL, 0), 0);
	for (k = 0; k < pl.nst; k++)
		for (i = 0; i < 4; i++)
			if (skew_perm(&pl, k)[i] != SKEW_IDLE &&
			    t[i * 4 + skew_perm(&pl, k)[i]] == 0)
				assert_int_equal(skew_real(&pl, k)[i], 0);
	skew_plan_free(&pl);
	free(p);
	tmat_free(&m);
}

/*
 * FAST's balancing with 2 servers of 2 GPUs: GPU 0 of server A sends 6
 * bytes to server B, GPU 1 sends 2, so each sends 4 after GPU 0 hands 2
 * to GPU 1 over scale-up; B sends 1 + 1 back, already balanced.  Per NIC
 * plane the server matrix is then 4 one way and 1 the other.
 */
static void
test_fast_server_balancing(void **state)
{
	static const uint64_t t[16] = {0, 0, 5, 1, 0, 0, 1, 1,
	                               1, 0, 0, 0, 0, 1, 0, 0};
	struct skew_params    sp = params(1e-6);
	struct tmat           m, srv;
	struct skew_su        su;

	(void)state;
	sp.gpus = 2;
	sp.su_alpha = 1e-6;
	sp.su_beta = 8 / 2400e9;
	mat(&m, 4, t);
	assert_int_equal(skew_servers(&m, &sp, &srv, &su), 0);
	assert_int_equal(srv.n, 2);
	assert_int_equal(tmat_at(&srv, 0, 1), 4);
	assert_int_equal(tmat_at(&srv, 1, 0), 1);
	assert_int_equal(su.balance_bytes, 2);
	tmat_free(&srv);
	sp.gpus = 3; /* 4 GPUs are not whole servers of 3 */
	assert_int_equal(skew_servers(&m, &sp, &srv, &su), -EINVAL);
	tmat_free(&m);
}

/* A plan's IR validates; its stages are one-way configurations. */
static void
ir_valid(const struct skew_plan *pl, const struct tmat *m,
         const struct cost_params *cp)
{
	struct sched      s;
	struct sched_verr ve;
	uint32_t          k;
	double            ir;

	assert_int_equal(skew_build(pl, m, &s), 0);
	if (sched_validate(&s, &ve) != 0)
		fail_msg("%s: %s", pl->algo, ve.msg);
	assert_int_equal(s.nph, pl->nst);
	for (k = 0; k < s.ncirc; k++)
		assert_int_equal(s.circ[k].oneway, 1);
	/* The planners' model and the IR's agree (rides included). */
	if (pl->nst > 0) {
		assert_int_equal(cost_sched(&s, cp, &ir, NULL), 0);
		assert_float_equal(ir / skew_cost(pl, cp), 1.0, 1e-9);
	}
	sched_free(&s);
}

/* Packed on t planes: one plane is the serial cost; more never cost
 * more, never beat the bound for t transceivers, use only t planes. */
static void
check_planes(const struct skew_plan *pl, const struct tmat *m,
             const struct cost_params *cp, double serial)
{
	uint32_t *plane = calloc(pl->nst + 1, sizeof(*plane)), t, k;
	double    prev = serial, c;

	assert_non_null(plane);
	assert_float_equal(skew_cost_planes(pl, cp, 1, NULL), serial,
	                   serial * 1e-12);
	for (t = 2; t <= 4; t++) {
		c = skew_cost_planes(pl, cp, t, plane);
		assert_true(c <= prev * (1 + 1e-12));
		assert_true(c >= skew_lower_bound_t(m, cp, t) * (1 - 1e-12));
		for (k = 0; k < pl->nst; k++)
			assert_true(plane[k] < t);
		prev = c;
	}
	free(plane);
}

static void
check_all(const struct tmat *m, double delta)
{
	struct skew_params sp = params(delta);
	struct skew_plan   pl, best;
	double             lb = skew_lower_bound(m, &sp.cp), c, min = 1e300;
	char               err[256];
	size_t             i;

	for (i = 0; i < NPLANNERS; i++) {
		assert_int_equal(
		    skew_plan(planners[i], m, &sp, NULL, &pl, NULL, NULL), 0);
		if (skew_check(&pl, m, err, sizeof(err)) != 0)
			fail_msg("%s: %s", planners[i], err);
		if (strcmp(planners[i], "fast") == 0)
			assert_true(pl.nst <= m->n * m->n - 2 * m->n + 2);
		c = skew_cost(&pl, &sp.cp);
		assert_true(c >= lb * (1 - 1e-12));
		min = c < min ? c : min;
		ir_valid(&pl, m, &sp.cp);
		check_planes(&pl, m, &sp.cp, c);
		/* The same with circuit reuse: never worse, still exact. */
		assert_int_equal(skew_reuse(&pl, &sp.cp, 4 * m->n), 0);
		if (skew_check(&pl, m, err, sizeof(err)) != 0)
			fail_msg("%s: %s", pl.algo, err);
		assert_true(skew_cost(&pl, &sp.cp) <= c * (1 + 1e-12));
		ir_valid(&pl, m, &sp.cp);
		skew_plan_free(&pl);
	}
	assert_int_equal(skew_plan("auto", m, &sp, NULL, &best, NULL, NULL),
	                 0);
	assert_true(skew_cost(&best, &sp.cp) <= min);
	if (skew_check(&best, m, err, sizeof(err)) != 0)
		fail_msg("auto (%s): %s", best.algo, err);
	ir_valid(&best, m, &sp.cp);
	skew_plan_free(&best);
}

/* Random matrices: Zipf of several skews, and sparse ones. */
static void
test_planners_properties(void **state)
{
	static const char *const gens[] = {
	    "zipf:5:0:1",     "zipf:8:0.8:2",     "zipf:13:1.2:3:1000",
	    "zipf:16:0.4:4",  "moe:12:48:2:64:5", "hotspot:9:2:10",
	    "uniform:7:1000", "zipf:2:0.8:9",
	};
	static const double deltas[] = {1e-6, 1e-4, 1e-2};
	struct tmat         m;
	char                err[256];
	size_t              g, d;
	uint32_t            i, j, seed;

	(void)state;
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		if (tmat_generate(gens[g], 1 << 20, &m, err, sizeof(err)) != 0)
			fail_msg("%s: %s", gens[g], err);
		for (d = 0; d < 3; d++)
			check_all(&m, deltas[d]);
		tmat_free(&m);
	}
	/* Sparse: about a third of the pairs talk. */
	for (seed = 1; seed < 6; seed++) {
		assert_int_equal(tmat_alloc(&m, 10), 0);
		for (i = 0; i < 10; i++)
			for (j = 0; j < 10; j++)
				if (i != j && (i * 7 + j * 3 + seed) % 3 == 0)
					m.b[i * 10 + j] = (uint64_t)(i + 1) *
					                  (j + seed) * 4099;
		check_all(&m, 1e-4);
		tmat_free(&m);
	}
}

/*
 * Reuse at a large delta: SpreadOut's shifts on 9 nodes at 10 ms a
 * reconfiguration; stages go, their bytes ride several hops of the
 * stages that stay (multi-hop paths the IR validates), and the predicted
 * time falls below the bound for direct schedules.
 */
static void
test_reuse_rides_instead_of_reconfiguring(void **state)
{
	struct skew_params sp = params(10e-3);
	struct tmat        m;
	struct skew_plan   pl;
	char               err[256];
	double             before;
	uint32_t           x, longest = 0;

	(void)state;
	assert_int_equal(
	    tmat_generate("zipf:9:0.8:3", 1 << 20, &m, err, sizeof(err)), 0);
	assert_int_equal(
	    skew_plan("spreadout", &m, &sp, NULL, &pl, NULL, NULL), 0);
	assert_int_equal(pl.nst, 8);
	before = skew_cost(&pl, &sp.cp);
	assert_int_equal(skew_reuse(&pl, &sp.cp, 64), 0);
	assert_true(pl.nst < 8 && pl.nride > 0);
	assert_string_equal(pl.algo, "spreadout+reuse");
	for (x = 0; x < pl.nride; x++)
		longest =
		    pl.ride[x].hops > longest ? pl.ride[x].hops : longest;
	assert_true(longest >= 2);
	assert_true(skew_cost(&pl, &sp.cp) < before);
	assert_true(skew_cost(&pl, &sp.cp) < skew_lower_bound(&m, &sp.cp));
	if (skew_check(&pl, &m, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	ir_valid(&pl, &m, &sp.cp);
	skew_plan_free(&pl);
	tmat_free(&m);
}

/* On a uniform matrix SpreadOut is optimal: it meets the bound. */
static void
test_spreadout_meets_bound_on_uniform(void **state)
{
	struct skew_params sp = params(1e-3);
	struct tmat        m;
	struct skew_plan   pl;
	char               err[128];

	(void)state;
	assert_int_equal(
	    tmat_generate("uniform:9:65536", 0, &m, err, sizeof(err)), 0);
	assert_int_equal(
	    skew_plan("spreadout", &m, &sp, NULL, &pl, NULL, NULL), 0);
	assert_int_equal(pl.nst, 8);
	assert_float_equal(
	    skew_cost(&pl, &sp.cp) / skew_lower_bound(&m, &sp.cp), 1.0, 1e-12);
	skew_plan_free(&pl);
	tmat_free(&m);
}

/* The bound takes the heaviest line and the widest line each at its worst
 * (issue 40): node 0 sends 64 MiB to node 1 alone, node 2 sends 1 KiB to
 * each of the 63 others.  Eclipse's plan is optimal (the big pair rides
 * along one of node 2's 63 stages), and the bound says so; the per-line
 * bound it replaces was half of it. */
static void
test_bound_heaviest_and_widest(void **state)
{
	struct skew_params sp = params(20e-6);
	struct tmat        m;
	struct skew_plan   pl;
	double             a = sp.cp.alpha_s + sp.cp.alpha_h, lb, per_line;
	uint32_t           j;
	char               err[128];

	(void)state;
	assert_int_equal(tmat_alloc(&m, 64), 0);
	m.b[1] = 64u << 20;
	for (j = 0; j < 64; j++)
		if (j != 2)
			m.b[2 * 64 + j] = 1024;
	lb = skew_lower_bound(&m, &sp.cp);
	/* rho: column 1 (64 MiB + 1 KiB); 63 peers: row 2 */
	assert_float_equal(lb,
	                   sp.cp.beta * ((64u << 20) + 1024.0) + 63 * a +
	                       62 * sp.cp.delta,
	                   lb * 1e-12);
	per_line = sp.cp.beta * ((64u << 20) + 1024.0) + a;
	per_line =
	    fmax(per_line, sp.cp.beta * 63 * 1024 + 63 * a + 62 * sp.cp.delta);
	assert_true(lb / per_line > 1.9);
	assert_int_equal(skew_plan("eclipse", &m, &sp, NULL, &pl, NULL, NULL),
	                 0);
	assert_int_equal(skew_check(&pl, &m, err, sizeof(err)), 0);
	assert_int_equal(pl.nst, 63);
	assert_true(skew_cost(&pl, &sp.cp) >= lb);
	assert_true(skew_cost(&pl, &sp.cp) / lb < 1.001);
	skew_plan_free(&pl);
	tmat_free(&m);
}

/* Solstice's stages last as long as their matching's smallest entry, as
 * published: a permutation is one stage, not slices of a power of two
 * back to back (issue 40: 3 stages and 22). */
static void
test_solstice_stage_is_smallest_entry(void **state)
{
	static const uint64_t two[4] = {0, 7u << 20, 3u << 20, 0};
	struct skew_params    sp = params(1e-3);
	struct tmat           m;
	struct skew_plan      pl;
	char                  err[128];

	(void)state;
	mat(&m, 2, two);
	assert_int_equal(skew_plan("solstice", &m, &sp, NULL, &pl, NULL, NULL),
	                 0);
	assert_int_equal(skew_check(&pl, &m, err, sizeof(err)), 0);
	assert_int_equal(pl.nst, 1);
	skew_plan_free(&pl);
	tmat_free(&m);
	assert_int_equal(
	    tmat_generate("uniform:12:3MiB", 0, &m, err, sizeof(err)), 0);
	assert_int_equal(skew_plan("solstice", &m, &sp, NULL, &pl, NULL, NULL),
	                 0);
	assert_int_equal(skew_check(&pl, &m, err, sizeof(err)), 0);
	assert_int_equal(pl.nst, 11);
	skew_plan_free(&pl);
	tmat_free(&m);
}

/* The IR rules of explicit blocks and one-way circuits. */
static void
test_ir_alltoallv_rules(void **state)
{
	static const uint64_t t[9] = {0, 10, 0, 0, 0, 6, 4, 0, 0};
	struct sched          s;
	struct sched_verr     ve;
	struct sched_seg      s01 = {0, 0, 0, 1}, s12 = {1, 0, 0, 1},
	                 s20 = {2, 0, 0, 1};
	uint32_t b[4];

	(void)state;
	/* Valid: a 3-cycle, 0 -> 1 in two blocks over two stages. */
	assert_int_equal(sched_init_v(&s, "t", 3, 1, t), 0);
	assert_int_equal(s.bytes, 10);
	assert_int_equal(sched_add_phase(&s, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 1, 0, 2, 0), 0);
	assert_int_equal(sched_add_link(&s, 2, 0, 0, 0), 0);
	b[0] = (uint32_t)sched_add_vblk(&s, 0, 1, 0, 7);
	b[1] = (uint32_t)sched_add_vblk(&s, 1, 2, 0, 6);
	b[2] = (uint32_t)sched_add_vblk(&s, 2, 0, 0, 4);
	b[3] = (uint32_t)sched_add_vblk(&s, 0, 1, 7, 3);
	assert_int_equal(sched_add_xfer(&s, 0, 1, &b[0], 1, &s01, 1), 0);
	assert_int_equal(sched_add_xfer(&s, 1, 2, &b[1], 1, &s12, 1), 0);
	assert_int_equal(sched_add_xfer(&s, 2, 0, &b[2], 1, &s20, 1), 0);
	assert_int_equal(sched_add_phase(&s, 0, 0), 1);
	assert_int_equal(sched_add_xfer(&s, 0, 1, &b[3], 1, &s01, 1), 0);
	assert_int_equal(sched_blk_offset(&s, b[3]), 7);
	assert_int_equal(sched_blk_offset(&s, b[2]), 0);
	assert_int_equal(sched_validate(&s, &ve), 0);
	sched_free(&s);

	/* A byte range missing: 0 -> 1 cut as 0+7 and 8+2. */
	assert_int_equal(sched_init_v(&s, "t", 3, 1, t), 0);
	assert_int_equal(sched_add_phase(&s, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 1, 0), 0);
	b[0] = (uint32_t)sched_add_vblk(&s, 0, 1, 0, 7);
	b[1] = (uint32_t)sched_add_vblk(&s, 0, 1, 8, 2);
	assert_int_equal(sched_add_xfer(&s, 0, 1, b, 2, &s01, 1), 0);
	assert_int_equal(sched_validate(&s, &ve), -COLL_EBYTES);
	assert_non_null(strstr(ve.msg, "not cut exactly"));
	sched_free(&s);

	/* Incast: two transmitters into node 1's one receiver. */
	assert_int_equal(sched_init_v(&s, "t", 3, 1, t), 0);
	assert_int_equal(sched_add_phase(&s, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 2, 0, 1, 0), 0);
	assert_int_equal(sched_validate(&s, &ve), -COLL_EPORT);
	sched_free(&s);

	/* A one-way circuit carries nothing backwards. */
	assert_int_equal(sched_init_v(&s, "t", 3, 1, t), 0);
	assert_int_equal(sched_add_phase(&s, 1, 0), 0);
	assert_int_equal(sched_add_link(&s, 0, 0, 2, 0), 0);
	b[0] = (uint32_t)sched_add_vblk(&s, 2, 0, 0, 4);
	assert_int_equal(sched_add_xfer(&s, 2, 0, b, 1, &s20, 1), 0);
	assert_int_equal(sched_validate(&s, &ve), -COLL_EDARK);
	sched_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_worked_4x4),
	    cmocka_unit_test(test_fast_server_balancing),
	    cmocka_unit_test(test_planners_properties),
	    cmocka_unit_test(test_spreadout_meets_bound_on_uniform),
	    cmocka_unit_test(test_reuse_rides_instead_of_reconfiguring),
	    cmocka_unit_test(test_ir_alltoallv_rules),
	    cmocka_unit_test(test_bound_heaviest_and_widest),
	    cmocka_unit_test(test_solstice_stage_is_smallest_entry),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
