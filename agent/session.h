/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent's control session with ocsd: a REQ socket for join, poll and
 * ready (each answer may be held by ocsd: that is the release), and a SUB
 * socket on ocsd's event publisher for aborts that must reach an agent in
 * the middle of a phase.  Where ocsd offers a barrier link
 * (proto/barlink.h), the join attaches to it and Ready goes on it.
 */
#ifndef OCS_SESSION_H
#define OCS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>

#include "agent/exec.h"
#include "proto/auth.h"
#include "proto/barlink.h"
#include "proto/base/errbase.h"
#include "proto/msg.h"

struct session {
	char       controller[256];
	char       tls_ca[256]; /* for tls+tcp:// controllers */
	char       host[64];
	uint8_t    secret[AUTH_SEC_MAX + 1];
	size_t     secret_len;
	uint32_t   ntrx;
	int        timeout_ms;
	nng_socket req, sub;
	int        have_sub;
	char       sub_addr[256]; /* where sub is dialled */
	uint32_t   agent_id;
	uint32_t   ingress[EXEC_MAX_PORTS], egress[EXEC_MAX_PORTS];
	uint32_t   heartbeat_ms;
	uint64_t   seq;
	uint64_t   run;           /* the run in progress, 0 if none */
	uint32_t   fibres_up;     /* plugged transceivers, said in each Poll */
	uint64_t   mem_limit;     /* said at the join (0: not said) */
	char       transport[16]; /* said at the join */
	char       ifaces[EXEC_MAX_PORTS * 16]; /* kernel: t0,t1 */
	char       down[200]; /* why fibres are not up, said in each Poll */
	/* The barrier link, when ocsd offers one: Ready goes on it. */
	int               have_bar, bar_fd;
	char              bar_addr[256];
	struct barlink_rx bar_rx;
};

enum session_err {
	SESS_EBASE = ERR_BASE_SESS,
	SESS_EREFUSED, /* ocsd refused the join (bad proof, unknown host) */
	SESS_EABORT,   /* the run was aborted (reason in err) */
	SESS_EMAX
};

int  session_open(struct session *, char *err, size_t errlen);
void session_close(struct session *);

/* Hello, Challenge, Join, JoinReply; then subscribe to events, and
 * attach to the barrier link if ocsd offers one (failing that, the join
 * fails: ocsd's operator configured it, and a Ready it cannot carry is
 * not moved elsewhere unannounced). */
int session_join(struct session *, char *err, size_t errlen);

/* A run's plan as it came: decoded (rv 0) or not (rv < 0, reason in
 * err); the blocks point into the message it came in, held here. */
struct session_plan {
	struct plan p;
	uint64_t    run;
	char        algo[32];
	int         rv;
	char        err[512];
	Ocs__Msg   *msg;
};

/* Wait for work, saying how many fibres are plugged (s->fibres_up): 1
 * with *sp (free with session_plan_free), 0 when idle,
 * < 0 when ocsd is lost or forgot this agent. */
int  session_poll(struct session *, struct session_plan *sp, char *err,
                  size_t errlen);
void session_plan_free(struct session_plan *);

/*
 * Ready for phase k of the current run, reporting phases done since the
 * last Ready (and, when not 0, the time its buffers took to set up, in
 * the first Ready, and to free, in the last).  0 on Release, 1 on Finished, -SESS_EABORT with the reason
 * in err, or another error.
 */
int session_ready(struct session *, uint32_t phase,
                  const struct plan_done *done, size_t ndone,
                  uint64_t setup_ns, uint64_t teardown_ns, char *err,
                  size_t errlen);

/* Tell ocsd this agent cannot go on with the run, and why. */
int session_abort(struct session *, uint32_t phase, const char *reason);

/* Abort hook for the executor: the SUB socket's descriptor and a check
 * that reads it for an abort of the current run. */
int session_events_fd(struct session *);
int session_abort_check(void *arg, char *reason, size_t len);

#endif
