/* SPDX-License-Identifier: BSD-2-Clause */
/* The MSCCL exporters' shared writer (msccl_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl.h"
#include "collectives/msccl_int.h"
#include "proto/base/errf.h"

static const char *const st_name[] = {"s", "r", "rcs", "cpy", "rrc"};

int
msteps_add(struct msteps *v, const struct mstep *m)
{
	if (v->n >= UINT32_MAX - 1)
		return (-COLL_ETOOBIG);
	if (v->n == v->cap) {
		size_t        nc = v->cap ? 2 * v->cap : 1024;
		struct mstep *p = realloc(v->st, nc * sizeof(*p));

		if (p == NULL)
			return (-ENOMEM);
		v->st = p;
		v->cap = nc;
	}
	v->st[v->n] = *m;
	v->st[v->n].orig = (uint32_t)v->n;
	v->n++;
	return (0);
}

void
msteps_free(struct msteps *v)
{
	free(v->st);
	memset(v, 0, sizeof(*v));
}

struct out {
	char  *p;
	size_t len, cap;
	int    oom;
};

__attribute__((__format__(printf, 2, 3))) static void
put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int     n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->oom = 1;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		{
			size_t nc = 2 * o->cap + (size_t)n;
			char  *p = realloc(o->p, nc);

			if (p == NULL) {
				o->oom = 1;
				return;
			}
			o->p = p;
			o->cap = nc;
		}
	}
}

static int
cmp_step(const void *a, const void *b)
{
	const struct mstep *x = a, *y = b;

	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	if (x->grp != y->grp)
		return (x->grp < y->grp ? -1 : 1);
	if (x->k1 != y->k1)
		return (x->k1 < y->k1 ? -1 : 1);
	return (x->k2 < y->k2 ? -1 : x->k2 > y->k2);
}

static int
same_tb(const struct mstep *a, const struct mstep *b)
{
	return (a->node == b->node && a->grp == b->grp);
}

/* One send and one receive peer a thread block. */
static int
two_peers(const struct mstep *m, const struct mstep *first)
{
	return ((m->peer_out != MSTEP_NONE && first->peer_out != MSTEP_NONE &&
	         m->peer_out != first->peer_out) ||
	        (m->peer_in != MSTEP_NONE && first->peer_in != MSTEP_NONE &&
	         m->peer_in != first->peer_in));
}

/* Thread blocks: each (node, grp) run of sorted steps; step indices;
 * MSCCL's limits; dependencies by position. */
static int
assign(struct msteps *v, uint32_t *pos, char *err, size_t errlen)
{
	size_t   i, start = 0;
	uint32_t tb = 0, on_chan = 0;

	for (i = 0; i < v->n; i++)
		pos[v->st[i].orig] = (uint32_t)i;
	for (i = 0; i < v->n; i++) {
		struct mstep *m = &v->st[i];

		if (i == 0 || !same_tb(m, &v->st[i - 1])) {
			int new_node = i == 0 || m->node != v->st[i - 1].node;

			tb = new_node ? 0 : tb + 1;
			on_chan = new_node || m->chan != v->st[i - 1].chan
			              ? 1
			              : on_chan + 1;
			start = i;
		}
		m->tb = tb;
		m->idx = (uint32_t)(i - start);
		if (m->idx >= MSCCL_MAX_STEPS)
			return (errf(-EINVAL, err, errlen,
			             "msccl: rank %u would run more than %d "
			             "steps in one thread block",
			             m->node, MSCCL_MAX_STEPS));
		if (on_chan > MSCCL_MAX_TB_PER_CHANNEL)
			return (
			    errf(-EINVAL, err, errlen,
			         "msccl: rank %u needs more than %d thread "
			         "blocks on channel %u",
			         m->node, MSCCL_MAX_TB_PER_CHANNEL, m->chan));
		if (i > start && two_peers(m, &v->st[start]))
			return (
			    errf(-EINVAL, err, errlen,
			         "msccl: rank %u talks to two peers in one "
			         "thread block on channel %u",
			         m->node, m->chan));
	}
	for (i = 0; i < v->n; i++)
		if (v->st[i].dep >= 0)
			v->st[pos[v->st[i].dep]].hasdep = 1;
	return (0);
}

