/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's shared state.  One mutex guards it; it is never held across
 * driver I/O or a send.  The switch worker (sw.c) owns the driver and is
 * the only writer of the live and desired maps; control contexts (ctl.c)
 * read them under the lock and hand everything that touches the switch
 * to the worker as a job, completed through the context's nng aio.
 */
#ifndef OCS_OCSD_H
#define OCS_OCSD_H

#include <limits.h>
#include <stdint.h>

#include <nng/nng.h>
#include <nng/supplemental/util/platform.h>

#include "ocs-drivers/drv.h"
#include "ocsd/conf.h"
#include "ocsd/err.h"
#include "ocsd/map.h"
#include "ocsd/sw.h"

struct ocsd {
	nng_mtx     *mtx;
	nng_cv      *cv;
	struct conf *conf;
	uint64_t     start_ms;

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
	char       run_state_path[PATH_MAX + 16]; /* a run's intent */
	char       runs_path[PATH_MAX + 16];      /* runs.jsonl */
	struct runs_index *runs_ix;               /* its index (runs.h) */

	/* What changed, for watchers (ev.c). */
	struct ev *ev;

	/* Agents and the collective runs (agents.c, run.c). */
	struct agents *ag;
	struct runner *runner;

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

/* ctl.c: the operator socket. */
struct ctl;
int  ctl_open(struct ocsd *, const char *url, struct ctl **);
void ctl_close(struct ctl *);

#endif
