/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_msccl.c: MSCCL XML exports checked by an interpreter
 * written from the format and the runtime's kernel (not from the
 * exporter): every attribute the runtime reads is present; a connection
 * (channel, sender, receiver) has one thread block at either end; the
 * steps are played as the kernel runs them: a thread block's steps in
 * order, a connection a FIFO of operations of which only `slots` may wait
 * unreceived (Simple: NCCL_STEPS 8, a send of up to a chunk takes 4, so
 * 2; LL and LL128: 8), a dependency waiting for the flag that only a
 * step with hasdep sets, nop steps adding dependencies; they must finish
 * without deadlock and leave every rank's output holding exactly the
 * collective's chunks.  Our exports are played with one slot (they claim
 * it, msccl.h; more never makes a FIFO wait), other files with their
 * protocol's; RCCL's shipped All-to-All (../shared/data, when present)
 * is played as a control.
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
#include "collectives/msccl_int.h"
#include "collectives/tplan.h"
#include "collectives/tsyn.h"

#define MAXG   64
#define MAXTB  128
#define MAXST  1024
#define MAXCNT 72

/*
 * A chunk's value.  All-to-All: id rank << 32 | input chunk.  The others:
 * id the chunk, mask the GPUs whose contribution it sums, so a reduction
 * of two different chunks, or one counting a GPU twice, is caught.  id
 * -1: never written.
 */
struct xval {
	int64_t  id;
	uint64_t mask;
};

struct xstep {
	char type[4], srcbuf, dstbuf;
	int  s, src, dst, cnt, depid, deps, hasdep;
};

struct xtb {
	int           send, recv, chan, n, pc, flag;
	struct xstep *st;
};

struct xgpu {
	int          ic, oc, sc, ntb;
	struct xval *buf[3]; /* i, o, s */
	struct xtb   tb[MAXTB];
};

/* A connection: values in order, and the operations they came in. */
struct fifo {
	struct xval *v;
	size_t       head, tail, cap;
	int         *op;
	size_t       ohead, otail, ocap;
};

struct xalgo {
	char         coll[32], proto[16];
	int          ngpus, nchunks, nchan, slots;
	struct xgpu  g[MAXG];
	struct fifo *q; /* [ngpus * ngpus * nchan] */
};

/* The next c at or after p, or NULL: a loop, where the sanitizers'
 * strchr measures the whole rest of the document every call. */
static const char *
next_char(const char *p, char c)
{
	for (; *p != '\0'; p++)
		if (*p == c)
			return (p);
	return (NULL);
}

/* The value of attribute k in the tag starting at p (up to its '>'). */
static int
attr(const char *p, const char *k, char *out, size_t len)
{
	const char *end = next_char(p, '>'), *a;
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
	s->s = iattr(p, "s");
	s->src = iattr(p, "srcoff");
	s->dst = iattr(p, "dstoff");
	s->cnt = iattr(p, "cnt");
	s->depid = iattr(p, "depid");
	s->deps = iattr(p, "deps");
	s->hasdep = iattr(p, "hasdep");
	assert_true(s->hasdep == 0 || s->hasdep == 1);
	if (strcmp(s->type, "nop") == 0)
		assert_true(s->depid >= 0); /* a nop only carries one */
	else
		assert_true(s->cnt >= 1 && s->cnt < MAXCNT);
}

