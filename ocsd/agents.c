/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' side of ocsd: a REP socket whose contexts are state
 * machines (nng demo/async).  A context that receives a Poll or a Ready
 * holds it, and a fresh context takes its place, so every agent can wait
 * on its own held request without a thread.  Joining is a challenge: a
 * random nonce, answered with HMAC-SHA256 of the shared secret.  Agents
 * whose connection closes are marked lost at once (nng pipe events).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>
#include <nng/protocol/reqrep0/rep.h>

#include "ocsd/agents.h"
#include "ocsd/bar.h"
#include "ocsd/conf.h"
#include "proto/auth.h"
#include "proto/base/idmap.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/link.h"

#define AG_MAX AGENTS_MAX
/* Every agent may be joining at once (a rack powering up): a storm of
 * a thousand then joins without being told to try again. */
#define CHAL_MAX AG_MAX

struct actx {
	enum { A_RECV, A_WORK, A_HOLD, A_SEND } state;
	struct agents *ag;
	nng_aio       *aio;
	nng_ctx        ctx;
	uint64_t       seq;
	struct agent  *holder;
	struct actx   *next;
};

struct agents {
	struct ocsd *d;
	nng_socket   rep, pub;
	int          have_pub;
	struct actx *ctxs;
	/* Contexts waiting for a request: counted without the lock, so
	 * that a context done sending never waits for it (a release of
	 * thousands of agents holds it). */
	atomic_int           nrecv;
	int                  closing;
	struct agent       **a;
	uint32_t             na, next_id;
	struct idmap         bypipe; /* pipe id -> its live agent */
	uint8_t              secret[AUTH_SEC_MAX + 1];
	size_t               slen;
	struct auth_chal    *chal; /* CHAL_MAX */
	char                 events[PATH_MAX + 16];
	nng_aio             *tick;
	struct agents_events ev;  /* the runner's callbacks */
	struct bar          *bar; /* the barrier link, if configured */
	char                 barrier[PATH_MAX + 16]; /* its address */
	uint32_t unjoined_pipe; /* the last pipe told it has not joined */
};

static void ctx_cb(void *);
static void lose(struct agents *, struct agent *, const char *);

/* Back to waiting for a request on this context. */
static void
rearm(struct actx *c)
{
	c->state = A_RECV;
	c->ag->nrecv++;
	nng_ctx_recv(c->ctx, c->aio);
}

/* A context ready to receive the next request; made when none is. */
static void
spare_receiver(struct agents *ag)
{
	struct actx *c;

	if (ag->nrecv > 0 || ag->closing)
		return;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return;
	c->ag = ag;
	if (nng_aio_alloc(&c->aio, ctx_cb, c) != 0 ||
	    nng_ctx_open(&c->ctx, ag->rep) != 0) {
		if (c->aio)
			nng_aio_free(c->aio);
		free(c);
		log_warnx("agents: cannot open another context");
		return;
	}
	c->next = ag->ctxs;
	ag->ctxs = c;
	rearm(c);
}

/* Send nm, or if it could not be built (rv), nothing: rearm. */
static void
post(struct actx *c, int rv, nng_msg *nm)
{
	if (rv != 0) {
		rearm(c);
		return;
	}
	nng_aio_set_msg(c->aio, nm);
	c->state = A_SEND;
	nng_ctx_send(c->ctx, c->aio);
}

static void
send_msg(struct actx *c, Ocs__Msg *m)
{
	nng_msg *nm;
	int      rv;

	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = c->seq;
	if ((rv = msg_encode(m, &nm)) != 0)
		rv = msg_error(c->seq, rv, "reply too large", &nm);
	post(c, rv, nm);
}

static void
send_error(struct actx *c, int code, const char *text)
{
	nng_msg *nm;
	int      rv = msg_error(c->seq, code, text, &nm);

	post(c, rv, nm);
}

/* Answer the agent's held request, if any, with Idle ("nothing for you
 * now"): it asks again. */
static void answer(struct agent *, Ocs__Msg *);

static void
idle_held(struct agent *a)
{
	Ocs__Msg  m;
	Ocs__Idle idle;

	ocs__msg__init(&m);
	ocs__idle__init(&idle);
	m.body_case = OCS__MSG__BODY_IDLE;
	m.idle = &idle;
	answer(a, &m);
}

static void
hold(struct actx *c, struct agent *a, int ready)
{
	struct agents *ag = c->ag;

	/* A newer request from the same agent replaces the held one (the
	 * agent gave up waiting): answer the old one, it is discarded. */
	idle_held(a);
	c->state = A_HOLD;
	c->holder = a;
	a->held = c;
	a->held_ready = ready;
	a->held_until = mono_ms() + ag->d->conf->heartbeat_ms;
}

/* Answer a's held request, if any, with m: on the link it came by.  A
 * barrier link that cannot take it ends, and the agent is lost then. */
