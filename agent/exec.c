/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The executor (see exec.h).
 *
 * Flow control.  A node never stops reading its fibres: frames for it go
 * to their block slots, frames it relays go on at once from the input
 * (what the fibre does not take goes to the output queue of their port,
 * which grows as needed: at most the phase's relay volume through that
 * port, known from the plan).  Its own frames are injected
 * only while that queue is nearly empty, so relays go first and a node's
 * own data never fills the path.  With every reader always reading, the
 * rings of a reused configuration cannot lock up, however long the paths
 * and whatever the fibres and the switch buffer in between (a bounded
 * relay queue that stops reading can: every node waits for the next one
 * around the ring).  Frames of the next phase on the same circuits may
 * arrive early (no barrier between such phases): they wait at the head of
 * their input until this node moves on, which is safe because a fibre is
 * FIFO and a sender starts a phase only after finishing the last.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "agent/exec.h"
#include "agent/frame.h"
#include "agent/pattern.h"
#include "agent/vplace.h"
#include "collectives/sched.h"
#include "proto/base/mono.h"

#define NONE UINT32_MAX

struct buf {
	uint8_t *p;
	size_t   head, tail, cap;
};

struct port {
	struct xport *x;
	struct buf    in, out;
	int           synced; /* a frame of this run has been seen here */
	int           burst;  /* own frames sent in this inject pass */
	uint64_t      skipped;
};

struct slot {
	uint32_t blk;
	uint32_t have; /* bytes present */
};

/* One expected block of one phase, sorted by block id. */
struct expect {
	uint32_t blk, recv;
	uint32_t have; /* bytes arrived (topology collectives) */
};

struct exec {
	struct plan       p;
	struct sched      lay; /* block layout only: n, parts, bytes */
	struct port       port[EXEC_MAX_PORTS];
	struct exec_abort ab;
	uint32_t          run32;

	uint8_t     *slab;
	size_t       slab_len;
	size_t       slot_bytes;
	struct slot *slots;
	uint32_t     nslots, *freel, nfree, nheld;
	uint32_t    *hash, hmask;

	/* Explicit blocks (p.vb): slot s is block p.vb[s], its bytes at
	 * vat[s] in the slab, placed before the run (exec_vplace.c). */
	uint64_t *vat;
	uint8_t  *vheld;
	uint64_t  vslab;
	uint64_t *relay_bytes; /* per relay of the phase, explicit blocks */

	struct expect **exp;
	uint32_t       *nexp;
	uint32_t       *recv_done, *relay_done, *send_blk, *send_off;
	uint32_t        maxrecv, maxrelay, maxsend;

	/* Topology collectives: room to compute a frame's expected sum. */
	uint8_t *sum, *tmp;

	uint32_t         k;
	struct plan_done d;
	char            *err;
	size_t           errlen;
};

__attribute__((__format__(printf, 3, 4))) static int
fail(struct exec *e, int code, const char *fmt, ...)
{
	va_list ap;
	int     n;

	n = snprintf(e->err, e->errlen, "phase %u: ", e->k);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < e->errlen)
		vsnprintf(e->err + n, e->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return (code);
}

/* A topology collective (chunks kept when sent, sums for reductions). */
static int
is_coll(const struct plan *p)
{
	return (p->coll >= SCHED_ALLGATHER && p->coll <= SCHED_ALLREDUCE);
}

/* Do this phase's receives replace (gather) rather than add? */
static int
gathering(const struct exec *e)
{
	return (e->p.coll == SCHED_ALLGATHER ||
	        (e->p.coll == SCHED_ALLREDUCE && e->k >= e->p.ag_from));
}

static const char *
pname(uint32_t port)
{
	static const char *const n[] = {"R", "L", "2", "3",
	                                "4", "5", "6", "7"};

	return (port < EXEC_MAX_PORTS ? n[port] : "?");
}

static void
bname(const struct exec *e, uint32_t b, char *buf, size_t len)
{
	const struct plan_vblk *v;

	if (is_coll(&e->p))
		snprintf(buf, len, "chunk %u of node %u", b % e->p.parts,
		         b / e->p.parts);
	else if (e->p.vb == NULL)
		sched_blk_name(&e->lay, b, buf, len);
	else if ((v = plan_vblk(&e->p, b)) != NULL)
		snprintf(buf, len, "B[%u,%u]@%llu+%llu", v->src, v->dst,
		         (unsigned long long)v->off,
		         (unsigned long long)v->len);
	else
		snprintf(buf, len, "block %u", b);
}

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

static uint32_t
find(const struct exec *e, uint32_t b)
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

static uint32_t
take(struct exec *e, uint32_t b)
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
static void
give(struct exec *e, uint32_t b)
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

static uint8_t *
slot_data(const struct exec *e, uint32_t s)
{
	if (e->p.vb != NULL)
		return (e->slab + e->vat[s]);
	return (e->slab + (size_t)s * e->slot_bytes);
}

static uint32_t
blk_size(const struct exec *e, uint32_t b)
{
	const struct plan_vblk *v;

	if (e->p.vb != NULL)
		return ((v = plan_vblk(&e->p, b)) ? (uint32_t)v->len : 0);
	return ((uint32_t)sched_blk_bytes(&e->lay, b));
}

