/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_chakra.c: Chakra traces of every kind of schedule, read
 * back by a reader written from the format (a varint length, then the
 * message; GlobalMetadata first, then Nodes; attributes by name), not
 * from the exporter, and as ASTRA-sim's older feeder reads them:
 * comm_src, comm_dst and comm_tag as int32, comm_size as int64,
 * is_cpu_op as bool, dependencies from data_deps only.  Every file
 * decodes, node ids are unique and every dependency names a node of its
 * file, every send has exactly one receive at its destination with the
 * same source, tag and size (and no receive is left over), and playing
 * the traces (a node runs once its dependencies have; a send and its
 * receive complete together) runs every node: nothing deadlocks, so the
 * dependencies are acyclic; and no node of phase k runs on a rank before
 * that rank's barrier closing phase k - 1 (the reconfiguration, a compute
 * node lasting the delay) has run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectives/a2a.h"
#include "collectives/skew.h"
#include "collectives/tmat.h"
#include "collectives/topo.h"
#include "collectives/tsyn.h"
#include "proto/chakra.h"
#include "proto/chakra_et_def.pb-c.h"

struct rnode {
	uint64_t id;
	int      type, phase; /* phase: from the name "phase K ..." */
	int64_t  src, dst, size, tag;
	uint64_t dur;
	uint64_t deps[4096];
	size_t   ndeps;
	int      done, issued;
};

struct rfile {
	struct rnode *v;
	size_t        n;
};

/* The attribute name, which must hold the type the older feeder reads
 * it with (as it would otherwise read 0). */
static int64_t
attr(const ChakraProtoMsg__Node *nd, const char *name, int *found)
{
	static const struct {
		const char *name;
		int         value_case;
	} as_read[] = {
	    {"is_cpu_op", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL},
	    {"comm_src", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL},
	    {"comm_dst", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL},
	    {"comm_tag", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL},
	    {"comm_size", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL},
	};
	size_t i, k;

	for (i = 0; i < nd->n_attr; i++) {
		const ChakraProtoMsg__AttributeProto *a = nd->attr[i];

		if (strcmp(a->name, name) != 0)
			continue;
		*found = 1;
		for (k = 0; k < sizeof(as_read) / sizeof(as_read[0]); k++)
			if (strcmp(as_read[k].name, name) == 0 &&
			    (int)a->value_case != as_read[k].value_case)
				fail_msg("attribute %s: type %d, the feeder "
				         "reads %d",
				         name, a->value_case,
				         as_read[k].value_case);
		switch (a->value_case) {
		case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
			return (a->int64_val);
		case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
			return (a->int32_val);
		case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
			return (a->bool_val);
		default:
			fail_msg("attribute %s: unexpected type %d", name,
			         a->value_case);
		}
	}
	*found = 0;
	return (-1);
}

/* The next length-delimited message of f into a malloc'd buffer. */
static uint8_t *
next_msg(FILE *f, size_t *len)
{
	uint64_t v = 0;
	int      c, sh = 0;
	uint8_t *b;

	while ((c = fgetc(f)) != EOF) {
		v |= (uint64_t)(c & 0x7f) << sh;
		sh += 7;
		if (!(c & 0x80))
			break;
		assert_true(sh < 64);
	}
	if (c == EOF) {
		assert_int_equal(sh, 0); /* no torn prefix */
		return (NULL);
	}
	assert_true(v < (1u << 24));
	b = malloc(v ? v : 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, v, f), v);
	*len = v;
	return (b);
}

