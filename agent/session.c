/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent's control session with ocsd (see session.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <nng/protocol/reqrep0/req.h>

#include "agent/session.h"
#include "proto/base/net.h"
#include "proto/link.h"

/* A join is answered at once by a live ocsd: waiting longer only hides
 * an unreachable one (the held Ready waits for the run instead). */
#define SESS_JOIN_MS 5000

int
session_open(struct session *s, char *err, size_t errlen)
{
	int rv;

	if ((rv = nng_req0_open(&s->req)) != 0) {
		snprintf(err, errlen, "nng: %s", nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	nng_socket_set_size(s->req, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* Never re-send: Ready is not idempotent. */
	nng_socket_set_ms(s->req, NNG_OPT_REQ_RESENDTIME,
	                  NNG_DURATION_INFINITE);
	nng_socket_set_ms(s->req, NNG_OPT_SENDTIMEO, s->timeout_ms);
	nng_socket_set_ms(s->req, NNG_OPT_RECONNMAXT, 1000);
	/* Non-blocking dial: nng keeps trying in the background. */
	if ((rv = link_dial(s->req, s->controller, s->tls_ca,
	                    NNG_FLAG_NONBLOCK, err, errlen)) != 0) {
		nng_close(s->req);
		return (msg_nngerr(rv));
	}
	return (0);
}

static void
bar_close(struct session *s)
{
	if (s->have_bar)
		close(s->bar_fd);
	s->have_bar = 0;
	barlink_rx_free(&s->bar_rx);
}

void
session_close(struct session *s)
{
	bar_close(s);
	nng_close(s->req);
	if (s->have_sub)
		nng_close(s->sub);
	s->have_sub = 0;
}

/* One exchange; an Error answer becomes its code, its text in err. */
static int
call(struct session *s, Ocs__Msg *m, int timeout_ms, Ocs__Msg **rep, char *err,
     size_t errlen)
{
	char peer[300];
	int  rv;

	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = ++s->seq;
	if (s->run) {
		m->has_run_id = 1;
		m->run_id = s->run;
	}
	/* Sending waits for a connection to ocsd: bounded alike. */
	nng_socket_set_ms(s->req, NNG_OPT_SENDTIMEO, timeout_ms);
	nng_socket_set_ms(s->req, NNG_OPT_RECVTIMEO, timeout_ms);
	snprintf(peer, sizeof(peer), "controller %s", s->controller);
	if (s->have_bar && m->body_case == OCS__MSG__BODY_READY) {
		/* A link that failed is not used again: the next join
		 * attaches anew. */
		if ((rv = barlink_call(s->bar_fd, &s->bar_rx, m, timeout_ms,
		                       peer, rep, err, errlen)) != 0) {
			bar_close(s);
			return (rv);
		}
	} else if ((rv = msg_call(s->req, m, peer, rep, err, errlen)) != 0)
		return (rv);
	if ((*rep)->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(err, errlen, "controller: %s", (*rep)->error->text);
		rv = (*rep)->error->code;
		msg_free(*rep);
		*rep = NULL;
		return (rv < 0 ? rv : -SESS_EREFUSED);
	}
	return (0);
}

/*
 * The barrier link offered in jr, attached with its token: 0 (none
 * offered, too), or a code and one line in err.  A refusal is not the
 * join's: the record it names may have been replaced or lost since the
 * answer, so the whole join is tried again (agent_id 0 says so).
 */
static int
attach(struct session *s, const Ocs__JoinReply *jr, char *err, size_t errlen)
{
	int fd, rv;

	bar_close(s);
	rv = barlink_attach(jr, s->agent_id, ++s->seq, SESS_JOIN_MS,
	                    &s->bar_rx, &fd, err, errlen);
	if (rv == 0 && fd >= 0) {
		s->bar_fd = fd;
		s->have_bar = 1;
	}
	if (rv != 0)
		s->agent_id = 0;
	return (rv == -SESS_EREFUSED ? -EPERM : rv);
}

int
session_join(struct session *s, char *err, size_t errlen)
{
	Ocs__Msg              m, *rep;
	Ocs__Hello            h;
	Ocs__Join             j;
	uint8_t               proof[AUTH_PROOF];
	const Ocs__JoinReply *jr;
	size_t                i;
	int                   rv;

	ocs__msg__init(&m);
	ocs__hello__init(&h);
	h.host = s->host;
	m.body_case = OCS__MSG__BODY_HELLO;
	m.hello = &h;
	s->run = 0;
	if ((rv = call(s, &m, SESS_JOIN_MS, &rep, err, errlen)) != 0)
		return (rv);
	if (rep->body_case != OCS__MSG__BODY_CHALLENGE ||
	    rep->challenge->nonce.len != AUTH_NONCE) {
		snprintf(err, errlen, "controller: expected a challenge");
		msg_free(rep);
		return (-MSG_EBODY);
	}
	rv = auth_proof(s->secret, s->secret_len, rep->challenge->nonce.data,
	                AUTH_NONCE, s->host, proof);
	ocs__msg__init(&m);
	ocs__join__init(&j);
	j.host = s->host;
	j.transceivers = s->ntrx;
	j.nonce.data = rep->challenge->nonce.data;
	j.nonce.len = AUTH_NONCE;
	j.proof.data = proof;
	j.proof.len = AUTH_PROOF;
	j.has_mem_limit = s->mem_limit != 0;
	j.mem_limit = s->mem_limit;
	if (s->transport[0])
		j.transport = s->transport;
	if (s->ifaces[0])
		j.ifaces = s->ifaces;
	m.body_case = OCS__MSG__BODY_JOIN;
	m.join = &j;
	if (rv == 0) {
		Ocs__Msg *r2;

		rv = call(s, &m, SESS_JOIN_MS, &r2, err, errlen);
		msg_free(rep);
		rep = r2;
	} else {
		msg_free(rep);
		snprintf(err, errlen, "cannot compute the join proof");
		return (rv);
	}
	if (rv != 0)
		return (rv == -MSG_EBODY ? rv : -SESS_EREFUSED);
	if (rep->body_case != OCS__MSG__BODY_JOIN_REPLY) {
		snprintf(err, errlen, "controller: expected a join reply");
		msg_free(rep);
		return (-MSG_EBODY);
	}
	jr = rep->join_reply;
	for (i = 0; i < s->ntrx; i++)
		s->ingress[i] = s->egress[i] = 0;
	for (i = 0; i < jr->n_ports; i++) {
		if (jr->ports[i]->trx >= s->ntrx) {
			snprintf(err, errlen,
			         "controller: port map names "
			         "transceiver %u of %u",
			         jr->ports[i]->trx, s->ntrx);
			msg_free(rep);
			return (-MSG_EFIELD);
		}
		s->ingress[jr->ports[i]->trx] = jr->ports[i]->ingress;
		s->egress[jr->ports[i]->trx] = jr->ports[i]->egress;
	}
	for (i = 0; i < s->ntrx; i++)
		if (s->ingress[i] == 0) {
			snprintf(err, errlen,
			         "controller has no cabling for %s.%zu",
			         s->host, i);
			msg_free(rep);
			return (-MSG_EFIELD);
		}
	s->agent_id = jr->agent_id;
	s->heartbeat_ms = jr->has_heartbeat_ms ? jr->heartbeat_ms : 2000;
	if ((rv = attach(s, jr, err, errlen)) != 0) {
		msg_free(rep);
		return (rv);
	}
	/* Joining again to the same events: keep the subscription (closing
	 * a socket whose dialer is still connecting leaks inside nng 1.5). */
	if (s->have_sub && jr->events &&
	    strcmp(s->sub_addr, jr->events) == 0) {
		msg_free(rep);
		return (0);
	}
	if (s->have_sub) {
		nng_close(s->sub);
		s->have_sub = 0;
	}
	if (jr->events && jr->events[0]) {
		snprintf(s->sub_addr, sizeof(s->sub_addr), "%s", jr->events);
		if ((rv = nng_sub0_open(&s->sub)) == 0 &&
		    (rv = nng_socket_set_size(s->sub, NNG_OPT_RECVMAXSZ,
		                              MSG_MAX_BYTES)) == 0 &&
		    (rv = nng_socket_set(s->sub, NNG_OPT_SUB_SUBSCRIBE, "",
		                         0)) == 0 &&
		    (rv = link_dial(s->sub, jr->events, s->tls_ca,
		                    NNG_FLAG_NONBLOCK, err, errlen)) == 0)
			s->have_sub = 1;
		else if (err[0] == '\0')
			snprintf(err, errlen, "events %s: %s", jr->events,
			         nng_strerror(rv));
	}
	msg_free(rep);
	return (0);
}

int
session_poll(struct session *s, struct session_plan *sp, char *err,
             size_t errlen)
{
	Ocs__Msg  m, *rep;
	Ocs__Poll p;
	int       rv;

	memset(sp, 0, sizeof(*sp));
	ocs__msg__init(&m);
	ocs__poll__init(&p);
	p.agent_id = s->agent_id;
	p.has_fibres_up = 1;
	p.fibres_up = s->fibres_up;
	if (s->down[0])
		p.down = s->down;
	m.body_case = OCS__MSG__BODY_POLL;
	m.poll = &p;
	s->run = 0;
	/* ocsd answers within a heartbeat; allow it two more. */
	rv = call(s, &m, (int)s->heartbeat_ms * 3 + 1000, &rep, err, errlen);
	if (rv != 0)
		return (rv);
	if (rep->body_case == OCS__MSG__BODY_IDLE) {
		msg_free(rep);
		return (0);
	}
	if (rep->body_case != OCS__MSG__BODY_PLAN || !rep->has_run_id ||
	    rep->run_id == 0) {
		snprintf(err, errlen, "controller: expected a plan or idle");
		msg_free(rep);
		return (-MSG_EBODY);
	}
	if (rep->plan->agent_id != s->agent_id) {
		snprintf(err, errlen,
		         "controller: plan for agent_id %u, this is %u",
		         rep->plan->agent_id, s->agent_id);
		msg_free(rep);
		return (-MSG_EBODY);
	}
	s->run = rep->run_id;
	sp->msg = rep;
	sp->run = rep->run_id;
	snprintf(sp->algo, sizeof(sp->algo), "%s", rep->plan->algo);
	sp->rv = plan_decode(rep->plan, rep->run_id, s->ntrx, &sp->p, sp->err,
	                     sizeof(sp->err));
	if (sp->rv == -ENOMEM)
		snprintf(sp->err, sizeof(sp->err),
		         "out of memory for the plan");
	return (1);
}

void
session_plan_free(struct session_plan *sp)
{
	plan_free(&sp->p);
	msg_free(sp->msg);
	sp->msg = NULL;
}

int
session_ready(struct session *s, uint32_t phase, const struct plan_done *d,
              size_t nd, uint64_t setup_ns, uint64_t teardown_ns, char *err,
              size_t errlen)
{
	Ocs__Msg          m, *rep;
	struct ready_wire w;
	int               rv;

	ocs__msg__init(&m);
	if (plan_ready_encode(s->agent_id, d, nd, &w) != 0) {
		snprintf(err, errlen, "%zu phase reports, at most %u", nd,
		         PLAN_MAX_DONE);
		return (-E2BIG);
	}
	w.r.has_setup_ns = setup_ns != 0;
	w.r.setup_ns = setup_ns;
	w.r.has_teardown_ns = teardown_ns != 0;
	w.r.teardown_ns = teardown_ns;
	m.body_case = OCS__MSG__BODY_READY;
	m.ready = &w.r;
	m.has_phase = 1;
	m.phase = phase;
	/* Held until every agent is ready and the switch is set. */
	if ((rv = call(s, &m, s->timeout_ms, &rep, err, errlen)) != 0)
		return (rv);
	switch (rep->body_case) {
	case OCS__MSG__BODY_RELEASE:
		rv = 0;
		break;
	case OCS__MSG__BODY_FINISHED:
		rv = 1;
		break;
	case OCS__MSG__BODY_ABORT:
		snprintf(err, errlen, "%s", rep->abort->reason);
		rv = -SESS_EABORT;
		break;
	default:
		snprintf(err, errlen,
		         "controller: unexpected answer to ready");
		rv = -MSG_EBODY;
	}
	msg_free(rep);
	return (rv);
}

int
session_abort(struct session *s, uint32_t phase, const char *reason)
{
	Ocs__Msg   m, *rep;
	Ocs__Abort a;
	char       err[300];
	int        rv;

	ocs__msg__init(&m);
	ocs__abort__init(&a);
	a.reason = (char *)(uintptr_t)reason;
	m.body_case = OCS__MSG__BODY_ABORT;
	m.abort = &a;
	m.has_phase = 1;
	m.phase = phase;
	rv = call(s, &m, s->timeout_ms, &rep, err, sizeof(err));
	msg_free(rep);
	return (rv);
}

int
session_events_fd(struct session *s)
{
	int fd;

	if (!s->have_sub ||
	    nng_socket_get_int(s->sub, NNG_OPT_RECVFD, &fd) != 0)
		return (-EBADF);
	return (fd);
}

int
session_abort_check(void *arg, char *reason, size_t len)
{
	struct session *s = arg;
	nng_msg        *nm;
	Ocs__Msg       *m;
	char            why[200];
	int             hit = 0;

	while (nng_recvmsg(s->sub, &nm, NNG_FLAG_NONBLOCK) == 0) {
		if (msg_decode(nng_msg_body(nm), nng_msg_len(nm), &m, why,
		               sizeof(why)) == 0) {
			if (m->body_case == OCS__MSG__BODY_ABORT &&
			    m->has_run_id && m->run_id == s->run) {
				snprintf(reason, len, "%s", m->abort->reason);
				hit = 1;
			}
			msg_free(m);
		}
		nng_msg_free(nm);
	}
	return (hit);
}
