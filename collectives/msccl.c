/* SPDX-License-Identifier: BSD-2-Clause */
/* MSCCL XML export of an All-to-All schedule (see msccl.h). */
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

/* Every hop of every block of transfer x (phase k) as steps: a send at
 * the source, a receive-copy-send at each relay, a receive at the end. */
static int
transfer(struct ex *e, uint32_t k, const struct sched_xfer *x,
         const uint32_t *peer)
{
	const struct sched *s = e->s;
	uint32_t            nodes[MSCCL_MAX_HOPS + 1], ports[MSCCL_MAX_HOPS];
	struct mloc         loc[MSCCL_MAX_HOPS + 1];
	uint32_t            h, H = 0, j;
	struct sched_walk   w;
	int64_t             tx;
	int                 rv;

	sched_walk_init(&w, s, peer, x);
	nodes[0] = x->src;
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE) {
		if (H == MSCCL_MAX_HOPS)
			return (-COLL_ETOOBIG);
		ports[H] = (uint32_t)tx % s->ports;
		nodes[++H] = w.node;
	}
	if (tx < 0)
		return ((int)tx);
	for (j = 0; j < x->nblk; j++) {
		uint32_t b = s->blk[x->blk_off + j];

		loc[0] = e->at[b];
		for (h = 1; h <= H; h++)
			loc[h] = land(e, nodes[h], b);
		for (h = 0; h <= H; h++) {
			struct mstep m = {
			    .node = nodes[h],
			    .chan = k * s->ports + ports[h < H ? h : H - 1],
			    .grp = k * s->ports + ports[h < H ? h : H - 1],
			    .type = h == 0   ? ST_S
			            : h == H ? ST_R
			                     : ST_RCS,
			    .peer_out = h < H ? nodes[h + 1] : MSTEP_NONE,
			    .peer_in = h > 0 ? nodes[h - 1] : MSTEP_NONE,
			    .src = h == H ? loc[h - 1] : loc[h],
			    .dst = h == 0 ? loc[1] : loc[h],
			    .k1 = (uint64_t)h << 32 | x->src,
			    .k2 = b,
			    .dep = h == 0 ? e->at_step[b] : -1};

			if ((rv = msteps_add(&e->v, &m)) != 0)
				return (rv);
		}
		e->at[b] = loc[H];
		e->at_step[b] = (int64_t)e->v.n - 1;
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
			                  .chan = CHAN_COPY,
			                  .grp = GRP_COPY,
			                  .type = ST_CPY,
			                  .peer_out = MSTEP_NONE,
			                  .peer_in = MSTEP_NONE,
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
export_a2a(const struct sched *s, uint64_t bytes, char **xml, size_t *len,
           char *err, size_t errlen)
{
	struct ex    e = {.s = s};
	struct mhead h = {.name = s->algo,
	                  .coll = "alltoall",
	                  .ngpus = s->n,
	                  .nchan = s->nph * s->ports,
	                  .nchunks = s->n * s->parts,
	                  .ic = s->n * s->parts,
	                  .oc = s->n * s->parts,
	                  .min = bytes / 2,
	                  .max = 2 * bytes};
	uint32_t     nb, b;
	int          rv = -ENOMEM;

	if ((uint64_t)s->nph * s->ports > MSCCL_MAX_CHANNELS)
		return (
		    errf(-EINVAL, err, errlen,
		         "msccl: %u phases x %u transceivers need more than "
		         "%d channels",
		         s->nph, s->ports, MSCCL_MAX_CHANNELS));
	nb = sched_nblocks(s);
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
	rv = msccl_write_xml(&e.v, &h, xml, len, err, errlen);
out:
	if (rv != 0 && rv != -EINVAL)
		errf(rv, err, errlen, "msccl: %s", coll_strerror(rv));
	msteps_free(&e.v);
	free(e.scratch);
	free(e.at);
	free(e.at_step);
	return (rv);
}

int
msccl_export(const struct sched *s, uint64_t bytes, char **xml, size_t *len,
             char *err, size_t errlen)
{
	*xml = NULL;
	*len = 0;
	if (s->topo != NULL &&
	    (s->coll == SCHED_ALLGATHER || s->coll == SCHED_REDUCESCATTER ||
	     s->coll == SCHED_ALLREDUCE))
		return (msccl_export_topo(s, bytes, xml, len, err, errlen));
	if (s->coll != SCHED_ALLTOALL || s->nph == 0 || s->ph[0].cfg < 0)
		return (
		    errf(-EINVAL, err, errlen,
		         "msccl: %s is a skewed All-to-All: MSCCL's chunks "
		         "are equal shares of the buffer, its blocks are "
		         "not",
		         s->algo));
	return (export_a2a(s, bytes, xml, len, err, errlen));
}

int
msccl_write(const struct sched *s, uint64_t bytes, const char *path, char *err,
            size_t errlen)
{
	char  *xml;
	size_t len;
	FILE  *f;
	int    rv, e = 0;

	if ((rv = msccl_export(s, bytes, &xml, &len, err, errlen)) != 0)
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