/* The runtime's slots a connection for the algorithm's protocol. */
static int
proto_slots(const char *proto)
{
	if (strcmp(proto, "Simple") == 0)
		return (2);
	if (strcmp(proto, "LL") == 0 || strcmp(proto, "LL128") == 0)
		return (8);
	fail_msg("unknown protocol %s", proto);
	return (0);
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
	assert_int_equal(attr(p, "proto", a->proto, sizeof(a->proto)), 0);
	a->slots = proto_slots(a->proto);
	a->ngpus = iattr(p, "ngpus");
	a->nchunks = iattr(p, "nchunksperloop");
	a->nchan = iattr(p, "nchannels");
	assert_true(a->ngpus <= MAXG && a->nchan >= 1 && a->nchan <= 32);
	while ((p = next_char(p + 1, '<')) != NULL) {
		if (strncmp(p, "<gpu ", 5) == 0) {
			g = &a->g[iattr(p, "id")];
			g->ic = iattr(p, "i_chunks");
			g->oc = iattr(p, "o_chunks");
			g->sc = iattr(p, "s_chunks");
		} else if (strncmp(p, "<tb ", 4) == 0) {
			assert_non_null(g);
			assert_int_equal(iattr(p, "id"), g->ntb);
			assert_true(g->ntb < MAXTB);
			t = &g->tb[g->ntb++];
			t->send = iattr(p, "send");
			t->recv = iattr(p, "recv");
			t->chan = iattr(p, "chan");
			t->flag = -1;
			assert_true(t->chan >= 0 && t->chan < a->nchan);
			t->st = calloc(MAXST, sizeof(*t->st));
		} else if (strncmp(p, "<step ", 6) == 0) {
			assert_non_null(t);
			assert_true(t->n < MAXST);
			parse_step(p, &t->st[t->n]);
			assert_int_equal(t->st[t->n].s, t->n);
			t->n++;
		}
	}
}

static struct xval *
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
push(struct fifo *f, const struct xval *v, int n)
{
	int k;

	if (f->tail + (size_t)n > f->cap) {
		f->cap = 2 * f->cap + (size_t)n + 64;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
		assert_non_null(f->v);
	}
	if (f->otail == f->ocap) {
		f->ocap = f->ocap ? 2 * f->ocap : 64;
		f->op = realloc(f->op, f->ocap * sizeof(*f->op));
		assert_non_null(f->op);
	}
	for (k = 0; k < n; k++)
		f->v[f->tail++] = v[k];
	f->op[f->otail++] = n;
}

static size_t
ops(const struct fifo *f)
{
	return (f->otail - f->ohead);
}

static struct xval
reduce(struct xval a, struct xval b)
{
	if (a.id < 0 || b.id < 0)
		fail_msg("reduction with an unwritten chunk");
	if (a.id != b.id)
		fail_msg("reduction of chunk %lld into chunk %lld",
		         (long long)a.id, (long long)b.id);
	if ((a.mask & b.mask) != 0)
		fail_msg("chunk %lld: a GPU's contribution added twice (%llx "
		         "and %llx)",
		         (long long)a.id, (unsigned long long)a.mask,
		         (unsigned long long)b.mask);
	return ((struct xval){a.id, a.mask | b.mask});
}

/* The step's data movement, its connections checked ready. */
static void
move(struct xalgo *a, int u, struct xtb *t, const struct xstep *s,
     struct fifo *in, struct fifo *out)
{
	struct xgpu *g = &a->g[u];
	int          red = s->type[0] == 'r' && s->type[1] == 'r';
	int store = strcmp(s->type, "cpy") == 0 || strcmp(s->type, "r") == 0 ||
	            strcmp(s->type, "rcs") == 0 ||
	            strcmp(s->type, "rrc") == 0 ||
	            strcmp(s->type, "rrcs") == 0;
	struct xval v[MAXCNT];
	int         k;

	if (in != NULL && in->op[in->ohead] != s->cnt)
		fail_msg("a receive of %d chunks meets a send of %d", s->cnt,
		         in->op[in->ohead]);
	for (k = 0; k < s->cnt; k++) {
		if (in != NULL)
			v[k] = in->v[in->head++];
		else
			v[k] = *buffer(g, s->srcbuf, s->src + k, 1);
		if (red)
			v[k] =
			    reduce(v[k], *buffer(g, s->srcbuf, s->src + k, 1));
		if (store)
			*buffer(g, s->dstbuf, s->dst + k, 1) = v[k];
		if (out != NULL && v[k].id == -1)
			fail_msg("gpu %d sends an unwritten chunk", u);
	}
	if (in != NULL)
		in->ohead++;
	if (out != NULL)
		push(out, v, s->cnt);
	(void)t;
}

/* Can step pc of thread block t on gpu u run now?  Runs it if so.
 * Types: s send, r receive, rcs receive-copy-send, rrc receive and
 * reduce with src into dst, rrs/rrcs the same sending on, cpy local
 * copy, nop a dependency for the next step. */
