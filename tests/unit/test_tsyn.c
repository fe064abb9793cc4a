/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_tsyn.c: topology files and generators (and their
 * errors), the slot model, ten's AllGather on tiny topologies whose
 * optimal slot counts are worked out by hand, every shipped topology
 * through AllGather, ReduceScatter and AllReduce (valid, and never faster
 * than the cut bound), and the validator catching broken schedules.
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
#include "collectives/topo_taccl.h"
#include "collectives/topo_teccl.h"
#include "collectives/tplan.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"

#define S(x) (x), strlen(x)

static void
parse_ok(const char *text, struct topo *t)
{
	char err[300];

	if (topo_parse(S(text), t, err, sizeof(err)) != 0)
		fail_msg("parse: %s", err);
}

static void
test_topo_file(void **state)
{
	struct topo t;
	char        err[300];

	(void)state;
	parse_ok("{\"name\":\"x\",\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\","
	         "\"group\":\"dc1\"},{\"name\":\"s\",\"kind\":\"switch\"},"
	         "{\"name\":\"b\",\"kind\":\"gpu\"}],\"links\":["
	         "{\"src\":\"a\",\"dst\":\"s\",\"bandwidth\":\"100Gbps\","
	         "\"latency\":\"1us\",\"both\":true},{\"src\":\"s\",\"dst\":"
	         "\"b\",\"bandwidth\":\"25GBps\",\"distance_km\":100}]}",
	         &t);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.ngpu, 2);
	assert_int_equal(t.nlink, 3);
	assert_int_equal(t.gpu_node[1], 2);
	assert_true(fabs(t.bw_max - 25e9) < 1);
	assert_true(fabs(t.link[topo_link_of(&t, 1, 2)].alpha - 500e-6) <
	            1e-12);
	assert_true(fabs(t.link[topo_link_of(&t, 0, 1)].bw - 12.5e9) < 1);
	assert_int_equal(topo_link_of(&t, 2, 1), -1);
	assert_int_equal(t.ngroup, 1);
	topo_free(&t);
	/* Every malformed file names the field. */
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"[1]", "expected a JSON object"},
	    {"{\"nodes\":[]}", "nodes: expected a non-empty array"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"cpu\"}]}",
	     "nodes[0].kind: \"cpu\""},
	    {"{\"nodes\":[{\"name\":\"a b\",\"kind\":\"gpu\"}]}",
	     "nodes[0].name"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"a\","
	     "\"kind\":\"gpu\"}]}",
	     "nodes[1].name: \"a\" twice"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\","
	     "\"kind\":\"gpu\"}],\"links\":[{\"src\":\"a\",\"dst\":\"c\","
	     "\"bandwidth\":\"1Gbps\"}]}",
	     "links[0].dst: \"c\" is not a node"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\","
	     "\"kind\":\"gpu\"}],\"links\":[{\"src\":\"a\",\"dst\":\"b\","
	     "\"bandwidth\":\"fast\"}]}",
	     "links[0].bandwidth"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\","
	     "\"kind\":\"gpu\"}],\"links\":[{\"src\":\"a\",\"dst\":\"b\","
	     "\"bandwidth\":\"1Gbps\",\"latency\":\"1h\"}]}",
	     "links[0].latency"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\","
	     "\"kind\":\"gpu\"}],\"links\":[{\"src\":\"a\",\"dst\":\"b\","
	     "\"bandwidth\":\"1Gbps\"},{\"src\":\"a\",\"dst\":\"b\","
	     "\"bandwidth\":\"2Gbps\"}]}",
	     "a -> b given twice"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"s\","
	     "\"kind\":\"switch\"}],\"links\":[{\"src\":\"a\",\"dst\":\"s\","
	     "\"bandwidth\":\"1Gbps\"}]}",
	     "at least 2 GPUs"},
	    {"{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\","
	     "\"kind\":\"gpu\"}],\"links\":[{\"src\":\"a\",\"dst\":\"a\","
	     "\"bandwidth\":\"1Gbps\"}]}",
	     "a to itself"},
	    {"{\"nodes\":", "not JSON"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(
		    topo_parse(S(bad[i].text), &t, err, sizeof(err)),
		    -COLL_ETOPO);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err,
			         bad[i].want);
	}
}

static void
test_generators(void **state)
{
	struct topo t;
	char        err[300];

	(void)state;
	assert_int_equal(
	    topo_generate("ring:5:100Gbps:1us", &t, err, sizeof(err)), 0);
	assert_int_equal(t.nlink, 10);
	assert_true(fabs(t.bw_max - 12.5e9) < 1);
	topo_free(&t);
	assert_int_equal(topo_generate("ring:2:8GBps:0", &t, err, sizeof(err)),
	                 0);
	assert_int_equal(t.nlink, 2);
	topo_free(&t);
	/* A plain grid: 2 x x C + 2 x R x (C-1) directed links. */
	assert_int_equal(
	    topo_generate("mesh:3x4:1GiBps:1ns", &t, err, sizeof(err)), 0);
	assert_int_equal(t.nlink, 2 * 2 * 4 + 2 * 3 * 3);
	assert_true(fabs(t.bw_max - 1073741824.0) < 1);
	topo_free(&t);
	/* Wrap-around in every dimension (size 2 has no wrap). */
	assert_int_equal(
	    topo_generate("torus:3x3x2:100Gbps:1us", &t, err, sizeof(err)), 0);
	assert_int_equal(t.nlink, 18 * (2 + 2 + 1));
	topo_free(&t);
	/* The OCS configurations: strides 1 and 3 on 9 nodes; 8 and 1 are
	 * the same pairs, and stride N/2 pairs each node once. */
	assert_int_equal(
	    topo_generate("subring:9:1,3,8:100Gbps:1us", &t, err, sizeof(err)),
	    0);
	assert_int_equal(t.nlink, 2 * 9 * 2);
	topo_free(&t);
	assert_int_equal(
	    topo_generate("subring:8:4:100Gbps:1us", &t, err, sizeof(err)), 0);
	assert_int_equal(t.nlink, 8);
	topo_free(&t);
	assert_int_equal(
	    topo_generate("subring:9:9:100Gbps:1us", &t, err, sizeof(err)),
	    -COLL_ETOPO);
	assert_non_null(strstr(err, "strides 1..N-1"));
	assert_int_equal(topo_generate("dgx1", &t, err, sizeof(err)), -ENOENT);
	assert_int_equal(
	    topo_generate("ring:1:1Gbps:1us", &t, err, sizeof(err)),
	    -COLL_ETOPO);
	assert_non_null(strstr(err, "1 nodes"));
	assert_int_equal(
	    topo_generate("mesh:3:1Gbps:1us", &t, err, sizeof(err)),
	    -COLL_ETOPO);
	assert_non_null(strstr(err, "mesh:RxC:RATE:TIME"));
	assert_int_equal(
	    topo_generate("ring:4:1Gbpx:1us", &t, err, sizeof(err)),
	    -COLL_ETOPO);
	assert_non_null(strstr(err, "rate \"1Gbpx\""));
	assert_int_equal(
	    topo_generate("torus:4x4:1Gbps:1y", &t, err, sizeof(err)),
	    -COLL_ETOPO);
	assert_non_null(strstr(err, "time \"1y\""));
}

