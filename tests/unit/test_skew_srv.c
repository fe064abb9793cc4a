/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_skew_srv.c: FAST's server level as a GPU schedule
 * (skew_srv.c): the local links' numbering, a worked 2 x 2 example
 * (balancing, one stage, redistribution, the bytes of each), random
 * matrices on 3 servers of 4 GPUs (valid, incast-free stages, no NIC
 * above its stage's share, every cross-server byte on circuits once),
 * and inputs that do not fit.
 */
#include <errno.h>
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

static struct skew_params
params(uint32_t g)
{
	struct skew_params sp = {
	    .cp = {.alpha_s = 1e-4,
	           .alpha_h = 1e-5,
	           .beta = 8 / 100e6,
	           .delta = 1e-3},
	    .gpus = g,
	    .su_alpha = 1e-5,
	    .su_beta = 8 / 400e6,
	};
	return (sp);
}

/* Plan m on servers of g with FAST and build its GPU schedule. */
static void
plan_srv(const struct tmat *m, uint32_t g, struct skew_plan *pl,
         struct sched *s)
{
	struct skew_params sp = params(g);
	struct skew_su     su;
	struct tmat        srv;
	struct sched_verr  ve;

	assert_int_equal(skew_servers(m, &sp, &srv, &su), 0);
	assert_int_equal(skew_plan("fast", &srv, &sp, &su, pl, NULL, NULL), 0);
	assert_int_equal(skew_srv_build(pl, m, g, s), 0);
	if (sched_validate(s, &ve) != 0)
		fail_msg("%s", ve.msg);
	tmat_free(&srv);
}

static void
test_srv_local_ports(void **state)
{
	struct sched s;
	uint32_t     i, j, q, fp, far;

	(void)state;
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 8, 4, 1, 8), 0);
	s.local_from = 1;
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++) {
			q = sched_local_port(&s, i, j);
			if (i == j || i / 4 != j / 4) {
				assert_int_equal(q, SCHED_NONE);
				continue;
			}
			assert_true(q >= 1 && q < 4);
			far = sched_local_peer(&s, i, q, &fp);
			assert_int_equal(far, j);
			assert_int_equal(sched_local_port(&s, j, i), fp);
		}
	assert_int_equal(sched_local_peer(&s, 0, 0, &fp), SCHED_NONE);
	assert_int_equal(sched_local_peer(&s, 0, 4, &fp), SCHED_NONE);
	sched_free(&s);
}

/*
 * 2 servers of 2 GPUs (test_skew's balancing example): GPU 0 sends 5 to
 * GPU 2 and 1 to GPU 3, GPU 1 one each; B sends 1 + 1 back.  Share 4:
 * GPU 0 keeps 4 bytes of 0->2 for its NIC and hands 1 of 0->2 and 1 of
 * 0->3 to GPU 1 (2 bytes local in phase 0); one stage carries all 10
 * cross bytes; GPU 3 then forwards what is GPU 2's (1 of 0->2, 1 of
 * 1->2: 2 bytes local in phase 2).
 */
static void
test_srv_worked_2x2(void **state)
{
	static const uint64_t t[16] = {0, 0, 5, 1, 0, 0, 1, 1,
	                               1, 0, 0, 0, 0, 1, 0, 0};
	struct skew_params    sp = params(2);
	struct skew_srv_bytes by[3] = {{0, 0}};
	struct cost_phase     pc[3];
	struct skew_plan      pl;
	struct sched          s;
	struct tmat           m;
	double                total;

	(void)state;
	assert_int_equal(tmat_alloc(&m, 4), 0);
	memcpy(m.b, t, sizeof(t));
	plan_srv(&m, 2, &pl, &s);
	assert_int_equal(pl.nst, 1);
	assert_int_equal(s.nph, 3);
	assert_int_equal(s.local_from, 1);
	assert_int_equal(s.ports, 2);
	assert_int_equal(
	    skew_srv_cost(&s, &sp.cp, sp.su_alpha, sp.su_beta, pc, &total, by),
	    0);
	assert_int_equal(by[0].local, 2);
	assert_int_equal(by[0].circuit, 0);
	assert_int_equal(by[1].local, 0);
	assert_int_equal(by[1].circuit, 10);
	assert_int_equal(by[2].local, 2);
	assert_int_equal(by[2].circuit, 0);
	/* Phase 1: the busiest NIC sends 4 bytes; no reconfiguration paid
	 * (stage 0's circuits are set before the run). */
	assert_true(pc[1].reconf == 0);
	assert_true(pc[1].link_bytes == 4);
	assert_true(total > 0 &&
	            total == pc[0].total + pc[1].total + pc[2].total);
	skew_plan_free(&pl);
	sched_free(&s);
	tmat_free(&m);
}

