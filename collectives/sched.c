/* SPDX-License-Identifier: BSD-2-Clause */
/* Schedule IR storage: pools, builders, the byte layout and path walking. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"

/*
 * Grow a pool so that it holds `want` elements of `size` bytes: doubling
 * for appends, exactly `want` for reservations (so a schedule built from
 * a reservation holds no slack).
 */
static int
pool_size(void **p, uint32_t *cap, uint64_t want, size_t size, int exact)
{
	uint64_t ncap;
	void    *np;

	if (want <= *cap)
		return (0);
	if (want > UINT32_MAX)
		return (-COLL_ETOOBIG);
	ncap = exact ? want : *cap ? *cap : 16;
	while (ncap < want)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (ncap > SIZE_MAX / size)
		return (-ENOMEM);
	if ((np = realloc(*p, ncap * size)) == NULL)
		return (-ENOMEM);
	*p = np;
	*cap = (uint32_t)ncap;
	return (0);
}

#define GROW(s, field, n, want)                                               \
	pool_size((void **)&(s)->field, &(s)->cap_##n, (want),                \
	          sizeof(*(s)->field), 0)
#define RESERVE(s, field, n, want)                                            \
	pool_size((void **)&(s)->field, &(s)->cap_##n, (want),                \
	          sizeof(*(s)->field), 1)

int
sched_init(struct sched *s, const char *algo, enum sched_coll coll, uint32_t n,
           uint32_t ports, uint32_t parts, uint64_t bytes)
{
	memset(s, 0, sizeof(*s));
	if (n < 2 || ports < 1 || parts < 1)
		return (-EINVAL);
	if ((uint64_t)n * n * parts > UINT32_MAX ||
	    (uint64_t)n * ports > UINT32_MAX - 1)
		return (-COLL_ETOOBIG);
	snprintf(s->algo, sizeof(s->algo), "%s", algo);
	s->coll = coll;
	s->n = n;
	s->ports = ports;
	s->parts = parts;
	s->bytes = bytes;
	return (0);
}

void
sched_free(struct sched *s)
{
	free(s->ph);
	free(s->cfg);
	free(s->circ);
	free(s->xf);
	free(s->blk);
	free(s->seg);
	memset(s, 0, sizeof(*s));
}

int
sched_reserve(struct sched *s, uint32_t nph, uint32_t ncirc, uint32_t nxf,
              uint32_t nblk, uint32_t nseg)
{
	int rv;

	if ((rv = RESERVE(s, ph, ph, (uint64_t)s->nph + nph)) != 0 ||
	    (rv = RESERVE(s, cfg, cfg, (uint64_t)s->ncfg + nph)) != 0 ||
	    (rv = RESERVE(s, circ, circ, (uint64_t)s->ncirc + ncirc)) != 0 ||
	    (rv = RESERVE(s, xf, xf, (uint64_t)s->nxf + nxf)) != 0 ||
	    (rv = RESERVE(s, blk, blk, (uint64_t)s->nblk + nblk)) != 0 ||
	    (rv = RESERVE(s, seg, seg, (uint64_t)s->nseg + nseg)) != 0)
		return (rv);
	return (0);
}

int
sched_add_phase(struct sched *s, int with_cfg, uint32_t stride)
{
	struct sched_phase *p;
	int                 rv;

	if ((rv = GROW(s, ph, ph, (uint64_t)s->nph + 1)) != 0)
		return (rv);
	p = &s->ph[s->nph];
	p->cfg = -1;
	p->xfer_off = s->nxf;
	p->nxfer = 0;
	if (with_cfg) {
		if ((rv = GROW(s, cfg, cfg, (uint64_t)s->ncfg + 1)) != 0)
			return (rv);
		s->cfg[s->ncfg].circ_off = s->ncirc;
		s->cfg[s->ncfg].ncirc = 0;
		s->cfg[s->ncfg].stride = stride;
		p->cfg = (int32_t)s->ncfg++;
	}
	return ((int)s->nph++);
}

int
sched_add_circuit(struct sched *s, uint32_t a, uint16_t pa, uint32_t b,
                  uint16_t pb)
{
	struct sched_cfg *c;
	int               rv;

	if (s->ncfg == 0 || s->nph == 0 || s->ph[s->nph - 1].cfg < 0)
		return (-EINVAL);
	if ((rv = GROW(s, circ, circ, (uint64_t)s->ncirc + 1)) != 0)
		return (rv);
	c = &s->cfg[s->ncfg - 1];
	s->circ[s->ncirc].a = a;
	s->circ[s->ncirc].b = b;
	s->circ[s->ncirc].pa = pa;
	s->circ[s->ncirc].pb = pb;
	s->ncirc++;
	c->ncirc++;
	return (0);
}

int
sched_add_xfer(struct sched *s, uint32_t src, uint32_t dst,
               const uint32_t *blk, uint32_t nblk, const struct sched_seg *seg,
               uint32_t nseg)
{
	struct sched_xfer *x;
	uint64_t           bytes = 0;
	uint32_t           i;
	int                rv;

	if (s->nph == 0)
		return (-EINVAL);
	if ((rv = GROW(s, xf, xf, (uint64_t)s->nxf + 1)) != 0 ||
	    (rv = GROW(s, blk, blk, (uint64_t)s->nblk + nblk)) != 0 ||
	    (rv = GROW(s, seg, seg, (uint64_t)s->nseg + nseg)) != 0)
		return (rv);
	for (i = 0; i < nblk; i++)
		bytes +=
		    blk[i] < sched_nblocks(s) ? sched_blk_bytes(s, blk[i]) : 0;
	x = &s->xf[s->nxf++];
	x->src = src;
	x->dst = dst;
	x->blk_off = s->nblk;
	x->nblk = nblk;
	x->seg_off = s->nseg;
	x->nseg = nseg;
	x->bytes = bytes;
	if (nblk)
		memcpy(s->blk + s->nblk, blk, nblk * sizeof(*blk));
	if (nseg)
		memcpy(s->seg + s->nseg, seg, nseg * sizeof(*seg));
	s->nblk += nblk;
	s->nseg += nseg;
	s->ph[s->nph - 1].nxfer++;
	return (0);
}

