/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSCCL XML export of an All-to-All schedule (see msccl.h).  Layout: rank
 * r's input chunk d * parts + p is B[r,d].p, its output chunk s * parts +
 * p is B[s,r].p; blocks a rank keeps between phases, or relays within
 * one, are received into scratch chunks and sent on from there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl.h"
#include "collectives/msccl_int.h"
#include "proto/base/errf.h"

struct ex {
	const struct sched *s;
	struct msteps       v;
	uint32_t           *scratch; /* [n]: scratch chunks used */
	int64_t            *at_step; /* [nblocks]: the r that brought it */
	struct mloc        *at;      /* [nblocks]: where it is held */
};

/* Where block b ends at node u: its output chunk, or a scratch chunk. */
static struct mloc
land(struct ex *e, uint32_t u, uint32_t b)
{
	const struct sched *s = e->s;

	if (sched_blk_dst(s, b) == u)
		return ((struct mloc){'o', sched_blk_src(s, b) * s->parts +
		                               sched_blk_part(s, b)});
	return ((struct mloc){'s', e->scratch[u]++});
}

/* Add a step; its index in the steps as added in *at if at is set. */
static int
step(struct ex *e, const struct mstep *m, int64_t *at)
{
	int rv = msteps_add(&e->v, m);

	if (rv == 0 && at != NULL)
		*at = (int64_t)e->v.n - 1;
	return (rv);
}

/* Every hop of every block of transfer x (phase k) as steps: a send at
 * the source; at each relay a receive into scratch and a send that
 * depends on it; a receive at the end.  Hop h's key is (k, h, source,
 * ring distance to the destination, block) at both its ends, so a
 * relay's send (hop h) waits for a smaller key (hop h - 1), a block kept
 * over phases for an earlier phase; and a connection carries a source's
 * blocks nearest destination first, in the order of their input chunks
 * and of the scratch chunks they pass through, which the writer merges
 * into steps of several chunks. */
static int
transfer(struct ex *e, uint32_t k, const struct sched_xfer *x,
         const uint32_t *peer)
{
	const struct sched *s = e->s;
	uint32_t            nodes[MSCCL_MAX_HOPS + 1];
	struct mloc         loc[MSCCL_MAX_HOPS + 1];
	uint32_t            h, H = 0, j;
	struct sched_walk   w;
	int64_t             tx, got;
	uint64_t            far;
	int                 rv;

	sched_walk_init(&w, s, peer, x);
	far = (x->dst + s->n - x->src) % s->n;
	nodes[0] = x->src;
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE) {
		if (H == MSCCL_MAX_HOPS)
			return (-COLL_ETOOBIG);
		nodes[++H] = w.node;
	}
	if (tx < 0)
		return ((int)tx);
	for (j = 0; j < x->nblk; j++) {
		uint32_t b = s->blk[x->blk_off + j];

		loc[0] = e->at[b];
		got = e->at_step[b];
		for (h = 1; h <= H; h++)
			loc[h] = land(e, nodes[h], b);
		for (h = 0; h < H; h++) {
			struct mstep snd = {.node = nodes[h],
			                    .type = ST_S,
			                    .peer = nodes[h + 1],
			                    .src = loc[h],
			                    .dst = loc[h + 1],
			                    .k1 = (uint64_t)k << 32 | h,
			                    .k2 = (uint64_t)x->src << 40 |
			                          far << 26 | b,
			                    .dep = got};
			struct mstep rcv = snd;

			rcv.node = nodes[h + 1];
			rcv.type = ST_R;
			rcv.peer = nodes[h];
			rcv.dep = -1;
			if ((rv = step(e, &snd, NULL)) != 0 ||
			    (rv = step(e, &rcv, &got)) != 0)
				return (rv);
		}
		e->at[b] = loc[H];
		e->at_step[b] = got;
	}
	return (0);
}

/* The blocks a rank keeps (B[u,u]): input to output, one copy each. */
static int
copies(struct ex *e)
{
	const struct sched *s = e->s;
	uint32_t            u, p;
	int                 rv;

	for (u = 0; u < s->n; u++)
		for (p = 0; p < s->parts; p++) {
			struct mstep m = {.node = u,
			                  .type = ST_CPY,
			                  .peer = MSTEP_NONE,
			                  .src = {'i', u * s->parts + p},
			                  .dst = {'o', u * s->parts + p},
			                  .k2 = p,
			                  .dep = -1};

			if ((rv = msteps_add(&e->v, &m)) != 0)
				return (rv);
		}
	return (0);
}