static void
answer(struct agent *a, Ocs__Msg *m)
{
	struct actx *c = a->held;

	if (a->held_bar) {
		a->held_bar = 0;
		m->version = MSG_VERSION;
		m->has_seq = 1;
		m->seq = a->held_seq;
		(void)bar_send(a->bconn, m);
		return;
	}
	if (c == NULL)
		return;
	a->held = NULL;
	c->holder = NULL;
	send_msg(c, m);
}

/* To every agent's event socket; a slow subscriber loses it (PUB). */
static void
publish(struct agents *ag, Ocs__Msg *m)
{
	nng_msg *nm;

	if (ag == NULL || !ag->have_pub)
		return;
	m->version = MSG_VERSION;
	if (msg_encode(m, &nm) != 0)
		return;
	if (nng_sendmsg(ag->pub, nm, NNG_FLAG_NONBLOCK) != 0)
		nng_msg_free(nm);
}

static void
msg_for(Ocs__Msg *m, uint64_t run_id, uint32_t phase)
{
	ocs__msg__init(m);
	m->has_run_id = 1;
	m->run_id = run_id;
	m->has_phase = 1;
	m->phase = phase;
}

int
agents_send_plan(struct ocsd *d, struct agent *a, uint64_t run_id,
                 const struct plan *p, const char *algo)
{
	struct plan_wire w;
	Ocs__Msg         m;
	int              rv;

	(void)d;
	if ((rv = plan_encode(p, a->id, algo, &w)) == 0) {
		msg_for(&m, run_id, 0);
		m.body_case = OCS__MSG__BODY_PLAN;
		m.plan = &w.p;
		answer(a, &m);
	}
	plan_wire_free(&w);
	return (rv);
}

/* Release and Finished carry nothing but the run and the phase. */
static void
answer_bare(struct agent *a, uint64_t run_id, uint32_t phase, int finished)
{
	Ocs__Msg      m;
	Ocs__Release  rel;
	Ocs__Finished fin;

	msg_for(&m, run_id, phase);
	if (finished) {
		ocs__finished__init(&fin);
		m.body_case = OCS__MSG__BODY_FINISHED;
		m.finished = &fin;
	} else {
		ocs__release__init(&rel);
		m.body_case = OCS__MSG__BODY_RELEASE;
		m.release = &rel;
	}
	answer(a, &m);
}

void
agents_release(struct ocsd *d, struct agent *a, uint64_t run_id,
               uint32_t phase)
{
	(void)d;
	answer_bare(a, run_id, phase, 0);
}

void
agents_finished(struct ocsd *d, struct agent *a, uint64_t run_id,
                uint32_t phase)
{
	(void)d;
	answer_bare(a, run_id, phase, 1);
}

void
agents_abort(struct ocsd *d, uint64_t run_id, uint32_t phase,
             const char *reason, struct agent *const *nodes, uint32_t n)
{
	Ocs__Msg   m;
	Ocs__Abort ab;
	uint32_t   i;

	msg_for(&m, run_id, phase);
	ocs__abort__init(&ab);
	ab.reason = (char *)(uintptr_t)reason;
	m.body_case = OCS__MSG__BODY_ABORT;
	m.abort = &ab;
	/* Agents in a phase hear it on the event socket; waiting ones as
	 * the answer to what they wait on. */
	publish(d->ag, &m);
	for (i = 0; i < n; i++)
		if (nodes[i] != NULL)
			answer(nodes[i], &m);
}

void
agents_notify(struct agents *ag, const struct agents_events *ev)
{
	nng_mtx_lock(ag->d->mtx);
	ag->ev = *ev;
	nng_mtx_unlock(ag->d->mtx);
}

int
agents_ports(const struct ocsd *d, struct agent *a)
{
	const struct conf_trx *t;
	char                   name[80];
	uint32_t               i;

	for (i = 0; i < a->ntrx && i < AGENT_MAX_TRX; i++) {
		snprintf(name, sizeof(name), "%s.%u", a->host, i);
		if ((t = conf_trx_find(d->conf, name)) == NULL)
			return (-ENOENT);
		a->in[i] = (uint16_t)t->in;
		a->out[i] = (uint16_t)t->out;
	}
	return (0);
}

/* The live agent that joined on this pipe: every request asks, so it is
 * a lookup, not a search of thousands of agents. */
static struct agent *
by_pipe(struct agents *ag, uint32_t pipe)
{
	return (idmap_get(&ag->bypipe, pipe));
}

static int
host_ok(const char *h)
{
	size_t i;

	if (!msg_str_ok(h) || strlen(h) >= 48)
		return (0);
	for (i = 0; h[i]; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') ||
		      (h[i] >= 'A' && h[i] <= 'Z') ||
		      (h[i] >= '0' && h[i] <= '9') || h[i] == '-' ||
		      h[i] == '_'))
			return (0);
	return (1);
}

