/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checking and timing topology schedules (tsyn.h).  The checker replays
 * the slots: data lands L slots after a send starts, a link starts a new
 * chunk only occ slots after the previous one; for reductions it carries
 * the set of GPUs whose contribution each partial sum holds, so a sum that
 * would count a GPU twice, or an owner left without every contribution,
 * is caught with the slot, link and chunk named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"

#define NEVER UINT32_MAX

struct vstate {
	const struct sched *s;
	const struct topo  *t;
	struct tsyn_model   m;
	uint32_t           *start; /* [nlink]: last start slot + 1 (0 none) */
	/* AllGather: when node u holds chunk k (NEVER if it does not). */
	uint32_t *at; /* [n * nchunk] */
	/* ReduceScatter: contributor sets, landing by slot. */
	size_t    gw;    /* words of a GPU set */
	uint64_t *acc;   /* [n * nchunk * gw]: merged so far */
	uint32_t *ready; /* [n * nchunk]: AllGather: head of the copy lands */
	struct pend {
		uint32_t  slot, node, chunk;
		uint64_t *set;
	} * pend;
	size_t npend, cappend;
};

static void
vfree(struct vstate *v)
{
	size_t i;

	for (i = 0; i < v->npend; i++)
		free(v->pend[i].set);
	free(v->pend);
	free(v->start);
	free(v->at);
	free(v->acc);
	free(v->ready);
	tsyn_model_free(&v->m);
}

/* The link of a one-hop transfer, or -1. */
static int64_t
xfer_link(const struct sched *s, const struct sched_xfer *x)
{
	const struct topo      *t = s->topo;
	const struct sched_seg *g = &s->seg[x->seg_off];
	uint32_t                l;

	if (x->nseg != 1 || g->hops != 1 || g->node != x->src ||
	    x->src >= t->n ||
	    g->port >= t->out_off[x->src + 1] - t->out_off[x->src])
		return (-1);
	l = t->out[t->out_off[x->src] + g->port];
	return (t->link[l].dst == x->dst ? (int64_t)l : -1);
}

/* Common checks of one transfer: its link, its block, the link free. */
static int
hop(struct vstate *v, uint32_t slot, const struct sched_xfer *x,
    uint32_t *link, uint32_t *chunk, char *err, size_t len)
{
	const struct sched *s = v->s;
	int64_t             l = xfer_link(s, x);

	if (l < 0) {
		snprintf(err, len,
		         "slot %u: transfer %u -> %u is not one hop "
		         "on a link",
		         slot, x->src, x->dst);
		return (-COLL_EPATH);
	}
	if (x->nblk != 1 || s->blk[x->blk_off] >= v->m.nchunk) {
		snprintf(err, len,
		         "slot %u: link %s -> %s: one chunk per "
		         "transfer",
		         slot, v->t->node[x->src].name,
		         v->t->node[x->dst].name);
		return (-COLL_ELINK);
	}
	if (v->start[l] && v->start[l] - 1 + v->m.occ[l] > slot) {
		snprintf(err, len,
		         "slot %u: link %s -> %s still carries the chunk "
		         "started in slot %u",
		         slot, v->t->node[x->src].name,
		         v->t->node[x->dst].name, v->start[l] - 1);
		return (-COLL_ELINK);
	}
	v->start[l] = slot + 1;
	*link = (uint32_t)l;
	*chunk = s->blk[x->blk_off];
	return (0);
}

static const char *
chunk_name(const struct vstate *v, uint32_t k, char *buf, size_t len)
{
	snprintf(buf, len, "chunk %u of %s", k % v->m.chunks,
	         v->t->node[tsyn_owner(&v->m, k)].name);
	return (buf);
}

/*
 * May u send chunk k on link l in slot d?  Store-and-forward: once it has
 * landed.  A border router cuts through: from the slot the head arrives
 * (the incoming copy's latency less its transmission), as long as the
 * outgoing copy does not end before the incoming one does.
 */
static int
may_send(const struct vstate *v, uint32_t u, uint32_t k, uint32_t d,
         uint32_t l)
{
	size_t i = (size_t)u * v->m.nchunk + k;

	if (v->at[i] <= d)
		return (1);
	return (v->t->node[u].kind == TOPO_ROUTER && v->at[i] != NEVER &&
	        v->ready[i] <= d && d + v->m.occ[l] >= v->at[i]);
}

