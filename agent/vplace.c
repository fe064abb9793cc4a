/* SPDX-License-Identifier: BSD-2-Clause */
/* First-fit placement of explicit blocks (see vplace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/vplace.h"

#define UNPLACED UINT64_MAX

/* Free extents, sorted by offset, below top (the slab's high mark). */
struct arena {
	uint64_t *off, *len;
	uint32_t  n;
	uint64_t  top, peak;
};

static uint64_t
arena_alloc(struct arena *a, uint64_t len)
{
	uint64_t at;
	uint32_t i;

	for (i = 0; i < a->n; i++)
		if (a->len[i] >= len) {
			at = a->off[i];
			a->off[i] += len;
			if ((a->len[i] -= len) == 0) {
				memmove(a->off + i, a->off + i + 1,
				        (a->n - i - 1) * sizeof(*a->off));
				memmove(a->len + i, a->len + i + 1,
				        (a->n - i - 1) * sizeof(*a->len));
				a->n--;
			}
			return (at);
		}
	at = a->top;
	a->top += len;
	if (a->top > a->peak)
		a->peak = a->top;
	return (at);
}

/* Give [at, at + len) back, merging with its neighbours and the top. */
static void
arena_free(struct arena *a, uint64_t at, uint64_t len)
{
	uint32_t i = 0;

	if (len == 0)
		return;
	while (i < a->n && a->off[i] < at)
		i++;
	memmove(a->off + i + 1, a->off + i, (a->n - i) * sizeof(*a->off));
	memmove(a->len + i + 1, a->len + i, (a->n - i) * sizeof(*a->len));
	a->off[i] = at;
	a->len[i] = len;
	a->n++;
	if (i + 1 < a->n && a->off[i] + a->len[i] == a->off[i + 1]) {
		a->len[i] += a->len[i + 1];
		memmove(a->off + i + 1, a->off + i + 2,
		        (a->n - i - 2) * sizeof(*a->off));
		memmove(a->len + i + 1, a->len + i + 2,
		        (a->n - i - 2) * sizeof(*a->len));
		a->n--;
	}
	if (i > 0 && a->off[i - 1] + a->len[i - 1] == a->off[i]) {
		a->len[i - 1] += a->len[i];
		memmove(a->off + i, a->off + i + 1,
		        (a->n - i - 1) * sizeof(*a->off));
		memmove(a->len + i, a->len + i + 1,
		        (a->n - i - 1) * sizeof(*a->len));
		a->n--;
		i--;
	}
	if (a->off[i] + a->len[i] == a->top) {
		a->top = a->off[i];
		a->n--;
	}
}

/* Place every block of a list not placed yet (0), or free them (1). */
static int
each(const struct plan *p, const uint32_t *blk, uint32_t nblk, int release,
     struct arena *a, uint64_t *at)
{
	uint32_t j;

	for (j = 0; j < nblk; j++) {
		const struct plan_vblk *v = plan_vblk(p, blk[j]);
		size_t                  i;

		if (v == NULL)
			return (-EINVAL);
		i = (size_t)(v - p->vb);
		if (release && at[i] != UNPLACED) {
			arena_free(a, at[i], v->len);
			at[i] = UNPLACED; /* the next holder places it again */
		} else if (!release && at[i] == UNPLACED)
			at[i] = arena_alloc(a, v->len);
	}
	return (0);
}

int
vplace(const struct plan *p, uint64_t *at, uint64_t *peak)
{
	struct arena a = {0};
	uint64_t    *final;
	uint32_t     i, k;
	int          rv = 0;

	a.off = malloc((p->nvb + 2) * sizeof(*a.off));
	a.len = malloc((p->nvb + 2) * sizeof(*a.len));
	final = malloc((p->nvb + 1) * sizeof(*final));
	if (a.off == NULL || a.len == NULL || final == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nvb; i++) {
		at[i] = final[i] = UNPLACED;
		if (p->vb[i].src == p->node)
			at[i] = final[i] = arena_alloc(&a, p->vb[i].len);
	}
	for (k = 0; k < p->nph && rv == 0; k++) {
		const struct plan_phase *ph = &p->ph[k];

		for (i = 0; i < ph->nrecv && rv == 0; i++) {
			rv = each(p, ph->recv[i].blk, ph->recv[i].nblk, 0, &a,
			          at);
			for (uint32_t j = 0; rv == 0 && j < ph->recv[i].nblk;
			     j++) {
				size_t x =
				    (size_t)(plan_vblk(p, ph->recv[i].blk[j]) -
				             p->vb);

				final[x] = at[x];
			}
		}
		for (i = 0; i < ph->nsend && rv == 0; i++)
			rv = each(p, ph->send[i].blk, ph->send[i].nblk, 1, &a,
			          at);
	}
	/* Where each block was last put is where the executor keeps it:
	 * a block is placed once at this node (it arrives once or is the
	 * node's own), so that is also where it was first put. */
	memcpy(at, final, p->nvb * sizeof(*at));
	for (i = 0; i < p->nvb; i++)
		/* Never held here: nothing is stored for it. */
		if (at[i] == UNPLACED)
			at[i] = 0;
	*peak = a.peak;
out:
	free(a.off);
	free(a.len);
	free(final);
	return (rv);
}
