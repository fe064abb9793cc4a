/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' protocol, written once for every client (ocs-agent waits
 * for each answer, ocs-load keeps thousands of agents in flight): the
 * messages an agent sends (Hello, Join, Attach, Poll, Ready, Abort), each
 * built here from plain values, and the answers it gets, each checked
 * here into plain values.  Clients differ only in how they wait.  The
 * exchange itself (ocs.proto, "agents"): Hello and Join over nng, then
 * everything on the agent link (proto/alink.h), which opens with ocsd's
 * Challenge and the agent's Attach.
 */
#ifndef OCS_AMSG_H
#define OCS_AMSG_H

#include <stddef.h>
#include <stdint.h>

#include "proto/alink.h"
#include "proto/auth.h"
#include "proto/base/errbase.h"
#include "proto/msg.h"
#include "proto/plan.h"

#define AMSG_MAX_TRX   8  /* transceivers a host */
#define AMSG_HOST_MAX  48 /* a host name's length, at most (less one) */
#define AMSG_MAX_HEARD (2 * AMSG_MAX_TRX) /* probes a Heard says */
#define AMSG_PROBE_MS  10000              /* a Probe's wait_ms, at most */

enum amsg_err {
	AMSG_EBASE = ERR_BASE_AMSG,
	AMSG_EREFUSED, /* ocsd refused the join for good (proof, cabling) */
	AMSG_EABORT,   /* the run was aborted (reason in err) */
	AMSG_EMAX
};

/* Is h a host name ocsd takes (letters, digits, - and _)? */
int amsg_host_ok(const char *h);

/* Storage for one message being built: m points into it. */
struct amsg_out {
	Ocs__Msg          m;
	Ocs__Hello        hello;
	Ocs__Join         join;
	Ocs__Attach       attach;
	Ocs__Poll         poll;
	Ocs__Abort        abort;
	Ocs__LinkState    ls;
	Ocs__TrxLink      link[AMSG_MAX_TRX];
	Ocs__TrxLink     *linkp[AMSG_MAX_TRX];
	Ocs__Heard        heard;
	Ocs__HeardFrom    hf[AMSG_MAX_HEARD];
	Ocs__HeardFrom   *hfp[AMSG_MAX_HEARD];
	uint32_t          unsent[AMSG_MAX_TRX];
	uint8_t           proof[AUTH_PROOF];
	uint8_t           nonce[AUTH_NONCE];
	struct ready_wire ready;
};

/* What a host says when it joins. */
struct amsg_host {
	const char    *host;
	uint32_t       ntrx;
	const uint8_t *secret;
	size_t         slen;
	uint64_t       mem_limit;  /* 0: not said */
	const char    *transport;  /* "fibre" | "kernel" | NULL */
	const char    *ifaces;     /* kernel: t0,t1; or NULL */
	const char    *local_link; /* its servers' local links, or NULL */
};

/* The messages, numbered seq (run: the run they belong to, 0: none).
 * Builders that take an answer check it first: 0, or a negative code and
 * one line in err. */
void amsg_hello(struct amsg_out *, uint64_t seq, const struct amsg_host *);
int  amsg_join(struct amsg_out *, uint64_t seq, const struct amsg_host *,
               const Ocs__Msg *challenge, char *err, size_t errlen);
void amsg_poll(struct amsg_out *, uint64_t seq, uint32_t agent_id,
               uint32_t fibres_up, const char *down);

/* One transceiver's link as the host sees it (ocs.proto TrxLink). */
struct amsg_link {
	int         state; /* OCS__TRX_LINK__STATE__*; 0: not known */
	uint32_t    mtu;   /* 0: not known */
	uint32_t    ups;   /* carrier up transitions so far */
	const char *iface; /* or NULL */
};
/* The links of transceivers 0..n) (n at most AMSG_MAX_TRX; those of
 * state 0 left out) added to the Poll amsg_poll built. */
void amsg_poll_links(struct amsg_out *, const struct amsg_link *, uint32_t n);
/* A LinkState: unasked (seq 0), sent at every change. */
void amsg_link_state(struct amsg_out *, uint32_t        agent_id,
                     const struct amsg_link *, uint32_t n);
