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
	free(s->vmat);
	free(s->vb);
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
	p->planes = 0;
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
	s->circ[s->ncirc].oneway = 0;
	memset(s->circ[s->ncirc].pad, 0, sizeof(s->circ[s->ncirc].pad));
	s->ncirc++;
	c->ncirc++;
	return (0);
}

int
sched_add_link(struct sched *s, uint32_t a, uint16_t pa, uint32_t b,
               uint16_t pb)
{
	int rv;

	if ((rv = sched_add_circuit(s, a, pa, b, pb)) == 0)
		s->circ[s->ncirc - 1].oneway = 1;
	return (rv);
}

int
sched_init_v(struct sched *s, const char *algo, uint32_t n, uint32_t ports,
             const uint64_t *mat)
{
	uint64_t row, max = 0;
	uint32_t i, j;
	int      rv;

	if ((rv = sched_init(s, algo, SCHED_ALLTOALLV, n, ports, 1, 0)) != 0)
		return (rv);
	if ((s->vmat = malloc((size_t)n * n * sizeof(*s->vmat))) == NULL)
		return (-ENOMEM);
	memcpy(s->vmat, mat, (size_t)n * n * sizeof(*s->vmat));
	for (i = 0; i < n; i++) {
		for (row = 0, j = 0; j < n; j++)
			row += j != i ? mat[(size_t)i * n + j] : 0;
		if (row > max)
			max = row;
	}
	s->bytes = max;
	return (0);
}

int
sched_add_vblk(struct sched *s, uint32_t src, uint32_t dst, uint64_t off,
               uint64_t len)
{
	int rv;

	if (s->coll != SCHED_ALLTOALLV || src >= s->n || dst >= s->n)
		return (-EINVAL);
	if ((rv = GROW(s, vb, vb, (uint64_t)s->nvb + 1)) != 0)
		return (rv);
	if (s->nvb >= INT32_MAX)
		return (-COLL_ETOOBIG);
	s->vb[s->nvb] = (struct sched_vblk){src, dst, off, len};
	return ((int)s->nvb++);
}

/* Part p of `total` bytes cut in `parts`: [off, off + len). */
static void
cut(uint64_t total, uint32_t parts, uint32_t p, uint64_t *off, uint64_t *len)
{
	uint64_t q = total / parts, r = total % parts;
	uint64_t a = p * q + (p * r) / parts;
	uint64_t b = (p + 1) * q + ((p + 1) * r) / parts;

	*off = a;
	*len = b - a;
}

int
sched_resize_v(struct sched *s, const uint64_t *mat)
{
	uint32_t n = s->n, nb, b, i, j;
	uint64_t row, max = 0;

	if (s->coll != SCHED_ALLTOALL || s->vb != NULL)
		return (-EINVAL);
	nb = n * n * s->parts;
	s->vmat = malloc((size_t)n * n * sizeof(*s->vmat));
	s->vb = malloc(((size_t)nb + 1) * sizeof(*s->vb));
	if (s->vmat == NULL || s->vb == NULL)
		return (-ENOMEM);
	memcpy(s->vmat, mat, (size_t)n * n * sizeof(*s->vmat));
	for (b = 0; b < nb; b++) {
		uint32_t r = b / s->parts / n, d = b / s->parts % n;
		uint64_t t = r == d ? 0 : mat[(size_t)r * n + d], off, len;

		cut(t, s->parts, b % s->parts, &off, &len);
		s->vb[b] = (struct sched_vblk){r, d, off, len};
	}
	s->nvb = s->cap_vb = nb;
	s->coll = SCHED_ALLTOALLV;
	for (i = 0; i < s->nxf; i++) {
		struct sched_xfer *x = &s->xf[i];

		x->bytes = 0;
		for (j = 0; j < x->nblk; j++)
			x->bytes += s->vb[s->blk[x->blk_off + j]].len;
	}
	for (i = 0; i < n; i++) {
		for (row = 0, j = 0; j < n; j++)
			row += j != i ? mat[(size_t)i * n + j] : 0;
		max = row > max ? row : max;
	}
	s->bytes = max;
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
	if (s->vb != NULL) {
		const struct sched_vblk *v = &s->vb[b];
		uint64_t                 o = v->off;
		uint32_t                 j;

		for (j = 0; j < v->dst; j++)
			o += j != v->src ? s->vmat[(size_t)v->src * s->n + j]
			                 : 0;
		return (o);
	}
	uint64_t N = (uint64_t)(s->ngpu ? s->ngpu : s->n) * s->parts;
	uint64_t j = b % N;
	uint64_t q = s->bytes / N, r = s->bytes % N;

	return (j * q + (j * r) / N);
}