/*
 * Block j of a node (j = dst * parts + part) starts at floor(j * m / N),
 * N = n * parts.  Written as j*q + floor(j*r/N) (m = q*N + r) so that
 * j * r < N^2 <= 2^64 cannot overflow.
 */
uint64_t
sched_blk_offset(const struct sched *s, uint32_t b)
{
	uint64_t N = (uint64_t)(s->ngpu ? s->ngpu : s->n) * s->parts;
	uint64_t j = b % N;
	uint64_t q = s->bytes / N, r = s->bytes % N;

	return (j * q + (j * r) / N);
}

uint64_t
sched_blk_bytes(const struct sched *s, uint32_t b)
{
	uint64_t N = (uint64_t)(s->ngpu ? s->ngpu : s->n) * s->parts;
	uint64_t j = b % N;
	uint64_t q = s->bytes / N, r = s->bytes % N;

	return (q + ((j + 1) * r) / N - (j * r) / N);
}

double
sched_blk_model_bytes(const struct sched *s)
{
	return ((double)s->bytes /
	        ((double)(s->ngpu ? s->ngpu : s->n) * s->parts));
}

size_t
sched_mem(const struct sched *s)
{
	return (sizeof(*s) + (size_t)s->cap_ph * sizeof(*s->ph) +
	        (size_t)s->cap_cfg * sizeof(*s->cfg) +
	        (size_t)s->cap_circ * sizeof(*s->circ) +
	        (size_t)s->cap_xf * sizeof(*s->xf) +
	        (size_t)s->cap_blk * sizeof(*s->blk) +
	        (size_t)s->cap_seg * sizeof(*s->seg));
}

int32_t
sched_cfg_of(const struct sched *s, uint32_t ph)
{
	for (;;) {
		if (s->ph[ph].cfg >= 0)
			return (s->ph[ph].cfg);
		if (ph == 0)
			return (-1);
		ph--;
	}
}

int
sched_peers(const struct sched *s, const struct sched_cfg *c, uint32_t *peer,
            uint32_t *bad_circ)
{
	uint32_t i, np = s->n * s->ports;

	for (i = 0; i < np; i++)
		peer[i] = SCHED_NONE;
	for (i = 0; i < c->ncirc; i++) {
		const struct sched_circuit *e = &s->circ[c->circ_off + i];
		uint32_t                    ea, eb;

		if (e->a >= s->n || e->b >= s->n || e->pa >= s->ports ||
		    e->pb >= s->ports || e->a == e->b)
			goto bad;
		ea = e->a * s->ports + e->pa;
		eb = e->b * s->ports + e->pb;
		if (peer[ea] != SCHED_NONE || peer[eb] != SCHED_NONE)
			goto bad;
		peer[ea] = eb;
		peer[eb] = ea;
		continue;
	bad:
		if (bad_circ)
			*bad_circ = i;
		return (-COLL_EPORT);
	}
	return (0);
}

void
sched_walk_init(struct sched_walk *w, const struct sched *s,
                const uint32_t *peer, const struct sched_xfer *x)
{
	w->s = s;
	w->peer = peer;
	w->seg = s->seg + x->seg_off;
	w->nseg = x->nseg;
	w->i = 0;
	w->left = 0;
	w->node = x->src;
	w->port = 0;
}

int64_t
sched_walk_next(struct sched_walk *w)
{
	const struct sched *s = w->s;
	uint32_t            tx, far;

	if (w->left == 0) {
		/* Next segment: it must start where we stand. */
		if (w->i == w->nseg)
			return (w->nseg ? (int64_t)SCHED_NONE : -COLL_EPATH);
		if (w->seg[w->i].node != w->node || w->seg[w->i].hops == 0)
			return (-COLL_EPATH);
		w->port = w->seg[w->i].port;
		w->left = w->seg[w->i].hops;
		w->i++;
	}
	if (w->port >= s->ports)
		return (-COLL_EPORT);
	tx = w->node * s->ports + w->port;
	if ((far = w->peer[tx]) == SCHED_NONE)
		return (-COLL_EDARK);
	w->node = far / s->ports;
	/* Straight on: in by port q, out by q ^ 1. */
	w->port = (far % s->ports) ^ 1u;
	w->left--;
	return (tx);
}

uint32_t
sched_xfer_hops(const struct sched *s, const struct sched_xfer *x)
{
	uint32_t i, h = 0;

	for (i = 0; i < x->nseg; i++)
		h += s->seg[x->seg_off + i].hops;
	return (h);
}

void
sched_blk_name(const struct sched *s, uint32_t b, char *buf, size_t len)
{
	if (s->parts > 1)
		snprintf(buf, len, "B[%u,%u].%u", sched_blk_src(s, b),
		         sched_blk_dst(s, b), sched_blk_part(s, b));
	else
		snprintf(buf, len, "B[%u,%u]", sched_blk_src(s, b),
		         sched_blk_dst(s, b));
}
