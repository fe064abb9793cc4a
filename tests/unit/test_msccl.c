/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_msccl.c: MSCCL XML exports checked by an interpreter
 * written from the format (not from the exporter): every attribute the
 * runtime reads is present; thread blocks have one send and one receive
 * peer and each connection one thread block at either end; the steps,
 * played with FIFO matching per (sender, receiver, channel) and their
 * dependencies, finish without deadlock and leave every rank's output
 * holding exactly the All-to-All's blocks.
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

#include "collectives/a2a.h"
#include "collectives/msccl.h"
#include "collectives/tplan.h"
#include "collectives/tsyn.h"

#define MAXG  64
#define MAXTB 64

struct xstep {
	char type[4], srcbuf, dstbuf;
	int  src, dst, cnt, depid, deps, hasdep;
};

struct xtb {
	int           send, recv, chan, n, pc;
	struct xstep *st;
};

struct xgpu {
	int        ic, oc, sc, ntb;
	int64_t   *buf[3]; /* i, o, s */
	struct xtb tb[MAXTB];
};

struct fifo {
	int64_t *v;
	size_t   head, tail, cap;
};

struct xalgo {
	char         coll[32];
	int          ngpus, nchunks, nchan;
	struct xgpu  g[MAXG];
	struct fifo *q; /* [ngpus * ngpus * nchan] */
};

/* The value of attribute k in the tag starting at p (up to its '>'). */
static int
attr(const char *p, const char *k, char *out, size_t len)
{
	const char *end = strchr(p, '>'), *a;
	char        tag[512], pat[64];

	/* Look inside this tag only. */
	if (end == NULL || end - p >= (ptrdiff_t)sizeof(tag))
		return (-1);
	memcpy(tag, p, (size_t)(end - p));
	tag[end - p] = '\0';
	snprintf(pat, sizeof(pat), " %s=\"", k);
	if ((a = strstr(tag, pat)) == NULL)
		return (-1);
	a += strlen(pat);
	if (strchr(a, '"') == NULL)
		return (-1);
	snprintf(out, len, "%.*s", (int)(strchr(a, '"') - a), a);
	return (0);
}

static int
iattr(const char *p, const char *k)
{
	char v[64];

	if (attr(p, k, v, sizeof(v)) != 0)
		fail_msg("attribute %s missing in: %.60s", k, p);
	return (atoi(v));
}

static void
parse_step(const char *p, struct xstep *s)
{
	char v[16];

	assert_int_equal(attr(p, "type", s->type, sizeof(s->type)), 0);
	assert_int_equal(attr(p, "srcbuf", v, sizeof(v)), 0);
	s->srcbuf = v[0];
	assert_int_equal(attr(p, "dstbuf", v, sizeof(v)), 0);
	s->dstbuf = v[0];
	s->src = iattr(p, "srcoff");
	s->dst = iattr(p, "dstoff");
	s->cnt = iattr(p, "cnt");
	s->depid = iattr(p, "depid");
	s->deps = iattr(p, "deps");
	s->hasdep = iattr(p, "hasdep");
}

static void
parse(const char *xml, struct xalgo *a)
{
	static const char *const algo_attrs[] = {
	    "name", "proto",   "nchannels",  "nchunksperloop", "ngpus",
	    "coll", "inplace", "outofplace", "minBytes",       "maxBytes"};
	const char  *p = strstr(xml, "<algo ");
	char         v[64];
	struct xgpu *g = NULL;
	struct xtb  *t = NULL;
	size_t       i;

	assert_non_null(p);
	for (i = 0; i < sizeof(algo_attrs) / sizeof(algo_attrs[0]); i++)
		if (attr(p, algo_attrs[i], v, sizeof(v)) != 0)
			fail_msg("<algo> lacks %s", algo_attrs[i]);
	assert_int_equal(attr(p, "coll", a->coll, sizeof(a->coll)), 0);
	a->ngpus = iattr(p, "ngpus");
	a->nchunks = iattr(p, "nchunksperloop");
	a->nchan = iattr(p, "nchannels");
	assert_true(a->ngpus <= MAXG && a->nchan <= MSCCL_MAX_CHANNELS);
	while ((p = strchr(p + 1, '<')) != NULL) {
		if (strncmp(p, "<gpu ", 5) == 0) {
			g = &a->g[iattr(p, "id")];
			g->ic = iattr(p, "i_chunks");
			g->oc = iattr(p, "o_chunks");
			g->sc = iattr(p, "s_chunks");
		} else if (strncmp(p, "<tb ", 4) == 0) {
			assert_non_null(g);
			assert_int_equal(iattr(p, "id"), g->ntb);
			t = &g->tb[g->ntb++];
			t->send = iattr(p, "send");
			t->recv = iattr(p, "recv");
			t->chan = iattr(p, "chan");
			t->st = calloc(MSCCL_MAX_STEPS, sizeof(*t->st));
		} else if (strncmp(p, "<step ", 6) == 0) {
			assert_non_null(t);
			assert_int_equal(iattr(p, "s"), t->n);
			assert_true(t->n < MSCCL_MAX_STEPS);
			parse_step(p, &t->st[t->n++]);
		}
	}
}