/* A skewed matrix: a few heavy pairs over a light floor, a hot server. */
static void
random_mat(struct tmat *m, uint32_t n, uint32_t seed)
{
	uint32_t i, j, x = seed * 2654435761u + 1;

	assert_int_equal(tmat_alloc(m, n), 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			x = x * 1103515245u + 12345u;
			m->b[(size_t)i * n + j] =
			    i == j ? 0
			           : 1000 + (x >> 8) % 5000 +
			                 ((x >> 4) % 7 == 0 ? 40000 : 0) +
			                 (i < 4 ? 20000 : 0);
		}
}

/* Every stage a permutation of NICs (incast-free), each NIC within its
 * server's share of the stage, every cross byte on circuits once. */
static void
check_stages(const struct sched *s, const struct skew_plan *pl,
             const struct tmat *m, uint32_t g)
{
	uint64_t *nic = calloc(s->n, sizeof(*nic)), cross = 0, carried = 0;
	uint32_t *into = calloc(s->n, sizeof(*into));
	uint32_t  p, x, i, j;

	assert_non_null(nic);
	assert_non_null(into);
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->n; j++)
			cross += i / g != j / g ? tmat_at(m, i, j) : 0;
	for (p = 1; p <= pl->nst; p++) {
		const struct sched_phase *ph = &s->ph[p];

		memset(nic, 0, s->n * sizeof(*nic));
		memset(into, 0, s->n * sizeof(*into));
		for (x = 0; x < ph->nxfer; x++) {
			const struct sched_xfer *xf = &s->xf[ph->xfer_off + x];

			if (s->seg[xf->seg_off].port != 0)
				continue;
			assert_int_equal(xf->src % g, xf->dst % g);
			assert_int_equal(skew_perm(pl, p - 1)[xf->src / g],
			                 xf->dst / g);
			nic[xf->src] += xf->bytes;
			into[xf->dst]++;
			carried += xf->bytes;
		}
		for (i = 0; i < s->n; i++) {
			assert_true(into[i] <= 1);
			assert_true(nic[i] <= skew_real(pl, p - 1)[i / g]);
		}
	}
	assert_int_equal(carried, cross);
	free(nic);
	free(into);
}

static void
test_srv_random_3x4(void **state)
{
	struct skew_plan pl;
	struct sched     s;
	struct tmat      m;
	uint32_t         seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		random_mat(&m, 12, seed);
		plan_srv(&m, 4, &pl, &s);
		assert_int_equal(s.nph, pl.nst + 2);
		check_stages(&s, &pl, &m, 4);
		skew_plan_free(&pl);
		sched_free(&s);
		tmat_free(&m);
	}
}

/* A plan of other servers, or of other traffic, is refused. */
static void
test_srv_refuses_misfits(void **state)
{
	struct skew_plan pl;
	struct sched     s;
	struct tmat      m, other;

	(void)state;
	random_mat(&m, 8, 3);
	plan_srv(&m, 4, &pl, &s);
	sched_free(&s);
	assert_int_equal(skew_srv_build(&pl, &m, 2, &s), -EINVAL);
	sched_free(&s);
	assert_int_equal(skew_srv_build(&pl, &m, 3, &s), -EINVAL);
	sched_free(&s);
	assert_int_equal(skew_srv_build(&pl, &m, 1, &s), -EINVAL);
	sched_free(&s);
	/* Heavier traffic than the plan carries. */
	random_mat(&other, 8, 3);
	other.b[0 * 8 + 5] += 1000000;
	assert_int_equal(skew_srv_build(&pl, &other, 4, &s), -EDOM);
	sched_free(&s);
	skew_plan_free(&pl);
	tmat_free(&m);
	tmat_free(&other);
}

/* A circuit on a local port breaks the port rule. */
static void
test_srv_no_circuit_on_local_port(void **state)
{
	struct sched      s;
	struct sched_verr ve;
	uint64_t          t[4] = {0, 1, 1, 0};

	(void)state;
	assert_int_equal(sched_init_v(&s, "x", 2, 2, t), 0);
	s.local_from = 1;
	assert_true(sched_add_phase(&s, 1, 0) >= 0);
	assert_int_equal(sched_add_link(&s, 0, 1, 1, 0), 0);
	assert_int_equal(sched_validate(&s, &ve), -COLL_EPORT);
	sched_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_srv_local_ports),
	    cmocka_unit_test(test_srv_worked_2x2),
	    cmocka_unit_test(test_srv_random_3x4),
	    cmocka_unit_test(test_srv_refuses_misfits),
	    cmocka_unit_test(test_srv_no_circuit_on_local_port),
	};

	return (cmocka_run_group_tests_name("skew_srv", tests, NULL, NULL));
}
