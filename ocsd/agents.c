/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agents' registry (see agents.h): joins and their proof, attaches
 * and theirs, the held request, heartbeats.
 *
 * An agent's life: Hello and Join on the join socket (the proof of the
 * shared secret answers a nonce bound to the host); the JoinReply names
 * the agent link and a token; the agent connects, is challenged with a
 * fresh nonce, and proves the secret for this join and this connection
 * (a sniffed Attach is worth nothing on another one).  Its link then
 * carries everything, and is the agent: when it closes, the agent is
 * lost at once; an idle agent that stops polling is lost after three
 * heartbeats; one that joins and never attaches, after AG_ATTACH_MS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocsd/agents_int.h"
#include "ocsd/aglink.h"
#include "ocsd/conf.h"
#include "ocsd/ev.h"
#include "proto/auth.h"
#include "proto/base/idmap.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"

#define AG_MAX AGENTS_MAX
/* Every agent may be joining at once (a rack powering up): a storm of
 * a thousand then joins without being told to try again. */
#define CHAL_MAX AG_MAX
/* A join that is not followed by its attach by then is forgotten. */
#define AG_ATTACH_MS 10000

static void lose(struct agents *, struct agent *, const char *);

/* ---- answering ------------------------------------------------------------ */

static void
reply_error(struct apeer *from, int code, const char *text)
{
	Ocs__Msg   m;
	Ocs__Error e;

	ocs__msg__init(&m);
	ocs__error__init(&e);
	e.code = code;
	e.text = (char *)(uintptr_t)text;
	m.body_case = OCS__MSG__BODY_ERROR;
	m.error = &e;
	from->ops->answer(from, &m);
}

static void
init_idle(Ocs__Msg *m, Ocs__Idle *idle)
{
	ocs__msg__init(m);
	ocs__idle__init(idle);
	m->body_case = OCS__MSG__BODY_IDLE;
	m->idle = idle;
}

/* Answer a's held request, if any, with m, on its link.  A link that
 * cannot take it ends, and the agent is lost then (closed()). */
void
agents_answer(struct agent *a, Ocs__Msg *m)
{
	if (a->hold.kind == HOLD_NONE)
		return;
	a->hold.kind = HOLD_NONE;
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = a->hold.seq;
	(void)aglink_send(a->link, m);
}

/* "Nothing for you now": the agent asks again. */
static void
idle_held(struct agent *a)
{
	Ocs__Msg  m;
	Ocs__Idle idle;

	init_idle(&m, &idle);
	agents_answer(a, &m);
}

static void
hold(struct agents *ag, struct agent *a, int kind, uint64_t seq)
{
	/* A newer request replaces the held one (the agent gave up
	 * waiting): the old one is answered, and discarded there. */
	idle_held(a);
	a->hold.kind = kind;
	a->hold.seq = seq;
	a->hold.until = mono_ms() + ag->d->conf->heartbeat_ms;
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
		agents_answer(a, &m);
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
	agents_answer(a, &m);
}

void
agents_release(struct ocsd *d, struct agent *a, uint64_t run_id,
               uint32_t phase)
{
	(void)d;
	answer_bare(a, run_id, phase, 0);
}

void
agents_release_plane(struct ocsd *d, struct agent *a, uint64_t run_id,
                     uint32_t phase, uint32_t plane)
{
	Ocs__Msg     m;
	Ocs__Release rel;

	(void)d;
	msg_for(&m, run_id, phase);
	ocs__release__init(&rel);
	rel.has_plane = 1;
	rel.plane = plane;
	m.body_case = OCS__MSG__BODY_RELEASE;
	m.release = &rel;
	if (a->hold.kind != HOLD_NONE) {
		agents_answer(a, &m);
		return;
	}
	/* The Ready was answered by another plane's: pushed, seq 0. */
	if (a->link == NULL)
		return;
	m.version = MSG_VERSION;
	m.has_seq = 1;
	m.seq = 0;
	(void)aglink_send(a->link, &m);
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

	(void)d;
	msg_for(&m, run_id, phase);
	ocs__abort__init(&ab);
	ab.reason = (char *)(uintptr_t)reason;
	m.body_case = OCS__MSG__BODY_ABORT;
	m.abort = &ab;
	for (i = 0; i < n; i++) {
		struct agent *a = nodes[i];

		if (a == NULL || a->link == NULL)
			continue;
		if (a->hold.kind != HOLD_NONE)
			agents_answer(a, &m);
		else {
			/* In a phase: pushed, seq 0, and it stops. */
			m.has_seq = 1;
			m.seq = 0;
			m.version = MSG_VERSION;
			(void)aglink_send(a->link, &m);
		}
	}
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
		a->sw[i] = (uint8_t)t->sw;
	}
	return (0);
}

