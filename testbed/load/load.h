/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Simulated agents: many hosts joined to ocsd from one process, each on
 * its own connection and speaking the agents' protocol as ocs-agent
 * does (Hello, Join with the proof of the secret, held Polls answered
 * Idle each heartbeat, a run's Plan, a Ready before every barrier with
 * its phase reports, Finished), but moving no data: every phase reports
 * nothing sent, received or verified.  What it loads is ocsd's control
 * path alone: joins, heartbeats and barriers at thousands of agents.
 *
 * Each agent is a state machine on one nng REQ context and one aio, as
 * ocsd's own contexts are: no thread per agent.
 */
#ifndef OCS_LOAD_H
#define OCS_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"

#define LOAD_MAX 8192

struct load_opts {
	const char *controller; /* where agents join (nng URL) */
	const char *tls_ca;     /* for tls+tcp:// controllers, else NULL */
	uint8_t     secret[AUTH_SEC_MAX + 1];
	size_t      secret_len;
	const char *prefix; /* agent i is host prefix + i, */
	int         width;  /* zero-padded to width digits */
	uint32_t    n;      /* agents, 1..LOAD_MAX */
	uint32_t    ntrx;   /* transceivers each says it has, 1..8 */
};

struct load_stats {
	uint32_t joined;       /* agents holding a join now */
	uint64_t join_retries; /* "too many joins at once": tried again */
	uint32_t failed;       /* agents that gave up (reason in err) */
	uint64_t join_last_us; /* from load_start to the last JoinReply */
	uint64_t idles;        /* held Polls answered Idle (heartbeats) */
	uint64_t plans, releases, finished, aborts;
	char     err[300]; /* the last failure, "" if none */
};

struct load;

/* Start n agents joining at once (the join storm).  0, or an error with
 * err set (nothing left running). */
int  load_start(const struct load_opts *, struct load **out, char *err,
                size_t len);
void load_stats(struct load *, struct load_stats *);
/* Wait until every agent has joined, or one has failed, or timeout_ms;
 * 0 when all joined. */
int load_wait_joined(struct load *, uint32_t timeout_ms);
/* Wait until total Finished answers reach want (or timeout); 0 then. */
int  load_wait_finished(struct load *, uint64_t want, uint32_t timeout_ms);
void load_stop(struct load *);

#endif
