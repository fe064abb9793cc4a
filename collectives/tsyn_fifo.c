/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The two baselines of SCALE-CCL, both fixed routes played through FIFO
 * link queues in slots:
 *
 * sph  every chunk goes down the shortest-path tree (link latency in
 *      slots, ties to the lower link index) from its owner to every GPU,
 *      branches that reach no GPU pruned; a node that receives a chunk
 *      queues it on its tree links at once;
 * ring one ring over the GPUs in index order, each ring hop along the
 *      shortest path between the two GPUs (through switches if need be);
 *      chunk k goes round from its owner, n - 1 ring hops, except that a
 *      node never takes a chunk twice (a switch two ring hops cross
 *      forwards it from its first copy).
 *
 * A route is a set of edges (link, chunk) with a parent edge; an edge is
 * queued on its link when its parent's copy lands (or at slot 0 at the
 * owner), and a free link sends the head of its queue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn_int.h"

#define NONE UINT32_MAX

struct route {
	uint32_t *link, *chunk, *parent; /* per edge */
	uint32_t *kid_off, *kid;         /* children, CSR (built last) */
	size_t    n, cap;
};

static int
edge_add(struct route *r, uint32_t link, uint32_t chunk, uint32_t parent)
{
	if (r->n == r->cap) {
		size_t    nc = r->cap ? 2 * r->cap : 1024;
		uint32_t *a = realloc(r->link, nc * sizeof(*a));
		uint32_t *b, *c;

		if (a == NULL)
			return (-ENOMEM);
		r->link = a;
		if ((b = realloc(r->chunk, nc * sizeof(*b))) == NULL)
			return (-ENOMEM);
		r->chunk = b;
		if ((c = realloc(r->parent, nc * sizeof(*c))) == NULL)
			return (-ENOMEM);
		r->parent = c;
		r->cap = nc;
	}
	r->link[r->n] = link;
	r->chunk[r->n] = chunk;
	r->parent[r->n] = parent;
	r->n++;
	return (0);
}

static void
route_free(struct route *r)
{
	free(r->link);
	free(r->chunk);
	free(r->parent);
	free(r->kid_off);
	free(r->kid);
	memset(r, 0, sizeof(*r));
}

static int
children(struct route *r)
{
	size_t    e;
	uint32_t *fill;

	r->kid_off = calloc(r->n + 2, sizeof(*r->kid_off));
	r->kid = calloc(r->n + 1, sizeof(*r->kid));
	fill = calloc(r->n + 1, sizeof(*fill));
	if (!r->kid_off || !r->kid || !fill) {
		free(fill);
		return (-ENOMEM);
	}
	for (e = 0; e < r->n; e++)
		if (r->parent[e] != NONE)
			r->kid_off[r->parent[e] + 1]++;
	for (e = 0; e < r->n; e++)
		r->kid_off[e + 1] += r->kid_off[e];
	for (e = 0; e < r->n; e++)
		if (r->parent[e] != NONE) {
			uint32_t p = r->parent[e];

			r->kid[r->kid_off[p] + fill[p]++] = (uint32_t)e;
		}
	free(fill);
	return (0);
}

/* Shortest paths in link-latency slots from src: pred link per node. */
static void
spt(const struct tsyn_model *m, uint32_t src, uint32_t *dist, uint32_t *pred)
{
	const struct topo *t = m->t;
	uint32_t           u, i, e, round;

	for (u = 0; u < t->n; u++) {
		dist[u] = NONE;
		pred[u] = NONE;
	}
	dist[src] = 0;
	/* Bellman-Ford in link order: deterministic ties, small graphs. */
	for (round = 0; round < t->n; round++) {
		int changed = 0;

		for (i = 0; i < t->nlink; i++) {
			const struct topo_link *l = &t->link[i];

			e = dist[l->src];
			if (e != NONE && e + m->lat[i] < dist[l->dst]) {
				dist[l->dst] = e + m->lat[i];
				pred[l->dst] = i;
				changed = 1;
			}
		}
		if (!changed)
			break;
	}
}

static void
noroute(const struct tsyn_model *m, uint32_t from, uint32_t to, char *err,
        size_t len)
{
	snprintf(err, len, "%s cannot reach %s: no path",
	         m->t->node[from].name, m->t->node[to].name);
}

