/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Topology synthesis: the slot model, the dispatch to the algorithms, and
 * the making of the IR from an AllGather plan; ReduceScatter is the plan
 * of the reversed topology played backwards, AllReduce the two in a row.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"

int
tsyn_plan_add(struct tsyn_plan *p, uint32_t slot, uint32_t link,
              uint32_t chunk)
{
	if (p->n == p->cap) {
		size_t            nc = p->cap ? 2 * p->cap : 256;
		struct tsyn_send *nv = realloc(p->v, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n++] = (struct tsyn_send){slot, link, chunk};
	return (0);
}

int
tsyn_advance(uint32_t *now, uint32_t next, char *err, size_t errlen)
{
	*now = next == UINT32_MAX || next <= *now ? *now + 1 : next;
	if (*now > TSYN_MAX_SLOTS) {
		snprintf(err, errlen, "more than %u slots", TSYN_MAX_SLOTS);
		return (-COLL_ETOOBIG);
	}
	return (0);
}

void
tsyn_plan_free(struct tsyn_plan *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int
tsyn_reachable(const struct topo *t, char *err, size_t errlen)
{
	uint32_t *q = malloc(t->n * sizeof(*q));
	uint8_t  *seen = malloc(t->n);
	uint32_t  g, h, head, tail, u, e;

	if (q == NULL || seen == NULL) {
		free(q);
		free(seen);
		return (-ENOMEM);
	}
	for (g = 0; g < t->ngpu; g++) {
		memset(seen, 0, t->n);
		head = tail = 0;
		q[tail++] = t->gpu_node[g];
		seen[t->gpu_node[g]] = 1;
		while (head < tail) {
			u = q[head++];
			for (e = t->out_off[u]; e < t->out_off[u + 1]; e++) {
				uint32_t v = t->link[t->out[e]].dst;

				if (!seen[v]) {
					seen[v] = 1;
					q[tail++] = v;
				}
			}
		}
		for (h = 0; h < t->ngpu; h++)
			if (!seen[t->gpu_node[h]]) {
				snprintf(err, errlen,
				         "%s cannot receive from %s: no path",
				         t->node[t->gpu_node[h]].name,
				         t->node[t->gpu_node[g]].name);
				free(q);
				free(seen);
				return (-COLL_EUNREACH);
			}
	}
	free(q);
	free(seen);
	return (0);
}

int
tsyn_model_init(struct tsyn_model *m, const struct topo *t, uint64_t bytes,
                uint32_t chunks)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	if (chunks < 1 || bytes == 0 || (uint64_t)t->ngpu * chunks > 1u << 20)
		return (-EINVAL);
	m->t = t;
	m->chunks = chunks;
	m->nchunk = t->ngpu * chunks;
	m->mu = (double)bytes / m->nchunk;
	m->tau = m->mu / t->bw_max;
	m->occ = calloc(t->nlink, sizeof(*m->occ));
	m->lat = calloc(t->nlink, sizeof(*m->lat));
	if (m->occ == NULL || m->lat == NULL) {
		tsyn_model_free(m);
		return (-ENOMEM);
	}
	for (i = 0; i < t->nlink; i++) {
		double a = t->link[i].alpha / m->tau;
		double o = ceil(t->bw_max / t->link[i].bw - 1e-9);

		if (a < TSYN_ALPHA_THRESHOLD)
			a = 0;
		if (o > 1e6 || a > 1e7) {
			tsyn_model_free(m);
			return (-COLL_ETOOBIG);
		}
		m->occ[i] = (uint32_t)o;
		m->lat[i] = (uint32_t)o + (uint32_t)ceil(a - 1e-9);
	}
	return (0);
}

void
tsyn_model_free(struct tsyn_model *m)
{
	free(m->occ);
	free(m->lat);
	memset(m, 0, sizeof(*m));
}

static const char *const algo_names[] = {
    [TSYN_TEN] = "ten", [TSYN_MTEG] = "mteg", [TSYN_SCALECC] = "scalecc",
    [TSYN_SPH] = "sph", [TSYN_RING] = "ring",
};

int
tsyn_algo_parse(const char *s, enum tsyn_algo *a)
{
	size_t i;

	for (i = 0; i < sizeof(algo_names) / sizeof(algo_names[0]); i++)
		if (strcmp(s, algo_names[i]) == 0) {
			*a = (enum tsyn_algo)i;
			return (0);
		}
	return (-COLL_EALGO);
}

const char *
tsyn_algo_name(enum tsyn_algo a)
{
	return ((size_t)a < sizeof(algo_names) / sizeof(algo_names[0])
	            ? algo_names[a]
	            : "?");
}

/* The reversed topology: every link turned around, same index. */
static int
reversed(const struct topo *t, struct topo *r)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	*r = *t;
	r->link = malloc(t->nlink * sizeof(*r->link));
	if (r->link == NULL)
		return (-ENOMEM);
	for (i = 0; i < t->nlink; i++) {
		r->link[i] = t->link[i];
		r->link[i].src = t->link[i].dst;
		r->link[i].dst = t->link[i].src;
	}
	/* The link lists swap roles. */
	r->out_off = t->in_off;
	r->out = t->in;
	r->in_off = t->out_off;
	r->in = t->out;
	return (0);
}