/* ---- joining ---------------------------------------------------------------- */

static void
on_hello(struct agents *ag, struct apeer *from, const Ocs__Msg *m)
{
	const uint8_t *nonce;
	Ocs__Msg       r;
	Ocs__Challenge cm;
	char           peer[128];

	if (!amsg_host_ok(m->hello->host)) {
		from->ops->name(from, peer, sizeof(peer));
		log_warnx_limited(&ag->refused,
		                  "agents: hello from %s with a bad host name",
		                  peer);
		reply_error(from, -MSG_EFIELD, "bad host name");
		return;
	}
	/* The nonce is bound to the host the hello named. */
	nonce = auth_chal_issue(ag->chal, CHAL_MAX, from->pipe, m->hello->host,
	                        mono_ms());
	if (nonce == NULL) {
		reply_error(from, -EAGAIN,
		            "too many joins at once; try again");
		return;
	}
	ocs__msg__init(&r);
	ocs__challenge__init(&cm);
	cm.nonce.data = (uint8_t *)(uintptr_t)nonce;
	cm.nonce.len = AUTH_NONCE;
	r.body_case = OCS__MSG__BODY_CHALLENGE;
	r.challenge = &cm;
	from->ops->answer(from, &r);
}

/* Refuse with a reason that is also logged (a few a window: strangers
 * can cause these), naming the peer. */
static void
refuse(struct agents *ag, struct apeer *from, int code, const char *why)
{
	char peer[128];

	from->ops->name(from, peer, sizeof(peer));
	log_warnx_limited(&ag->refused, "agents: %s (from %s)", why, peer);
	reply_error(from, code, why);
}

/* The join answers this pipe's challenge and proves the secret; every
 * transceiver of the host is cabled.  0, or a code after refusing. */
static int
join_ok(struct agents *ag, struct apeer *from, const Ocs__Join *j)
{
	uint8_t  want[AUTH_PROOF];
	char     why[200];
	uint32_t i;

	if (!auth_chal_take(ag->chal, CHAL_MAX, from->pipe, j->nonce.data,
	                    j->nonce.len, j->host, mono_ms())) {
		refuse(ag, from, -EPERM, "join refused: no valid challenge");
		return (-EPERM);
	}
	if (j->proof.len != AUTH_PROOF ||
	    auth_proof(ag->secret, ag->slen, j->nonce.data, AUTH_NONCE,
	               j->host, want) != 0 ||
	    !auth_equal(want, j->proof.data, AUTH_PROOF)) {
		char peer[128];

		from->ops->name(from, peer, sizeof(peer));
		log_warnx_limited(&ag->refused,
		                  "agents: join as %s from %s refused: wrong "
		                  "proof of the secret",
		                  j->host, peer);
		reply_error(from, -EPERM,
		            "join refused: wrong proof of the secret");
		return (-EPERM);
	}
	if (j->transceivers < 1 || j->transceivers > AGENT_MAX_TRX) {
		refuse(ag, from, -MSG_EFIELD, "join: 1 to 8 transceivers");
		return (-MSG_EFIELD);
	}
	for (i = 0; i < j->transceivers; i++) {
		snprintf(why, sizeof(why), "%s.%u", j->host, i);
		if (conf_trx_find(ag->d->conf, why) == NULL) {
			snprintf(
			    why, sizeof(why),
			    "join refused: no cabling for %s.%u in ocsd's "
			    "configuration",
			    j->host, i);
			refuse(ag, from, -EPERM, why);
			return (-EPERM);
		}
	}
	return (0);
}