/* sph: the pruned shortest-path tree of every chunk. */
static int
build_sph(const struct tsyn_model *m, struct route *r, char *err, size_t len)
{
	const struct topo *t = m->t;
	uint32_t          *dist = calloc(t->n, sizeof(*dist));
	uint32_t          *pred = calloc(t->n, sizeof(*pred));
	uint32_t          *edge_of = calloc(t->n, sizeof(*edge_of));
	uint8_t           *want = calloc(t->n, 1);
	uint32_t           k, g, u, o;
	int                rv = 0;

	if (!dist || !pred || !edge_of || !want) {
		rv = -ENOMEM;
		goto out;
	}
	for (k = 0; k < m->nchunk && rv == 0; k++) {
		o = tsyn_owner(m, k);
		spt(m, o, dist, pred);
		memset(want, 0, t->n);
		for (g = 0; g < t->ngpu; g++) {
			u = t->gpu_node[g];
			if (dist[u] == NONE) {
				noroute(m, o, u, err, len);
				rv = -COLL_EUNREACH;
				goto out;
			}
			for (; u != o && !want[u]; u = t->link[pred[u]].src)
				want[u] = 1;
		}
		/* Edges in order of distance, so parents come first. */
		for (u = 0; u < t->n; u++)
			edge_of[u] = NONE;
		for (;;) {
			uint32_t best = NONE;

			for (u = 0; u < t->n; u++)
				if (want[u] && edge_of[u] == NONE &&
				    (best == NONE || dist[u] < dist[best]))
					best = u;
			if (best == NONE)
				break;
			{
				uint32_t l = pred[best], from = t->link[l].src;

				edge_of[best] = (uint32_t)r->n;
				if ((rv = edge_add(
				         r, l, k,
				         from == o ? NONE : edge_of[from])) !=
				    0)
					goto out;
			}
		}
	}
out:
	free(dist);
	free(pred);
	free(edge_of);
	free(want);
	return (rv);
}

/* ring: GPU order, each hop a shortest path; n - 1 hops per chunk. */
static int
build_ring(const struct tsyn_model *m, struct route *r, char *err, size_t len)
{
	const struct topo *t = m->t;
	uint32_t           n = t->ngpu, g, k, h, u, v, x;
	uint32_t          *dist = calloc(t->n, sizeof(*dist));
	uint32_t          *pred = calloc(t->n, sizeof(*pred));
	uint32_t         **path = calloc(n, sizeof(*path));
	uint32_t          *plen = calloc(n, sizeof(*plen));
	int                rv = 0;

	if (!dist || !pred || !path || !plen) {
		rv = -ENOMEM;
		goto out;
	}
	/* Hop g: GPU g to GPU g + 1, as a list of links. */
	for (g = 0; g < n; g++) {
		u = t->gpu_node[g];
		v = t->gpu_node[(g + 1) % n];
		spt(m, u, dist, pred);
		if (dist[v] == NONE) {
			noroute(m, u, v, err, len);
			rv = -COLL_EUNREACH;
			goto out;
		}
		for (x = v; x != u; x = t->link[pred[x]].src)
			plen[g]++;
		if ((path[g] = calloc(plen[g], sizeof(uint32_t))) == NULL) {
			rv = -ENOMEM;
			goto out;
		}
		h = plen[g];
		for (x = v; x != u; x = t->link[pred[x]].src)
			path[g][--h] = pred[x];
	}
	for (k = 0; k < m->nchunk; k++) {
		uint32_t parent = NONE, og = k / m->chunks;

		for (h = 0; h + 1 < n; h++) {
			g = (og + h) % n;
			for (x = 0; x < plen[g]; x++) {
				if ((rv = edge_add(r, path[g][x], k,
				                   parent)) != 0)
					goto out;
				parent = (uint32_t)r->n - 1;
			}
		}
	}
out:
	for (g = 0; path && g < n; g++)
		free(path[g]);
	free(path);
	free(plen);
	free(dist);
	free(pred);
	return (rv);
}

