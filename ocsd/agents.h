/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' registry inside ocsd: who has joined, the proofs of the
 * join and of the attach, the one request each agent may have held,
 * heartbeats.  It knows agents and messages, not runs: whoever runs
 * collectives (run.c) registers its callbacks with agents_notify (as
 * nng_pipe_notify does for pipes) and answers agents through the typed
 * senders below.
 *
 * Two transports carry agents' messages, each in its own file: the join
 * socket (agjoin.c: nng REP, Hello and Join only) and the agent links
 * (aglink.c: everything after the join).  Both hand every message to
 * the registry's one entry (agents.c, hear), which answers through the
 * transport it came by.
 *
 * Threads and locks.  Everything here is called with d->mtx held,
 * callbacks included, except agents_open and agents_close: by nng's task
 * threads (the join socket's contexts and the tick's timer), by the link
 * thread (aglink.c: frames and closed links), and by control contexts
 * and the runner (ctl.c, run.c: starting, aborting, listing).  The lock
 * is never held across a wait: answers are written at once (aglink_send
 * queues what a socket does not take).
 */
#ifndef OCS_AGENTS_H
#define OCS_AGENTS_H

#include <stdint.h>

#include "ocsd/ocsd.h"
#include "proto/alink.h"
#include "proto/amsg.h"
#include "proto/plan.h"

#define AGENT_MAX_TRX AMSG_MAX_TRX
#define AGENTS_MAX    4096 /* joined at once */
/* Descriptors ocsd asks for: an agent's join connection and its link. */
#define OCSD_NOFILE (2 * AGENTS_MAX + 256)
#define AG_NONE     UINT32_MAX

struct aglink_conn;

/* One transceiver's link as its host last said (agents_link.c); the
 * states are ocs.proto's TrxLink.State. */
enum agent_link_state {
	AGL_UP = 1,     /* a carrier */
	AGL_NO_CARRIER, /* no light, or retraining */
	AGL_DOWN,       /* set down on the host */
	AGL_GONE,       /* no such interface */
};
struct agent_link {
	int      state;     /* enum agent_link_state, 0: never said */
	uint32_t mtu;       /* 0: not said */
	uint32_t ups;       /* carrier up transitions so far */
	char     iface[16]; /* or "" */
};

/* ocsctl check's probe of one agent (agents_probe.c). */
struct agent_probe {
	uint32_t          nonce;        /* the probe's; 0: none asked of it */
	int               sent;         /* its Probe went out */
	int               answered;     /* its Heard came */
	uint32_t          send, listen; /* transceiver bits, as asked */
	uint32_t          unsent;       /* and those it could not send */
	uint32_t          nheard;
	struct amsg_heard heard[AMSG_MAX_HEARD];
};

/* The one request an agent may have waiting for an answer. */
struct hold {
	enum { HOLD_NONE, HOLD_POLL, HOLD_READY } kind;
	uint64_t seq;   /* the request's, echoed by the answer */
	uint64_t until; /* a Poll is answered Idle by then (heartbeat) */
};

struct agent {
	uint32_t id;
	char     host[AMSG_HOST_MAX];
	uint32_t ntrx;
	uint16_t in[AGENT_MAX_TRX];  /* transceiver i's TX: ingress */
	uint16_t out[AGENT_MAX_TRX]; /* and RX: egress (cabling) */
	uint8_t  sw[AGENT_MAX_TRX];  /* and its switch (a fabric's plane) */
	uint32_t pipe;               /* the join connection */
	uint32_t fibres_up;          /* plugged, as its last Poll said */
	uint64_t mem_limit;          /* buffers it may take, 0: unsaid */
	char     transport[16];      /* as it joined: fibre, kernel */
	char     ifaces[136];        /* kernel: its interfaces */
	char     local_link[64];     /* its servers' local links, or "" */
	char     down[200];          /* its last Poll: what is not up */
	/* Each transceiver's link (the kernel transport says them; an
	 * agent that says none is not waited for). */
	struct agent_link   links[AGENT_MAX_TRX];
	int                 has_links;
	int                 lost;
	uint64_t            seen_ms, joined_ms;
	struct aglink_conn *link;     /* attached: everything after the join */
	char                peer[64]; /* where the link comes from */
	struct hold         hold;
	uint64_t            readys;         /* since it joined */
	uint64_t            attach_refused; /* second attaches turned away */
	uint8_t             token[ALINK_TOKEN]; /* this join's */
	/* In the current run (the runner's): */
	int      node; /* -1 if not in it */
	int      plan_sent;
	uint32_t ready;  /* the barrier it is ready for, or AG_NONE */
	uint32_t planes; /* its last Ready's planes (0: released together) */
	struct agent_probe probe;
};