static void
on_hello(struct actx *c, const Ocs__Msg *m, uint32_t pipe, const char *peer)
{
	struct agents *ag = c->ag;
	const uint8_t *nonce;
	Ocs__Msg       r;
	Ocs__Challenge cm;

	if (!host_ok(m->hello->host)) {
		log_warnx("agents: hello from %s with a bad host name", peer);
		send_error(c, -MSG_EFIELD, "bad host name");
		return;
	}
	/* The nonce is bound to the host the hello named. */
	nonce = auth_chal_issue(ag->chal, CHAL_MAX, pipe, m->hello->host,
	                        mono_ms());
	if (nonce == NULL) {
		send_error(c, -EAGAIN, "too many joins at once; try again");
		return;
	}
	ocs__msg__init(&r);
	ocs__challenge__init(&cm);
	cm.nonce.data = (uint8_t *)(uintptr_t)nonce;
	cm.nonce.len = AUTH_NONCE;
	r.body_case = OCS__MSG__BODY_CHALLENGE;
	r.challenge = &cm;
	send_msg(c, &r);
}

/* The join answers this pipe's challenge and proves the secret.  0, or
 * -EPERM after refusing it. */
static int
join_proven(struct actx *c, const Ocs__Join *j, uint32_t pipe,
            const char *peer)
{
	struct agents *ag = c->ag;
	uint8_t        want[AUTH_PROOF];

	if (!auth_chal_take(ag->chal, CHAL_MAX, pipe, j->nonce.data,
	                    j->nonce.len, j->host, mono_ms())) {
		log_warnx("agents: join from %s without a valid challenge",
		          peer);
		send_error(c, -EPERM, "join refused: no valid challenge");
		return (-EPERM);
	}
	if (j->proof.len != AUTH_PROOF ||
	    auth_proof(ag->secret, ag->slen, j->nonce.data, AUTH_NONCE,
	               j->host, want) != 0 ||
	    !auth_equal(want, j->proof.data, AUTH_PROOF)) {
		log_warnx("agents: join as %s from %s refused: wrong proof of "
		          "the secret",
		          j->host, peer);
		send_error(c, -EPERM,
		           "join refused: wrong proof of the secret");
		return (-EPERM);
	}
	return (0);
}

/*
 * A record for the joining host.  The same host joining again (it
 * restarted, or lost its connection) replaces its old record, and the
 * runner hears it as lost; a host that is still connected elsewhere is
 * refused.  NULL after refusing.
 */
static struct agent *
enrol(struct actx *c, const Ocs__Join *j, uint32_t pipe, const char *peer)
{
	struct agents *ag = c->ag;
	struct agent  *a;
	char           why[200];
	uint32_t       i;

	if ((a = by_pipe(ag, pipe)) != NULL && strcmp(a->host, j->host) != 0) {
		snprintf(why, sizeof(why),
		         "join refused: this connection has joined as host "
		         "%s",
		         a->host);
		log_warnx("agents: %s (from %s)", why, peer);
		send_error(c, -EEXIST, why);
		return (NULL);
	}
	for (i = 0; i < ag->na; i++) {
		a = ag->a[i];
		if (strcmp(a->host, j->host) != 0)
			continue;
		if (!a->lost && a->pipe != pipe) {
			snprintf(why, sizeof(why),
			         "join refused: host %s has already joined as "
			         "agent %u",
			         j->host, a->id);
			log_warnx("agents: %s (from %s)", why, peer);
			send_error(c, -EEXIST, why);
			return (NULL);
		}
		if (ag->ev.lost)
			ag->ev.lost(ag->ev.arg, a);
		idle_held(a);
		bar_drop(a->bconn);
		idmap_del(&ag->bypipe, a->pipe, a);
		free(a);
		ag->a[i] = ag->a[--ag->na];
		break;
	}
	if (ag->na == AG_MAX || (a = calloc(1, sizeof(*a))) == NULL) {
		send_error(c, -ENOMEM, "join refused: too many agents");
		return (NULL);
	}
	a->id = ++ag->next_id;
	snprintf(a->host, sizeof(a->host), "%s", j->host);
	a->ntrx = j->transceivers;
	a->fibres_up = a->ntrx; /* its first Poll says otherwise */
	a->mem_limit = j->has_mem_limit ? j->mem_limit : 0;
	snprintf(a->transport, sizeof(a->transport), "%s",
	         j->transport ? j->transport : "");
	snprintf(a->ifaces, sizeof(a->ifaces), "%s",
	         j->ifaces ? j->ifaces : "");
	a->pipe = pipe;
	a->seen_ms = mono_ms();
	a->node = -1;
	a->ready = AG_NONE;
	/* Room for AG_MAX: cannot fail. */
	(void)idmap_put(&ag->bypipe, pipe, a);
	ag->a[ag->na++] = a;
	return (a);
}

