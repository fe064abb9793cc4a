/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scalecc: SCALE-CCL's event-driven, WAN-aware AllGather, in slots.
 *
 * Nodes are GPUs, switches and border routers (BRs); a node's region is
 * its group (datacenter, chassis).  BRs cut through: they forward a
 * subchunk from the slot its head arrives (the validator and the replay
 * know this); everyone else stores and forwards.  Each GPU's share is cut
 * into `chunks` subchunks.  Events are "node u may forward subchunk k from
 * slot t" (its arrival, or its head's at a BR) and "link free"; at each:
 *
 * - the datacentre's border (the paper's rules): a GPU offers its own
 *   region's subchunks to its BR, and of the GPUs that hold one the
 *   uplink that delivers first keeps it (least-waiting-first GPU-to-BR
 *   queues); a BR gives a remote subchunk to one GPU of its region, the
 *   one whose link delivers first, and lets the region's fast links
 *   spread it (each sibling takes it once), and never sends a subchunk
 *   back into the region it came from; a BR sends a copy over each WAN
 *   link whose region has it neither held nor coming;
 * - load-aware neighbour forwarding: u knows what each neighbour holds or
 *   has coming.  To GPUs of its own region a GPU or a switch broadcasts
 *   (every one that lacks it).  Towards other regions (a switch, or a
 *   GPU in another region) it forwards to one neighbour:
 *   among those that lack it and whose region nobody has it for yet, the
 *   one with the best score, the earliest delivery (the link's queue
 *   finish plus its latency; link availability and queue occupancy in
 *   one), ties to the region with fewer GPUs holding it (delivery
 *   progress), then the lower link;
 * - subchunk scheduling: a subchunk queued for the same destination on
 *   two links (predecessors or siblings in a region) stays only in the
 *   queue that delivers it first; a free link sends the head of its
 *   queue.
 *
 * It runs until every GPU holds every subchunk.  Where the rules leave a
 * GPU waiting with nothing on its way (a topology they do not cover), the
 * first hop of a shortest path from a holder is queued, so any connected
 * topology completes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/heap.h"
#include "collectives/tsyn_int.h"

#define NONE UINT32_MAX

struct entry {
	uint32_t chunk, next, est; /* est: slot it should land */
	uint8_t  live;
};

struct scc {
	const struct tsyn_model *m;
	const struct topo       *t;
	uint32_t                *at;    /* [n * nchunk]: lands (NONE) */
	uint32_t                *qent;  /* [n * nchunk]: queued entry */
	uint32_t                *qlink; /* [n * nchunk]: its link */
	uint32_t                *head, *tail, *len; /* [nlink] queues */
	uint32_t                *busy;              /* [nlink] */
	struct entry            *e;
	size_t                   ne, cape;
	struct heap              ev;   /* slot << 32 | node * nchunk + k */
	uint32_t                *held; /* [ngroup + 1][nchunk]: GPUs */
	uint64_t                 missing;
	uint32_t                 last;        /* the last landing so far */
	uint32_t                *dist, *pred; /* [n]: rescue's search */
};

static size_t
ix(const struct scc *s, uint32_t u, uint32_t k)
{
	return ((size_t)u * s->m->nchunk + k);
}

static int
grp(const struct scc *s, uint32_t u)
{
	return (s->t->node[u].group); /* -1: no region */
}

/* When would a copy queued now on l land? */
static uint32_t
estimate(const struct scc *s, uint32_t l, uint32_t now)
{
	uint32_t start = s->busy[l] > now ? s->busy[l] : now;

	return (start + s->len[l] * s->m->occ[l] + s->m->lat[l]);
}

/* Queue k on l unless its destination has it, or has it coming sooner. */
static int
enqueue(struct scc *s, uint32_t l, uint32_t k, uint32_t now)
{
	uint32_t v = s->t->link[l].dst, est = estimate(s, l, now);
	size_t   i = ix(s, v, k);

	if (s->at[i] != NONE)
		return (0);
	if (s->qent[i] != NONE) {
		struct entry *old = &s->e[s->qent[i]];

		if (old->est <= est)
			return (0);
		old->live = 0; /* the other queue delivers it later */
		s->len[s->qlink[i]]--;
	}
	if (s->ne == s->cape) {
		size_t        nc = s->cape ? 2 * s->cape : 1024;
		struct entry *ne = realloc(s->e, nc * sizeof(*ne));

		if (ne == NULL)
			return (-ENOMEM);
		s->e = ne;
		s->cape = nc;
	}
	s->e[s->ne] = (struct entry){k, NONE, est, 1};
	if (s->tail[l] == NONE)
		s->head[l] = (uint32_t)s->ne;
	else
		s->e[s->tail[l]].next = (uint32_t)s->ne;
	s->tail[l] = (uint32_t)s->ne;
	s->len[l]++;
	s->qent[i] = (uint32_t)s->ne;
	s->qlink[i] = l;
	s->ne++;
	return (0);
}