/* Synthesise, validate, check slots and replay against the bound. */
static uint32_t
run(const struct topo *t, enum tsyn_algo a, enum sched_coll c, uint64_t bytes,
    uint32_t chunks)
{
	struct tsyn_params q = {
	    .algo = a, .coll = c, .bytes = bytes, .chunks = chunks};
	struct sched s;
	char         err[400];
	uint32_t     slots;
	double       done, bound;
	int          exh;

	if (tsyn_synth(t, &q, &s, err, sizeof(err)) != 0)
		fail_msg("%s on %s: %s", tsyn_algo_name(a), t->name, err);
	if (tsyn_validate(&s, &slots, err, sizeof(err)) != 0)
		fail_msg("%s on %s (coll %d): invalid: %s", tsyn_algo_name(a),
		         t->name, c, err);
	done = tsyn_replay(&s);
	bound = tsyn_cut_bound(t, c, bytes, &exh);
	if (!(bound > 0) || done < bound * (1 - 1e-9))
		fail_msg("%s on %s (coll %d): %.9g s beats the bound %.9g s",
		         tsyn_algo_name(a), t->name, c, done, bound);
	sched_free(&s);
	return (slots);
}

static void
test_tiny_optimal(void **state)
{
	struct topo t;
	char        err[300];

	(void)state;
	/* A line of 3: the end chunks need 2 hops, every link is free. */
	parse_ok("{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":"
	         "\"b\",\"kind\":\"gpu\"},{\"name\":\"c\",\"kind\":\"gpu\"}],"
	         "\"links\":[{\"src\":\"a\",\"dst\":\"b\",\"bandwidth\":"
	         "\"1GBps\",\"both\":true},{\"src\":\"b\",\"dst\":\"c\","
	         "\"bandwidth\":\"1GBps\",\"both\":true}]}",
	         &t);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLGATHER, 3 << 20, 1), 2);
	assert_int_equal(run(&t, TSYN_MTEG, SCHED_ALLGATHER, 3 << 20, 1), 2);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_REDUCESCATTER, 3 << 20, 1),
	                 2);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLREDUCE, 3 << 20, 1), 4);
	topo_free(&t);
	/* A bidirectional ring of 4 (also the 2x2 mesh): 3 chunks in over
	 * 2 links, diameter 2: 2 slots. */
	assert_int_equal(topo_generate("ring:4:8GBps:0", &t, err, sizeof(err)),
	                 0);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLGATHER, 4 << 20, 1), 2);
	topo_free(&t);
	assert_int_equal(
	    topo_generate("mesh:2x2:8GBps:0", &t, err, sizeof(err)), 0);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLGATHER, 4 << 20, 1), 2);
	topo_free(&t);
	/* A star of 3 GPUs on a copying switch: one slot in, then each GPU
	 * takes 2 chunks over its one link: 3 slots. */
	parse_ok("{\"nodes\":[{\"name\":\"s\",\"kind\":\"switch\"},"
	         "{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":\"b\",\"kind\":"
	         "\"gpu\"},{\"name\":\"c\",\"kind\":\"gpu\"}],\"links\":["
	         "{\"src\":\"a\",\"dst\":\"s\",\"bandwidth\":\"1GBps\","
	         "\"both\":true},{\"src\":\"b\",\"dst\":\"s\",\"bandwidth\":"
	         "\"1GBps\",\"both\":true},{\"src\":\"c\",\"dst\":\"s\","
	         "\"bandwidth\":\"1GBps\",\"both\":true}]}",
	         &t);
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLGATHER, 3 << 20, 1), 3);
	assert_int_equal(run(&t, TSYN_MTEG, SCHED_ALLGATHER, 3 << 20, 1), 3);
	/* The baselines: spt, the same tree (a star); sph, the paper's, a
	 * copy a destination: each GPU sends its chunk twice up its link
	 * (slots 0 and 1), and the second copies of a's and b's chunks,
	 * both for c, queue on s>c at slot 2: 4 slots; and the ring
	 * a > b > c > a through the switch, where a chunk is not sent back
	 * into the switch that saw it: a's goes a>s, s>b, then s>c: 3
	 * slots. */
	assert_int_equal(run(&t, TSYN_SPT, SCHED_ALLGATHER, 3 << 20, 1), 3);
	assert_int_equal(run(&t, TSYN_SPH, SCHED_ALLGATHER, 3 << 20, 1), 4);
	assert_int_equal(run(&t, TSYN_RING, SCHED_ALLGATHER, 3 << 20, 1), 3);
	topo_free(&t);
	/* A one-way ring of 3 with a slow link (occ 2, so L 2). */
	parse_ok("{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":"
	         "\"b\",\"kind\":\"gpu\"},{\"name\":\"c\",\"kind\":\"gpu\"}],"
	         "\"links\":[{\"src\":\"a\",\"dst\":\"b\",\"bandwidth\":"
	         "\"2GBps\"},{\"src\":\"b\",\"dst\":\"c\",\"bandwidth\":"
	         "\"2GBps\"},{\"src\":\"c\",\"dst\":\"a\",\"bandwidth\":"
	         "\"1GBps\"}]}",
	         &t);
	/* c->a needs two chunks (c's and b's) at 2 slots each; b's leaves
	 * b in slot 0, reaches c at 1, so c->a carries c's (0..2) then b's
	 * (2..4): 4 slots; b gets a's at 1 and c's via a at 3. */
	assert_int_equal(run(&t, TSYN_TEN, SCHED_ALLGATHER, 3 << 20, 1), 4);
	topo_free(&t);
}

