/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mteg: AllGather as one Broadcast per chunk on the multicast
 * time-expanded graph, each a Takahashi-Matsuyama Steiner tree (MTEGCCA).
 *
 * The graph for a horizon H has a copy u_t of every node per slot, storage
 * edges u_t -> u_t+1 of cost 1, transmission edges u_t -> v_t+L of cost L
 * while link (u,v) is free in slots t .. t+occ-1, and a virtual terminal
 * per destination GPU reached from every v_t at cost 0.  Every path
 * between two copies costs their difference in time, so the terminal
 * nearest to the growing tree (TM's step) is the destination GPU reached
 * in the fewest slots after leaving a copy the tree holds.  We run that
 * Dijkstra on the physical nodes, each label keeping its cost and its
 * slot (waiting at a node is storage edges; a link is taken at its first
 * free window), which avoids building the n x H graph.  The path joins
 * the tree, its transmission edges are removed (the link-slots are
 * reserved) for later broadcasts, and the next nearest terminal follows
 * until every GPU is reached.
 *
 * H is a deadline, not only a size: the first H that fits everything
 * (doubled from a guess) is then bisected down, with four edge costs
 * (TM's slots since the tree; arrival slot plus 1 or 2 slots a link-slot
 * taken; slots since the tree plus link-slots), and at each deadline a
 * broadcast that does not fit moves to the front of the order and the
 * broadcasts are laid again (while that gets further).  A loose horizon
 * let the first broadcasts take the early link-slots the last ones
 * needed; under a tight one a tree that would delay another does not fit
 * and is laid first or another way.  (Dense n x H labels were tried: no
 * better on AMD, 20x slower.)  The best plan is then refined by rip-up
 * and re-lay (tsyn_mteg_refine.c), which the trees laid one after
 * another from scratch cannot do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/heap.h"
#include "collectives/tsyn_int.h"
#include "collectives/tsyn_mteg_int.h"

#define NONE  UINT32_MAX
#define STALE 8 /* reorders without progress before a deadline is given up */

/* The first slot >= a at which link l is free for occ slots and the
 * chunk lands by H; NONE if there is none. */
static uint32_t
window(const struct mteg *g, uint32_t l, uint32_t a)
{
	const uint8_t *u = g->used + (size_t)l * g->stride;
	uint32_t       occ = g->m->occ[l], lat = g->m->lat[l], d = a, i;

	while (d + lat <= g->H && d + occ <= g->H) {
		for (i = 0; i < occ && !u[d + i]; i++)
			;
		if (i == occ)
			return (d);
		d += i + 1;
	}
	return (NONE);
}

/* Heap key: cost, then slot, then node (30 + 22 + 12 bits). */
static uint64_t
key(uint32_t cost, uint32_t slot, uint32_t node)
{
	/* A cost past 30 bits (weighted costs on huge horizons) saturates:
	 * the order among those is then by slot, still a valid search. */
	if (cost >= 1u << 30)
		cost = (1u << 30) - 1;
	return ((uint64_t)cost << 34 | (uint64_t)slot << 12 | node);
}

/* TM's search from the tree: cost is slots since leaving a tree node
 * (storage and transmission edges alike), each label also keeps its slot
 * for the link windows; Dijkstra on a binary heap.  (One label per node:
 * where a costlier label would catch an earlier window, it is lost.)
 * The search is incremental over one broadcast: a node joining the tree
 * only lowers labels, and the link-slots a joining path takes are the
 * joined nodes' own labels, so every other label stays a feasible path
 * and the queue is simply continued from the new tree nodes. */
static int
settle(struct mteg *g)
{
	const struct topo *t = g->t;
	uint32_t           e;
	int                rv;

	while (g->pq.n > 0) {
		uint64_t k = heap_pop(&g->pq);
		uint32_t best = (uint32_t)(k & 0xfff);

		if (k != key(g->cost[best], g->arr[best], best))
			continue;
		for (e = t->out_off[best]; e < t->out_off[best + 1]; e++) {
			uint32_t l = t->out[e], v = t->link[l].dst, d, nt, nc;

			if (g->hold[v] != NONE)
				continue;
			if ((d = window(g, l, g->arr[best])) == NONE)
				continue;
			nt = d + g->m->lat[l];
			nc = g->cost[best] + (nt - g->arr[best]) +
			     g->lam * g->m->occ[l];
			if (nc < g->cost[v] ||
			    (nc == g->cost[v] && nt < g->arr[v])) {
				g->arr[v] = nt;
				g->cost[v] = nc;
				g->pred[v] = l;
				g->dep[v] = d;
				if ((rv = heap_push(&g->pq, key(nc, nt, v))) !=
				    0)
					return (rv);
			}
		}
	}
	return (0);
}

/* Node u holds the chunk from slot a: a tree node, a source again. */
static int
join(struct mteg *g, uint32_t u, uint32_t a)
{
	g->hold[u] = a;
	g->arr[u] = a;
	g->cost[u] = g->mu * a;
	return (heap_push(&g->pq, key(g->cost[u], a, u)));
}

/* Labels afresh from the tree nodes alone. */
static int
research(struct mteg *g)
{
	uint32_t u;
	int      rv;

	g->pq.n = 0;
	for (u = 0; u < g->t->n; u++) {
		if (g->hold[u] != NONE) {
			if ((rv = join(g, u, g->hold[u])) != 0)
				return (rv);
		} else {
			g->cost[u] = NONE;
			g->arr[u] = NONE;
		}
	}
	return (settle(g));
}

/* The nearest GPU not in the tree, or NONE. */
static uint32_t
pick(const struct mteg *g)
{
	const struct topo *t = g->t;
	uint32_t           v = NONE, u, gi;

	for (gi = 0; gi < t->ngpu; gi++) {
		u = t->gpu_node[gi];
		if (g->hold[u] == NONE && g->cost[u] != NONE &&
		    (v == NONE || g->cost[u] < g->cost[v] ||
		     (g->cost[u] == g->cost[v] && g->arr[u] < g->arr[v])))
			v = u;
	}
	return (v);
}

/* Whether v's path back to the tree still departs every node after it
 * holds the chunk: a label lowered since (a cheaper but later arrival)
 * breaks the paths built on it, and then the search starts afresh. */
static int
path_ok(const struct mteg *g, uint32_t v)
{
	const struct topo *t = g->t;
	uint32_t           x, y;

	for (x = v; g->hold[x] == NONE; x = y) {
		y = t->link[g->pred[x]].src;
		if ((g->hold[y] != NONE ? g->hold[y] : g->arr[y]) > g->dep[x])
			return (0);
	}
	return (1);
}

int
mteg_broadcast(struct mteg *g, uint32_t k, struct tsyn_plan *p, uint32_t *last)
{
	const struct topo *t = g->t;
	uint32_t           left = t->ngpu - 1, u;
	int                rv;

	for (u = 0; u < t->n; u++)
		g->hold[u] = NONE;
	g->hold[tsyn_owner(g->m, k)] = 0;
	if ((rv = research(g)) != 0)
		return (rv);
	while (left > 0) {
		uint32_t v, x;

		if ((rv = settle(g)) != 0)
			return (rv);
		if ((v = pick(g)) != NONE && !path_ok(g, v)) {
			if ((rv = research(g)) != 0)
				return (rv);
			v = pick(g);
		}
		if (v == NONE)
			return (1);
		/* The path joins the tree; its link-slots are taken. */
		for (x = v; g->hold[x] == NONE; x = t->link[g->pred[x]].src) {
			uint32_t l = g->pred[x], d = g->dep[x];

			memset(g->used + (size_t)l * g->stride + d, 1,
			       g->m->occ[l]);
			if ((rv = join(g, x, g->arr[x])) != 0)
				return (rv);
			if (t->node[x].kind == TOPO_GPU)
				left--;
			if (g->arr[x] > *last)
				*last = g->arr[x];
			if ((rv = tsyn_plan_add(p, d, l, k)) != 0)
				return (rv);
		}
	}
	return (0);
}

/* Every broadcast within deadline g->H: 0 and the plan in p, 1 if one
 * does not fit, or an error. */
static int
attempt(struct mteg *g, struct tsyn_plan *p)
{
	const struct tsyn_model *m = g->m;
	uint32_t                 i, last = 0, x, far = 0, stale = 0;
	int                      rv = 1;

	for (i = 0; i < m->nchunk; i++)
		g->order[i] = i;
	while (rv == 1 && stale <= STALE) {
		memset(g->used, 0, (size_t)g->t->nlink * g->stride);
		p->n = 0;
		last = 0;
		for (i = 0; i < m->nchunk; i++)
			if ((rv = mteg_broadcast(g, g->order[i], p, &last)) !=
			    0)
				break;
		if (rv != 1)
			break;
		/* The broadcast that did not fit goes first next time (the
		 * squeaky wheel), while that gets further down the order. */
		if (i > far) {
			far = i;
			stale = 0;
		} else {
			stale++;
		}
		x = g->order[i];
		memmove(g->order + 1, g->order, i * sizeof(*g->order));
		g->order[0] = x;
	}
	if (rv != 0)
		return (rv);
	p->slots = last;
	p->horizon = g->H;
	return (0);
}

/* Horizon doubled from a first guess until every broadcast fits. */
static int
first_fit(struct mteg *g, struct tsyn_plan *p, char *err, size_t errlen)
{
	const struct tsyn_model *m = g->m;
	const struct topo       *t = g->t;
	uint32_t                 maxlat = 1, l;
	int                      rv;

	for (l = 0; l < t->nlink; l++)
		if (m->lat[l] > maxlat)
			maxlat = m->lat[l];
	/* A first horizon: every chunk once through the slowest link. */
	for (g->H = 64; g->H < 2 * maxlat + m->nchunk; g->H *= 2)
		;
	for (;;) {
		free(g->used);
		g->stride = g->H;
		if (g->H > TSYN_MAX_SLOTS ||
		    (uint64_t)t->nlink * g->H > (1u << 28) ||
		    (g->used = calloc((size_t)t->nlink * g->H, 1)) == NULL) {
			g->used = NULL;
			snprintf(err, errlen,
			         "horizon %u slots x %u links: too large",
			         g->H, t->nlink);
			return (-COLL_ETOOBIG);
		}
		if ((rv = attempt(g, p)) <= 0)
			return (rv);
		/* Did not fit: a longer horizon (every GPU is reachable). */
		g->H *= 2;
	}
}

void
mteg_cost(struct mteg *g, uint32_t c)
{
	static const uint32_t w[MTEG_NCOST][2] = {
	    {0, 0}, {1, 1}, {1, 2}, {0, 1}};

	g->mu = w[c][0];
	g->lam = w[c][1];
}

/*
 * The deadline bisected below the first fit's completion, with each cost
 * (see nearest): a tight horizon is what makes the trees share the links,
 * since a broadcast that would take a link-slot another one needs fails
 * to fit rather than delaying it.  The best plan is kept in *best.
 */
static int
tighten(struct mteg *g, struct tsyn_plan *best, struct tsyn_plan *tmp)
{
	const struct tsyn_model *m = g->m;
	uint32_t                 c, lo, hi;
	int                      rv;

	for (c = 0; c < MTEG_NCOST; c++) {
		mteg_cost(g, c);
		lo = 1;
		hi = best->slots;
		while (lo < hi) {
			g->H = lo + (hi - lo) / 2;
			if ((rv = attempt(g, tmp)) < 0)
				return (rv);
			if (rv > 0) {
				lo = g->H + 1;
				continue;
			}
			hi = tmp->slots;
			if (tmp->slots < best->slots) {
				struct tsyn_plan x = *best;

				*best = *tmp;
				*tmp = x;
			}
		}
		if (m->progress)
			m->progress(m->progress_arg,
			            (double)(c + 1) / (MTEG_NCOST + 1));
	}
	return (0);
}

static int
tsyn_mteg(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
          size_t errlen)
{
	const struct topo *t = m->t;
	struct mteg        g;
	struct tsyn_plan   tmp;
	int                rv = 0;

	memset(&g, 0, sizeof(g));
	memset(p, 0, sizeof(*p));
	memset(&tmp, 0, sizeof(tmp));
	g.m = m;
	g.t = t;
	g.hold = calloc(t->n, sizeof(uint32_t));
	g.arr = calloc(t->n, sizeof(uint32_t));
	g.cost = calloc(t->n, sizeof(uint32_t));
	g.pred = calloc(t->n, sizeof(uint32_t));
	g.dep = calloc(t->n, sizeof(uint32_t));
	g.order = calloc(m->nchunk, sizeof(uint32_t));
	if (!g.hold || !g.arr || !g.cost || !g.pred || !g.dep || !g.order) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = tsyn_reachable(t, err, errlen)) != 0 ||
	    (rv = first_fit(&g, p, err, errlen)) != 0 ||
	    (rv = tighten(&g, p, &tmp)) != 0 || (rv = mteg_refine(&g, p)) != 0)
		goto out;
	tsyn_plan_sort(p);
out:
	free(g.used);
	free(g.hold);
	free(g.arr);
	free(g.cost);
	free(g.pred);
	free(g.dep);
	free(g.order);
	heap_free(&g.pq);
	tsyn_plan_free(&tmp);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

const struct tsyn_ops tsyn_mteg_ops = {
    .name = "mteg",
    .reduces = 1,
    .allgather = tsyn_mteg,
};
