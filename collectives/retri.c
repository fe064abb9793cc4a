/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ReTri: balanced-ternary All-to-All on reusable subrings
 * (spec/alltoall-ocs.md).  Block B[r,d] with centred offset
 * D = sum tau_k 3^k moves by tau_k * 3^k in phase k; before phase k it sits
 * at r + P_k(D), P_k = sum_{l<k} tau_l 3^l.  The state is shift invariant:
 * node i holds one block per offset value before every phase, so each
 * class lists (v, P_k(v)) once for all nodes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/a2a.h"
#include "collectives/retri.h"

uint32_t
retri_nphases(uint64_t n, uint32_t radix)
{
	uint64_t p = 1;
	uint32_t s = 0;

	while (p < n) {
		p *= radix;
		s++;
	}
	return (s ? s : 1);
}

int64_t
retri_centre(uint64_t v, uint64_t n)
{
	v %= n;
	return (2 * v <= n ? (int64_t)v : (int64_t)v - (int64_t)n);
}

int
retri_digits_b(int64_t x, uint32_t s, uint32_t b, int8_t *tau)
{
	int64_t  q = (int64_t)(b - 1) / 2;
	uint32_t k;

	for (k = 0; k < s; k++) {
		int64_t r = ((x % (int64_t)b) + (int64_t)b) % (int64_t)b;

		if (r > q)
			r -= (int64_t)b;
		tau[k] = (int8_t)r;
		x = (x - r) / (int64_t)b;
	}
	return (x == 0 ? 0 : -ERANGE);
}

int
retri_digits(int64_t x, uint32_t s, int8_t *tau)
{
	uint32_t k;

	for (k = 0; k < s; k++) {
		int64_t r = ((x % 3) + 3) % 3;

		if (r == 2) {
			tau[k] = -1;
			x = (x + 1) / 3;
		} else {
			tau[k] = (int8_t)r;
			x = (x - r) / 3;
		}
	}
	return (x == 0 ? 0 : -ERANGE);
}

/*
 * A node's block units: (offset v, part, digits).  For even n the tie,
 * offset n/2, is split: part 0 goes +n/2, part 1 -n/2 (the mirror
 * digits), so each phase's two directions carry the same load (the
 * static baseline splits it the same way); every other offset's parts
 * travel together.  Odd n: one part.
 */
struct unit {
	uint32_t v, part;
	int64_t  x; /* the signed offset it travels */
};

static uint32_t
retri_units(uint32_t n, struct unit *u)
{
	uint32_t parts = n % 2 == 0 ? 2 : 1, v, p, k = 0;

	for (v = 0; v < n; v++)
		for (p = 0; p < parts; p++) {
			int64_t x = retri_centre(v, n);

			if (2 * (uint64_t)v == n && p == 1)
				x = -x; /* the tie's other half */
			u[k++] = (struct unit){v, p, x};
		}
	return (k);
}

/*
 * Classes per phase k, radix b = 2q + 1: for a = 1..q, class 2(a-1) is
 * digit +a (to i + a b^k on ring a-1's R side), class 2(a-1)+1 digit -a
 * (to i - a b^k, its L side); ring a-1 has stride a b^k.  Two passes over
 * the digits: count, then fill.
 */
static uint32_t
cls_of(int8_t t)
{
	return (2 * (uint32_t)(t < 0 ? -t - 1 : t - 1) + (t < 0));
}

static void
retri_phases(struct circ_prof *p, uint32_t s, uint32_t b, const uint64_t *cnt)
{
	uint32_t q = (b - 1) / 2, k, c;
	uint64_t total = 0, pk;

	for (k = 0, pk = 1; k < s; k++, pk *= b) {
		struct circ_phase *ph = &p->ph[k];

		ph->stride = pk;
		ph->nring = q;
		for (c = 1; c < q; c++)
			ph->more[c] = (c + 1) * pk;
		ph->ncls = 2 * q;
		ph->cls = p->pool + 2 * q * k;
		for (c = 0; c < 2 * q; c++) {
			int64_t a = (int64_t)(c / 2 + 1) * (int64_t)pk;

			ph->cls[c].offset = c % 2 == 0 ? a : -a;
			ph->cls[c].pref = c % 2 == 0 ? +1 : -1;
			ph->cls[c].ring = (uint8_t)(c / 2);
			ph->cls[c].blk = p->blkpool + total;
			total += cnt[2 * q * k + c];
		}
	}
}

static int
retri_init(struct a2a *a)
{
	uint32_t n = a->n, b = a->radix ? a->radix : 3, q = (b - 1) / 2;
	uint32_t s = retri_nphases(n, b), k, i, nu;
	uint32_t parts = n % 2 == 0 ? 2 : 1;
	struct circ_prof *p = &a->prof;
	struct unit      *u;
	int8_t           *tau;
	uint64_t         *cnt, total = 0, pk;
	int               rv = -ENOMEM;

	if (b < 3 || b % 2 == 0 || b > RETRI_MAX_RADIX)
		return (-EINVAL);
	u = malloc((size_t)n * parts * sizeof(*u));
	tau = malloc((size_t)n * parts * s);
	cnt = calloc(2 * (size_t)q * s, sizeof(*cnt));
	if (u == NULL || tau == NULL || cnt == NULL)
		goto out;
	nu = retri_units(n, u);
	for (i = 0; i < nu; i++) {
		int8_t *t = tau + (size_t)i * s;

		if ((rv = retri_digits_b(u[i].x, s, b, t)) != 0)
			goto out;
		for (k = 0; k < s; k++)
			if (t[k] != 0) {
				cnt[2 * q * k + cls_of(t[k])]++;
				total++;
			}
	}
	if ((rv = circ_alloc(p, n, parts, s, 2 * q * s, total)) != 0)
		goto out;
	retri_phases(p, s, b, cnt);
	for (i = 0; i < nu; i++) {
		int8_t *t = tau + (size_t)i * s;
		int64_t pre = 0;

		for (k = 0, pk = 1; k < s; k++, pk *= b) {
			if (t[k] != 0) {
				struct circ_class *cl =
				    &p->ph[k].cls[cls_of(t[k])];
				struct circ_blk *bk = &cl->blk[cl->units++];

				bk->v = u[i].v;
				bk->part = u[i].part;
				bk->pre = pre;
			}
			pre += t[k] * (int64_t)pk;
		}
	}
	rv = 0;
out:
	free(u);
	free(tau);
	free(cnt);
	return (rv);
}

const struct a2a_ops a2a_retri_ops = {
    .name = "retri",
    .radix = 3,
    .init = retri_init,
};