static void
forget(struct agents *ag, uint32_t i)
{
	struct agent *a = ag->a[i];

	idmap_del(&ag->byid, a->id, a);
	aglink_drop(a->link);
	free(a);
	ag->a[i] = ag->a[--ag->na];
}

/*
 * The host's earlier record, if any, makes way: lost or not yet attached,
 * or joined again on the same connection (the agent started over), it is
 * replaced and the runner hears it lost; a live one elsewhere is not.  0,
 * or -EEXIST after refusing.
 */
static int
make_way(struct agents *ag, struct apeer *from, const char *host)
{
	struct agent *a;
	char          why[300];
	uint32_t      i;

	for (i = 0; i < ag->na; i++) {
		a = ag->a[i];
		if (strcmp(a->host, host) != 0)
			continue;
		if (!a->lost && a->link != NULL && a->pipe != from->pipe) {
			snprintf(why, sizeof(why),
			         "join refused: host %s has already joined as "
			         "agent %u (its link from %s is up)",
			         host, a->id, a->peer);
			refuse(ag, from, -EEXIST, why);
			return (-EEXIST);
		}
		if (!a->lost)
			lose(ag, a, "it joined again");
		forget(ag, i);
		return (0);
	}
	return (0);
}

static struct agent *
enrol(struct agents *ag, struct apeer *from, const Ocs__Join *j)
{
	struct agent *a;
	uint8_t       nonce[AUTH_NONCE];

	if (make_way(ag, from, j->host) != 0)
		return (NULL);
	if (ag->na == AG_MAX || (a = calloc(1, sizeof(*a))) == NULL) {
		reply_error(from, -ENOMEM, "join refused: too many agents");
		return (NULL);
	}
	a->id = ++ag->next_id;
	snprintf(a->host, sizeof(a->host), "%s", j->host);
	a->ntrx = j->transceivers;
	a->fibres_up = a->ntrx; /* its first Poll says otherwise */
	a->mem_limit = j->has_mem_limit ? j->mem_limit : 0;
	snprintf(a->transport, sizeof(a->transport), "%s",
	         msg_str_ok(j->transport) ? j->transport : "");
	snprintf(a->ifaces, sizeof(a->ifaces), "%s",
	         msg_str_ok(j->ifaces) ? j->ifaces : "");
	/* Checked when a run with servers uses it (run_srv.c). */
	snprintf(a->local_link, sizeof(a->local_link), "%s",
	         msg_str_ok(j->local_link) ? j->local_link : "");
	a->pipe = from->pipe;
	a->seen_ms = a->joined_ms = mono_ms();
	a->node = -1;
	a->ready = AG_NONE;
	if (auth_nonce(nonce) != 0 || agents_ports(ag->d, a) != 0) {
		free(a);
		reply_error(from, -EIO, "join refused: no random token");
		return (NULL);
	}
	memcpy(a->token, nonce, ALINK_TOKEN);
	/* Room for AG_MAX: cannot fail. */
	(void)idmap_put(&ag->byid, a->id, a);
	ag->a[ag->na++] = a;
	return (a);
}

static void
on_join(struct agents *ag, struct apeer *from, const Ocs__Msg *m)
{
	const Ocs__Join *j = m->join;
	struct agent    *a;
	Ocs__Msg         r;
	Ocs__JoinReply   jr;
	Ocs__PortMap     pm[AGENT_MAX_TRX], *pp[AGENT_MAX_TRX];
	char             peer[128];
	uint32_t         i;

	if (join_ok(ag, from, j) != 0 || (a = enrol(ag, from, j)) == NULL)
		return;
	for (i = 0; i < a->ntrx; i++) {
		ocs__port_map__init(&pm[i]);
		pm[i].trx = i;
		pm[i].ingress = a->in[i];
		pm[i].egress = a->out[i];
		pp[i] = &pm[i];
	}
	from->ops->name(from, peer, sizeof(peer));
	log_info("agents: %s joined from %s as agent %u (%u transceivers)",
	         a->host, peer, a->id, a->ntrx);
	ocs__msg__init(&r);
	ocs__join_reply__init(&jr);
	jr.agent_id = a->id;
	jr.n_ports = a->ntrx;
	jr.ports = pp;
	jr.has_heartbeat_ms = 1;
	jr.heartbeat_ms = ag->d->conf->heartbeat_ms;
	jr.link = ag->link_url;
	jr.link_token.data = a->token;
	jr.link_token.len = ALINK_TOKEN;
	r.body_case = OCS__MSG__BODY_JOIN_REPLY;
	r.join_reply = &jr;
	from->ops->answer(from, &r);
}

