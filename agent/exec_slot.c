/* SPDX-License-Identifier: BSD-2-Clause */
/* The executor's block slots and buffers: where each block lives while
 * the node holds it, and the byte buffers of the ports (see exec_int.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "agent/frame.h"
#include "agent/pattern.h"
#include "agent/vplace.h"
#include "collectives/sched.h"
#include "proto/base/mono.h"
#include "agent/exec_int.h"

/* ---- holdings: slots found by block id (linear probing) --------------- */

static uint32_t
hslot(const struct exec *e, uint32_t b)
{
	return ((b * 2654435761u) & e->hmask);
}

/* Slot of an explicit block: its index in p.vb, or NONE. */
static uint32_t
vslot(const struct exec *e, uint32_t b)
{
	const struct plan_vblk *v = plan_vblk(&e->p, b);

	return (v ? (uint32_t)(v - e->p.vb) : NONE);
}

uint32_t
ex_find(const struct exec *e, uint32_t b)
{
	uint32_t i = hslot(e, b);

	if (e->p.vb != NULL) {
		i = vslot(e, b);
		return (i != NONE && e->vheld[i] ? i : NONE);
	}

	while (e->hash[i]) {
		if (e->slots[e->hash[i] - 1].blk == b)
			return (e->hash[i] - 1);
		i = (i + 1) & e->hmask;
	}
	return (NONE);
}

uint32_t
ex_take(struct exec *e, uint32_t b)
{
	uint32_t s, i;

	if (e->p.vb != NULL) {
		if ((s = vslot(e, b)) == NONE || e->vheld[s])
			return (NONE);
		e->vheld[s] = 1;
		e->slots[s] = (struct slot){b, 0};
		e->nheld++;
		return (s);
	}
	if (e->nfree == 0)
		return (NONE);
	s = e->freel[--e->nfree];
	e->slots[s].blk = b;
	e->slots[s].have = 0;
	for (i = hslot(e, b); e->hash[i]; i = (i + 1) & e->hmask)
		;
	e->hash[i] = s + 1;
	e->nheld++;
	return (s);
}

/* Remove b; backward-shift the probe chain (no tombstones). */
void
ex_give(struct exec *e, uint32_t b)
{
	uint32_t i = hslot(e, b), j, h;

	if (e->p.vb != NULL) {
		if ((i = vslot(e, b)) != NONE && e->vheld[i]) {
			e->vheld[i] = 0;
			e->nheld--;
		}
		return;
	}
	while (e->hash[i] && e->slots[e->hash[i] - 1].blk != b)
		i = (i + 1) & e->hmask;
	if (e->hash[i] == 0)
		return;
	e->freel[e->nfree++] = e->hash[i] - 1;
	e->hash[i] = 0;
	e->nheld--;
	for (j = (i + 1) & e->hmask; e->hash[j]; j = (j + 1) & e->hmask) {
		h = hslot(e, e->slots[e->hash[j] - 1].blk);
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			e->hash[i] = e->hash[j];
			e->hash[j] = 0;
			i = j;
		}
	}
}

uint8_t *
ex_slot_data(const struct exec *e, uint32_t s)
{
	if (e->p.vb != NULL)
		return (e->slab + e->vat[s]);
	return (e->slab + (size_t)s * e->slot_bytes);
}

uint32_t
ex_blk_size(const struct exec *e, uint32_t b)
{
	const struct plan_vblk *v;

	if (e->p.vb != NULL)
		return ((v = plan_vblk(&e->p, b)) ? (uint32_t)v->len : 0);
	return ((uint32_t)sched_blk_bytes(&e->lay, b));
}

/* Pattern coordinates of block b: its pair, part and first byte. */
void
ex_blk_pattern(const struct exec *e, uint32_t b, uint32_t *src, uint32_t *dst,
               uint32_t *part, uint64_t *off)
{
	const struct plan_vblk *v;

	if (e->p.vb != NULL && (v = plan_vblk(&e->p, b)) != NULL) {
		*src = v->src;
		*dst = v->dst;
		*part = 0;
		*off = v->off;
		return;
	}
	*src = sched_blk_src(&e->lay, b);
	*dst = sched_blk_dst(&e->lay, b);
	*part = sched_blk_part(&e->lay, b);
	*off = 0;
}

/* ---- buffers ------------------------------------------------------------ */

/*
 * Room for `need` more bytes at the tail.  The queued bytes are moved to
 * the front only when the room at the front is at least as large (so a
 * long relay queue, sent from its head while it grows at its tail, is
 * not moved whole for every frame); else the buffer doubles in place.
 */
int
ex_buf_grow(struct buf *b, size_t need)
{
	size_t   live = b->tail - b->head, ncap = 2 * b->cap;
	uint8_t *np;

	if (b->head >= live)
		ex_buf_compact(b);
	if (b->cap - b->tail >= need)
		return (0);
	while (ncap - b->tail < need)
		ncap *= 2;
	/* realloc: a large buffer is remapped, not copied, and only the
	 * pages added are new (a fresh page costs a fault and a clear in
	 * the data phase; allocating anew cost 4 000 of them a node and
	 * run in bench_run's ring). */
	if (ncap > ((size_t)1 << 32) || (np = realloc(b->p, ncap)) == NULL)
		return (-ENOMEM);
	b->p = np;
	b->cap = ncap;
	return (0);
}

void
ex_buf_compact(struct buf *b)
{
	if (b->head == 0)
		return;
	memmove(b->p, b->p + b->head, b->tail - b->head);
	b->tail -= b->head;
	b->head = 0;
}

/* ---- setup -------------------------------------------------------------- */

/* Touch every page of p now, in the setup, not in the data phase (a
 * memset would not do: made into calloc, it leaves pages untouched). */
void
ex_prefault(uint8_t *p, size_t len)
{
	volatile uint8_t *v = p;
	size_t            i;

	for (i = 0; i < len; i += 4096)
		v[i] = 0;
}
