/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run on a fabric: every patch is on one switch, and a transceiver's
 * TX and RX are cabled to the same switch, so a schedule's duplex
 * circuit between a node's transceiver on one plane and its peer's on
 * another (ReTri's rings join port 0 of a node to port 1 of the next)
 * cannot be made as it is.  It is made as two one-way patches, each on
 * its sender's switch: what a sends on port pa arrives at the peer's
 * transceiver on pa's switch, whichever the schedule named (a ring on
 * two planes becomes one direction on each plane).  The receive ports of
 * each node's plan follow, so that the agents listen where the light
 * comes in.  On one switch nothing moves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/plan.h"
#include "ocsd/run_int.h"

#define RX_NONE 0xff

static uint8_t *
rx_at(const struct run *r, uint32_t cfg, uint32_t node, uint32_t port)
{
	return (&r->rxmap[((size_t)cfg * r->s.n + node) * r->s.ports + port]);
}

/* The port of node b, on switch sw, free to receive in cfg (taken now);
 * pb itself when it is on sw.  RX_NONE when there is none. */
static uint32_t
rx_take(struct run *r, uint8_t *used, uint32_t b, uint32_t pb, uint32_t sw)
{
	const struct agent *x = r->node[b];
	uint32_t            q;

	if (x->sw[pb] == sw && !used[b * r->s.ports + pb]) {
		used[b * r->s.ports + pb] = 1;
		return (pb);
	}
	/* Transceivers only: a server's local links are on no switch. */
	for (q = 0; q < r->s.ports && q < x->ntrx; q++)
		if (x->sw[q] == sw && !used[b * r->s.ports + q]) {
			used[b * r->s.ports + q] = 1;
			return (q);
		}
	return (RX_NONE);
}

/* One direction of a circuit: a's port pa sends to b, which the schedule
 * has receive on pb.  0, or -OCSD_EREQUEST naming it. */
static int
direct(const struct ocsd *d, struct run *r, uint8_t *used, uint32_t c,
       int pass, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb, char *err,
       size_t len)
{
	uint32_t sw = r->node[a]->sw[pa], q;

	/* First every receiver already on its sender's switch, then the
	 * others into what is left. */
	if ((pass == 0) != (r->node[b]->sw[pb] == sw))
		return (0);
	if ((q = rx_take(r, used, b, pb, sw)) != RX_NONE) {
		*rx_at(r, c, b, pb) = (uint8_t)q;
		return (0);
	}
	snprintf(err, len,
	         "configuration %u: %s.%u sends to %s, which has no free "
	         "transceiver on switch %s to receive it (each plane needs "
	         "a transceiver of every node)",
	         c, r->node[a]->host, pa, r->node[b]->host,
	         conf_switch_label(d->conf, sw));
	return (-OCSD_EREQUEST);
}

int
run_fab_bind(const struct ocsd *d, struct run *r, char *err, size_t len)
{
	uint8_t *used;
	uint32_t c, i, pass;
	int      rv = 0;

	free(r->rxmap);
	r->rxmap = NULL;
	if (d->nsw < 2 || r->s.ncfg == 0)
		return (0);
	r->rxmap = malloc((size_t)r->s.ncfg * r->s.n * r->s.ports);
	used = malloc((size_t)r->s.n * r->s.ports);
	if (r->rxmap == NULL || used == NULL) {
		free(used);
		snprintf(err, len, "out of memory");
		return (-ENOMEM);
	}
	memset(r->rxmap, RX_NONE, (size_t)r->s.ncfg * r->s.n * r->s.ports);
	for (c = 0; c < r->s.ncfg && rv == 0; c++) {
		const struct sched_cfg *cf = &r->s.cfg[c];

		memset(used, 0, (size_t)r->s.n * r->s.ports);
		for (pass = 0; pass < 2 && rv == 0; pass++)
			for (i = 0; i < cf->ncirc && rv == 0; i++) {
				const struct sched_circuit *e =
				    &r->s.circ[cf->circ_off + i];

				rv = direct(d, r, used, c, (int)pass, e->a,
				            e->pa, e->b, e->pb, err, len);
				if (rv == 0 && !e->oneway)
					rv = direct(d, r, used, c, (int)pass,
					            e->b, e->pb, e->a, e->pa,
					            err, len);
			}
	}
	free(used);
	return (rv);
}

uint32_t
run_fab_rx(const struct run *r, uint32_t cfg, uint32_t node, uint32_t port)
{
	uint8_t q;

	if (r->rxmap == NULL || port >= r->s.ports)
		return (port);
	q = *rx_at(r, cfg, node, port);
	return (q == RX_NONE ? port : q);
}

void
run_fab_plan(const struct run *r, struct plan *p)
{
	uint32_t k, i;
	int32_t  cfg = -1;

	if (r->rxmap == NULL)
		return;
	for (k = 0; k < p->nph && k < r->s.nph; k++) {
		struct plan_phase *ph = &p->ph[k];

		if (r->s.ph[k].cfg >= 0)
			cfg = r->s.ph[k].cfg;
		if (cfg < 0)
			continue;
		for (i = 0; i < ph->nrecv; i++)
			ph->recv[i].port = run_fab_rx(
			    r, (uint32_t)cfg, p->node, ph->recv[i].port);
		for (i = 0; i < ph->nrelay; i++)
			ph->relay[i].in_port = run_fab_rx(
			    r, (uint32_t)cfg, p->node, ph->relay[i].in_port);
	}
}
