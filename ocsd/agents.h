/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' registry inside ocsd: the agents' socket, the join, the
 * held requests, heartbeats.  It knows agents and messages, not runs:
 * whoever runs collectives (run.c) registers its callbacks with
 * agents_notify (as nng_pipe_notify does for pipes) and answers agents
 * through the typed senders below.  Everything is called with d->mtx
 * held, callbacks included, except agents_open and agents_close.
 */
#ifndef OCS_AGENTS_H
#define OCS_AGENTS_H

#include <stdint.h>

#include "ocsd/ocsd.h"
#include "proto/barlink.h"
#include "ocsd/reply.h"
#include "proto/plan.h"

#define AGENT_MAX_TRX 8
#define AGENTS_MAX    4096 /* joined at once */
/* Descriptors ocsd asks for: a connection, a subscriber and a barrier
 * link an agent. */
#define OCSD_NOFILE (3 * AGENTS_MAX + 256)
#define AG_NONE     UINT32_MAX

struct actx;
struct bar_conn;

struct agent {
	uint32_t     id;
	char         host[64];
	uint32_t     ntrx;
	uint16_t     in[AGENT_MAX_TRX];  /* transceiver i's TX: ingress */
	uint16_t     out[AGENT_MAX_TRX]; /* and RX: egress (from cabling) */
	uint32_t     pipe;               /* nng pipe it joined on */
	uint32_t     fibres_up;          /* plugged, as its last Poll said */
	uint64_t     mem_limit;          /* buffers it may take, 0: unsaid */
	char         transport[16];      /* as it joined: fibre, kernel */
	char         ifaces[136];        /* kernel: its interfaces */
	char         down[200];          /* its last Poll: what is not up */
	int          lost;
	uint64_t     seen_ms;
	struct actx *held; /* its Poll or Ready, held for an answer */
	int          held_ready;
	uint64_t     held_until; /* a held Poll is answered Idle by then */
	/* Its barrier link, if it attached, and a Ready held on it (seq). */
	struct bar_conn *bconn;
	int              held_bar;
	uint64_t         held_seq;
	uint64_t         readys, bar_readys; /* since it joined */
	char             bar_gone[120]; /* its link closed: why, until lost */
	uint8_t          token[BARLINK_TOKEN]; /* this join's, for Attach */
	/* In the current run (the runner's): */
	int      node; /* -1 if not in it */
	int      plan_sent;
	uint32_t ready; /* the barrier it is ready for, or AG_NONE */
};

/* A Ready, checked for shape: its phase reports decoded. */
struct agents_ready {
	int              has_run, has_phase;
	uint64_t         run_id;
	uint32_t         phase;
	struct plan_done done[PLAN_MAX_DONE];
	uint32_t         ndone;
	uint64_t         setup_ns, teardown_ns; /* 0: not said */
};

/*
 * What the registry tells the runner.  ready_check decides whether a
 * Ready is acceptable (0, or a negative code and one line in err, which
 * the agent gets as the answer) before it is held; only then is it held
 * and ready called, which may answer it at once.  Any member may be NULL.
 */
struct agents_events {
	void *arg;
	void (*poll)(void *arg, struct agent *);
	int (*ready_check)(void *arg, const struct agent *,
	                   const struct agents_ready *, char *err, size_t len);
	void (*ready)(void *arg, struct agent *, const struct agents_ready *);
	void (*abort)(void *arg, struct agent *, uint64_t run_id,
	              const char *reason);
	/* The agent's connection closed, or it joined again. */
	void (*lost)(void *arg, struct agent *);
};

int  agents_open(struct ocsd *, struct agents **);
void agents_close(struct agents *);
void agents_notify(struct agents *, const struct agents_events *);

/* Refresh a's ports from the current cabling (after a reload).  0, or
 * -ENOENT when a transceiver of a's is no longer cabled. */
int agents_ports(const struct ocsd *, struct agent *);

/* Answers to a's held request, if any, for run run_id. */
int  agents_send_plan(struct ocsd *, struct agent *, uint64_t run_id,
                      const struct plan *, const char *algo);
void agents_release(struct ocsd *, struct agent *, uint64_t run_id,
                    uint32_t phase);
void agents_finished(struct ocsd *, struct agent *, uint64_t run_id,
                     uint32_t phase);
/* A run's end for every agent: published on the event socket (for those
 * in a phase) and the answer to each held request of nodes[0..n) (NULL
 * entries skipped). */
void agents_abort(struct ocsd *, uint64_t run_id, uint32_t phase,
                  const char *reason, struct agent *const *nodes, uint32_t n);

/* Forget host's agent (the operator's evict): marked lost, as if its
 * connection had closed; alive, it joins again.  0, or -ENOENT with a
 * line in err. */
int agents_evict(struct ocsd *, const char *host, char *err, size_t len);

/* Joined agents, not lost, with every fibre plugged, sorted by host;
 * returns the count. */
uint32_t agents_active(struct ocsd *, struct agent **out, uint32_t cap);
void     agents_info(struct ocsd *, struct reply *);

#endif
