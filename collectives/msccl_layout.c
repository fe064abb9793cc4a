/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MSCCL layout (msccl_int.h): steps into thread blocks, thread
 * blocks onto channels, dependencies resolved into (thread block, step)
 * with nop steps for the extra ones, against the runtime's limits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl_int.h"
#include "proto/base/errf.h"

#define STREAM_COPY UINT64_MAX
#define MAX_CNT     71 /* cnt < MSCCL_MAX_COUNT (72) */

static int
cmp_step(const void *a, const void *b)
{
	const struct mstep *x = a, *y = b;

	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	if (x->stream != y->stream)
		return (x->stream < y->stream ? -1 : 1);
	if (x->k1 != y->k1)
		return (x->k1 < y->k1 ? -1 : 1);
	if (x->k2 != y->k2)
		return (x->k2 < y->k2 ? -1 : 1);
	return (x->orig < y->orig ? -1 : x->orig > y->orig);
}

/* A thread block's connection ends: with `pair` 0 one end (sends to a
 * peer, or receives from it), with 1 both ends shared with one peer.
 * Copies go last, in thread blocks of their own. */
static void
streams(struct msteps *v, int pair)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		struct mstep *m = &v->st[i];

		m->cnt = 1;
		if (m->type == ST_CPY)
			m->stream = STREAM_COPY;
		else if (pair)
			m->stream = m->peer;
		else
			m->stream = (uint64_t)m->peer << 1 | (m->type != ST_S);
	}
}

/* Cut each run of one rank and stream into the fewest slices of at most
 * max steps, of equal length: the two ends of a connection hold the same
 * steps in the same order, so they cut it alike.  The most slices. */
static uint32_t
slice(struct msteps *v, uint32_t max)
{
	size_t   i = 0, j, len, per;
	uint32_t most = 1, ns;

	while (i < v->n) {
		for (j = i; j < v->n && v->st[j].node == v->st[i].node &&
		            v->st[j].stream == v->st[i].stream;
		     j++)
			;
		len = j - i;
		ns = (uint32_t)((len + max - 1) / max);
		per =
		    v->st[i].stream == STREAM_COPY ? max : (len + ns - 1) / ns;
		for (; i < j; i++)
			v->st[i].slice = (uint32_t)((len - (j - i)) / per);
		most = ns > most ? ns : most;
	}
	return (most);
}

/* The channel of a step's slice with K peer classes: the same at both
 * ends of its connection (a class is the ring distance mod K); copies on
 * channel 0. */
static uint32_t
chan_of(const struct mstep *m, uint32_t ngpus, uint32_t K)
{
	uint32_t d, cls;

	if (m->stream == STREAM_COPY)
		return (0);
	d = (m->peer + ngpus - m->node) % ngpus;
	cls = (d < ngpus - d ? d : ngpus - d) % K;
	return (m->slice * K + cls);
}

static int
same_tb(const struct mstep *a, const struct mstep *b)
{
	return (a->node == b->node && a->stream == b->stream &&
	        a->slice == b->slice);
}

/* With K classes, does every rank keep within the thread blocks a
 * channel allows (send peers and receive peers each)? */
static int
fits(const struct msteps *v, uint32_t ngpus, uint32_t K, int pair,
     const struct msccl_limits *lim, uint32_t *cnt)
{
	size_t i;

	memset(cnt, 0, (size_t)ngpus * lim->max_chan * 2 * sizeof(*cnt));
	for (i = 0; i < v->n; i++) {
		const struct mstep *m = &v->st[i];
		uint32_t           *c;

		if (m->stream == STREAM_COPY ||
		    (i > 0 && same_tb(m, &v->st[i - 1])))
			continue; /* counted with its thread block's first */
		c = &cnt[((size_t)m->node * lim->max_chan +
		          chan_of(m, ngpus, K)) *
		         2];
		/* A shared block counts as both: it may hold either. */
		if (m->type == ST_S || pair)
			c[0]++;
		if (m->type != ST_S || pair)
			c[1]++;
		if (c[0] > lim->max_tb_chan || c[1] > lim->max_tb_chan)
			return (0);
	}
	return (1);
}

/* The fewest peer classes that fit, then every step's channel. */
static int
channels(struct mlay *l, uint32_t ngpus, uint32_t most, int pair,
         const struct msccl_limits *lim, char *err, size_t errlen)
{
	uint32_t *cnt, K;
	size_t    i;
	int       ok = 0;

	cnt = malloc((size_t)ngpus * lim->max_chan * 2 * sizeof(*cnt));
	if (cnt == NULL)
		return (-ENOMEM);
	for (K = 1; !ok && (uint64_t)K * most <= lim->max_chan; K++)
		ok = fits(&l->v, ngpus, K, pair, lim, cnt);
	free(cnt);
	if (!ok) /* -E2BIG: shared thread blocks may fit */
		return (errf(-E2BIG, err, errlen,
		             "msccl: %u ranks' thread blocks need more than "
		             "%u channels of %u thread blocks (%u steps a "
		             "thread block)",
		             ngpus, lim->max_chan, lim->max_tb_chan,
		             lim->max_steps));
	K--;
	l->nchan = 1;
	for (i = 0; i < l->v.n; i++) {
		l->v.st[i].chan = chan_of(&l->v.st[i], ngpus, K);
		if (l->v.st[i].chan + 1 > l->nchan)
			l->nchan = l->v.st[i].chan + 1;
	}
	return (0);
}

