/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_plan.c: one node's plan from a real schedule (ReTri
 * with a reconfiguration, so relays and multi-hop sends appear), through
 * the wire and back, is the same plan, field by field and block by
 * block; phase reports likewise; and the decoder's refusals.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>

#include "collectives/a2a.h"
#include "collectives/skew.h"
#include "collectives/tsyn.h"
#include "proto/msg.h"
#include "proto/plan.h"

static void
assert_blocks(const uint32_t *a, const uint32_t *b, uint32_t n)
{
	if (n > 0)
		assert_memory_equal(a, b, n * sizeof(*a));
}

static void
assert_same_phase(const struct plan_phase *a, const struct plan_phase *b)
{
	uint32_t i;

	assert_int_equal(a->barrier, b->barrier);
	assert_int_equal(a->nsend, b->nsend);
	assert_int_equal(a->nrelay, b->nrelay);
	assert_int_equal(a->nrecv, b->nrecv);
	for (i = 0; i < a->nsend; i++) {
		assert_int_equal(a->send[i].dst, b->send[i].dst);
		assert_int_equal(a->send[i].port, b->send[i].port);
		assert_int_equal(a->send[i].hops, b->send[i].hops);
		assert_int_equal(a->send[i].nblk, b->send[i].nblk);
		assert_blocks(a->send[i].blk, b->send[i].blk, a->send[i].nblk);
	}
	for (i = 0; i < a->nrelay; i++)
		assert_memory_equal(&a->relay[i], &b->relay[i],
		                    sizeof(a->relay[i]));
	for (i = 0; i < a->nrecv; i++) {
		assert_int_equal(a->recv[i].src, b->recv[i].src);
		assert_int_equal(a->recv[i].port, b->recv[i].port);
		assert_int_equal(a->recv[i].nblk, b->recv[i].nblk);
		assert_blocks(a->recv[i].blk, b->recv[i].blk, a->recv[i].nblk);
	}
}

/* Encode p into a whole message, pack, unpack, decode into q. */
static Ocs__Msg *
through_the_wire(const struct plan *p, struct plan *q)
{
	struct plan_wire w;
	Ocs__Msg         m, *got;
	nng_msg         *nm;
	char             why[256];

	assert_int_equal(plan_encode(p, 5, "retri", &w), 0);
	msg_init(&m, 1);
	m.has_run_id = 1;
	m.run_id = p->run;
	m.body_case = OCS__MSG__BODY_PLAN;
	m.plan = &w.p;
	assert_int_equal(msg_encode(&m, &nm), 0);
	plan_wire_free(&w);
	assert_int_equal(msg_decode(nng_msg_body(nm), nng_msg_len(nm), &got,
	                            why, sizeof(why)),
	                 0);
	nng_msg_free(nm);
	assert_int_equal(got->plan->agent_id, 5);
	assert_string_equal(got->plan->algo, "retri");
	assert_int_equal(plan_decode(got->plan, got->run_id, p->nports, q, why,
	                             sizeof(why)),
	                 0);
	return (got);
}