static int
plan_ag(const struct tsyn_model *m, enum tsyn_algo a, struct tsyn_plan *p,
        char *err, size_t errlen)
{
	switch (a) {
	case TSYN_TEN:
		return (tsyn_ten(m, p, err, errlen));
	case TSYN_SPH:
		return (tsyn_sph(m, p, err, errlen));
	case TSYN_MTEG:
		return (tsyn_mteg(m, p, err, errlen));
	case TSYN_SCALECC:
		return (tsyn_scalecc(m, p, err, errlen));
	case TSYN_RING:
		return (tsyn_ring(m, p, err, errlen));
	default:
		snprintf(err, errlen, "unknown algorithm %d", (int)a);
		return (-COLL_EALGO);
	}
}

static int cmp_send(const void *, const void *);

void
tsyn_plan_sort(struct tsyn_plan *p)
{
	qsort(p->v, p->n, sizeof(*p->v), cmp_send);
}

static int
cmp_send(const void *a, const void *b)
{
	const struct tsyn_send *x = a, *y = b;

	if (x->slot != y->slot)
		return (x->slot < y->slot ? -1 : 1);
	if (x->link != y->link)
		return (x->link < y->link ? -1 : 1);
	return (x->chunk < y->chunk ? -1 : x->chunk > y->chunk);
}

/* The port of link l at its source: its position in the out list. */
static uint16_t
port_of(const struct topo *t, uint32_t l)
{
	uint32_t u = t->link[l].src, k;

	for (k = t->out_off[u]; k < t->out_off[u + 1]; k++)
		if (t->out[k] == l)
			return ((uint16_t)(k - t->out_off[u]));
	return (0);
}

/* Append plan p (sorted) to s from slot `from`. */
static int
emit(struct sched *s, const struct topo *t, const struct tsyn_plan *p,
     uint32_t from)
{
	size_t   i = 0;
	uint32_t slot;
	int      rv;

	for (slot = 0; slot < p->slots; slot++) {
		if ((rv = sched_add_phase(s, 0, 0)) < 0)
			return (rv);
		for (; i < p->n && p->v[i].slot == slot; i++) {
			const struct topo_link *l = &t->link[p->v[i].link];
			struct sched_seg        seg = {.node = l->src,
			                               .port =
			                                   port_of(t, p->v[i].link),
			                               .hops = 1};

			if ((rv = sched_add_xfer(s, l->src, l->dst,
			                         &p->v[i].chunk, 1, &seg,
			                         1)) != 0)
				return (rv);
		}
	}
	(void)from;
	return (0);
}

/* Backwards in time on the reversed links: AllGather into ReduceScatter. */
static void
reverse_plan(const struct tsyn_model *m, struct tsyn_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		p->v[i].slot =
		    p->slots - (p->v[i].slot + m->lat[p->v[i].link]);
	tsyn_plan_sort(p);
}

int
tsyn_synth(const struct topo *t, const struct tsyn_params *q, struct sched *s,
           char *err, size_t errlen)
{
	struct tsyn_model m;
	struct tsyn_plan  ag = {0}, rs = {0};
	struct topo       rt;
	uint32_t          u, maxdeg = 1;
	int               rv;

	memset(s, 0, sizeof(*s));
	if (q->coll != SCHED_ALLGATHER && q->coll != SCHED_REDUCESCATTER &&
	    q->coll != SCHED_ALLREDUCE) {
		snprintf(err, errlen, "not a collective for a topology");
		return (-EINVAL);
	}
	if (q->algo == TSYN_SCALECC && q->coll != SCHED_ALLGATHER) {
		/* Its border routers cut through, which does not run
		 * backwards into a reduction. */
		snprintf(err, errlen,
		         "scalecc synthesises AllGather only (SCALE-CCL has "
		         "no reduction)");
		return (-COLL_EALGO);
	}
	if ((rv = tsyn_model_init(&m, t, q->bytes, q->chunks)) != 0) {
		snprintf(err, errlen, "%s",
		         rv == -EINVAL
		             ? "chunks must be 1..1M / GPUs and bytes "
		               "> 0"
		             : coll_strerror(rv));
		return (rv);
	}
	m.progress = q->progress;
	m.progress_arg = q->progress_arg;
	if (q->coll != SCHED_REDUCESCATTER &&
	    (rv = plan_ag(&m, q->algo, &ag, err, errlen)) != 0)
		goto out;
	if (q->coll != SCHED_ALLGATHER) {
		struct tsyn_model rm = m;

		if ((rv = reversed(t, &rt)) != 0)
			goto out;
		rm.t = &rt;
		rv = plan_ag(&rm, q->algo, &rs, err, errlen);
		free(rt.link);
		if (rv != 0)
			goto out;
		reverse_plan(&m, &rs);
	}
	for (u = 0; u < t->n; u++)
		if (t->out_off[u + 1] - t->out_off[u] > maxdeg)
			maxdeg = t->out_off[u + 1] - t->out_off[u];
	if ((rv = sched_init(s, tsyn_algo_name(q->algo), q->coll, t->n, maxdeg,
	                     q->chunks, q->bytes)) != 0)
		goto out;
	s->topo = t;
	s->ngpu = t->ngpu;
	s->slot_s = m.tau;
	s->horizon = ag.horizon > rs.horizon ? ag.horizon : rs.horizon;
	if (q->coll != SCHED_ALLGATHER && (rv = emit(s, t, &rs, 0)) != 0)
		goto out;
	s->ag_from = q->coll == SCHED_ALLREDUCE ? rs.slots : 0;
	if (q->coll != SCHED_REDUCESCATTER &&
	    (rv = emit(s, t, &ag, s->ag_from)) != 0)
		goto out;
out:
	if (rv != 0) {
		if (rv == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		sched_free(s);
	}
	tsyn_plan_free(&ag);
	tsyn_plan_free(&rs);
	tsyn_model_free(&m);
	return (rv);
}