/* The peers of the thread block whose steps start at index i. */
static void
tb_peers(const struct msteps *v, size_t i, int64_t *send, int64_t *recv)
{
	size_t j;

	*send = *recv = -1;
	for (j = i; j < v->n && same_tb(&v->st[j], &v->st[i]); j++) {
		if (v->st[j].peer_out != MSTEP_NONE)
			*send = v->st[j].peer_out;
		if (v->st[j].peer_in != MSTEP_NONE)
			*recv = v->st[j].peer_in;
	}
}

static void
step_xml(struct out *o, const struct msteps *v, const uint32_t *pos,
         const struct mstep *m)
{
	const struct mstep *d = m->dep >= 0 ? &v->st[pos[m->dep]] : NULL;

	put(o,
	    "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" "
	    "srcoff=\"%u\" dstbuf=\"%c\" dstoff=\"%u\" "
	    "cnt=\"1\" depid=\"%d\" deps=\"%d\" "
	    "hasdep=\"%d\"/>\n",
	    m->idx, st_name[m->type], m->src.buf, m->src.off, m->dst.buf,
	    m->dst.off, d ? (int)d->tb : -1, d ? (int)d->idx : -1, m->hasdep);
}

static void
emit(struct out *o, const struct msteps *v, const uint32_t *pos,
     const struct mhead *h)
{
	uint32_t u;
	size_t   i = 0;

	put(o,
	    "<algo name=\"ocsd-%s\" proto=\"Simple\" nchannels=\"%u\" "
	    "nchunksperloop=\"%u\" ngpus=\"%u\" coll=\"%s\" "
	    "inplace=\"0\" outofplace=\"1\" minBytes=\"%llu\" "
	    "maxBytes=\"%llu\">\n",
	    h->name, h->nchan, h->nchunks, h->ngpus, h->coll,
	    (unsigned long long)h->min, (unsigned long long)h->max);
	for (u = 0; u < h->ngpus; u++) {
		put(o,
		    "  <gpu id=\"%u\" i_chunks=\"%u\" o_chunks=\"%u\" "
		    "s_chunks=\"%u\">\n",
		    u, h->ic, h->oc, h->scratch[u]);
		while (i < v->n && v->st[i].node == u) {
			const struct mstep *m = &v->st[i];
			int64_t             sp, rp;

			if (m->idx == 0) {
				tb_peers(v, i, &sp, &rp);
				put(o,
				    "    <tb id=\"%u\" send=\"%lld\" "
				    "recv=\"%lld\" chan=\"%u\">\n",
				    m->tb, (long long)sp, (long long)rp,
				    m->chan == CHAN_COPY ? 0 : m->chan);
			}
			step_xml(o, v, pos, m);
			i++;
			if (i == v->n || !same_tb(&v->st[i], m))
				put(o, "    </tb>\n");
		}
		put(o, "  </gpu>\n");
	}
	put(o, "</algo>\n");
}

int
msccl_write_xml(struct msteps *v, const struct mhead *h, char **xml,
                size_t *len, char *err, size_t errlen)
{
	struct out o = {.cap = 65536};
	uint32_t  *pos;
	int        rv;

	*xml = NULL;
	*len = 0;
	if ((pos = malloc((v->n + 1) * sizeof(*pos))) == NULL ||
	    (o.p = malloc(o.cap)) == NULL) {
		free(pos);
		return (errf(-ENOMEM, err, errlen, "msccl: out of memory"));
	}
	qsort(v->st, v->n, sizeof(*v->st), cmp_step);
	if ((rv = assign(v, pos, err, errlen)) == 0) {
		emit(&o, v, pos, h);
		if (o.oom)
			rv =
			    errf(-ENOMEM, err, errlen, "msccl: out of memory");
	}
	free(pos);
	if (rv != 0) {
		free(o.p);
		return (rv);
	}
	*xml = o.p;
	*len = o.len;
	return (0);
}