static int64_t *
buffer(struct xgpu *g, char b, int off, int cnt)
{
	int i = b == 'i' ? 0 : b == 'o' ? 1 : b == 's' ? 2 : -1;
	int n = i == 0 ? g->ic : i == 1 ? g->oc : g->sc;

	if (i < 0 || off < 0 || off + cnt > n)
		fail_msg("buffer %c[%d..%d) out of %d", b, off, off + cnt, n);
	return (g->buf[i] + off);
}

static struct fifo *
fifo(struct xalgo *a, int from, int to, int chan)
{
	return (&a->q[((size_t)from * a->ngpus + to) * a->nchan + chan]);
}

static void
push(struct fifo *f, int64_t v)
{
	if (f->tail == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
		assert_non_null(f->v);
	}
	f->v[f->tail++] = v;
}

/*
 * Values.  All-to-All: rank << 32 | input chunk.  The others: chunk id
 * << 48 | the set of GPUs whose contribution it sums (one bit each), so
 * a reduction of two different chunks, or one counting a GPU twice, is
 * caught.
 */
#define CHUNK_SHIFT 48

static int64_t
reduce(int64_t a, int64_t b)
{
	int64_t m = ((int64_t)1 << CHUNK_SHIFT) - 1;

	if (a < 0 || b < 0)
		fail_msg("reduction with an unwritten chunk");
	if ((a >> CHUNK_SHIFT) != (b >> CHUNK_SHIFT))
		fail_msg("reduction of chunk %lld into chunk %lld",
		         (long long)(a >> CHUNK_SHIFT),
		         (long long)(b >> CHUNK_SHIFT));
	if ((a & b & m) != 0)
		fail_msg("chunk %lld: a GPU's contribution added twice (%llx "
		         "and %llx)",
		         (long long)(a >> CHUNK_SHIFT), (long long)(a & m),
		         (long long)(b & m));
	return (a | b);
}

static int
has(const char *type, char c)
{
	return (strchr(type, c) != NULL);
}

/* Can step s of thread block t on gpu u run now?  Runs it if so.  Types:
 * s send, r receive, c copy (after r: to dst), rr.. receive and reduce
 * with src, cpy local copy, nop. */
static int
try_step(struct xalgo *a, int u, struct xtb *t)
{
	struct xgpu  *g = &a->g[u];
	struct xstep *s = &t->st[t->pc];
	int recv = s->type[0] == 'r', red = recv && s->type[1] == 'r';
	int send = strcmp(s->type, "s") == 0 ||
	           (recv && s->type[strlen(s->type) - 1] == 's');
	int store = strcmp(s->type, "cpy") == 0 || strcmp(s->type, "r") == 0 ||
	            (recv && has(s->type + 1, 'c')) ||
	            strcmp(s->type, "rrc") == 0;
	struct fifo *in = NULL;
	int          k;

	if (s->depid >= 0 && g->tb[s->depid].pc <= s->deps)
		return (0);
	if (strcmp(s->type, "nop") == 0) {
		t->pc++;
		return (1);
	}
	if (recv) {
		assert_true(t->recv >= 0);
		in = fifo(a, t->recv, u, t->chan);
		if (in->tail - in->head < (size_t)s->cnt)
			return (0);
	}
	if (send)
		assert_true(t->send >= 0);
	for (k = 0; k < s->cnt; k++) {
		int64_t v;

		if (in != NULL)
			v = in->v[in->head++];
		else
			v = *buffer(g, s->srcbuf, s->src + k, 1);
		if (red)
			v = reduce(v, *buffer(g, s->srcbuf, s->src + k, 1));
		if (store)
			*buffer(g, s->dstbuf, s->dst + k, 1) = v;
		if (send)
			push(fifo(a, u, t->send, t->chan), v);
	}
	t->pc++;
	return (1);
}

