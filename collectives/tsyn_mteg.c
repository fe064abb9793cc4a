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
 * free window), which avoids building the n x H graph.  The path joins the tree, its transmission edges are removed
 * (the link-slots are reserved) for later broadcasts, and the next
 * nearest terminal follows until every GPU is reached.  Broadcasts go
 * largest first (all chunks weigh the same here: then by chunk index).
 * When a broadcast does not fit in H, H doubles and everything starts
 * again; the H used is reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/heap.h"
#include "collectives/tsyn_int.h"

#define NONE UINT32_MAX

struct mteg {
	const struct tsyn_model *m;
	const struct topo       *t;
	uint32_t                 H;
	uint8_t                 *used; /* [nlink * H] reserved slots */
	uint32_t                *hold; /* [n]: tree holds the chunk from */
	uint32_t                *arr;  /* [n]: arrival slot of the label */
	uint32_t                *cost; /* [n]: slots since the tree */
	uint32_t                *pred; /* [n]: link of the best path */
	uint32_t                *dep;  /* [n]: departure slot on pred */
	uint8_t                 *done; /* [n]: settled */
	struct heap              pq;
};

/* The first slot >= a at which link l is free for occ slots and the
 * chunk lands by H; NONE if there is none. */
static uint32_t
window(const struct mteg *g, uint32_t l, uint32_t a)
{
	const uint8_t *u = g->used + (size_t)l * g->H;
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
	return ((uint64_t)cost << 34 | (uint64_t)slot << 12 | node);
}

/* TM's search from the tree: cost is slots since leaving a tree node
 * (storage and transmission edges alike), each label also keeps its slot
 * for the link windows; Dijkstra on a binary heap.  (One label per node:
 * where a costlier label would catch an earlier window, it is lost.) */
static int
nearest(struct mteg *g)
{
	const struct topo *t = g->t;
	uint32_t           u, e;
	int                rv;

	g->pq.n = 0;
	for (u = 0; u < t->n; u++) {
		g->arr[u] = g->hold[u];
		g->cost[u] = g->hold[u] == NONE ? NONE : 0;
		g->pred[u] = NONE;
		g->done[u] = 0;
		if (g->hold[u] != NONE &&
		    (rv = heap_push(&g->pq, key(0, g->hold[u], u))) != 0)
			return (rv);
	}
	while (g->pq.n > 0) {
		uint64_t k = heap_pop(&g->pq);
		uint32_t best = (uint32_t)(k & 0xfff);

		if (g->done[best] ||
		    k != key(g->cost[best], g->arr[best], best))
			continue;
		g->done[best] = 1;
		for (e = t->out_off[best]; e < t->out_off[best + 1]; e++) {
			uint32_t l = t->out[e], v = t->link[l].dst, d, nt, nc;

			if (g->done[v] || g->hold[v] != NONE)
				continue;
			if ((d = window(g, l, g->arr[best])) == NONE)
				continue;
			nt = d + g->m->lat[l];
			nc = g->cost[best] + (nt - g->arr[best]);
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

/* One broadcast; 0, or 1 if it does not fit in H. */
static int
broadcast(struct mteg *g, uint32_t k, struct tsyn_plan *p, uint32_t *last)
{
	const struct topo *t = g->t;
	uint32_t           left = t->ngpu - 1, u, gi;
	int                rv;

	for (u = 0; u < t->n; u++)
		g->hold[u] = NONE;
	g->hold[tsyn_owner(g->m, k)] = 0;
	while (left > 0) {
		uint32_t v = NONE, x;

		if ((rv = nearest(g)) != 0)
			return (rv);
		for (gi = 0; gi < t->ngpu; gi++) {
			u = t->gpu_node[gi];
			if (g->hold[u] == NONE && g->cost[u] != NONE &&
			    (v == NONE || g->cost[u] < g->cost[v] ||
			     (g->cost[u] == g->cost[v] &&
			      g->arr[u] < g->arr[v])))
				v = u;
		}
		if (v == NONE)
			return (1);
		/* The path joins the tree; its link-slots are taken. */
		for (x = v; g->hold[x] == NONE; x = t->link[g->pred[x]].src) {
			uint32_t l = g->pred[x], d = g->dep[x];

			memset(g->used + (size_t)l * g->H + d, 1,
			       g->m->occ[l]);
			g->hold[x] = g->arr[x];
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

static int
tsyn_mteg(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
          size_t errlen)
{
	const struct topo *t = m->t;
	struct mteg        g;
	uint32_t           k, last, maxlat = 1, l;
	int                rv = 0;

	memset(&g, 0, sizeof(g));
	memset(p, 0, sizeof(*p));
	g.m = m;
	g.t = t;
	g.hold = calloc(t->n, sizeof(uint32_t));
	g.arr = calloc(t->n, sizeof(uint32_t));
	g.cost = calloc(t->n, sizeof(uint32_t));
	g.pred = calloc(t->n, sizeof(uint32_t));
	g.dep = calloc(t->n, sizeof(uint32_t));
	g.done = calloc(t->n, 1);
	if (!g.hold || !g.arr || !g.cost || !g.pred || !g.dep || !g.done) {
		rv = -ENOMEM;
		goto out;
	}
	if ((rv = tsyn_reachable(t, err, errlen)) != 0)
		goto out;
	for (l = 0; l < t->nlink; l++)
		if (m->lat[l] > maxlat)
			maxlat = m->lat[l];
	/* A first horizon: every chunk once through the slowest link. */
	for (g.H = 64; g.H < 2 * maxlat + m->nchunk; g.H *= 2)
		;
	for (;;) {
		free(g.used);
		if (g.H > TSYN_MAX_SLOTS ||
		    (uint64_t)t->nlink * g.H > (1u << 28) ||
		    (g.used = calloc((size_t)t->nlink * g.H, 1)) == NULL) {
			g.used = NULL;
			snprintf(err, errlen,
			         "horizon %u slots x %u links: too large", g.H,
			         t->nlink);
			rv = -COLL_ETOOBIG;
			goto out;
		}
		p->n = 0;
		last = 0;
		for (k = 0; k < m->nchunk; k++) {
			if (m->progress && (k & 15) == 0)
				m->progress(m->progress_arg,
				            (double)k / m->nchunk);
			if ((rv = broadcast(&g, k, p, &last)) != 0)
				break;
		}
		if (rv < 0)
			goto out;
		if (rv == 0)
			break;
		/* Did not fit: a longer horizon (every GPU is reachable). */
		g.H *= 2;
		rv = 0;
	}
	tsyn_plan_sort(p);
	p->slots = last;
	p->horizon = g.H;
out:
	free(g.used);
	free(g.hold);
	free(g.arr);
	free(g.cost);
	free(g.pred);
	free(g.dep);
	free(g.done);
	heap_free(&g.pq);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

const struct tsyn_ops tsyn_mteg_ops = {
    .name = "mteg",
    .reduces = 1,
    .allgather = tsyn_mteg,
};
