/* SPDX-License-Identifier: BSD-2-Clause */
/* The agents' protocol, client side (see amsg.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/amsg.h"
#include "proto/base/mono.h"

int
amsg_host_ok(const char *h)
{
	size_t i;

	if (!msg_str_ok(h) || strlen(h) >= AMSG_HOST_MAX)
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
begin(struct amsg_out *o, uint64_t seq, uint64_t run)
{
	msg_init(&o->m, seq);
	if (run != 0) {
		o->m.has_run_id = 1;
		o->m.run_id = run;
	}
}

void
amsg_hello(struct amsg_out *o, uint64_t seq, const struct amsg_host *h)
{
	begin(o, seq, 0);
	ocs__hello__init(&o->hello);
	o->hello.host = (char *)(uintptr_t)h->host;
	o->m.body_case = OCS__MSG__BODY_HELLO;
	o->m.hello = &o->hello;
}

int
amsg_join(struct amsg_out *o, uint64_t seq, const struct amsg_host *h,
          const Ocs__Msg *ch, char *err, size_t errlen)
{
	if (ch->body_case != OCS__MSG__BODY_CHALLENGE ||
	    ch->challenge->nonce.len != AUTH_NONCE) {
		snprintf(err, errlen,
		         "controller: expected a challenge, got %s",
		         msg_body_name(ch->body_case));
		return (-MSG_EBODY);
	}
	memcpy(o->nonce, ch->challenge->nonce.data, AUTH_NONCE);
	if (auth_proof(h->secret, h->slen, o->nonce, AUTH_NONCE, h->host,
	               o->proof) != 0) {
		snprintf(err, errlen, "cannot compute the join proof");
		return (-EIO);
	}
	begin(o, seq, 0);
	ocs__join__init(&o->join);
	o->join.host = (char *)(uintptr_t)h->host;
	o->join.transceivers = h->ntrx;
	o->join.nonce.data = o->nonce;
	o->join.nonce.len = AUTH_NONCE;
	o->join.proof.data = o->proof;
	o->join.proof.len = AUTH_PROOF;
	o->join.has_mem_limit = h->mem_limit != 0;
	o->join.mem_limit = h->mem_limit;
	o->join.transport = (char *)(uintptr_t)h->transport;
	o->join.ifaces = (char *)(uintptr_t)h->ifaces;
	o->join.local_link = (char *)(uintptr_t)h->local_link;
	o->m.body_case = OCS__MSG__BODY_JOIN;
	o->m.join = &o->join;
	return (0);
}

void
amsg_poll(struct amsg_out *o, uint64_t seq, uint32_t agent_id,
          uint32_t fibres_up, const char *down)
{
	begin(o, seq, 0);
	ocs__poll__init(&o->poll);
	o->poll.agent_id = agent_id;
	o->poll.has_fibres_up = 1;
	o->poll.fibres_up = fibres_up;
	o->poll.down = down && down[0] ? (char *)(uintptr_t)down : NULL;
	o->m.body_case = OCS__MSG__BODY_POLL;
	o->m.poll = &o->poll;
}

/* The links into o's storage: how many went in. */
static size_t
links_into(struct amsg_out *o, const struct amsg_link *l, uint32_t n)
{
	size_t   k = 0;
	uint32_t i;

	for (i = 0; i < n && i < AMSG_MAX_TRX; i++) {
		Ocs__TrxLink *t = &o->link[k];

		if (l[i].state == 0)
			continue;
		ocs__trx_link__init(t);
		t->trx = i;
		t->state = (Ocs__TrxLink__State)l[i].state;
		t->has_mtu = l[i].mtu != 0;
		t->mtu = l[i].mtu;
		t->has_carrier_ups = 1;
		t->carrier_ups = l[i].ups;
		t->iface = (char *)(uintptr_t)l[i].iface;
		o->linkp[k++] = t;
	}
	return (k);
}

void
amsg_poll_links(struct amsg_out *o, const struct amsg_link *l, uint32_t n)
{
	o->poll.n_links = links_into(o, l, n);
	o->poll.links = o->linkp;
}