/* Play a route through FIFO link queues. */
static int
play(const struct tsyn_model *m, struct route *r, struct tsyn_plan *p,
     char *err, size_t len)
{
	const struct topo *t = m->t;
	uint32_t          *head = calloc(t->nlink, sizeof(*head));
	uint32_t          *tail = calloc(t->nlink, sizeof(*tail));
	uint32_t          *next = calloc(r->n + 1, sizeof(*next));
	uint32_t          *busy = calloc(t->nlink, sizeof(*busy));
	uint32_t          *land = calloc(r->n + 1, sizeof(*land));
	uint32_t           now = 0, last = 0, l, c;
	size_t             e, sent = 0, npend = 0;
	int                rv = 0;
	/* Landings: the edges sent (or passed over) not landed yet. */
	uint32_t *pending = calloc(r->n + 1, sizeof(*pending));
	uint32_t *has = malloc((size_t)t->n * m->nchunk * sizeof(*has));

	if (!head || !tail || !next || !busy || !land) {
		rv = -ENOMEM;
		goto out_p;
	}
	for (l = 0; l < t->nlink; l++)
		head[l] = tail[l] = NONE;
		/* A node gets each chunk once: an edge to a node that has it (or
	 * has it coming) is passed over, its children go on from there.
	 * So every plan is a tree per chunk, which ReduceScatter needs. */
#define ENQ(edge)                                                             \
	do {                                                                  \
		uint32_t _e = (edge), _l = r->link[_e];                       \
		uint32_t _h =                                                 \
		    has[(size_t)t->link[_l].dst * m->nchunk + r->chunk[_e]];  \
		if (_h != NONE) {                                             \
			land[_e] = _h > now ? _h : now;                       \
			pending[npend++] = _e;                                \
			sent++;                                               \
			break;                                                \
		}                                                             \
		next[_e] = NONE;                                              \
		if (tail[_l] == NONE)                                         \
			head[_l] = _e;                                        \
		else                                                          \
			next[tail[_l]] = _e;                                  \
		tail[_l] = _e;                                                \
	} while (0)
	if (pending == NULL || has == NULL) {
		rv = -ENOMEM;
		goto out_p;
	}
	for (size_t x = 0; x < (size_t)t->n * m->nchunk; x++)
		has[x] = NONE;
	for (c = 0; c < m->nchunk; c++)
		has[(size_t)tsyn_owner(m, c) * m->nchunk + c] = 0;
	for (e = 0; e < r->n; e++)
		if (r->parent[e] == NONE)
			ENQ((uint32_t)e);
	while (sent < r->n || npend > 0) {
		uint32_t nxt = NONE;
		size_t   i, j;

		/* Copies that landed: their children join the queues. */
		for (i = j = 0; i < npend; i++) {
			uint32_t pe = pending[i];

			if (land[pe] <= now) {
				for (c = r->kid_off[pe];
				     c < r->kid_off[pe + 1]; c++)
					ENQ(r->kid[c]);
			} else
				pending[j++] = pe;
		}
		npend = j;
		for (l = 0; l < t->nlink; l++) {
			uint32_t he;

			if (busy[l] > now || (he = head[l]) == NONE)
				continue;
			head[l] = next[he];
			if (head[l] == NONE)
				tail[l] = NONE;
			if ((rv = tsyn_plan_add(p, now, l, r->chunk[he])) != 0)
				goto out_p;
			busy[l] = now + m->occ[l];
			land[he] = now + m->lat[l];
			has[(size_t)t->link[l].dst * m->nchunk +
			    r->chunk[he]] = land[he];
			last = land[he] > last ? land[he] : last;
			pending[npend++] = he;
			sent++;
		}
		for (i = 0; i < npend; i++)
			if (land[pending[i]] < nxt)
				nxt = land[pending[i]];
		for (l = 0; l < t->nlink; l++)
			if (head[l] != NONE && busy[l] > now && busy[l] < nxt)
				nxt = busy[l];
		if ((rv = tsyn_advance(&now, nxt, err, len)) != 0)
			goto out_p;
	}
#undef ENQ
	p->slots = last;
out_p:
	free(pending);
	free(has);
	free(head);
	free(tail);
	free(next);
	free(busy);
	free(land);
	return (rv);
}

static int
fifo(const struct tsyn_model *m, int ring, struct tsyn_plan *p, char *err,
     size_t len)
{
	struct route r;
	int          rv;

	memset(&r, 0, sizeof(r));
	memset(p, 0, sizeof(*p));
	rv = ring ? build_ring(m, &r, err, len) : build_sph(m, &r, err, len);
	if (rv == 0)
		rv = children(&r);
	if (rv == 0)
		rv = play(m, &r, p, err, len);
	route_free(&r);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

int
tsyn_sph(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
         size_t len)
{
	return (fifo(m, 0, p, err, len));
}

int
tsyn_ring(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
          size_t len)
{
	return (fifo(m, 1, p, err, len));
}
