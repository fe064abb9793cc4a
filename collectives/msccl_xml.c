/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The MSCCL exporters' shared writer (msccl_int.h): the steps laid out
 * (msccl_layout.c), played (msccl_play.c) and printed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl.h"
#include "collectives/msccl_int.h"
#include "proto/base/errf.h"

static const char *const st_name[] = {"s", "r", "cpy", "rrc"};

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

static void
dep_attrs(const struct mlay *l, size_t t, int *depid, int *deps)
{
	*depid = (int)l->v.st[t].tb;
	*deps = (int)l->v.st[t].idx;
}

/* Step i, after a nop for each dependency but its last (the runtime
 * gathers a nop's dependency into the step that follows it). */
static void
step_xml(struct out *o, const struct mlay *l, size_t i)
{
	const struct mstep *m = &l->v.st[i];
	size_t              k = l->dfirst[i], e = l->dfirst[i + 1];
	uint32_t            s = m->idx - l->nop[i];
	int                 depid = -1, deps = -1;

	for (; k + 1 < e; k++) {
		dep_attrs(l, l->dl[k], &depid, &deps);
		put(o,
		    "      <step s=\"%u\" type=\"nop\" srcbuf=\"i\" "
		    "srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" "
		    "depid=\"%d\" deps=\"%d\" hasdep=\"0\"/>\n",
		    s++, depid, deps);
	}
	if (k < e)
		dep_attrs(l, l->dl[k], &depid, &deps);
	else
		depid = deps = -1;
	put(o,
	    "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" "
	    "srcoff=\"%u\" dstbuf=\"%c\" dstoff=\"%u\" "
	    "cnt=\"%u\" depid=\"%d\" deps=\"%d\" "
	    "hasdep=\"%d\"/>\n",
	    m->idx, st_name[m->type], m->src.buf, m->src.off, m->dst.buf,
	    m->dst.off, m->cnt, depid, deps, m->hasdep);
}

static void
emit(struct out *o, const struct mlay *l, const struct mhead *h)
{
	uint32_t u;
	size_t   k = 0, i;

	put(o,
	    "<algo name=\"ocsd-%s\" proto=\"Simple\" nchannels=\"%u\" "
	    "nchunksperloop=\"%u\" ngpus=\"%u\" coll=\"%s\" "
	    "inplace=\"0\" outofplace=\"1\" minBytes=\"%llu\" "
	    "maxBytes=\"%llu\">\n",
	    h->name, l->nchan, h->nchunks, h->ngpus, h->coll,
	    (unsigned long long)h->min, (unsigned long long)h->max);
	for (u = 0; u < h->ngpus; u++) {
		put(o,
		    "  <gpu id=\"%u\" i_chunks=\"%u\" o_chunks=\"%u\" "
		    "s_chunks=\"%u\">\n",
		    u, h->ic, h->oc, h->scratch[u]);
		for (; k < l->ntb && l->tbs[k].node == u; k++) {
			const struct mtb *t = &l->tbs[k];

			put(o,
			    "    <tb id=\"%u\" send=\"%lld\" recv=\"%lld\" "
			    "chan=\"%u\">\n",
			    l->v.st[t->first].tb, (long long)t->send,
			    (long long)t->recv, t->chan);
			for (i = t->first; i < t->first + t->n; i++)
				step_xml(o, l, i);
			put(o, "    </tb>\n");
		}
		put(o, "  </gpu>\n");
	}
	put(o, "</algo>\n");
}

/* A thread block a connection end, or where a rank would need more
 * thread blocks than the runtime has, one for both ends with a peer;
 * played before it is printed. */
static int
write_xml(const struct msteps *v, const struct mhead *h,
          const struct msccl_limits *lim, struct out *o, char *err,
          size_t errlen)
{
	struct mlay l;
	int         rv;

	rv = msccl_layout(v, h->ngpus, lim, 0, &l, err, errlen);
	if (rv == -E2BIG) {
		mlay_free(&l);
		rv = msccl_layout(v, h->ngpus, lim, 1, &l, err, errlen);
	}
	if (rv == 0 && (rv = msccl_play(&l, lim->slots, err, errlen)) == 0)
		emit(o, &l, h);
	mlay_free(&l);
	return (rv == -E2BIG ? -EINVAL : rv);
}

int
msccl_write_xml(const struct msteps *v, const struct mhead *h,
                const struct msccl_limits *lim, char **xml, size_t *len,
                char *err, size_t errlen)
{
	struct out o = {.cap = 65536};
	int        rv;

	*xml = NULL;
	*len = 0;
	if ((o.p = malloc(o.cap)) == NULL)
		return (errf(-ENOMEM, err, errlen, "msccl: out of memory"));
	rv = write_xml(v, h, lim, &o, err, errlen);
	if (rv == 0 && o.oom)
		rv = errf(-ENOMEM, err, errlen, "msccl: out of memory");
	if (rv != 0) {
		free(o.p);
		return (rv);
	}
	*xml = o.p;
	*len = o.len;
	return (0);
}