void
amsg_link_state(struct amsg_out *o, uint32_t agent_id,
                const struct amsg_link *l, uint32_t n)
{
	begin(o, 0, 0);
	ocs__link_state__init(&o->ls);
	o->ls.agent_id = agent_id;
	o->ls.n_links = links_into(o, l, n);
	o->ls.links = o->linkp;
	o->m.body_case = OCS__MSG__BODY_LINK_STATE;
	o->m.link_state = &o->ls;
}

void
amsg_heard(struct amsg_out *o, uint32_t agent_id, uint32_t nonce,
           const struct amsg_heard *h, size_t n, uint32_t unsent)
{
	size_t   i;
	uint32_t t;

	begin(o, 0, 0);
	ocs__heard__init(&o->heard);
	o->heard.agent_id = agent_id;
	o->heard.nonce = nonce;
	for (i = 0; i < n && i < AMSG_MAX_HEARD; i++) {
		ocs__heard_from__init(&o->hf[i]);
		o->hf[i].trx = h[i].trx;
		o->hf[i].host = (char *)(uintptr_t)h[i].host;
		o->hf[i].from_trx = h[i].from_trx;
		o->hfp[i] = &o->hf[i];
	}
	o->heard.n_heard = i;
	o->heard.heard = o->hfp;
	for (t = 0; t < AMSG_MAX_TRX; t++)
		if (unsent & (1u << t))
			o->unsent[o->heard.n_unsent++] = t;
	o->heard.unsent = o->unsent;
	o->m.body_case = OCS__MSG__BODY_HEARD;
	o->m.heard = &o->heard;
}

/* The bits of transceivers t[0..n), each below ntrx; -1 if one is not. */
static int64_t
trx_bits(const uint32_t *t, size_t n, uint32_t ntrx, uint32_t *bad)
{
	uint32_t bits = 0;
	size_t   i;

	for (i = 0; i < n; i++) {
		if (t[i] >= ntrx || t[i] >= AMSG_MAX_TRX) {
			*bad = t[i];
			return (-1);
		}
		bits |= 1u << t[i];
	}
	return (bits);
}

int
amsg_probe_get(const Ocs__Msg *rep, uint32_t ntrx, struct amsg_probe *p,
               char *err, size_t errlen)
{
	const Ocs__Probe *q = rep->probe;
	int64_t           s, l;
	uint32_t          bad = 0;

	if (rep->body_case != OCS__MSG__BODY_PROBE) {
		snprintf(err, errlen, "controller: expected a probe, got %s",
		         msg_body_name(rep->body_case));
		return (-MSG_EBODY);
	}
	if ((s = trx_bits(q->send, q->n_send, ntrx, &bad)) < 0 ||
	    (l = trx_bits(q->listen, q->n_listen, ntrx, &bad)) < 0) {
		snprintf(err, errlen,
		         "controller: probe: transceiver %u: this host has %u",
		         bad, ntrx);
		return (-MSG_EFIELD);
	}
	if (q->wait_ms == 0 || q->wait_ms > AMSG_PROBE_MS) {
		snprintf(err, errlen,
		         "controller: probe: wait_ms %u: not 1 to %u",
		         q->wait_ms, AMSG_PROBE_MS);
		return (-MSG_EFIELD);
	}
	p->nonce = q->nonce;
	p->send = (uint32_t)s;
	p->listen = (uint32_t)l;
	p->wait_ms = q->wait_ms;
	return (0);
}

int
amsg_ready(struct amsg_out *o, uint64_t seq, uint64_t run, uint32_t agent_id,
           uint32_t phase, const struct plan_done *done, size_t nd,
           uint64_t setup_ns, uint64_t teardown_ns)
{
	if (plan_ready_encode(agent_id, done, nd, &o->ready) != 0)
		return (-E2BIG);
	begin(o, seq, run);
	o->ready.r.has_setup_ns = setup_ns != 0;
	o->ready.r.setup_ns = setup_ns;
	o->ready.r.has_teardown_ns = teardown_ns != 0;
	o->ready.r.teardown_ns = teardown_ns;
	o->m.has_phase = 1;
	o->m.phase = phase;
	o->m.body_case = OCS__MSG__BODY_READY;
	o->m.ready = &o->ready.r;
	return (0);
}

