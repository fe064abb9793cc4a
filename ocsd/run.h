/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Agents and collective runs inside ocsd.  agents.c owns the agents'
 * socket, the registry and the join; run.c owns the run: plans, barriers,
 * reconfigurations through the switch worker, releases and the report.
 * Everything here is called with d->mtx held.
 */
#ifndef OCS_RUN_H
#define OCS_RUN_H

#include <stdint.h>

#include "ocsd/ocsd.h"
#include "proto/auth.h"

struct actx;

struct agent {
	uint32_t     id;
	char         host[64];
	uint32_t     ntrx;
	uint32_t     pipe; /* nng pipe it joined on */
	int          lost;
	uint64_t     seen_ms;
	struct actx *held; /* its Poll or Ready, held for an answer */
	int          held_ready;
	uint64_t     held_until; /* a held Poll is answered Idle by then */
	/* In the current run: */
	int      node; /* -1 if not in it */
	int      plan_sent;
	uint32_t ready; /* the barrier it is ready for, or NONE */
};

#define AG_NONE UINT32_MAX

/* agents.c */
int  agents_open(struct ocsd *, struct agents **);
void agents_close(struct agents *);
/* Answer an agent's held request with m (run id, phase set by caller). */
void agents_answer(struct ocsd *, struct agent *, Ocs__Msg *);
/* Publish m to every agent's event socket. */
void agents_publish(struct ocsd *, Ocs__Msg *);
/* Joined agents, not lost, sorted by host; returns the count. */
uint32_t agents_active(struct ocsd *, struct agent **out, uint32_t cap);
void     agents_info(struct ocsd *, struct reply *);

/* run.c */
/* Start a run for an operator (aio of the waiting control context; the
 * report goes into job->rep).  0, or an error with job->err set. */
int run_start(struct ocsd *, const Ocs__RunRequest *, struct job *, nng_aio *);
void run_abort(struct ocsd *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));
/* From agents.c, for messages of agents in (or about) a run. */
void run_on_poll(struct ocsd *, struct agent *);
int  run_on_ready(struct ocsd *, struct agent *, const Ocs__Msg *, char *err,
                  size_t errlen);
void run_on_agent_abort(struct ocsd *, struct agent *, const Ocs__Msg *);
void run_on_lost(struct ocsd *, struct agent *);
/* Called often (the agents' tick): abort a barrier past its deadline. */
void run_tick(struct ocsd *);
/* Shutdown: abort and release everything. */
void run_stop(struct ocsd *);
/* The run machinery's aios (once, at start; fini at exit, unlocked). */
int  run_init(struct ocsd *);
void run_fini(struct ocsd *);

#endif