/* Pattern coordinates of block b: its pair, part and first byte. */
static void
blk_pattern(const struct exec *e, uint32_t b, uint32_t *src, uint32_t *dst,
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

static void buf_compact(struct buf *b);

/*
 * Room for `need` more bytes at the tail.  The queued bytes are moved to
 * the front only when the room at the front is at least as large (so a
 * long relay queue, sent from its head while it grows at its tail, is
 * not moved whole for every frame); else the buffer doubles in place.
 */
static int
buf_grow(struct buf *b, size_t need)
{
	size_t   live = b->tail - b->head, ncap = 2 * b->cap;
	uint8_t *np;

	if (b->head >= live)
		buf_compact(b);
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

static void
buf_compact(struct buf *b)
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
static void
prefault(uint8_t *p, size_t len)
{
	volatile uint8_t *v = p;
	size_t            i;

	for (i = 0; i < len; i += 4096)
		v[i] = 0;
}

static int
cmp_expect(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	return (x->blk < y->blk ? -1 : x->blk > y->blk);
}

/* Explicit blocks: each one a pair of real nodes, under 4 GiB (frame
 * offsets are 32-bit), and every block a send or receive names listed. */
static int
check_vblocks(const struct plan *p, char *err, size_t len)
{
	uint32_t k, i, j;

	for (i = 0; i < p->nvb; i++)
		if (p->vb[i].src >= p->n || p->vb[i].dst >= p->n ||
		    p->vb[i].src == p->vb[i].dst ||
		    p->vb[i].len > UINT32_MAX - 1 ||
		    p->vb[i].off > ((uint64_t)1 << 50)) {
			snprintf(err, len,
			         "plan: block %u (%u -> %u, %llu bytes) is "
			         "not one this run can hold",
			         p->vb[i].id, p->vb[i].src, p->vb[i].dst,
			         (unsigned long long)p->vb[i].len);
			return (-EINVAL);
		}
	for (k = 0; k < p->nph; k++) {
		const struct plan_phase *ph = &p->ph[k];

		for (i = 0; i < ph->nsend; i++)
			for (j = 0; j < ph->send[i].nblk; j++)
				if (plan_vblk(p, ph->send[i].blk[j]) == NULL)
					goto bad;
		for (i = 0; i < ph->nrecv; i++)
			for (j = 0; j < ph->recv[i].nblk; j++)
				if (plan_vblk(p, ph->recv[i].blk[j]) == NULL)
					goto bad;
	}
	return (0);
bad:
	snprintf(err, len, "plan: phase %u names a block it does not list", k);
	return (-EINVAL);
}

/* A Ready reports every phase since the last barrier: no stretch may be
 * longer than a Ready carries (the last one ends at the run's end). */
static int
check_stretches(const struct plan *p, char *err, size_t len)
{
	uint32_t k, last = 0;

	for (k = 1; k <= p->nph; k++) {
		if (k < p->nph && !p->ph[k].barrier)
			continue;
		if (k - last > PLAN_MAX_DONE) {
			snprintf(err, len,
			         "plan: phases %u..%u without a barrier (%u), "
			         "at most %u",
			         last, k - 1, k - last, PLAN_MAX_DONE);
			return (-EINVAL);
		}
		last = k;
	}
	return (0);
}

int
exec_check(const struct plan *p, char *err, size_t len)
{
	uint64_t nb = (uint64_t)p->n * p->n * p->parts;
	uint32_t k, i, j;

	/* Explicit block ids are any 32-bit ids the plan lists. */
	if (p->vb != NULL)
		nb = UINT32_MAX;
	if (p->coll > SCHED_ALLREDUCE || (is_coll(p) && p->vb != NULL) ||
	    (p->coll == SCHED_ALLREDUCE && p->ag_from > p->nph)) {
		snprintf(err, len, "plan: collective %u (ag_from %u)", p->coll,
		         p->ag_from);
		return (-EINVAL);
	}
	/* A node holds every chunk of a topology collective at most. */
	if (is_coll(p))
		nb = (uint64_t)p->n * p->parts;

	/* The slots must fit in memory arithmetic (and the hash table in
	 * 32 bits): at most every block, each under 4 GiB. */
	if (p->nports == 0 || p->nports > EXEC_MAX_PORTS || p->n < 2 ||
	    p->node >= p->n || p->parts == 0 ||
	    (p->vb == NULL && nb > UINT32_MAX / 4) || p->chunk < 64 ||
	    p->chunk > FRAME_MAX_PAYLOAD ||
	    (p->vb == NULL &&
	     (p->max_blocks < (uint64_t)p->n * p->parts ||
	      p->max_blocks > nb ||
	      p->bytes / ((uint64_t)p->n * p->parts) + 1 > UINT32_MAX)) ||
	    p->nph == 0 || p->ph == NULL) {
		snprintf(err, len,
		         "plan: bad sizes (n %u, node %u, parts %u, "
		         "chunk %u, ports %u)",
		         p->n, p->node, p->parts, p->chunk, p->nports);
		return (-EINVAL);
	}
	/* After the sizes: nb is n x parts, not zero, from here. */
	if ((p->coll == SCHED_REDUCESCATTER || p->coll == SCHED_ALLREDUCE) &&
	    (p->bytes % (4 * nb) != 0 || p->chunk % 4 != 0)) {
		snprintf(err, len,
		         "plan: sums need chunks and frames of whole int32 "
		         "elements (%llu bytes in %llu chunks, frames of %u)",
		         (unsigned long long)p->bytes, (unsigned long long)nb,
		         p->chunk);
		return (-EINVAL);
	}
	if (p->deadline_ms == 0 || p->deadline_ms > 86400000u) {
		snprintf(err, len, "plan: deadline_ms %u (1 ms to a day)",
		         p->deadline_ms);
		return (-EINVAL);
	}
	/* Phase 0 waits for its circuits: the release is its barrier. */
	if (!p->ph[0].barrier) {
		snprintf(err, len, "plan: phase 0 without a barrier");
		return (-EINVAL);
	}
	if (check_stretches(p, err, len) != 0 ||
	    (p->vb != NULL && check_vblocks(p, err, len) != 0))
		return (-EINVAL);
	for (k = 0; k < p->nph; k++) {
		const struct plan_phase *ph = &p->ph[k];

		for (i = 0; i < ph->nsend; i++) {
			if (ph->send[i].port >= p->nports ||
			    ph->send[i].dst >= p->n || ph->send[i].hops == 0 ||
			    ph->send[i].hops > 0xffff)
				goto bad;
			for (j = 0; j < ph->send[i].nblk; j++)
				if (ph->send[i].blk[j] >= nb)
					goto bad;
		}
		for (i = 0; i < ph->nrelay; i++)
			if (ph->relay[i].in_port >= p->nports ||
			    ph->relay[i].out_port >= p->nports ||
			    ph->relay[i].src >= p->n ||
			    ph->relay[i].dst >= p->n)
				goto bad;
		for (i = 0; i < ph->nrecv; i++) {
			if (ph->recv[i].port >= p->nports ||
			    ph->recv[i].src >= p->n)
				goto bad;
			for (j = 0; j < ph->recv[i].nblk; j++)
				if (ph->recv[i].blk[j] >= nb)
					goto bad;
		}
	}
	return (0);
bad:
	snprintf(err, len,
	         "plan: phase %u names a port, node or block that "
	         "does not exist",
	         k);
	return (-EINVAL);
}

static int
setup_expect(struct exec *e)
{
	uint32_t k, i, j, n;

	e->exp = calloc(e->p.nph, sizeof(*e->exp));
	e->nexp = calloc(e->p.nph, sizeof(*e->nexp));
	if (e->exp == NULL || e->nexp == NULL)
		return (-ENOMEM);
	for (k = 0; k < e->p.nph; k++) {
		const struct plan_phase *ph = &e->p.ph[k];

		for (n = 0, i = 0; i < ph->nrecv; i++)
			n += ph->recv[i].nblk;
		if ((e->exp[k] = calloc(n ? n : 1, sizeof(**e->exp))) == NULL)
			return (-ENOMEM);
		for (n = 0, i = 0; i < ph->nrecv; i++)
			for (j = 0; j < ph->recv[i].nblk; j++) {
				e->exp[k][n].blk = ph->recv[i].blk[j];
				e->exp[k][n++].recv = i;
			}
		qsort(e->exp[k], n, sizeof(**e->exp), cmp_expect);
		e->nexp[k] = n;
		if (ph->nrecv > e->maxrecv)
			e->maxrecv = ph->nrecv;
		if (ph->nrelay > e->maxrelay)
			e->maxrelay = ph->nrelay;
		if (ph->nsend > e->maxsend)
			e->maxsend = ph->nsend;
	}
	e->recv_done = calloc(e->maxrecv + 1, sizeof(uint32_t));
	e->relay_done = calloc(e->maxrelay + 1, sizeof(uint32_t));
	e->relay_bytes = calloc(e->maxrelay + 1, sizeof(uint64_t));
	e->send_blk = calloc(e->maxsend + 1, sizeof(uint32_t));
	e->send_off = calloc(e->maxsend + 1, sizeof(uint32_t));
	if (!e->recv_done || !e->relay_done || !e->send_blk || !e->send_off ||
	    !e->relay_bytes)
		return (-ENOMEM);
	return (0);
}

/*
 * The slab, its pages present: their first faults are setup, not data
 * time (a NIC's buffers are registered before a run, too).  malloc and
 * memset would not do it: the compiler makes them one calloc, which
 * leaves fresh pages untouched, and the faults then came in the data
 * phase.
 */
static int
slab_map(struct exec *e, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return (-ENOMEM);
	e->slab = p;
	e->slab_len = len;
	return (0);
}

/* Uniform blocks: slots of the largest block, as many as the plan holds
 * at once, found by a hash of their ids. */
static int
setup_slots(struct exec *e)
{
	uint32_t hcap, i;

	e->slot_bytes = e->p.bytes / ((uint64_t)e->p.n * e->p.parts) + 1;
	e->nslots = e->p.max_blocks;
	for (hcap = 16; hcap < 2 * e->nslots; hcap *= 2)
		;
	e->hmask = hcap - 1;
	e->slots = calloc(e->nslots, sizeof(*e->slots));
	e->freel = malloc(e->nslots * sizeof(*e->freel));
	e->hash = calloc(hcap, sizeof(*e->hash));
	if (!e->slots || !e->freel || !e->hash ||
	    slab_map(e, e->nslots * e->slot_bytes) != 0)
		return (-ENOMEM);
	for (i = 0; i < e->nslots; i++)
		e->freel[e->nfree++] = e->nslots - 1 - i;
	return (0);
}

/* Explicit blocks: one slot each, at the place vplace found. */
static int
setup_vslots(struct exec *e)
{
	e->nslots = e->p.nvb;
	e->vat = malloc((e->nslots + 1) * sizeof(*e->vat));
	e->vheld = calloc(e->nslots + 1, 1);
	e->slots = calloc(e->nslots + 1, sizeof(*e->slots));
	if (!e->vat || !e->vheld || !e->slots ||
	    vplace(&e->p, e->vat, &e->vslab) != 0)
		return (-ENOMEM);
	return (slab_map(e, e->vslab + 1));
}

/* A topology collective's own chunks: AllGather its share, the
 * reductions its contribution to every chunk (pattern (node, chunk)). */
static void
own_chunks(struct exec *e)
{
	uint32_t nb = e->p.n * e->p.parts, b, sl;
	int      share = e->p.coll == SCHED_ALLGATHER;

	for (b = share ? e->p.node * e->p.parts : 0;
	     b < (share ? (e->p.node + 1) * e->p.parts : nb); b++) {
		sl = take(e, b);
		pat_fill(slot_data(e, sl), blk_size(e, b), e->p.run, e->p.node,
		         b, 0, 0);
		e->slots[sl].have = blk_size(e, b);
	}
}

/* The node's own blocks, filled with the pattern: B[node, d].part for
 * every d, or the explicit blocks it is the source of. */
static void
own_blocks(struct exec *e)
{
	uint32_t d, part, b, sl, src, dst, pt;
	uint64_t off;

	if (is_coll(&e->p)) {
		own_chunks(e);
		return;
	}
	for (d = 0; e->p.vb == NULL && d < e->p.n; d++)
		for (part = 0; part < e->p.parts; part++) {
			b = sched_blk_id(&e->lay, e->p.node, d, part);
			sl = take(e, b);
			pat_fill(slot_data(e, sl), blk_size(e, b), e->p.run,
			         e->p.node, d, part, 0);
			e->slots[sl].have = blk_size(e, b);
		}
	for (d = 0; e->p.vb != NULL && d < e->p.nvb; d++) {
		if (e->p.vb[d].src != e->p.node)
			continue;
		b = e->p.vb[d].id;
		sl = take(e, b);
		blk_pattern(e, b, &src, &dst, &pt, &off);
		pat_fill(slot_data(e, sl), blk_size(e, b), e->p.run, src, dst,
		         pt, off);
		e->slots[sl].have = blk_size(e, b);
	}
}

int
exec_new(struct exec **out, const struct plan *p, struct xport *ports,
         const struct exec_abort *ab, char *err, size_t errlen)
{
	struct exec *e;
	uint32_t     i;
	size_t       fb;
	int          rv;

	*out = NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (-ENOMEM);
	e->p = *p;
	if ((rv = exec_check(p, err, errlen)) != 0) {
		free(e);
		return (rv);
	}
	e->run32 = (uint32_t)p->run;
	if (ab)
		e->ab = *ab;
	else
		e->ab.fd = -1;
	e->lay.n = p->n;
	e->lay.parts = p->parts;
	e->lay.bytes = p->bytes;
	rv = p->vb != NULL ? setup_vslots(e) : setup_slots(e);
	if (rv != 0 || setup_expect(e) != 0)
		goto nomem;
	/* Input holds at least one frame whole, and reads about a MiB at a
	 * time as a raw stream would (at 64 KiB chunks, 4 frames cost 13 %
	 * more CPU per byte than 16: more reads, and relays written on in
	 * smaller runs); output a few frames (bubble rule). */
	fb = FRAME_HDR + p->chunk;
	for (i = 0; i < p->nports; i++) {
		struct port *pt = &e->port[i];

		pt->x = &ports[i];
		pt->in.cap =
		    fb * (fb >= (1u << 18) ? 4 : ((1u << 20) / fb + 1));
		pt->out.cap = 4 * fb;
		pt->in.p = malloc(pt->in.cap);
		pt->out.p = malloc(pt->out.cap);
		if (pt->in.p == NULL || pt->out.p == NULL)
			goto nomem;
		prefault(pt->in.p, pt->in.cap);
		prefault(pt->out.p, pt->out.cap);
	}
	if (is_coll(p) && ((e->sum = malloc(p->chunk)) == NULL ||
	                   (e->tmp = malloc(p->chunk)) == NULL))
		goto nomem;
	own_blocks(e);
	*out = e;
	return (0);
nomem:
	exec_free(e);
	snprintf(err, errlen, "out of memory for a run of %llu bytes",
	         (unsigned long long)p->bytes);
	return (-ENOMEM);
}

void
exec_free(struct exec *e)
{

	uint32_t i;

	if (e == NULL)
		return;
	for (i = 0; i < EXEC_MAX_PORTS; i++) {
		free(e->port[i].in.p);
		free(e->port[i].out.p);
	}
	for (i = 0; e->exp && i < e->p.nph; i++)
		free(e->exp[i]);
	free(e->exp);
	free(e->nexp);
	free(e->recv_done);
	free(e->relay_done);
	free(e->send_blk);
	free(e->send_off);
	if (e->slab != NULL)
		munmap(e->slab, e->slab_len);
	free(e->slots);
	free(e->freel);
	free(e->hash);
	free(e->vat);
	free(e->vheld);
	free(e->relay_bytes);
	free(e->sum);
	free(e->tmp);
	free(e);
}

size_t
exec_mem(const struct exec *e)
{
	size_t m = sizeof(*e) +
	           e->nslots * (e->slot_bytes + sizeof(struct slot) + 4) +
	           (e->hmask + 1) * 4;

	if (e->p.vb != NULL)
		m = sizeof(*e) + e->vslab +
		    e->nslots * (sizeof(struct slot) + sizeof(uint64_t) + 1);
	uint32_t i;

	for (i = 0; i < e->p.nports; i++)
		m += e->port[i].in.cap + e->port[i].out.cap;
	for (i = 0; i < e->p.nph; i++)
		m += e->nexp[i] * sizeof(struct expect);
	return (m);
}

/* ---- sending ------------------------------------------------------------ */

/* Put one frame (header from f, payload p) at the tail of b, which has
 * room for two (the caller checked). */
static void
put_frame(struct buf *b, const struct frame *f, const void *p)
{
	if (b->cap - b->tail < FRAME_HDR + f->len)
		buf_compact(b);
	frame_put(b->p + b->tail, f, p);
	memcpy(b->p + b->tail + FRAME_HDR, p, f->len);
	b->tail += FRAME_HDR + f->len;
}

/* The frame of send i at block index bi, offset off: its header in f
 * and its payload in *pl; <0 if the node does not hold the block. */
static int
own_frame(struct exec *e, uint32_t i, uint32_t bi, uint32_t off,
          struct frame *f, const uint8_t **pl)
{
	const struct plan_send *s = &e->p.ph[e->k].send[i];
	uint32_t                b = s->blk[bi];
	uint32_t                sl = find(e, b), size = blk_size(e, b);

	if (sl == NONE || e->slots[sl].have != size) {
		char bn[48];

		bname(e, b, bn, sizeof(bn));
		return (
		    fail(e, -EPROTO,
		         "plan says send %s to node %u, but this node does "
		         "not hold it",
		         bn, s->dst));
	}
	f->run = e->run32;
	f->phase = (uint16_t)e->k;
	f->hops = (uint16_t)s->hops;
	f->src = e->p.node;
	f->dst = s->dst;
	f->block = b;
	f->off = off;
	f->len = size - off < e->p.chunk ? size - off : e->p.chunk;
	*pl = slot_data(e, sl) + off;
	return (0);
}

/* Count the frame f of send i as sent. */
static void
own_sent(struct exec *e, uint32_t i, const struct frame *f)
{
	e->d.sent += f->len;
	e->send_off[i] += f->len;
	if (e->send_off[i] == blk_size(e, f->block)) {
		/* Sent: no longer held here (a collective's node keeps its
		 * copy, or its sum). */
		if (!is_coll(&e->p))
			give(e, f->block);
		e->send_blk[i]++;
		e->send_off[i] = 0;
	}
}

/*
 * The next own frames of send i (up to two, the bubble rule's share),
 * with the port's queue empty: one gathered write straight from their
 * slots, and only what the fibre does not take now copied into the
 * queue (a lost fibre shows at the next flush, which reports it).
 * Frames, or -ENOTSUP if the transport cannot gather.
 */
static int
inject_through(struct exec *e, uint32_t i, struct port *pt)
{
	const struct plan_send *s = &e->p.ph[e->k].send[i];
	struct frame            f[2];
	const uint8_t          *pl[2];
	uint8_t                 h[2][FRAME_HDR];
	struct iovec            iov[4];
	uint32_t                bi = e->send_blk[i], off = e->send_off[i];
	int                     n, k, rv;
	ssize_t                 w;

	for (n = 0; n < 2 && bi < s->nblk; n++) {
		if ((rv = own_frame(e, i, bi, off, &f[n], &pl[n])) < 0)
			return (rv);
		frame_put(h[n], &f[n], pl[n]);
		iov[2 * n] = (struct iovec){h[n], FRAME_HDR};
		iov[2 * n + 1] =
		    (struct iovec){(void *)(uintptr_t)pl[n], f[n].len};
		if ((off += f[n].len) == blk_size(e, f[n].block)) {
			bi++;
			off = 0;
		}
	}
	if ((w = xport_sendv(pt->x, iov, 2 * n)) == -ENOTSUP)
		return ((int)w);
	w = w < 0 ? 0 : w;
	/* The rest goes to the queue, empty and four frames long. */
	pt->out.head = pt->out.tail = 0;
	for (k = 0; k < 2 * n; k++) {
		size_t l = iov[k].iov_len, t = (size_t)w < l ? (size_t)w : l;

		memcpy(pt->out.p + pt->out.tail,
		       (const uint8_t *)iov[k].iov_base + t, l - t);
		pt->out.tail += l - t;
		w -= (ssize_t)t;
	}
	for (k = 0; k < n; k++)
		own_sent(e, i, &f[k]);
	return (n);
}

/* Inject own frames while the bubble rule allows; 1 if any. */
static int
inject(struct exec *e)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	/* Own frames only while the queue is nearly empty: relays first.
	 * Two a port per pass: written straight through without a limit,
	 * they filled the fibre ahead of the relays (a third slower). */
	size_t         two = 2 * (FRAME_HDR + (size_t)e->p.chunk);
	uint32_t       i;
	int            moved = 0, rv;
	const uint8_t *pl;
	struct frame   f;

	for (i = 0; i < e->p.nports; i++)
		e->port[i].burst = 0;
	for (i = 0; i < ph->nsend; i++) {
		struct port *pt = &e->port[ph->send[i].port];

		while (e->send_blk[i] < ph->send[i].nblk && pt->burst < 2 &&
		       pt->out.tail - pt->out.head < two) {
			moved = 1;
			if (pt->out.tail == pt->out.head &&
			    (rv = inject_through(e, i, pt)) != -ENOTSUP) {
				if (rv < 0)
					return (rv);
				pt->burst += rv;
				continue;
			}
			if ((rv = own_frame(e, i, e->send_blk[i],
			                    e->send_off[i], &f, &pl)) < 0)
				return (rv);
			put_frame(&pt->out, &f, pl);
			own_sent(e, i, &f);
			pt->burst++;
		}
	}
	return (moved);
}

/* Write pending output; 1 if anything moved, <0 on a lost fibre. */
static int
flush(struct exec *e, uint32_t q)
{
	struct buf *b = &e->port[q].out;
	ssize_t     w;

	if (b->tail == b->head)
		return (0);
	w = xport_send(e->port[q].x, b->p + b->head, b->tail - b->head);
	if (w == -EAGAIN)
		return (0);
	if (w < 0)
		return (fail(e, -EPIPE,
		             "fibre of port %s lost while sending: "
		             "%s",
		             pname(q),
		             xport_why(e->port[q].x) ? xport_why(e->port[q].x)
		                                     : strerror((int)-w)));
	b->head += (size_t)w;
	if (b->head == b->tail)
		b->head = b->tail = 0;
	return (w > 0);
}

/* ---- receiving ---------------------------------------------------------- */

static int
misplaced(struct exec *e, const char *bn, const struct frame *f, uint32_t q,
          uint32_t next, uint32_t size)
{
	return (fail(e, -EPROTO,
	             "%s from node %u on port %s: bytes %u..%u arrived where "
	             "%u was next (of %u)",
	             bn, f->src, pname(q), f->off, f->off + f->len, next,
	             size));
}

static int
content_wrong(struct exec *e, const char *bn, int64_t bad,
              const struct frame *f, uint32_t q)
{
	return (fail(e, -EPROTO,
	             "content of %s wrong at byte %lld (from node %u on port "
	             "%s)",
	             bn, (long long)bad, f->src, pname(q)));
}

/* The receive of block b from src on port q this phase, or NULL (a
 * collective's node may get one chunk from several peers). */
static struct expect *
expected(const struct exec *e, uint32_t b, uint32_t src, uint32_t q)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	struct expect           *v = e->exp[e->k];
	uint32_t                 lo = 0, hi = e->nexp[e->k];

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (v[mid].blk < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < e->nexp[e->k] && v[lo].blk == b; lo++)
		if (ph->recv[v[lo].recv].src == src &&
		    ph->recv[v[lo].recv].port == q)
			return (&v[lo]);
	return (NULL);
}

