/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsd's shared state.  One mutex guards it; it is never held across
 * driver I/O or a send.  Each switch's worker (sw.c) owns its driver and
 * is the only writer of its live and desired maps; control contexts (ctl.c)
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

	/* The switches (sw.h), one per [switch] section. */
	struct sw         *sw;
	uint32_t           nsw;
	char               run_state_path[PATH_MAX + 16]; /* a run's intent */
	char               runs_path[PATH_MAX + 16];      /* runs.jsonl */
	struct runs_index *runs_ix; /* its index (runs.h) */

	/* What changed, for watchers (ev.c). */
	struct ev *ev;

	/* Agents and the collective runs (agents.c, run.c). */
	struct agents *ag;
	struct runner *runner;
};

/* ctl.c: the operator socket. */
struct ctl;
int  ctl_open(struct ocsd *, const char *url, struct ctl **);
void ctl_close(struct ctl *);

#endif
