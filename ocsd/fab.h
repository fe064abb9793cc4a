/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change of a fabric's switches at once: one hold a switch, each on its
 * own worker (sw.c), so that the switches move side by side, and one
 * completion once every switch has settled, read back and passed its
 * light check.  A switch that fails rolls itself back (sw.c); the others
 * keep what they were given, and the outcome says which switch held what.
 */
#ifndef OCS_FAB_H
#define OCS_FAB_H

#include <stdint.h>

#include <nng/nng.h>

#include "ocsd/sw.h"

struct fab_job;
/* A switch's aio knows its job and index. */
struct fab_slot {
	struct fab_job *f;
	uint32_t        i;
};

struct fab_job {
	struct ocsd *d;
	/* Heard (d->mtx held) as each switch's hold succeeds, before the
	 * whole job completes: planes apart release a plane as soon as its
	 * own switch has settled.  NULL: only the completion. */
	void (*one)(void *arg, uint32_t sw);
	void *one_arg;
	/* The target of each switch, by index (n == 0: left alone). */
	struct map target[CONF_SWITCH_MAX];
	int        transient; /* the desired maps stay (a run's phases) */

	/* Results, set before the caller's aio finishes. */
	int      rv;        /* 0, or the first failed switch's code */
	int      failed;    /* that switch's index, or -1 */
	uint32_t changed;   /* patches changed, every switch */
	double   took_ms;   /* the slowest switch's apply + settle */
	char     err[1024]; /* the failure, and what each switch holds */

	/* Each switch's job and aio. */
	struct sw_job   sj[CONF_SWITCH_MAX];
	nng_aio        *aio[CONF_SWITCH_MAX];
	struct fab_slot slot[CONF_SWITCH_MAX];
	uint32_t        left; /* jobs not finished yet */
	nng_aio        *caller;
};

/* Allocate the aios (0 or a negative code); fab_fini after the workers
 * stopped (sw_stop: every job queued has finished). */
int  fab_init(struct fab_job *, struct ocsd *);
void fab_fini(struct fab_job *);
/* Forget the targets and results (before filling new targets). */
void fab_reset(struct fab_job *);
/*
 * Queue each switch's hold (switches without a target are not touched)
 * with d->mtx held; caller finishes with 0 once all are done, the outcome
 * in the job.  No job is queued for none: caller finishes at once.
 */
void fab_submit_locked(struct fab_job *, nng_aio *caller);

#endif
