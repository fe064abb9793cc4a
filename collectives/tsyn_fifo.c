/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The baselines of SCALE-CCL, fixed routes played through FIFO link
 * queues in slots:
 *
 * sph  the paper's: every chunk goes to every GPU by its own shortest
 *      path (link latency in slots, ties to the lower link index), one
 *      copy a destination "without duplicate elimination": two
 *      destinations behind one link get two copies over it;
 * spt  the same paths merged into the shortest-path tree from the owner
 *      (branches that reach no GPU pruned), one copy a link; a node that
 *      receives a chunk queues it on its tree links at once.  A tree is
 *      what ReduceScatter plays backwards, so spt reduces and sph does
 *      not;
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

/* spt: the pruned shortest-path tree of every chunk. */
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

/* sph: a path of its own from the owner to every other GPU. */
static int
build_sph_dest(const struct tsyn_model *m, struct route *r, char *err,
               size_t len)
{
	const struct topo *t = m->t;
	uint32_t          *dist = calloc(t->n, sizeof(*dist));
	uint32_t          *pred = calloc(t->n, sizeof(*pred));
	uint32_t          *path = calloc(t->n, sizeof(*path));
	uint32_t           k, g, u, o, h, parent;
	int                rv = 0;

	if (!dist || !pred || !path) {
		rv = -ENOMEM;
		goto out;
	}
	for (k = 0; k < m->nchunk && rv == 0; k++) {
		o = tsyn_owner(m, k);
		spt(m, o, dist, pred);
		for (g = 0; g < t->ngpu && rv == 0; g++) {
			if ((u = t->gpu_node[g]) == o)
				continue;
			if (dist[u] == NONE) {
				noroute(m, o, u, err, len);
				rv = -COLL_EUNREACH;
				goto out;
			}
			for (h = 0; u != o; u = t->link[pred[u]].src)
				path[h++] = pred[u];
			for (parent = NONE; h > 0 && rv == 0; h--) {
				rv = edge_add(r, path[h - 1], k, parent);
				parent = (uint32_t)r->n - 1;
			}
		}
	}
out:
	free(dist);
	free(pred);
	free(path);
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
/* The FIFO queues of every link as the routes are played through. */
struct fifo {
	const struct tsyn_model *m;
	const struct route      *r;
	uint32_t *head, *tail, *busy; /* [nlink]: queues, free from slot */
	uint32_t *next, *land;        /* [r->n + 1]: queue links, landing */
	uint32_t *pending;            /* edges sent, or passed, not landed */
	uint32_t *has;                /* [n * nchunk]: when u has chunk k */
	size_t    npend, sent;
	uint32_t  last;
	int       dedup; /* a node takes a chunk once (trees) */
};

static void
fifo_free(struct fifo *f)
{
	free(f->head);
	free(f->tail);
	free(f->busy);
	free(f->next);
	free(f->land);
	free(f->pending);
	free(f->has);
}

static int
fifo_init(struct fifo *f, const struct tsyn_model *m, const struct route *r)
{
	const struct topo *t = m->t;
	size_t             x;
	uint32_t           l, c;

	memset(f, 0, sizeof(*f));
	f->m = m;
	f->r = r;
	f->head = calloc(t->nlink, sizeof(*f->head));
	f->tail = calloc(t->nlink, sizeof(*f->tail));
	f->busy = calloc(t->nlink, sizeof(*f->busy));
	f->next = calloc(r->n + 1, sizeof(*f->next));
	f->land = calloc(r->n + 1, sizeof(*f->land));
	f->pending = calloc(r->n + 1, sizeof(*f->pending));
	f->has = malloc((size_t)t->n * m->nchunk * sizeof(*f->has));
	if (!f->head || !f->tail || !f->busy || !f->next || !f->land ||
	    !f->pending || !f->has)
		return (-ENOMEM);
	for (l = 0; l < t->nlink; l++)
		f->head[l] = f->tail[l] = NONE;
	for (x = 0; x < (size_t)t->n * m->nchunk; x++)
		f->has[x] = NONE;
	for (c = 0; c < m->nchunk; c++)
		f->has[(size_t)tsyn_owner(m, c) * m->nchunk + c] = 0;
	return (0);
}

/*
 * Queue edge e on its link.  With dedup a node gets each chunk once: an
 * edge to a node that has it (or has it coming) is passed over, and its
 * children go on from there, so every plan is a tree per chunk, which
 * ReduceScatter needs.  Without (the paper's SPH) every copy is sent.
 */
static void
enq(struct fifo *f, uint32_t e, uint32_t now)
{
	const struct topo *t = f->m->t;
	uint32_t           l = f->r->link[e];
	uint32_t           h =
	    f->has[(size_t)t->link[l].dst * f->m->nchunk + f->r->chunk[e]];

	if (h != NONE && f->dedup) {
		f->land[e] = h > now ? h : now;
		f->pending[f->npend++] = e;
		f->sent++;
		return;
	}
	f->next[e] = NONE;
	if (f->tail[l] == NONE)
		f->head[l] = e;
	else
		f->next[f->tail[l]] = e;
	f->tail[l] = e;
}

/* Copies that landed by now: their children join the queues. */
static void
landed(struct fifo *f, uint32_t now)
{
	size_t   i, j;
	uint32_t c;

	for (i = j = 0; i < f->npend; i++) {
		uint32_t pe = f->pending[i];

		if (f->land[pe] <= now) {
			for (c = f->r->kid_off[pe]; c < f->r->kid_off[pe + 1];
			     c++)
				enq(f, f->r->kid[c], now);
		} else
			f->pending[j++] = pe;
	}
	f->npend = j;
}

/* Every free link sends the head of its queue. */
static int
send_heads(struct fifo *f, struct tsyn_plan *p, uint32_t now)
{
	const struct tsyn_model *m = f->m;
	const struct topo       *t = m->t;
	uint32_t                 l, he;
	int                      rv;

	for (l = 0; l < t->nlink; l++) {
		if (f->busy[l] > now || (he = f->head[l]) == NONE)
			continue;
		f->head[l] = f->next[he];
		if (f->head[l] == NONE)
			f->tail[l] = NONE;
		if ((rv = tsyn_plan_add(p, now, l, f->r->chunk[he])) != 0)
			return (rv);
		f->busy[l] = now + m->occ[l];
		f->land[he] = now + m->lat[l];
		{
			uint32_t *h =
			    &f->has[(size_t)t->link[l].dst * m->nchunk +
			            f->r->chunk[he]];

			if (*h == NONE || f->land[he] < *h)
				*h = f->land[he];
		}
		f->last = f->land[he] > f->last ? f->land[he] : f->last;
		f->pending[f->npend++] = he;
		f->sent++;
	}
	return (0);
}

/* The next landing, or the next time a link with a queue frees. */
static uint32_t
next_event(const struct fifo *f, uint32_t now)
{
	uint32_t nxt = NONE, l;
	size_t   i;

	for (i = 0; i < f->npend; i++)
		if (f->land[f->pending[i]] < nxt)
			nxt = f->land[f->pending[i]];
	for (l = 0; l < f->m->t->nlink; l++)
		if (f->head[l] != NONE && f->busy[l] > now && f->busy[l] < nxt)
			nxt = f->busy[l];
	return (nxt);
}

static int
play(const struct tsyn_model *m, struct route *r, int dedup,
     struct tsyn_plan *p, char *err, size_t len)
{
	struct fifo f;
	uint32_t    now = 0;
	size_t      e;
	int         rv;

	if ((rv = fifo_init(&f, m, r)) != 0)
		goto out;
	f.dedup = dedup;
	for (e = 0; e < r->n; e++)
		if (r->parent[e] == NONE)
			enq(&f, (uint32_t)e, now);
	while (f.sent < r->n || f.npend > 0) {
		landed(&f, now);
		if ((rv = send_heads(&f, p, now)) != 0 ||
		    (rv = tsyn_advance(&now, next_event(&f, now), err, len)) !=
		        0)
			goto out;
	}
	p->slots = f.last;
out:
	fifo_free(&f);
	return (rv);
}

enum route_kind { R_SPT, R_SPH, R_RING };

static int
fifo(const struct tsyn_model *m, enum route_kind k, struct tsyn_plan *p,
     char *err, size_t len)
{
	struct route r;
	int          rv;

	memset(&r, 0, sizeof(r));
	memset(p, 0, sizeof(*p));
	rv = k == R_RING  ? build_ring(m, &r, err, len)
	     : k == R_SPH ? build_sph_dest(m, &r, err, len)
	                  : build_sph(m, &r, err, len);
	if (rv == 0)
		rv = children(&r);
	if (rv == 0)
		rv = play(m, &r, k != R_SPH, p, err, len);
	route_free(&r);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

static int
tsyn_sph(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
         size_t len)
{
	return (fifo(m, R_SPH, p, err, len));
}

static int
tsyn_spt(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
         size_t len)
{
	return (fifo(m, R_SPT, p, err, len));
}

static int
tsyn_ring(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
          size_t len)
{
	return (fifo(m, R_RING, p, err, len));
}

const struct tsyn_ops tsyn_sph_ops = {
    .name = "sph",
    .reduces = 0,
    .why_not = "its copies a destination are no tree to play backwards; "
               "spt is SPH's tree",
    .allgather = tsyn_sph,
};

const struct tsyn_ops tsyn_spt_ops = {
    .name = "spt",
    .reduces = 1,
    .allgather = tsyn_spt,
};

const struct tsyn_ops tsyn_ring_ops = {
    .name = "ring",
    .reduces = 1,
    .allgather = tsyn_ring,
};