/* Has region g (or v itself, for unregioned nodes) k or k coming? */
static int
region_served(const struct scc *s, uint32_t v, uint32_t k)
{
	int g = grp(s, v);

	if (s->at[ix(s, v, k)] != NONE || s->qent[ix(s, v, k)] != NONE)
		return (1);
	return (g >= 0 && s->held[(size_t)g * s->m->nchunk + k] > 0);
}

static int
is_local_gpu(const struct scc *s, uint32_t u, uint32_t v)
{
	int gu = grp(s, u), gv = grp(s, v);

	if (s->t->node[v].kind != TOPO_GPU)
		return (0);
	/* A switch or router with no region serves the GPUs it reaches. */
	if (s->t->node[u].kind != TOPO_GPU && gu < 0)
		return (1);
	return (gu == gv);
}

/* Does k still need to reach v (nothing there, nothing coming)? */
static int
lacks(const struct scc *s, uint32_t v, uint32_t k)
{
	return (s->at[ix(s, v, k)] == NONE && s->qent[ix(s, v, k)] == NONE);
}

/*
 * The datacentre's border: u in region g and v its border router.
 * Outwards: a GPU offers its own region's subchunks to its router, and
 * of the GPUs that hold one the uplink that delivers first keeps it
 * (enqueue drops the later copy): SCALE-CCL's least-waiting-first
 * GPU-to-router queues.  Inwards: a router gives a remote subchunk to
 * one GPU of its region, the one whose link delivers first, and the
 * region's fast links spread it (each sibling gets it once).  1 if l was
 * the border (handled, or the inward choice updated), else 0.
 */
static int
border(struct scc *s, uint32_t u, uint32_t l, uint32_t k, uint32_t now,
       uint32_t *in_best, uint32_t *in_est, int *rv)
{
	const struct topo *t = s->t;
	uint32_t           v = t->link[l].dst, est;
	int                home = grp(s, tsyn_owner(s->m, k));

	*rv = 0;
	if (grp(s, u) < 0 || grp(s, u) != grp(s, v))
		return (0);
	if (t->node[u].kind == TOPO_GPU && t->node[v].kind == TOPO_ROUTER) {
		if (home == grp(s, u))
			*rv = enqueue(s, l, k, now);
		return (1);
	}
	if (t->node[u].kind != TOPO_ROUTER || t->node[v].kind != TOPO_GPU)
		return (0);
	if (home != grp(s, u) && lacks(s, v, k) &&
	    (*in_best == NONE || (est = estimate(s, l, now)) < *in_est)) {
		*in_best = l;
		*in_est = estimate(s, l, now);
	}
	return (1); /* a home subchunk does not go back in */
}

/* u may forward k from slot now: the forwarding rules. */
static int
forward(struct scc *s, uint32_t u, uint32_t k, uint32_t now)
{
	const struct topo *t = s->t;
	uint32_t           e, best = NONE, best_est = 0, best_prog = 0;
	uint32_t           in_best = NONE, in_est = 0;
	int                rv;

	for (e = t->out_off[u]; e < t->out_off[u + 1]; e++) {
		uint32_t l = t->out[e], v = t->link[l].dst;

		if (border(s, u, l, k, now, &in_best, &in_est, &rv)) {
			if (rv != 0)
				return (rv);
			continue;
		}
		if (is_local_gpu(s, u, v)) {
			/* Broadcast inside the region. */
			if ((rv = enqueue(s, l, k, now)) != 0)
				return (rv);
			continue;
		}
		if (region_served(s, v, k))
			continue;
		/* Router to router: each WAN link reaches a region of its
		 * own, so every unserved one gets a copy. */
		if (t->node[u].kind == TOPO_ROUTER &&
		    t->node[v].kind == TOPO_ROUTER) {
			if ((rv = enqueue(s, l, k, now)) != 0)
				return (rv);
			continue;
		}
		{
			uint32_t est = estimate(s, l, now);
			uint32_t prog =
			    grp(s, v) >= 0
			        ? s->held[(size_t)grp(s, v) * s->m->nchunk + k]
			        : 0;

			if (best == NONE || est < best_est ||
			    (est == best_est && prog < best_prog)) {
				best = l;
				best_est = est;
				best_prog = prog;
			}
		}
	}
	if (in_best != NONE && (rv = enqueue(s, in_best, k, now)) != 0)
		return (rv);
	if (best != NONE)
		return (enqueue(s, best, k, now));
	return (0);
}

