/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-node plans: one pass over every transfer's path counts, per node and
 * phase, the sends, relays and receives; a second pass fills them into one
 * allocation per node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"

struct cnt {
	uint32_t send, relay, recv;
};

/* Walk x's path; call back for the source, each relay and the end. */
typedef void (*visit_fn)(void *arg, uint32_t ph, uint32_t xf, uint32_t node,
                         int role, uint32_t in_port, uint32_t out_port);
enum { ROLE_SEND, ROLE_RELAY, ROLE_RECV };

static int
walk(const struct sched *s, const uint32_t *peer, uint32_t ph, uint32_t xi,
     visit_fn fn, void *arg)
{
	const struct sched_xfer *x = &s->xf[xi];
	struct sched_walk        w;
	int64_t                  tx;
	uint32_t                 in_port = 0, hop = 0;

	sched_walk_init(&w, s, peer, x);
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE) {
		uint32_t from = (uint32_t)tx / s->ports;
		uint32_t out_port = (uint32_t)tx % s->ports;

		if (hop == 0)
			fn(arg, ph, xi, from, ROLE_SEND, 0, out_port);
		else
			fn(arg, ph, xi, from, ROLE_RELAY, in_port, out_port);
		/* The far end: the port the next node hears it on. */
		in_port = peer[tx] % s->ports;
		hop++;
	}
	if (tx < 0)
		return ((int)tx);
	fn(arg, ph, xi, x->dst, ROLE_RECV, in_port, 0);
	return (0);
}

struct pass {
	const struct sched *s;
	struct cnt         *cnt;  /* [node * nph + ph] */
	struct sched_nplan *plan; /* second pass */
	struct cnt         *fill;
};

static void
count(void *arg, uint32_t ph, uint32_t xf, uint32_t node, int role,
      uint32_t in_port, uint32_t out_port)
{
	struct pass *p = arg;
	struct cnt  *c = &p->cnt[node * p->s->nph + ph];

	(void)xf;
	(void)in_port;
	(void)out_port;
	if (role == ROLE_SEND)
		c->send++;
	else if (role == ROLE_RELAY)
		c->relay++;
	else
		c->recv++;
}

static void
fill(void *arg, uint32_t ph, uint32_t xf, uint32_t node, int role,
     uint32_t in_port, uint32_t out_port)
{
	struct pass         *p = arg;
	struct sched_nphase *np = &p->plan[node].ph[ph];
	struct cnt          *f = &p->fill[node * p->s->nph + ph];

	if (role == ROLE_SEND) {
		np->send[f->send++] = xf;
	} else if (role == ROLE_RELAY) {
		np->relay[f->relay].xf = xf;
		np->relay[f->relay].in_port = in_port;
		np->relay[f->relay++].out_port = out_port;
	} else {
		np->recv[f->recv].xf = xf;
		np->recv[f->recv++].port = in_port;
	}
}

static int
each_transfer(const struct sched *s, visit_fn fn, void *arg)
{
	uint32_t *peer, p, i, bad;
	int       rv = 0;

	if ((peer = malloc((size_t)s->n * s->ports * sizeof(*peer))) == NULL)
		return (-ENOMEM);
	for (p = 0; p < s->nph && rv == 0; p++) {
		if (s->ph[p].cfg >= 0 &&
		    (rv = sched_peers(s, &s->cfg[s->ph[p].cfg], peer, &bad)) !=
		        0)
			break;
		if (p == 0 && s->ph[0].cfg < 0) {
			rv = -COLL_ENOCFG;
			break;
		}
		for (i = 0; i < s->ph[p].nxfer && rv == 0; i++)
			rv = walk(s, peer, p, s->ph[p].xfer_off + i, fn, arg);
	}
	free(peer);
	return (rv);
}

/* Blocks a node holds at most: it starts with its own, gains what it
 * receives during a phase and loses what it sent at the phase's end.  A
 * topology collective's node keeps what it sends and holds at most every
 * chunk (n * parts). */