static void
on_join(struct actx *c, const Ocs__Msg *m, uint32_t pipe, const char *peer)
{
	struct agents   *ag = c->ag;
	struct ocsd     *d = ag->d;
	const Ocs__Join *j = m->join;
	struct agent    *a;
	Ocs__Msg         r;
	Ocs__JoinReply   jr;
	Ocs__PortMap     pm[AGENT_MAX_TRX], *pp[AGENT_MAX_TRX];
	uint8_t          nonce[AUTH_NONCE];
	char             name[80], why[200];
	uint32_t         i;

	if (join_proven(c, j, pipe, peer) != 0)
		return;
	if (j->transceivers < 1 || j->transceivers > AGENT_MAX_TRX) {
		send_error(c, -MSG_EFIELD, "join: 1 to 8 transceivers");
		return;
	}
	/* Every transceiver must be cabled before the host is enrolled. */
	for (i = 0; i < j->transceivers; i++) {
		const struct conf_trx *t;

		snprintf(name, sizeof(name), "%s.%u", j->host, i);
		if ((t = conf_trx_find(d->conf, name)) == NULL) {
			snprintf(why, sizeof(why),
			         "join refused: no cabling for %s in ocsd's "
			         "configuration",
			         name);
			log_warnx("agents: %s (from %s)", why, peer);
			send_error(c, -EPERM, why);
			return;
		}
		ocs__port_map__init(&pm[i]);
		pm[i].trx = i;
		pm[i].ingress = t->in;
		pm[i].egress = t->out;
		pp[i] = &pm[i];
	}
	if ((a = enrol(c, j, pipe, peer)) == NULL)
		return;
	/* The ports, resolved once here rather than by name every phase. */
	for (i = 0; i < a->ntrx; i++) {
		a->in[i] = (uint16_t)pm[i].ingress;
		a->out[i] = (uint16_t)pm[i].egress;
	}
	log_info("agents: %s joined from %s as agent %u (%u transceivers)",
	         a->host, peer, a->id, a->ntrx);
	ocs__msg__init(&r);
	ocs__join_reply__init(&jr);
	jr.agent_id = a->id;
	jr.n_ports = j->transceivers;
	jr.ports = pp;
	jr.events = ag->have_pub ? ag->events : NULL;
	jr.has_heartbeat_ms = 1;
	jr.heartbeat_ms = d->conf->heartbeat_ms;
	if (ag->bar != NULL && auth_nonce(nonce) == 0) {
		memcpy(a->token, nonce, BARLINK_TOKEN);
		jr.barrier = ag->barrier;
		jr.has_barrier_token = 1;
		jr.barrier_token.data = a->token;
		jr.barrier_token.len = BARLINK_TOKEN;
	}
	r.body_case = OCS__MSG__BODY_JOIN_REPLY;
	r.join_reply = &jr;
	send_msg(c, &r);
}

/*
 * A Ready is checked before it is held: a refused one is answered at
 * once with the reason; an accepted one waits for the release, which the
 * runner may give at once (the last agent of a barrier).
 */
static int
ready_check(struct agents *ag, struct agent *a, const Ocs__Msg *m,
            struct agents_ready *rd, char *why, size_t len)
{
	int n, rv;

	memset(rd, 0, sizeof(*rd));
	rd->has_run = m->has_run_id;
	rd->run_id = m->run_id;
	rd->has_phase = m->has_phase;
	rd->phase = m->phase;
	rd->setup_ns = m->ready->has_setup_ns ? m->ready->setup_ns : 0;
	rd->teardown_ns =
	    m->ready->has_teardown_ns ? m->ready->teardown_ns : 0;
	if ((n = plan_ready_decode(m->ready, rd->done)) < 0) {
		snprintf(why, len, "%zu phase reports, at most %d",
		         m->ready->n_done, PLAN_MAX_DONE);
		rv = -MSG_EFIELD;
	} else {
		rd->ndone = (uint32_t)n;
		if (ag->ev.ready_check == NULL || ag->ev.ready == NULL) {
			snprintf(why, len, "no run in progress");
			rv = -OCSD_EREQUEST;
		} else
			rv = ag->ev.ready_check(ag->ev.arg, a, rd, why, len);
	}
	if (rv != 0)
		log_warnx("agents: %s: %s", a->host, why);
	return (rv);
}

static void
on_ready(struct actx *c, struct agent *a, const Ocs__Msg *m)
{
	struct agents      *ag = c->ag;
	struct agents_ready rd;
	char                why[300];
	int                 rv;

	if ((rv = ready_check(ag, a, m, &rd, why, sizeof(why))) != 0) {
		send_error(c, rv, why);
		return;
	}
	a->readys++;
	hold(c, a, 1);
	ag->ev.ready(ag->ev.arg, a, &rd);
}

/* The barrier link's Attach: the joined agent's id and this join's
 * token.  A second Attach of the same agent replaces the first. */