/* The link's first frame: the joined agent's id and the proof of the
 * secret for this join and this connection's nonce.  One link at a
 * time: a second attach while the first is up is refused and counted
 * (a replay, or a twin), never a replacement. */
static void
on_attach(struct agents *ag, struct apeer *from, const Ocs__Msg *m)
{
	const Ocs__Attach *at = m->attach;
	struct agent      *a = idmap_get(&ag->byid, at->agent_id);
	uint8_t            want[AUTH_PROOF];
	char               why[300];

	if (ag->closing) {
		reply_error(from, -ESHUTDOWN, "ocsd is shutting down");
		aglink_drop(from->link);
		return;
	}
	if (a == NULL || a->lost) {
		snprintf(why, sizeof(why),
		         "attach as agent %u: no such agent has joined",
		         at->agent_id);
	} else if (at->proof.len != AUTH_PROOF ||
	           auth_attach_proof(ag->secret, ag->slen,
	                             aglink_nonce(from->link), a->token,
	                             ALINK_TOKEN, a->host, want) != 0 ||
	           !auth_equal(want, at->proof.data, AUTH_PROOF)) {
		snprintf(why, sizeof(why),
		         "attach as agent %u (%s): wrong proof for this join "
		         "and this link",
		         a->id, a->host);
	} else if (a->link != NULL) {
		a->attach_refused++;
		snprintf(why, sizeof(why),
		         "attach as agent %u (%s) from %s refused: its link "
		         "from %s is up",
		         a->id, a->host, aglink_peer(from->link), a->peer);
	} else {
		a->link = from->link;
		snprintf(a->peer, sizeof(a->peer), "%s",
		         aglink_peer(from->link));
		aglink_own(a->link, a);
		a->seen_ms = mono_ms();
		aglink_reply(a->link, from->seq, 0, NULL);
		log_debug("agents: %s (agent %u) attached its link from %s",
		          a->host, a->id, a->peer);
		ev_say(ag->d->ev, "agent", "joined", a->host, 0, -1,
		       "%s joined (agent %u)", a->host, a->id);
		return;
	}
	log_warnx_limited(&ag->refused, "agents: %s", why);
	reply_error(from, -EPERM, why);
	aglink_drop(from->link);
}

/* ---- an attached agent's requests ------------------------------------------ */

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
	rd->planes = m->ready->has_planes ? m->ready->planes : 0;
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
on_ready(struct agents *ag, struct apeer *from, struct agent *a,
         const Ocs__Msg *m)
{
	struct agents_ready rd;
	char                why[300];
	int                 rv;

	if ((rv = ready_check(ag, a, m, &rd, why, sizeof(why))) != 0) {
		reply_error(from, rv, why);
		return;
	}
	a->readys++;
	hold(ag, a, HOLD_READY, from->seq);
	ag->ev.ready(ag->ev.arg, a, &rd);
}

/* The registry's link states are the protocol's. */
_Static_assert((int)AGL_UP == (int)OCS__TRX_LINK__STATE__UP &&
                   (int)AGL_NO_CARRIER ==
                       (int)OCS__TRX_LINK__STATE__NO_CARRIER &&
                   (int)AGL_DOWN == (int)OCS__TRX_LINK__STATE__DOWN &&
                   (int)AGL_GONE == (int)OCS__TRX_LINK__STATE__GONE,
               "agent_link states are TrxLink's");

