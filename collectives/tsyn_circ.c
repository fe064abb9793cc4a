/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A topology schedule on circuits (tsyn.h).  Every link the schedule
 * uses, with its way back, is one bidirectional circuit, and a host has
 * ntrx transceivers for them.
 *
 * Slots run on as few configurations as this greedy finds: a
 * configuration grows slot by slot while every node still has a
 * transceiver for each of its circuits.  A slot that would overflow it
 * first sends what the configuration already carries, then the rest in
 * new configurations, first fit; the last stays for the slots after.
 * Moving part of a slot earlier is safe: a slot's transfers only send
 * what their senders held as it began, so any order among them delivers
 * the same, never later.  When no slot is split, cutting a stretch as
 * late as possible gives the fewest reconfigurations there can be
 * (a subset of a feasible stretch is feasible).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"
#include "proto/base/errf.h"

struct circ {
	const struct sched *s;
	const struct topo  *t;
	uint32_t            ntrx, cur; /* cur: the configuration growing */
	uint32_t           *pair;      /* [nlink]: the pair's lower link */
	uint32_t           *lit;  /* [nlink]: configuration + 1 it is in */
	uint32_t           *seen; /* [nlink]: stamp, counted once */
	uint32_t           *deg;  /* [n]: circuits at a node in cur */
	uint32_t           *tmp;  /* [n]: deg, tried */
	uint32_t           *xcfg; /* [nxfer]: the transfer's configuration */
	uint16_t           *port; /* [nlink]: transceiver it leaves by */
};

static uint32_t
pair_of(const struct circ *c, uint32_t xi)
{
	const struct sched_seg *g = &c->s->seg[c->s->xf[xi].seg_off];

	return (c->pair[c->t->out[c->t->out_off[g->node] + g->port]]);
}

/* Hosts only, every link one duplex circuit: c->pair. */
static int
pairs(struct circ *c, char *err, size_t errlen)
{
	const struct topo *t = c->t;
	uint32_t           l;

	for (l = 0; l < t->nlink; l++) {
		const struct topo_link *k = &t->link[l];
		int64_t                 r = topo_link_of(t, k->dst, k->src);

		if (t->node[k->src].gpu < 0 || t->node[k->dst].gpu < 0)
			return (errf(
			    -EINVAL, err, errlen,
			    "%s: %s is not a GPU; circuits join "
			    "hosts only",
			    t->name,
			    t->node[t->node[k->src].gpu < 0 ? k->src : k->dst]
			        .name));
		if (r < 0 || topo_link_of(t, k->src, k->dst) != (int64_t)l)
			return (errf(-EINVAL, err, errlen,
			             "%s: link %s -> %s is not one duplex "
			             "circuit (no single way back)",
			             t->name, t->node[k->src].name,
			             t->node[k->dst].name));
		c->pair[l] = l < (uint32_t)r ? l : (uint32_t)r;
	}
	return (0);
}

/* Would slot k's transfers all fit the growing configuration? */
static int
fits(struct circ *c, uint32_t k)
{
	const struct sched_phase *p = &c->s->ph[k];
	uint32_t                  i;

	memcpy(c->tmp, c->deg, c->t->n * sizeof(*c->tmp));
	for (i = p->xfer_off; i < p->xfer_off + p->nxfer; i++) {
		uint32_t pr = pair_of(c, i);

		if (c->lit[pr] == c->cur + 1 || c->seen[pr] == k + 1)
			continue;
		c->seen[pr] = k + 1;
		if (++c->tmp[c->t->link[pr].src] > c->ntrx ||
		    ++c->tmp[c->t->link[pr].dst] > c->ntrx)
			return (0);
	}
	return (1);
}

/* Transfer i into the growing configuration if its circuit is there or
 * has transceivers left (all: it must have them). */
static void
take(struct circ *c, uint32_t i, int all)
{
	uint32_t pr = pair_of(c, i), a = c->t->link[pr].src,
	         b = c->t->link[pr].dst;

	if (c->lit[pr] != c->cur + 1) {
		if (!all && (c->deg[a] >= c->ntrx || c->deg[b] >= c->ntrx))
			return;
		c->lit[pr] = c->cur + 1;
		c->deg[a]++;
		c->deg[b]++;
	}
	c->xcfg[i] = c->cur;
}

/* Slot k onto configurations: c->xcfg of its transfers. */
static void
place(struct circ *c, uint32_t k)
{
	const struct sched_phase *p = &c->s->ph[k];
	uint32_t                  i, left = p->nxfer;

	if (fits(c, k)) {
		for (i = p->xfer_off; i < p->xfer_off + p->nxfer; i++)
			take(c, i, 1);
		return;
	}
	/* First fit: into the growing configuration, then new ones. */
	for (;;) {
		for (i = p->xfer_off; i < p->xfer_off + p->nxfer; i++)
			if (c->xcfg[i] == UINT32_MAX) {
				take(c, i, 0);
				left -= c->xcfg[i] != UINT32_MAX;
			}
		if (left == 0)
			return;
		c->cur++;
		memset(c->deg, 0, c->t->n * sizeof(*c->deg));
	}
}