static int
bar_attach(void *arg, struct bar_conn *bc, const Ocs__Msg *m, char *why,
           size_t len)
{
	struct agents     *ag = arg;
	const Ocs__Attach *at = m->attach;
	struct agent      *a = NULL;
	uint32_t           i;

	for (i = 0; i < ag->na && a == NULL; i++)
		if (ag->a[i]->id == at->agent_id && !ag->a[i]->lost)
			a = ag->a[i];
	if (a == NULL) {
		snprintf(why, len,
		         "attach as agent %u: no such agent has "
		         "joined",
		         at->agent_id);
		return (-EPERM);
	}
	if (at->token.len != BARLINK_TOKEN ||
	    !auth_equal(at->token.data, a->token, BARLINK_TOKEN)) {
		snprintf(why, len,
		         "attach as agent %u (%s): not its join's "
		         "token",
		         a->id, a->host);
		return (-EPERM);
	}
	a->held_bar = 0;
	bar_drop(a->bconn);
	a->bconn = bc;
	bar_own(bc, a);
	log_debug("agents: %s (agent %u) attached its barrier link", a->host,
	          a->id);
	return (0);
}

/* A Ready on the barrier link: held there, as on the join socket. */
static void
bar_msg(void *arg, struct bar_conn *bc, void *owner, const Ocs__Msg *m)
{
	struct agents      *ag = arg;
	struct agent       *a = owner;
	struct agents_ready rd;
	char                why[300];
	int                 rv;

	if (m->body_case != OCS__MSG__BODY_READY ||
	    m->ready->agent_id != a->id) {
		snprintf(why, sizeof(why),
		         "%s for agent %u on agent %u's "
		         "barrier link (it carries its Ready only)",
		         msg_body_name(m->body_case),
		         m->body_case == OCS__MSG__BODY_READY
		             ? m->ready->agent_id
		             : a->id,
		         a->id);
		log_warnx("agents: %s: %s", a->host, why);
		bar_reply(bc, m, -MSG_EBODY, why);
		return;
	}
	a->seen_ms = mono_ms();
	if ((rv = ready_check(ag, a, m, &rd, why, sizeof(why))) != 0) {
		bar_reply(bc, m, rv, why);
		return;
	}
	idle_held(a); /* an older request, given up on */
	a->readys++;
	a->bar_readys++;
	a->held_bar = 1;
	a->held_seq = m->has_seq ? m->seq : 0;
	a->held_ready = 1;
	ag->ev.ready(ag->ev.arg, a, &rd);
}

/*
 * The link closed.  An agent that stopped closes its join connection too,
 * and nng's pipe event loses it; one whose link alone failed is lost at
 * the next tick.  Not here: answering its held request on a connection
 * nng is closing that moment can lose the message inside nng 1.5.2.
 */
static void
bar_closed(void *arg, void *owner, const char *why)
{
	struct agent *a = owner;

	(void)arg;
	a->bconn = NULL;
	a->held_bar = 0;
	if (!a->lost)
		snprintf(a->bar_gone, sizeof(a->bar_gone), "%s", why);
}

/* A Poll, Ready or Abort: from an agent that joined on this pipe. */
static void
on_agent_msg(struct actx *c, const Ocs__Msg *m, nng_pipe np)
{
	struct agents *ag = c->ag;
	uint32_t       pipe = nng_pipe_id(np);
	struct agent  *a = by_pipe(ag, pipe);
	char           peer[128];

	if (a == NULL ||
	    (m->body_case == OCS__MSG__BODY_POLL &&
	     m->poll->agent_id != a->id) ||
	    (m->body_case == OCS__MSG__BODY_READY &&
	     m->ready->agent_id != a->id)) {
		/* After a restart every agent's next messages come from
		 * before it: said once per connection, and the agent joins
		 * again on the answer. */
		if (ag->unjoined_pipe != pipe) {
			link_pipe_name(np, peer, sizeof(peer));
			log_warnx("agents: %s has not joined (ocsd restarted, "
			          "or it was lost): told to join again",
			          peer);
		}
		ag->unjoined_pipe = pipe;
		send_error(c, -EPERM, "not joined");
		return;
	}
	a->seen_ms = mono_ms();
	if (m->body_case == OCS__MSG__BODY_POLL) {
		/* An older agent does not say: it has them all. */
		a->fibres_up =
		    m->poll->has_fibres_up ? m->poll->fibres_up : a->ntrx;
		snprintf(a->down, sizeof(a->down), "%s",
		         m->poll->down ? m->poll->down : "");
		hold(c, a, 0);
		if (ag->ev.poll)
			ag->ev.poll(ag->ev.arg, a);
	} else if (m->body_case == OCS__MSG__BODY_READY)
		on_ready(c, a, m);
	else {
		Ocs__Msg   r;
		Ocs__Abort ab;

		if (ag->ev.abort && m->has_run_id)
			ag->ev.abort(ag->ev.arg, a, m->run_id,
			             m->abort->reason);
		ocs__msg__init(&r);
		ocs__abort__init(&ab);
		ab.reason = m->abort->reason;
		r.body_case = OCS__MSG__BODY_ABORT;
		r.abort = &ab;
		send_msg(c, &r);
	}
}

