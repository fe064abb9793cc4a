/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the synthesis algorithms share (tsyn_int.h): plans as lists of
 * sends, the slot clock, reachability, and the slot model of a topology.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/tsyn_int.h"

int
tsyn_plan_add(struct tsyn_plan *p, uint32_t slot, uint32_t link,
              uint32_t chunk)
{
	if (p->n == p->cap) {
		size_t            nc = p->cap ? 2 * p->cap : 256;
		struct tsyn_send *nv = realloc(p->v, nc * sizeof(*nv));

		if (nv == NULL)
			return (-ENOMEM);
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n++] = (struct tsyn_send){slot, link, chunk};
	return (0);
}

int
tsyn_advance(uint32_t *now, uint32_t next, char *err, size_t errlen)
{
	*now = next == UINT32_MAX || next <= *now ? *now + 1 : next;
	if (*now > TSYN_MAX_SLOTS) {
		snprintf(err, errlen, "more than %u slots", TSYN_MAX_SLOTS);
		return (-COLL_ETOOBIG);
	}
	return (0);
}

void
tsyn_plan_free(struct tsyn_plan *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int
tsyn_reachable(const struct topo *t, char *err, size_t errlen)
{
	uint32_t *q = malloc(t->n * sizeof(*q));
	uint8_t  *seen = malloc(t->n);
	uint32_t  g, h, head, tail, u, e;

	if (q == NULL || seen == NULL) {
		free(q);
		free(seen);
		return (-ENOMEM);
	}
	for (g = 0; g < t->ngpu; g++) {
		memset(seen, 0, t->n);
		head = tail = 0;
		q[tail++] = t->gpu_node[g];
		seen[t->gpu_node[g]] = 1;
		while (head < tail) {
			u = q[head++];
			for (e = t->out_off[u]; e < t->out_off[u + 1]; e++) {
				uint32_t v = t->link[t->out[e]].dst;

				if (!seen[v]) {
					seen[v] = 1;
					q[tail++] = v;
				}
			}
		}
		for (h = 0; h < t->ngpu; h++)
			if (!seen[t->gpu_node[h]]) {
				snprintf(err, errlen,
				         "%s cannot receive from %s: no path",
				         t->node[t->gpu_node[h]].name,
				         t->node[t->gpu_node[g]].name);
				free(q);
				free(seen);
				return (-COLL_EUNREACH);
			}
	}
	free(q);
	free(seen);
	return (0);
}

int
tsyn_model_init(struct tsyn_model *m, const struct topo *t, uint64_t bytes,
                uint32_t chunks)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	if (chunks < 1 || bytes == 0 || (uint64_t)t->ngpu * chunks > 1u << 20)
		return (-EINVAL);
	m->t = t;
	m->chunks = chunks;
	m->nchunk = t->ngpu * chunks;
	m->mu = (double)bytes / m->nchunk;
	m->tau = m->mu / t->bw_max;
	m->occ = calloc(t->nlink, sizeof(*m->occ));
	m->lat = calloc(t->nlink, sizeof(*m->lat));
	if (m->occ == NULL || m->lat == NULL) {
		tsyn_model_free(m);
		return (-ENOMEM);
	}
	for (i = 0; i < t->nlink; i++) {
		double a = t->link[i].alpha / m->tau;
		double o = ceil(t->bw_max / t->link[i].bw - 1e-9);

		if (a < TSYN_ALPHA_THRESHOLD)
			a = 0;
		if (o > 1e6 || a > 1e7) {
			tsyn_model_free(m);
			return (-COLL_ETOOBIG);
		}
		m->occ[i] = (uint32_t)o;
		m->lat[i] = (uint32_t)o + (uint32_t)ceil(a - 1e-9);
	}
	return (0);
}

void
tsyn_model_free(struct tsyn_model *m)
{
	free(m->occ);
	free(m->lat);
	memset(m, 0, sizeof(*m));
}

static int
cmp_send(const void *a, const void *b)
{
	const struct tsyn_send *x = a, *y = b;

	if (x->slot != y->slot)
		return (x->slot < y->slot ? -1 : 1);
	if (x->link != y->link)
		return (x->link < y->link ? -1 : 1);
	return (x->chunk < y->chunk ? -1 : x->chunk > y->chunk);
}

void
tsyn_plan_sort(struct tsyn_plan *p)
{
	qsort(p->v, p->n, sizeof(*p->v), cmp_send);
}
