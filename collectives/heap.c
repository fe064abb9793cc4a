/* SPDX-License-Identifier: BSD-2-Clause */
/* The binary min-heap of heap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/heap.h"

int
heap_push(struct heap *h, uint64_t x)
{
	size_t i;

	if (h->n == h->cap) {
		size_t    nc = h->cap ? 2 * h->cap : 1024;
		uint64_t *nv = realloc(h->v, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		h->v = nv;
		h->cap = nc;
	}
	i = h->n++;
	h->v[i] = x;
	while (i > 0 && h->v[(i - 1) / 2] > h->v[i]) {
		uint64_t t = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return (0);
}

uint64_t
heap_pop(struct heap *h)
{
	uint64_t top = h->v[0];
	size_t   i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t   l = 2 * i + 1, r = l + 1, m = i;
		uint64_t t;

		if (l < h->n && h->v[l] < h->v[m])
			m = l;
		if (r < h->n && h->v[r] < h->v[m])
			m = r;
		if (m == i)
			break;
		t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
	return (top);
}

void
heap_free(struct heap *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}