int
agents_links_take(struct agent *a, Ocs__TrxLink *const *l, size_t n, char *err,
                  size_t len)
{
	struct agent_link was[AGENT_MAX_TRX];
	size_t            i;

	/* All checked before any is taken. */
	for (i = 0; i < n; i++) {
		if (l[i]->trx >= a->ntrx || l[i]->trx >= AGENT_MAX_TRX) {
			snprintf(err, len,
			         "links: transceiver %u of a host with %u",
			         l[i]->trx, a->ntrx);
			return (-MSG_EFIELD);
		}
		if (l[i]->state < OCS__TRX_LINK__STATE__UP ||
		    l[i]->state > OCS__TRX_LINK__STATE__GONE) {
			snprintf(err, len, "links: transceiver %u: state %d",
			         l[i]->trx, (int)l[i]->state);
			return (-MSG_EFIELD);
		}
		if (l[i]->iface != NULL &&
		    (!msg_str_ok(l[i]->iface) || strlen(l[i]->iface) > 15)) {
			snprintf(
			    err, len,
			    "links: transceiver %u: not an interface name",
			    l[i]->trx);
			return (-MSG_EFIELD);
		}
	}
	memcpy(was, a->links, sizeof(was));
	for (i = 0; i < n; i++) {
		struct agent_link *k = &a->links[l[i]->trx];

		k->state = (int)l[i]->state;
		if (l[i]->has_mtu)
			k->mtu = l[i]->mtu;
		if (l[i]->has_carrier_ups)
			k->ups = l[i]->carrier_ups;
		if (l[i]->iface != NULL)
			snprintf(k->iface, sizeof(k->iface), "%s",
			         l[i]->iface);
	}
	if (n > 0)
		a->has_links = 1;
	return (memcmp(was, a->links, sizeof(was)) != 0);
}

static void
on_poll(struct agents *ag, struct apeer *from, struct agent *a,
        const Ocs__Msg *m)
{
	uint32_t was = a->fibres_up;
	char     down[sizeof(a->down)], why[300];
	int      chg;

	if ((chg = agents_links_take(a, m->poll->links, m->poll->n_links, why,
	                             sizeof(why))) < 0) {
		reply_error(from, chg, why);
		return;
	}
	/* An older agent does not say: it has them all. */
	a->fibres_up = m->poll->has_fibres_up ? m->poll->fibres_up : a->ntrx;
	memcpy(down, a->down, sizeof(down));
	snprintf(a->down, sizeof(a->down), "%s",
	         msg_str_ok(m->poll->down) ? m->poll->down : "");
	/* Watchers hear of a fibre that went dark or came back. */
	if (was != a->fibres_up || strcmp(down, a->down) != 0)
		ev_say(ag->d->ev, "agent", "fibres", a->host, 0, -1,
		       "%s: fibres %u/%u up%s%s", a->host, a->fibres_up,
		       a->ntrx, a->down[0] ? ": " : "", a->down);
	hold(ag, a, HOLD_POLL, from->seq);
	if (chg && ag->ev.links)
		ag->ev.links(ag->ev.arg, a);
	if (ag->ev.poll && a->hold.kind == HOLD_POLL)
		ag->ev.poll(ag->ev.arg, a);
	/* A run's plan first: a probe only for an agent still idle. */
	if (a->hold.kind == HOLD_POLL)
		agents_probe_poll(ag->d, a);
}

/* Unasked: what a probe heard (ocsctl check). */
static void
on_heard(struct agents *ag, struct apeer *from, struct agent *a,
         const Ocs__Msg *m)
{
	char why[300];
	int  rv;

	(void)ag;
	if ((rv = agents_probe_heard(a, m->heard, why, sizeof(why))) != 0)
		reply_error(from, rv, why);
}

/* Unasked: a transceiver's link changed.  Nothing is answered (a bad
 * one is, with an error: the agent logs it). */
static void
on_link_state(struct agents *ag, struct apeer *from, struct agent *a,
              const Ocs__Msg *m)
{
	char why[300];
	int  chg;

	if ((chg = agents_links_take(a, m->link_state->links,
	                             m->link_state->n_links, why,
	                             sizeof(why))) < 0)
		reply_error(from, chg, why);
	else if (chg && ag->ev.links)
		ag->ev.links(ag->ev.arg, a);
}

