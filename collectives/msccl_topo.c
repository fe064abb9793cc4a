/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSCCL XML of a topology schedule (AllGather, ReduceScatter, AllReduce;
 * sched.topo set).  MSCCL's ranks are GPUs, so a path through switches or
 * border routers becomes one send from the GPU that entered it to each
 * GPU it reaches; a switch's partial sum becomes its GPU parts, each
 * reduced at the GPU it reaches (the sum is the same).
 *
 * Every GPU-to-GPU transfer is keyed (first-hop slot, from, to, chunk),
 * and every dependency points to a smaller key (a send waits for the
 * write that brought its chunk, a reduction for the previous write of
 * its accumulator); the writer (msccl_xml.c) puts them in thread blocks
 * in key order, which cannot deadlock (msccl.h).
 *
 * Layout (out of place): AllGather input chunk c of rank g is chunk
 * g * C + c of every output; ReduceScatter input chunk k (ngpu * C of
 * them) is rank k / C's output chunk k % C; AllReduce input and output
 * both have every chunk.  Partial sums are kept in the owner's output
 * chunk, elsewhere in scratch chunks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl.h"
#include "collectives/msccl_int.h"
#include "collectives/topo.h"
#include "proto/base/errf.h"

#define MSCCL_MAX_GPUS 1024

struct tev {
	uint32_t slot, from, to, blk;
};

/* A GPU's part of what a switch holds: what it sent in at a slot. */
struct cst {
	uint32_t gpu, slot;
	int64_t  next;
};

struct tx {
	const struct sched *s;
	const struct topo  *t;
	uint32_t            ngpu, nb, C;
	/* Collapsing switches. */
	int32_t    *swi;  /* [t->n]: switch index, or -1 for a GPU */
	int64_t    *head; /* [nsw * nb]: constituents, -1 none */
	struct cst *pool;
	size_t      npool, cappool;
	struct tev *ev;
	size_t      nev, capev;
	/* Steps. */
	struct msteps v;
	uint32_t     *scratch; /* [ngpu] */
	struct mloc  *cur;     /* [ngpu * nb]: where the chunk is held */
	int64_t      *last;    /* [ngpu * nb]: the step that wrote it */
};

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc;
	void  *q;

	if (need <= *cap)
		return (0);
	nc = *cap ? 2 * *cap : 1024;
	if ((q = realloc(*p, nc * size)) == NULL)
		return (-ENOMEM);
	*p = q;
	*cap = nc;
	return (0);
}

static int
add_ev(struct tx *x, uint32_t slot, uint32_t from, uint32_t to, uint32_t b)
{
	if (from == to)
		return (0); /* back where it started: nothing to move */
	if (grow((void **)&x->ev, &x->capev, x->nev + 1, sizeof(*x->ev)))
		return (-ENOMEM);
	x->ev[x->nev++] = (struct tev){slot, from, to, b};
	return (0);
}

static int
add_cst(struct tx *x, uint32_t sw, uint32_t b, uint32_t gpu, uint32_t slot)
{
	int64_t *h = &x->head[(size_t)sw * x->nb + b];

	if (grow((void **)&x->pool, &x->cappool, x->npool + 1,
	         sizeof(*x->pool)))
		return (-ENOMEM);
	x->pool[x->npool] = (struct cst){gpu, slot, *h};
	*h = (int64_t)x->npool++;
	return (0);
}

/* One hop a -> d of chunk b at slot: GPU to GPU transfers, or parts
 * that a switch now holds too. */
static int
hop(struct tx *x, uint32_t slot, uint32_t a, uint32_t d, uint32_t b)
{
	int32_t ga = x->t->node[a].gpu, gd = x->t->node[d].gpu;
	int64_t k;
	int     rv = 0;

	if (ga >= 0)
		return (gd >= 0
		            ? add_ev(x, slot, (uint32_t)ga, (uint32_t)gd, b)
		            : add_cst(x, (uint32_t)x->swi[d], b, (uint32_t)ga,
		                      slot));
	for (k = x->head[(size_t)x->swi[a] * x->nb + b]; k >= 0 && rv == 0;
	     k = x->pool[k].next) {
		struct cst c = x->pool[k];

		rv = gd >= 0
		         ? add_ev(x, c.slot, c.gpu, (uint32_t)gd, b)
		         : add_cst(x, (uint32_t)x->swi[d], b, c.gpu, c.slot);
	}
	return (rv);
}

/* Every transfer of the IR as GPU-to-GPU transfers, in key order. */
static int cmp_ev(const void *, const void *);