static void
on_request(struct actx *c)
{
	struct agents *ag = c->ag;
	struct ocsd   *d = ag->d;
	nng_msg       *nm = nng_aio_get_msg(c->aio);
	nng_pipe       np = nng_msg_get_pipe(nm);
	Ocs__Msg      *m;
	char           peer[128], why[300];
	int            rv;

	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &m, why,
	                sizeof(why));
	nng_msg_free(nm);
	c->seq = m && m->has_seq ? m->seq : 0;
	/* The peer's name only where it is said: finding it is a lookup
	 * inside nng, too dear for every Ready of a barrier. */
	if (rv != 0 || (m->body_case != OCS__MSG__BODY_POLL &&
	                m->body_case != OCS__MSG__BODY_READY &&
	                m->body_case != OCS__MSG__BODY_ABORT))
		link_pipe_name(np, peer, sizeof(peer));
	if (rv != 0) {
		log_warnx("agents: rejected a message from %s: %s", peer, why);
		send_error(c, rv, why);
		return;
	}
	nng_mtx_lock(d->mtx);
	switch (m->body_case) {
	case OCS__MSG__BODY_HELLO:
		on_hello(c, m, nng_pipe_id(np), peer);
		break;
	case OCS__MSG__BODY_JOIN:
		on_join(c, m, nng_pipe_id(np), peer);
		break;
	case OCS__MSG__BODY_POLL:
	case OCS__MSG__BODY_READY:
	case OCS__MSG__BODY_ABORT:
		on_agent_msg(c, m, np);
		break;
	default:
		log_warnx("agents: unexpected message (%s) from %s",
		          msg_body_name(m->body_case), peer);
		send_error(c, -MSG_EBODY, "unexpected message");
	}
	spare_receiver(ag);
	nng_mtx_unlock(d->mtx);
	msg_free(m);
}

static void
ctx_cb(void *arg)
{
	struct actx   *c = arg;
	struct agents *ag = c->ag;
	int            rv = nng_aio_result(c->aio);

	switch (c->state) {
	case A_RECV:
		ag->nrecv--;
		if (rv != 0) {
			if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
				return;
			ag->nrecv++;
			nng_ctx_recv(c->ctx, c->aio);
			return;
		}
		c->state = A_WORK;
		on_request(c);
		break;
	case A_SEND:
		if (rv != 0) {
			/* Not sent: the message is still ours. */
			nng_msg_free(nng_aio_get_msg(c->aio));
			nng_aio_set_msg(c->aio, NULL);
			if (rv == NNG_ECLOSED || rv == NNG_ECANCELED)
				return;
		}
		/* Only this callback touches a context that was sending. */
		c->state = A_RECV;
		ag->nrecv++;
		nng_ctx_recv(c->ctx, c->aio);
		break;
	default:
		break;
	}
}

/* How often the tick runs: heartbeats and run deadlines. */
static nng_duration
tick_ms(const struct ocsd *d)
{
	return (d->conf->heartbeat_ms / 2 < 250 ? d->conf->heartbeat_ms / 2
	                                        : 250);
}

/* Heartbeats: a Poll held past its time is answered Idle, so agents
 * that stop asking are noticed. */
static void
tick_cb(void *arg)
{
	struct agents *ag = arg;
	struct ocsd   *d = ag->d;
	uint64_t       now = mono_ms();
	uint32_t       i;

	if (nng_aio_result(ag->tick) != 0)
		return;
	nng_mtx_lock(d->mtx);
	for (i = 0; i < ag->na; i++) {
		struct agent *a = ag->a[i];

		if (!a->lost && a->bar_gone[0]) {
			char w[200];

			snprintf(w, sizeof(w), "barrier link closed: %s",
			         a->bar_gone);
			lose(ag, a, w);
		}
		if (a->held && !a->held_ready && now >= a->held_until)
			idle_held(a);
		/*
		 * An idle agent polls again at once after each Idle, so
		 * one heard of for three heartbeats is hung (stopped: its
		 * connection stays up).  In a phase it is quiet until its
		 * Ready, and the run's deadline watches it instead.
		 */
		if (!a->lost && a->held == NULL && !a->held_bar &&
		    a->node < 0 &&
		    now - a->seen_ms > 3ull * d->conf->heartbeat_ms)
			lose(ag, a, "no heartbeat for three periods");
	}
	nng_mtx_unlock(d->mtx);
	nng_sleep_aio(tick_ms(d), ag->tick);
}

