/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cut lower bound of topology collectives.  For a node set S that
 * holds some GPUs but not all, every share of a GPU outside S must enter
 * S at least once for an AllGather (switches inside may copy it from
 * there), and a partial sum of every share owned outside must leave S for
 * a ReduceScatter (S may add its own contributions up first): bytes over
 * the bandwidth of the links crossing the cut.  AllReduce, done as the
 * two in a row, adds them.  Each part is at least the largest
 * propagation delay between two GPUs, whatever the bandwidth.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "collectives/tsyn.h"

/* One cut, S given as a membership array. */
static double
cut(const struct topo *t, const uint8_t *in, int out_of, double share)
{
	double   bw = 0;
	uint32_t u, gin = 0, i;

	for (u = 0; u < t->n; u++)
		gin += in[u] && t->node[u].kind == TOPO_GPU;
	if (gin == 0 || gin == t->ngpu)
		return (0);
	for (i = 0; i < t->nlink; i++) {
		const struct topo_link *l = &t->link[i];

		if (out_of ? (in[l->src] && !in[l->dst])
		           : (!in[l->src] && in[l->dst]))
			bw += l->bw;
	}
	if (bw <= 0)
		return (INFINITY);
	return ((double)(t->ngpu - gin) * share / bw);
}

static double
best(const struct topo *t, int out_of, double share, int *exhaustive)
{
	uint8_t *in = calloc(t->n, 1);
	double   b = 0, c;
	uint32_t u, g, mask;

	if (in == NULL)
		return (-1);
	if (t->n <= 16) {
		*exhaustive = 1;
		for (mask = 1; mask < (1u << t->n) - 1; mask++) {
			for (u = 0; u < t->n; u++)
				in[u] = (mask >> u) & 1;
			if ((c = cut(t, in, out_of, share)) > b)
				b = c;
		}
		free(in);
		return (b);
	}
	*exhaustive = 0;
	/* Every single node, and everything but it. */
	for (u = 0; u < t->n; u++) {
		for (g = 0; g < t->n; g++)
			in[g] = g == u;
		if ((c = cut(t, in, out_of, share)) > b)
			b = c;
		for (g = 0; g < t->n; g++)
			in[g] = g != u;
		if ((c = cut(t, in, out_of, share)) > b)
			b = c;
	}
	/* Every group, and its complement. */
	for (g = 0; g < t->ngroup; g++) {
		for (u = 0; u < t->n; u++)
			in[u] = t->node[u].group == (int32_t)g;
		if ((c = cut(t, in, out_of, share)) > b)
			b = c;
		for (u = 0; u < t->n; u++)
			in[u] = !in[u];
		if ((c = cut(t, in, out_of, share)) > b)
			b = c;
	}
	free(in);
	return (b);
}

/* The largest propagation delay between two GPUs (Bellman-Ford on
 * alpha from each GPU: graphs here are small). */
static double
farthest(const struct topo *t)
{
	double  *d = malloc(t->n * sizeof(*d)), worst = 0;
	uint32_t g, u, i, round;

	if (d == NULL)
		return (-1);
	for (g = 0; g < t->ngpu; g++) {
		for (u = 0; u < t->n; u++)
			d[u] = INFINITY;
		d[t->gpu_node[g]] = 0;
		for (round = 0; round < t->n; round++) {
			int changed = 0;

			for (i = 0; i < t->nlink; i++) {
				const struct topo_link *l = &t->link[i];

				if (d[l->src] + l->alpha < d[l->dst]) {
					d[l->dst] = d[l->src] + l->alpha;
					changed = 1;
				}
			}
			if (!changed)
				break;
		}
		for (u = 0; u < t->ngpu; u++)
			if (d[t->gpu_node[u]] > worst)
				worst = d[t->gpu_node[u]];
	}
	free(d);
	return (worst);
}

double
tsyn_cut_bound(const struct topo *t, enum sched_coll coll, uint64_t bytes,
               int *exhaustive)
{
	double share = (double)bytes / t->ngpu;
	double ag = 0, rs = 0, lat;

	*exhaustive = 0;
	if (coll == SCHED_ALLGATHER || coll == SCHED_ALLREDUCE)
		ag = best(t, 0, share, exhaustive);
	if (coll == SCHED_REDUCESCATTER || coll == SCHED_ALLREDUCE)
		rs = best(t, 1, share, exhaustive);
	if (ag < 0 || rs < 0)
		return (-1);
	/* Bandwidth aside, data must travel: the farthest pair. */
	if ((lat = farthest(t)) < 0)
		return (-1);
	if (ag > 0 && ag < lat)
		ag = lat;
	if (rs > 0 && rs < lat)
		rs = lat;
	return (ag + rs);
}