static int
try_step(struct xalgo *a, int u, struct xtb *t)
{
	struct xgpu  *g = &a->g[u];
	struct xstep *s = &t->st[t->pc];
	int           recv = s->type[0] == 'r';
	int           send = strcmp(s->type, "s") == 0 ||
	           (recv && s->type[strlen(s->type) - 1] == 's');
	struct fifo *in = NULL, *out = NULL;

	/* The kernel's flag: the last step with hasdep that ran. */
	if (s->depid >= 0) {
		assert_true(s->depid < g->ntb);
		if (g->tb[s->depid].flag < s->deps)
			return (0);
	}
	if (strcmp(s->type, "nop") != 0) {
		if (recv) {
			assert_true(t->recv >= 0);
			in = fifo(a, t->recv, u, t->chan);
			if (ops(in) == 0)
				return (0);
		}
		if (send) {
			assert_true(t->send >= 0);
			out = fifo(a, u, t->send, t->chan);
			if (ops(out) >= (size_t)a->slots)
				return (0);
		}
		move(a, u, t, s, in, out);
	}
	if (s->hasdep)
		t->flag = s->s;
	t->pc++;
	return (1);
}

/* What input chunk i of gpu u holds at the start. */
static struct xval
initial(const struct xalgo *a, int u, int i)
{
	int per = a->nchunks / a->ngpus;

	if (strcmp(a->coll, "alltoall") == 0)
		return ((struct xval){(int64_t)u << 32 | i, 0});
	if (strcmp(a->coll, "allgather") == 0)
		i += u * per; /* its share of the gathered buffer */
	return ((struct xval){i, (uint64_t)1 << u});
}

/* What output chunk i of gpu u must hold at the end. */
static struct xval
expected(const struct xalgo *a, int u, int i)
{
	int      per = a->nchunks / a->ngpus;
	uint64_t all =
	    a->ngpus == 64 ? ~(uint64_t)0 : ((uint64_t)1 << a->ngpus) - 1;

	if (strcmp(a->coll, "alltoall") == 0)
		return ((struct xval){
		    (int64_t)(i / per) << 32 | (u * per + i % per), 0});
	if (strcmp(a->coll, "allgather") == 0)
		return ((struct xval){i, (uint64_t)1 << (i / per)});
	if (strcmp(a->coll, "reducescatter") == 0 ||
	    strcmp(a->coll, "reduce_scatter") == 0)
		return ((struct xval){u * per + i, all});
	if (strcmp(a->coll, "allreduce") == 0)
		return ((struct xval){i, all});
	fail_msg("unknown collective %s", a->coll);
	return ((struct xval){0, 0});
}

/* One thread block at either end of a connection. */
static void
one_per_end(const struct xgpu *g)
{
	int i, k;

	for (i = 0; i < g->ntb; i++)
		for (k = i + 1; k < g->ntb; k++)
			assert_false(g->tb[i].chan == g->tb[k].chan &&
			             ((g->tb[i].send >= 0 &&
			               g->tb[i].send == g->tb[k].send) ||
			              (g->tb[i].recv >= 0 &&
			               g->tb[i].recv == g->tb[k].recv)));
}

static void
setup(struct xalgo *a)
{
	int u, i;

	a->q = calloc((size_t)a->ngpus * a->ngpus * a->nchan, sizeof(*a->q));
	assert_non_null(a->q);
	for (u = 0; u < a->ngpus; u++) {
		struct xgpu *g = &a->g[u];

		g->buf[0] = calloc(g->ic + 1, sizeof(struct xval));
		g->buf[1] = calloc(g->oc + 1, sizeof(struct xval));
		g->buf[2] = calloc(g->sc + 1, sizeof(struct xval));
		for (i = 0; i < g->ic; i++)
			g->buf[0][i] = initial(a, u, i);
		for (i = 0; i < g->oc; i++)
			g->buf[1][i].id = -1;
		for (i = 0; i < g->sc; i++)
			g->buf[2][i].id = -1;
		one_per_end(g);
	}
}