/* An agent is gone: the runner hears it, its held request is recycled. */
static void
lose(struct agents *ag, struct agent *a, const char *why)
{
	a->lost = 1;
	idmap_del(&ag->bypipe, a->pipe, a);
	log_warnx("agents: %s (agent %u) lost: %s", a->host, a->id, why);
	if (ag->ev.lost)
		ag->ev.lost(ag->ev.arg, a);
	idle_held(a);
	bar_drop(a->bconn);
	a->bconn = NULL;
}

int
agents_evict(struct ocsd *d, const char *host, char *err, size_t len)
{
	struct agents *ag = d->ag;
	uint32_t       i;

	for (i = 0; ag != NULL && i < ag->na; i++)
		if (!ag->a[i]->lost && strcmp(ag->a[i]->host, host) == 0) {
			lose(ag, ag->a[i], "evicted by the operator");
			snprintf(err, len, "%s (agent %u) evicted", host,
			         ag->a[i]->id);
			return (0);
		}
	snprintf(err, len, "evict: no agent of host \"%.64s\" has joined",
	         host);
	return (-ENOENT);
}

static void
pipe_cb(nng_pipe p, nng_pipe_ev ev, void *arg)
{
	struct agents *ag = arg;
	struct agent  *a;

	(void)ev;
	nng_mtx_lock(ag->d->mtx);
	if ((a = by_pipe(ag, nng_pipe_id(p))) != NULL)
		lose(ag, a, "connection closed");
	nng_mtx_unlock(ag->d->mtx);
}

static int
by_host(const void *x, const void *y)
{
	return (strcmp((*(struct agent *const *)x)->host,
	               (*(struct agent *const *)y)->host));
}

uint32_t
agents_active(struct ocsd *d, struct agent **out, uint32_t cap)
{
	struct agents *ag = d->ag;
	uint32_t       i, n = 0;

	/* An agent whose fibres are out cannot take part in a run. */
	for (i = 0; ag && i < ag->na && n < cap; i++)
		if (!ag->a[i]->lost && ag->a[i]->fibres_up >= ag->a[i]->ntrx)
			out[n++] = ag->a[i];
	/* By host: stable node numbering (host names are unique). */
	qsort(out, n, sizeof(*out), by_host);
	return (n);
}

void
agents_info(struct ocsd *d, struct reply *rp)
{
	struct agents *ag = d->ag;
	uint32_t       i;

	if (ag == NULL || ag->na == 0)
		return;
	rp->r.agents = reply_alloc(rp, ag->na * sizeof(void *));
	for (i = 0; rp->r.agents && i < ag->na; i++) {
		const struct agent *a = ag->a[i];
		Ocs__AgentInfo     *ai = reply_alloc(rp, sizeof(*ai));

		if (ai == NULL)
			break;
		ocs__agent_info__init(ai);
		ai->agent_id = a->id;
		ai->host = reply_str(rp, a->host);
		ai->transceivers = a->ntrx;
		ai->state = reply_str(rp, a->lost        ? "lost"
		                          : a->node >= 0 ? "running"
		                                         : "idle");
		ai->has_seen_ms_ago = 1;
		ai->seen_ms_ago = mono_ms() - a->seen_ms;
		ai->has_fibres_up = 1;
		ai->fibres_up = a->fibres_up;
		ai->has_mem_limit = a->mem_limit != 0;
		ai->mem_limit = a->mem_limit;
		if (a->transport[0])
			ai->transport = reply_str(rp, a->transport);
		if (a->ifaces[0])
			ai->ifaces = reply_str(rp, a->ifaces);
		if (a->down[0])
			ai->down = reply_str(rp, a->down);
		ai->has_barrier_link = 1;
		ai->barrier_link = a->bconn != NULL;
		ai->has_readys = ai->has_barrier_readys = 1;
		ai->readys = a->readys;
		ai->barrier_readys = a->bar_readys;
		rp->r.agents[rp->r.n_agents++] = ai;
	}
}

/* [tls+]tcp://host:0 listens on a port the kernel picks: tell agents
 * which. */
static void
bound_url(nng_listener l, const char *url, char *out, size_t len)
{
	const char *colon = strrchr(url, ':');
	int         port;

	snprintf(out, len, "%s", url);
	if ((strncmp(url, "tcp://", 6) == 0 || link_is_tls(url)) && colon &&
	    strcmp(colon, ":0") == 0 &&
	    nng_listener_get_int(l, NNG_OPT_TCP_BOUND_PORT, &port) == 0)
		snprintf(out, len, "%.*s:%d", (int)(colon - url), url, port);
}

/* What agents_open allocated, whatever it got to. */
static void
ag_free(struct agents *ag)
{
	free(ag->a);
	free(ag->chal);
	idmap_fini(&ag->bypipe);
	memset(ag->secret, 0, sizeof(ag->secret));
	free(ag);
}