void
amsg_abort(struct amsg_out *o, uint64_t seq, uint64_t run, uint32_t phase,
           const char *reason)
{
	begin(o, seq, run);
	ocs__abort__init(&o->abort);
	o->abort.reason = (char *)(uintptr_t)reason;
	o->m.has_phase = 1;
	o->m.phase = phase;
	o->m.body_case = OCS__MSG__BODY_ABORT;
	o->m.abort = &o->abort;
}

/* An Error answer: its code, its text in err. */
static int
refusal(const Ocs__Msg *rep, char *err, size_t errlen)
{
	snprintf(err, errlen, "controller: %s", rep->error->text);
	return (rep->error->code < 0 ? rep->error->code : -EPROTO);
}

/* The JoinReply's ports, one per transceiver the host has. */
static int
joined_ports(const Ocs__JoinReply *jr, const struct amsg_host *h,
             struct amsg_joined *j, char *err, size_t errlen)
{
	size_t i;

	memset(j->ingress, 0, sizeof(j->ingress));
	for (i = 0; i < jr->n_ports; i++) {
		if (jr->ports[i]->trx >= h->ntrx ||
		    jr->ports[i]->ingress == 0) {
			snprintf(err, errlen,
			         "controller: port map names transceiver %u "
			         "of %u (ingress %u)",
			         jr->ports[i]->trx, h->ntrx,
			         jr->ports[i]->ingress);
			return (-MSG_EFIELD);
		}
		j->ingress[jr->ports[i]->trx] = jr->ports[i]->ingress;
		j->egress[jr->ports[i]->trx] = jr->ports[i]->egress;
	}
	for (i = 0; i < h->ntrx; i++)
		if (j->ingress[i] == 0) {
			snprintf(err, errlen,
			         "controller has no cabling for %s.%zu",
			         h->host, i);
			return (-MSG_EFIELD);
		}
	return (0);
}

int
amsg_joined(const Ocs__Msg *rep, const struct amsg_host *h, const char *joined,
            struct amsg_joined *j, char *err, size_t errlen)
{
	const Ocs__JoinReply *jr;
	int                   rv;

	memset(j, 0, sizeof(*j));
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		rv = refusal(rep, err, errlen);
		/* A live twin or a full table passes; the rest stays. */
		return (rv == -EEXIST || rv == -EAGAIN ? rv : -AMSG_EREFUSED);
	}
	if (rep->body_case != OCS__MSG__BODY_JOIN_REPLY) {
		snprintf(err, errlen,
		         "controller: expected a join reply, got %s",
		         msg_body_name(rep->body_case));
		return (-MSG_EBODY);
	}
	jr = rep->join_reply;
	if ((rv = joined_ports(jr, h, j, err, errlen)) != 0)
		return (rv);
	if (jr->link_token.len != ALINK_TOKEN ||
	    alink_url(jr->link, joined, j->link, sizeof(j->link)) != 0) {
		snprintf(err, errlen,
		         "controller: agent link \"%.100s\" (token of %zu "
		         "bytes): not one to attach to",
		         jr->link, jr->link_token.len);
		return (-MSG_EFIELD);
	}
	memcpy(j->token, jr->link_token.data, ALINK_TOKEN);
	j->agent_id = jr->agent_id;
	j->heartbeat_ms = jr->has_heartbeat_ms && jr->heartbeat_ms > 0
	                      ? jr->heartbeat_ms
	                      : 2000;
	return (0);
}

