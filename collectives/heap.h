/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A binary min-heap of 64-bit keys, for the searches and event queues of
 * topology synthesis: callers pack (slot or distance) << 32 | value.
 */
#ifndef COLL_HEAP_H
#define COLL_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct heap {
	uint64_t *v;
	size_t    n, cap;
};

/* 0 or -ENOMEM. */
int heap_push(struct heap *, uint64_t);
/* The smallest; the heap must not be empty. */
uint64_t heap_pop(struct heap *);
void     heap_free(struct heap *);

static inline uint64_t
heap_top(const struct heap *h)
{
	return (h->v[0]);
}

#endif