/* Play every thread block to the end, or to a deadlock: 0 or -1 (with
 * the first block left waiting in *where). */
static int
run(struct xalgo *a, char *where, size_t len)
{
	int u, i, progress = 1;

	setup(a);
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
			if (a->g[u].tb[i].pc < a->g[u].tb[i].n) {
				snprintf(where, len,
				         "deadlock with %d slots: gpu %d tb "
				         "%d at step %d of %d",
				         a->slots, u, i, a->g[u].tb[i].pc,
				         a->g[u].tb[i].n);
				return (-1);
			}
	return (0);
}

/* Play, then the collective's postcondition. */
static void
play(struct xalgo *a)
{
	char where[128];
	int  u, i;

	if (run(a, where, sizeof(where)) != 0)
		fail_msg("%s", where);
	for (u = 0; u < a->ngpus; u++)
		for (i = 0; i < a->g[u].oc; i++) {
			struct xval want = expected(a, u, i),
			            got = a->g[u].buf[1][i];

			if (got.id != want.id || got.mask != want.mask)
				fail_msg("%s: gpu %d output chunk %d holds "
				         "%llx/%llx, want %llx/%llx",
				         a->coll, u, i, (long long)got.id,
				         (unsigned long long)got.mask,
				         (long long)want.id,
				         (unsigned long long)want.mask);
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
	for (i = 0; a->q && i < a->ngpus * a->ngpus * a->nchan; i++) {
		free(a->q[i].v);
		free(a->q[i].op);
	}
	free(a->q);
	memset(a, 0, sizeof(*a));
}

/* Parse and play xml with the runtime's slots, or (one) with one slot a
 * connection, what our exports claim (msccl.h): a FIFO that never waits
 * with one slot never waits with more. */
static void
play_both(const char *xml, int one)
{
	struct xalgo *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	parse(xml, x);
	if (one)
		x->slots = 1;
	play(x);
	xfree(x);
	free(x);
}

/* The longest thread block's steps in xml. */
static int
longest_tb(const char *xml)
{
	const char *p = xml;
	int         most = 0, s;

	while ((p = next_char(p + 1, '<')) != NULL)
		if (strncmp(p, "<step s=\"", 9) == 0 &&
		    (s = atoi(p + 9) + 1) > most)
			most = s;
	return (most);
}

/* Export an All-to-All for the runtime o names (NULL: current) and
 * play it; the XML back (the caller frees it). */
static char *
check(const char *algo, uint32_t radix, uint32_t n, const uint8_t *before,
      const struct msccl_opts *o)
{
	struct msccl_limits lim;
	struct a2a          a;
	struct sched        s;
	char               *xml, err[256];
	size_t              len;

	msccl_limits(o, &lim);
	assert_int_equal(a2a_init_radix(&a, algo, n, radix), 0);
	assert_int_equal(a2a_build(&a, 1 << 20, before, 1u << 24, &s), 0);
	assert_int_equal(sched_validate(&s, NULL), 0);
	if (msccl_export(&s, 1 << 20, o, &xml, &len, err, sizeof(err)) != 0)
		fail_msg("%s n=%u: %s", algo, n, err);
	assert_int_equal(strlen(xml), len);
	assert_true(longest_tb(xml) <= (int)lim.max_steps);
	play_both(xml, 1);
	sched_free(&s);
	a2a_fini(&a);
	return (xml);
}

/* Every ring algorithm on 2..32 ranks (and 64), with every phase on
 * fresh circuits, none and some reused: within the runtime's limits (64
 * steps a thread block), no deadlock with one slot a connection. */
static void
test_msccl_ring_algorithms(void **state)
{
	static const char *const algos[] = {"retri", "bridge", "static",
	                                    "bruck", "bruck2"};
	static const uint32_t    big[] = {64};
	uint8_t                  none[16] = {0}, all[16], some[16] = {0};
	const uint8_t           *how[] = {all, none, some};
	size_t                   i, k, h;
	uint32_t                 n;

	(void)state;
	memset(all, 1, sizeof(all));
	some[2] = 1;
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		for (n = 2; n <= 32; n++)
			for (h = 0; h < 3; h++)
				if (h == 0 || n <= 17 || n % 5 == 0)
					free(check(algos[i], 0, n, how[h],
					           NULL));
		for (k = 0; k < sizeof(big) / sizeof(big[0]); k++)
			free(check(algos[i], 0, big[k], all, NULL));
	}
	free(check("static", 0, 64, none, NULL));
	for (n = 2; n <= 30; n++)
		for (h = 0; h < 2; h++)
			free(check("retri", 5, n, how[h], NULL));
}