static void
on_abort(struct agents *ag, struct apeer *from, struct agent *a,
         const Ocs__Msg *m)
{
	Ocs__Msg   r;
	Ocs__Abort ab;

	if (ag->ev.abort && m->has_run_id)
		ag->ev.abort(ag->ev.arg, a, m->run_id, m->abort->reason);
	ocs__msg__init(&r);
	ocs__abort__init(&ab);
	ab.reason = m->abort->reason;
	r.body_case = OCS__MSG__BODY_ABORT;
	r.abort = &ab;
	from->ops->answer(from, &r);
}

/* Does the message's body belong where it came?  Hello and Join on the
 * join socket, Attach first on a link, the rest on an attached link. */
static int
in_place(const struct apeer *from, const struct agent *owner, int body)
{
	switch (body) {
	case OCS__MSG__BODY_HELLO:
	case OCS__MSG__BODY_JOIN:
		return (from->link == NULL);
	case OCS__MSG__BODY_ATTACH:
		return (from->link != NULL && owner == NULL);
	case OCS__MSG__BODY_POLL:
	case OCS__MSG__BODY_READY:
	case OCS__MSG__BODY_ABORT:
	case OCS__MSG__BODY_LINK_STATE:
	case OCS__MSG__BODY_HEARD:
		return (owner != NULL);
	default:
		return (0);
	}
}

/* The id a Poll or Ready names must be its link's agent's. */
static uint32_t
named_id(const Ocs__Msg *m, const struct agent *a)
{
	if (m->body_case == OCS__MSG__BODY_POLL)
		return (m->poll->agent_id);
	if (m->body_case == OCS__MSG__BODY_READY)
		return (m->ready->agent_id);
	if (m->body_case == OCS__MSG__BODY_LINK_STATE)
		return (m->link_state->agent_id);
	if (m->body_case == OCS__MSG__BODY_HEARD)
		return (m->heard->agent_id);
	return (a->id);
}

void
agents_hear(struct agents *ag, struct apeer *from, struct agent *a,
            const Ocs__Msg *m)
{
	char why[300];

	if (!in_place(from, a, m->body_case) ||
	    (a != NULL && named_id(m, a) != a->id)) {
		snprintf(why, sizeof(why), "%s unexpected on %s",
		         msg_body_name(m->body_case),
		         from->link == NULL ? "the join socket (after the "
		                              "join, the agent link carries "
		                              "it)"
		         : a == NULL        ? "an agent link before its attach"
		                            : "this agent's link");
		refuse(ag, from, -MSG_EBODY, why);
		if (from->link != NULL && a == NULL)
			aglink_drop(from->link);
		return;
	}
	if (a != NULL)
		a->seen_ms = mono_ms();
	switch (m->body_case) {
	case OCS__MSG__BODY_HELLO:
		on_hello(ag, from, m);
		break;
	case OCS__MSG__BODY_JOIN:
		on_join(ag, from, m);
		break;
	case OCS__MSG__BODY_ATTACH:
		on_attach(ag, from, m);
		break;
	case OCS__MSG__BODY_POLL:
		on_poll(ag, from, a, m);
		break;
	case OCS__MSG__BODY_READY:
		on_ready(ag, from, a, m);
		break;
	case OCS__MSG__BODY_LINK_STATE:
		on_link_state(ag, from, a, m);
		break;
	case OCS__MSG__BODY_HEARD:
		on_heard(ag, from, a, m);
		break;
	default:
		on_abort(ag, from, a, m);
	}
}

/* ---- the links' transport ---------------------------------------------------- */

static void
link_answer(struct apeer *p, Ocs__Msg *m)
{
	m->version = MSG_VERSION;
	m->has_seq = 1;
	m->seq = p->seq;
	(void)aglink_send(p->link, m);
}

static void
link_name(struct apeer *p, char *buf, size_t len)
{
	snprintf(buf, len, "agent link %s", aglink_peer(p->link));
}