static void
test_plan_round_trip(void **state)
{
	struct a2a          a;
	struct sched        s;
	struct sched_nplan *np;
	uint8_t             before[64] = {0};
	uint32_t            i, k, relays = 0;

	(void)state;
	before[2] = 1; /* phase 1 reuses phase 0's circuits: relays */
	assert_int_equal(a2a_init(&a, "retri", 9), 0);
	assert_int_equal(a2a_build(&a, 9 * 1000, before, 1u << 20, &s), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	for (i = 0; i < s.n; i++) {
		struct plan p, q;
		Ocs__Msg   *m;

		assert_int_equal(
		    plan_from_sched(&s, &np[i], 77, 4096, 1500, 2, &p), 0);
		assert_int_equal(p.node, i);
		assert_int_equal(p.nph, s.nph);
		m = through_the_wire(&p, &q);
		assert_int_equal(q.run, 77);
		assert_int_equal(q.node, p.node);
		assert_int_equal(q.n, p.n);
		assert_int_equal(q.parts, p.parts);
		assert_int_equal(q.chunk, p.chunk);
		assert_int_equal(q.deadline_ms, p.deadline_ms);
		assert_int_equal(q.max_blocks, p.max_blocks);
		assert_int_equal(q.bytes, p.bytes);
		assert_int_equal(q.nph, p.nph);
		assert_int_equal(q.coll, 0);
		for (k = 0; k < p.nph; k++) {
			assert_same_phase(&p.ph[k], &q.ph[k]);
			relays += p.ph[k].nrelay;
		}
		plan_free(&q);
		msg_free(m);
		plan_free(&p);
	}
	assert_true(relays > 0); /* the case the test is for */
	sched_plans_free(np, s.n);
	sched_free(&s);
	a2a_fini(&a);
}

/* A topology collective's plan says which, and where AllReduce's
 * gather starts. */
static void
test_plan_collective_round_trip(void **state)
{
	struct tsyn_params  q = {.algo = TSYN_TEN,
	                         .coll = SCHED_ALLREDUCE,
	                         .bytes = 4 * 4096,
	                         .chunks = 1};
	struct topo         t;
	struct sched        ts, s;
	struct sched_nplan *np;
	struct plan         p, r;
	Ocs__Msg           *m;
	char                err[256];
	uint32_t            k;

	(void)state;
	assert_int_equal(
	    topo_generate("ring:4:1GBps:1us", &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	assert_int_equal(tsyn_on_circuits(&ts, 64, &s, err, sizeof(err)), 0);
	assert_true(s.ag_from > 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	assert_int_equal(plan_from_sched(&s, &np[1], 9, 1024, 1500, 2, &p), 0);
	assert_int_equal(p.coll, SCHED_ALLREDUCE);
	assert_int_equal(p.max_blocks, 4);
	m = through_the_wire(&p, &r);
	assert_int_equal(r.coll, SCHED_ALLREDUCE);
	assert_int_equal(r.ag_from, s.ag_from);
	for (k = 0; k < p.nph; k++)
		assert_same_phase(&p.ph[k], &r.ph[k]);
	plan_free(&r);
	msg_free(m);
	plan_free(&p);
	sched_plans_free(np, s.n);
	sched_free(&s);
	sched_free(&ts);
	topo_free(&t);
	/* Not every topology is circuits: a switch is no host. */
	{
		static const char js[] =
		    "{\"name\": \"star\", \"nodes\": ["
		    "{\"name\": \"g0\", \"kind\": \"gpu\"},"
		    "{\"name\": \"g1\", \"kind\": \"gpu\"},"
		    "{\"name\": \"sw\", \"kind\": \"switch\"}],"
		    "\"links\": ["
		    "{\"src\": \"g0\", \"dst\": \"sw\", \"bandwidth\": "
		    "\"1GBps\", \"latency\": \"1us\", \"both\": true},"
		    "{\"src\": \"g1\", \"dst\": \"sw\", \"bandwidth\": "
		    "\"1GBps\", \"latency\": \"1us\", \"both\": true}]}";

		q.coll = SCHED_ALLGATHER;
		assert_int_equal(
		    topo_parse(js, strlen(js), &t, err, sizeof(err)), 0);
		assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
		assert_int_equal(
		    tsyn_on_circuits(&ts, 64, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "only a topology of hosts"));
		sched_free(&ts);
		topo_free(&t);
	}
}

/*
 * A ring AllReduce on 20 hosts with 2 transceivers is 76 phases on one
 * configuration: a Ready reports every phase since the last barrier, so
 * the plan has a barrier at least every PLAN_MAX_DONE phases (an agent
 * once kept 64 reports on its stack, and this plan wrote past them).
 */
static void
test_plan_stretches_fit_a_ready(void **state)
{
	struct tsyn_params  q = {.algo = TSYN_RING,
	                         .coll = SCHED_ALLREDUCE,
	                         .bytes = 20 * 4096,
	                         .chunks = 1};
	struct topo         t;
	struct sched        ts, s;
	struct sched_nplan *np;
	struct plan         p;
	struct plan_done    d[PLAN_MAX_DONE + 1];
	struct ready_wire   w;
	char                err[256];
	uint32_t            k, last = 0, v;

	(void)state;
	assert_int_equal(
	    topo_generate("ring:20:1GBps:1us", &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	assert_int_equal(tsyn_on_circuits(&ts, 2, &s, err, sizeof(err)), 0);
	assert_true(s.nph > PLAN_MAX_DONE);
	assert_int_equal(sched_plans(&s, &np), 0);
	for (v = 0; v < s.n; v++) {
		last = 0;
		for (k = 1; k <= s.nph; k++)
			if (k == s.nph || np[v].ph[k].barrier) {
				assert_true(k - last <= PLAN_MAX_DONE);
				last = k;
			}
	}
	/* The extra barriers do not reconfigure. */
	for (k = 1; k < s.nph; k++)
		assert_true(s.ph[k].cfg < 0);
	assert_int_equal(plan_from_sched(&s, &np[3], 9, 1024, 1500, 2, &p), 0);
	plan_free(&p);
	/* Reports are never dropped on the way: too many is an error. */
	memset(d, 0, sizeof(d));
	assert_int_equal(plan_ready_encode(1, d, PLAN_MAX_DONE, &w), 0);
	assert_int_equal(w.r.n_done, PLAN_MAX_DONE);
	assert_int_equal(plan_ready_encode(1, d, PLAN_MAX_DONE + 1, &w),
	                 -E2BIG);
	sched_plans_free(np, s.n);
	sched_free(&s);
	sched_free(&ts);
	topo_free(&t);
}

/* A skewed plan's explicit blocks cross the wire as they are: every
 * block the node sends or receives, by id, with its pair and bytes. */
static void
test_plan_vblocks_round_trip(void **state)
{
	struct tmat         m;
	struct skew_params  sp = {.cp = {1e-6, 1e-6, 2e-11, 1e-4, NULL, 0},
	                          .gpus = 1};
	struct skew_plan    pl;
	struct sched        s;
	struct sched_nplan *np;
	char                err[128];
	uint32_t            i, k, j;

	(void)state;
	assert_int_equal(
	    tmat_generate("zipf:6:0.8:3", 60000, &m, err, sizeof(err)), 0);
	assert_int_equal(skew_plan("eclipse", &m, &sp, NULL, &pl, NULL, NULL),
	                 0);
	assert_int_equal(skew_build(&pl, &m, &s), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	for (i = 0; i < s.n; i++) {
		struct plan p, q;
		Ocs__Msg   *w;
		uint64_t    own = 0, mine = 0;

		assert_int_equal(
		    plan_from_sched(&s, &np[i], 9, 4096, 1500, 1, &p), 0);
		assert_non_null(p.vb);
		for (j = 0; j < p.nvb; j++) {
			assert_true(j == 0 || p.vb[j].id > p.vb[j - 1].id);
			own += p.vb[j].src == i ? p.vb[j].len : 0;
			mine += p.vb[j].dst == i ? p.vb[j].len : 0;
		}
		/* Single hop: a node's blocks are its row and column. */
		assert_int_equal(own, tmat_row(&m, i));
		assert_int_equal(mine, tmat_col(&m, i));
		w = through_the_wire(&p, &q);
		assert_int_equal(q.nvb, p.nvb);
		assert_memory_equal(q.vb, p.vb, p.nvb * sizeof(*p.vb));
		for (k = 0; k < p.nph; k++)
			assert_same_phase(&p.ph[k], &q.ph[k]);
		plan_free(&q);
		msg_free(w);
		plan_free(&p);
	}
	sched_plans_free(np, s.n);
	sched_free(&s);
	skew_plan_free(&pl);
	tmat_free(&m);
}

/* A server's node: its local links (peers, addresses, token, rate)
 * through the wire and back; and what the decoder refuses of them. */
static void
test_plan_local_round_trip(void **state)
{
	struct tmat         m, srv;
	struct skew_params  sp = {.cp = {1e-6, 1e-6, 2e-11, 1e-4, NULL, 0},
	                          .gpus = 4,
	                          .su_alpha = 1e-6,
	                          .su_beta = 2e-11};
	struct skew_su      su;
	struct skew_plan    pl;
	struct sched        s;
	struct sched_nplan *np;
	struct plan         p, q;
	Ocs__Msg           *w;
	char                err[128];
	uint32_t            j, keep;

	(void)state;
	assert_int_equal(
	    tmat_generate("zipf:8:0.8:3", 60000, &m, err, sizeof(err)), 0);
	assert_int_equal(skew_servers(&m, &sp, &srv, &su), 0);
	assert_int_equal(skew_plan("fast", &srv, &sp, &su, &pl, NULL, NULL),
	                 0);
	assert_int_equal(skew_srv_build(&pl, &m, 4, &s), 0);
	assert_int_equal(sched_plans(&s, &np), 0);
	assert_int_equal(plan_from_sched(&s, &np[5], 9, 4096, 1500, 4, &p), 0);
	assert_int_equal(p.local_from, 1);
	assert_int_equal(p.nlocal, 3);
	assert_int_equal(p.lnode[0], 4);
	assert_int_equal(p.lnode[1], 6);
	assert_int_equal(p.lnode[2], 7);
	for (j = 0; j < p.nlocal; j++)
		snprintf(p.laddr[j], sizeof(p.laddr[j]), "127.0.0.1:%u",
		         4000 + j);
	memset(p.ltoken, 0xa5, sizeof(p.ltoken));
	p.local_bps = 400e6;
	w = through_the_wire(&p, &q);
	assert_int_equal(q.local_from, 1);
	assert_int_equal(q.nlocal, 3);
	assert_int_equal(q.nports, 4);
	assert_memory_equal(q.lnode, p.lnode, sizeof(p.lnode));
	assert_memory_equal(q.laddr, p.laddr, sizeof(p.laddr));
	assert_memory_equal(q.ltoken, p.ltoken, sizeof(p.ltoken));
	assert_true(q.local_bps == 400e6);
	plan_free(&q);
	/* The links after transceivers the agent does not have. */
	assert_int_equal(plan_decode(w->plan, 9, 0, &q, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "local links from port 1"));
	plan_free(&q);
	/* A peer that is the node itself; a rate of nothing. */
	keep = w->plan->local[1]->node;
	w->plan->local[1]->node = 5;
	assert_int_equal(plan_decode(w->plan, 9, 1, &q, err, sizeof(err)),
	                 -EINVAL);
	assert_string_equal(err, "plan: local link 1: node 5 at "
	                         "\"127.0.0.1:4001\"");
	plan_free(&q);
	w->plan->local[1]->node = keep;
	w->plan->local_bps = 0;
	assert_int_equal(plan_decode(w->plan, 9, 1, &q, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "without a token or a rate"));
	plan_free(&q);
	msg_free(w);
	plan_free(&p);
	sched_plans_free(np, s.n);
	sched_free(&s);
	skew_plan_free(&pl);
	tmat_free(&srv);
	tmat_free(&m);
}

static void
test_plan_decode_refuses(void **state)
{
	Ocs__Plan       m;
	Ocs__PhasePlan *ph[PLAN_MAX_PHASES + 1];
	struct plan     p;
	char            err[128];

	(void)state;
	assert_int_equal(plan_decode(NULL, 1, 2, &p, err, sizeof(err)),
	                 -EINVAL);
	assert_string_equal(err, "plan: missing");
	ocs__plan__init(&m);
	assert_int_equal(plan_decode(&m, 1, 2, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "plan: 0 phases (1 to 256)");
	m.n_phases = PLAN_MAX_PHASES + 1;
	m.phases = ph;
	assert_int_equal(plan_decode(&m, 1, 2, &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "plan: 257 phases (1 to 256)");
	plan_free(&p);
}

static void
test_plan_ready_round_trip(void **state)
{
	struct plan_done  d[3], back[PLAN_MAX_DONE];
	struct ready_wire w;
	int               i;

	(void)state;
	for (i = 0; i < 3; i++)
		d[i] = (struct plan_done){.phase = (uint32_t)i + 4,
		                          .data_ns = 1000u * i,
		                          .sent = 10u * i,
		                          .recv = 20u * i,
		                          .relayed = 30u * i,
		                          .verified = (uint32_t)i,
		                          .errors = 0,
		                          .verify_ns = 7u * i,
		                          .wait_ns = 500u + i};
	plan_ready_encode(9, d, 3, &w);
	assert_int_equal(w.r.agent_id, 9);
	assert_int_equal(plan_ready_decode(&w.r, back), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(back[i].phase, d[i].phase);
		assert_int_equal(back[i].data_ns, d[i].data_ns);
		assert_int_equal(back[i].sent, d[i].sent);
		assert_int_equal(back[i].recv, d[i].recv);
		assert_int_equal(back[i].relayed, d[i].relayed);
		assert_int_equal(back[i].verified, d[i].verified);
		assert_int_equal(back[i].errors, d[i].errors);
		assert_int_equal(back[i].verify_ns, d[i].verify_ns);
		assert_int_equal(back[i].wait_ns, d[i].wait_ns);
	}
	/* More reports than a Ready may carry. */
	w.r.n_done = PLAN_MAX_DONE + 1;
	assert_int_equal(plan_ready_decode(&w.r, back), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_round_trip),
	    cmocka_unit_test(test_plan_vblocks_round_trip),
	    cmocka_unit_test(test_plan_decode_refuses),
	    cmocka_unit_test(test_plan_local_round_trip),
	    cmocka_unit_test(test_plan_collective_round_trip),
	    cmocka_unit_test(test_plan_stretches_fit_a_ready),
	    cmocka_unit_test(test_plan_ready_round_trip),
	};

	return (cmocka_run_group_tests_name("plan", tests, NULL, NULL));
}