/* --max-steps: long connections cut over more channels, never a thread
 * block past the limit; the legacy runtime takes 256. */
static void
test_msccl_max_steps(void **state)
{
	struct msccl_opts o = {MSCCL_CURRENT, 3};
	uint8_t           none[8] = {0};
	char             *a, *b;

	(void)state;
	a = check("static", 0, 16, none, &o);
	b = check("static", 0, 16, none, NULL);
	assert_true(longest_tb(a) <= 3 && longest_tb(b) > 3);
	assert_non_null(strstr(a, "chan=\"2\""));
	free(a);
	free(b);
	o = (struct msccl_opts){MSCCL_LEGACY, 0};
	free(check("bridge", 0, 32, none, &o));
	o.max_steps = 4; /* room for a step's nops */
	free(check("retri", 0, 9, none, &o));
	{
		struct a2a   x;
		struct sched s;
		char        *xml, err[256];
		size_t       len;

		o.max_steps = 1;
		assert_int_equal(a2a_init(&x, "retri", 9), 0);
		assert_int_equal(a2a_build(&x, 1 << 20, none, 1u << 24, &s),
		                 0);
		assert_int_equal(msccl_export(&s, 1 << 20, &o, &xml, &len, err,
		                              sizeof(err)),
		                 -EINVAL);
		assert_non_null(strstr(err, "1 steps a thread block do not "
		                            "hold a step and its "
		                            "dependencies"));
		sched_free(&s);
		a2a_fini(&x);
	}
}

/* Current runtimes read reducescatter; the legacy one reduce_scatter. */
static void
test_msccl_dialects(void **state)
{
	struct msccl_opts  o = {MSCCL_LEGACY, 0};
	enum msccl_dialect d;
	struct tsyn_params q = {.algo = TSYN_RING,
	                        .coll = SCHED_REDUCESCATTER,
	                        .bytes = 1 << 20,
	                        .chunks = 1};
	struct topo        t;
	struct sched       s;
	char              *xml, err[256];
	size_t             len;

	(void)state;
	assert_int_equal(msccl_dialect_parse("current", &d), 0);
	assert_int_equal(d, MSCCL_CURRENT);
	assert_int_equal(msccl_dialect_parse("legacy", &d), 0);
	assert_int_equal(d, MSCCL_LEGACY);
	assert_int_equal(msccl_dialect_parse("rccl", &d), -EINVAL);
	assert_int_equal(tplan_load("ring:4:8GBps:1us", &t, err, sizeof(err)),
	                 0);
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)), 0);
	assert_int_equal(
	    msccl_export(&s, q.bytes, NULL, &xml, &len, err, sizeof(err)), 0);
	assert_non_null(strstr(xml, " coll=\"reducescatter\" "));
	play_both(xml, 1);
	free(xml);
	assert_int_equal(
	    msccl_export(&s, q.bytes, &o, &xml, &len, err, sizeof(err)), 0);
	assert_non_null(strstr(xml, " coll=\"reduce_scatter\" "));
	play_both(xml, 1);
	free(xml);
	o.max_steps = MSCCL_STEPS_MAX + 1;
	assert_int_equal(
	    msccl_export(&s, q.bytes, &o, &xml, &len, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "1025 steps a thread block"));
	sched_free(&s);
	topo_free(&t);
}

/* A topology schedule with nx one-chunk transfers 0 -> 1, none
 * mergeable (all of chunk 0 into output chunk 0). */