/* A border router forwards from the head of a chunk: a -> r -> b with
 * links of 2 slots (c <-> d is twice as fast), all in slot 0; a switch
 * in r's place must wait for the whole chunk. */
static void
cut_through_case(const char *kind, int want)
{
	struct topo      t;
	struct sched     s;
	struct sched_seg g;
	char             text[1024], err[300];
	uint32_t         slots, c;

	snprintf(text, sizeof(text),
	         "{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":"
	         "\"b\",\"kind\":\"gpu\"},{\"name\":\"c\",\"kind\":\"gpu\"},"
	         "{\"name\":\"d\",\"kind\":\"gpu\"},{\"name\":\"r\","
	         "\"kind\":\"%s\"}],\"links\":[{\"src\":\"a\",\"dst\":"
	         "\"r\",\"bandwidth\":\"1GBps\",\"both\":true},{\"src\":"
	         "\"b\",\"dst\":\"r\",\"bandwidth\":\"1GBps\",\"both\":"
	         "true},{\"src\":\"c\",\"dst\":\"d\",\"bandwidth\":"
	         "\"2GBps\",\"both\":true},{\"src\":\"c\",\"dst\":\"r\","
	         "\"bandwidth\":\"2GBps\",\"both\":true}]}",
	         kind);
	parse_ok(text, &t);
	assert_int_equal(
	    sched_init(&s, "t", SCHED_ALLGATHER, t.n, 3, 1, 4 << 20), 0);
	s.topo = &t;
	s.ngpu = 4;
	sched_add_phase(&s, 0, 0);
	/* a's chunk (0) to r and on to b in the same slot. */
	c = 0;
	g = (struct sched_seg){.node = 0, .port = 0, .hops = 1};
	assert_int_equal(sched_add_xfer(&s, 0, 4, &c, 1, &g, 1), 0);
	g = (struct sched_seg){.node = 4, .port = 1, .hops = 1};
	assert_int_equal(t.link[t.out[t.out_off[4] + 1]].dst, 1);
	assert_int_equal(sched_add_xfer(&s, 4, 1, &c, 1, &g, 1), 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)) ==
	                     -COLL_ENOTHELD,
	                 want == -COLL_ENOTHELD);
	sched_free(&s);
	topo_free(&t);
}

static void
test_cut_through(void **state)
{
	(void)state;
	/* The schedule is not complete either way; what differs is
	 * whether r may send in slot 0. */
	cut_through_case("router", -COLL_EUNDELIVERED);
	cut_through_case("switch", -COLL_ENOTHELD);
}

/*
 * scalecc when a border router hears on a slow WAN and forwards onto a
 * faster link (6.25 against 12.5 GB/s, the ordinary case): cut-through
 * must wait until the outgoing copy cannot overtake the incoming one.
 * Before the fix the schedule failed validation ("sends chunk 0 of ...,
 * which it does not hold yet").
 */
static void
test_scalecc_router_onto_faster_link(void **state)
{
	static const char *const topo =
	    "{\"nodes\":["
	    "{\"name\":\"e0\",\"kind\":\"gpu\",\"group\":\"e\"},"
	    "{\"name\":\"e1\",\"kind\":\"gpu\",\"group\":\"e\"},"
	    "{\"name\":\"be\",\"kind\":\"router\",\"group\":\"e\"},"
	    "{\"name\":\"w0\",\"kind\":\"gpu\",\"group\":\"w\"},"
	    "{\"name\":\"w1\",\"kind\":\"gpu\",\"group\":\"w\"},"
	    "{\"name\":\"bw\",\"kind\":\"router\",\"group\":\"w\"}],"
	    "\"links\":["
	    "{\"src\":\"e0\",\"dst\":\"be\",\"bandwidth\":\"12.5GBps\","
	    "\"latency\":\"5us\",\"both\":true},"
	    "{\"src\":\"e1\",\"dst\":\"be\",\"bandwidth\":\"12.5GBps\","
	    "\"latency\":\"5us\",\"both\":true},"
	    "{\"src\":\"e0\",\"dst\":\"e1\",\"bandwidth\":\"25GBps\","
	    "\"latency\":\"2us\",\"both\":true},"
	    "{\"src\":\"w0\",\"dst\":\"bw\",\"bandwidth\":\"12.5GBps\","
	    "\"latency\":\"5us\",\"both\":true},"
	    "{\"src\":\"w1\",\"dst\":\"bw\",\"bandwidth\":\"12.5GBps\","
	    "\"latency\":\"5us\",\"both\":true},"
	    "{\"src\":\"w0\",\"dst\":\"w1\",\"bandwidth\":\"25GBps\","
	    "\"latency\":\"2us\",\"both\":true},"
	    "{\"src\":\"be\",\"dst\":\"bw\",\"bandwidth\":\"6.25GBps\","
	    "\"latency\":\"1ms\",\"both\":true}]}";
	static const uint64_t bytes[] = {1000000, 64000000, 1000000000};
	struct tsyn_params    q;
	struct topo           t;
	struct sched          s;
	char                  err[300];
	uint32_t              slots, c;
	size_t                b;

	(void)state;
	parse_ok(topo, &t);
	for (b = 0; b < 3; b++)
		for (c = 1; c <= 4; c *= 4) {
			memset(&q, 0, sizeof(q));
			q.algo = TSYN_SCALECC;
			q.coll = SCHED_ALLGATHER;
			q.bytes = bytes[b];
			q.chunks = c;
			assert_int_equal(
			    tsyn_synth(&t, &q, &s, err, sizeof(err)), 0);
			if (tsyn_validate(&s, &slots, err, sizeof(err)) != 0)
				fail_msg("%llu B, %u chunks: %s",
				         (unsigned long long)bytes[b], c, err);
			assert_true(slots > 0);
			sched_free(&s);
		}
	topo_free(&t);
}

