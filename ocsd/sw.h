/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The switch workers: one thread per switch (a fabric has several, one
 * per transceiver plane) that owns its driver and makes its switch hold
 * target maps, one job at a time.  It knows switch maps,
 * not the operator protocol: a job says which map the switch must hold
 * (or how to compute it from the maps as they are when its turn comes),
 * and the worker applies it as one batch, reads it back, checks the new
 * paths for light, rolls back what it can on failure, and saves the
 * desired map.  Between jobs it reconnects with backoff and reads the
 * switch back periodically.
 */
#ifndef OCS_SW_H
#define OCS_SW_H

#include <limits.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "ocs-drivers/drv.h"
#include "ocsd/conf.h"
#include "ocsd/map.h"

struct ocsd;
struct sw_job;

/*
 * One switch's state.  Its worker owns the driver and is the only writer
 * of the maps and of what it says of the switch; everyone else reads them
 * under the daemon's mutex (d->mtx), and the worker writes them under it.
 */
struct sw {
	struct ocsd *d;
	uint32_t     idx; /* d->sw[idx], conf->sw[idx] */
	/* The worker's copy of its section, taken at start and at each
	 * reload: the worker reads it without the lock. */
	struct conf_switch cf;
	char               label[CONF_SWNAME_MAX]; /* its name, or "switch" */
	/* How messages name it after "switch ": the driver, and for a
	 * named switch its name too ("A (polatis)"). */
	char tag[CONF_SWNAME_MAX + 24];
	char pfx[CONF_SWNAME_MAX + 4]; /* "A: " before its log lines */

	/* The switch, as last seen by the worker. */
	int        connected;
	uint32_t   nports;
	uint32_t   nout; /* the switch's egress ports (M of N x M) */
	char       sw_err[512];
	char       sw_warn[256];
	int        interrupted; /* a batch failed with its outcome unknown */
	double     last_op_ms;
	struct map live;
	int        have_live;
	uint64_t   live_ms;
	struct map desired;
	int        have_desired;
	char       desired_path[PATH_MAX];
	/* A batch of this switch's cut off (run.state for a lone switch,
	 * interrupted-NAME in a fabric). */
	char mark_path[PATH_MAX + 32];
	char known_hosts[PATH_MAX + 16]; /* ssh's host keys */

	/* The worker. */
	struct sw_job *qhead, *qtail;
	int            stop;
	int            worker_done;
	int            applying;  /* a batch is on its way to the switch */
	int            cancel_fd; /* eventfd: readable when the worker must
	                           * give up its waits (sw_stop) */
	nng_thread    *thr;
	struct drv    *drv;
	uint64_t       next_try_ms, next_poll_ms;
	uint32_t       backoff_ms;
};

/* What a hold leaves behind: the switch holds sw, and desired becomes
 * the desired map (n == 0: the same as sw). */
struct sw_target {
	struct map sw;
	struct map desired;
};

/*
 * Computes a hold's target on switch s from the state as it is when the
 * worker reaches the job (so jobs queued together compose).  Runs on the
 * worker thread with d->mtx held (it must not take it): it reads d's
 * configuration and s's maps.  0 or a negative code with one line in
 * err; the target is freed by the caller either way.
 */
typedef int (*sw_plan_fn)(const struct ocsd *d, const struct sw *s,
                          const void *arg, struct sw_target *t, char *err,
                          size_t len);

enum sw_op {
	SW_HOLD,    /* make the switch hold a target, save the desired map */
	SW_REFRESH, /* read the switch back */
	SW_ADOPT,   /* read the switch back and make that the desired map
	             * (plan, if set, is asked first with t NULL: its
	             * refusal ends the job) */
	SW_RELOAD,  /* take the switch's new section (reconnect if needed) */
	SW_PORTS,   /* read every port's power and state (st, 1..2N) */
	SW_FAULT,   /* arm faults on an emulated switch (arg: the spec) */
	SW_CAPTURE, /* what an emulated switch's capture saw (arg: run id) */
};

struct sw_job {
	enum sw_op  op;
	sw_plan_fn  plan;   /* SW_HOLD: compute the target, or NULL: */
	const void *arg;    /* (the plan's argument) */
	struct map  target; /* the map to hold (a run's configuration) */
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

/*
 * Set up d->sw[] from d->conf (one per switch, paths in the state
 * directory) and load each saved desired map; 0, or a negative code after
 * logging why.  sw_free undoes it once the workers are stopped.
 */
int  sw_init(struct ocsd *);
void sw_free(struct ocsd *);
/* Start and stop every worker (stop closes the drivers). */
int  sw_start(struct ocsd *);
void sw_stop(struct ocsd *);

/*
 * Queue a job on switch s; its worker finishes aio
 * (nng_aio_begin/defer/finish) with 0 once the job ran, its outcome in
 * job->rv, so a caller waits without a thread.  A job still queued when
 * its aio is cancelled never runs.  sw_submit_locked is for callers that
 * hold d->mtx.
 */
void sw_submit(struct sw *, struct sw_job *, nng_aio *);
void sw_submit_locked(struct sw *, struct sw_job *, nng_aio *);
/*
 * A reload (main thread): nc replaces d->conf when it has the same
 * switches (a switch added or removed needs a restart: 0 or -EBUSY, nc
 * freed either way), and every worker takes its new section.
 */
int sw_reload(struct ocsd *, struct conf *nc);
/* Someone needs the switch now: an unconnected worker tries at once
 * instead of at the end of its backoff.  With d->mtx held. */
void sw_kick_locked(struct sw *);
/* The switch a name gives ("" or NULL: the only one), or NULL. */
struct sw *sw_find(struct ocsd *, const char *name);

#endif
