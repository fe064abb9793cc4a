/* SPDX-License-Identifier: BSD-2-Clause */
/* The executor's input: frames taken off each port, checked (CRC at
 * every hop, content against the pattern) and delivered, relayed or
 * held for a later phase. */
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

/* ---- receiving ---------------------------------------------------------- */

static int
misplaced(struct exec *e, const char *bn, const struct frame *f, uint32_t q,
          uint32_t next, uint32_t size)
{
	return (ex_fail(
	    e, -EPROTO,
	    "%s from node %u on port %s: bytes %u..%u arrived where "
	    "%u was next (of %u)",
	    bn, f->src, ex_pname(q), f->off, f->off + f->len, next, size));
}

static int
content_wrong(struct exec *e, const char *bn, int64_t bad,
              const struct frame *f, uint32_t q)
{
	return (
	    ex_fail(e, -EPROTO,
	            "content of %s wrong at byte %lld (from node %u on port "
	            "%s)",
	            bn, (long long)bad, f->src, ex_pname(q)));
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
int64_t
ex_sum_check(struct exec *e, uint32_t b, const uint8_t *p, uint32_t off,
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
	uint32_t size = ex_blk_size(e, f->block), sl = ex_find(e, f->block);
	int      gather = ex_gathering(e);
	int64_t  bad = -1;
	uint64_t t0;
	char     bn[48];

	ex_bname(e, f->block, bn, sizeof(bn));
	if (f->off != x->have || f->len > size - f->off)
		return (misplaced(e, bn, f, q, x->have, size));
	if (sl == NONE && (!gather || (sl = ex_take(e, f->block)) == NONE))
		return (ex_fail(e, -EPROTO, "no room for %s", bn));
	t0 = mono_ns();
	if (gather && e->p.coll == SCHED_ALLGATHER)
		bad = pat_check(p, f->len, e->p.run, f->block / e->p.parts,
		                f->block, 0, f->off);
	else if (gather)
		bad = ex_sum_check(e, f->block, p, f->off, f->len);
	e->d.verify_ns += mono_ns() - t0;
	if (bad >= 0)
		return (content_wrong(e, bn, bad, f, q));
	if (gather)
		memcpy(ex_slot_data(e, sl) + f->off, p, f->len);
	else
		pat_add32(ex_slot_data(e, sl) + f->off, p, f->len);
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
	uint32_t       size = ex_blk_size(e, f->block), sl, src, dst;
	uint32_t       part;
	uint64_t       off;
	int64_t        bad;
	uint64_t       t0;
	char           bn[48];

	ex_bname(e, f->block, bn, sizeof(bn));
	if (x == NULL)
		return (
		    ex_fail(e, -EPROTO,
		            "unexpected frame of %s from node %u on port %s",
		            bn, f->src, ex_pname(q)));
	if (ex_is_coll(&e->p))
		return (deliver_coll(e, q, f, p, x));
	if ((sl = ex_find(e, f->block)) == NONE) {
		if ((sl = ex_take(e, f->block)) == NONE)
			return (ex_fail(
			    e, -EPROTO,
			    "no room for %s: more than the %u blocks the plan "
			    "allows are held",
			    bn, e->nslots));
	}
	if (f->off != e->slots[sl].have || f->len > size - f->off)
		return (misplaced(e, bn, f, q, e->slots[sl].have, size));
	t0 = mono_ns();
	ex_blk_pattern(e, f->block, &src, &dst, &part, &off);
	/* Checked into the slot: the payload is read once. */
	bad = pat_check_copy(ex_slot_data(e, sl) + f->off, p, f->len, e->p.run,
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

/*
 * Handle whole frames at the head of port q's input.  Returns 1 if any
 * was consumed, 0 if none could be (incomplete, a later phase, no room
 * to relay), <0 on a protocol error.
 */
int
ex_consume(struct exec *e, uint32_t q)
{
	struct port *pt = &e->port[q];
	struct buf  *in = &pt->in;
	struct frame f;
	struct run   r = {0, 0, 0};
	uint8_t     *h;
	int          moved = 0, rv, crc_ok;
	uint64_t     t0;
	size_t       n;
	char         bn[48];

	while (in->tail - in->head >= FRAME_HDR) {
		h = in->p + in->head;
		if ((n = frame_probe_len(h)) != 0) {
			/* A probe (ocsctl check) sent while its sender was
			 * idle: not data, whatever this run is. */
			if (in->tail - in->head < n)
				break;
			in->head += n;
			pt->skipped += n;
			moved = 1;
			continue;
		}
		if (frame_get(h, &f) != 0 || f.len > e->p.chunk) {
			/* Leftovers of an aborted run may precede the first
			 * frame of this one; after that it is corruption. */
			if (pt->synced)
				return (ex_fail(
				    e, -EPROTO,
				    "garbage on port %s (no frame header)",
				    ex_pname(q)));
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
			ex_bname(e, f.block, bn, sizeof(bn));
			return (ex_fail(
			    e, -EPROTO,
			    "CRC mismatch in a frame of %s from node %u on "
			    "port %s (offset %u, %u bytes)",
			    bn, f.src, ex_pname(q), f.off, f.len));
		}
		if (f.run != e->run32) { /* a whole stale frame */
			in->head += FRAME_HDR + f.len;
			pt->skipped += FRAME_HDR + f.len;
			moved = 1;
			continue;
		}
		pt->synced = 1;
		if (f.phase != e->k) {
			if (ex_early(e, f.phase))
				break; /* early: waits for this node */
			return (ex_fail(
			    e, -EPROTO,
			    "frame of phase %u from node %u on port %s",
			    f.phase, f.src, ex_pname(q)));
		}
		if (f.hops == 0 || (f.hops == 1) != (f.dst == e->p.node))
			return (ex_fail(
			    e, -EPROTO,
			    "frame from node %u for node %u reached node %u "
			    "with %u hops to go (port %s)",
			    f.src, f.dst, e->p.node, f.hops, ex_pname(q)));
		if (f.hops == 1)
			rv = deliver(e, q, &f, h + FRAME_HDR);
		else
			rv = ex_relay(e, q, &f, h, &r);
		if (rv < 0)
			return (rv);
		in->head += FRAME_HDR + f.len;
		moved = 1;
	}
	if ((rv = ex_run_flush(e, q, &r)) < 0)
		return (rv);
	if (in->head == in->tail)
		in->head = in->tail = 0;
	return (moved);
}

/* Read what port q has; 1 if anything came, <0 on a lost fibre. */
int
ex_pull(struct exec *e, uint32_t q)
{
	struct buf *in = &e->port[q].in;
	ssize_t     r;

	if (in->cap - in->tail < FRAME_HDR + e->p.chunk)
		ex_buf_compact(in);
	if (in->cap == in->tail)
		return (0);
	r = xport_recv(e->port[q].x, in->p + in->tail, in->cap - in->tail);
	if (r == -EAGAIN)
		return (0);
	if (r == 0)
		return (ex_fail(e, -EPIPE, "fibre of port %s unplugged",
		                ex_pname(q)));
	if (r < 0 && xport_why(e->port[q].x))
		return (ex_fail(e, -EPIPE, "port %s: %s", ex_pname(q),
		                xport_why(e->port[q].x)));
	if (r < 0)
		return (ex_fail(e, -EPIPE, "fibre of port %s: %s", ex_pname(q),
		                strerror((int)-r)));
	in->tail += (size_t)r;
	e->port[q].fed = 1;
	e->port[q].last_in_ns = mono_ns();
	return (1);
}

/* Bytes (and blocks) of this phase's receives on port q not yet here;
 * the first sender they are from, and how many senders. */
static uint64_t
short_by(const struct exec *e, uint32_t q, uint32_t *blocks, uint32_t *src,
         uint32_t *nsrc)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint64_t                 bytes = 0;
	uint32_t                 i, j, b, have, sl;

	*blocks = *nsrc = 0;
	for (i = 0; i < ph->nrecv; i++) {
		if (ph->recv[i].port != q ||
		    e->recv_done[i] == ph->recv[i].nblk)
			continue;
		if ((*nsrc)++ == 0)
			*src = ph->recv[i].src;
		for (j = 0; j < ph->recv[i].nblk; j++) {
			const struct expect *x;

			b = ph->recv[i].blk[j];
			if (ex_is_coll(&e->p))
				have = (x = expected(e, b, ph->recv[i].src,
				                     q)) != NULL
				           ? x->have
				           : 0;
			else
				have = (sl = ex_find(e, b)) != NONE
				           ? e->slots[sl].have
				           : 0;
			if (have < ex_blk_size(e, b)) {
				bytes += ex_blk_size(e, b) - have;
				(*blocks)++;
			}
		}
	}
	return (bytes);
}

/* Blocks still to come in on port q to be relayed, and for whom. */
static uint32_t
relays_short(const struct exec *e, uint32_t q, uint32_t *dst)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint32_t                 i, m = 0;

	for (i = 0; i < ph->nrelay; i++)
		if (ph->relay[i].in_port == q &&
		    e->relay_done[i] < ph->relay[i].nblk) {
			m += ph->relay[i].nblk - e->relay_done[i];
			*dst = ph->relay[i].dst;
		}
	return (m);
}

/*
 * A stream whose last bytes were lost: nothing comes after them to show
 * a gap, so the transport cannot tell; the executor knows what the phase
 * still needs on each port.  A port that has had bytes this phase, still
 * waits for some and has been quiet longer than its transport's gap
 * fails naming the missing bytes, the sender and the interface.  0, or
 * the failure.
 */
int
ex_stalled(struct exec *e, uint64_t now)
{
	struct port *pt;
	uint64_t     bytes;
	uint32_t     q, gap, blocks, relays, src = 0, nsrc, dst = 0;
	char         where[256], rel[64], more[32];

	for (q = 0; q < e->p.nports; q++) {
		pt = &e->port[q];
		if (!pt->fed || (gap = xport_gap(pt->x, NULL, 0)) == 0 ||
		    now - pt->last_in_ns < (uint64_t)gap * 1000000u)
			continue;
		bytes = short_by(e, q, &blocks, &src, &nsrc);
		relays = relays_short(e, q, &dst);
		if (blocks == 0 && relays == 0)
			continue;
		xport_gap(pt->x, where, sizeof(where));
		rel[0] = '\0';
		if (relays)
			snprintf(rel, sizeof(rel),
			         "%s%u blocks to relay (the last for node %u)",
			         blocks ? " and " : "", relays, dst);
		if (blocks == 0)
			return (ex_fail(
			    e, -EBADMSG,
			    "port %s: the end of phase %u's stream did not "
			    "come: %s; %s",
			    ex_pname(q), e->k, rel, where));
		more[0] = '\0';
		if (nsrc > 1)
			snprintf(more, sizeof(more), " and %u other senders",
			         nsrc - 1);
		return (ex_fail(e, -EBADMSG,
		                "port %s: the end of phase %u's stream did "
		                "not come: %llu bytes (%u blocks) from node "
		                "%u%s%s; %s",
		                ex_pname(q), e->k, (unsigned long long)bytes,
		                blocks, src, more, rel, where));
	}
	return (0);
}