static void
test_shipped(void **state)
{
	static const char *const names[] = {
	    "dgx1",
	    "dgx2",
	    "amd",
	    "ndv2:1",
	    "ndv2:2",
	    "ndv2:4",
	    "wan2",
	    "wan3",
	    "wan4p",
	    "ndv2:8",
	    "ring:6:100Gbps:2us",
	    "mesh:3x3:25GBps:1us",
	    "torus:3x3x3:100Gbps:1us",
	    "subring:27:1,3,9:100Gbps:1us",
	};
	static const enum sched_coll colls[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	static const enum tsyn_algo algos[] = {TSYN_TEN, TSYN_MTEG, TSYN_SPT,
	                                       TSYN_RING};
	char                        err[400];
	struct topo                 t;
	size_t                      i, c, a;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (tplan_load(names[i], &t, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		for (c = 0; c < 3; c++)
			for (a = 0; a < sizeof(algos) / sizeof(algos[0]);
			     a++) {
				run(&t, algos[a], colls[c], 64u << 20, 1);
				run(&t, algos[a], colls[c], 1u << 20, 2);
			}
		/* SCALE-CCL and the paper's SPH are AllGathers. */
		run(&t, TSYN_SCALECC, SCHED_ALLGATHER, 64u << 20, 1);
		run(&t, TSYN_SPH, SCHED_ALLGATHER, 64u << 20, 1);
		run(&t, TSYN_SCALECC, SCHED_ALLGATHER, 1u << 20, 3);
		topo_free(&t);
	}
}

/*
 * mteg against ten on the shipped topologies (issue 18): never more
 * slots, with one chunk a GPU and with four.  On DGX-1 (every GPU
 * fanning out at once) the 3 slots ten's slot-by-slot greedy cannot
 * see, against its 4.  AMD is the case the deadline search alone lost
 * (17 slots against 15, 50 against 42): the rip-up and re-lay
 * (tsyn_mteg_refine.c) is what brings it level.
 */
static void
test_mteg_vs_ten(void **state)
{
	static const struct {
		const char *name;
		uint32_t    chunks;
	} cases[] = {{"dgx1", 1},  {"dgx2", 1},  {"amd", 1},   {"ndv2:2", 1},
	             {"wan2p", 1}, {"wan3p", 1}, {"wan4p", 1}, {"dgx1", 4},
	             {"amd", 4},   {"wan3p", 4}, {"wan4p", 4}};
	struct topo t;
	char        err[300];
	uint32_t    m, n;
	size_t      i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (tplan_load(cases[i].name, &t, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		m = run(&t, TSYN_MTEG, SCHED_ALLGATHER, 64u << 20,
		        cases[i].chunks);
		n = run(&t, TSYN_TEN, SCHED_ALLGATHER, 64u << 20,
		        cases[i].chunks);
		if (m > n)
			fail_msg("%s, %u chunks: mteg %u slots, ten %u",
			         cases[i].name, cases[i].chunks, m, n);
		if (i == 0)
			assert_true(m == 3 && n == 4);
		topo_free(&t);
	}
}

/* An AllGather read back as a plan (phase order for slots) and replayed
 * by tsyn_plan_replay, which mteg's polish uses: the same completion as
 * tsyn_replay on the schedule, GPUs, switches and cut-through routers. */
static void
test_plan_replay(void **state)
{
	static const char *const names[] = {"dgx1", "dgx2", "amd", "wan3p"};
	struct tsyn_params       q = {.algo = TSYN_TEN,
	                              .coll = SCHED_ALLGATHER,
	                              .bytes = 64u << 20,
	                              .chunks = 2};
	struct tsyn_model        m;
	struct tsyn_plan         p;
	struct topo              t;
	struct sched             s;
	char                     err[300];
	size_t                   i;
	uint32_t                 ph, x, last = UINT32_MAX;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (tplan_load(names[i], &t, err, sizeof(err)) != 0 ||
		    tsyn_synth(&t, &q, &s, err, sizeof(err)) != 0)
			fail_msg("%s: %s", names[i], err);
		assert_int_equal(tsyn_model_init(&m, &t, q.bytes, q.chunks),
		                 0);
		memset(&p, 0, sizeof(p));
		for (ph = 0; ph < s.nph; ph++)
			for (x = 0; x < s.ph[ph].nxfer; x++) {
				const struct sched_xfer *f =
				    &s.xf[s.ph[ph].xfer_off + x];
				int64_t l = topo_link_of(&t, f->src, f->dst);

				assert_true(l >= 0);
				assert_int_equal(
				    tsyn_plan_add(&p, ph, (uint32_t)l,
				                  s.blk[f->blk_off]),
				    0);
			}
		tsyn_plan_sort(&p);
		assert_true(fabs(tsyn_plan_replay(&m, &p, &last) -
		                 tsyn_replay(&s)) < 1e-12);
		assert_true(last < m.nchunk);
		tsyn_plan_free(&p);
		tsyn_model_free(&m);
		sched_free(&s);
		topo_free(&t);
	}
}

/* A TE-CCL input of TE-CCL's samples' shape (NDv2 on 2 chassis), its
 * Mesh as TE-CCL builds it, and every kind of bad field named. */
#define TECCL(topo, inst)                                                     \
	"{\"TopologyParams\": {" topo "}, \"GurobiParams\": "                 \
	"{\"time_limit\": 2, \"mip_gap\": 1e-4, \"heuristics\": 0.3}, "       \
	"\"InstanceParams\": {" inst "}}"

static void
teccl_bad(const char *text, const char *says)
{
	struct topo_teccl x;
	char              err[400];

	assert_int_equal(topo_teccl_parse(S(text), &x, err, sizeof(err)),
	                 -COLL_ETOPO);
	if (strstr(err, says) == NULL)
		fail_msg("\"%s\" said \"%s\"", says, err);
}

static void
test_teccl_input(void **state)
{
	struct topo_teccl x;
	struct topo       t;
	char              err[400];
	uint32_t          i, deg0 = 0;

	(void)state;
	assert_int_equal(
	    topo_teccl_parse(S(TECCL("\"name\": \"NDv2\", \"option\": 1, "
	                             "\"chassis\": 2, \"chunk_size\": 0.0625",
	                             "\"collective\": 1, \"num_chunks\": 2, "
	                             "\"epoch_type\": 2, \"switch_copy\": "
	                             "true, \"objective_type\": 3")),
	                     &x, err, sizeof(err)),
	    0);
	assert_string_equal(x.builtin, "ndv2:2");
	assert_int_equal(x.num_chunks, 2);
	assert_true(x.chunk_bytes == 62.5e6 && !x.alltoall);
	/* TE-CCL's 2-chassis NDv2 is not what is built: said. */
	assert_non_null(strstr(x.note, "fixed 16-node matrix"));
	assert_non_null(strstr(x.note, "17 nodes, 16 GPUs"));
	assert_int_equal(
	    topo_teccl_parse(
	        S(TECCL("\"name\": \"NDv2\", \"chassis\": 4", "")), &x, err,
	        sizeof(err)),
	    0);
	assert_string_equal(x.note, "");
	/* Not TE-CCL's: our own format is not mistaken for it. */
	assert_int_equal(topo_teccl_parse(S("{\"name\": \"x\", \"nodes\": "
	                                    "[], \"links\": []}"),
	                                  &x, err, sizeof(err)),
	                 -ENOENT);
	assert_int_equal(
	    topo_teccl_parse(S(TECCL("\"name\": \"Mesh\", \"side_length\": "
	                             "3, \"alpha\": [1e-6, 0]",
	                             "\"collective\": 1")),
	                     &x, err, sizeof(err)),
	    0);
	assert_int_equal(topo_teccl_mesh(&x, &t, err, sizeof(err)), 0);
	assert_int_equal(t.ngpu, 9);
	/* i +- 1 and i +- 3 both ways: 8 + 6 pairs; g2 reaches g3. */
	assert_int_equal(t.nlink, 28);
	assert_true(topo_link_of(&t, 2, 3) >= 0);
	for (i = 0; i < t.nlink; i++) {
		assert_true(fabs(t.link[i].bw - 100e9) < 1 &&
		            fabs(t.link[i].alpha - 1e-6) < 1e-15);
		deg0 += t.link[i].src == 0;
	}
	assert_int_equal(deg0, 2);
	topo_free(&t);
	teccl_bad(TECCL("\"name\": \"NDv2\", \"colour\": 1", ""),
	          "TopologyParams.colour: unknown");
	teccl_bad(TECCL("\"name\": \"NDv2\", \"chassis\": \"two\"", ""),
	          "TopologyParams.chassis: an integer");
	teccl_bad(TECCL("\"name\": \"NDv2\", \"chassis\": 3", ""),
	          "NDv2: 1, 2, 4, 8 or 10");
	teccl_bad(TECCL("\"name\": \"Torus\"", ""),
	          "TopologyParams.name: DGX1, DGX2, NDv2, AMD or Mesh");
	teccl_bad(TECCL("\"name\": \"AMD\", \"chassis\": 2", ""),
	          "index-inconsistent");
	teccl_bad(TECCL("\"chunk_size\": -1", ""), "chunk_size: GB");
	teccl_bad(TECCL("\"alpha\": [1]", ""), "alpha: [link alpha");
	teccl_bad(TECCL("", "\"collective\": 3"), "collective: 1 (AllGather)");
	teccl_bad(TECCL("", "\"num_chunks\": 0"), "num_chunks: 1..4096");
	teccl_bad(TECCL("", "\"lower\": 1"), "InstanceParams.lower: true or");
	teccl_bad("{\"TopologyParams\": {}, \"Solver\": {}}",
	          "Solver.: unknown section");
	teccl_bad(TECCL("\"name\": \"Mesh\", \"side_length\": 1", ""),
	          "side_length: 2..64");
}

/* TACCL's NDv2 profile alone and with a two-node sketch; its figures
 * as rates and latencies; bad profiles and sketches named. */
#define NDV2_1MB                                                              \
	"{\"name\": \"NDv2_1MB\", \"gpus_per_node\": 8, \"nics_per_node\": "  \
	"1, "                                                                 \
	"\"alpha\": 0.3, \"node_betas_list\": [23, 46], "                     \
	"\"node_invbws_list\": [23, 46], \"remote_invbw\": 107, "             \
	"\"remote_alpha\": 2.6, \"remote_beta\": 105}"
#define SKETCH2                                                               \
	"{\"nnodes\": 2, \"intranode_sketch\": {\"strategy\": \"none\"}, "    \
	"\"internode_sketch\": {\"strategy\": \"relay\", "                    \
	"\"internode_conn\": "                                                \
	"{\"0\": [1]}}, \"symmetry_offsets\": [[8, 16]], "                    \
	"\"hyperparameters\": {\"input_chunkup\": 1}}"

static void
taccl_bad(const char *prof, const char *sk, const char *says)
{
	struct topo t;
	char        err[400];

	assert_int_equal(topo_taccl_parse(S(prof), sk, sk ? strlen(sk) : 0, &t,
	                                  NULL, 0, err, sizeof(err)),
	                 -COLL_ETOPO);
	if (strstr(err, says) == NULL)
		fail_msg("\"%s\" said \"%s\"", says, err);
}

static void
test_taccl_profile(void **state)
{
	struct topo t;
	char        err[400], note[400];
	int64_t     l;

	(void)state;
	assert_int_equal(topo_taccl_parse(S(NDV2_1MB), NULL, 0, &t, note,
	                                  sizeof(note), err, sizeof(err)),
	                 0);
	assert_string_equal(note, "");
	assert_int_equal(t.ngpu, 8);
	assert_int_equal(t.nlink, 32);
	/* 0-1 is class 0 (23 us a MB: 10^6 bytes, as TE-CCL reads it),
	 * 0-2 class 1 (46 us), 0-5 none */
	assert_true((l = topo_link_of(&t, 0, 1)) >= 0);
	assert_true(fabs(t.link[l].bw - 1e6 / 23e-6) < 1);
	assert_true(fabs(t.link[l].alpha - 0.3e-6) < 1e-12);
	assert_true((l = topo_link_of(&t, 0, 2)) >= 0);
	assert_true(fabs(t.link[l].bw - 1e6 / 46e-6) < 1);
	assert_true(topo_link_of(&t, 0, 5) < 0);
	topo_free(&t);
	assert_int_equal(topo_taccl_parse(S(NDV2_1MB), S(SKETCH2), &t, NULL, 0,
	                                  err, sizeof(err)),
	                 0);
	assert_int_equal(t.ngpu, 16);
	assert_int_equal(t.nlink, 66); /* 2 x 32, and GPU 0 -> GPU 1 */
	assert_true((l = topo_link_of(&t, 0, 9)) >= 0);
	assert_true(fabs(t.link[l].bw - 1e6 / 107e-6) < 1);
	assert_true(fabs(t.link[l].alpha - 0.6e-6) < 1e-12);
	assert_true(topo_link_of(&t, 9, 0) < 0);
	topo_free(&t);
	assert_int_equal(topo_taccl_parse(S("{\"nodes\": []}"), NULL, 0, &t,
	                                  NULL, 0, err, sizeof(err)),
	                 -ENOENT);
	taccl_bad("{\"name\": \"NDv2_1MB\", \"gpus_per_node\": 8, "
	          "\"alpha\": 1, \"node_invbws_list\": [1, 2], "
	          "\"node_betas_list\": [1, 2], \"colour\": 1}",
	          NULL, "profile: colour: unknown");
	taccl_bad("{\"name\": \"NDv2\", \"gpus_per_node\": 8, "
	          "\"alpha\": 1, \"node_invbws_list\": [1, 2], "
	          "\"node_betas_list\": [1, 2]}",
	          NULL, "name: NAME_SIZE");
	taccl_bad("{\"name\": \"NDv2_1MB\", \"gpus_per_node\": 4, "
	          "\"alpha\": 1, \"node_invbws_list\": [1, 2], "
	          "\"node_betas_list\": [1, 2]}",
	          NULL, "NDv2: 8 GPUs");
	taccl_bad("{\"name\": \"NDv2_1MB\", \"gpus_per_node\": 8, "
	          "\"alpha\": 1, \"node_invbws_list\": [1, 2], "
	          "\"node_betas_list\": [1]}",
	          NULL, "node_betas_list: as many");
	taccl_bad(NDV2_1MB, "{\"nnodes\": 2}", "internode_conn");
	taccl_bad(NDV2_1MB,
	          "{\"nnodes\": 2, \"internode_sketch\": {\"internode_conn\": "
	          "{\"9\": [1]}}}",
	          "internode_conn: keys are GPUs");
	taccl_bad(NDV2_1MB, "{\"nnodes\": 2, \"extra\": 1}",
	          "sketch: extra: unknown");
	taccl_bad(NDV2_1MB,
	          "{\"nnodes\": 2, \"internode_sketch\": {\"internode_conn\": "
	          "\"ring\"}}",
	          "internode_conn: an object, \"fully-connected\"");
	taccl_bad(NDV2_1MB,
	          "{\"nnodes\": 2, \"internode_sketch\": {\"internode_conn\": "
	          "{\"0\": [1], \"2\": [3, 4]}}}",
	          "every sending GPU with as many remote GPUs");
	taccl_bad("{\"name\": \"DGX2_1MB\", \"gpus_per_node\": 8, "
	          "\"alpha\": 1, \"node_invbws_list\": [8], "
	          "\"node_betas_list\": [8]}",
	          NULL, "DGX2: 16 GPUs");
}

/* TACCL's DGX2 profile (topo-dgx2-1MB.json) */
#define DGX2_1MB                                                              \
	"{\"name\": \"DGX2_1MB\", \"gpus_per_node\": 16, \"nics_per_node\": " \
	"8, \"alpha\": 0.3, \"node_betas_list\": [8], "                       \
	"\"node_invbws_list\": [8], \"remote_invbw\": 107, "                  \
	"\"remote_alpha\": 2.6, \"remote_beta\": 105}"
#define SKETCH(n, conn)                                                       \
	"{\"nnodes\": " #n                                                    \
	", \"intranode_sketch\": {\"strategy\": \"none\"}, "                  \
	"\"internode_sketch\": {\"strategy\": \"relay\", "                    \
	"\"internode_conn\": " conn                                           \
	"}, \"symmetry_offsets\": [], \"hyperparameters\": "                  \
	"{\"input_chunkup\": 1}}"

/* The remote link GPU a of node 0 to GPU b of node 1: microseconds a
 * (10^6-byte) chunk. */
static double
remote_us(const char *prof, const char *sk, uint32_t gpn, uint32_t a,
          uint32_t b, char *note, size_t len)
{
	struct topo t;
	char        err[400];
	int64_t     l;
	double      us;

	if (topo_taccl_parse(S(prof), S(sk), &t, note, len, err,
	                     sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(
	    (l = topo_link_of(&t, t.gpu_node[a], t.gpu_node[gpn + b])) >= 0);
	us = 1e6 / t.link[l].bw * 1e6;
	topo_free(&t);
	return (us);
}

/* TACCL's sketches: the named connections, the node's NICs shared as
 * TACCL shares them (remote_beta x connections / NICs, whole us, plus
 * remote_alpha), DGX2's NVSwitch, and beyond two nodes each GPU's remote
 * links sharing its NIC; what differs from TACCL's model said. */
static void
test_taccl_sketches(void **state)
{
	struct tsyn_params q = {.algo = TSYN_TEN,
	                        .coll = SCHED_ALLGATHER,
	                        .bytes = 16000000,
	                        .chunks = 1};
	struct topo        t;
	struct sched       s;
	char               err[400], note[400];
	uint32_t           slots;
	int64_t            l;

	(void)state;
	/* NDv2: one NIC.  One connection: 105 -> 107 us. */
	assert_true(fabs(remote_us(NDV2_1MB, SKETCH(2, "{\"0\": [1]}"), 8, 0,
	                           1, note, sizeof(note)) -
	                 107) < 1e-2);
	/* 64 connections: int(105 x 64) + 2.6 -> 6722 us. */
	assert_true(fabs(remote_us(NDV2_1MB, SKETCH(2, "\"fully-connected\""),
	                           8, 3, 5, note, sizeof(note)) -
	                 6722) < 1e-2);
	assert_string_equal(note, "");
	/* 8 connections (GPU g to GPU g): 842 us. */
	assert_true(fabs(remote_us(NDV2_1MB, SKETCH(2, "\"direct-map\""), 8, 6,
	                           6, note, sizeof(note)) -
	                 842) < 1e-2);
	/* DGX2: 8 NICs; 16 connections: 212 us; 8: 107. */
	assert_true(fabs(remote_us(DGX2_1MB, SKETCH(2, "\"direct-map\""), 16,
	                           9, 9, note, sizeof(note)) -
	                 212) < 1e-2);
	assert_true(fabs(remote_us(DGX2_1MB,
	                           SKETCH(2, "{\"1\": [0], \"3\": [2], \"5\": "
	                                     "[4], \"7\": [6], \"9\": [8], "
	                                     "\"11\": [10], \"13\": [12], "
	                                     "\"15\": [14]}"),
	                           16, 1, 0, note, sizeof(note)) -
	                 107) < 1e-2);
	assert_non_null(strstr(note, "NVSwitch is a switch node"));
	/* Four nodes: GPU 0 reaches GPU 1 of three nodes through its one
	 * NIC, a third each. */
	assert_true(fabs(remote_us(NDV2_1MB, SKETCH(4, "{\"0\": [1]}"), 8, 0,
	                           1, note, sizeof(note)) -
	                 3 * 107) < 1e-2);
	assert_non_null(strstr(note, "4 nodes: each GPU's remote links"));
	/* DGX2's GPUs meet in the switch: one chunk at a time in and out,
	 * so an AllGather of 16 chunks of 1 MB takes at least 15 x 8 us. */
	assert_int_equal(topo_taccl_parse(S(DGX2_1MB), NULL, 0, &t, note,
	                                  sizeof(note), err, sizeof(err)),
	                 0);
	assert_int_equal(t.ngpu, 16);
	assert_int_equal(t.n, 17);
	assert_true(topo_link_of(&t, t.gpu_node[0], t.gpu_node[1]) < 0);
	assert_true((l = topo_link_of(&t, t.gpu_node[0], 16)) >= 0);
	assert_true(fabs(t.link[l].bw - 1e6 / 8e-6) < 1);
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)), 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)), 0);
	assert_true(tsyn_replay(&s) >= 15 * 8e-6);
	sched_free(&s);
	topo_free(&t);
}