static void
read_rank(const char *prefix, uint32_t r, struct rfile *out)
{
	ChakraProtoMsg__GlobalMetadata *md;
	char                            path[400];
	uint8_t                        *b;
	size_t                          len, cap = 0;
	FILE                           *f;

	snprintf(path, sizeof(path), "%s.%u.et", prefix, r);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(b = next_msg(f, &len));
	md = chakra_proto_msg__global_metadata__unpack(NULL, len, b);
	assert_non_null(md);
	assert_string_equal(md->version, "0.0.4");
	chakra_proto_msg__global_metadata__free_unpacked(md, NULL);
	free(b);
	memset(out, 0, sizeof(*out));
	while ((b = next_msg(f, &len)) != NULL) {
		ChakraProtoMsg__Node *nd =
		    chakra_proto_msg__node__unpack(NULL, len, b);
		struct rnode *x;
		int           found, fs, fd, fz, ft;
		size_t        i;

		assert_non_null(nd);
		if (out->n == cap) {
			cap = cap ? 2 * cap : 64;
			out->v = realloc(out->v, cap * sizeof(*out->v));
			assert_non_null(out->v);
		}
		x = &out->v[out->n++];
		memset(x, 0, sizeof(*x));
		x->id = nd->id;
		x->type = nd->type;
		assert_int_equal(sscanf(nd->name, "phase %d", &x->phase), 1);
		x->dur = nd->duration_micros;
		assert_int_equal(attr(nd, "is_cpu_op", &found), 0);
		assert_true(found);
		x->src = attr(nd, "comm_src", &fs);
		x->dst = attr(nd, "comm_dst", &fd);
		x->size = attr(nd, "comm_size", &fz);
		x->tag = attr(nd, "comm_tag", &ft);
		if (nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ||
		    nd->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)
			assert_true(fs && fd && fz && ft && x->size > 0);
		else
			assert_int_equal(
			    nd->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
		/* The older feeder follows data_deps alone. */
		assert_true(nd->n_data_deps <=
		            sizeof(x->deps) / sizeof(x->deps[0]));
		for (i = 0; i < nd->n_data_deps; i++)
			x->deps[x->ndeps++] = nd->data_deps[i];
		chakra_proto_msg__node__free_unpacked(nd, NULL);
		free(b);
	}
	fclose(f);
}

static struct rnode *
by_id(struct rfile *f, uint64_t id)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].id == id)
			return (&f->v[i]);
	return (NULL);
}

static struct rnode *
match(struct rfile *fs, uint32_t n, const struct rnode *s, int want)
{
	struct rnode *m = NULL;
	size_t        i;
	int64_t peer = want == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE
	                   ? s->dst
	                   : s->src;

	assert_true(peer >= 0 && peer < (int64_t)n);
	for (i = 0; i < fs[peer].n; i++) {
		struct rnode *o = &fs[peer].v[i];

		if (o->type == want && o->tag == s->tag) {
			assert_null(m); /* one match only */
			assert_true(o->src == s->src && o->dst == s->dst &&
			            o->size == s->size);
			m = o;
		}
	}
	assert_non_null(m);
	return (m);
}

static int
ready(struct rfile *f, const struct rnode *x)
{
	size_t i;

	for (i = 0; i < x->ndeps; i++)
		if (!by_id(f, x->deps[i])->done)
			return (0);
	return (1);
}

/* x may run only once its rank closed the phase before x's: the
 * reconfiguration is not overlapped by traffic. */
static void
after_barrier(const struct rfile *f, const struct rnode *x)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE &&
		    f->v[i].phase < x->phase && !f->v[i].done)
			fail_msg("node %llu of phase %d runs before the "
			         "barrier of phase %d",
			         (unsigned long long)x->id, x->phase,
			         f->v[i].phase);
}

/* Run the traces; every node must complete. */
static void
play(struct rfile *fs, uint32_t n)
{
	size_t   i, left = 0;
	uint32_t r;
	int      moved = 1;

	for (r = 0; r < n; r++)
		left += fs[r].n;
	while (left && moved) {
		moved = 0;
		for (r = 0; r < n; r++)
			for (i = 0; i < fs[r].n; i++) {
				struct rnode *x = &fs[r].v[i], *m;

				if (x->done || !ready(&fs[r], x))
					continue;
				after_barrier(&fs[r], x);
				if (x->type ==
				    CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE) {
					x->done = moved = 1;
					left--;
					continue;
				}
				x->issued = 1;
				if (x->type !=
				    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE)
					continue;
				m = match(
				    fs, n, x,
				    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE);
				if (m->issued || ready(&fs[x->dst], m)) {
					after_barrier(&fs[x->dst], m);
					x->done = m->done = moved = 1;
					left -= 2;
				}
			}
	}
	assert_int_equal(left, 0);
}

