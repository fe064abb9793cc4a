/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MSCCL writer's guard (msccl_int.h): a layout played as the
 * runtime's kernel runs it, with the runtime's finite buffer slots a
 * connection, before it is written.  Only progress is checked here (the
 * unit test's interpreter, written from the format, checks the data).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/msccl_int.h"
#include "proto/base/errf.h"

/* One end of a connection: a thread block that sends (dir 0) to `to`
 * or receives (dir 1) from `from` on a channel. */
struct cend {
	uint32_t chan, from, to, dir;
	size_t   tb;
};

static int
cmp_end(const void *a, const void *b)
{
	const struct cend *x = a, *y = b;

	if (x->chan != y->chan)
		return (x->chan < y->chan ? -1 : 1);
	if (x->from != y->from)
		return (x->from < y->from ? -1 : 1);
	if (x->to != y->to)
		return (x->to < y->to ? -1 : 1);
	return (x->dir < y->dir ? -1 : x->dir > y->dir);
}

struct play {
	const struct mlay *l;
	const struct mtb  *tbs;
	size_t             ntb;
	size_t            *tb_of;      /* [l->v.n]: a step's block */
	size_t            *in, *out;   /* [ntb]: connection, or SIZE_MAX */
	uint64_t          *sent, *got; /* [connections] */
	uint32_t          *pc;         /* [ntb] */
};

/* Pair every thread block's send end with the receive end of the same
 * (channel, sender, receiver): exactly one of each. */
static int
connect(struct play *p, char *err, size_t errlen)
{
	struct cend *e;
	size_t       k, ne = 0, nc = 0;
	int          rv = 0;

	if ((e = calloc(2 * p->ntb + 1, sizeof(*e))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < p->ntb; k++) {
		const struct mtb *t = &p->tbs[k];

		p->in[k] = p->out[k] = SIZE_MAX;
		if (t->send >= 0)
			e[ne++] = (struct cend){t->chan, t->node,
			                        (uint32_t)t->send, 0, k};
		if (t->recv >= 0)
			e[ne++] = (struct cend){t->chan, (uint32_t)t->recv,
			                        t->node, 1, k};
	}
	qsort(e, ne, sizeof(*e), cmp_end);
	for (k = 0; k < ne && rv == 0; k += 2, nc++)
		if (k + 1 == ne || e[k].dir != 0 || e[k + 1].dir != 1 ||
		    cmp_end(
		        &(struct cend){e[k].chan, e[k].from, e[k].to, 1, 0},
		        &e[k + 1]) != 0)
			rv = errf(-EINVAL, err, errlen,
			          "msccl: channel %u, %u -> %u: not one "
			          "thread block at each end",
			          e[k].chan, e[k].from, e[k].to);
		else {
			p->out[e[k].tb] = nc;
			p->in[e[k + 1].tb] = nc;
		}
	free(e);
	return (rv);
}

/* Can the next step of thread block k run?  Runs it if so.  (A step
 * of several chunks is one operation on its connection: the runtime
 * splits it alike at both ends, and its parts follow one another.) */
static int
next(struct play *p, size_t k, uint32_t slots)
{
	const struct mtb   *t = &p->tbs[k];
	size_t              i = t->first + p->pc[k], j;
	const struct mstep *m = &p->l->v.st[i];

	for (j = p->l->dfirst[i]; j < p->l->dfirst[i + 1]; j++) {
		size_t d = p->l->dl[j], dt = p->tb_of[d];

		if (p->pc[dt] <= d - p->tbs[dt].first)
			return (0);
	}
	if (m->type == ST_S) {
		size_t c = p->out[k];

		if (p->sent[c] - p->got[c] >= slots)
			return (0);
		p->sent[c]++;
	} else if (m->type != ST_CPY) {
		size_t c = p->in[k];

		if (p->sent[c] == p->got[c])
			return (0);
		p->got[c]++;
	}
	p->pc[k]++;
	return (1);
}

static int
run(struct play *p, uint32_t slots, char *err, size_t errlen)
{
	size_t k, i;
	int    moved = 1;

	for (k = 0; k < p->ntb; k++)
		for (i = 0; i < p->tbs[k].n; i++)
			p->tb_of[p->tbs[k].first + i] = k;
	while (moved) {
		moved = 0;
		for (k = 0; k < p->ntb; k++)
			while (p->pc[k] < p->tbs[k].n && next(p, k, slots))
				moved = 1;
	}
	for (k = 0; k < p->ntb; k++)
		if (p->pc[k] < p->tbs[k].n)
			return (errf(
			    -EDEADLK, err, errlen,
			    "msccl: rank %u thread block %u would wait "
			    "forever at step %u (%u slots a connection)",
			    p->tbs[k].node, p->l->v.st[p->tbs[k].first].tb,
			    p->l->v.st[p->tbs[k].first + p->pc[k]].idx,
			    slots));
	return (0);
}

int
msccl_play(const struct mlay *l, uint32_t slots, char *err, size_t errlen)
{
	struct play p = {l,    l->tbs, l->ntb, NULL, NULL,
	                 NULL, NULL,   NULL,   NULL};
	size_t      ntb = l->ntb;
	int         rv = -ENOMEM;

	p.tb_of = malloc((l->v.n + 1) * sizeof(*p.tb_of));
	p.in = malloc((ntb + 1) * sizeof(*p.in));
	p.out = malloc((ntb + 1) * sizeof(*p.out));
	p.sent = calloc(ntb + 1, sizeof(*p.sent));
	p.got = calloc(ntb + 1, sizeof(*p.got));
	p.pc = calloc(ntb + 1, sizeof(*p.pc));
	if (p.tb_of && p.in && p.out && p.sent && p.got && p.pc &&
	    (rv = connect(&p, err, errlen)) == 0)
		rv = run(&p, slots, err, errlen);
	free(p.tb_of);
	free(p.in);
	free(p.out);
	free(p.sent);
	free(p.got);
	free(p.pc);
	return (rv);
}
