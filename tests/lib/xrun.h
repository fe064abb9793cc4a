/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test and bench support: executors run in threads, one per node, over
 * any transport (plans come from proto/plan.h's plan_from_sched); and a
 * transport over an already connected descriptor (a socketpair, a
 * loopback TCP connection).
 */
#ifndef OCS_TEST_XRUN_H
#define OCS_TEST_XRUN_H

#include <pthread.h>
#include <stdint.h>

#include "agent/exec.h"
#include "collectives/sched.h"

/* A transport over a connected fd (priv is a struct xrun_fd).  With
 * short_writes set, every write takes at most a few bytes, cut at a point
 * that moves from call to call (1..1499): frames split in their header, in
 * their payload and between them, as a full socket splits them. */
struct xrun_fd {
	int      fd;
	int      short_writes;
	uint32_t calls;
	/* A lossy fibre: what is sent beyond drop_after bytes (0: never)
	 * vanishes; gap_ms is the transport's gap (xport_ops.gap, 0: a
	 * transport that loses nothing). */
	uint64_t drop_after, sent;
	uint32_t gap_ms;
};
extern const struct xport_ops xrun_fd_ops;

struct xrun_node {
	pthread_t          t;
	struct plan        p;
	struct xport       x[2];
	struct xrun_fd     fd[2];
	int                rv, skip;
	char               err[512];
	uint64_t           verified, bytes;
	uint64_t           data_ns; /* the phases only, not the setup */
	uint64_t           relayed; /* bytes passed on for others */
	uint64_t           cpu_ns;  /* the thread's CPU over the phases */
	pthread_barrier_t *start;   /* xrun's: all set up before phase 0 */
};

/* Run every node not marked skip, each in a thread, to the end; phase 0
 * starts once all are set up. */
void xrun(struct xrun_node *, uint32_t n);

#endif
