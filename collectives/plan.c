/* SPDX-License-Identifier: BSD-2-Clause */
/* One node's part of a collective, made from a schedule (see plan.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/plan.h"

void
plan_free(struct plan *p)
{
	uint32_t k;

	for (k = 0; p->ph != NULL && k < p->nph; k++) {
		free(p->ph[k].send);
		free(p->ph[k].relay);
		free(p->ph[k].recv);
	}
	free(p->ph);
	p->ph = NULL;
	free(p->vb);
	p->vb = NULL;
	p->nvb = 0;
}

const struct plan_vblk *
plan_vblk(const struct plan *p, uint32_t id)
{
	uint32_t lo = 0, hi = p->nvb;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->vb[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < p->nvb && p->vb[lo].id == id ? &p->vb[lo] : NULL);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}

/* The explicit blocks of every send and receive of the node, by id. */
static int
vblocks_from_sched(const struct sched *s, struct plan *p)
{
	uint32_t *ids, n = 0, k, i, j, u;

	for (k = 0; k < p->nph; k++) {
		for (i = 0; i < p->ph[k].nsend; i++)
			n += p->ph[k].send[i].nblk;
		for (i = 0; i < p->ph[k].nrecv; i++)
			n += p->ph[k].recv[i].nblk;
	}
	if ((ids = malloc((n + 1) * sizeof(*ids))) == NULL)
		return (-ENOMEM);
	for (n = 0, k = 0; k < p->nph; k++) {
		for (i = 0; i < p->ph[k].nsend; i++)
			for (j = 0; j < p->ph[k].send[i].nblk; j++)
				ids[n++] = p->ph[k].send[i].blk[j];
		for (i = 0; i < p->ph[k].nrecv; i++)
			for (j = 0; j < p->ph[k].recv[i].nblk; j++)
				ids[n++] = p->ph[k].recv[i].blk[j];
	}
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (u = 0, i = 0; i < n; i++)
		if (u == 0 || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	if ((p->vb = calloc(u + 1, sizeof(*p->vb))) == NULL) {
		free(ids);
		return (-ENOMEM);
	}
	for (i = 0; i < u; i++) {
		const struct sched_vblk *v = &s->vb[ids[i]];

		p->vb[i] =
		    (struct plan_vblk){ids[i], v->src, v->dst, v->off, v->len};
	}
	p->nvb = u;
	free(ids);
	return (0);
}

/* The phase's arrays, one spare entry each so that none is calloc(0). */
int
plan_phase_alloc(struct plan_phase *ph, uint32_t ns, uint32_t nr, uint32_t nv)
{
	ph->nsend = ns;
	ph->nrelay = nr;
	ph->nrecv = nv;
	ph->send = calloc(ns + 1, sizeof(*ph->send));
	ph->relay = calloc(nr + 1, sizeof(*ph->relay));
	ph->recv = calloc(nv + 1, sizeof(*ph->recv));
	return (ph->send && ph->relay && ph->recv ? 0 : -ENOMEM);
}

int
plan_from_sched(const struct sched *s, const struct sched_nplan *np,
                uint64_t run, uint32_t chunk, uint32_t deadline_ms,
                uint32_t nports, struct plan *p)
{
	uint32_t k, i;

	memset(p, 0, sizeof(*p));
	*p = (struct plan){.run = run,
	                   .node = np->node,
	                   .n = s->n,
	                   .parts = s->parts,
	                   .chunk = chunk,
	                   .deadline_ms = deadline_ms,
	                   .max_blocks = np->max_blocks,
	                   .nph = s->nph,
	                   .nports = nports,
	                   .bytes = s->bytes,
	                   .coll = s->topo != NULL ? (uint32_t)s->coll : 0,
	                   .ag_from = s->ag_from};
	/* Planes apart: each port waits for its plane's release. */
	if (sched_is_apart(s) && nports <= 8 && s->ports == nports) {
		p->nplanes = s->nplanes;
		memcpy(p->plane, s->plane, nports);
	}
	if ((p->ph = calloc(s->nph, sizeof(*p->ph))) == NULL)
		return (-ENOMEM);
	for (i = s->local_from;
	     s->local_from && i < s->ports && p->nlocal < PLAN_MAX_LOCAL;
	     i++) {
		uint32_t fp, far = sched_local_peer(s, np->node, i, &fp);

		p->local_from = s->local_from;
		p->lnode[p->nlocal++] = far;
	}
	for (k = 0; k < s->nph; k++) {
		const struct sched_nphase *a = &np->ph[k];
		struct plan_phase         *b = &p->ph[k];

		b->barrier = a->barrier;
		if (plan_phase_alloc(b, a->nsend, a->nrelay, a->nrecv) != 0) {
			plan_free(p);
			return (-ENOMEM);
		}
		/* A send's port is its path's first hop's. */
		for (i = 0; i < a->nsend; i++) {
			const struct sched_xfer *x = &s->xf[a->send[i]];

			b->send[i] =
			    (struct plan_send){x->dst, s->seg[x->seg_off].port,
			                       sched_xfer_hops(s, x), x->nblk,
			                       s->blk + x->blk_off};
		}
		for (i = 0; i < a->nrelay; i++) {
			const struct sched_xfer *x = &s->xf[a->relay[i].xf];

			b->relay[i] = (struct plan_relay){x->src,
			                                  x->dst,
			                                  a->relay[i].in_port,
			                                  a->relay[i].out_port,
			                                  x->nblk,
			                                  x->bytes};
		}
		for (i = 0; i < a->nrecv; i++) {
			const struct sched_xfer *x = &s->xf[a->recv[i].xf];

			b->recv[i] =
			    (struct plan_recv){x->src, a->recv[i].port,
			                       x->nblk, s->blk + x->blk_off};
		}
	}
	if (s->vb != NULL && vblocks_from_sched(s, p) != 0) {
		plan_free(p);
		return (-ENOMEM);
	}
	return (0);
}

uint64_t
plan_buffer_bytes(uint32_t max_blocks, uint64_t bytes, uint32_t n,
                  uint32_t parts, uint32_t nports, uint32_t chunk)
{
	uint64_t slot = n && parts ? bytes / ((uint64_t)n * parts) + 1 : 0;

	/* The executor's slab, and 4 frames in and 4 out per port (a frame
	 * header is under 64 bytes). */
	return ((uint64_t)max_blocks * slot +
	        (uint64_t)nports * 8 * ((uint64_t)chunk + 64));
}

uint64_t
plan_vbuffer_bytes(uint64_t block_bytes, uint32_t nports, uint32_t chunk)
{
	return (block_bytes + (uint64_t)nports * 8 * ((uint64_t)chunk + 64));
}
