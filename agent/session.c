/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent's control session with ocsd (see session.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>
#include <nng/protocol/reqrep0/req.h>

#include "agent/session.h"
#include "proto/link.h"

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

void
session_close(struct session *s)
{
	nng_close(s->req);
	if (s->have_sub)
		nng_close(s->sub);
	s->have_sub = 0;
}

/* One exchange; the answer must carry our seq.  Returns 0 with *rep. */
static int
call(struct session *s, Ocs__Msg *m, int timeout_ms, Ocs__Msg **rep, char *err,
     size_t errlen)
{
	nng_msg *nm;
	char     why[300];
	int      rv;

	*rep = NULL;
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = ++s->seq;
	if (s->run) {
		m->has_run_id = 1;
		m->run_id = s->run;
	}
	if ((rv = msg_encode(m, &nm)) != 0) {
		snprintf(err, errlen, "encoding: %s", msg_strerror(rv));
		return (rv);
	}
	nng_socket_set_ms(s->req, NNG_OPT_RECVTIMEO, timeout_ms);
	if ((rv = nng_sendmsg(s->req, nm, 0)) != 0) {
		nng_msg_free(nm);
		snprintf(err, errlen, "controller %s: %s", s->controller,
		         nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	if ((rv = nng_recvmsg(s->req, &nm, 0)) != 0) {
		snprintf(err, errlen, "controller %s: no answer: %s",
		         s->controller, nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), rep, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0) {
		snprintf(err, errlen, "controller %s: %s", s->controller, why);
		return (rv);
	}
	if (!(*rep)->has_seq || (*rep)->seq != m->seq) {
		snprintf(err, errlen, "controller answered another request");
		msg_free(*rep);
		*rep = NULL;
		return (-MSG_EBODY);
	}
	if ((*rep)->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(err, errlen, "controller: %s", (*rep)->error->text);
		rv = (*rep)->error->code;
		msg_free(*rep);
		*rep = NULL;
		return (rv < 0 ? rv : -SESS_EREFUSED);
	}
	return (0);
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
	if ((rv = call(s, &m, s->timeout_ms, &rep, err, errlen)) != 0)
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
	m.body_case = OCS__MSG__BODY_JOIN;
	m.join = &j;
	if (rv == 0) {
		Ocs__Msg *r2;

		rv = call(s, &m, s->timeout_ms, &r2, err, errlen);
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
	if (s->have_sub) {
		nng_close(s->sub);
		s->have_sub = 0;
	}
	if (jr->events && jr->events[0]) {
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
session_poll(struct session *s, Ocs__Msg **plan, char *err, size_t errlen)
{
	Ocs__Msg  m, *rep;
	Ocs__Poll p;
	int       rv;

	*plan = NULL;
	ocs__msg__init(&m);
	ocs__poll__init(&p);
	p.agent_id = s->agent_id;
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
	*plan = rep;
	return (1);
}

int
session_ready(struct session *s, uint32_t phase, const struct exec_done *d,
              size_t nd, char *err, size_t errlen)
{
	Ocs__Msg       m, *rep;
	Ocs__Ready     r;
	Ocs__PhaseDone pd[64], *pp[64];
	size_t         i;
	int            rv;

	if (nd > 64)
		nd = 64;
	ocs__msg__init(&m);
	ocs__ready__init(&r);
	r.agent_id = s->agent_id;
	for (i = 0; i < nd; i++) {
		ocs__phase_done__init(&pd[i]);
		pd[i].phase = d[i].phase;
		pd[i].data_ns = d[i].data_ns;
		pd[i].bytes_sent = d[i].sent;
		pd[i].bytes_recv = d[i].recv;
		pd[i].bytes_relayed = d[i].relayed;
		pd[i].blocks_verified = d[i].verified;
		pd[i].errors = d[i].errors;
		pp[i] = &pd[i];
	}
	r.n_done = nd;
	r.done = pp;
	m.body_case = OCS__MSG__BODY_READY;
	m.ready = &r;
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
		return (-1);
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