static int
walk_phases(struct ex *e)
{
	const struct sched *s = e->s;
	uint32_t           *peer, k, i, bad;
	int                 rv = 0;

	if ((peer = malloc((size_t)s->n * s->ports * sizeof(*peer))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < s->nph && rv == 0; k++) {
		if (s->ph[k].cfg >= 0 &&
		    (rv = sched_peers(s, &s->cfg[s->ph[k].cfg], peer, &bad)) !=
		        0)
			break;
		for (i = 0; i < s->ph[k].nxfer && rv == 0; i++)
			rv = transfer(e, k, &s->xf[s->ph[k].xfer_off + i],
			              peer);
	}
	free(peer);
	return (rv);
}

static int
export_a2a(const struct sched *s, uint64_t bytes,
           const struct msccl_limits *lim, char **xml, size_t *len, char *err,
           size_t errlen)
{
	struct ex    e = {.s = s};
	struct mhead h = {.name = s->algo,
	                  .coll = "alltoall",
	                  .ngpus = s->n,
	                  .nchunks = s->n * s->parts,
	                  .ic = s->n * s->parts,
	                  .oc = s->n * s->parts,
	                  .min = bytes / 2,
	                  .max = 2 * bytes};
	uint32_t     nb, b;
	int          rv = -ENOMEM;

	nb = sched_nblocks(s);
	/* The parsers keep 1024 <gpu>s; keys hold 26 bits of block. */
	if (s->n > 1024 || nb > (1u << 26))
		return (errf(-EINVAL, err, errlen,
		             "msccl: %u ranks (%u blocks): more than MSCCL "
		             "takes (1024 ranks)",
		             s->n, nb));
	e.scratch = calloc(s->n, sizeof(*e.scratch));
	e.at = malloc(((size_t)nb + 1) * sizeof(*e.at));
	e.at_step = malloc(((size_t)nb + 1) * sizeof(*e.at_step));
	if (!e.scratch || !e.at || !e.at_step)
		goto out;
	for (b = 0; b < nb; b++) {
		e.at[b] = (struct mloc){'i', sched_blk_dst(s, b) * s->parts +
		                                 sched_blk_part(s, b)};
		e.at_step[b] = -1;
	}
	if ((rv = walk_phases(&e)) != 0 || (rv = copies(&e)) != 0)
		goto out;
	h.scratch = e.scratch;
	rv = msccl_write_xml(&e.v, &h, lim, xml, len, err, errlen);
out:
	if (rv != 0 && rv != -EINVAL && rv != -EDEADLK)
		errf(rv, err, errlen, "msccl: %s", coll_strerror(rv));
	msteps_free(&e.v);
	free(e.scratch);
	free(e.at);
	free(e.at_step);
	return (rv);
}

int
msccl_dialect_parse(const char *name, enum msccl_dialect *d)
{
	if (strcmp(name, "current") == 0)
		*d = MSCCL_CURRENT;
	else if (strcmp(name, "legacy") == 0)
		*d = MSCCL_LEGACY;
	else
		return (-EINVAL);
	return (0);
}

const char *
msccl_dialect_name(enum msccl_dialect d)
{
	return (d == MSCCL_LEGACY ? "legacy" : "current");
}

/*
 * Current: msccl-executor-nccl (MSCCL_MAX_NUM_STEPS 64 by default,
 * MAXCHANNELS 32, 32 thread blocks a channel) and RCCL (64 steps, 64
 * thread blocks a rank, hard-coded).  Legacy microsoft/msccl: 256 steps,
 * 216 thread blocks, of which a dependency (int8_t) can name 128.  All:
 * 4096 XML elements kept for a rank (MAX_NODES), int16_t chunk offsets,
 * and Simple's NCCL_STEPS 8 of which a send of one chunk takes 4.
 */
void
msccl_limits(const struct msccl_opts *o, struct msccl_limits *l)
{
	int legacy = o != NULL && o->dialect == MSCCL_LEGACY;

	*l = (struct msccl_limits){
	    .reducescatter = legacy ? "reduce_scatter" : "reducescatter",
	    .max_steps = legacy ? MSCCL_STEPS_LEGACY : MSCCL_STEPS_CURRENT,
	    .max_tbs = legacy ? 128 : 64,
	    .max_tb_chan = 32,
	    .max_chan = 32,
	    .max_nodes = 4096,
	    .max_off = 32767,
	    .slots = 2};
	if (o != NULL && o->max_steps != 0)
		l->max_steps = o->max_steps;
}

int
msccl_export(const struct sched *s, uint64_t bytes,
             const struct msccl_opts *opts, char **xml, size_t *len, char *err,
             size_t errlen)
{
	struct msccl_limits lim;

	*xml = NULL;
	*len = 0;
	msccl_limits(opts, &lim);
	if (lim.max_steps < 1 || lim.max_steps > MSCCL_STEPS_MAX)
		return (errf(-EINVAL, err, errlen,
		             "msccl: %u steps a thread block (1..%d)",
		             lim.max_steps, MSCCL_STEPS_MAX));
	if (s->topo != NULL &&
	    (s->coll == SCHED_ALLGATHER || s->coll == SCHED_REDUCESCATTER ||
	     s->coll == SCHED_ALLREDUCE))
		return (
		    msccl_export_topo(s, bytes, &lim, xml, len, err, errlen));
	if (s->coll != SCHED_ALLTOALL || s->nph == 0 || s->ph[0].cfg < 0)
		return (
		    errf(-EINVAL, err, errlen,
		         "msccl: %s is a skewed All-to-All: MSCCL's chunks "
		         "are equal shares of the buffer, its blocks are "
		         "not",
		         s->algo));
	return (export_a2a(s, bytes, &lim, xml, len, err, errlen));
}

int
msccl_write(const struct sched *s, uint64_t bytes,
            const struct msccl_opts *opts, const char *path, char *err,
            size_t errlen)
{
	char  *xml;
	size_t len;
	FILE  *f;
	int    rv, e = 0;

	if ((rv = msccl_export(s, bytes, opts, &xml, &len, err, errlen)) != 0)
		return (rv);
	if ((f = fopen(path, "we")) == NULL || fwrite(xml, 1, len, f) != len)
		e = errno ? errno : EIO;
	if (f != NULL && fclose(f) != 0 && e == 0)
		e = errno;
	free(xml);
	if (e != 0)
		return (
		    errf(-e, err, errlen, "msccl: %s: %s", path, strerror(e)));
	return (0);
}
