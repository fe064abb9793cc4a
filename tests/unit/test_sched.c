/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_sched.c: the IR builder, byte layout, path walking, and
 * each validation rule broken on purpose in a hand-built schedule.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/sched.h"

/*
 * A valid All-to-All on a 3-ring in one phase: i.R - (i+1).L, each node
 * sends B[i,i+1] right and B[i,i-1] left, one hop each.  `mut` selects a
 * defect to build in.
 */
enum mut {
	M_NONE,
	M_PORT_TWICE,  /* two circuits on 0.R */
	M_SELF,        /* a circuit from node 1 to itself */
	M_BADPORT,     /* a circuit on port 2 of a 2-port node */
	M_DARK,        /* a hop on a port without a circuit */
	M_NOTHELD,     /* node 0 sends B[1,2] */
	M_TWICE,       /* node 0 sends B[0,1] twice */
	M_UNDELIVERED, /* B[2,1] never sent */
	M_WRONGEND,    /* path ends one node short */
	M_NOCFG,       /* phase 0 without circuits */
	M_SEGBREAK,    /* second segment starts elsewhere */
};

static int
build(struct sched *s, enum mut mut)
{
	struct sched_seg seg[2];
	uint32_t         i, b[2];
	int              rv;

	rv = sched_init(s, "hand", SCHED_ALLTOALL, 3, 2, 1, 30);
	if (rv != 0)
		return (rv);
	if (sched_add_phase(s, mut != M_NOCFG, 1) < 0)
		return (-1);
	for (i = 0; mut != M_NOCFG && i < 3; i++)
		if (!(mut == M_DARK && i == 2))
			sched_add_circuit(s, i, SCHED_PORT_R, (i + 1) % 3,
			                  SCHED_PORT_L);
	if (mut == M_PORT_TWICE)
		sched_add_circuit(s, 0, SCHED_PORT_R, 2, SCHED_PORT_R);
	if (mut == M_SELF)
		sched_add_circuit(s, 1, SCHED_PORT_R, 1, SCHED_PORT_L);
	if (mut == M_BADPORT)
		sched_add_circuit(s, 1, 2, 2, 2);
	memset(seg, 0, sizeof(seg));
	for (i = 0; i < 3; i++) {
		seg[0].node = i;
		seg[0].port = SCHED_PORT_R;
		seg[0].hops = 1;
		b[0] = sched_blk_id(s, i, (i + 1) % 3, 0);
		if (mut == M_NOTHELD && i == 0)
			b[0] = sched_blk_id(s, 1, 2, 0);
		if (mut == M_TWICE && i == 0) {
			b[1] = b[0];
			sched_add_xfer(s, i, (i + 1) % 3, b, 2, seg, 1);
		} else
			sched_add_xfer(s, i, (i + 1) % 3, b, 1, seg, 1);
		if (mut == M_UNDELIVERED && i == 2)
			continue;
		seg[0].port = SCHED_PORT_L;
		b[0] = sched_blk_id(s, i, (i + 2) % 3, 0);
		if (mut == M_WRONGEND && i == 1) {
			seg[0].hops = 2;
			sched_add_xfer(s, i, (i + 2) % 3, b, 1, seg, 1);
		} else if (mut == M_SEGBREAK && i == 1) {
			seg[1] = seg[0];
			seg[1].node = 2;
			sched_add_xfer(s, i, (i + 2) % 3, b, 1, seg, 2);
		} else
			sched_add_xfer(s, i, (i + 2) % 3, b, 1, seg, 1);
	}
	return (0);
}