/* AllGather over phases [from, to), owners holding from `from`. */
static int
check_ag(struct vstate *v, uint32_t from, uint32_t to, uint32_t *done,
         char *err, size_t len)
{
	const struct sched *s = v->s;
	const struct topo  *t = v->t;
	uint32_t            ph, i, k, g, link, chunk, last = from;
	char                cn[96];
	int                 rv;

	for (i = 0; i < (size_t)t->n * v->m.nchunk; i++)
		v->at[i] = NEVER;
	for (k = 0; k < v->m.nchunk; k++)
		v->at[(size_t)tsyn_owner(&v->m, k) * v->m.nchunk + k] = from;
	for (ph = from; ph < to; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		for (i = 0; i < p->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];
			uint32_t                *dst;

			if ((rv = hop(v, ph, x, &link, &chunk, err, len)) != 0)
				return (rv);
			if (!may_send(v, x->src, chunk, ph, link)) {
				snprintf(err, len,
				         "slot %u: %s sends %s, which it does "
				         "not hold yet",
				         ph, t->node[x->src].name,
				         chunk_name(v, chunk, cn, sizeof(cn)));
				return (-COLL_ENOTHELD);
			}
			dst = &v->at[(size_t)x->dst * v->m.nchunk + chunk];
			if (ph + v->m.lat[link] < *dst) {
				*dst = ph + v->m.lat[link];
				v->ready[(size_t)x->dst * v->m.nchunk +
				         chunk] =
				    ph + v->m.lat[link] - v->m.occ[link];
			}
		}
	}
	for (g = 0; g < t->ngpu; g++)
		for (k = 0; k < v->m.nchunk; k++) {
			uint32_t a =
			    v->at[(size_t)t->gpu_node[g] * v->m.nchunk + k];

			if (a == NEVER) {
				snprintf(err, len, "%s never receives %s",
				         t->node[t->gpu_node[g]].name,
				         chunk_name(v, k, cn, sizeof(cn)));
				return (-COLL_EUNDELIVERED);
			}
			last = a > last ? a : last;
		}
	*done = last;
	return (0);
}

static uint64_t *
accset(struct vstate *v, uint32_t u, uint32_t k)
{
	return (v->acc + ((size_t)u * v->m.nchunk + k) * v->gw);
}

/* Merge a landed partial sum into node u's. */
static int
merge(struct vstate *v, const struct pend *p, char *err, size_t len)
{
	uint64_t *a = accset(v, p->node, p->chunk);
	size_t    w;
	char      cn[96];

	for (w = 0; w < v->gw; w++) {
		if (a[w] & p->set[w]) {
			snprintf(err, len,
			         "slot %u: %s adds a contribution to %s that "
			         "its sum already holds",
			         p->slot, v->t->node[p->node].name,
			         chunk_name(v, p->chunk, cn, sizeof(cn)));
			return (-COLL_EREDUCE);
		}
		a[w] |= p->set[w];
	}
	return (0);
}

static int
cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	return (x->slot < y->slot ? -1 : x->slot > y->slot);
}

