/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mteg's plan refined by rip-up and re-lay (ruin and recreate).  The
 * deadline search lays the trees one after another from scratch, and on
 * AMD (one 200 GB/s partner a GPU, the rest 2-4 slots a chunk) the
 * trees laid first keep link-slots the last ones need, whatever the
 * order: it ended 1-2 slots behind ten.  Here every tree keeps its
 * link-slots and the plan is made shorter a slot at a time: with target
 * one slot before the plan's end, a tree that ends past it is taken up
 * with up to three others at random, and each is laid again by the
 * target if it can (the late one first), else by the plan's end.  The
 * move is kept if the trees' total lateness past the target did not
 * grow (plateaus are walked), and undone otherwise.  When no tree is
 * late the plan is kept and the target moves a slot earlier; the search
 * ends after a few hundred moves without the lateness falling.  Then
 * the same slots are polished for the real-time replay (see polish).
 * Deterministic: a fixed seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/tsyn_mteg_int.h"

#define RUIN 4 /* trees taken up in one move, at most */
/* Moves without progress before the search ends: 512 up to 16 GPUs,
 * fewer as a move's cost grows with the trees, 64 from 64 GPUs.  On the
 * shipped topologies every gain but one came within 400; AMD with four
 * chunks gains one slot more (40, not 41) if 2000 are allowed. */
#define STALE(ngpu) ((ngpu) <= 16 ? 512 : (ngpu) >= 64 ? 64 : 4096 / (ngpu))

struct refine {
	struct mteg      *g;
	uint32_t          nchunk;
	struct tsyn_plan *tree, *bak;   /* [nchunk]: each tree; the undo */
	uint32_t         *done, *bdone; /* [nchunk]: its last arrival */
	uint32_t          ruin[RUIN];
	struct tsyn_plan  cur; /* the trees as one plan (polish) */
	uint64_t          rng; /* xorshift64 */
};

static uint32_t
rnd(struct refine *r, uint32_t n)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return ((uint32_t)(r->rng % n));
}

/* Reserve (on) or free a tree's link-slots. */
static void
reserve(struct mteg *g, const struct tsyn_plan *tr, int on)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		memset(g->used + (size_t)tr->v[i].link * g->stride +
		           tr->v[i].slot,
		       on, g->m->occ[tr->v[i].link]);
}

/* Tree k laid afresh by deadline H: 0; 1 if it does not fit (nothing of
 * it is left reserved); or -ENOMEM. */
static int
lay(struct refine *r, uint32_t k, uint32_t H)
{
	int rv;

	r->g->H = H;
	r->tree[k].n = 0;
	r->done[k] = 0;
	if ((rv = mteg_broadcast(r->g, k, &r->tree[k], &r->done[k])) == 1) {
		reserve(r->g, &r->tree[k], 0);
		r->tree[k].n = 0;
	}
	return (rv);
}

/* Slots past target, summed over the trees. */
static uint64_t
lateness(const struct refine *r, uint32_t target)
{
	uint64_t x = 0;
	uint32_t k;

	for (k = 0; k < r->nchunk; k++)
		if (r->done[k] > target)
			x += r->done[k] - target;
	return (x);
}

/* The trees ruin[0..nr) taken up (kept in bak for the undo). */
static void
take_up(struct refine *r, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr; i++) {
		uint32_t         k = r->ruin[i];
		struct tsyn_plan x = r->tree[k];

		reserve(r->g, &x, 0);
		r->tree[k] = r->bak[k];
		r->tree[k].n = 0;
		r->bak[k] = x;
		r->bdone[k] = r->done[k];
	}
}

/* The trees ruin[0..nr) back as they were before take_up.  All the new
 * ones are freed first: they may hold the old ones' slots. */
static void
undo(struct refine *r, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr; i++)
		reserve(r->g, &r->tree[r->ruin[i]], 0);
	for (i = 0; i < nr; i++) {
		uint32_t         k = r->ruin[i];
		struct tsyn_plan x = r->tree[k];

		r->tree[k] = r->bak[k];
		r->bak[k] = x;
		r->done[k] = r->bdone[k];
		reserve(r->g, &r->tree[k], 1);
	}
}

/* The trees ruin[0..nr) taken up and each laid again by target, else by
 * hmax: 0; 1 if one fits neither (all undone); or -ENOMEM. */
