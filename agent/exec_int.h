/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The executor's insides, shared by its files: exec.c (checking a plan,
 * setting up, the phase loop, the end), exec_slot.c (block slots and
 * buffers), exec_flow.c (own frames and flow control), exec_relay.c
 * (frames passing through) and exec_recv.c (framing, checking and
 * delivering what arrives).  Everything here runs on the agent's one
 * thread.
 */
#ifndef OCS_EXEC_INT_H
#define OCS_EXEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/exec.h"
#include "agent/frame.h"

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
	/* This phase: whether any bytes came, and when they last did (a
	 * stream that stops short is named after the transport's gap). */
	int      fed;
	uint64_t last_in_ns;
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
	uint32_t         gate; /* ports that may send now, a bit each */
	struct plan_done d;
	char            *err;
	size_t           errlen;
};

/* Frames to relay that lie back to back in one port's input, all for
 * the same output port: they go on in one write. */
struct run {
	uint32_t port;
	size_t   off, len;
};

/* exec.c */
/* May port q send now (its plane released)? */
static inline int
ex_open(const struct exec *e, uint32_t q)
{
	return ((e->gate >> q) & 1);
}
int ex_fail(struct exec *e, int code, const char *fmt, ...)
    __attribute__((__format__(printf, 3, 4)));
int         ex_is_coll(const struct plan *p);
int         ex_gathering(const struct exec *e);
const char *ex_pname(uint32_t port);
void        ex_bname(const struct exec *e, uint32_t b, char *buf, size_t len);

/* exec_slot.c */
uint32_t ex_find(const struct exec *e, uint32_t b);
uint32_t ex_take(struct exec *e, uint32_t b);
void     ex_give(struct exec *e, uint32_t b);
uint8_t *ex_slot_data(const struct exec *e, uint32_t s);
uint32_t ex_blk_size(const struct exec *e, uint32_t b);
void     ex_blk_pattern(const struct exec *e, uint32_t b, uint32_t *src,
                        uint32_t *dst, uint32_t *part, uint64_t *off);
int      ex_buf_grow(struct buf *b, size_t need);
void     ex_buf_compact(struct buf *b);
void     ex_prefault(uint8_t *p, size_t len);

/* exec_flow.c */
int ex_inject(struct exec *e);
int ex_flush(struct exec *e, uint32_t q);

/* exec_relay.c */
int ex_run_flush(struct exec *e, uint32_t q, struct run *r);
int ex_relay(struct exec *e, uint32_t q, const struct frame *f, uint8_t *hdr,
             struct run *r);
int ex_early(const struct exec *e, uint32_t phase);

/* exec_recv.c */
int64_t ex_sum_check(struct exec *e, uint32_t b, const uint8_t *p,
                     uint32_t off, uint32_t len);
int     ex_consume(struct exec *e, uint32_t q);
int     ex_pull(struct exec *e, uint32_t q);
int     ex_stalled(struct exec *e, uint64_t now);

#endif
