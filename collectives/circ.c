/* SPDX-License-Identifier: BSD-2-Clause */
/* Circulant profiles: routing on ring configurations and phase costs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/circ.h"

int
circ_alloc(struct circ_prof *p, uint32_t n, uint32_t parts, uint32_t nph,
           uint32_t ncls, uint64_t nblk)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->parts = parts;
	p->nph = nph;
	p->nblk = nblk;
	p->ph = calloc(nph ? nph : 1, sizeof(*p->ph));
	p->pool = calloc(ncls ? ncls : 1, sizeof(*p->pool));
	p->blkpool = calloc(nblk ? nblk : 1, sizeof(*p->blkpool));
	if (p->ph == NULL || p->pool == NULL || p->blkpool == NULL) {
		circ_free(p);
		return (-ENOMEM);
	}
	return (0);
}

void
circ_free(struct circ_prof *p)
{
	free(p->ph);
	free(p->pool);
	free(p->blkpool);
	memset(p, 0, sizeof(*p));
}

uint32_t
circ_blocks(const struct circ_prof *p, uint32_t ph, uint32_t cls,
            uint32_t node, uint32_t *out)
{
	const struct circ_class *c = &p->ph[ph].cls[cls];
	uint32_t                 n = p->n, i, r, d;

	/* pre and v are in [0, n) (circ_normalise), so no division here:
	 * this loop writes every block id of a materialised schedule. */
	for (i = 0; i < c->units; i++) {
		const struct circ_blk *b = &c->blk[i];

		r = node >= b->pre ? node - (uint32_t)b->pre
		                   : node + n - (uint32_t)b->pre;
		d = r + b->v;
		if (d >= n)
			d -= n;
		out[i] = (r * n + d) * p->parts + b->part;
	}
	return (c->units);
}

void
circ_normalise(struct circ_prof *p)
{
	int64_t  n = p->n;
	uint64_t i;

	for (i = 0; i < p->nblk; i++) {
		p->blkpool[i].pre = ((p->blkpool[i].pre % n) + n) % n;
		p->blkpool[i].v %= p->n;
	}
}

static uint64_t
gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return (a);
}

/* Inverse of a modulo m (gcd(a, m) = 1, m >= 1). */
static uint64_t
inv_mod(uint64_t a, uint64_t m)
{
	__int128 t = 0, nt = 1, r = m, nr = a % m, q, tmp;

	while (nr != 0) {
		q = r / nr;
		tmp = t - q * nt;
		t = nt;
		nt = tmp;
		tmp = r - q * nr;
		r = nr;
		nr = tmp;
	}
	if (t < 0)
		t += m;
	return ((uint64_t)t);
}

int
circ_route(uint64_t n, uint64_t stride, int64_t offset, int pref,
           uint64_t *hops, int *dir)
{
	uint64_t g, len, off, x, right, left;

	stride %= n;
	off = (uint64_t)(((offset % (int64_t)n) + (int64_t)n) % (int64_t)n);
	if (stride == 0 || off == 0)
		return (-COLL_EUNREACH);
	g = gcd64(n, stride);
	if (off % g != 0)
		return (-COLL_EUNREACH);
	len = n / g;
	/* x * stride = off (mod n)  <=>  x * (stride/g) = off/g (mod len) */
	x = (uint64_t)(((unsigned __int128)(off / g) *
	                inv_mod((stride / g) % len, len)) %
	               len);
	right = x;
	left = len - x;
	if (right < left || (right == left && pref >= 0)) {
		*hops = right;
		*dir = +1;
	} else {
		*hops = left;
		*dir = -1;
	}
	return (0);
}

int
circ_route_cfg(const struct circ_prof *p, uint32_t j,
               const struct circ_class *c, uint32_t *ring, uint64_t *hops,
               int *dir)
{
	const struct circ_phase *ph = &p->ph[j];
	uint32_t                 nr = circ_nring(ph), own, q, r, n = 0;
	uint32_t                 order[CIRC_MAX_RINGS];
	uint64_t                 h;
	int                      d, rv = -COLL_EUNREACH;

	/* The class's own ring first (it wins ties), then the others. */
	own = c->ring < nr ? c->ring : 0;
	order[n++] = own;
	for (r = 0; r < nr; r++)
		if (r != own)
			order[n++] = r;
	for (q = 0; q < n; q++) {
		r = order[q];
		if (circ_route(p->n, circ_stride(ph, r), c->offset, c->pref,
		               &h, &d) != 0)
			continue;
		if (rv == 0 && h >= *hops)
			continue;
		*ring = r;
		*hops = h;
		*dir = d;
		rv = 0;
	}
	return (rv);
}

int
circ_phase_cost(const struct circ_prof *p, uint32_t j, uint32_t k,
                const struct cost_params *cp, double blk_bytes,
                struct cost_phase *out)
{
	const struct circ_phase *ph = &p->ph[k];
	double                   load[2 * CIRC_MAX_RINGS] = {0}, lmax = 0;
	uint64_t                 h, hmax = 0;
	uint32_t                 i, umax = 0, ring;
	int                      dir, rv;

	if (j > k || k >= p->nph)
		return (-EINVAL);
	for (i = 0; i < ph->ncls; i++) {
		const struct circ_class *c = &ph->cls[i];

		if (c->units == 0)
			continue;
		if ((rv = circ_route_cfg(p, j, c, &ring, &h, &dir)) != 0)
			return (rv);
		load[2 * ring + (dir < 0)] += (double)c->units * (double)h;
		if (h > hmax)
			hmax = h;
		if (c->units > umax)
			umax = c->units;
	}
	for (i = 0; i < 2 * CIRC_MAX_RINGS; i++)
		lmax = load[i] > lmax ? load[i] : lmax;
	memset(out, 0, sizeof(*out));
	out->hops = (uint32_t)hmax;
	out->link_bytes = lmax * blk_bytes;
	out->dir_bytes = umax * blk_bytes;
	out->total = cp->alpha_s + cp->alpha_h * (double)hmax +
	             cp->beta * out->link_bytes +
	             cost_sf(cp, out->hops, out->dir_bytes);
	return (0);
}

int
circ_cost_matrix(const struct circ_prof *p, const struct cost_params *cp,
                 double blk_bytes, double *c)
{
	struct cost_phase pc;
	uint32_t          j, k;
	int               rv;

	for (j = 0; j < p->nph; j++) {
		for (k = 0; k < p->nph; k++) {
			c[j * p->nph + k] = 0;
			if (k < j)
				continue;
			rv = circ_phase_cost(p, j, k, cp, blk_bytes, &pc);
			if (rv != 0)
				return (rv);
			c[j * p->nph + k] = pc.total;
		}
	}
	return (0);
}