/* First byte of [off, off + len) of chunk b where p differs from the
 * sum of every node's contribution, or -1. */
static int64_t
sum_check(struct exec *e, uint32_t b, const uint8_t *p, uint32_t off,
          uint32_t len)
{
	uint32_t i;

	pat_fill_sum(e->sum, e->tmp, len, e->p.run, e->p.n, b, 0, off);
	if (memcmp(e->sum, p, len) == 0)
		return (-1);
	for (i = 0; i < len && e->sum[i] == p[i]; i++)
		;
	return ((int64_t)off + i);
}

/* A topology collective's frame: gathered (checked against the owner's
 * pattern, or the full sum, and stored) or a partial sum added in. */
static int
deliver_coll(struct exec *e, uint32_t q, const struct frame *f,
             const uint8_t *p, struct expect *x)
{
	uint32_t size = blk_size(e, f->block), sl = find(e, f->block);
	int      gather = gathering(e);
	int64_t  bad = -1;
	uint64_t t0;
	char     bn[48];

	bname(e, f->block, bn, sizeof(bn));
	if (f->off != x->have || f->len > size - f->off)
		return (misplaced(e, bn, f, q, x->have, size));
	if (sl == NONE && (!gather || (sl = take(e, f->block)) == NONE))
		return (fail(e, -EPROTO, "no room for %s", bn));
	t0 = mono_ns();
	if (gather && e->p.coll == SCHED_ALLGATHER)
		bad = pat_check(p, f->len, e->p.run, f->block / e->p.parts,
		                f->block, 0, f->off);
	else if (gather)
		bad = sum_check(e, f->block, p, f->off, f->len);
	e->d.verify_ns += mono_ns() - t0;
	if (bad >= 0)
		return (content_wrong(e, bn, bad, f, q));
	if (gather)
		memcpy(slot_data(e, sl) + f->off, p, f->len);
	else
		pat_add32(slot_data(e, sl) + f->off, p, f->len);
	x->have += f->len;
	if (e->slots[sl].have < x->have)
		e->slots[sl].have = x->have;
	e->d.recv += f->len;
	if (x->have == size) {
		e->recv_done[x->recv]++;
		e->d.verified += gather;
	}
	return (0);
}