/* SCALE-CCL's rules against the best schedule on 2, 3 and 4
 * datacentres: within 15% of ten (the best here), and the paper's SPH
 * slower than it. */
static void
test_scalecc_datacentres(void **state)
{
	static const char *const names[] = {"wan2", "wan3", "wan2p", "wan3p",
	                                    "wan4p"};
	char                     err[400];
	struct topo              t;
	size_t                   i;
	uint32_t                 c;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (tplan_load(names[i], &t, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		for (c = 1; c <= 4; c *= 4) {
			struct tsyn_params q = {.coll = SCHED_ALLGATHER,
			                        .bytes = 1u << 30,
			                        .chunks = c};
			double             d[3];
			int                a;

			for (a = 0; a < 3; a++) {
				struct sched s;
				uint32_t     slots;

				q.algo = a == 0   ? TSYN_TEN
				         : a == 1 ? TSYN_SCALECC
				                  : TSYN_SPH;
				assert_int_equal(
				    tsyn_synth(&t, &q, &s, err, sizeof(err)),
				    0);
				if (tsyn_validate(&s, &slots, err,
				                  sizeof(err)) != 0)
					fail_msg("%s: %s", names[i], err);
				d[a] = tsyn_replay(&s);
				sched_free(&s);
			}
			if (!(d[1] <= 1.15 * d[0] && d[2] > d[1]))
				fail_msg("%s C=%u: ten %g, scalecc %g, sph %g",
				         names[i], c, d[0], d[1], d[2]);
		}
		topo_free(&t);
	}
}

static void
test_unreachable(void **state)
{
	struct tsyn_params q = {.algo = TSYN_TEN,
	                        .coll = SCHED_ALLGATHER,
	                        .bytes = 1 << 20,
	                        .chunks = 1};
	struct topo        t;
	struct sched       s;
	char               err[300];

	(void)state;
	/* c only sends: nothing reaches it. */
	parse_ok("{\"nodes\":[{\"name\":\"a\",\"kind\":\"gpu\"},{\"name\":"
	         "\"b\",\"kind\":\"gpu\"},{\"name\":\"c\",\"kind\":\"gpu\"}],"
	         "\"links\":[{\"src\":\"a\",\"dst\":\"b\",\"bandwidth\":"
	         "\"1GBps\",\"both\":true},{\"src\":\"c\",\"dst\":\"b\","
	         "\"bandwidth\":\"1GBps\"}]}",
	         &t);
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)),
	                 -COLL_EUNREACH);
	assert_non_null(strstr(err, "c cannot receive chunk 0 of"));
	q.algo = TSYN_MTEG;
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)),
	                 -COLL_EUNREACH);
	assert_non_null(strstr(err, "c cannot receive from a"));
	q.algo = TSYN_SPH;
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)),
	                 -COLL_EUNREACH);
	q.algo = TSYN_SCALECC;
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)),
	                 -COLL_EUNREACH);
	q.coll = SCHED_REDUCESCATTER;
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)),
	                 -COLL_EALGO);
	assert_non_null(strstr(err, "AllGather only"));
	topo_free(&t);
}