/* The rules left GPUs waiting with nothing coming: one hop of a
 * shortest path from a holder, per such (GPU, chunk). */
static int
rescue(struct scc *s, uint32_t now, uint32_t *dist, uint32_t *pred)
{
	const struct topo *t = s->t;
	uint32_t           k, g, u, i, round;
	int                rv, any = 0;

	for (k = 0; k < s->m->nchunk; k++) {
		for (u = 0; u < t->n; u++) {
			dist[u] = s->at[ix(s, u, k)] != NONE ? 0 : NONE;
			pred[u] = NONE;
		}
		for (round = 0; round < t->n; round++) {
			int ch = 0;

			for (i = 0; i < t->nlink; i++) {
				const struct topo_link *l = &t->link[i];

				if (dist[l->src] != NONE &&
				    dist[l->src] + 1 < dist[l->dst]) {
					dist[l->dst] = dist[l->src] + 1;
					pred[l->dst] = i;
					ch = 1;
				}
			}
			if (!ch)
				break;
		}
		for (g = 0; g < t->ngpu; g++) {
			uint32_t v = t->gpu_node[g], x = v, l = NONE;

			if (s->at[ix(s, v, k)] != NONE ||
			    s->qent[ix(s, v, k)] != NONE || dist[v] == NONE)
				continue;
			while (pred[x] != NONE) {
				l = pred[x];
				x = t->link[l].src;
			}
			if (l != NONE) {
				if ((rv = enqueue(s, l, k, now)) != 0)
					return (rv);
				any = 1;
			}
		}
	}
	return (any);
}

static void
scc_free(struct scc *s)
{
	free(s->at);
	free(s->qent);
	free(s->qlink);
	free(s->head);
	free(s->tail);
	free(s->len);
	free(s->busy);
	free(s->held);
	free(s->e);
	heap_free(&s->ev);
	free(s->dist);
	free(s->pred);
}

/* Buffers, and every chunk at its owner from slot 0. */
static int
scc_init(struct scc *s, const struct tsyn_model *m, size_t cells)
{
	const struct topo *t = m->t;
	uint32_t           k, u, l;
	size_t             i;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->t = t;
	s->at = malloc(cells * sizeof(uint32_t));
	s->qent = malloc(cells * sizeof(uint32_t));
	s->qlink = malloc(cells * sizeof(uint32_t));
	s->head = malloc(t->nlink * sizeof(uint32_t));
	s->tail = malloc(t->nlink * sizeof(uint32_t));
	s->len = calloc(t->nlink, sizeof(uint32_t));
	s->busy = calloc(t->nlink, sizeof(uint32_t));
	s->held =
	    calloc((size_t)(t->ngroup + 1) * m->nchunk, sizeof(uint32_t));
	s->dist = malloc(t->n * sizeof(uint32_t));
	s->pred = malloc(t->n * sizeof(uint32_t));
	if (!s->at || !s->qent || !s->qlink || !s->head || !s->tail ||
	    !s->len || !s->busy || !s->held || !s->dist || !s->pred)
		return (-ENOMEM);
	for (i = 0; i < cells; i++)
		s->at[i] = s->qent[i] = NONE;
	for (l = 0; l < t->nlink; l++)
		s->head[l] = s->tail[l] = NONE;
	s->missing = (uint64_t)t->ngpu * (t->ngpu - 1) * m->chunks;
	for (k = 0; k < m->nchunk; k++) {
		u = tsyn_owner(m, k);
		s->at[ix(s, u, k)] = 0;
		if (grp(s, u) >= 0)
			s->held[(size_t)grp(s, u) * m->nchunk + k]++;
		if (heap_push(&s->ev, (uint64_t)(0) << 32 | ix(s, u, k)) != 0)
			return (-ENOMEM);
	}
	return (0);
}

/* Link l sends the heads of its queue while it is free in slot now.
 * *queued: something still waits on it. */
