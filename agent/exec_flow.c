/* SPDX-License-Identifier: BSD-2-Clause */
/* The executor's own frames and its flow control: a node injects its
 * data only while the relays ahead of it have room (see exec.c). */
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

/* ---- sending ------------------------------------------------------------ */

/* Put one frame (header from f, payload p) at the tail of b, which has
 * room for two (the caller checked). */
static void
put_frame(struct buf *b, const struct frame *f, const void *p)
{
	if (b->cap - b->tail < FRAME_HDR + f->len)
		ex_buf_compact(b);
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
	uint32_t                sl = ex_find(e, b), size = ex_blk_size(e, b);

	if (sl == NONE || e->slots[sl].have != size) {
		char bn[48];

		ex_bname(e, b, bn, sizeof(bn));
		return (
		    ex_fail(e, -EPROTO,
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
	*pl = ex_slot_data(e, sl) + off;
	return (0);
}

/* Count the frame f of send i as sent. */
static void
own_sent(struct exec *e, uint32_t i, const struct frame *f)
{
	e->d.sent += f->len;
	e->send_off[i] += f->len;
	if (e->send_off[i] == ex_blk_size(e, f->block)) {
		/* Sent: no longer held here (a collective's node keeps its
		 * copy, or its sum). */
		if (!ex_is_coll(&e->p))
			ex_give(e, f->block);
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
		if ((off += f[n].len) == ex_blk_size(e, f[n].block)) {
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
int
ex_inject(struct exec *e)
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

		/* A dark plane's port waits for its release. */
		if (!ex_open(e, ph->send[i].port))
			continue;

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
int
ex_flush(struct exec *e, uint32_t q)
{
	struct buf *b = &e->port[q].out;
	ssize_t     w;

	if (b->tail == b->head || !ex_open(e, q))
		return (0);
	w = xport_send(e->port[q].x, b->p + b->head, b->tail - b->head);
	if (w == -EAGAIN)
		return (0);
	if (w < 0)
		return (ex_fail(e, -EPIPE,
		                "fibre of port %s lost while sending: "
		                "%s",
		                ex_pname(q),
		                xport_why(e->port[q].x)
		                    ? xport_why(e->port[q].x)
		                    : strerror((int)-w)));
	b->head += (size_t)w;
	if (b->head == b->tail)
		b->head = b->tail = 0;
	return (w > 0);
}