static int
relay(struct refine *r, uint32_t nr, uint32_t target, uint32_t hmax)
{
	uint32_t i;
	int      rv = 0;

	mteg_cost(r->g, rnd(r, MTEG_NCOST));
	take_up(r, nr);
	for (i = 0; i < nr && rv == 0; i++)
		if ((rv = lay(r, r->ruin[i], target)) == 1)
			rv = lay(r, r->ruin[i], hmax);
	if (rv == 1)
		undo(r, nr);
	return (rv);
}

/* One move of the search, kept if the lateness did not grow: 0 or
 * -ENOMEM. */
static int
move(struct refine *r, uint32_t nr, uint32_t target, uint32_t hmax)
{
	uint64_t before = lateness(r, target);
	int      rv;

	if ((rv = relay(r, nr, target, hmax)) < 0)
		return (rv);
	if (rv == 0 && lateness(r, target) > before)
		undo(r, nr);
	return (0);
}

/* The trees of plan p, reserved. */
static int
split(struct refine *r, const struct tsyn_plan *p)
{
	const struct tsyn_model *m = r->g->m;
	size_t                   i;
	int                      rv;

	memset(r->g->used, 0, (size_t)r->g->t->nlink * r->g->stride);
	for (i = 0; i < p->n; i++) {
		const struct tsyn_send *s = &p->v[i];
		uint32_t                a = s->slot + m->lat[s->link];

		if ((rv = tsyn_plan_add(&r->tree[s->chunk], s->slot, s->link,
		                        s->chunk)) != 0)
			return (rv);
		if (a > r->done[s->chunk])
			r->done[s->chunk] = a;
	}
	for (i = 0; i < r->nchunk; i++)
		reserve(r->g, &r->tree[i], 1);
	return (0);
}

/* The trees, none late for deadline H, as plan p. */
static int
gather(struct refine *r, struct tsyn_plan *p, uint32_t H)
{
	uint32_t k;
	size_t   i;
	int      rv;

	p->n = 0;
	p->slots = 0;
	p->horizon = H;
	for (k = 0; k < r->nchunk; k++) {
		for (i = 0; i < r->tree[k].n; i++)
			if ((rv = tsyn_plan_add(p, r->tree[k].v[i].slot,
			                        r->tree[k].v[i].link, k)) != 0)
				return (rv);
		if (r->done[k] > p->slots)
			p->slots = r->done[k];
	}
	return (0);
}

/* ruin[0] = first, then up to RUIN - 1 other trees at random; how many
 * in all. */
static uint32_t
with_others(struct refine *r, uint32_t first)
{
	uint32_t n = 1 + rnd(r, RUIN < r->nchunk ? RUIN : r->nchunk), i, j, x;

	r->ruin[0] = first;
	for (i = 1; i < n;) {
		x = rnd(r, r->nchunk);
		for (j = 0; j < i && r->ruin[j] != x; j++)
			;
		if (j == i)
			r->ruin[i++] = x;
	}
	return (n);
}

/* A late tree (at random) and others; how many in all. */
static uint32_t
pick(struct refine *r, uint32_t target)
{
	uint32_t n = 0, k, i;

	for (k = 0; k < r->nchunk; k++)
		n += r->done[k] > target;
	if (n == 0) /* not called so: the search stops at no lateness */
		return (0);
	for (i = rnd(r, n), k = 0;; k++)
		if (r->done[k] > target && i-- == 0)
			break;
	return (with_others(r, k));
}

/* No plan ends before the farthest GPU from a chunk's owner, in slots
 * of delivery (Dijkstra on the links' slot latencies from each GPU): a
 * target below that is not tried.  0 if out of memory (no bound). */
static uint32_t
floor_slots(const struct mteg *g)
{
	const struct topo *t = g->t;
	uint32_t          *d = malloc(t->n * sizeof(*d)), worst = 0, s, u, e;
	struct heap        h = {0};

	for (s = 0; d != NULL && s < t->ngpu; s++) {
		for (u = 0; u < t->n; u++)
			d[u] = UINT32_MAX;
		d[t->gpu_node[s]] = 0;
		h.n = 0;
		if (heap_push(&h, t->gpu_node[s]) != 0)
			break;
		while (h.n > 0) {
			uint64_t k = heap_pop(&h);

			u = (uint32_t)k;
			if (k >> 32 != d[u])
				continue;
			for (e = t->out_off[u]; e < t->out_off[u + 1]; e++) {
				uint32_t l = t->out[e], v = t->link[l].dst;
				uint32_t x = d[u] + g->m->lat[l];

				if (x < d[v]) {
					d[v] = x;
					if (heap_push(&h, (uint64_t)x << 32 |
					                      v) != 0)
						goto out;
				}
			}
		}
		for (u = 0; u < t->ngpu; u++)
			if (d[t->gpu_node[u]] > worst)
				worst = d[t->gpu_node[u]];
	}
out:
	heap_free(&h);
	free(d);
	return (worst);
}

