/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Topology synthesis: the dispatch to the algorithms (an ops table, as
 * a2a.c's) and the making of the IR from an AllGather plan; ReduceScatter
 * is the plan of the reversed topology played backwards, AllReduce the
 * two in a row.  The helpers the algorithms share are in tsyn_lib.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"

/* The algorithms, by their number in enum tsyn_algo. */
static const struct tsyn_ops *const tsyn_algos[] = {
    [TSYN_TEN] = &tsyn_ten_ops,         [TSYN_MTEG] = &tsyn_mteg_ops,
    [TSYN_SCALECC] = &tsyn_scalecc_ops, [TSYN_SPH] = &tsyn_sph_ops,
    [TSYN_RING] = &tsyn_ring_ops,       [TSYN_SPT] = &tsyn_spt_ops,
};
#define TSYN_NALGOS (sizeof(tsyn_algos) / sizeof(tsyn_algos[0]))

static const struct tsyn_ops *
ops_of(enum tsyn_algo a)
{
	return ((size_t)a < TSYN_NALGOS ? tsyn_algos[a] : NULL);
}

int
tsyn_algo_parse(const char *s, enum tsyn_algo *a)
{
	size_t i;

	for (i = 0; i < TSYN_NALGOS; i++)
		if (strcmp(s, tsyn_algos[i]->name) == 0) {
			*a = (enum tsyn_algo)i;
			return (0);
		}
	return (-COLL_EALGO);
}

const char *
tsyn_algo_name(enum tsyn_algo a)
{
	return (ops_of(a) ? ops_of(a)->name : "?");
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

uint16_t
tsyn_out_port(const struct topo *t, uint32_t l)
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
			struct sched_seg        seg = {
			           .node = l->src,
			           .port = tsyn_out_port(t, p->v[i].link),
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
	const struct tsyn_ops *ops = ops_of(q->algo);
	struct tsyn_model      m;
	struct tsyn_plan       ag = {0}, rs = {0};
	struct topo            rt;
	uint32_t               u, maxdeg = 1;
	int                    rv;

	memset(s, 0, sizeof(*s));
	if (q->coll != SCHED_ALLGATHER && q->coll != SCHED_REDUCESCATTER &&
	    q->coll != SCHED_ALLREDUCE) {
		snprintf(err, errlen, "not a collective for a topology");
		return (-EINVAL);
	}
	if (ops == NULL) {
		snprintf(err, errlen, "unknown algorithm %d", (int)q->algo);
		return (-COLL_EALGO);
	}
	if (!ops->reduces && q->coll != SCHED_ALLGATHER) {
		snprintf(err, errlen, "%s synthesises AllGather only (%s)",
		         ops->name, ops->why_not);
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
	    (rv = ops->allgather(&m, &ag, err, errlen)) != 0)
		goto out;
	if (q->coll != SCHED_ALLGATHER) {
		struct tsyn_model rm = m;

		if ((rv = reversed(t, &rt)) != 0)
			goto out;
		rm.t = &rt;
		rv = ops->allgather(&rm, &rs, err, errlen);
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