static int
deliver(struct exec *e, uint32_t q, const struct frame *f, const uint8_t *p)
{
	struct expect *x = expected(e, f->block, f->src, q);
	uint32_t       size = blk_size(e, f->block), sl, src, dst;
	uint32_t       part;
	uint64_t       off;
	int64_t        bad;
	uint64_t       t0;
	char           bn[48];

	bname(e, f->block, bn, sizeof(bn));
	if (x == NULL)
		return (fail(e, -EPROTO,
		             "unexpected frame of %s from node %u on port %s",
		             bn, f->src, pname(q)));
	if (is_coll(&e->p))
		return (deliver_coll(e, q, f, p, x));
	if ((sl = find(e, f->block)) == NONE) {
		if ((sl = take(e, f->block)) == NONE)
			return (fail(
			    e, -EPROTO,
			    "no room for %s: more than the %u blocks the plan "
			    "allows are held",
			    bn, e->nslots));
	}
	if (f->off != e->slots[sl].have || f->len > size - f->off)
		return (misplaced(e, bn, f, q, e->slots[sl].have, size));
	t0 = mono_ns();
	blk_pattern(e, f->block, &src, &dst, &part, &off);
	/* Checked into the slot: the payload is read once. */
	bad = pat_check_copy(slot_data(e, sl) + f->off, p, f->len, e->p.run,
	                     src, dst, part, off + f->off);
	e->d.verify_ns += mono_ns() - t0;
	if (bad >= 0)
		return (content_wrong(e, bn, bad, f, q));
	e->slots[sl].have += f->len;
	e->d.recv += f->len;
	if (e->slots[sl].have == size) {
		e->recv_done[x->recv]++;
		e->d.verified++;
	}
	return (0);
}