static int
drain_link(struct scc *s, struct tsyn_plan *p, uint32_t l, uint32_t now,
           int *queued)
{
	const struct tsyn_model *m = s->m;
	const struct topo       *t = s->t;
	uint32_t                 v = t->link[l].dst;
	int                      rv;

	while (s->busy[l] <= now && s->head[l] != NONE) {
		struct entry *en = &s->e[s->head[l]];
		uint32_t      c = en->chunk, land, avail, in;

		/* A border router forwarding as the head comes in must not
		 * finish before the tail is in: onto a faster link than the
		 * one it hears on, the send waits (the link idles until
		 * then, and that slot wakes the loop). */
		in = s->at[ix(s, t->link[l].src, c)];
		if (en->live && s->at[ix(s, v, c)] == NONE && in != NONE &&
		    in > now + m->occ[l]) {
			s->busy[l] = in - m->occ[l];
			break;
		}
		s->head[l] = en->next;
		if (s->head[l] == NONE)
			s->tail[l] = NONE;
		if (!en->live)
			continue;
		s->len[l]--;
		s->qent[ix(s, v, c)] = NONE;
		if (s->at[ix(s, v, c)] != NONE)
			continue;
		if ((rv = tsyn_plan_add(p, now, l, c)) != 0)
			return (rv);
		s->busy[l] = now + m->occ[l];
		land = now + m->lat[l];
		s->at[ix(s, v, c)] = land;
		s->last = land > s->last ? land : s->last;
		if (t->node[v].kind == TOPO_GPU) {
			s->missing--;
			if (grp(s, v) >= 0)
				s->held[(size_t)grp(s, v) * m->nchunk + c]++;
		}
		/* A border router cuts through. */
		avail =
		    t->node[v].kind == TOPO_ROUTER ? land - m->occ[l] : land;
		if ((rv = heap_push(&s->ev, (uint64_t)(avail) << 32 |
		                                ix(s, v, c))) != 0)
			return (rv);
	}
	if (s->head[l] != NONE)
		*queued = 1;
	return (0);
}

/* The slot after now where an event fires or a queued link frees. */
static uint32_t
next_event(const struct scc *s, uint32_t now)
{
	uint32_t next = NONE, l;

	if (s->ev.n > 0)
		next = (uint32_t)(heap_top(&s->ev) >> 32);
	for (l = 0; l < s->t->nlink; l++)
		if (s->head[l] != NONE && s->busy[l] > now &&
		    s->busy[l] < next)
			next = s->busy[l];
	return (next);
}

static int
tsyn_scalecc(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
             size_t errlen)
{
	const struct topo *t = m->t;
	struct scc         s;
	uint32_t           now = 0, l;
	size_t             cells = (size_t)t->n * m->nchunk;
	int                rv;

	memset(&s, 0, sizeof(s));
	memset(p, 0, sizeof(*p));
	if ((rv = tsyn_reachable(t, err, errlen)) != 0)
		return (rv);
	if (cells > (1u << 26)) {
		snprintf(err, errlen, "%u nodes x %u chunks: too many", t->n,
		         m->nchunk);
		return (-COLL_ETOOBIG);
	}
	if ((rv = scc_init(&s, m, cells)) != 0)
		goto out;
	while (s.missing > 0) {
		uint32_t next;
		int      queued = 0;

		while (s.ev.n > 0 &&
		       (uint32_t)(heap_top(&s.ev) >> 32) <= now) {
			uint32_t c = (uint32_t)heap_pop(&s.ev);

			if ((rv = forward(&s, c / m->nchunk, c % m->nchunk,
			                  now)) != 0)
				goto out;
		}
		for (l = 0; l < t->nlink; l++)
			if ((rv = drain_link(&s, p, l, now, &queued)) != 0)
				goto out;
		next = next_event(&s, now);
		if (next == NONE && s.missing > 0) {
			if (queued) {
				next = now + 1;
			} else {
				/* Nothing moves: route around what stalls. */
				if ((rv = rescue(&s, now, s.dist, s.pred)) < 0)
					goto out;
				if (rv == 0) {
					snprintf(err, errlen,
					         "scalecc stalled with GPUs "
					         "waiting");
					rv = -COLL_EUNREACH;
					goto out;
				}
				rv = 0;
				continue; /* send what was queued */
			}
		}
		if ((rv = tsyn_advance(&now, next, err, errlen)) != 0)
			goto out;
	}
	p->slots = s.last;
	rv = 0;
out:
	scc_free(&s);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

const struct tsyn_ops tsyn_scalecc_ops = {
    .name = "scalecc",
    .reduces = 0,
    .why_not = "SCALE-CCL has no reduction: its border routers cut "
               "through, which does not run backwards",
    .allgather = tsyn_scalecc,
};