static int
collapse(struct tx *x)
{
	const struct sched *s = x->s;
	uint32_t            ph, i, j, nsw = 0, u;
	int                 rv = 0;

	for (u = 0; u < x->t->n; u++)
		x->swi[u] = x->t->node[u].gpu >= 0 ? -1 : (int32_t)nsw++;
	if ((x->head = malloc(((size_t)nsw * x->nb + 1) * sizeof(*x->head))) ==
	    NULL)
		return (-ENOMEM);
	for (ph = 0; ph < s->nph && rv == 0; ph++) {
		const struct sched_phase *p = &s->ph[ph];

		/* AllReduce's gather starts afresh in the switches. */
		if (ph == 0 ||
		    (s->coll == SCHED_ALLREDUCE && ph == s->ag_from))
			for (i = 0; i < nsw * x->nb; i++)
				x->head[i] = -1;
		for (i = 0; i < p->nxfer && rv == 0; i++) {
			const struct sched_xfer *t = &s->xf[p->xfer_off + i];

			for (j = 0; j < t->nblk && rv == 0; j++)
				rv = hop(x, ph, t->src, t->dst,
				         s->blk[t->blk_off + j]);
		}
	}
	if (rv == 0)
		qsort(x->ev, x->nev, sizeof(*x->ev), cmp_ev);
	return (rv);
}

static int
cmp_ev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->slot != y->slot)
		return (x->slot < y->slot ? -1 : 1);
	if (x->from != y->from)
		return (x->from < y->from ? -1 : 1);
	if (x->to != y->to)
		return (x->to < y->to ? -1 : 1);
	return (x->blk < y->blk ? -1 : x->blk > y->blk);
}

static int
is_gather(const struct tx *x, uint32_t slot)
{
	return (x->s->coll == SCHED_ALLGATHER ||
	        (x->s->coll == SCHED_ALLREDUCE && slot >= x->s->ag_from));
}

/* Chunk b's owner and its output chunk there. */
static uint32_t
owner(const struct tx *x, uint32_t b)
{
	return (b / x->C);
}
static uint32_t
out_of(const struct tx *x, uint32_t b)
{
	return (x->s->coll == SCHED_REDUCESCATTER ? b % x->C : b);
}

static int
copy(struct tx *x, uint32_t g, uint32_t b, struct mloc from, struct mloc to)
{
	struct mstep m = {.node = g,
	                  .type = ST_CPY,
	                  .peer = MSTEP_NONE,
	                  .src = from,
	                  .dst = to,
	                  .k2 = b,
	                  .dep = -1};
	size_t       i = (size_t)g * x->nb + b;
	int          rv;

	if ((rv = msteps_add(&x->v, &m)) != 0)
		return (rv);
	x->cur[i] = to;
	x->last[i] = (int64_t)x->v.n - 1;
	return (0);
}

/* Where every chunk starts, and the owners' copies of what no transfer
 * reduces into (AllGather: its own chunk; the reductions: a chunk no
 * partial sum reaches, a lone GPU's). */
static int
start(struct tx *x)
{
	uint32_t g, b;
	size_t   e;
	uint8_t *fed;
	int      rv = 0;

	for (g = 0; g < x->ngpu; g++)
		for (b = 0; b < x->nb; b++) {
			size_t i = (size_t)g * x->nb + b;

			x->last[i] = -1;
			x->cur[i] = x->s->coll == SCHED_ALLGATHER
			                ? (struct mloc){0, 0}
			                : (struct mloc){'i', b};
		}
	if (x->s->coll == SCHED_ALLGATHER) {
		for (b = 0; b < x->nb && rv == 0; b++)
			rv = copy(x, owner(x, b), b,
			          (struct mloc){'i', b % x->C},
			          (struct mloc){'o', b});
		/* It sends from its input, which nothing writes. */
		for (b = 0; b < x->nb; b++) {
			x->cur[(size_t)owner(x, b) * x->nb + b] =
			    (struct mloc){'i', b % x->C};
			x->last[(size_t)owner(x, b) * x->nb + b] = -1;
		}
		return (rv);
	}
	if ((fed = calloc(x->nb, 1)) == NULL)
		return (-ENOMEM);
	for (e = 0; e < x->nev; e++)
		if (!is_gather(x, x->ev[e].slot) &&
		    x->ev[e].to == owner(x, x->ev[e].blk))
			fed[x->ev[e].blk] = 1;
	for (b = 0; b < x->nb && rv == 0; b++)
		if (!fed[b])
			rv = copy(x, owner(x, b), b, (struct mloc){'i', b},
			          (struct mloc){'o', out_of(x, b)});
	free(fed);
	return (rv);
}

/* Where a transfer lands at its receiver: the output chunk when
 * gathering or at the owner, else the accumulator (a scratch chunk
 * taken on the first reduction). */