/* Frames to relay that lie back to back in one port's input, all for
 * the same output port: they go on in one write. */
struct run {
	uint32_t port;
	size_t   off, len;
};

/*
 * Send a run of relayed frames on from the input buffer they lie in
 * (write-through), when nothing is queued before them, and copy into the
 * queue only what the fibre does not take now (a lost fibre shows at
 * the next flush, which reports it).  One write for several frames: a
 * write per frame costs loopback TCP a quarter of its rate.
 */
static int
run_flush(struct exec *e, uint32_t q, struct run *r)
{
	struct port   *pt = &e->port[r->port];
	struct buf    *out = &pt->out;
	const uint8_t *p = e->port[q].in.p + r->off;
	ssize_t        w = 0;

	if (r->len == 0)
		return (0);
	if (out->tail == out->head && (w = xport_send(pt->x, p, r->len)) < 0)
		w = 0;
	if (out->cap - out->tail < r->len - (size_t)w &&
	    buf_grow(out, r->len - (size_t)w) != 0)
		return (fail(e, -ENOMEM,
		             "no memory to relay %zu more bytes on port %s",
		             out->tail - out->head, pname(r->port)));
	memcpy(out->p + out->tail, p + w, r->len - (size_t)w);
	out->tail += r->len - (size_t)w;
	r->len = 0;
	return (0);
}