static void
expect(enum mut mut, int code, int32_t phase, int64_t node, int64_t block,
       const char *needle)
{
	struct sched      s;
	struct sched_verr e;

	assert_int_equal(build(&s, mut), 0);
	assert_int_equal(sched_validate(&s, &e), code);
	assert_int_equal(e.code, code);
	assert_int_equal(e.phase, phase);
	assert_int_equal(e.node, node);
	assert_int_equal(e.block, block);
	if (strstr(e.msg, needle) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
	sched_free(&s);
}

static void
test_sched_valid_ring(void **state)
{
	struct sched      s;
	struct sched_verr e;

	(void)state;
	assert_int_equal(build(&s, M_NONE), 0);
	assert_int_equal(sched_validate(&s, &e), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	assert_int_equal(s.nph, 1);
	assert_int_equal(s.nxf, 6);
	assert_int_equal(s.xf[0].bytes, 10);
	sched_free(&s);
}

static void
test_sched_rule_port_twice(void **state)
{
	(void)state;
	expect(M_PORT_TWICE, -COLL_EPORT, 0, 0, -1, "port limits");
}

static void
test_sched_rule_self_circuit(void **state)
{
	(void)state;
	expect(M_SELF, -COLL_EPORT, 0, 1, -1, "joined to itself");
}

static void
test_sched_rule_port_out_of_range(void **state)
{
	(void)state;
	expect(M_BADPORT, -COLL_EPORT, 0, 1, -1, "circuit 1.2-2.2");
}

static void
test_sched_rule_dark_hop(void **state)
{
	(void)state;
	/* 2.R - 0.L is missing: node 0's leftward transfer is first to
	 * leave by a port without a circuit. */
	expect(M_DARK, -COLL_EDARK, 0, 0, -1, "port 1, which has no circuit");
}

static void
test_sched_rule_not_held(void **state)
{
	(void)state;
	expect(M_NOTHELD, -COLL_ENOTHELD, 0, 0, 1 * 3 + 2,
	       "node 0: block B[1,2] is held by node 1");
}

static void
test_sched_rule_sent_twice(void **state)
{
	(void)state;
	expect(M_TWICE, -COLL_ENOTHELD, 0, 0, 1, "sent twice");
}

static void
test_sched_rule_undelivered(void **state)
{
	(void)state;
	expect(M_UNDELIVERED, -COLL_EUNDELIVERED, -1, 2, 2 * 3 + 1,
	       "holds block B[2,1], which belongs to node 1");
}

static void
test_sched_rule_path_wrong_end(void **state)
{
	(void)state;
	expect(M_WRONGEND, -COLL_EPATH, 0, 1, -1, "ends at node 2");
}

static void
test_sched_rule_segment_break(void **state)
{
	(void)state;
	expect(M_SEGBREAK, -COLL_EPATH, 0, 0, -1, "path breaks");
}

static void
test_sched_rule_no_first_config(void **state)
{
	(void)state;
	expect(M_NOCFG, -COLL_ENOCFG, 0, -1, -1, "phase 0");
}

static void
test_sched_rule_bytes_mismatch(void **state)
{
	struct sched      s;
	struct sched_verr e;

	(void)state;
	assert_int_equal(build(&s, M_NONE), 0);
	s.xf[3].bytes++;
	assert_int_equal(sched_validate(&s, &e), -COLL_EBYTES);
	assert_int_equal(e.phase, 0);
	assert_int_equal(e.node, 1);
	sched_free(&s);
}

static void
test_sched_byte_layout_is_exact(void **state)
{
	static const uint64_t sizes[] = {
	    0, 1, 7, 1000, 1048576, 1048577, (uint64_t)1 << 40};
	struct sched s;
	size_t       i;
	uint32_t     b, n = 7, parts = 2;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t sum = 0, off = 0, lo = UINT64_MAX, hi = 0;

		assert_int_equal(
		    sched_init(&s, "x", SCHED_ALLTOALL, n, 2, parts, sizes[i]),
		    0);
		/* Blocks of one source tile its buffer in order. */
		for (b = 0; b < n * parts; b++) {
			uint64_t sz = sched_blk_bytes(&s, b);

			assert_int_equal(sched_blk_offset(&s, b), off);
			off += sz;
			sum += sz;
			lo = sz < lo ? sz : lo;
			hi = sz > hi ? sz : hi;
		}
		assert_int_equal(sum, sizes[i]);
		assert_true(hi - lo <= 1);
		/* Any source: same layout. */
		assert_int_equal(
		    sched_blk_bytes(&s, sched_blk_id(&s, 5, 3, 1)),
		    sched_blk_bytes(&s, 3 * parts + 1));
		sched_free(&s);
	}
}

static void
test_sched_block_ids_roundtrip(void **state)
{
	struct sched s;
	uint32_t     r, d, p;
	char         name[32];

	(void)state;
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 5, 2, 2, 100), 0);
	for (r = 0; r < 5; r++)
		for (d = 0; d < 5; d++)
			for (p = 0; p < 2; p++) {
				uint32_t b = sched_blk_id(&s, r, d, p);
				assert_int_equal(sched_blk_src(&s, b), r);
				assert_int_equal(sched_blk_dst(&s, b), d);
				assert_int_equal(sched_blk_part(&s, b), p);
			}
	sched_blk_name(&s, sched_blk_id(&s, 3, 4, 1), name, sizeof(name));
	assert_string_equal(name, "B[3,4].1");
	sched_free(&s);
}

