/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Steps of several chunks (msccl_int.h).  A runtime keeps 4096 XML
 * elements a rank, which a ring that relays every block (static at 64
 * ranks: 4000 steps a rank) overflows; a run of a connection's
 * consecutive transfers whose chunks are consecutive at both ends is one
 * step of cnt chunks at either end instead.
 *
 * Scratch chunks are renumbered first, in the order the sorted steps use
 * them, so the chunks a relay receives in a row lie in a row (the same
 * chunks, renamed: nothing else changes).  A merged step keeps the
 * dependencies of the steps it took in (the writer adds a nop step for
 * each thread block more than one it waits for); its key is its first
 * transfer's, and the transfers it took in have the same k1 (phase and
 * hop, or slot and pair), so every step it waits for still has a smaller
 * key (msccl.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/msccl_int.h"

#define STREAM_COPY UINT64_MAX

/* The locations a step reads or writes on its own rank. */
static void
local(struct mstep *m, struct mloc **a, struct mloc **b)
{
	*b = NULL;
	if (m->type == ST_S)
		*a = &m->src;
	else if (m->type == ST_R)
		*a = &m->dst;
	else {
		*a = &m->src;
		*b = &m->dst;
	}
}

/* Scratch chunk c of rank u, renumbered: map[base[u] + c]. */
struct renum {
	size_t   *base;
	uint32_t *map, *next;
};

static uint32_t *
slot(struct renum *r, uint32_t u, const struct mloc *l)
{
	return (&r->map[r->base[u] + l->off]);
}

static void
assign(struct renum *r, uint32_t u, const struct mloc *l)
{
	if (l != NULL && l->buf == 's' && *slot(r, u, l) == UINT32_MAX)
		*slot(r, u, l) = r->next[u]++;
}

static void
rename_at(struct renum *r, uint32_t u, struct mloc *l)
{
	if (l->buf == 's' && *slot(r, u, l) != UINT32_MAX)
		l->off = *slot(r, u, l);
}

static int
renumber(struct msteps *v)
{
	struct renum r = {NULL, NULL, NULL};
	uint32_t     nodes = 0;
	size_t       i, total = 0;
	int          rv = -ENOMEM;

	for (i = 0; i < v->n; i++) {
		nodes = v->st[i].node + 1 > nodes ? v->st[i].node + 1 : nodes;
		if (v->st[i].peer != MSTEP_NONE && v->st[i].peer + 1 > nodes)
			nodes = v->st[i].peer + 1;
	}
	r.base = calloc((size_t)nodes + 1, sizeof(*r.base));
	r.next = calloc((size_t)nodes + 1, sizeof(*r.next));
	if (r.base == NULL || r.next == NULL)
		goto out;
	/* Room for every chunk index a rank names, at base[u]. */
	for (i = 0; i < v->n; i++) {
		const struct mstep *m = &v->st[i];
		uint32_t            own = m->node, far = m->peer;

		if (m->src.buf == 's') {
			uint32_t u = m->type == ST_R ? far : own;

			if (m->src.off + 1 > r.base[u + 1])
				r.base[u + 1] = m->src.off + 1;
		}
		if (m->dst.buf == 's') {
			uint32_t u = m->type == ST_S ? far : own;

			if (m->dst.off + 1 > r.base[u + 1])
				r.base[u + 1] = m->dst.off + 1;
		}
	}
	for (i = 1; i <= nodes; i++)
		r.base[i] += r.base[i - 1];
	total = r.base[nodes];
	if ((r.map = malloc((total + 1) * sizeof(*r.map))) == NULL)
		goto out;
	memset(r.map, 0xff, (total + 1) * sizeof(*r.map));
	for (i = 0; i < v->n; i++) {
		struct mloc *a, *b;

		local(&v->st[i], &a, &b);
		assign(&r, v->st[i].node, a);
		assign(&r, v->st[i].node, b);
	}
	for (i = 0; i < v->n; i++) {
		struct mstep *m = &v->st[i];

		rename_at(&r, m->type == ST_R ? m->peer : m->node, &m->src);
		rename_at(&r, m->type == ST_S ? m->peer : m->node, &m->dst);
	}
	rv = 0;
out:
	free(r.base);
	free(r.map);
	free(r.next);
	return (rv);
}

/* The first step of the run (node, stream) in the sorted steps. */
static size_t
find_run(const struct msteps *v, uint32_t node, uint64_t stream)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t              mid = lo + (hi - lo) / 2;
		const struct mstep *m = &v->st[mid];

		if (m->node < node || (m->node == node && m->stream < stream))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

static int
next_to(const struct mloc *a, const struct mloc *b)
{
	return (a == NULL ||
	        (a->buf == b->buf && (uint64_t)a->off + 1 == b->off));
}

/* May step n (after p, in the run led by g) join g's step? */
static int
joins(struct mstep *g, struct mstep *p, struct mstep *n)
{
	struct mloc *pa, *pb, *na, *nb;

	local(p, &pa, &pb);
	local(n, &na, &nb);
	return (n->type == g->type && n->k1 == g->k1 &&
	        (n->type == ST_S || n->dep < 0) && next_to(pa, na) &&
	        (pb == NULL || next_to(pb, nb)));
}

struct mg {
	struct mlay *lay;
	uint32_t     max_cnt;
	size_t       cap;
};

static int
absorb(struct mg *g, struct mstep *lead, const struct mstep *m)
{
	struct mlay *l = g->lay;

	l->lead[m->orig] = lead->orig;
	lead->cnt++;
	if (m->dep < 0)
		return (0);
	if (l->nxd == g->cap) {
		size_t        nc = g->cap ? 2 * g->cap : 256;
		struct mxdep *p = realloc(l->xd, nc * sizeof(*p));

		if (p == NULL)
			return (-ENOMEM);
		l->xd = p;
		g->cap = nc;
	}
	l->xd[l->nxd++] = (struct mxdep){lead->orig, (uint32_t)m->dep};
	return (0);
}

/* One connection: x[0..len) at one end, y[0..len) the same transfers at
 * the other. */
static int
merge_conn(struct mg *g, struct mstep *x, struct mstep *y, size_t len)
{
	size_t i, lead = 0;
	int    rv = 0;

	for (i = 1; i < len && rv == 0; i++) {
		if (x[lead].cnt < g->max_cnt &&
		    joins(&x[lead], &x[i - 1], &x[i]) &&
		    joins(&y[lead], &y[i - 1], &y[i])) {
			if ((rv = absorb(g, &x[lead], &x[i])) == 0)
				rv = absorb(g, &y[lead], &y[i]);
		} else
			lead = i;
	}
	return (rv);
}

/* A rank's copies: consecutive chunks to consecutive chunks. */
static int
merge_copies(struct mg *g, struct mstep *x, size_t len)
{
	size_t i, lead = 0;
	int    rv = 0;

	for (i = 1; i < len && rv == 0; i++)
		if (x[lead].cnt < g->max_cnt && x[i].dep < 0 &&
		    x[i - 1].dep < 0 && next_to(&x[i - 1].src, &x[i].src) &&
		    next_to(&x[i - 1].dst, &x[i].dst))
			rv = absorb(g, &x[lead], &x[i]);
		else
			lead = i;
	return (rv);
}

static size_t
run_len(const struct msteps *v, size_t i)
{
	size_t j = i;

	while (j < v->n && v->st[j].node == v->st[i].node &&
	       v->st[j].stream == v->st[i].stream)
		j++;
	return (j - i);
}

static int
cmp_xd(const void *a, const void *b)
{
	const struct mxdep *x = a, *y = b;

	return (x->step < y->step ? -1 : x->step > y->step);
}

int
msccl_merge(struct mlay *l, int pair, uint32_t max_cnt)
{
	struct msteps *v = &l->v;
	struct mg      g = {l, max_cnt, 0};
	size_t         i, j, len;
	int            rv;

	if ((l->lead = malloc((l->norig + 1) * sizeof(*l->lead))) == NULL ||
	    (rv = renumber(v)) != 0)
		return (-ENOMEM);
	for (i = 0; i < l->norig; i++)
		l->lead[i] = (uint32_t)i;
	for (i = 0, rv = 0; i < v->n && rv == 0; i += len) {
		struct mstep *m = &v->st[i];
		uint64_t      other;

		len = run_len(v, i);
		if (m->stream == STREAM_COPY) {
			rv = merge_copies(&g, m, len);
			continue;
		}
		if ((pair && m->node > m->peer) || (!pair && m->type != ST_S))
			continue; /* each connection once */
		other = pair ? m->node : (uint64_t)m->node << 1 | 1;
		j = find_run(v, m->peer, other);
		if (j + len <= v->n && run_len(v, j) == len)
			rv = merge_conn(&g, m, &v->st[j], len);
	}
	if (rv != 0)
		return (rv);
	for (i = j = 0; i < v->n; i++)
		if (l->lead[v->st[i].orig] == v->st[i].orig)
			v->st[j++] = v->st[i];
	v->n = j;
	if (l->nxd > 1)
		qsort(l->xd, l->nxd, sizeof(*l->xd), cmp_xd);
	return (0);
}
