/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One node's part of a collective run, and its phase reports: the types
 * the agent's executor runs and reports, made from a schedule by ocsd
 * (plan_from_sched).  Pure data; their wire form is proto/plan.h's.
 */
#ifndef COLL_PLAN_H
#define COLL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/sched.h"

#define PLAN_MAX_PHASES 256 /* a plan longer than this is refused */
/* Phase reports in one Ready: every phase since the last barrier, which
 * the planner puts at least this often (sched_plans). */
#define PLAN_MAX_DONE SCHED_MAX_STRETCH
/* A server's local links a node has, at most (its other GPUs). */
#define PLAN_MAX_LOCAL 7
#define PLAN_LADDR_MAX 64
#define PLAN_LTOKEN    16

struct plan_send {
	uint32_t        dst, port, hops, nblk;
	const uint32_t *blk;
};

struct plan_relay {
	uint32_t src, dst, in_port, out_port, nblk;
	uint64_t bytes;
};

struct plan_recv {
	uint32_t        src, port, nblk;
	const uint32_t *blk;
};

struct plan_phase {
	int                barrier;
	struct plan_send  *send;
	uint32_t           nsend;
	struct plan_relay *relay;
	uint32_t           nrelay;
	struct plan_recv  *recv;
	uint32_t           nrecv;
};

/* An explicit block (skewed runs): len bytes at off of src -> dst. */
struct plan_vblk {
	uint32_t id, src, dst;
	uint64_t off, len;
};

struct plan {
	uint64_t           run;
	uint32_t           node, n, parts, chunk, deadline_ms, max_blocks;
	uint32_t           nph, nports;
	uint64_t           bytes;
	struct plan_phase *ph;
	/* Skewed runs: every block the node sends or receives, sorted by
	 * id (owned by the plan); NULL for uniform blocks. */
	struct plan_vblk *vb;
	uint32_t          nvb;
	/* Topology collectives: SCHED_ALLGATHER, _REDUCESCATTER or
	 * _ALLREDUCE (0 or SCHED_ALLTOALL: All-to-All); blocks are the n *
	 * parts chunks, a node keeps what it sends, and a ReduceScatter's
	 * receives add int32 elements (wrapping) into its own.  AllReduce
	 * gathers (receives replace) from phase ag_from on. */
	uint32_t coll, ag_from;
	/*
	 * Servers (FAST's scale-up, sched.local_from): 0, or the first of
	 * the ports that are local links; port local_from + j goes to node
	 * lnode[j] of the same server, which listens at laddr[j] (ocsd sets
	 * the addresses and the token the links' hellos carry).  Each link
	 * out of the node is shaped to local_bps together (one scale-up
	 * link out of a GPU).
	 */
	uint32_t local_from, nlocal;
	uint32_t lnode[PLAN_MAX_LOCAL];
	char     laddr[PLAN_MAX_LOCAL][PLAN_LADDR_MAX];
	uint8_t  ltoken[PLAN_LTOKEN];
	double   local_bps;
	/* Planes apart (nplanes > 1): each port's plane; a port sends only
	 * once its plane is released (agent/exec.h).  0: together. */
	uint32_t nplanes;
	uint8_t  plane[8];
};

/* The entry of block id in p->vb, or NULL. */
const struct plan_vblk *plan_vblk(const struct plan *, uint32_t id);

/* What a node reports of a finished phase. */
struct plan_done {
	uint32_t phase;
	uint64_t data_ns;
	uint64_t sent, recv, relayed;
	uint32_t verified, errors;
	uint64_t verify_ns; /* of data_ns, checking (and storing) arrivals */
	uint64_t wait_ns;   /* Ready to release before it (0: no barrier) */
};

/* Free the phase arrays of a plan (not the blocks they point into);
 * safe on a zeroed or half-built plan. */
void plan_free(struct plan *);

/*
 * Node np's plan in schedule s for run, with frames of chunk bytes and a
 * per-phase deadline, on nports transceivers.  Block arrays point into
 * s, which must outlive p.  0 or -ENOMEM (p freed).
 */
int plan_from_sched(const struct sched *s, const struct sched_nplan *np,
                    uint64_t run, uint32_t chunk, uint32_t deadline_ms,
                    uint32_t nports, struct plan *p);

/* A phase's arrays for ns sends, nr relays and nv receives (one spare
 * entry each, so that none is calloc(0)): 0 or -ENOMEM (plan_free frees
 * what was made). */
int plan_phase_alloc(struct plan_phase *, uint32_t ns, uint32_t nr,
                     uint32_t nv);

/*
 * The buffers a node's executor takes for a plan: its block slots (the
 * most blocks it holds at once) and its frame buffers.  ocsd checks it
 * against each agent's memory limit before a run; the agent checks it
 * again before it allocates.
 */
uint64_t plan_buffer_bytes(uint32_t max_blocks, uint64_t bytes, uint32_t n,
                           uint32_t parts, uint32_t nports, uint32_t chunk);
/* The same for explicit blocks: at most every byte of the node's blocks
 * held at once (the executor places them so that it needs no more). */
uint64_t plan_vbuffer_bytes(uint64_t block_bytes, uint32_t nports,
                            uint32_t chunk);

#endif
