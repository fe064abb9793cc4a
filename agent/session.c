/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent's control session with ocsd (see session.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "agent/session.h"
#include "proto/base/mono.h"
#include "proto/link.h"

/* A join is answered at once by a live ocsd: waiting longer only hides
 * an unreachable one (the held Ready waits for the run instead). */
#define SESS_JOIN_MS 5000

/* The join socket and its dialer. */
static int
req_open(struct session *s, char *err, size_t errlen)
{
	int rv;

	if ((rv = nng_req0_open(&s->req)) != 0) {
		snprintf(err, errlen, "nng: %s", nng_strerror(rv));
		return (msg_nngerr(rv));
	}
	nng_socket_set_size(s->req, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	/* A join is not re-sent behind our back: it is tried again whole. */
	nng_socket_set_ms(s->req, NNG_OPT_REQ_RESENDTIME,
	                  NNG_DURATION_INFINITE);
	nng_socket_set_ms(s->req, NNG_OPT_RECONNMAXT, 1000);
	/* Non-blocking dial: nng keeps trying in the background. */
	if ((rv = link_dial(s->req, s->controller, s->tls_ca,
	                    NNG_FLAG_NONBLOCK, err, errlen)) != 0) {
		nng_close(s->req);
		return (msg_nngerr(rv));
	}
	return (0);
}

int
session_open(struct session *s, char *err, size_t errlen)
{
	int rv;

	s->side_fd = -1;
	if ((s->evfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		rv = -errno;
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		return (rv);
	}
	if ((link_is_tls(s->controller) &&
	     (rv = alink_tls_client(s->tls_ca, &s->tls, err, errlen)) != 0) ||
	    (rv = req_open(s, err, errlen)) != 0) {
		alink_tls_free(s->tls);
		s->tls = NULL;
		close(s->evfd);
		s->evfd = -1;
	}
	return (rv);
}

/*
 * A join that failed on the way is tried again on a new socket and
 * dialer: nng 1.5.2's dialer can stop for good after a connection that
 * failed its negotiation (ocsd killed while the agent's connection to
 * it was being set up: in bench_soak an agent then made no connect(2)
 * for ten minutes, every join timing out).
 */
int
session_redial(struct session *s, char *err, size_t errlen)
{
	nng_close(s->req);
	return (req_open(s, err, errlen));
}

static void
link_close(struct session *s)
{
	if (s->have_link) {
		(void)epoll_ctl(s->evfd, EPOLL_CTL_DEL, s->link.io.fd, NULL);
		alink_disconnect(&s->link);
	}
	s->have_link = 0;
}

void
session_close(struct session *s)
{
	link_close(s);
	nng_close(s->req);
	alink_tls_free(s->tls);
	s->tls = NULL;
	if (s->evfd >= 0)
		close(s->evfd);
	s->evfd = -1;
}

int
session_side(struct session *s, int fd, void (*fn)(void *), void *arg)
{
	struct epoll_event ev = {.events = EPOLLIN};

	ev.data.fd = fd;
	if (epoll_ctl(s->evfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return (-errno);
	s->side_fd = fd;
	s->side = fn;
	s->side_arg = arg;
	return (0);
}

/* The side descriptor's news, if it has any (never blocks). */
static void
side_serve(struct session *s)
{
	struct pollfd p = {.fd = s->side_fd, .events = POLLIN};

	if (s->side != NULL && poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
		s->side(s->side_arg);
}

/* An unasked message o on the link, then freed; a link that fails is
 * closed (the next wait finds it so). */
static int
push(struct session *s, struct amsg_out *o)
{
	char err[300];
	int  rv;

	if ((rv = alink_send(&s->link, &o->m,
	                     mono_ms() + (uint64_t)SESS_JOIN_MS, err,
	                     sizeof(err))) != 0)
		link_close(s);
	free(o);
	return (rv);
}

int
session_links(struct session *s)
{
	struct amsg_out *o;

	if (!s->have_link || s->agent_id == 0)
		return (0);
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return (-ENOMEM);
	amsg_link_state(o, s->agent_id, s->links, s->ntrx);
	return (push(s, o));
}

int
session_heard(struct session *s, uint32_t nonce, const struct amsg_heard *h,
              size_t n, uint32_t unsent)
{
	struct amsg_out *o;

	if (!s->have_link || s->agent_id == 0)
		return (0);
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return (-ENOMEM);
	amsg_heard(o, s->agent_id, nonce, h, n, unsent);
	return (push(s, o));
}

static void
host_of(const struct session *s, struct amsg_host *h)
{
	memset(h, 0, sizeof(*h));
	h->host = s->host;
	h->ntrx = s->ntrx;
	h->secret = s->secret;
	h->slen = s->secret_len;
	h->mem_limit = s->mem_limit;
	h->transport = s->transport[0] ? s->transport : NULL;
	h->ifaces = s->ifaces[0] ? s->ifaces : NULL;
	h->local_link = s->local_link[0] ? s->local_link : NULL;
}

/* One exchange on the join socket, within SESS_JOIN_MS. */
static int
join_call(struct session *s, const Ocs__Msg *m, Ocs__Msg **rep, char *err,
          size_t errlen)
{
	char peer[300];

	nng_socket_set_ms(s->req, NNG_OPT_SENDTIMEO, SESS_JOIN_MS);
	nng_socket_set_ms(s->req, NNG_OPT_RECVTIMEO, SESS_JOIN_MS);
	snprintf(peer, sizeof(peer), "controller %s", s->controller);
	return (msg_call(s->req, m, peer, rep, err, errlen));
}

int
session_join(struct session *s, char *err, size_t errlen)
{
	struct amsg_out   *o;
	struct amsg_host   h;
	struct amsg_joined j;
	Ocs__Msg          *ch = NULL, *rep = NULL;
	int                rv;

	link_close(s);
	s->agent_id = 0;
	s->run = 0;
	host_of(s, &h);
	if ((o = calloc(1, sizeof(*o))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return (-ENOMEM);
	}
	amsg_hello(o, ++s->seq, &h);
	if ((rv = join_call(s, &o->m, &ch, err, errlen)) != 0)
		goto out;
	if (ch->body_case == OCS__MSG__BODY_ERROR) {
		rv = amsg_answer(ch, OCS__MSG__BODY_HELLO, err, errlen);
		goto out;
	}
	if ((rv = amsg_join(o, ++s->seq, &h, ch, err, errlen)) != 0 ||
	    (rv = join_call(s, &o->m, &rep, err, errlen)) != 0 ||
	    (rv = amsg_joined(rep, &h, s->controller, &j, err, errlen)) != 0)
		goto out;
	/* The link, proven for this join: everything else goes on it. */
	if ((rv = amsg_attach_link(&s->link, &h, &j, s->tls, ++s->seq,
	                           SESS_JOIN_MS, err, errlen)) != 0)
		goto out;
	s->have_link = 1;
	{
		struct epoll_event ev = {.events = EPOLLIN};

		ev.data.fd = s->link.io.fd;
		(void)epoll_ctl(s->evfd, EPOLL_CTL_ADD, s->link.io.fd, &ev);
	}
	s->agent_id = j.agent_id;
	s->heartbeat_ms = j.heartbeat_ms;
	memcpy(s->ingress, j.ingress, sizeof(s->ingress));
	memcpy(s->egress, j.egress, sizeof(s->egress));
out:
	msg_free(ch);
	msg_free(rep);
	free(o);
	return (rv);
}

/*
 * The answer to the request numbered seq (or an abort pushed for the run
 * in progress) within the deadline, serving the side descriptor
 * meanwhile: 0 with *rep, or a negative code and one line in err.
 */
static int
await(struct session *s, uint64_t seq, uint64_t deadline, Ocs__Msg **rep,
      char *err, size_t errlen)
{
	struct epoll_event ev;
	uint64_t           now;
	int                rv;

	for (;;) {
		if ((rv = alink_take(&s->link, rep, err, errlen)) < 0)
			return (rv);
		if (rv == 1) {
			if ((*rep)->has_seq && (*rep)->seq == seq)
				return (0);
			/* A run's end said unasked answers whatever waits
			 * for it. */
			if (s->run != 0 &&
			    (*rep)->body_case == OCS__MSG__BODY_ABORT &&
			    (*rep)->has_run_id && (*rep)->run_id == s->run)
				return (0);
			msg_free(*rep); /* given up on, or a stale push */
			*rep = NULL;
			continue;
		}
		if ((now = mono_ms()) >= deadline) {
			snprintf(err, errlen,
			         "agent link %s: no answer in time",
			         s->link.url);
			return (-ETIMEDOUT);
		}
		if (epoll_wait(s->evfd, &ev, 1, (int)(deadline - now)) < 0 &&
		    errno != EINTR) {
			rv = -errno;
			snprintf(err, errlen, "epoll: %s", strerror(errno));
			return (rv);
		}
		side_serve(s);
		if (!s->have_link) {
			snprintf(err, errlen, "agent link %s: closed",
			         s->link.url);
			return (-ECONNRESET);
		}
		/* Read after the wait, not before it: the answer is seldom
		 * there yet, and asking cost a read(2) an exchange. */
		if ((rv = alink_fill(&s->link, err, errlen)) < 0)
			return (rv);
	}
}

/* One exchange on the link; a link that failed is closed (the agent
 * joins again).  The answer's meaning, as amsg_answer says it. */
static int
call(struct session *s, const Ocs__Msg *m, int timeout_ms, Ocs__Msg **rep,
     char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + (uint64_t)timeout_ms;
	int      rv;

	*rep = NULL;
	if (!s->have_link) {
		snprintf(err, errlen, "not joined");
		return (-ENOTCONN);
	}
	if ((rv = alink_send(&s->link, m, deadline, err, errlen)) != 0 ||
	    (rv = await(s, m->seq, deadline, rep, err, errlen)) != 0) {
		link_close(s);
		return (rv);
	}
	return (amsg_answer(*rep, m->body_case, err, errlen));
}

int
session_poll(struct session *s, struct session_plan *sp, char *err,
             size_t errlen)
{
	struct amsg_out *o;
	Ocs__Msg        *rep;
	int              rv;

	memset(sp, 0, sizeof(*sp));
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return (-ENOMEM);
	s->run = 0;
	amsg_poll(o, ++s->seq, s->agent_id, s->fibres_up, s->down);
	amsg_poll_links(o, s->links, s->ntrx);
	/* ocsd answers within a heartbeat; allow it two more. */
	rv =
	    call(s, &o->m, (int)s->heartbeat_ms * 3 + 1000, &rep, err, errlen);
	free(o);
	if (rv == AMSG_PROBE) {
		rv = amsg_probe_get(rep, s->ntrx, &sp->probe, err, errlen);
		msg_free(rep);
		return (rv == 0 ? 2 : rv);
	}
	if (rv != AMSG_PLAN) {
		msg_free(rep);
		return (rv == AMSG_IDLE ? 0 : rv < 0 ? rv : -MSG_EBODY);
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
	struct amsg_out *o;
	Ocs__Msg        *rep;
	int              rv;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return (-ENOMEM);
	if (amsg_ready(o, ++s->seq, s->run, s->agent_id, phase, d, nd,
	               setup_ns, teardown_ns) != 0) {
		snprintf(err, errlen, "%zu phase reports, at most %u", nd,
		         PLAN_MAX_DONE);
		free(o);
		return (-E2BIG);
	}
	o->ready.r.has_planes = s->planes != 0;
	o->ready.r.planes = s->planes;
	s->bar = phase;
	s->lit = 0;
	/* Held until every agent is ready and the switch is set (apart:
	 * the first plane's switch; the others come pushed). */
	rv = call(s, &o->m, s->timeout_ms, &rep, err, errlen);
	free(o);
	if (rv == AMSG_RELEASE)
		s->lit = rep->release->has_plane && rep->release->plane < 32
		             ? 1u << rep->release->plane
		             : UINT32_MAX;
	msg_free(rep);
	switch (rv) {
	case AMSG_RELEASE:
		return (0);
	case AMSG_FINISHED:
		return (1);
	case AMSG_ABORTED:
		return (-AMSG_EABORT);
	default:
		return (rv < 0 ? rv : -MSG_EBODY);
	}
}

int
session_abort(struct session *s, uint32_t phase, const char *reason)
{
	struct amsg_out *o;
	Ocs__Msg        *rep;
	char             err[300];
	int              rv;

	if ((o = calloc(1, sizeof(*o))) == NULL)
		return (-ENOMEM);
	amsg_abort(o, ++s->seq, s->run, phase, reason);
	rv = call(s, &o->m, s->timeout_ms, &rep, err, sizeof(err));
	free(o);
	msg_free(rep);
	return (rv < 0 ? rv : 0);
}

uint32_t
session_lit(void *arg)
{
	const struct session *s = arg;

	return (s->lit);
}

int
session_events_fd(struct session *s)
{
	return (s->have_link ? s->evfd : -EBADF);
}

int
session_abort_check(void *arg, char *reason, size_t len)
{
	struct session *s = arg;
	Ocs__Msg       *m;
	char            err[300];
	int             rv, hit = 0;

	/* A link that changed is said at once, phase or not. */
	side_serve(s);
	/* In a phase nothing is asked: what comes is pushed. */
	while (!hit && s->have_link &&
	       (rv = alink_recv(&s->link, 0, &m, err, sizeof(err))) != 0) {
		if (rv < 0) {
			/* ocsd is gone: the run cannot end well. */
			snprintf(reason, len, "%s", err);
			link_close(s);
			return (1);
		}
		if (m->body_case == OCS__MSG__BODY_ABORT && m->has_run_id &&
		    m->run_id == s->run) {
			snprintf(reason, len, "%s", m->abort->reason);
			hit = 1;
		}
		/* Another plane of the last barrier released. */
		if (m->body_case == OCS__MSG__BODY_RELEASE && m->has_run_id &&
		    m->run_id == s->run && m->has_phase &&
		    m->phase == s->bar && m->release->has_plane &&
		    m->release->plane < 32)
			s->lit |= 1u << m->release->plane;
		msg_free(m);
	}
	return (hit);
}