/* What input chunk i of gpu u holds at the start. */
static int64_t
initial(const struct xalgo *a, int u, int i)
{
	int per = a->nchunks / a->ngpus;

	if (strcmp(a->coll, "alltoall") == 0)
		return ((int64_t)u << 32 | i);
	if (strcmp(a->coll, "allgather") == 0)
		i += u * per; /* its share of the gathered buffer */
	return ((int64_t)i << CHUNK_SHIFT | (int64_t)1 << u);
}

/* What output chunk i of gpu u must hold at the end. */
static int64_t
expected(const struct xalgo *a, int u, int i)
{
	int     per = a->nchunks / a->ngpus;
	int64_t all = ((int64_t)1 << a->ngpus) - 1;

	if (strcmp(a->coll, "alltoall") == 0)
		return ((int64_t)(i / per) << 32 | (u * per + i % per));
	if (strcmp(a->coll, "allgather") == 0)
		return ((int64_t)i << CHUNK_SHIFT | (int64_t)1 << (i / per));
	if (strcmp(a->coll, "reduce_scatter") == 0)
		return ((int64_t)(u * per + i) << CHUNK_SHIFT | all);
	if (strcmp(a->coll, "allreduce") == 0)
		return ((int64_t)i << CHUNK_SHIFT | all);
	fail_msg("unknown collective %s", a->coll);
	return (0);
}

/* Play every thread block to the end; the collective's postcondition. */
static void
play(struct xalgo *a)
{
	int u, i, k, progress = 1;

	a->q = calloc((size_t)a->ngpus * a->ngpus * a->nchan, sizeof(*a->q));
	assert_non_null(a->q);
	for (u = 0; u < a->ngpus; u++) {
		struct xgpu *g = &a->g[u];

		g->buf[0] = calloc(g->ic + 1, sizeof(int64_t));
		g->buf[1] = calloc(g->oc + 1, sizeof(int64_t));
		g->buf[2] = calloc(g->sc + 1, sizeof(int64_t));
		for (i = 0; i < g->ic; i++)
			g->buf[0][i] = initial(a, u, i);
		for (i = 0; i < g->oc; i++)
			g->buf[1][i] = -1;
		/* One thread block at either end of a connection. */
		for (i = 0; i < g->ntb; i++)
			for (k = i + 1; k < g->ntb; k++)
				assert_false(
				    g->tb[i].chan == g->tb[k].chan &&
				    ((g->tb[i].send >= 0 &&
				      g->tb[i].send == g->tb[k].send) ||
				     (g->tb[i].recv >= 0 &&
				      g->tb[i].recv == g->tb[k].recv)));
	}
	while (progress) {
		progress = 0;
		for (u = 0; u < a->ngpus; u++)
			for (i = 0; i < a->g[u].ntb; i++)
				while (a->g[u].tb[i].pc < a->g[u].tb[i].n &&
				       try_step(a, u, &a->g[u].tb[i]))
					progress = 1;
	}
	for (u = 0; u < a->ngpus; u++)
		for (i = 0; i < a->g[u].ntb; i++)
			if (a->g[u].tb[i].pc < a->g[u].tb[i].n)
				fail_msg(
				    "deadlock: gpu %d tb %d at step %d of "
				    "%d",
				    u, i, a->g[u].tb[i].pc, a->g[u].tb[i].n);
	for (u = 0; u < a->ngpus; u++)
		for (i = 0; i < a->g[u].oc; i++) {
			int64_t want = expected(a, u, i);

			if (a->g[u].buf[1][i] != want)
				fail_msg("%s: gpu %d output chunk %d holds "
				         "%llx, want %llx",
				         a->coll, u, i,
				         (long long)a->g[u].buf[1][i],
				         (long long)want);
		}
}