static uint32_t
peak_blocks(const struct sched *s, const struct sched_nplan *pl)
{
	uint64_t held = (uint64_t)s->n * s->parts, peak = held, in, out;
	uint32_t p, i;

	if (s->topo != NULL)
		return ((uint32_t)held);
	for (p = 0; p < s->nph; p++) {
		in = out = 0;
		for (i = 0; i < pl->ph[p].nrecv; i++)
			in += s->xf[pl->ph[p].recv[i].xf].nblk;
		for (i = 0; i < pl->ph[p].nsend; i++)
			out += s->xf[pl->ph[p].send[i]].nblk;
		if (held + in > peak)
			peak = held + in;
		held = held + in - (out < held + in ? out : held + in);
	}
	return (peak > UINT32_MAX ? UINT32_MAX : (uint32_t)peak);
}

int
sched_plans(const struct sched *s, struct sched_nplan **out)
{
	struct sched_nplan *pl;
	struct pass         ps;
	uint32_t            v, p, last;
	int                 rv;

	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.s = s;
	ps.cnt = calloc((size_t)s->n * s->nph, sizeof(*ps.cnt));
	ps.fill = calloc((size_t)s->n * s->nph, sizeof(*ps.fill));
	pl = calloc(s->n, sizeof(*pl));
	if (ps.cnt == NULL || ps.fill == NULL || pl == NULL) {
		rv = -ENOMEM;
		goto fail;
	}
	if ((rv = each_transfer(s, count, &ps)) != 0)
		goto fail;
	for (v = 0; v < s->n; v++) {
		size_t sz = s->nph * sizeof(struct sched_nphase);
		char  *m;

		for (p = 0; p < s->nph; p++) {
			struct cnt *c = &ps.cnt[v * s->nph + p];

			sz += c->send * sizeof(uint32_t) +
			      c->relay * sizeof(struct sched_relay) +
			      c->recv * sizeof(struct sched_recv);
		}
		if ((m = calloc(1, sz)) == NULL) {
			rv = -ENOMEM;
			goto fail;
		}
		pl[v].node = v;
		pl[v].mem = m;
		pl[v].ph = (struct sched_nphase *)(void *)m;
		m += s->nph * sizeof(struct sched_nphase);
		for (p = 0, last = 0; p < s->nph; p++) {
			struct cnt          *c = &ps.cnt[v * s->nph + p];
			struct sched_nphase *np = &pl[v].ph[p];

			np->barrier = p == 0 || s->ph[p].cfg >= 0 ||
			              p - last >= SCHED_MAX_STRETCH;
			if (np->barrier)
				last = p;
			np->nsend = c->send;
			np->nrelay = c->relay;
			np->nrecv = c->recv;
			/* Largest alignment first. */
			np->relay = (struct sched_relay *)(void *)m;
			m += c->relay * sizeof(struct sched_relay);
			np->recv = (struct sched_recv *)(void *)m;
			m += c->recv * sizeof(struct sched_recv);
			np->send = (uint32_t *)(void *)m;
			m += c->send * sizeof(uint32_t);
		}
	}
	ps.plan = pl;
	if ((rv = each_transfer(s, fill, &ps)) != 0)
		goto fail;
	for (v = 0; v < s->n; v++)
		pl[v].max_blocks = peak_blocks(s, &pl[v]);
	free(ps.cnt);
	free(ps.fill);
	*out = pl;
	return (0);
fail:
	free(ps.cnt);
	free(ps.fill);
	if (pl)
		sched_plans_free(pl, s->n);
	return (rv);
}

void
sched_plans_free(struct sched_nplan *pl, uint32_t n)
{
	uint32_t v;

	if (pl == NULL)
		return;
	for (v = 0; v < n; v++)
		free(pl[v].mem);
	free(pl);
}

uint64_t
sched_nplan_vbytes(const struct sched *s, const struct sched_nplan *np)
{
	uint64_t sum = 0;
	uint32_t k, i;

	for (i = 0; s->vmat != NULL && i < s->n; i++)
		sum +=
		    i != np->node ? s->vmat[(size_t)np->node * s->n + i] : 0;
	for (k = 0; k < s->nph; k++)
		for (i = 0; i < np->ph[k].nrecv; i++)
			sum += s->xf[np->ph[k].recv[i].xf].bytes;
	return (sum);
}
