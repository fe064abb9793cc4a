/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside topology synthesis: every algorithm produces an AllGather as a
 * list of sends (slot, link, chunk); tsyn.c turns it into the IR, and
 * into ReduceScatter and AllReduce.
 */
#ifndef COLL_TSYN_INT_H
#define COLL_TSYN_INT_H

#include <stdint.h>

#include "collectives/tsyn.h"

struct tsyn_send {
	uint32_t slot, link, chunk;
};

struct tsyn_plan {
	struct tsyn_send *v;
	size_t            n, cap;
	uint32_t          slots;   /* completion: last arrival slot */
	uint32_t          horizon; /* mteg: the time-expanded horizon used */
};

int  tsyn_plan_add(struct tsyn_plan *, uint32_t slot, uint32_t link,
                   uint32_t chunk);
void tsyn_plan_free(struct tsyn_plan *);
/* In slot order (then link, chunk). */
void tsyn_plan_sort(struct tsyn_plan *);

/*
 * Move *now to next, the slot where something can change (UINT32_MAX or
 * not later than *now: the next slot).  -COLL_ETOOBIG, said in err, past
 * TSYN_MAX_SLOTS.
 */
int tsyn_advance(uint32_t *now, uint32_t next, char *err, size_t errlen);

/* The owner node of chunk k. */
static inline uint32_t
tsyn_owner(const struct tsyn_model *m, uint32_t k)
{
	return (m->t->gpu_node[k / m->chunks]);
}

/* Bitsets of nbits over 64-bit words. */
static inline size_t
bs_words(uint32_t nbits)
{
	return ((nbits + 63) / 64);
}
static inline int
bs_get(const uint64_t *b, uint32_t i)
{
	return ((int)((b[i / 64] >> (i % 64)) & 1));
}
static inline void
bs_set(uint64_t *b, uint32_t i)
{
	b[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Every GPU reaches every other over the links?  0, or -COLL_EUNREACH
 * naming a pair. */
int tsyn_reachable(const struct topo *, char *err, size_t errlen);

/*
 * An algorithm, after a2a.h: its name, and an AllGather plan on m's
 * topology (0, -ENOMEM, -COLL_ETOOBIG, -COLL_EUNREACH, said in err).
 * reduces: its plan may be played backwards on the reversed links into a
 * ReduceScatter (cut-through routers may not); if not, why_not says why.
 * One symbol per file.
 */
struct tsyn_ops {
	const char *name;
	int         reduces;
	const char *why_not;
	int (*allgather)(const struct tsyn_model *, struct tsyn_plan *,
	                 char *err, size_t errlen);
};

extern const struct tsyn_ops tsyn_ten_ops;     /* tsyn_ten.c */
extern const struct tsyn_ops tsyn_mteg_ops;    /* tsyn_mteg.c */
extern const struct tsyn_ops tsyn_scalecc_ops; /* tsyn_scalecc.c */
extern const struct tsyn_ops tsyn_sph_ops;     /* tsyn_fifo.c */
extern const struct tsyn_ops tsyn_spt_ops;     /* tsyn_fifo.c */
extern const struct tsyn_ops tsyn_ring_ops;    /* tsyn_fifo.c */

/*
 * The replay with real rates and latencies (tsyn_replay), one send at a
 * time: chunk c over link l as soon as the link is free and the source
 * holds it (a router: as its head comes in), a copy (taking the first
 * arrival) or a partial sum (waiting for the last).  have and head are
 * [n * nchunk] (when node u holds chunk k, when its head came),
 * free_at [nlink].  The arrival.
 */
double tsyn_replay_send(const struct tsyn_model *, uint32_t l, uint32_t c,
                        int copy, double *have, double *head, double *free_at);
/* An AllGather plan in slot order, replayed so: its completion in
 * seconds (and in *last, if not NULL, the chunk that lands last), or -1
 * (out of memory). */
double tsyn_plan_replay(const struct tsyn_model *, const struct tsyn_plan *,
                        uint32_t *last);

/* The port of link l at its source: its position in the out list. */
uint16_t tsyn_out_port(const struct topo *, uint32_t l);

#endif