static int
search(struct refine *r, struct tsyn_plan *best)
{
	uint32_t hmax = best->slots, target = hmax - 1, stale = 0;
	uint32_t limit = STALE(r->g->t->ngpu), lb = floor_slots(r->g);
	uint64_t before;
	int      rv;

	if ((rv = split(r, best)) != 0)
		return (rv);
	while (target > 0 && target >= lb && stale < limit) {
		if ((before = lateness(r, target)) == 0) {
			if ((rv = gather(r, best, target)) != 0)
				return (rv);
			hmax = best->slots;
			target = hmax - 1;
			stale = 0;
			continue;
		}
		if ((rv = move(r, pick(r, target), target, hmax)) != 0)
			return (rv);
		stale = lateness(r, target) < before ? 0 : stale + 1;
	}
	return (0);
}

/* The trees as a plan in slot order, and its replay with the real rates
 * and latencies (*last: the chunk landing last).  0 or -ENOMEM. */
static int
replay(struct refine *r, uint32_t H, double *done, uint32_t *last)
{
	int rv;

	if ((rv = gather(r, &r->cur, H)) != 0)
		return (rv);
	tsyn_plan_sort(&r->cur);
	*done = tsyn_plan_replay(r->g->m, &r->cur, last);
	return (*done < 0 ? -ENOMEM : 0);
}

/*
 * The same slots, less real time.  Slots round a link's time up to
 * whole slots and leave out latencies under a tenth of one, so plans of
 * equal slots replay differently (wan3 at 1 GB: 0.8% apart).  The tree
 * that lands last in the replay is laid again with others, by the
 * plan's end, and the move kept if the replay is no later.
 */
static int
polish(struct refine *r, struct tsyn_plan *best)
{
	uint32_t H = best->slots, stale = 0, limit = STALE(r->g->t->ngpu) / 4;
	uint32_t last, l2, n;
	double   bt, cur, now;
	int      rv;

	tsyn_plan_sort(best);
	if ((bt = tsyn_plan_replay(r->g->m, best, NULL)) < 0)
		return (-ENOMEM);
	if ((rv = replay(r, H, &cur, &last)) != 0)
		return (rv);
	while (stale++ < limit) {
		if ((rv = relay(r, n = with_others(r, last), H, H)) < 0)
			return (rv);
		if (rv == 1)
			continue;
		if ((rv = replay(r, H, &now, &l2)) != 0)
			return (rv);
		if (now > cur) {
			undo(r, n);
			continue;
		}
		if (now < cur)
			stale = 0;
		cur = now;
		last = l2;
		if (now < bt) {
			struct tsyn_plan x = *best;

			*best = r->cur;
			r->cur = x;
			bt = now;
		}
	}
	return (0);
}

int
mteg_refine(struct mteg *g, struct tsyn_plan *best)
{
	struct refine r;
	uint32_t      k;
	int           rv = -ENOMEM;

	if (g->m->nchunk < 2 || best->slots < 2)
		return (0);
	memset(&r, 0, sizeof(r));
	r.g = g;
	r.nchunk = g->m->nchunk;
	r.rng = 0x9e3779b97f4a7c15ull;
	r.tree = calloc(r.nchunk, sizeof(*r.tree));
	r.bak = calloc(r.nchunk, sizeof(*r.bak));
	r.done = calloc(r.nchunk, sizeof(*r.done));
	r.bdone = calloc(r.nchunk, sizeof(*r.bdone));
	if (r.tree && r.bak && r.done && r.bdone &&
	    (rv = search(&r, best)) == 0)
		rv = polish(&r, best);
	tsyn_plan_free(&r.cur);
	for (k = 0; r.tree && r.bak && k < r.nchunk; k++) {
		tsyn_plan_free(&r.tree[k]);
		tsyn_plan_free(&r.bak[k]);
	}
	free(r.tree);
	free(r.bak);
	free(r.done);
	free(r.bdone);
	if (rv == 0 && g->m->progress)
		g->m->progress(g->m->progress_arg, 1.0);
	return (rv);
}