/* ReduceScatter over phases [0, to). */
static int
check_rs(struct vstate *v, uint32_t to, uint32_t *done, char *err, size_t len)
{
	const struct sched *s = v->s;
	const struct topo  *t = v->t;
	uint32_t            ph, i, k, g, link, chunk, last = 0;
	size_t              nextp = 0;
	char                cn[96];
	int                 rv;

	for (g = 0; g < t->ngpu; g++)
		for (k = 0; k < v->m.nchunk; k++)
			bs_set(accset(v, t->gpu_node[g], k), g);
	for (ph = 0; ph < to; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		/* What landed by now is in the sums. */
		if (v->npend > nextp)
			qsort(v->pend + nextp, v->npend - nextp,
			      sizeof(*v->pend), cmp_pend);
		while (nextp < v->npend && v->pend[nextp].slot <= ph)
			if ((rv = merge(v, &v->pend[nextp++], err, len)) != 0)
				return (rv);
		for (i = 0; i < p->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];
			struct pend             *np;

			if ((rv = hop(v, ph, x, &link, &chunk, err, len)) != 0)
				return (rv);
			if (v->npend == v->cappend) {
				size_t nc = v->cappend ? 2 * v->cappend : 256;

				np = realloc(v->pend, nc * sizeof(*np));
				if (np == NULL)
					return (-ENOMEM);
				v->pend = np;
				v->cappend = nc;
			}
			np = &v->pend[v->npend];
			np->set = malloc(v->gw * sizeof(uint64_t));
			if (np->set == NULL)
				return (-ENOMEM);
			memcpy(np->set, accset(v, x->src, chunk),
			       v->gw * sizeof(uint64_t));
			np->slot = ph + v->m.lat[link];
			np->node = x->dst;
			np->chunk = chunk;
			v->npend++;
			last = np->slot > last ? np->slot : last;
			/* The sender keeps its copy: sending it twice is
			 * caught where the two meet. */
		}
	}
	if (v->npend > nextp)
		qsort(v->pend + nextp, v->npend - nextp, sizeof(*v->pend),
		      cmp_pend);
	while (nextp < v->npend)
		if ((rv = merge(v, &v->pend[nextp++], err, len)) != 0)
			return (rv);
	for (k = 0; k < v->m.nchunk; k++) {
		const uint64_t *a = accset(v, tsyn_owner(&v->m, k), k);

		for (g = 0; g < t->ngpu; g++)
			if (!bs_get(a, g)) {
				snprintf(err, len,
				         "%s ends without the contribution of "
				         "%s to %s",
				         t->node[tsyn_owner(&v->m, k)].name,
				         t->node[t->gpu_node[g]].name,
				         chunk_name(v, k, cn, sizeof(cn)));
				return (-COLL_EUNDELIVERED);
			}
	}
	*done = last;
	return (0);
}

int
tsyn_validate(const struct sched *s, uint32_t *slots, char *err, size_t errlen)
{
	struct vstate v;
	uint32_t      rs_done = 0, ag_done = 0;
	int           rv;

	*slots = 0;
	if (s->topo == NULL || s->ngpu != s->topo->ngpu) {
		snprintf(err, errlen, "not a topology schedule");
		return (-EINVAL);
	}
	memset(&v, 0, sizeof(v));
	v.s = s;
	v.t = s->topo;
	if ((rv = tsyn_model_init(&v.m, s->topo, s->bytes, s->parts)) != 0) {
		snprintf(err, errlen, "bad chunk model: %s",
		         coll_strerror(rv));
		return (rv);
	}
	v.gw = bs_words(v.t->ngpu);
	v.start = calloc(v.t->nlink, sizeof(*v.start));
	v.at = calloc((size_t)v.t->n * v.m.nchunk, sizeof(*v.at));
	v.ready = calloc((size_t)v.t->n * v.m.nchunk, sizeof(*v.ready));
	if (s->coll != SCHED_ALLGATHER)
		v.acc = calloc((size_t)v.t->n * v.m.nchunk * v.gw,
		               sizeof(uint64_t));
	if (!v.start || !v.at || !v.ready ||
	    (s->coll != SCHED_ALLGATHER && !v.acc)) {
		vfree(&v);
		return (-ENOMEM);
	}
	switch (s->coll) {
	case SCHED_ALLGATHER:
		rv = check_ag(&v, 0, s->nph, &ag_done, err, errlen);
		*slots = ag_done;
		break;
	case SCHED_REDUCESCATTER:
		rv = check_rs(&v, s->nph, &rs_done, err, errlen);
		*slots = rs_done;
		break;
	case SCHED_ALLREDUCE:
		if (s->ag_from > s->nph) {
			snprintf(err, errlen,
			         "all-gather starts after the end");
			rv = -EINVAL;
			break;
		}
		rv = check_rs(&v, s->ag_from, &rs_done, err, errlen);
		if (rv == 0 && rs_done > s->ag_from) {
			snprintf(err, errlen,
			         "the reduce-scatter ends in slot %u, after "
			         "the all-gather starts (%u)",
			         rs_done, s->ag_from);
			rv = -COLL_ENOTHELD;
		}
		if (rv == 0)
			rv = check_ag(&v, s->ag_from, s->nph, &ag_done, err,
			              errlen);
		*slots = ag_done;
		break;
	default:
		snprintf(err, errlen, "not a topology collective");
		rv = -EINVAL;
	}
	vfree(&v);
	return (rv);
}

