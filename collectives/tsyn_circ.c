/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A topology schedule on circuits (tsyn.h): every link and its way back
 * become one bidirectional circuit between the ports they leave by, set
 * before slot 0, so per-node plans and agents can run the schedule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn.h"
#include "collectives/tsyn_int.h"
#include "proto/base/errf.h"

static int
circuits(const struct topo *t, struct sched *out, char *err, size_t errlen)
{
	uint32_t l;
	int      rv;

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
		if (k->src < k->dst &&
		    (rv = sched_add_circuit(
		         out, k->src, tsyn_out_port(t, l), k->dst,
		         tsyn_out_port(t, (uint32_t)r))) != 0)
			return (rv);
	}
	return (0);
}

int
tsyn_on_circuits(const struct sched *s, struct sched *out, char *err,
                 size_t errlen)
{
	const struct topo *t = s->topo;
	uint32_t           k, i;
	int                rv;

	memset(out, 0, sizeof(*out));
	if (t == NULL || t->ngpu != t->n)
		return (errf(-EINVAL, err, errlen,
		             "%s: only a topology of hosts alone runs on "
		             "circuits",
		             t ? t->name : "schedule"));
	if ((rv = sched_init(out, s->algo, s->coll, s->n, s->ports, s->parts,
	                     s->bytes)) != 0)
		return (errf(rv, err, errlen, "%s", coll_strerror(rv)));
	out->topo = t;
	out->ngpu = s->ngpu;
	out->slot_s = s->slot_s;
	out->ag_from = s->ag_from;
	out->horizon = s->horizon;
	for (k = 0; k < s->nph && rv == 0; k++) {
		const struct sched_phase *p = &s->ph[k];

		if ((rv = sched_add_phase(out, k == 0, 0)) < 0)
			break;
		rv = k == 0 ? circuits(t, out, err, errlen) : 0;
		for (i = 0; i < p->nxfer && rv == 0; i++) {
			const struct sched_xfer *x = &s->xf[p->xfer_off + i];

			rv = sched_add_xfer(out, x->src, x->dst,
			                    s->blk + x->blk_off, x->nblk,
			                    s->seg + x->seg_off, x->nseg);
		}
	}
	if (rv < 0) {
		if (rv != -EINVAL)
			errf(rv, err, errlen, "%s", coll_strerror(rv));
		sched_free(out);
		return (rv);
	}
	return (0);
}