static void
test_sched_init_rejects_bad_sizes(void **state)
{
	struct sched s;

	(void)state;
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 1, 2, 1, 1),
	                 -EINVAL);
	sched_free(&s);
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 4, 0, 1, 1),
	                 -EINVAL);
	sched_free(&s);
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 70000, 2, 1, 1),
	                 -COLL_ETOOBIG);
	sched_free(&s);
}

static void
test_sched_walk_multi_segment(void **state)
{
	struct sched      s;
	struct sched_seg  seg[2];
	struct sched_walk w;
	uint32_t          peer[10], i, b = 0, bad;
	int64_t           tx;
	uint32_t          got[4], ng = 0;

	(void)state;
	/* A 5-ring; path 0 -R-> 1 -R-> 2, then back 2 -L-> 1. */
	assert_int_equal(sched_init(&s, "x", SCHED_ALLTOALL, 5, 2, 1, 25), 0);
	assert_int_equal(sched_add_phase(&s, 1, 1), 0);
	for (i = 0; i < 5; i++)
		sched_add_circuit(&s, i, SCHED_PORT_R, (i + 1) % 5,
		                  SCHED_PORT_L);
	memset(seg, 0, sizeof(seg));
	seg[0] =
	    (struct sched_seg){.node = 0, .port = SCHED_PORT_R, .hops = 2};
	seg[1] =
	    (struct sched_seg){.node = 2, .port = SCHED_PORT_L, .hops = 1};
	assert_int_equal(sched_add_xfer(&s, 0, 1, &b, 1, seg, 2), 0);
	assert_int_equal(sched_peers(&s, &s.cfg[0], peer, &bad), 0);
	sched_walk_init(&w, &s, peer, &s.xf[0]);
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE)
		got[ng++] = (uint32_t)tx;
	assert_int_equal(tx, SCHED_NONE);
	assert_int_equal(ng, 3);
	assert_int_equal(got[0], 0 * 2 + SCHED_PORT_R);
	assert_int_equal(got[1], 1 * 2 + SCHED_PORT_R);
	assert_int_equal(got[2], 2 * 2 + SCHED_PORT_L);
	assert_int_equal(w.node, 1);
	assert_int_equal(sched_xfer_hops(&s, &s.xf[0]), 3);
	assert_int_equal(sched_cfg_of(&s, 0), 0);
	sched_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sched_valid_ring),
	    cmocka_unit_test(test_sched_rule_port_twice),
	    cmocka_unit_test(test_sched_rule_self_circuit),
	    cmocka_unit_test(test_sched_rule_port_out_of_range),
	    cmocka_unit_test(test_sched_rule_dark_hop),
	    cmocka_unit_test(test_sched_rule_not_held),
	    cmocka_unit_test(test_sched_rule_sent_twice),
	    cmocka_unit_test(test_sched_rule_undelivered),
	    cmocka_unit_test(test_sched_rule_path_wrong_end),
	    cmocka_unit_test(test_sched_rule_segment_break),
	    cmocka_unit_test(test_sched_rule_no_first_config),
	    cmocka_unit_test(test_sched_rule_bytes_mismatch),
	    cmocka_unit_test(test_sched_byte_layout_is_exact),
	    cmocka_unit_test(test_sched_block_ids_roundtrip),
	    cmocka_unit_test(test_sched_init_rejects_bad_sizes),
	    cmocka_unit_test(test_sched_walk_multi_segment),
	};

	return (cmocka_run_group_tests_name("sched", tests, NULL, NULL));
}