static int
export_pairs(uint32_t nx, const struct msccl_opts *o, char *err, size_t len)
{
	struct topo      tp;
	struct sched     s;
	struct sched_seg g = {.node = 0, .port = 0, .hops = 1};
	uint32_t         b = 0, i;
	char            *xml = NULL;
	size_t           xlen;
	int              rv;

	assert_int_equal(topo_generate("mesh:1x2:1GBps:1us", &tp, err, len),
	                 0);
	assert_int_equal(sched_init(&s, "t", SCHED_ALLGATHER, 2, 1, 1, 4096),
	                 0);
	s.topo = &tp;
	s.ngpu = 2;
	assert_true(sched_add_phase(&s, 0, 0) >= 0);
	for (i = 0; i < nx; i++)
		assert_int_equal(sched_add_xfer(&s, 0, 1, &b, 1, &g, 1), 0);
	rv = msccl_export(&s, 4096, o, &xml, &xlen, err, len);
	free(xml);
	sched_free(&s);
	topo_free(&tp);
	return (rv);
}

/* What MSCCL cannot take is refused, and said. */
static void
test_msccl_refusals(void **state)
{
	static const uint64_t t[4] = {0, 5, 7, 0};
	struct msccl_opts     o = {MSCCL_LEGACY, 256};
	struct sched          s;
	char                  err[256], *xml;
	size_t                len;

	(void)state;
	assert_int_equal(sched_init_v(&s, "fast", 2, 1, t), 0);
	assert_int_equal(
	    msccl_export(&s, 12, NULL, &xml, &len, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "skewed All-to-All"));
	sched_free(&s);
	/* One GPU pair: 33 slices of 64 steps need 33 channels. */
	assert_int_equal(export_pairs(32 * 64, NULL, err, sizeof(err)), 0);
	assert_int_equal(export_pairs(32 * 64 + 1, NULL, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "2 ranks' thread blocks need more than "
	                            "32 channels"));
	/* The parsers keep 4096 elements a rank: rank 0's <algo>, 2 <gpu>s,
	 * 16 sending <tb>s of 256 steps and a copying one, its copy and 4075
	 * sends. */
	assert_int_equal(export_pairs(4075, &o, err, sizeof(err)), 0);
	assert_int_equal(export_pairs(4076, &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "4097 XML elements, more than the 4096"));
}

/* The writer refuses a program that would wait forever: here two sends
 * each waiting for the receive of the other (keys out of order). */
static void
test_msccl_guard(void **state)
{
	struct msccl_limits lim;
	struct msteps       v = {0};
	uint32_t            scratch[2] = {1, 1};
	struct mhead        h = {"t", "alltoall", 2, 2, 2, 2, scratch, 1, 2};
	char                err[256], *xml;
	size_t              len;
	int                 u;

	(void)state;
	msccl_limits(NULL, &lim);
	for (u = 0; u < 2; u++) {
		struct mstep snd = {.node = (uint32_t)u,
		                    .type = ST_S,
		                    .peer = (uint32_t)!u,
		                    .src = {'i', 0},
		                    .dst = {'o', 0},
		                    .k1 = (uint64_t)u,
		                    .dep =
		                        3 - 2 * u}; /* the other's receive */
		struct mstep rcv = snd;

		rcv.node = (uint32_t)!u;
		rcv.type = ST_R;
		rcv.peer = (uint32_t)u;
		rcv.dep = -1;
		assert_int_equal(msteps_add(&v, &snd), 0);
		assert_int_equal(msteps_add(&v, &rcv), 0);
	}
	assert_int_equal(
	    msccl_write_xml(&v, &h, &lim, &xml, &len, err, sizeof(err)),
	    -EDEADLK);
	assert_non_null(strstr(err, "would wait forever"));
	msteps_free(&v);
}

#define TB(id, snd, rcv)                                                      \
	"<tb id=\"" #id "\" send=\"" #snd "\" recv=\"" #rcv "\" chan=\"0\">"
#define ST(s, t, sb, so, db, dof, di, ds, hd)                                 \
	"<step s=\"" #s "\" type=\"" t "\" srcbuf=\"" sb "\" srcoff=\"" #so   \
	"\" dstbuf=\"" db "\" dstoff=\"" #dof "\" cnt=\"1\" depid=\"" #di     \
	"\" deps=\"" #ds "\" hasdep=\"" #hd "\"/>"
