/* SPDX-License-Identifier: BSD-2-Clause */
/* Link-level discrete-event simulation of a schedule (see sim.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sim.h"

#define SIM_MAX_CHUNKS (1u << 26)

enum { EV_FREE, EV_ARRIVE };

struct ev {
	double   t;
	uint64_t seq;
	uint32_t kind, id;
};

struct tok {
	struct sched_walk w;
	double            bytes;
	uint32_t          next; /* FIFO link */
};

struct sim {
	const struct sim_params *sp;
	struct ev               *heap;
	uint32_t                 nheap;
	uint64_t                 seq;
	struct tok              *tok;
	uint32_t                *head, *tail;
	uint8_t                 *busy;
	double                   last;
};

static int
ev_less(const struct ev *a, const struct ev *b)
{
	return (a->t < b->t || (a->t == b->t && a->seq < b->seq));
}

static void
ev_push(struct sim *m, double t, uint32_t kind, uint32_t id)
{
	uint32_t i = m->nheap++;

	m->heap[i].t = t;
	m->heap[i].seq = m->seq++;
	m->heap[i].kind = kind;
	m->heap[i].id = id;
	while (i > 0 && ev_less(&m->heap[i], &m->heap[(i - 1) / 2])) {
		struct ev tmp = m->heap[i];
		m->heap[i] = m->heap[(i - 1) / 2];
		m->heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

static struct ev
ev_pop(struct sim *m)
{
	struct ev top = m->heap[0];
	uint32_t  i = 0;

	m->heap[0] = m->heap[--m->nheap];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i;

		if (l < m->nheap && ev_less(&m->heap[l], &m->heap[s]))
			s = l;
		if (r < m->nheap && ev_less(&m->heap[r], &m->heap[s]))
			s = r;
		if (s == i)
			break;
		struct ev tmp = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = tmp;
		i = s;
	}
	return (top);
}

static void
enqueue(struct sim *m, uint32_t link, uint32_t t)
{
	m->tok[t].next = SCHED_NONE;
	if (m->head[link] == SCHED_NONE)
		m->head[link] = t;
	else
		m->tok[m->tail[link]].next = t;
	m->tail[link] = t;
}

static void
start_tx(struct sim *m, uint32_t link, double now)
{
	uint32_t t = m->head[link];
	double   fin;

	m->head[link] = m->tok[t].next;
	fin = now + m->tok[t].bytes * m->sp->cost.beta;
	m->busy[link] = 1;
	ev_push(m, fin, EV_FREE, link);
	ev_push(m, fin + m->sp->cost.alpha_h, EV_ARRIVE, t);
}

/* Move a token to its next link; returns 0, or a path error. */
static int
advance(struct sim *m, uint32_t t, double now)
{
	int64_t tx = sched_walk_next(&m->tok[t].w);

	if (tx < 0)
		return ((int)tx);
	if (tx == SCHED_NONE) {
		if (now > m->last)
			m->last = now;
		return (0);
	}
	enqueue(m, (uint32_t)tx, t);
	if (!m->busy[tx])
		start_tx(m, (uint32_t)tx, now);
	return (0);
}

static int
sim_phase(struct sim *m, const struct sched *s, uint32_t p,
          const uint32_t *peer, double *time)
{
	const struct sched_phase *ph = &s->ph[p];
	double                    blk = sched_blk_model_bytes(s);
	double                    cb = m->sp->chunk_bytes;
	uint64_t                  nt = 0;
	uint32_t                  i, c, np = s->n * s->ports;
	int                       rv;

	for (i = 0; i < ph->nxfer; i++) {
		double b = s->xf[ph->xfer_off + i].nblk * blk;
		nt += b > 0 ? (uint64_t)ceil(b / cb) : 0;
	}
	if (nt > SIM_MAX_CHUNKS)
		return (-COLL_ETOOBIG);
	free(m->tok);
	free(m->heap);
	m->tok = malloc((nt ? nt : 1) * sizeof(*m->tok));
	m->heap = malloc((nt + np + 1) * 2 * sizeof(*m->heap));
	if (m->tok == NULL || m->heap == NULL)
		return (-ENOMEM);
	m->nheap = 0;
	m->last = 0;
	for (i = 0; i < np; i++) {
		m->head[i] = SCHED_NONE;
		m->busy[i] = 0;
	}
	nt = 0;
	for (i = 0; i < ph->nxfer; i++) {
		const struct sched_xfer *x = &s->xf[ph->xfer_off + i];
		double                   left = x->nblk * blk;
		uint32_t nc = left > 0 ? (uint32_t)ceil(left / cb) : 0;

		for (c = 0; c < nc; c++) {
			struct tok *t = &m->tok[nt];
			int64_t     tx;

			sched_walk_init(&t->w, s, peer, x);
			t->bytes = left < cb ? left : cb;
			left -= t->bytes;
			if ((tx = sched_walk_next(&t->w)) < 0)
				return ((int)tx);
			if (tx == SCHED_NONE)
				return (-COLL_EPATH);
			enqueue(m, (uint32_t)tx, (uint32_t)nt);
			nt++;
		}
	}
	for (i = 0; i < np; i++)
		if (m->head[i] != SCHED_NONE)
			start_tx(m, i, 0);
	while (m->nheap > 0) {
		struct ev e = ev_pop(m);

		if (e.kind == EV_FREE) {
			m->busy[e.id] = 0;
			if (m->head[e.id] != SCHED_NONE)
				start_tx(m, e.id, e.t);
		} else if ((rv = advance(m, e.id, e.t)) != 0)
			return (rv);
	}
	*time = m->sp->cost.alpha_s + m->last;
	return (0);
}

int
sim_run(const struct sched *s, const struct sim_params *sp, double *total,
        double *per_phase)
{
	struct sim m;
	uint32_t  *peer, np = s->n * s->ports, p, bad;
	double     sum = 0, t = 0;
	int        rv = -ENOMEM;

	if (!(sp->chunk_bytes > 0) || s->nph == 0 || s->ph[0].cfg < 0)
		return (-EINVAL);
	memset(&m, 0, sizeof(m));
	m.sp = sp;
	peer = malloc((size_t)np * sizeof(*peer));
	m.head = malloc((size_t)np * sizeof(*m.head));
	m.tail = malloc((size_t)np * sizeof(*m.tail));
	m.busy = malloc((size_t)np);
	if (!peer || !m.head || !m.tail || !m.busy)
		goto out;
	for (p = 0; p < s->nph; p++) {
		double reconf = 0;

		if (s->ph[p].cfg >= 0) {
			rv = sched_peers(s, &s->cfg[s->ph[p].cfg], peer, &bad);
			if (rv != 0)
				goto out;
			if (p > 0)
				reconf = cost_delta(&sp->cost, p);
		}
		if ((rv = sim_phase(&m, s, p, peer, &t)) != 0)
			goto out;
		t += reconf;
		if (per_phase)
			per_phase[p] = t;
		sum += t;
	}
	*total = sum;
	rv = 0;
out:
	free(peer);
	free(m.head);
	free(m.tail);
	free(m.busy);
	free(m.tok);
	free(m.heap);
	return (rv);
}