int
amsg_attach(struct amsg_out *o, uint64_t seq, const Ocs__Msg *ch,
            const struct amsg_host *h, const struct amsg_joined *j, char *err,
            size_t errlen)
{
	if (ch->body_case != OCS__MSG__BODY_CHALLENGE ||
	    ch->challenge->nonce.len != AUTH_NONCE) {
		snprintf(err, errlen,
		         "agent link: expected a challenge, got %s",
		         msg_body_name(ch->body_case));
		return (-MSG_EBODY);
	}
	if (auth_attach_proof(h->secret, h->slen, ch->challenge->nonce.data,
	                      j->token, ALINK_TOKEN, h->host, o->proof) != 0) {
		snprintf(err, errlen, "cannot compute the attach proof");
		return (-EIO);
	}
	begin(o, seq, 0);
	ocs__attach__init(&o->attach);
	o->attach.agent_id = j->agent_id;
	o->attach.proof.data = o->proof;
	o->attach.proof.len = AUTH_PROOF;
	o->m.body_case = OCS__MSG__BODY_ATTACH;
	o->m.attach = &o->attach;
	return (0);
}

int
amsg_attach_link(struct alink_conn *c, const struct amsg_host *h,
                 const struct amsg_joined *j, struct ssl_ctx_st *tls,
                 uint64_t seq, int timeout_ms, char *err, size_t errlen)
{
	struct amsg_out o;
	Ocs__Msg       *ch = NULL, *rep = NULL;
	int             rv;

	if ((rv = alink_connect(c, j->link, tls, timeout_ms, err, errlen)) !=
	    0)
		return (rv);
	/* Before the attach, frames are small: a stranger's cannot hold
	 * ocsd's memory, nor ocsd's ours. */
	c->rx.max = ALINK_FIRST_MAX;
	if ((rv = alink_recv(c, mono_ms() + (uint64_t)timeout_ms, &ch, err,
	                     errlen)) < 0 ||
	    (rv = amsg_attach(&o, seq, ch, h, j, err, errlen)) != 0 ||
	    (rv = alink_call(c, &o.m, 0, timeout_ms, &rep, err, errlen)) != 0)
		goto out;
	if (rep->body_case == OCS__MSG__BODY_ERROR)
		rv = refusal(rep, err, errlen);
	else if (rep->body_case != OCS__MSG__BODY_IDLE) {
		snprintf(err, errlen, "agent link: %s answers the attach",
		         msg_body_name(rep->body_case));
		rv = -MSG_EBODY;
	}
out:
	msg_free(ch);
	msg_free(rep);
	if (rv != 0)
		alink_disconnect(c);
	else
		c->rx.max = MSG_MAX_BYTES;
	return (rv);
}

int
amsg_answer(const Ocs__Msg *rep, int asked, char *err, size_t errlen)
{
	int b = rep->body_case;

	if (b == OCS__MSG__BODY_ERROR)
		return (refusal(rep, err, errlen));
	if (b == OCS__MSG__BODY_ABORT) {
		snprintf(err, errlen, "%s", rep->abort->reason);
		return (asked == OCS__MSG__BODY_ABORT ? AMSG_IDLE
		                                      : AMSG_ABORTED);
	}
	if (asked == OCS__MSG__BODY_POLL && b == OCS__MSG__BODY_IDLE)
		return (AMSG_IDLE);
	if (asked == OCS__MSG__BODY_POLL && b == OCS__MSG__BODY_PLAN &&
	    rep->has_run_id && rep->run_id != 0)
		return (AMSG_PLAN);
	if (asked == OCS__MSG__BODY_POLL && b == OCS__MSG__BODY_PROBE)
		return (AMSG_PROBE);
	if (asked == OCS__MSG__BODY_READY && b == OCS__MSG__BODY_RELEASE)
		return (AMSG_RELEASE);
	if (asked == OCS__MSG__BODY_READY && b == OCS__MSG__BODY_FINISHED)
		return (AMSG_FINISHED);
	snprintf(err, errlen, "controller: %s answers a %s", msg_body_name(b),
	         msg_body_name(asked));
	return (-MSG_EBODY);
}