/* Export s, read every rank, check; the joins lasting delta. */
static void
check(const struct sched *s, double delta, uint32_t want_reconf)
{
	char          dir[] = "/tmp/test_chakra_XXXXXX", prefix[300];
	struct rfile *fs = calloc(s->n, sizeof(*fs));
	char          err[300];
	uint32_t      r, reconf;
	size_t        i, j;

	assert_non_null(fs);
	assert_non_null(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/t", dir);
	if (chakra_export(s, delta, prefix, err, sizeof(err)) != 0)
		fail_msg("%s: %s", s->algo, err);
	for (r = 0; r < s->n; r++) {
		read_rank(prefix, r, &fs[r]);
		for (i = 0, reconf = 0; i < fs[r].n; i++) {
			struct rnode *x = &fs[r].v[i];

			for (j = 0; j < i; j++)
				assert_true(fs[r].v[j].id != x->id);
			for (j = 0; j < x->ndeps; j++)
				assert_non_null(by_id(&fs[r], x->deps[j]));
			if (x->type ==
			    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE) {
				assert_int_equal(x->src, r);
			} else if (
			    x->type ==
			    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE) {
				assert_int_equal(x->dst, r);
			} else if (x->dur) {
				assert_int_equal(
				    x->dur, (uint64_t)(delta * 1e6 + 0.5));
				reconf++;
			}
		}
		assert_int_equal(reconf, want_reconf);
	}
	/* Every receive has its send (sends are matched in play). */
	for (r = 0; r < s->n; r++)
		for (i = 0; i < fs[r].n; i++)
			if (fs[r].v[i].type ==
			    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)
				match(
				    fs, s->n, &fs[r].v[i],
				    CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE);
	play(fs, s->n);
	for (r = 0; r < s->n; r++) {
		snprintf(prefix, sizeof(prefix), "%s/t.%u.et", dir, r);
		unlink(prefix);
		free(fs[r].v);
	}
	rmdir(dir);
	free(fs);
}

static void
test_chakra_alltoall(void **state)
{
	static const char *const algo[] = {"retri", "bridge", "static",
	                                   "bruck", "bruck2"};
	static const uint32_t    ns[] = {3, 4, 8, 9, 10, 27};
	size_t                   a, i;

	(void)state;
	for (a = 0; a < sizeof(algo) / sizeof(algo[0]); a++)
		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			struct a2a   x;
			struct sched s;
			uint8_t      before[16];
			uint32_t     nph;

			assert_int_equal(a2a_init(&x, algo[a], ns[i]), 0);
			nph = a2a_nphases(&x);
			/* every phase reconfigured: a delay before each */
			memset(before, 1, sizeof(before));
			before[0] = 0;
			assert_int_equal(
			    a2a_build(&x, 1u << 20, before, 1u << 26, &s), 0);
			check(&s, 2e-3, nph - 1);
			sched_free(&s);
			a2a_fini(&x);
		}
}

/* ReTri of radix 5 (4 transceivers) with no reconfiguration. */
static void
test_chakra_radix5_reused(void **state)
{
	struct a2a   x;
	struct sched s;
	uint8_t      before[8] = {0};

	(void)state;
	assert_int_equal(a2a_init_radix(&x, "retri", 25, 5), 0);
	assert_int_equal(a2a_build(&x, 1u << 20, before, 1u << 26, &s), 0);
	check(&s, 1e-3, 0);
	sched_free(&s);
	a2a_fini(&x);
}

/* Topology collectives: one-hop transfers a slot, no reconfiguration. */
static void
test_chakra_topology(void **state)
{
	static const char *const     gen[] = {"ring:5:100Gbps:1us",
	                                      "mesh:3x3:100Gbps:1us"};
	static const enum sched_coll coll[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	size_t g, c;

	(void)state;
	for (g = 0; g < 2; g++)
		for (c = 0; c < 3; c++) {
			struct tsyn_params q = {.algo = TSYN_TEN,
			                        .coll = coll[c],
			                        .bytes = 1u << 20,
			                        .chunks = 2};
			struct topo        t;
			struct sched       s;
			char               err[300];

			assert_int_equal(
			    topo_generate(gen[g], &t, err, sizeof(err)), 0);
			assert_int_equal(
			    tsyn_synth(&t, &q, &s, err, sizeof(err)), 0);
			check(&s, 0, 0);
			sched_free(&s);
			topo_free(&t);
		}
}

/* A skewed All-to-All: one-way circuits, a stage a configuration. */
static void
test_chakra_skewed(void **state)
{
	struct skew_params sp = {0};
	struct skew_plan   pl;
	struct tmat        m;
	struct sched       s;
	char               err[300];

	(void)state;
	sp.cp.beta = 1e-9;
	sp.cp.delta = 1e-3;
	sp.gpus = 1;
	memset(&pl, 0, sizeof(pl));
	assert_int_equal(
	    tmat_generate("zipf:8:0.8:1", 1u << 20, &m, err, sizeof(err)), 0);
	assert_int_equal(skew_plan("fast", &m, &sp, NULL, &pl, NULL, NULL), 0);
	assert_int_equal(skew_build(&pl, &m, &s), 0);
	check(&s, 1e-3, pl.nst - 1);
	sched_free(&s);
	skew_plan_free(&pl);
	tmat_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chakra_alltoall),
	    cmocka_unit_test(test_chakra_radix5_reused),
	    cmocka_unit_test(test_chakra_topology),
	    cmocka_unit_test(test_chakra_skewed),
	};

	return (cmocka_run_group_tests_name("chakra", tests, NULL, NULL));
}