static void
xfree(struct xalgo *a)
{
	int u, i;

	for (u = 0; u < a->ngpus; u++) {
		for (i = 0; i < a->g[u].ntb; i++)
			free(a->g[u].tb[i].st);
		for (i = 0; i < 3; i++)
			free(a->g[u].buf[i]);
	}
	for (i = 0; a->q && i < a->ngpus * a->ngpus * a->nchan; i++)
		free(a->q[i].v);
	free(a->q);
}

/* Export and play; 0, or 1 when MSCCL's step limit refused it (only
 * allowed when must is 0). */
static int
check(const char *algo, uint32_t radix, uint32_t n, const uint8_t *before,
      int must)
{
	struct a2a    a;
	struct sched  s;
	struct xalgo *x = calloc(1, sizeof(*x));
	char         *xml, err[256];
	size_t        len;

	assert_non_null(x);
	assert_int_equal(a2a_init_radix(&a, algo, n, radix), 0);
	assert_int_equal(a2a_build(&a, 1 << 20, before, 1u << 24, &s), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	if (msccl_export(&s, 1 << 20, &xml, &len, err, sizeof(err)) != 0) {
		if (must || strstr(err, "more than 256 steps") == NULL)
			fail_msg("%s n=%u: %s", algo, n, err);
		free(x);
		sched_free(&s);
		a2a_fini(&a);
		return (1);
	}
	assert_int_equal(strlen(xml), len);
	parse(xml, x);
	assert_int_equal(x->ngpus, n);
	play(x);
	xfree(x);
	free(x);
	free(xml);
	sched_free(&s);
	a2a_fini(&a);
	return (0);
}

static void
test_msccl_ring_algorithms(void **state)
{
	static const char *const algos[] = {"retri", "bridge", "static",
	                                    "bruck", "bruck2"};
	uint8_t                  none[16] = {0}, all[16], some[16] = {0};
	size_t                   i;
	uint32_t                 n;

	(void)state;
	memset(all, 1, sizeof(all));
	some[2] = 1;
	uint32_t refused = 0, played = 0, r;

	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
		for (n = 2; n <= 32; n++) {
			/* Every phase on fresh circuits: one hop, always
			 * within MSCCL's limits (static's one phase relays
			 * round its ring). */
			check(algos[i], 0, n, all, strcmp(algos[i], "static"));
			r = check(algos[i], 0, n, none, 0);
			r += check(algos[i], 0, n, some, 0);
			refused += r;
			played += 3 - r;
		}
	for (n = 2; n <= 30; n++) {
		check("retri", 5, n, all, 1);
		r = check("retri", 5, n, none, 0);
		refused += r;
		played += 2 - r;
	}
	/* Most reuse fits: relays stay under 256 steps a thread block. */
	assert_true(played > 8 * refused);
}

/* What MSCCL cannot take is refused, and said. */
static void
test_msccl_refusals(void **state)
{
	static const uint64_t t[4] = {0, 5, 7, 0};
	struct sched          s;
	struct a2a            a;
	uint8_t               all[64];
	char                  err[256], *xml;
	size_t                len;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(all, 1, sizeof(all));
	assert_int_equal(sched_init_v(&s, "fast", 2, 1, t), 0);
	assert_int_equal(msccl_export(&s, 12, &xml, &len, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "skewed All-to-All"));
	sched_free(&s);
	/* 17 phases on 2 transceivers need 34 channels: more than 32. */
	assert_int_equal(sched_init(&s, "t", SCHED_ALLTOALL, 4, 2, 1, 4096),
	                 0);
	for (len = 0; len < 17; len++)
		assert_true(sched_add_phase(&s, 1, 1) >= 0);
	assert_int_equal(msccl_export(&s, 4096, &xml, &len, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "channels"));
	sched_free(&s);
	/* A topology schedule whose one GPU pair needs 33 channels of 256
	 * steps. */
	{
		struct topo      tp;
		struct sched_seg g = {.node = 0, .port = 0, .hops = 1};
		uint32_t         b = 0, i;

		assert_int_equal(
		    topo_generate("mesh:1x2:1GBps:1us", &tp, err, sizeof(err)),
		    0);
		assert_int_equal(
		    sched_init(&s, "t", SCHED_ALLGATHER, 2, 1, 1, 4096), 0);
		s.topo = &tp;
		s.ngpu = 2;
		assert_true(sched_add_phase(&s, 0, 0) >= 0);
		for (i = 0; i < 33 * MSCCL_MAX_STEPS; i++)
			assert_int_equal(
			    sched_add_xfer(&s, 0, 1, &b, 1, &g, 1), 0);
		assert_int_equal(
		    msccl_export(&s, 4096, &xml, &len, err, sizeof(err)),
		    -EINVAL);
		assert_non_null(strstr(err, "2 GPUs' transfers need more "
		                            "than 32 channels"));
		sched_free(&s);
		topo_free(&tp);
	}
	(void)a;
	(void)all;
}

/* Synthesise, validate, export and play a topology collective. */
static void
check_topo(const char *spec, enum tsyn_algo algo, enum sched_coll coll,
           uint32_t chunks)
{
	struct tsyn_params q = {
	    .algo = algo, .coll = coll, .bytes = 1 << 24, .chunks = chunks};
	struct xalgo *x = calloc(1, sizeof(*x));
	struct topo   t;
	struct sched  s;
	char         *xml, err[256];
	size_t        len;
	uint32_t      slots;

	assert_non_null(x);
	if (tplan_load(spec, &t, err, sizeof(err)) != 0)
		fail_msg("%s: %s", spec, err);
	if (tsyn_synth(&t, &q, &s, err, sizeof(err)) != 0)
		fail_msg("%s %s: %s", spec, tsyn_algo_name(algo), err);
	assert_int_equal(tsyn_validate(&s, &slots, err, sizeof(err)), 0);
	if (msccl_export(&s, q.bytes, &xml, &len, err, sizeof(err)) != 0)
		fail_msg("%s %s coll %d C=%u: %s", spec, tsyn_algo_name(algo),
		         (int)coll, chunks, err);
	assert_int_equal(strlen(xml), len);
	parse(xml, x);
	assert_int_equal(x->ngpus, t.ngpu);
	assert_int_equal(x->nchunks, t.ngpu * chunks);
	play(x);
	xfree(x);
	free(x);
	free(xml);
	sched_free(&s);
	topo_free(&t);
}

/* Every synthesis algorithm and collective, on GPU-only topologies and
 * on ones with switches and border routers (whose paths become
 * GPU-to-GPU sends, their partial sums reduced at the GPU they reach). */
static void
test_msccl_topology_collectives(void **state)
{
	static const char *const     topos[] = {"ring:4:8GBps:1us",
	                                        "mesh:3x3:8GBps:1us",
	                                        "subring:9:1,3:8GBps:1us",
	                                        "torus:2x2x2:8GBps:1us",
	                                        "dgx1",
	                                        "amd",
	                                        "ndv2:2",
	                                        "dgx2",
	                                        "wan2p",
	                                        "wan3p"};
	static const enum tsyn_algo  algos[] = {TSYN_TEN, TSYN_MTEG, TSYN_SPT,
	                                        TSYN_RING};
	static const enum sched_coll colls[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	size_t i, k, c;

	(void)state;
	for (i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		for (k = 0; k < sizeof(algos) / sizeof(algos[0]); k++)
			for (c = 0; c < 3; c++)
				check_topo(topos[i], algos[k], colls[c],
				           1 + (uint32_t)(i + k + c) % 3);
		/* AllGather only: their copies are no trees to reverse. */
		check_topo(topos[i], TSYN_SPH, SCHED_ALLGATHER, 2);
		check_topo(topos[i], TSYN_SCALECC, SCHED_ALLGATHER, 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_msccl_ring_algorithms),
	    cmocka_unit_test(test_msccl_refusals),
	    cmocka_unit_test(test_msccl_topology_collectives),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
