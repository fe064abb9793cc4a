/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ten: the greedy layer-by-layer time-expanded construction of the
 * Internet-Draft, for AllGather.  Slot by slot, with no horizon fixed:
 *
 * 1. targets: every (GPU, chunk) the GPU neither holds nor has coming;
 * 2. candidate sources: for each chunk, a multi-source shortest-path
 *    search (Dijkstra in slots of link latency) back from the targets to
 *    the nodes that hold it now, or will when a send in flight lands; a
 *    target whose nearest source holds the chunk now proposes the first
 *    hop of that path, if the link is free in this slot (switches and
 *    routers on the way relay, so chunks cross them too);
 * 3. matching: every free link takes at most one chunk.  Candidates are
 *    taken by the number of targets the hop serves, then the chunk's
 *    remaining demand (GPUs still lacking it), then the shorter path,
 *    then link and chunk order (so the result is deterministic).  A
 *    chunk whose hop lost its link to another chunk, or that was just
 *    sent over a slow link, is searched again in the same slot with that
 *    link now busy (the search charges a busy link its wait), so it can
 *    take another way, or see its own copy on the way;
 * 4. sends start; a chunk lands L(u,v) slots later.
 * It ends when every GPU holds every chunk, or fails naming a GPU that a
 * chunk cannot reach.  Slots in which nothing can start are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/heap.h"
#include "collectives/tsyn_int.h"

#define INF UINT32_MAX

struct cand {
	uint32_t link, chunk;
	uint32_t score, need, dist;
};

struct ten {
	const struct tsyn_model *m;
	const struct topo       *t;
	size_t                   w;           /* bitset words per node */
	uint64_t                *hold, *to;   /* [n * w]: held, coming */
	uint32_t                *busy;        /* [nlink]: free from slot */
	uint32_t                *need;        /* [nchunk]: GPUs lacking it */
	uint32_t                *dist, *pred; /* [n]: search state */
	uint32_t                *cand_of;     /* [nlink]: index in cands+1 */
	uint8_t                 *dirty;       /* [nchunk]: search again */
	struct cand             *cands;
	size_t                   ncand, capcand;
	struct heap              arr, dj;
	uint64_t                 missing; /* (GPU, chunk) not held */
	uint32_t *landing;  /* [n * nchunk]: when chunk k lands at u */
	uint32_t *land;     /* [n]: the same for the chunk searched */
	uint32_t  inflight; /* copies on their way */
	uint32_t  last;     /* the last arrival so far */
};

static int
has(const struct ten *s, uint32_t u, uint32_t k)
{
	return (bs_get(s->hold + u * s->w, k));
}

static int
coming(const struct ten *s, uint32_t u, uint32_t k)
{
	return (bs_get(s->to + u * s->w, k));
}

/* The search for chunk k: dist/pred from the nearest source. */
static int
search(struct ten *s, uint32_t k, uint32_t now, const uint32_t *land)
{
	const struct topo *t = s->t;
	uint32_t           u, e;
	int                rv;

	for (u = 0; u < t->n; u++) {
		s->dist[u] = INF;
		s->pred[u] = INF;
		if (has(s, u, k))
			s->dist[u] = 0;
		else if (coming(s, u, k))
			s->dist[u] = land[u] - now;
		if (s->dist[u] != INF &&
		    (rv = heap_push(&s->dj,
		                    (uint64_t)(s->dist[u]) << 32 | u)) != 0)
			return (rv);
	}
	while (s->dj.n > 0) {
		uint64_t top = heap_pop(&s->dj);
		uint32_t d = (uint32_t)(top >> 32);

		u = (uint32_t)top;
		if (d != s->dist[u])
			continue;
		for (e = t->out_off[u]; e < t->out_off[u + 1]; e++) {
			uint32_t l = t->out[e], v = t->link[l].dst;
			/* A link busy for a while costs its wait. */
			uint32_t wait =
			    s->busy[l] > now + d ? s->busy[l] - now - d : 0;
			uint32_t nd = d + wait + s->m->lat[l];

			if (nd < s->dist[v]) {
				s->dist[v] = nd;
				s->pred[v] = l;
				if ((rv = heap_push(
				         &s->dj, (uint64_t)nd << 32 | v)) != 0)
					return (rv);
			}
		}
	}
	return (0);
}