/* A probe heard on receiver trx: the sender's host and transmitter. */
struct amsg_heard {
	uint32_t trx, from_trx;
	char     host[AMSG_HOST_MAX];
};
/* A Heard: unasked (seq 0), what a Probe's listening heard (n at most
 * AMSG_MAX_HEARD; more are left out), and the transmitters whose probe
 * could not be sent (a bit each). */
void amsg_heard(struct amsg_out *, uint32_t agent_id, uint32_t nonce,
                const struct amsg_heard *, size_t n, uint32_t unsent);
/* A Probe (the answer to a Poll), checked against a host of ntrx
 * transceivers: bit i of send and listen is transceiver i. */
struct amsg_probe {
	uint32_t nonce, send, listen, wait_ms;
};
/* 0 with *p, or -MSG_EFIELD and one line in err (a transceiver out of
 * range, wait_ms 0 or above AMSG_PROBE_MS). */
int amsg_probe_get(const Ocs__Msg *rep, uint32_t ntrx, struct amsg_probe *p,
                   char *err, size_t errlen);
/* -E2BIG (nothing built) for more than PLAN_MAX_DONE reports. */
int  amsg_ready(struct amsg_out *, uint64_t seq, uint64_t run,
                uint32_t agent_id, uint32_t phase, const struct plan_done *done,
                size_t nd, uint64_t setup_ns, uint64_t teardown_ns);
void amsg_abort(struct amsg_out *, uint64_t seq, uint64_t run, uint32_t phase,
                const char *reason);

/* The JoinReply, checked: the link to attach and the ports. */
struct amsg_joined {
	uint32_t agent_id, heartbeat_ms;
	uint32_t ingress[AMSG_MAX_TRX], egress[AMSG_MAX_TRX];
	char     link[300]; /* the URL to dial (alink_url) */
	uint8_t  token[ALINK_TOKEN];
};
/* rep answers a Join: 0 with *j, -AMSG_EREFUSED (ocsd said no for good:
 * wrong secret, no cabling), -EEXIST / -EAGAIN (try again later; its
 * code), or another code; one line in err.  joined: the URL the agent
 * joined (for a link that names no host). */
int amsg_joined(const Ocs__Msg *rep, const struct amsg_host *,
                const char *joined, struct amsg_joined *j, char *err,
                size_t errlen);

/*
 * The Attach for the link's Challenge ch: 0, or a negative code and one
 * line in err (not a Challenge).
 */
int amsg_attach(struct amsg_out *, uint64_t seq, const Ocs__Msg *ch,
                const struct amsg_host *, const struct amsg_joined *,
                char *err, size_t errlen);
/* Connect to the joined link, read its Challenge, attach and wait for
 * the acceptance (blocking, within timeout_ms; tls: a client context for
 * tls+tcp:// links).  0 with *c connected, or a negative code (ocsd's
 * refusal's) and one line in err. */
int amsg_attach_link(struct alink_conn *c, const struct amsg_host *,
                     const struct amsg_joined *, struct ssl_ctx_st *tls,
                     uint64_t seq, int timeout_ms, char *err, size_t errlen);

/* What an answer on the link says. */
enum amsg_answer {
	AMSG_IDLE = 1, /* a heartbeat, or an accepted Attach or Abort */
	AMSG_PLAN,
	AMSG_RELEASE,
	AMSG_FINISHED,
	AMSG_ABORTED, /* the run ended: the reason in err */
	AMSG_PROBE,   /* ocsctl check: probe, listen, say what was heard */
};
/*
 * rep answers a request: AMSG_* > 0, or ocsd's refusal (an Error: its
 * negative code, its text in err), or -MSG_EBODY for a body that does
 * not answer what was asked (poll: Idle, Plan or Probe; ready: Release,
 * Finished or Abort).
 */
int amsg_answer(const Ocs__Msg *rep, int asked, char *err, size_t errlen);

#endif