/* Could configurations i and i + 1 of s have been one: every node's
 * circuits in both within ntrx transceivers? */
static int
mergeable(const struct sched *s, uint32_t i, uint32_t ntrx)
{
	uint32_t *deg = calloc(s->n, sizeof(*deg)), j, c, ok = 1;

	assert_non_null(deg);
	for (j = i; j <= i + 1; j++)
		for (c = 0; c < s->cfg[j].ncirc; c++) {
			const struct sched_circuit *e =
			    &s->circ[s->cfg[j].circ_off + c];

			ok &= ++deg[e->a] <= ntrx && ++deg[e->b] <= ntrx;
		}
	free(deg);
	return ((int)ok);
}

/* One topology schedule on hosts of ntrx transceivers. */
static void
expect_circuits(const char *spec, enum tsyn_algo algo, enum sched_coll coll,
                uint32_t ntrx)
{
	struct tsyn_params q = {
	    .algo = algo, .coll = coll, .bytes = 9 * 8 * 4096, .chunks = 2};
	struct sched_verr ve;
	struct topo       t;
	struct sched      ts, s;
	char              err[256];
	uint32_t          i, deg = 0;
	uint64_t          nb = 0;

	assert_int_equal(topo_generate(spec, &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	if (tsyn_on_circuits(&ts, ntrx, &s, err, sizeof(err)) != 0)
		fail_msg("%s %s trx %u: %s", spec, tsyn_algo_name(algo), ntrx,
		         err);
	if (sched_validate_circuits(&s, &ve) != 0)
		fail_msg("%s %s trx %u: %s", spec, tsyn_algo_name(algo), ntrx,
		         ve.msg);
	assert_true(s.ports <= ntrx);
	/* Every transfer kept, none added. */
	assert_int_equal(s.nxf, ts.nxf);
	for (i = 0; i < s.nxf; i++)
		nb += s.xf[i].nblk;
	assert_int_equal(nb, ts.nblk);
	/* AllReduce's gather starts where its first slot's transfers do. */
	if (coll == SCHED_ALLREDUCE) {
		assert_true(ts.ag_from > 0 && s.ag_from >= ts.ag_from);
		assert_int_equal(s.ph[s.ag_from].xfer_off,
		                 ts.ph[ts.ag_from].xfer_off);
	}
	/* No reconfiguration the transceivers did not force. */
	for (i = 0; i + 1 < s.ncfg; i++)
		if (mergeable(&s, i, ntrx))
			fail_msg("%s %s trx %u: configurations %u and %u fit "
			         "as one",
			         spec, tsyn_algo_name(algo), ntrx, i, i + 1);
	for (i = 0; i < t.n; i++)
		if (t.out_off[i + 1] - t.out_off[i] > deg)
			deg = t.out_off[i + 1] - t.out_off[i];
	if (ntrx >= deg) {
		assert_int_equal(s.ncfg, 1);
		assert_int_equal(s.nph, ts.nph);
	}
	/* A transfer moved to a transceiver with no circuit is caught. */
	if (s.nseg > 0) {
		s.seg[s.nseg - 1].port =
		    (uint16_t)((s.seg[s.nseg - 1].port + 1) % s.ports);
		if (s.ports > 1)
			assert_int_not_equal(sched_validate_circuits(&s, &ve),
			                     0);
	}
	sched_free(&s);
	sched_free(&ts);
	topo_free(&t);
}

/* Synthesised schedules on circuits: as many configurations as the
 * transceivers force, each obeying the port rules, every transfer on a
 * lit circuit; a switch is no host. */
static void
test_on_circuits(void **state)
{
	static const char *specs[] = {
	    "ring:6:1GBps:1us", "subring:9:1,3:1GBps:1us",
	    "mesh:3x3:1GBps:1us", "torus:2x2x2:1GBps:1us"};
	static const enum tsyn_algo  algos[] = {TSYN_TEN, TSYN_MTEG, TSYN_RING,
	                                        TSYN_SPT};
	static const enum sched_coll colls[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	struct tsyn_params q = {.algo = TSYN_TEN,
	                        .coll = SCHED_ALLGATHER,
	                        .bytes = 8 * 4096,
	                        .chunks = 1};
	struct topo        t;
	struct sched       ts, s;
	char               err[256];
	size_t             a, k, c;
	uint32_t           trx;

	(void)state;
	for (k = 0; k < 4; k++)
		for (a = 0; a < 4; a++)
			for (c = 0; c < 3; c++)
				for (trx = 1; trx <= 4; trx++)
					expect_circuits(specs[k], algos[a],
					                colls[c], trx);
	assert_int_equal(tplan_load("ndv2:2", &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	assert_int_equal(tsyn_on_circuits(&ts, 4, &s, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "circuits"));
	sched_free(&ts);
	topo_free(&t);
}

/* Hand-made schedules the validator must refuse. */
static void
test_validator(void **state)
{
	struct topo      t;
	struct sched     s;
	struct sched_seg g;
	char             err[300];
	uint32_t         slots, c;

	(void)state;
	assert_int_equal(topo_generate("ring:3:8GBps:0", &t, err, sizeof(err)),
	                 0);
	/* Links of g0: to g1 (port 0), to g2 (port 1). */
#define START(coll)                                                           \
	do {                                                                  \
		assert_int_equal(sched_init(&s, "t", coll, 3, 2, 1, 3 << 20), \
		                 0);                                          \
		s.topo = &t;                                                  \
		s.ngpu = 3;                                                   \
	} while (0)
#define SEND(from, pt, to, chunk)                                             \
	do {                                                                  \
		c = chunk;                                                    \
		g = (struct sched_seg){.node = from, .port = pt, .hops = 1};  \
		assert_int_equal(sched_add_xfer(&s, from, to, &c, 1, &g, 1),  \
		                 0);                                          \
	} while (0)
	/* Sending what g1 does not hold yet. */
	START(SCHED_ALLGATHER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 0, 1, 0);
	SEND(1, 1, 2, 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)),
	                 -COLL_ENOTHELD);
	assert_non_null(strstr(err, "slot 0: g1 sends chunk 0 of g0"));
	sched_free(&s);
	/* Two chunks on one link in one slot. */
	START(SCHED_ALLGATHER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 0, 1, 0);
	SEND(0, 0, 1, 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)),
	                 -COLL_ELINK);
	assert_non_null(strstr(err, "link g0 -> g1 still carries"));
	sched_free(&s);
	/* Not everything delivered. */
	START(SCHED_ALLGATHER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 0, 1, 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)),
	                 -COLL_EUNDELIVERED);
	assert_non_null(strstr(err, "never receives"));
	sched_free(&s);
	/* A hop that is not a link of the sender's port. */
	START(SCHED_ALLGATHER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 1, 1, 0);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)),
	                 -COLL_EPATH);
	sched_free(&s);
	/* Ports: g0 -> g1 is g0's 0, g0 -> g2 its 1; g1 -> g0 is g1's 0,
	 * g1 -> g2 its 1; g2 -> g0 is g2's 0, g2 -> g1 its 1.  A reduction
	 * tree per chunk: chunk 2 via g0 -> g1 -> g2, chunk 0 straight from
	 * g1 and g2, chunk 1 straight from g0 and g2. */
	START(SCHED_REDUCESCATTER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 0, 1, 2);
	sched_add_phase(&s, 0, 0);
	SEND(1, 1, 2, 2);
	SEND(1, 0, 0, 0);
	sched_add_phase(&s, 0, 0);
	SEND(2, 0, 0, 0);
	SEND(2, 1, 1, 1);
	SEND(0, 0, 1, 1);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)), 0);
	assert_int_equal(slots, 3);
	sched_free(&s);
	/* g0's share of chunk 2 sent twice: both copies reach g2. */
	START(SCHED_REDUCESCATTER);
	sched_add_phase(&s, 0, 0);
	SEND(0, 0, 1, 2);
	SEND(0, 1, 2, 2);
	sched_add_phase(&s, 0, 0);
	SEND(1, 1, 2, 2);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)),
	                 -COLL_EREDUCE);
	assert_non_null(strstr(err, "already holds"));
	sched_free(&s);
	topo_free(&t);
#undef START
#undef SEND
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topo_file),
	    cmocka_unit_test(test_generators),
	    cmocka_unit_test(test_tiny_optimal),
	    cmocka_unit_test(test_cut_through),
	    cmocka_unit_test(test_scalecc_router_onto_faster_link),
	    cmocka_unit_test(test_shipped),
	    cmocka_unit_test(test_mteg_vs_ten),
	    cmocka_unit_test(test_plan_replay),
	    cmocka_unit_test(test_teccl_input),
	    cmocka_unit_test(test_taccl_profile),
	    cmocka_unit_test(test_taccl_sketches),
	    cmocka_unit_test(test_scalecc_datacentres),
	    cmocka_unit_test(test_unreachable),
	    cmocka_unit_test(test_validator),
	    cmocka_unit_test(test_on_circuits),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