double
tsyn_replay_send(const struct tsyn_model *m, uint32_t l, uint32_t c, int copy,
                 double *have, double *head, double *free_at)
{
	const struct topo *t = m->t;
	size_t             si = (size_t)t->link[l].src * m->nchunk + c;
	size_t             di = (size_t)t->link[l].dst * m->nchunk + c;
	double             tx = m->mu / t->link[l].bw, st = have[si], arr;

	/* A router forwards a copy as its head comes in, but cannot finish
	 * before the tail is in. */
	if (copy && t->node[t->link[l].src].kind == TOPO_ROUTER &&
	    head[si] < st)
		st = head[si] > have[si] - tx ? head[si] : have[si] - tx;
	if (free_at[l] > st)
		st = free_at[l];
	free_at[l] = st + tx;
	arr = free_at[l] + t->link[l].alpha;
	/* A reduction waits for every partial; a copy takes the first. */
	if (copy && arr < have[di]) {
		have[di] = arr;
		head[di] = st + t->link[l].alpha;
	} else if (!copy && arr > have[di])
		have[di] = arr;
	return (arr);
}

double
tsyn_plan_replay(const struct tsyn_model *m, const struct tsyn_plan *p,
                 uint32_t *last)
{
	const struct topo *t = m->t;
	size_t             nh = (size_t)t->n * m->nchunk, i;
	double            *have = malloc(2 * nh * sizeof(*have));
	double            *free_at = calloc(t->nlink, sizeof(*free_at));
	double             done = 0, arr;
	uint32_t           k;

	if (have == NULL || free_at == NULL) {
		free(have);
		free(free_at);
		return (-1);
	}
	for (i = 0; i < 2 * nh; i++)
		have[i] = 1e300;
	for (k = 0; k < m->nchunk; k++)
		have[(size_t)tsyn_owner(m, k) * m->nchunk + k] = 0;
	for (i = 0; i < p->n; i++)
		if ((arr = tsyn_replay_send(m, p->v[i].link, p->v[i].chunk, 1,
		                            have, have + nh, free_at)) >
		    done) {
			done = arr;
			if (last != NULL)
				*last = p->v[i].chunk;
		}
	free(have);
	free(free_at);
	return (done);
}

double
tsyn_replay(const struct sched *s)
{
	const struct topo *t = s->topo;
	struct tsyn_model  m;
	double            *free_at, *have, *head, done = 0;
	uint32_t           ph, i, k, g;

	if (t == NULL || tsyn_model_init(&m, t, s->bytes, s->parts) != 0)
		return (-1);
	free_at = calloc(t->nlink, sizeof(*free_at));
	have = malloc((size_t)t->n * m.nchunk * sizeof(*have));
	head = malloc((size_t)t->n * m.nchunk * sizeof(*head));
	if (free_at == NULL || have == NULL || head == NULL) {
		free(free_at);
		free(have);
		free(head);
		tsyn_model_free(&m);
		return (-1);
	}
	/* "have" is when node u's copy (or partial sum) of k is ready. */
	for (i = 0; i < (size_t)t->n * m.nchunk; i++)
		head[i] = have[i] = s->coll == SCHED_ALLGATHER ? 1e300 : 0;
	for (k = 0; k < m.nchunk; k++)
		have[(size_t)tsyn_owner(&m, k) * m.nchunk + k] = 0;
	for (ph = 0; ph < s->nph; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		if (s->coll == SCHED_ALLREDUCE && ph == s->ag_from) {
			/* All-gather starts from the reduced owners. */
			for (g = 0; g < t->n; g++)
				for (k = 0; k < m.nchunk; k++)
					if (tsyn_owner(&m, k) != g)
						have[(size_t)g * m.nchunk +
						     k] = 1e300;
		}
		for (i = 0; i < p->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];
			int64_t                  l = xfer_link(s, x);
			uint32_t                 c = s->blk[x->blk_off];
			double                   arr;

			if (l < 0)
				continue;
			int copy =
			    s->coll == SCHED_ALLGATHER ||
			    (s->coll == SCHED_ALLREDUCE && ph >= s->ag_from);

			arr = tsyn_replay_send(&m, (uint32_t)l, c, copy, have,
			                       head, free_at);
			if (arr > done)
				done = arr;
		}
	}
	free(free_at);
	free(have);
	free(head);
	tsyn_model_free(&m);
	return (done);
}