static const struct apeer_ops link_ops = {
    .answer = link_answer,
    .name = link_name,
};

static void
link_msg(void *arg, struct aglink_conn *c, void *owner, const Ocs__Msg *m)
{
	struct apeer from = {.ops = &link_ops, .link = c};

	from.seq = m->has_seq ? m->seq : 0;
	agents_hear(arg, &from, owner, m);
}

static void
link_closed(void *arg, void *owner, const char *why)
{
	struct agent *a = owner;
	char          w[200];

	/* Gone already: the link is ours to forget. */
	a->link = NULL;
	a->hold.kind = HOLD_NONE;
	snprintf(w, sizeof(w), "its link closed (%s)", why);
	if (!a->lost)
		lose(arg, a, w);
}

/* ---- heartbeats and losses -------------------------------------------------- */

/* How often the tick runs: heartbeats and attaches. */
static nng_duration
tick_ms(const struct ocsd *d)
{
	return (d->conf->heartbeat_ms / 2 < 250 ? d->conf->heartbeat_ms / 2
	                                        : 250);
}

static void
tick_cb(void *arg)
{
	struct agents *ag = arg;
	struct ocsd   *d = ag->d;
	uint64_t       now;
	uint32_t       i;

	if (nng_aio_result(ag->tick) != 0)
		return;
	nng_mtx_lock(d->mtx);
	/*
	 * The clock is read under the lock: read before it, it is older
	 * than a seen_ms set by whoever held the lock (a run ending), and
	 * now - seen_ms wrapped: every agent of a 1 000-node run was lost
	 * 0.1 s after it ended.
	 */
	now = mono_ms();
	log_limit_tick(&ag->refused);
	for (i = 0; i < ag->na; i++) {
		struct agent *a = ag->a[i];

		if (a->lost)
			continue;
		if (a->hold.kind == HOLD_POLL && now >= a->hold.until)
			idle_held(a);
		/* Until its link is attached the attach's deadline watches
		 * it, not the heartbeat: on a loaded machine an attach may
		 * come after three short heartbeats. */
		if (a->link == NULL) {
			if (now - a->joined_ms > AG_ATTACH_MS)
				lose(ag, a,
				     "it joined but never attached its link");
		}
		/*
		 * An idle agent polls again at once after each Idle, so
		 * one heard of for three heartbeats is hung (stopped: its
		 * link stays up).  In a phase it is quiet until its
		 * Ready, and the run's deadline watches it instead.
		 */
		else if (a->hold.kind == HOLD_NONE && a->node < 0 &&
		         now - a->seen_ms > 3ull * d->conf->heartbeat_ms)
			lose(ag, a, "no heartbeat for three periods");
	}
	nng_mtx_unlock(d->mtx);
	nng_sleep_aio(tick_ms(d), ag->tick);
}