int
agents_open(struct ocsd *d, struct agents **out)
{
	struct agents    *ag;
	nng_listener      l;
	char              err[300], join[PATH_MAX + 16];
	int               rv;
	struct bar_events bev = {
	    .attach = bar_attach, .msg = bar_msg, .closed = bar_closed};

	*out = NULL;
	if ((ag = calloc(1, sizeof(*ag))) == NULL)
		return (-ENOMEM);
	ag->d = d;
	bev.arg = ag;
	if ((ag->a = calloc(AG_MAX, sizeof(*ag->a))) == NULL ||
	    (ag->chal = calloc(CHAL_MAX, sizeof(*ag->chal))) == NULL ||
	    idmap_init(&ag->bypipe, AG_MAX) != 0) {
		ag_free(ag);
		return (-ENOMEM);
	}
	if ((rv = auth_read_secret(d->conf->secret_file, ag->secret, &ag->slen,
	                           err, sizeof(err))) != 0) {
		log_warnx("agents: %s", err);
		ag_free(ag);
		return (rv);
	}
	err[0] = '\0';
	if ((rv = nng_rep0_open(&ag->rep)) != 0 ||
	    (rv = nng_socket_set_size(ag->rep, NNG_OPT_RECVMAXSZ,
	                              MSG_MAX_BYTES)) != 0 ||
	    (rv = nng_pipe_notify(ag->rep, NNG_PIPE_EV_REM_POST, pipe_cb,
	                          ag)) != 0 ||
	    (rv = link_listen(ag->rep, d->conf->agents, d->conf->agents_tls,
	                      &l, err, sizeof(err))) != 0) {
		log_warnx("agents: %s", err[0] ? err : nng_strerror(rv));
		nng_close(ag->rep);
		ag_free(ag);
		return (msg_nngerr(rv));
	}
	bound_url(l, d->conf->agents, join, sizeof(join));
	err[0] = '\0';
	if ((rv = nng_pub0_open(&ag->pub)) == 0 &&
	    (rv = link_listen(ag->pub, d->conf->events, d->conf->agents_tls,
	                      &l, err, sizeof(err))) == 0) {
		ag->have_pub = 1;
		bound_url(l, d->conf->events, ag->events, sizeof(ag->events));
	}
	if (rv == 0 && d->conf->barrier[0] &&
	    (rv = bar_open(d->conf->barrier, d->mtx, &bev, &ag->bar,
	                   ag->barrier, sizeof(ag->barrier), err,
	                   sizeof(err))) != 0) {
		log_warnx("agents: %s", err);
		nng_close(ag->rep);
		nng_close(ag->pub);
		ag_free(ag);
		return (rv);
	}
	if (rv != 0) {
		log_warnx("agents: events: %s",
		          err[0] ? err : nng_strerror(rv));
		nng_close(ag->rep);
		ag_free(ag);
		return (msg_nngerr(rv));
	}
	if (nng_aio_alloc(&ag->tick, tick_cb, ag) != 0) {
		bar_close(ag->bar);
		nng_close(ag->rep);
		nng_close(ag->pub);
		ag_free(ag);
		return (-ENOMEM);
	}
	nng_mtx_lock(d->mtx);
	d->ag = ag;
	spare_receiver(ag);
	nng_mtx_unlock(d->mtx);
	nng_sleep_aio(tick_ms(d), ag->tick);
	log_info("agents: joining on %s, events on %s%s%s", join, ag->events,
	         ag->bar ? ", barrier link on " : "",
	         ag->bar ? ag->barrier : "");
	*out = ag;
	return (0);
}

void
agents_close(struct agents *ag)
{
	struct actx *c, *next;
	uint32_t     i;

	if (ag == NULL)
		return;
	nng_mtx_lock(ag->d->mtx);
	ag->closing = 1;
	nng_mtx_unlock(ag->d->mtx);
	/* Its thread takes the lock: stopped without it.  Its connections
	 * are gone then, before nng's pipe events (lose) could drop them. */
	bar_close(ag->bar);
	nng_mtx_lock(ag->d->mtx);
	ag->bar = NULL;
	for (i = 0; i < ag->na; i++) {
		ag->a[i]->bconn = NULL;
		ag->a[i]->held_bar = 0;
	}
	nng_mtx_unlock(ag->d->mtx);
	nng_aio_stop(ag->tick);
	nng_close(ag->rep);
	nng_close(ag->pub);
	for (c = ag->ctxs; c; c = c->next)
		nng_aio_stop(c->aio);
	for (c = ag->ctxs; c; c = next) {
		next = c->next;
		/* A send that the stop cut short freed its message. */
		if (c->state == A_SEND && nng_aio_get_msg(c->aio) != NULL)
			nng_msg_free(nng_aio_get_msg(c->aio));
		nng_aio_free(c->aio);
		free(c);
	}
	nng_aio_free(ag->tick);
	for (i = 0; i < ag->na; i++)
		free(ag->a[i]);
	ag_free(ag);
}