/* A Ready, checked for shape: its phase reports decoded. */
struct agents_ready {
	int              has_run, has_phase;
	uint64_t         run_id;
	uint32_t         phase;
	struct plan_done done[PLAN_MAX_DONE];
	uint32_t         ndone;
	uint64_t         setup_ns, teardown_ns; /* 0: not said */
	uint32_t         planes; /* it waits for these apart; 0: together */
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
	/* A transceiver's link changed (a LinkState, or a Poll that says
	 * otherwise than before). */
	void (*links)(void *arg, struct agent *);
	/* The agent's link closed, it was evicted or hung, or it joined
	 * again: why says which. */
	void (*lost)(void *arg, struct agent *, const char *why);
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
/* Planes apart: plane's release of phase, the answer to the agent's
 * Ready if it is still held, else pushed on its link (seq 0). */
void agents_release_plane(struct ocsd *, struct agent *, uint64_t run_id,
                          uint32_t phase, uint32_t plane);
/* A run's end for the agents nodes[0..n) (NULL entries skipped): the
 * answer to what each waits on, else sent unasked on its link (it is in
 * a phase and stops at once). */
void agents_abort(struct ocsd *, uint64_t run_id, uint32_t phase,
                  const char *reason, struct agent *const *nodes, uint32_t n);

/* Forget host's agent (the operator's evict): marked lost and its link
 * closed; alive, it joins again.  0, or -ENOENT with a line in err. */
int agents_evict(struct ocsd *, const char *host, char *err, size_t len);

/* The live (joined, attached, not lost) agent of this id, or NULL. */
struct agent *agents_get(struct ocsd *, uint32_t id);

/* Joined agents, not lost, attached, with every fibre plugged, sorted by
 * host; returns the count. */
uint32_t agents_active(struct ocsd *, struct agent **out, uint32_t cap);
/* Those of the joined agents (not lost) that agents_active leaves out,
 * and why, as "h2 (fibres 0 of 2 up), h3 (not attached)" in buf;
 * returns how many have joined. */
uint32_t agents_left_out(struct ocsd *, char *buf, size_t len);

/* agents_link.c.  Take n links a message says into a's: 1 if one
 * changed, 0 if none, or -MSG_EFIELD with the bad field in err (nothing
 * taken). */
int agents_links_take(struct agent *a, Ocs__TrxLink *const *l, size_t n,
                      char *err, size_t len);
/* What ocsctl agents shows for transceiver t: up, dark (no carrier and
 * nothing patched to its receiver in the switch's map), no carrier
 * (patched yet no carrier: no light, or still retraining), down,
 * unplugged; "" when the agent says nothing of its links. */
const char *agents_link_word(const struct ocsd *, const struct agent *,
                             uint32_t t);

/* agents_probe.c: ocsctl check's probe (ocs.proto Probe, Heard).
 * Every live idle agent sends a probe out of each transceiver whose
 * transmitter its switch's live map patches, and listens on each:
 * answered on its held Poll at once, else at its next Poll (a run's
 * plan first), until wait_ms are nearly gone.  0, or -OCSD_EBUSY while
 * the last one's wait_ms have not passed. */
int agents_probe(struct ocsd *, uint32_t nonce, uint32_t wait_ms);
/* A's Poll is held: its Probe, if one waits for it. */
void agents_probe_poll(struct ocsd *, struct agent *);
/* A's Heard: taken if it answers a's Probe (0), else -MSG_EFIELD and a
 * line in err. */
int agents_probe_heard(struct agent *, const Ocs__Heard *, char *err,
                       size_t len);
/* What the probe found, a record a transceiver of every live agent. */
struct probe_info {
	char     trx[AMSG_HOST_MAX + 12]; /* HOST.TRX */
	int      sent;                    /* a probe went out of it */
	int      unsent; /* its agent was asked to, and could not */
	uint32_t nheard;
	char     heard[AMSG_MAX_HEARD][AMSG_HOST_MAX + 12];
	char     why[80]; /* not probed, or not answered: why */
};
/* Up to cap records into out; their count.  A count of them all with
 * out NULL. */
uint32_t agents_probe_result(struct ocsd *, struct probe_info *out,
                             uint32_t cap);

/* One agent as ocsctl agents shows it: a plain copy, taken under the
 * lock, that reply.c turns into the answer. */
struct agent_info {
	uint32_t          id, ntrx, fibres_up;
	char              host[AMSG_HOST_MAX];
	char              state[8]; /* idle | running | lost */
	uint64_t          seen_ms_ago, mem_limit, readys, attach_refused;
	int               link;
	char              transport[16], ifaces[136], down[200], peer[64];
	struct agent_link links[AGENT_MAX_TRX];
	char              shown[AGENT_MAX_TRX][12]; /* agents_link_word */
};
/* Up to cap agents into out (allocated by the caller); the count. */
uint32_t agents_snapshot(struct ocsd *, struct agent_info *out, uint32_t cap);
/* How many records there are (for sizing a snapshot). */
uint32_t agents_count(struct ocsd *);

#endif