static int
propose(struct ten *s, uint32_t l, uint32_t k, uint32_t dist)
{
	struct cand *c;

	/* One candidate per (link, chunk): cand_of keeps the last chunk's
	 * entry per link, enough since chunks are searched one by one. */
	if (s->cand_of[l] && s->cands[s->cand_of[l] - 1].chunk == k) {
		c = &s->cands[s->cand_of[l] - 1];
		c->score++;
		if (dist < c->dist)
			c->dist = dist;
		return (0);
	}
	if (s->ncand == s->capcand) {
		size_t       nc = s->capcand ? 2 * s->capcand : 1024;
		struct cand *nv = realloc(s->cands, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		s->cands = nv;
		s->capcand = nc;
	}
	s->cands[s->ncand++] = (struct cand){l, k, 1, s->need[k], dist};
	s->cand_of[l] = (uint32_t)s->ncand;
	return (0);
}

static void unreachable(struct ten *, uint32_t, uint32_t, char *, size_t);

/* Every target of chunk k proposes the first hop of its path. */
static int
targets(struct ten *s, uint32_t k, uint32_t now, uint32_t inflight, char *err,
        size_t errlen)
{
	const struct topo *t = s->t;
	uint32_t           g;
	int                rv;

	for (g = 0; g < t->ngpu; g++) {
		uint32_t v = t->gpu_node[g], x = v, l = INF;

		if (has(s, v, k) || coming(s, v, k))
			continue;
		if (s->dist[v] == INF) {
			if (inflight == 0) {
				unreachable(s, k, v, err, errlen);
				return (-COLL_EUNREACH);
			}
			continue;
		}
		/* Back to the source: its first hop. */
		while (s->pred[x] != INF) {
			l = s->pred[x];
			x = t->link[l].src;
		}
		if (l == INF || !has(s, x, k) || s->busy[l] > now)
			continue;
		if ((rv = propose(s, l, k, s->dist[v])) != 0)
			return (rv);
	}
	return (0);
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->score != y->score)
		return (x->score > y->score ? -1 : 1);
	if (x->need != y->need)
		return (x->need > y->need ? -1 : 1);
	if (x->dist != y->dist)
		return (x->dist < y->dist ? -1 : 1);
	if (x->link != y->link)
		return (x->link < y->link ? -1 : 1);
	return (x->chunk < y->chunk ? -1 : x->chunk > y->chunk);
}

/* Name a target no source can reach. */
static void
unreachable(struct ten *s, uint32_t k, uint32_t v, char *err, size_t len)
{
	snprintf(err, len,
	         "%s cannot receive chunk %u of %s: no path from any node "
	         "that holds it",
	         s->t->node[v].name, k % s->m->chunks,
	         s->t->node[tsyn_owner(s->m, k)].name);
}

static void
ten_free(struct ten *s)
{
	free(s->hold);
	free(s->to);
	free(s->busy);
	free(s->need);
	free(s->dist);
	free(s->pred);
	free(s->cand_of);
	free(s->dirty);
	free(s->cands);
	heap_free(&s->arr);
	heap_free(&s->dj);
	free(s->landing);
	free(s->land);
}

static int
ten_init(struct ten *s, const struct tsyn_model *m)
{
	const struct topo *t = m->t;
	uint32_t           k;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->t = t;
	s->w = bs_words(m->nchunk);
	s->hold = calloc((size_t)t->n * s->w, sizeof(uint64_t));
	s->to = calloc((size_t)t->n * s->w, sizeof(uint64_t));
	s->busy = calloc(t->nlink, sizeof(uint32_t));
	s->need = calloc(m->nchunk, sizeof(uint32_t));
	s->dist = calloc(t->n, sizeof(uint32_t));
	s->pred = calloc(t->n, sizeof(uint32_t));
	s->cand_of = calloc(t->nlink, sizeof(uint32_t));
	s->dirty = calloc(m->nchunk, 1);
	s->landing = calloc((size_t)t->n * m->nchunk, sizeof(uint32_t));
	s->land = calloc(t->n, sizeof(uint32_t));
	if (!s->hold || !s->to || !s->busy || !s->need || !s->dist ||
	    !s->pred || !s->cand_of || !s->dirty || !s->landing || !s->land)
		return (-ENOMEM);
	for (k = 0; k < m->nchunk; k++) {
		bs_set(s->hold + tsyn_owner(m, k) * s->w, k);
		s->need[k] = t->ngpu - 1;
	}
	s->missing = (uint64_t)t->ngpu * (t->ngpu - 1) * m->chunks;
	return (0);
}

/* The copies that land in slot now. */
static void
arrivals(struct ten *s, uint32_t now)
{
	uint32_t n = s->m->nchunk;

	while (s->arr.n > 0 && (uint32_t)(s->arr.v[0] >> 32) <= now) {
		uint64_t a = heap_pop(&s->arr);
		uint32_t v = (uint32_t)a / n, k = (uint32_t)a % n;

		bs_set(s->hold + v * s->w, k);
		s->inflight--;
		if (s->t->node[v].kind == TOPO_GPU)
			s->missing--;
	}
}