/* An agent is gone: the runner hears it, its link is closed. */
static void
lose(struct agents *ag, struct agent *a, const char *why)
{
	a->lost = 1;
	idmap_del(&ag->byid, a->id, a);
	log_warnx("agents: %s (agent %u) lost: %s", a->host, a->id, why);
	ev_say(ag->d->ev, "agent", "lost", a->host, 0, -1, "%s lost: %s",
	       a->host, why);
	if (ag->ev.lost)
		ag->ev.lost(ag->ev.arg, a, why);
	idle_held(a);
	aglink_drop(a->link);
	a->link = NULL;
	a->hold.kind = HOLD_NONE;
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

/* ---- opening and closing ---------------------------------------------------- */

/* What agents_open allocated, whatever it got to. */
static void
ag_free(struct agents *ag)
{
	uint32_t i;

	for (i = 0; ag->a != NULL && i < ag->na; i++)
		free(ag->a[i]);
	free(ag->a);
	free(ag->chal);
	idmap_fini(&ag->byid);
	memset(ag->secret, 0, sizeof(ag->secret));
	if (ag->tick != NULL)
		nng_aio_free(ag->tick);
	free(ag);
}

/* The link's address: configured, or derived from where agents join:
 * the same host (and TLS or not) on a port the kernel picks, or beside
 * the join socket's file. */
static void
link_addr(const struct conf *c, char *out, size_t len)
{
	const char *colon = strrchr(c->agents, ':');

	if (c->link[0])
		snprintf(out, len, "%s", c->link);
	else if (strncmp(c->agents, "ipc://", 6) == 0)
		snprintf(out, len, "%s.link", c->agents);
	else
		snprintf(out, len, "%.*s:0", (int)(colon - c->agents),
		         c->agents);
}

static int
open_transports(struct agents *ag)
{
	struct ocsd               *d = ag->d;
	const struct aglink_events lev = {
	    .arg = ag, .msg = link_msg, .closed = link_closed};
	char url[PATH_MAX + 32], join[PATH_MAX + 32], err[300];
	int  rv;

	link_addr(d->conf, url, sizeof(url));
	if ((rv = aglink_open(url, d->conf->agents_tls, d->mtx, &lev,
	                      &ag->links, ag->link_url, sizeof(ag->link_url),
	                      err, sizeof(err))) != 0) {
		log_warnx("agents: %s", err);
		return (rv);
	}
	if ((rv = agjoin_open(ag, d->mtx, d->conf->agents, d->conf->agents_tls,
	                      &ag->join, join, sizeof(join), err,
	                      sizeof(err))) != 0) {
		log_warnx("agents: %s", err);
		aglink_close(ag->links);
		ag->links = NULL;
		return (rv);
	}
	log_info("agents: joining on %s, agent links on %s", join,
	         ag->link_url);
	return (0);
}

int
agents_open(struct ocsd *d, struct agents **out)
{
	struct agents *ag;
	char           err[300];
	int            rv;

	*out = NULL;
	if ((ag = calloc(1, sizeof(*ag))) == NULL)
		return (-ENOMEM);
	ag->d = d;
	if ((ag->a = calloc(AG_MAX, sizeof(*ag->a))) == NULL ||
	    (ag->chal = calloc(CHAL_MAX, sizeof(*ag->chal))) == NULL ||
	    idmap_init(&ag->byid, AG_MAX) != 0 ||
	    nng_aio_alloc(&ag->tick, tick_cb, ag) != 0) {
		ag_free(ag);
		return (-ENOMEM);
	}
	if ((rv = auth_read_secret(d->conf->secret_file, ag->secret, &ag->slen,
	                           err, sizeof(err))) != 0) {
		log_warnx("agents: %s", err);
		ag_free(ag);
		return (rv);
	}
	/* The registry is d's before the first message can come. */
	nng_mtx_lock(d->mtx);
	d->ag = ag;
	nng_mtx_unlock(d->mtx);
	if ((rv = open_transports(ag)) != 0) {
		nng_mtx_lock(d->mtx);
		d->ag = NULL;
		nng_mtx_unlock(d->mtx);
		ag_free(ag);
		return (rv);
	}
	nng_sleep_aio(tick_ms(d), ag->tick);
	*out = ag;
	return (0);
}

/*
 * The order matters.  First, under the lock, every agent lets go of its
 * link and attaches are refused (closing): from then on nothing holds a
 * pointer the link thread may free, whatever a callback does next (a
 * tick or a closed link losing an agent finds no link to drop).  Then
 * the tick and the join socket stop (their callbacks take the lock), and
 * last the link thread, which frees the connections.
 */
void
agents_close(struct agents *ag)
{
	uint32_t i;

	if (ag == NULL)
		return;
	nng_mtx_lock(ag->d->mtx);
	ag->closing = 1;
	for (i = 0; i < ag->na; i++) {
		aglink_drop(ag->a[i]->link);
		ag->a[i]->link = NULL;
		ag->a[i]->hold.kind = HOLD_NONE;
	}
	nng_mtx_unlock(ag->d->mtx);
	nng_aio_stop(ag->tick);
	agjoin_close(ag->join);
	aglink_close(ag->links);
	nng_mtx_lock(ag->d->mtx);
	if (ag->d->ag == ag)
		ag->d->ag = NULL;
	nng_mtx_unlock(ag->d->mtx);
	ag_free(ag);
}