/* Thread blocks (ids, ranges, peers); -E2BIG when a rank needs more than
 * the runtime has. */
static int
number(struct mlay *l, const struct msccl_limits *lim, char *err,
       size_t errlen)
{
	struct msteps *v = &l->v;
	size_t         i;
	uint32_t       tb = 0;

	l->ntb = 0;
	for (i = 0; i < v->n; i++) {
		struct mstep *m = &v->st[i];
		struct mtb   *t;

		if (i == 0 || !same_tb(m, &v->st[i - 1])) {
			tb =
			    i > 0 && m->node == v->st[i - 1].node ? tb + 1 : 0;
			if (tb >= lim->max_tbs)
				return (errf(-E2BIG, err, errlen,
				             "msccl: rank %u needs more than "
				             "%u thread blocks",
				             m->node, lim->max_tbs));
			l->tbs[l->ntb++] =
			    (struct mtb){i, 0, m->node, m->chan, -1, -1};
		}
		t = &l->tbs[l->ntb - 1];
		m->tb = tb;
		m->idx = t->n++;
		if (m->type == ST_S)
			t->send = m->peer;
		else if (m->type != ST_CPY)
			t->recv = m->peer;
		if ((uint64_t)m->src.off + m->cnt - 1 > lim->max_off ||
		    (uint64_t)m->dst.off + m->cnt - 1 > lim->max_off)
			return (errf(-EINVAL, err, errlen,
			             "msccl: rank %u uses chunks past %u (the "
			             "runtime's offsets are int16_t)",
			             m->node, lim->max_off));
	}
	return (0);
}