static struct mloc
dest(struct tx *x, const struct tev *v)
{
	struct mloc *c = &x->cur[(size_t)v->to * x->nb + v->blk];

	if (is_gather(x, v->slot))
		return ((struct mloc){'o', v->blk});
	if (v->to == owner(x, v->blk))
		return ((struct mloc){'o', out_of(x, v->blk)});
	if (c->buf == 's')
		return (*c);
	return ((struct mloc){'s', x->scratch[v->to]++});
}

static int
transfer(struct tx *x, const struct tev *v, char *err, size_t errlen)
{
	size_t si = (size_t)v->from * x->nb + v->blk,
	       di = (size_t)v->to * x->nb + v->blk;
	uint64_t     k1 = (uint64_t)v->slot << 32 | v->from << 16 | v->to;
	int          gather = is_gather(x, v->slot), rv;
	struct mloc  to;
	struct mstep m;

	if (x->cur[si].buf == 0)
		return (errf(-EINVAL, err, errlen,
		             "msccl: GPU %u sends chunk %u at slot %u before "
		             "it holds it",
		             v->from, v->blk, v->slot));
	to = dest(x, v);
	m = (struct mstep){.node = v->from,
	                   .type = ST_S,
	                   .peer = v->to,
	                   .src = x->cur[si],
	                   .dst = to,
	                   .k1 = k1,
	                   .k2 = v->blk,
	                   .dep = x->last[si]};
	if ((rv = msteps_add(&x->v, &m)) != 0)
		return (rv);
	m = (struct mstep){.node = v->to,
	                   .type = gather ? ST_R : ST_RRC,
	                   .peer = v->from,
	                   .src = gather ? x->cur[si] : x->cur[di],
	                   .dst = to,
	                   .k1 = k1,
	                   .k2 = v->blk,
	                   .dep = x->last[di]};
	if ((rv = msteps_add(&x->v, &m)) != 0)
		return (rv);
	x->cur[di] = to;
	x->last[di] = (int64_t)x->v.n - 1;
	return (0);
}

static int
steps(struct tx *x, char *err, size_t errlen)
{
	size_t e;
	int    rv;

	if ((rv = start(x)) != 0)
		return (rv);
	for (e = 0; e < x->nev && rv == 0; e++)
		rv = transfer(x, &x->ev[e], err, errlen);
	return (rv);
}

static void
tx_free(struct tx *x)
{
	free(x->swi);
	free(x->head);
	free(x->pool);
	free(x->ev);
	msteps_free(&x->v);
	free(x->scratch);
	free(x->cur);
	free(x->last);
}

int
msccl_export_topo(const struct sched *s, uint64_t bytes,
                  const struct msccl_limits *lim, char **xml, size_t *len,
                  char *err, size_t errlen)
{
	const char *const coll[] = {[SCHED_ALLGATHER] = "allgather",
	                            [SCHED_REDUCESCATTER] = lim->reducescatter,
	                            [SCHED_ALLREDUCE] = "allreduce"};
	struct tx         x = {.s = s, .t = s->topo, .ngpu = s->ngpu};
	struct mhead      h;
	size_t            gb;
	int               rv = -ENOMEM;

	if (x.ngpu < 2 || x.ngpu > MSCCL_MAX_GPUS || s->parts == 0)
		return (errf(-EINVAL, err, errlen,
		             "msccl: %u GPUs (2..%d can be exported)", x.ngpu,
		             MSCCL_MAX_GPUS));
	x.C = s->parts;
	x.nb = x.ngpu * x.C;
	gb = (size_t)x.ngpu * x.nb;
	x.swi = malloc(((size_t)x.t->n + 1) * sizeof(*x.swi));
	x.scratch = calloc(x.ngpu, sizeof(*x.scratch));
	x.cur = malloc(gb * sizeof(*x.cur));
	x.last = malloc(gb * sizeof(*x.last));
	if (!x.swi || !x.scratch || !x.cur || !x.last)
		goto out;
	if ((rv = collapse(&x)) != 0 || (rv = steps(&x, err, errlen)) != 0)
		goto out;
	h = (struct mhead){.name = s->algo,
	                   .coll = coll[s->coll],
	                   .ngpus = x.ngpu,
	                   .nchunks = x.nb,
	                   .ic = s->coll == SCHED_ALLGATHER ? x.C : x.nb,
	                   .oc = s->coll == SCHED_REDUCESCATTER ? x.C : x.nb,
	                   .scratch = x.scratch,
	                   .min = bytes / 2,
	                   .max = 2 * bytes};
	rv = msccl_write_xml(&x.v, &h, lim, xml, len, err, errlen);
out:
	if (rv != 0 && rv != -EINVAL && rv != -EDEADLK)
		errf(rv, err, errlen, "msccl: %s", coll_strerror(rv));
	tx_free(&x);
	return (rv);
}
