/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent's control session with ocsd: it joins over nng (a REQ
 * socket: Hello, Join) and then lives on its agent link (proto/alink.h),
 * which carries everything else: Poll (held by ocsd until a run or a
 * heartbeat), Ready (held until the release), Abort, and the aborts ocsd
 * pushes in the middle of a phase.  The protocol is proto/amsg.h's; this
 * file is the waiting, one answer at a time.
 */
#ifndef OCS_SESSION_H
#define OCS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include <nng/nng.h>

#include "agent/exec.h"
#include "proto/alink.h"
#include "proto/amsg.h"
#include "proto/auth.h"
#include "proto/msg.h"

struct session {
	char       controller[256];
	char       tls_ca[256]; /* for tls+tcp:// controllers */
	char       host[64];
	uint8_t    secret[AUTH_SEC_MAX + 1];
	size_t     secret_len;
	uint32_t   ntrx;
	int        timeout_ms;
	nng_socket req;
	uint32_t   agent_id; /* 0: not joined */
	uint32_t   ingress[EXEC_MAX_PORTS], egress[EXEC_MAX_PORTS];
	uint32_t   heartbeat_ms;
	uint64_t   seq;
	uint64_t   run;           /* the run in progress, 0 if none */
	uint32_t   fibres_up;     /* plugged transceivers, said in each Poll */
	uint64_t   mem_limit;     /* said at the join (0: not said) */
	char       transport[16]; /* said at the join */
	char       ifaces[EXEC_MAX_PORTS * 16]; /* kernel: t0,t1 */
	char       local_link[64]; /* said at the join: where its server's
	                              local links come in ("": none) */
	char       down[200]; /* why fibres are not up, said in each Poll */
	/* Each transceiver's link, said in each Poll and, at every change,
	 * in a LinkState (state 0: not known, not said). */
	struct amsg_link links[EXEC_MAX_PORTS];
	/* The agent link, once attached. */
	int                have_link;
	struct alink_conn  link;
	struct ssl_ctx_st *tls; /* its TLS client context, tls+tcp:// */
	/* Everything the agent waits on while it waits for ocsd: an epoll
	 * set of the link and a side descriptor (the carrier watch), whose
	 * callback runs whenever that is readable, in every wait. */
	int evfd;
	int side_fd;
	void (*side)(void *arg);
	void *side_arg;
	/* Planes apart (the run's plan names them): the planes this node
	 * waits for, said in each Ready (0: one release for all), the
	 * barrier it last said Ready for, and the planes released since (a
	 * bit each; every bit: all). */
	uint32_t planes, bar, lit;
};

int  session_open(struct session *, char *err, size_t errlen);
int  session_redial(struct session *, char *err, size_t errlen);
void session_close(struct session *);

/* Watch fd in every wait (joined or not): fn(arg) is called, on this
 * thread, whenever it is readable (it may call session_links).  0 or
 * -errno. */
int session_side(struct session *, int fd, void (*fn)(void *), void *arg);
/* Tell ocsd what a probe heard (h[0..n)) and which transmitters could
 * not send it (unsent, a bit each), unasked: 0, or an error as
 * for session_links. */
int session_heard(struct session *, uint32_t nonce, const struct amsg_heard *h,
                  size_t n, uint32_t unsent);
/* Tell ocsd the links now (s->links), unasked: 0, or an error (the link
 * closed: the agent joins again).  Not joined: nothing to do, 0. */
int session_links(struct session *);

/*
 * Hello, Challenge, Join, JoinReply; then connect the agent link, answer
 * its Challenge and attach.  0; -AMSG_EREFUSED when ocsd refuses the
 * join for good (wrong secret, no cabling: the reason in err); any other
 * code (ocsd not there, a live twin, a refused attach) is worth trying
 * again later.
 */
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
	/* Or a probe to send and listen for (session_poll's 2). */
	struct amsg_probe probe;
};

/* Wait for work, saying how many fibres are plugged (s->fibres_up): 1
 * with *sp (free with session_plan_free), 2 with sp->probe (ocsctl
 * check: nothing to free), 0 when idle, < 0 when the link or ocsd is
 * lost (join again). */
int  session_poll(struct session *, struct session_plan *sp, char *err,
                  size_t errlen);
void session_plan_free(struct session_plan *);

/*
 * Ready for phase k of the current run, reporting phases done since the
 * last Ready (and, when not 0, the time its buffers took to set up, in
 * the first Ready, and to free, in the last).  0 on Release, 1 on
 * Finished, -AMSG_EABORT with the reason in err, or another error.
 */
int session_ready(struct session *, uint32_t phase,
                  const struct plan_done *done, size_t ndone,
                  uint64_t setup_ns, uint64_t teardown_ns, char *err,
                  size_t errlen);

/* Tell ocsd this agent cannot go on with the run, and why. */
int session_abort(struct session *, uint32_t phase, const char *reason);

/* Abort hook for the executor: a descriptor readable when the link (or
 * the side descriptor) has something, and a check that serves the side
 * and reads what came on the link for an abort of the current run (1
 * and the reason, else 0). */
int session_events_fd(struct session *);
int session_abort_check(void *arg, char *reason, size_t len);
/* The executor's lit hook: the planes released since the last Ready. */
uint32_t session_lit(void *arg);

#endif