#define ALGO(proto)                                                           \
	"<algo name=\"x\" proto=\"" proto "\" nchannels=\"1\" "               \
	"nchunksperloop=\"6\" ngpus=\"2\" coll=\"alltoall\" inplace=\"0\" "   \
	"outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">"
#define GPU(id)                                                               \
	"<gpu id=\"" #id "\" i_chunks=\"6\" o_chunks=\"6\" s_chunks=\"0\">"

/* Each rank sends its three chunks for the other before it receives
 * any (in one thread block), as our exports once did. */
static const char *const sends_first = GPU(0) TB(0, 1, 1) ST(
    0, "s", "i", 3, "o", 0, -1, -1, 0) ST(1, "s", "i", 4, "o", 1, -1, -1, 0)
    ST(2, "s", "i", 5, "o", 2, -1, -1, 0) ST(3, "r", "i", 0, "o", 3, -1, -1, 0)
        ST(4, "r", "i", 0, "o", 4, -1, -1, 0) ST(
            5, "r", "i", 0, "o", 5, -1, -1,
            0) "</tb>"
               "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">" ST(
                   0, "cpy", "i", 0, "o", 0, -1, -1, 0) ST(1, "cpy", "i", 1,
                                                           "o", 1, -1, -1, 0)
                   ST(2, "cpy", "i", 2, "o", 2, -1, -1, 0) "</tb></gpu>" GPU(
                       1) TB(0, 0, 0) ST(0, "s", "i", 0, "o", 3, -1, -1, 0)
                       ST(1, "s", "i", 1, "o", 4, -1, -1,
                          0) ST(2, "s", "i", 2, "o", 5, -1, -1,
                                0) ST(3, "r", "i", 0, "o", 0, -1, -1, 0)
                           ST(4, "r", "i", 0, "o", 1, -1, -1, 0)
                               ST(5, "r", "i", 0, "o", 2, -1, -1,
                                  0) "</tb>"
                                     "<tb id=\"1\" send=\"-1\" recv=\"-1\" "
                                     "chan=\"0\">" ST(0, "cpy", "i", 3, "o", 3,
                                                      -1, -1, 0)
                                         ST(1, "cpy", "i", 4, "o", 4, -1, -1,
                                            0) ST(2, "cpy", "i", 5, "o", 5, -1,
                                                  -1, 0) "</tb></gpu></algo>";

/* Rank 0 sends its chunk 1, copies its chunk 0 after that send. */
static const char *const no_flag = GPU(0) TB(0, 1, -1)
    ST(0, "s", "i", 1, "o", 0, -1, -1,
       0) "</tb>"
          "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">" ST(
              0, "cpy", "i", 0, "o", 0, 0, 0, 0) "</tb></gpu>" GPU(1)
              TB(0, -1, 0)
                  ST(0, "r", "i", 0, "o", 0, -1, -1, 0) "</tb></gpu></algo>";

/* The interpreter holds the runtime's slots: three sends in a row
 * deadlock Simple's two and pass LL's eight; a dependency on a step
 * without hasdep is never met. */
static void
test_msccl_interpreter_slots(void **state)
{
	struct xalgo *x = calloc(1, sizeof(*x));
	char          xml[4096], where[128];

	(void)state;
	assert_non_null(x);
	snprintf(xml, sizeof(xml), "%s%s", ALGO("Simple"), sends_first);
	parse(xml, x);
	assert_int_equal(x->slots, 2);
	assert_int_equal(run(x, where, sizeof(where)), -1);
	assert_non_null(strstr(where, "deadlock with 2 slots"));
	xfree(x);
	snprintf(xml, sizeof(xml), "%s%s", ALGO("LL"), sends_first);
	parse(xml, x);
	assert_int_equal(x->slots, 8);
	play(x);
	xfree(x);
	/* Rank 0's copies wait for the send of block 0, which sets no
	 * flag; with hasdep it does. */
	snprintf(xml, sizeof(xml), "%s%s", ALGO("LL"), no_flag);
	parse(xml, x);
	assert_int_equal(run(x, where, sizeof(where)), -1);
	assert_non_null(strstr(where, "gpu 0 tb 1 at step 0"));
	xfree(x);
	snprintf(xml, sizeof(xml), "%s%s", ALGO("LL"), no_flag);
	*(strstr(xml, "hasdep=\"0\"") + 8) = '1';
	parse(xml, x);
	assert_int_equal(run(x, where, sizeof(where)), 0);
	xfree(x);
	free(x);
}

