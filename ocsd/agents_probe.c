/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocsctl check's probe (agents.h): which transceivers of each idle agent
 * send and listen (its switch's live map), the Probe that answers its
 * Poll, and what it heard.  A probe changes no circuit and asks nothing
 * of an agent in a run; a run that starts meanwhile takes its agents'
 * next Polls first (agents.c, on_poll).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ocsd/agents_int.h"
#include "proto/base/mono.h"
#include "proto/wire.h"

/* What an agent is left for its Heard to reach ocsd in time. */
#define PROBE_MARGIN_MS 100

/* The transceivers whose transmitter (send) and receiver (listen) the
 * live map of their switch patches. */
static void
masks(const struct ocsd *d, const struct agent *a, uint32_t *send,
      uint32_t *listen)
{
	uint32_t t;

	*send = *listen = 0;
	for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++) {
		const struct sw *s =
		    a->sw[t] < d->nsw ? &d->sw[a->sw[t]] : NULL;

		if (s == NULL || !s->have_live)
			continue;
		if (a->in[t] != 0 && a->in[t] <= s->live.n &&
		    s->live.out[a->in[t]] != 0)
			*send |= 1u << t;
		if (a->out[t] != 0 && map_in_of(&s->live, a->out[t]) != 0)
			*listen |= 1u << t;
	}
}

static void
send_probe(struct agents *ag, struct agent *a)
{
	Ocs__Msg   m;
	Ocs__Probe p;
	uint32_t   s[AGENT_MAX_TRX], l[AGENT_MAX_TRX], t;

	ocs__msg__init(&m);
	ocs__probe__init(&p);
	p.nonce = a->probe.nonce;
	p.wait_ms = ag->probe_listen_ms;
	p.send = s;
	p.listen = l;
	for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++) {
		if (a->probe.send & (1u << t))
			s[p.n_send++] = t;
		if (a->probe.listen & (1u << t))
			l[p.n_listen++] = t;
	}
	m.body_case = OCS__MSG__BODY_PROBE;
	m.probe = &p;
	a->probe.sent = 1;
	agents_answer(a, &m);
}

int
agents_probe(struct ocsd *d, uint32_t nonce, uint32_t wait_ms)
{
	struct agents *ag = d->ag;
	uint64_t       now = mono_ms();
	uint32_t       i;

	if (ag->probe_until > now)
		return (-OCSD_EBUSY);
	ag->probe_nonce = nonce;
	ag->probe_until = now + wait_ms;
	ag->probe_listen_ms = wait_ms > 2 * PROBE_MARGIN_MS
	                          ? wait_ms - PROBE_MARGIN_MS
	                          : wait_ms / 2 + 1;
	for (i = 0; i < ag->na; i++) {
		struct agent *a = ag->a[i];

		memset(&a->probe, 0, sizeof(a->probe));
		if (a->lost || a->link == NULL || a->node >= 0)
			continue;
		a->probe.nonce = nonce;
		masks(d, a, &a->probe.send, &a->probe.listen);
		if (a->hold.kind == HOLD_POLL)
			send_probe(ag, a);
	}
	return (0);
}

void
agents_probe_poll(struct ocsd *d, struct agent *a)
{
	struct agents *ag = d->ag;

	/* Late, it would listen past the answer: left out, said so. */
	if (a->probe.nonce == 0 || a->probe.nonce != ag->probe_nonce ||
	    a->probe.sent || a->node >= 0 ||
	    mono_ms() + ag->probe_listen_ms > ag->probe_until + 50)
		return;
	send_probe(ag, a);
}

int
agents_probe_heard(struct agent *a, const Ocs__Heard *h, char *err, size_t len)
{
	size_t i;

	if (a->probe.nonce == 0 || !a->probe.sent ||
	    h->nonce != a->probe.nonce) {
		snprintf(err, len, "heard: nonce %u answers no probe",
		         h->nonce);
		return (-MSG_EFIELD);
	}
	if (h->n_heard > AMSG_MAX_HEARD) {
		snprintf(err, len, "heard: %zu probes, at most %u", h->n_heard,
		         AMSG_MAX_HEARD);
		return (-MSG_EFIELD);
	}
	for (i = 0; i < h->n_heard; i++) {
		const Ocs__HeardFrom *f = h->heard[i];

		if (f->trx >= a->ntrx || f->from_trx >= AMSG_MAX_TRX ||
		    !amsg_host_ok(f->host)) {
			snprintf(err, len,
			         "heard: probe %zu: transceiver %u from "
			         "\"%.60s\".%u: not a transceiver of %s or "
			         "not a host",
			         i, f->trx,
			         msg_str_ok(f->host) ? f->host : "?",
			         f->from_trx, a->host);
			return (-MSG_EFIELD);
		}
	}
	for (i = 0; i < h->n_heard; i++) {
		a->probe.heard[i].trx = h->heard[i]->trx;
		a->probe.heard[i].from_trx = h->heard[i]->from_trx;
		snprintf(a->probe.heard[i].host,
		         sizeof(a->probe.heard[i].host), "%s",
		         h->heard[i]->host);
	}
	a->probe.nheard = (uint32_t)h->n_heard;
	for (i = 0; i < h->n_unsent; i++)
		if (h->unsent[i] < AGENT_MAX_TRX)
			a->probe.unsent |= 1u << h->unsent[i];
	a->probe.answered = 1;
	return (0);
}

/* One transceiver's record. */
static void
info_of(const struct agent *a, uint32_t t, struct probe_info *o)
{
	const struct agent_probe *p = &a->probe;
	uint32_t                  k;

	memset(o, 0, sizeof(*o));
	snprintf(o->trx, sizeof(o->trx), "%s.%u", a->host, t);
	o->sent = p->sent && (p->send & (1u << t)) && !(p->unsent & (1u << t));
	for (k = 0; k < p->nheard; k++)
		if (p->heard[k].trx == t)
			snprintf(o->heard[o->nheard++], sizeof(o->heard[0]),
			         "%s.%u", p->heard[k].host,
			         p->heard[k].from_trx);
	if (a->node >= 0 && !p->sent)
		snprintf(o->why, sizeof(o->why), "its agent is in a run");
	else if (!p->sent)
		snprintf(o->why, sizeof(o->why),
		         "its agent did not poll in time");
	else if (!p->answered)
		snprintf(o->why, sizeof(o->why),
		         "its agent did not say what it heard in time");
	o->unsent = p->answered && (p->unsent & (1u << t));
}

uint32_t
agents_probe_result(struct ocsd *d, struct probe_info *out, uint32_t cap)
{
	struct agents *ag = d->ag;
	uint32_t       i, t, n = 0;

	for (i = 0; ag != NULL && i < ag->na; i++) {
		const struct agent *a = ag->a[i];

		if (a->lost)
			continue;
		for (t = 0; t < a->ntrx && t < AGENT_MAX_TRX; t++, n++)
			if (out != NULL && n < cap)
				info_of(a, t, &out[n]);
	}
	return (out != NULL && n > cap ? cap : n);
}