/* Relay the frame at hdr (in port q's input): its hops counted down, it
 * joins the run to its output port. */
static int
relay(struct exec *e, uint32_t q, const struct frame *f, uint8_t *hdr,
      struct run *r)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	size_t                   len = FRAME_HDR + f->len;
	size_t                   off = (size_t)(hdr - e->port[q].in.p);
	uint32_t                 i;
	int                      rv;

	for (i = 0; i < ph->nrelay; i++)
		if (ph->relay[i].src == f->src && ph->relay[i].dst == f->dst &&
		    ph->relay[i].in_port == q)
			break;
	if (i == ph->nrelay)
		return (fail(
		    e, -EPROTO,
		    "unexpected frame from node %u for node %u on port %s "
		    "(nothing to relay between them here)",
		    f->src, f->dst, pname(q)));
	frame_set_hops(hdr, (uint16_t)(f->hops - 1));
	if (r->len &&
	    (r->port != ph->relay[i].out_port || r->off + r->len != off) &&
	    (rv = run_flush(e, q, r)) < 0)
		return (rv);
	if (r->len == 0) {
		r->port = ph->relay[i].out_port;
		r->off = off;
	}
	r->len += len;
	e->d.relayed += f->len;
	/* Explicit blocks passing through are not listed here: their
	 * relay is done when its bytes are. */
	if (e->p.vb != NULL) {
		if ((e->relay_bytes[i] += f->len) == ph->relay[i].bytes)
			e->relay_done[i] = ph->relay[i].nblk;
	} else if (f->off + f->len == blk_size(e, f->block))
		e->relay_done[i]++;
	return (0);
}

/* A frame of a later phase that its sender could start without this
 * node: no barrier (where everyone waits) in between.  A topology
 * collective's node may have nothing to wait for in a phase and run
 * several ahead. */
static int
early(const struct exec *e, uint32_t phase)
{
	uint32_t k;

	if (phase <= e->k || phase >= e->p.nph)
		return (0);
	for (k = e->k + 1; k <= phase; k++)
		if (e->p.ph[k].barrier)
			return (0);
	return (1);
}

/*
 * Handle whole frames at the head of port q's input.  Returns 1 if any
 * was consumed, 0 if none could be (incomplete, a later phase, no room
 * to relay), <0 on a protocol error.
 */
