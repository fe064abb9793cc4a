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

/* Can step s of thread block t on gpu u run now?  Runs it if so. */
static int
try_step(struct xalgo *a, int u, struct xtb *t)
{
	struct xgpu  *g = &a->g[u];
	struct xstep *s = &t->st[t->pc];
	int64_t      *src, *dst;
	struct fifo  *in = NULL;
	int           k;

	if (s->depid >= 0 && g->tb[s->depid].pc <= s->deps)
		return (0);
	if (strcmp(s->type, "r") == 0 || strcmp(s->type, "rcs") == 0) {
		assert_true(t->recv >= 0);
		in = fifo(a, t->recv, u, t->chan);
		if (in->tail - in->head < (size_t)s->cnt)
			return (0);
	}
	if (strcmp(s->type, "s") == 0 || strcmp(s->type, "rcs") == 0)
		assert_true(t->send >= 0);
	for (k = 0; k < s->cnt; k++) {
		int64_t v;

		if (in != NULL)
			v = in->v[in->head++];
		else
			v = *buffer(g, s->srcbuf, s->src + k, 1);
		if (strcmp(s->type, "s") != 0) {
			dst = buffer(g, s->dstbuf, s->dst + k, 1);
			*dst = v;
		}
		if (strcmp(s->type, "s") == 0 || strcmp(s->type, "rcs") == 0)
			push(fifo(a, u, t->send, t->chan), v);
	}
	(void)src;
	t->pc++;
	return (1);
}

/* Play every thread block to the end; the postcondition of All-to-All. */
static void
play(struct xalgo *a)
{
	int u, i, k, progress = 1, parts = a->nchunks / a->ngpus;

	a->q = calloc((size_t)a->ngpus * a->ngpus * a->nchan, sizeof(*a->q));
	assert_non_null(a->q);
	for (u = 0; u < a->ngpus; u++) {
		struct xgpu *g = &a->g[u];

		g->buf[0] = calloc(g->ic + 1, sizeof(int64_t));
		g->buf[1] = calloc(g->oc + 1, sizeof(int64_t));
		g->buf[2] = calloc(g->sc + 1, sizeof(int64_t));
		for (i = 0; i < g->ic; i++)
			g->buf[0][i] = (int64_t)u << 32 | i;
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
		for (i = 0; i < a->nchunks; i++) {
			int     r = i / parts, p = i % parts;
			int64_t want = (int64_t)r << 32 | (u * parts + p);

			if (a->g[u].buf[1][i] != want)
				fail_msg("gpu %d output chunk %d holds %lld, "
				         "want rank %d chunk %d",
				         u, i, (long long)a->g[u].buf[1][i], r,
				         u * parts + p);
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
	assert_non_null(strstr(err, "only uniform All-to-All"));
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
	(void)a;
	(void)all;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_msccl_ring_algorithms),
	    cmocka_unit_test(test_msccl_refusals),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