uint64_t
sched_blk_bytes(const struct sched *s, uint32_t b)
{
	if (s->vb != NULL)
		return (s->vb[b].len);
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
	        (size_t)s->cap_seg * sizeof(*s->seg) +
	        (size_t)s->cap_vb * sizeof(*s->vb) +
	        (s->vmat ? (size_t)s->n * s->n * sizeof(*s->vmat) : 0));
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

/* One-way circuits: each receiver hears at most one transmitter, and a
 * configuration does not mix them with bidirectional ones. */
static int
peers_rx(const struct sched *s, const struct sched_cfg *c, uint32_t *bad_circ)
{
	uint8_t *rx;
	uint32_t i, nway = 0;
	int      rv = 0;

	for (i = 0; i < c->ncirc; i++)
		nway += s->circ[c->circ_off + i].oneway != 0;
	if (nway == 0)
		return (0);
	if ((rx = calloc((size_t)s->n * s->ports, 1)) == NULL)
		return (-ENOMEM);
	for (i = 0; i < c->ncirc && rv == 0; i++) {
		const struct sched_circuit *e = &s->circ[c->circ_off + i];
		uint32_t                    eb = e->b * s->ports + e->pb;

		if (!e->oneway || rx[eb]++ != 0) {
			if (bad_circ)
				*bad_circ = i;
			rv = -COLL_EPORT;
		}
	}
	free(rx);
	return (rv);
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
		    e->pb >= s->ports || e->a == e->b ||
		    (s->local_from &&
		     (e->pa >= s->local_from || e->pb >= s->local_from)))
			goto bad;
		ea = e->a * s->ports + e->pa;
		eb = e->b * s->ports + e->pb;
		if (peer[ea] != SCHED_NONE ||
		    (!e->oneway && peer[eb] != SCHED_NONE))
			goto bad;
		peer[ea] = eb;
		if (!e->oneway)
			peer[eb] = ea;
		continue;
	bad:
		if (bad_circ)
			*bad_circ = i;
		return (-COLL_EPORT);
	}
	/* A server's local links are there in every configuration. */
	for (i = 0; s->local_from && i < np; i++) {
		uint32_t fp,
		    far = sched_local_peer(s, i / s->ports, i % s->ports, &fp);

		if (far != SCHED_NONE)
			peer[i] = far * s->ports + fp;
	}
	return (peers_rx(s, c, bad_circ));
}

uint32_t
sched_local_peer(const struct sched *s, uint32_t i, uint32_t q,
                 uint32_t *far_port)
{
	uint32_t g = s->ports - s->local_from + 1, k, j;

	if (s->local_from == 0 || q < s->local_from || q >= s->ports ||
	    i >= s->n || s->n % g != 0)
		return (SCHED_NONE);
	k = i % g;
	j = q - s->local_from;
	j = j < k ? j : j + 1; /* the j-th other node of the server */
	*far_port = s->local_from + (k < j ? k : k - 1);
	return (i - k + j);
}

uint32_t
sched_local_port(const struct sched *s, uint32_t i, uint32_t j)
{
	uint32_t g = s->ports - s->local_from + 1, k, q;

	if (s->local_from == 0 || i >= s->n || j >= s->n || i == j ||
	    i / g != j / g)
		return (SCHED_NONE);
	k = i % g;
	q = j % g;
	return (s->local_from + (q < k ? q : q - 1));
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
	if (s->vb != NULL)
		snprintf(buf, len, "B[%u,%u]@%llu+%llu", s->vb[b].src,
		         s->vb[b].dst, (unsigned long long)s->vb[b].off,
		         (unsigned long long)s->vb[b].len);
	else if (s->parts > 1)
		snprintf(buf, len, "B[%u,%u].%u", sched_blk_src(s, b),
		         sched_blk_dst(s, b), sched_blk_part(s, b));
	else
		snprintf(buf, len, "B[%u,%u]", sched_blk_src(s, b),
		         sched_blk_dst(s, b));
}