/* Configuration j's circuits, a transceiver per node in link order. */
static int
circuits(struct circ *c, uint32_t j, struct sched *out)
{
	uint32_t i, l;
	int      rv;

	memset(c->deg, 0, c->t->n * sizeof(*c->deg));
	memset(c->seen, 0, c->t->nlink * sizeof(*c->seen));
	for (i = 0; i < c->s->nxf; i++)
		if (c->xcfg[i] == j)
			c->seen[pair_of(c, i)] = 1;
	for (l = 0; l < c->t->nlink; l++) {
		const struct topo_link *e = &c->t->link[l];
		uint32_t r = (uint32_t)topo_link_of(c->t, e->dst, e->src);

		if (!c->seen[l])
			continue;
		c->port[l] = (uint16_t)c->deg[e->src]++;
		c->port[r] = (uint16_t)c->deg[e->dst]++;
		if ((rv = sched_add_circuit(out, e->src, c->port[l], e->dst,
		                            c->port[r])) != 0)
			return (rv);
	}
	return (0);
}

/* A phase of configuration j (a new one unless it is *prev's) with slot
 * k's transfers of j, on their transceivers. */
static int
phase(struct circ *c, uint32_t k, uint32_t j, uint32_t *prev,
      struct sched *out)
{
	const struct sched_phase *p = &c->s->ph[k];
	uint32_t                  i;
	int                       rv, fresh = j != *prev;

	if ((rv = sched_add_phase(out, fresh, 0)) < 0)
		return (rv);
	if (fresh && (rv = circuits(c, j, out)) != 0)
		return (rv);
	*prev = j;
	for (i = p->xfer_off; i < p->xfer_off + p->nxfer; i++) {
		const struct sched_xfer *x = &c->s->xf[i];
		struct sched_seg         g = c->s->seg[x->seg_off];

		if (c->xcfg[i] != j)
			continue;
		g.port = c->port[c->t->out[c->t->out_off[g.node] + g.port]];
		if ((rv = sched_add_xfer(out, x->src, x->dst,
		                         c->s->blk + x->blk_off, x->nblk, &g,
		                         1)) != 0)
			return (rv);
	}
	return (0);
}

static int
on_circuits(struct circ *c, struct sched *out, char *err, size_t errlen)
{
	const struct sched *s = c->s;
	uint32_t            k, i, j, lo, hi, prev = UINT32_MAX;
	int                 rv;

	if ((rv = pairs(c, err, errlen)) != 0)
		return (rv);
	for (i = 0; i < s->nxf; i++)
		c->xcfg[i] = UINT32_MAX;
	for (k = 0; k < s->nph; k++)
		place(c, k);
	for (k = 0; k < s->nph && rv == 0; k++) {
		const struct sched_phase *p = &s->ph[k];

		/* AllReduce's gather starts with the slot's first phase. */
		if (s->ag_from > 0 && k == s->ag_from)
			out->ag_from = out->nph;
		if (p->nxfer == 0) {
			rv = phase(c, k, prev == UINT32_MAX ? 0 : prev, &prev,
			           out);
			continue;
		}
		lo = UINT32_MAX;
		hi = 0;
		for (i = p->xfer_off; i < p->xfer_off + p->nxfer; i++) {
			lo = c->xcfg[i] < lo ? c->xcfg[i] : lo;
			hi = c->xcfg[i] > hi ? c->xcfg[i] : hi;
		}
		for (j = lo; j <= hi && rv == 0; j++)
			rv = phase(c, k, j, &prev, out);
	}
	return (rv);
}

int
tsyn_on_circuits(const struct sched *s, uint32_t ntrx, struct sched *out,
                 char *err, size_t errlen)
{
	const struct topo *t = s->topo;
	struct circ        c = {.s = s, .t = t, .ntrx = ntrx};
	int                rv;

	memset(out, 0, sizeof(*out));
	if (t == NULL || t->ngpu != t->n)
		return (errf(-EINVAL, err, errlen,
		             "%s: only a topology of hosts alone runs on "
		             "circuits",
		             t ? t->name : "schedule"));
	if (ntrx == 0)
		return (errf(-EINVAL, err, errlen,
		             "%s: hosts with no transceiver", t->name));
	if ((rv = sched_init(out, s->algo, s->coll, s->n,
	                     s->ports < ntrx ? s->ports : ntrx, s->parts,
	                     s->bytes)) != 0)
		return (errf(rv, err, errlen, "%s", coll_strerror(rv)));
	out->topo = t;
	out->ngpu = s->ngpu;
	out->slot_s = s->slot_s;
	out->ag_from = s->ag_from;
	out->horizon = s->horizon;
	c.pair = calloc(t->nlink + 1, sizeof(*c.pair));
	c.lit = calloc(t->nlink + 1, sizeof(*c.lit));
	c.seen = calloc(t->nlink + 1, sizeof(*c.seen));
	c.port = calloc(t->nlink + 1, sizeof(*c.port));
	c.deg = calloc(t->n + 1, sizeof(*c.deg));
	c.tmp = calloc(t->n + 1, sizeof(*c.tmp));
	c.xcfg = calloc(s->nxf + 1, sizeof(*c.xcfg));
	rv = c.pair && c.lit && c.seen && c.port && c.deg && c.tmp && c.xcfg
	         ? on_circuits(&c, out, err, errlen)
	         : -ENOMEM;
	free(c.pair);
	free(c.lit);
	free(c.seen);
	free(c.port);
	free(c.deg);
	free(c.tmp);
	free(c.xcfg);
	if (rv < 0) {
		if (rv != -EINVAL)
			errf(rv, err, errlen, "%s", coll_strerror(rv));
		sched_free(out);
		return (rv);
	}
	return (0);
}