static int
consume(struct exec *e, uint32_t q)
{
	struct port *pt = &e->port[q];
	struct buf  *in = &pt->in;
	struct frame f;
	struct run   r = {0, 0, 0};
	uint8_t     *h;
	int          moved = 0, rv, crc_ok;
	uint64_t     t0;
	char         bn[48];

	while (in->tail - in->head >= FRAME_HDR) {
		h = in->p + in->head;
		if (frame_get(h, &f) != 0 || f.len > e->p.chunk) {
			/* Leftovers of an aborted run may precede the first
			 * frame of this one; after that it is corruption. */
			if (pt->synced)
				return (fail(
				    e, -EPROTO,
				    "garbage on port %s (no frame header)",
				    pname(q)));
			in->head++;
			pt->skipped++;
			moved = 1;
			continue;
		}
		if (in->tail - in->head < FRAME_HDR + f.len)
			break;
		/* Checking is timed apart from moving: the report says
		 * what verification costs (two clock reads a frame). */
		t0 = mono_ns();
		crc_ok = frame_crc_ok(h, &f, h + FRAME_HDR);
		e->d.verify_ns += mono_ns() - t0;
		if (!crc_ok) {
			if (f.run != e->run32 && !pt->synced) {
				in->head++; /* a torn leftover: resync */
				pt->skipped++;
				continue;
			}
			bname(e, f.block, bn, sizeof(bn));
			return (fail(
			    e, -EPROTO,
			    "CRC mismatch in a frame of %s from node %u on "
			    "port %s (offset %u, %u bytes)",
			    bn, f.src, pname(q), f.off, f.len));
		}
		if (f.run != e->run32) { /* a whole stale frame */
			in->head += FRAME_HDR + f.len;
			pt->skipped += FRAME_HDR + f.len;
			moved = 1;
			continue;
		}
		pt->synced = 1;
		if (f.phase != e->k) {
			if (early(e, f.phase))
				break; /* early: waits for this node */
			return (
			    fail(e, -EPROTO,
			         "frame of phase %u from node %u on port %s",
			         f.phase, f.src, pname(q)));
		}
		if (f.hops == 0 || (f.hops == 1) != (f.dst == e->p.node))
			return (fail(
			    e, -EPROTO,
			    "frame from node %u for node %u reached node %u "
			    "with %u hops to go (port %s)",
			    f.src, f.dst, e->p.node, f.hops, pname(q)));
		if (f.hops == 1)
			rv = deliver(e, q, &f, h + FRAME_HDR);
		else
			rv = relay(e, q, &f, h, &r);
		if (rv < 0)
			return (rv);
		in->head += FRAME_HDR + f.len;
		moved = 1;
	}
	if ((rv = run_flush(e, q, &r)) < 0)
		return (rv);
	if (in->head == in->tail)
		in->head = in->tail = 0;
	return (moved);
}

/* Read what port q has; 1 if anything came, <0 on a lost fibre. */
static int
pull(struct exec *e, uint32_t q)
{
	struct buf *in = &e->port[q].in;
	ssize_t     r;

	if (in->cap - in->tail < FRAME_HDR + e->p.chunk)
		buf_compact(in);
	if (in->cap == in->tail)
		return (0);
	r = xport_recv(e->port[q].x, in->p + in->tail, in->cap - in->tail);
	if (r == -EAGAIN)
		return (0);
	if (r == 0)
		return (
		    fail(e, -EPIPE, "fibre of port %s unplugged", pname(q)));
	if (r < 0 && xport_why(e->port[q].x))
		return (fail(e, -EPIPE, "port %s: %s", pname(q),
		             xport_why(e->port[q].x)));
	if (r < 0)
		return (fail(e, -EPIPE, "fibre of port %s: %s", pname(q),
		             strerror((int)-r)));
	in->tail += (size_t)r;
	return (1);
}

/* ---- a phase ------------------------------------------------------------ */

static int
phase_done(const struct exec *e)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint32_t                 i;

	for (i = 0; i < ph->nsend; i++)
		if (e->send_blk[i] < ph->send[i].nblk)
			return (0);
	for (i = 0; i < e->p.nports; i++)
		if (e->port[i].out.tail != e->port[i].out.head)
			return (0);
	for (i = 0; i < ph->nrecv; i++)
		if (e->recv_done[i] < ph->recv[i].nblk)
			return (0);
	for (i = 0; i < ph->nrelay; i++)
		if (e->relay_done[i] < ph->relay[i].nblk)
			return (0);
	return (1);
}

/* What is still missing, for a timeout's reason. */
static void
missing(const struct exec *e, char *buf, size_t len)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint32_t                 i, sends = 0, blocks = 0, relays = 0;
	size_t                   off = 0;

	for (i = 0; i < ph->nsend; i++)
		sends += ph->send[i].nblk - e->send_blk[i];
	for (i = 0; i < ph->nrelay; i++)
		relays += ph->relay[i].nblk - e->relay_done[i];
	buf[0] = '\0';
	for (i = 0; i < ph->nrecv; i++) {
		uint32_t m = ph->recv[i].nblk - e->recv_done[i];

		blocks += m;
		if (m && off < len)
			off += (size_t)snprintf(
			    buf + off, len - off,
			    "%s%u from node %u on port %s", off ? ", " : "", m,
			    ph->recv[i].src, pname(ph->recv[i].port));
	}
	if (off < len)
		snprintf(buf + off, len - off,
		         "%s%u blocks to receive, %u to relay, %u to send",
		         off ? "; " : "", blocks, relays, sends);
}