/* RCCL's shipped All-to-All (LL, a send-only and a receive-only thread
 * block a peer), played as a control: skipped where ../shared/data is
 * not (CI). */
static void
test_msccl_rccl_control(void **state)
{
	static const char *const dirs[] = {"../shared/data",
	                                   "../../shared/data"};
	const char              *env = getenv("OCS_SHARED_DATA");
	char                     path[512], *xml;
	struct xalgo            *x;
	FILE                    *f = NULL;
	long                     n;
	size_t                   i;

	(void)state;
	for (i = 0; f == NULL && i < 3; i++) {
		snprintf(path, sizeof(path), "%s/msccl_alltoall-8n-0-9kb.xml",
		         i == 0 ? (env ? env : "/nonexistent") : dirs[i - 1]);
		f = fopen(path, "r");
	}
	if (f == NULL) {
		skip();
		return;
	}
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_true((n = ftell(f)) > 0);
	rewind(f);
	assert_non_null(xml = calloc(1, (size_t)n + 1));
	assert_int_equal(fread(xml, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_non_null(x = calloc(1, sizeof(*x)));
	parse(xml, x);
	assert_int_equal(x->ngpus, 8);
	assert_int_equal(x->slots, 8);
	play(x);
	xfree(x);
	free(x);
	free(xml);
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
	if (msccl_export(&s, q.bytes, NULL, &xml, &len, err, sizeof(err)) != 0)
		fail_msg("%s %s coll %d C=%u: %s", spec, tsyn_algo_name(algo),
		         (int)coll, chunks, err);
	assert_int_equal(strlen(xml), len);
	assert_true(longest_tb(xml) <= MSCCL_STEPS_CURRENT);
	parse(xml, x);
	assert_int_equal(x->ngpus, t.ngpu);
	assert_int_equal(x->nchunks, t.ngpu * chunks);
	xfree(x);
	free(x);
	play_both(xml, 1);
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
		check_topo(topos[i], TSYN_SPH, SCHED_ALLGATHER, 1);
		check_topo(topos[i], TSYN_SCALECC, SCHED_ALLGATHER, 1);
	}
	/* 64 GPUs. */
	check_topo("ndv2:8", TSYN_TEN, SCHED_ALLREDUCE, 1);
	check_topo("ndv2:8", TSYN_RING, SCHED_ALLGATHER, 2);
}

/* SPH sends a chunk over a link once for every destination behind it:
 * on DGX-2 with two chunks a GPU that is 6205 steps, more than a
 * runtime's parser keeps for a rank, however they are laid out. */
static void
test_msccl_too_many_steps(void **state)
{
	struct tsyn_params q = {.algo = TSYN_SPH,
	                        .coll = SCHED_ALLGATHER,
	                        .bytes = 1 << 24,
	                        .chunks = 2};
	struct topo        t;
	struct sched       s;
	char              *xml, err[256];
	size_t             len;

	(void)state;
	assert_int_equal(tplan_load("dgx2", &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &s, err, sizeof(err)), 0);
	assert_int_equal(
	    msccl_export(&s, q.bytes, NULL, &xml, &len, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "XML elements (6205 steps), more than "
	                            "the 4096 a runtime keeps"));
	sched_free(&s);
	topo_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_msccl_interpreter_slots),
	    cmocka_unit_test(test_msccl_rccl_control),
	    cmocka_unit_test(test_msccl_ring_algorithms),
	    cmocka_unit_test(test_msccl_max_steps),
	    cmocka_unit_test(test_msccl_dialects),
	    cmocka_unit_test(test_msccl_refusals),
	    cmocka_unit_test(test_msccl_guard),
	    cmocka_unit_test(test_msccl_topology_collectives),
	    cmocka_unit_test(test_msccl_too_many_steps),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