/* Search every dirty chunk's paths and gather their candidates. */
static int
search_dirty(struct ten *s, uint32_t now, char *err, size_t errlen)
{
	const struct tsyn_model *m = s->m;
	uint32_t                 k, u;
	int                      rv;

	s->ncand = 0;
	memset(s->cand_of, 0, s->t->nlink * sizeof(uint32_t));
	for (k = 0; k < m->nchunk; k++) {
		if (!s->dirty[k])
			continue;
		s->dirty[k] = 0;
		for (u = 0; u < s->t->n; u++)
			s->land[u] =
			    coming(s, u, k)
			        ? s->landing[(size_t)u * m->nchunk + k]
			        : 0;
		if ((rv = search(s, k, now, s->land)) != 0 ||
		    (rv = targets(s, k, now, s->inflight, err, errlen)) != 0)
			return (rv);
	}
	qsort(s->cands, s->ncand, sizeof(*s->cands), cmp_cand);
	return (0);
}

/*
 * Send the candidates of this slot in order.  *again: a chunk went over
 * a slow link and is to be searched again; *lost: one lost its link to
 * another chunk; *sent: something was sent.
 */
static int
send_cands(struct ten *s, struct tsyn_plan *p, uint32_t now, int *again,
           int *lost, int *sent)
{
	const struct tsyn_model *m = s->m;
	const struct topo       *t = s->t;
	size_t                   i;
	int                      rv;

	for (i = 0; i < s->ncand; i++) {
		const struct cand *c = &s->cands[i];
		uint32_t           v = t->link[c->link].dst;
		uint32_t           at = now + m->lat[c->link];

		if (s->dirty[c->chunk])
			continue;
		if (s->busy[c->link] > now) {
			/* Lost its link to another chunk this slot: look
			 * for another way. */
			s->dirty[c->chunk] = 1;
			*lost = 1;
			continue;
		}
		if (has(s, v, c->chunk) || coming(s, v, c->chunk))
			continue;
		if ((rv = tsyn_plan_add(p, now, c->link, c->chunk)) != 0 ||
		    (rv = heap_push(&s->arr,
		                    (uint64_t)at << 32 |
		                        (v * m->nchunk + c->chunk))) != 0)
			return (rv);
		s->busy[c->link] = now + m->occ[c->link];
		bs_set(s->to + v * s->w, c->chunk);
		s->landing[(size_t)v * m->nchunk + c->chunk] = at;
		if (t->node[v].kind == TOPO_GPU)
			s->need[c->chunk]--;
		s->inflight++;
		s->last = at > s->last ? at : s->last;
		*sent = 1;
		if (m->occ[c->link] > 1 && s->need[c->chunk]) {
			s->dirty[c->chunk] = 1;
			*again = 1;
		}
	}
	return (0);
}

/* The slot after now where something can change. */
static uint32_t
next_event(const struct ten *s, uint32_t now)
{
	uint32_t next = INF, i;

	if (s->arr.n > 0)
		next = (uint32_t)(s->arr.v[0] >> 32);
	for (i = 0; i < s->t->nlink; i++)
		if (s->busy[i] > now && s->busy[i] < next)
			next = s->busy[i];
	return (next);
}

static int
tsyn_ten(const struct tsyn_model *m, struct tsyn_plan *p, char *err,
         size_t errlen)
{
	const struct topo *t = m->t;
	struct ten         s;
	uint32_t           now = 0, k, rounds = 0;
	int                rv = 0;

	memset(p, 0, sizeof(*p));
	if ((uint64_t)t->n * m->nchunk > (1u << 26)) {
		snprintf(err, errlen, "%u nodes x %u chunks: too many", t->n,
		         m->nchunk);
		return (-COLL_ETOOBIG);
	}
	if ((rv = ten_init(&s, m)) != 0)
		goto out;
	while (s.missing > 0) {
		if (m->progress && (++rounds & 63) == 0)
			m->progress(m->progress_arg,
			            1.0 - (double)s.missing /
			                      ((double)t->ngpu *
			                       (t->ngpu - 1) * m->chunks));
		arrivals(&s, now);
		if (s.missing == 0)
			break;
		/* Candidates, chunk by chunk; a chunk sent over a slow link
		 * is searched again in the same slot, so the copy on its way
		 * is seen before a second one takes another slow link. */
		for (k = 0; k < m->nchunk; k++)
			s.dirty[k] = s.need[k] > 0;
		for (;;) {
			int again = 0, lost = 0, sent = 0;

			if ((rv = search_dirty(&s, now, err, errlen)) != 0 ||
			    (rv = send_cands(&s, p, now, &again, &lost,
			                     &sent)) != 0)
				goto out;
			/* Again while the last round sent something. */
			if (!(again || (lost && sent)))
				break;
		}
		if ((rv = tsyn_advance(&now, next_event(&s, now), err,
		                       errlen)) != 0)
			goto out;
	}
	p->slots = s.last;
out:
	ten_free(&s);
	if (rv != 0)
		tsyn_plan_free(p);
	return (rv);
}

const struct tsyn_ops tsyn_ten_ops = {
    .name = "ten",
    .reduces = 1,
    .allgather = tsyn_ten,
};