int
exec_phase(struct exec *e, uint32_t k, struct plan_done *done, char *err,
           size_t errlen)
{
	struct pollfd pfd[EXEC_MAX_PORTS + 1];
	uint64_t      t0 = mono_ns(), dl;
	uint32_t      i, n;
	int           rv, moved;
	char          why[400];

	e->err = err;
	e->errlen = errlen;
	e->k = k;
	if (k >= e->p.nph)
		return (fail(e, -EINVAL, "no such phase (%u)", e->p.nph));
	memset(&e->d, 0, sizeof(e->d));
	e->d.phase = k;
	memset(e->recv_done, 0, (e->maxrecv + 1) * sizeof(uint32_t));
	memset(e->relay_done, 0, (e->maxrelay + 1) * sizeof(uint32_t));
	memset(e->relay_bytes, 0, (e->maxrelay + 1) * sizeof(uint64_t));
	memset(e->send_blk, 0, (e->maxsend + 1) * sizeof(uint32_t));
	memset(e->send_off, 0, (e->maxsend + 1) * sizeof(uint32_t));
	dl = t0 + (uint64_t)e->p.deadline_ms * 1000000u;
	/* An abort that came with the last answer waits in the session's
	 * buffer, where polling its descriptor would not see it. */
	if (e->ab.fd >= 0 && e->ab.check(e->ab.arg, why, sizeof(why)))
		return (fail(e, -ECANCELED, "aborted: %s", why));
	for (i = 0; i < e->p.nports; i++)
		xport_epoch(e->port[i].x, e->run32, (uint16_t)k,
		            (uint16_t)e->p.node);
	for (;;) {
		moved = 0;
		for (i = 0; i < e->p.nports; i++) {
			if ((rv = flush(e, i)) < 0)
				return (rv);
			moved |= rv;
		}
		if ((rv = inject(e)) < 0)
			return (rv);
		moved |= rv;
		for (i = 0; i < e->p.nports; i++) {
			if ((rv = pull(e, i)) < 0)
				return (rv);
			moved |= rv;
			if ((rv = consume(e, i)) < 0)
				return (rv);
			moved |= rv;
		}
		if (phase_done(e))
			break;
		if (mono_ns() > dl) {
			missing(e, why, sizeof(why));
			return (fail(e, -ETIMEDOUT,
			             "timed out after %.1f s: %s",
			             e->p.deadline_ms / 1000.0, why));
		}
		if (moved)
			continue;
		for (n = 0, i = 0; i < e->p.nports; i++) {
			struct port *pt = &e->port[i];

			pfd[n].fd = xport_fd(pt->x);
			pfd[n].events =
			    (pt->in.cap - (pt->in.tail - pt->in.head) > 0
			         ? POLLIN
			         : 0) |
			    (pt->out.tail != pt->out.head ? POLLOUT : 0);
			n++;
		}
		if (e->ab.fd >= 0) {
			pfd[n].fd = e->ab.fd;
			pfd[n++].events = POLLIN;
		}
		poll(pfd, n, 50);
		if (e->ab.fd >= 0 && (pfd[n - 1].revents & POLLIN) &&
		    e->ab.check(e->ab.arg, why, sizeof(why)))
			return (fail(e, -ECANCELED, "aborted: %s", why));
	}
	e->d.data_ns = mono_ns() - t0;
	*done = e->d;
	return (0);
}

/* Explicit blocks: the node holds, whole, every listed block that ends
 * here and nothing else. */
static int
finish_v(struct exec *e)
{
	uint32_t i;
	char     bn[64];

	for (i = 0; i < e->p.nvb; i++) {
		int mine = e->p.vb[i].dst == e->p.node;

		if (mine ==
		    (e->vheld[i] && e->slots[i].have == e->p.vb[i].len))
			continue;
		bname(e, e->p.vb[i].id, bn, sizeof(bn));
		return (fail(e, -EPROTO, "end: node %u %s %s", e->p.node,
		             mine ? "lacks" : "still holds", bn));
	}
	return (0);
}

/* A topology collective's end: every chunk held whole; every output
 * element of a reduction (a ReduceScatter's own chunks, every chunk of
 * an AllReduce) is the sum of every node's contribution. */
static int
finish_coll(struct exec *e, uint64_t *verified)
{
	uint32_t b, sl, off, len, nb = e->p.n * e->p.parts;
	int64_t  bad;
	char     bn[48];

	for (b = 0; b < nb; b++) {
		bname(e, b, bn, sizeof(bn));
		if ((sl = find(e, b)) == NONE ||
		    e->slots[sl].have != blk_size(e, b))
			return (fail(e, -EPROTO, "end: node %u lacks %s",
			             e->p.node, bn));
		if (e->p.coll == SCHED_ALLGATHER ||
		    (e->p.coll == SCHED_REDUCESCATTER &&
		     b / e->p.parts != e->p.node))
			continue;
		for (off = 0; off < blk_size(e, b); off += len) {
			len = blk_size(e, b) - off < e->p.chunk
			          ? blk_size(e, b) - off
			          : e->p.chunk;
			if ((bad = sum_check(e, b, slot_data(e, sl) + off, off,
			                     len)) >= 0)
				return (
				    fail(e, -EPROTO,
				         "end: node %u's sum of %s wrong at "
				         "byte %lld",
				         e->p.node, bn, (long long)bad));
		}
		/* AllReduce counted the others' blocks as they came. */
		if (e->p.coll == SCHED_REDUCESCATTER ||
		    b / e->p.parts == e->p.node)
			(*verified)++;
	}
	return (0);
}

int
exec_finish(struct exec *e, uint64_t *verified, char *err, size_t errlen)
{
	uint32_t i, want = e->p.n * e->p.parts;

	e->err = err;
	e->errlen = errlen;
	*verified = 0;
	if (e->p.vb != NULL)
		return (finish_v(e));
	if (is_coll(&e->p))
		return (finish_coll(e, verified));
	if (e->nheld != want)
		return (fail(e, -EPROTO,
		             "end: node %u holds %u blocks, expected %u",
		             e->p.node, e->nheld, want));
	for (i = 0; i <= e->hmask; i++) {
		const struct slot *s;

		if (e->hash[i] == 0)
			continue;
		s = &e->slots[e->hash[i] - 1];
		if (sched_blk_dst(&e->lay, s->blk) != e->p.node ||
		    s->have != blk_size(e, s->blk)) {
			char bn[48];

			bname(e, s->blk, bn, sizeof(bn));
			return (fail(
			    e, -EPROTO,
			    "end: node %u holds %s, which is not its own or "
			    "is incomplete",
			    e->p.node, bn));
		}
	}
	return (0);
}

uint32_t
exec_drain(struct xport *ports, uint32_t nports)
{
	uint8_t  buf[65536];
	uint32_t i, gone = 0;
	ssize_t  r;

	for (i = 0; i < nports; i++) {
		while ((r = xport_recv(&ports[i], buf, sizeof(buf))) > 0)
			;
		gone += r == 0 || (r < 0 && r != -EAGAIN);
	}
	return (gone);
}