/* The global thread block of step i (tbs are sorted by first). */
static size_t
tb_of(const struct mlay *l, size_t i)
{
	size_t lo = 0, hi = l->ntb;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->tbs[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return (lo);
}

/* Add target t (an index in v) to step i's list, keeping one a thread
 * block, the latest (a flag covers every earlier step of its block). */
static void
add_dep(struct mlay *l, size_t i, size_t t)
{
	size_t k, tt = tb_of(l, t);

	for (k = l->dfirst[i]; k < l->dfirst[i + 1]; k++)
		if (tb_of(l, l->dl[k]) == tt) {
			if (t > l->dl[k])
				l->dl[k] = t;
			return;
		}
	l->dl[l->dfirst[i + 1]++] = t;
}

/* The first of the merged steps' dependencies of step orig. */
static size_t
first_xd(const struct mlay *l, uint32_t orig)
{
	size_t lo = 0, hi = l->nxd;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->xd[mid].step < orig)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* Every step's dependencies as steps of v, the nops they need, and the
 * step indices counting them; the longest thread block in *longest. */
static void
deps(struct mlay *l, uint32_t *longest)
{
	struct msteps *v = &l->v;
	size_t         i, k, x;

	for (i = 0; i < l->norig; i++)
		l->pos[i] = UINT32_MAX;
	for (i = 0; i < v->n; i++)
		l->pos[v->st[i].orig] = (uint32_t)i;
	for (i = 0; i < l->norig; i++)
		l->pos[i] = l->pos[l->lead[i]];
	for (i = 0; i < v->n; i++) {
		const struct mstep *m = &v->st[i];

		l->dfirst[i + 1] = l->dfirst[i];
		if (m->dep >= 0)
			add_dep(l, i, l->pos[m->dep]);
		for (x = first_xd(l, m->orig);
		     x < l->nxd && l->xd[x].step == m->orig; x++)
			add_dep(l, i, l->pos[l->xd[x].dep]);
	}
	*longest = 0;
	for (k = 0; k < l->ntb; k++) {
		uint32_t s = 0;

		for (i = l->tbs[k].first; i < l->tbs[k].first + l->tbs[k].n;
		     i++) {
			size_t nd = l->dfirst[i + 1] - l->dfirst[i];

			l->nop[i] = nd > 1 ? (uint32_t)nd - 1 : 0;
			s += l->nop[i];
			v->st[i].idx = s++;
		}
		*longest = s > *longest ? s : *longest;
	}
}

/* Lay out within budget steps a slice; the longest thread block (steps
 * and nops) in *longest. */
static int
try_layout(struct mlay *l, uint32_t ngpus, const struct msccl_limits *lim,
           int pair, uint32_t budget, uint32_t *longest, char *err,
           size_t errlen)
{
	uint32_t most = slice(&l->v, budget);
	int      rv;

	if ((rv = channels(l, ngpus, most, pair, lim, err, errlen)) != 0 ||
	    (rv = number(l, lim, err, errlen)) != 0)
		return (rv);
	deps(l, longest);
	return (0);
}

/* 1 + ngpus elements (<algo>, every <gpu>) and a rank's own thread
 * blocks and steps, nops included: what the parser keeps. */
static int
elements(const struct mlay *l, uint32_t ngpus, const struct msccl_limits *lim,
         char *err, size_t errlen)
{
	size_t k = 0, i;

	while (k < l->ntb) {
		uint32_t u = l->tbs[k].node;
		uint64_t e = 1 + (uint64_t)ngpus;

		for (; k < l->ntb && l->tbs[k].node == u; k++) {
			const struct mtb *t = &l->tbs[k];

			e += 1 + t->n;
			for (i = t->first; i < t->first + t->n; i++)
				e += l->nop[i];
		}
		if (e > lim->max_nodes)
			return (errf(-EINVAL, err, errlen,
			             "msccl: rank %u needs %llu XML elements, "
			             "more than the %u a runtime keeps for a "
			             "rank",
			             u, (unsigned long long)e,
			             lim->max_nodes));
	}
	return (0);
}

/* However laid out, a rank needs its steps and a thread block for each
 * max of them: said before any layout is tried. */
static int
enough(const struct mlay *l, uint32_t ngpus, const struct msccl_limits *lim,
       char *err, size_t errlen)
{
	size_t i = 0, j;

	while (i < l->v.n) {
		uint64_t e;

		for (j = i; j < l->v.n && l->v.st[j].node == l->v.st[i].node;
		     j++)
			;
		e = 1 + (uint64_t)ngpus + (j - i) +
		    (j - i + lim->max_steps - 1) / lim->max_steps;
		if (e > lim->max_nodes)
			return (
			    errf(-EINVAL, err, errlen,
			         "msccl: rank %u needs at least %llu XML "
			         "elements (%zu steps), more than the %u a "
			         "runtime keeps for a rank",
			         l->v.st[i].node, (unsigned long long)e, j - i,
			         lim->max_nodes));
		i = j;
	}
	return (0);
}

static int
alloc(struct mlay *l, const struct msteps *src)
{
	size_t n = src->n + 1;

	memset(l, 0, sizeof(*l));
	l->norig = src->n;
	l->v.st = malloc(n * sizeof(*l->v.st));
	l->pos = malloc(n * sizeof(*l->pos));
	l->dfirst = calloc(n + 1, sizeof(*l->dfirst));
	l->dl = malloc(n * sizeof(*l->dl));
	l->nop = calloc(n, sizeof(*l->nop));
	l->tbs = calloc(n, sizeof(*l->tbs));
	if (!l->v.st || !l->pos || !l->dfirst || !l->dl || !l->nop || !l->tbs)
		return (-ENOMEM);
	if (src->n > 0)
		memcpy(l->v.st, src->st, src->n * sizeof(*src->st));
	l->v.n = l->v.cap = src->n;
	return (0);
}

int
msccl_layout(const struct msteps *src, uint32_t ngpus,
             const struct msccl_limits *lim, int pair, struct mlay *l,
             char *err, size_t errlen)
{
	uint32_t budget = lim->max_steps, longest;
	size_t   i;
	int      rv;

	if ((rv = alloc(l, src)) != 0)
		return (errf(rv, err, errlen, "msccl: out of memory"));
	streams(&l->v, pair);
	qsort(l->v.st, l->v.n, sizeof(*l->v.st), cmp_step);
	if ((rv = msccl_merge(l, pair, MAX_CNT)) != 0)
		return (errf(rv, err, errlen, "msccl: out of memory"));
	if ((rv = enough(l, ngpus, lim, err, errlen)) != 0)
		return (rv);
	/* Nops lengthen a sender's block and not its receiver's: cut both
	 * ends shorter alike until the longest fits. */
	for (;;) {
		rv = try_layout(l, ngpus, lim, pair, budget, &longest, err,
		                errlen);
		if (rv != 0 || longest <= lim->max_steps)
			break;
		if (budget <= longest - lim->max_steps + 1)
			return (errf(-EINVAL, err, errlen,
			             "msccl: %u steps a thread block do not "
			             "hold a step and its dependencies",
			             lim->max_steps));
		budget -= longest - lim->max_steps;
	}
	if (rv == 0)
		rv = elements(l, ngpus, lim, err, errlen);
	for (i = 0; rv == 0 && i < l->v.n; i++) {
		size_t k;

		for (k = l->dfirst[i]; k < l->dfirst[i + 1]; k++)
			l->v.st[l->dl[k]].hasdep = 1;
	}
	return (rv);
}

void
mlay_free(struct mlay *l)
{
	free(l->v.st);
	free(l->lead);
	free(l->xd);
	free(l->pos);
	free(l->dfirst);
	free(l->dl);
	free(l->nop);
	free(l->tbs);
	memset(l, 0, sizeof(*l));
}
