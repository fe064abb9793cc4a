/* SPDX-License-Identifier: BSD-2-Clause */
/* The executor's relays: frames passing through go on from the input
 * they arrived in, in runs, queued only when the fibre is full. */
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

/*
 * Send a run of relayed frames on from the input buffer they lie in
 * (write-through), when nothing is queued before them, and copy into the
 * queue only what the fibre does not take now (a lost fibre shows at
 * the next flush, which reports it).  One write for several frames: a
 * write per frame costs loopback TCP a quarter of its rate.
 */
int
ex_run_flush(struct exec *e, uint32_t q, struct run *r)
{
	struct port   *pt = &e->port[r->port];
	struct buf    *out = &pt->out;
	const uint8_t *p = e->port[q].in.p + r->off;
	ssize_t        w = 0;

	if (r->len == 0)
		return (0);
	if (out->tail == out->head && ex_open(e, r->port) &&
	    (w = xport_send(pt->x, p, r->len)) < 0)
		w = 0;
	if (out->cap - out->tail < r->len - (size_t)w &&
	    ex_buf_grow(out, r->len - (size_t)w) != 0)
		return (ex_fail(e, -ENOMEM,
		                "no memory to relay %zu more bytes on port %s",
		                out->tail - out->head, ex_pname(r->port)));
	memcpy(out->p + out->tail, p + w, r->len - (size_t)w);
	out->tail += r->len - (size_t)w;
	r->len = 0;
	return (0);
}

/* Relay the frame at hdr (in port q's input): its hops counted down, it
 * joins the run to its output port. */
int
ex_relay(struct exec *e, uint32_t q, const struct frame *f, uint8_t *hdr,
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
		return (ex_fail(
		    e, -EPROTO,
		    "unexpected frame from node %u for node %u on port %s "
		    "(nothing to relay between them here)",
		    f->src, f->dst, ex_pname(q)));
	frame_set_hops(hdr, (uint16_t)(f->hops - 1));
	if (r->len &&
	    (r->port != ph->relay[i].out_port || r->off + r->len != off) &&
	    (rv = ex_run_flush(e, q, r)) < 0)
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
	} else if (f->off + f->len == ex_blk_size(e, f->block))
		e->relay_done[i]++;
	return (0);
}

/* A frame of a later phase that its sender could start without this
 * node: no barrier (where everyone waits) in between.  A topology
 * collective's node may have nothing to wait for in a phase and run
 * several ahead. */
int
ex_early(const struct exec *e, uint32_t phase)
{
	uint32_t k;

	if (phase <= e->k || phase >= e->p.nph)
		return (0);
	for (k = e->k + 1; k <= phase; k++)
		if (e->p.ph[k].barrier)
			return (0);
	return (1);
}
