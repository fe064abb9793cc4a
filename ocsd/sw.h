/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch worker: one thread per switch that owns the driver and makes
 * the switch hold target maps, one job at a time.  It knows switch maps,
 * not the operator protocol: a job says which map the switch must hold
 * (or how to compute it from the maps as they are when its turn comes),
 * and the worker applies it as one batch, reads it back, checks the new
 * paths for light, rolls back what it can on failure, and saves the
 * desired map.  Between jobs it reconnects with backoff and reads the
 * switch back periodically.
 */
#ifndef OCS_SW_H
#define OCS_SW_H

#include <stdint.h>

#include <nng/nng.h>

#include "ocs-drivers/drv.h"
#include "ocsd/map.h"

struct ocsd;
struct conf;

/* What a hold leaves behind: the switch holds sw, and desired becomes
 * the desired map (n == 0: the same as sw). */
struct sw_target {
	struct map sw;
	struct map desired;
};

/*
 * Computes a hold's target from the state as it is when the worker
 * reaches the job (so jobs queued together compose).  Runs on the worker
 * thread, which is the only writer of the maps, and may read d's
 * configuration and maps without the lock.  0 or a negative code with one
 * line in err; the target is freed by the caller either way.
 */
typedef int (*sw_plan_fn)(const struct ocsd *d, const void *arg,
                          struct sw_target *t, char *err, size_t len);

enum sw_op {
	SW_HOLD,    /* make the switch hold a target, save the desired map */
	SW_REFRESH, /* read the switch back */
	SW_ADOPT,   /* read the switch back and make that the desired map
	             * (plan, if set, is asked first with t NULL: its
	             * refusal ends the job) */
	SW_RELOAD,  /* swap in a new configuration (reconnect if needed) */
	SW_PORTS,   /* read every port's power and state (st, 1..2N) */
	SW_FAULT,   /* arm faults on an emulated switch (arg: the spec) */
	SW_CAPTURE, /* what an emulated switch's capture saw (arg: run id) */
};

struct sw_job {
	enum sw_op   op;
	sw_plan_fn   plan;    /* SW_HOLD: compute the target, or NULL: */
	const void  *arg;     /* (the plan's argument) */
	struct map   target;  /* the map to hold (a run's configuration) */
	struct conf *newconf; /* SW_RELOAD: the worker takes it */
	int transient; /* SW_HOLD: the desired map stays (a run's phases) */

	/* Results, set before the aio finishes. */
	int      rv;      /* 0 or a negative code */
	uint32_t changed; /* patches changed on the switch */
	double   took_ms; /* SW_HOLD: apply + read-back + light check */
	char     err[768];
	char     note[256]; /* SW_FAULT: the faults armed now */
	/* SW_PORTS: st[p] for p = 1..nst_ports + nst_egress (malloc'd;
	 * the caller frees it), and the switch's map at the time. */
	struct drv_port_state *st;
	uint32_t               nst_ports, nst_egress;
	/* SW_CAPTURE: the answer (malloc'd; the caller frees it). */
	struct drv_capture *cap;

	/* The worker's. */
	nng_aio       *aio;
	int            started;
	struct sw_job *next;
};

/* Start and stop the worker (stop closes the driver). */
int  sw_start(struct ocsd *);
void sw_stop(struct ocsd *);

/*
 * Queue a job; the worker finishes aio (nng_aio_begin/defer/finish) with
 * 0 once the job ran, its outcome in job->rv, so a caller waits without a
 * thread.  A job still queued when its aio is cancelled never runs.
 * sw_submit_locked is for callers that hold d->mtx.
 */
void sw_submit(struct ocsd *, struct sw_job *, nng_aio *);
void sw_submit_locked(struct ocsd *, struct sw_job *, nng_aio *);
/* Queue a reload; the worker frees the job and takes nc. */
void sw_submit_reload(struct ocsd *, struct conf *nc);
/* Someone needs the switch now: an unconnected worker tries at once
 * instead of at the end of its backoff.  With d->mtx held. */
void sw_kick_locked(struct ocsd *);

#endif
