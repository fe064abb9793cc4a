/* SPDX-License-Identifier: BSD-2-Clause */
/* MSCCL XML export of an All-to-All schedule (see msccl.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/msccl.h"
#include "proto/base/errf.h"

enum { ST_S, ST_R, ST_RCS, ST_CPY };
static const char *const st_name[] = {"s", "r", "rcs", "cpy"};

/* A buffer location: 'i', 'o' or 's' and a chunk index. */
struct loc {
	char     buf;
	uint32_t off;
};

struct mstep {
	uint32_t   node, chan;
	uint8_t    type, hasdep;
	uint32_t   peer_out, peer_in; /* NONE where the step has none */
	struct loc src, dst;
	uint64_t   k1, k2;  /* order in the thread block */
	int64_t    dep;     /* index in steps[] of the step it waits for */
	uint32_t   orig;    /* index before sorting */
	uint32_t   tb, idx; /* after sorting */
};

#define CHAN_COPY UINT32_MAX /* the local copies' thread block */

#define NONE UINT32_MAX

struct ex {
	const struct sched *s;
	struct mstep       *st;
	size_t              nst, cap;
	uint32_t           *scratch; /* [n]: scratch chunks used */
	int64_t            *at_step; /* [nblocks]: the r that brought it */
	struct loc         *at;      /* [nblocks]: where it is held */
	char               *out;
	size_t              len, ocap;
	int                 oom;
};

static int
add(struct ex *e, const struct mstep *m)
{
	if (e->nst >= UINT32_MAX - 1)
		return (-COLL_ETOOBIG);
	if (e->nst == e->cap) {
		size_t        nc = e->cap ? 2 * e->cap : 1024;
		struct mstep *p = realloc(e->st, nc * sizeof(*p));

		if (p == NULL)
			return (-ENOMEM);
		e->st = p;
		e->cap = nc;
	}
	e->st[e->nst] = *m;
	e->st[e->nst].orig = (uint32_t)e->nst;
	e->nst++;
	return (0);
}

/* Where block b ends at node u: its output chunk, or a scratch chunk. */
static struct loc
land(struct ex *e, uint32_t u, uint32_t b)
{
	const struct sched *s = e->s;

	if (sched_blk_dst(s, b) == u)
		return ((struct loc){'o', sched_blk_src(s, b) * s->parts +
		                              sched_blk_part(s, b)});
	return ((struct loc){'s', e->scratch[u]++});
}

/* Every hop of every block of transfer x (phase k) as steps: a send at
 * the source, a receive-copy-send at each relay, a receive at the end. */
static int
transfer(struct ex *e, uint32_t k, const struct sched_xfer *x,
         const uint32_t *peer)
{
	const struct sched *s = e->s;
	uint32_t            nodes[MSCCL_MAX_HOPS + 1], ports[MSCCL_MAX_HOPS];
	struct loc          loc[MSCCL_MAX_HOPS + 1];
	uint32_t            h, H = 0, j;
	struct sched_walk   w;
	int64_t             tx;
	int                 rv;

	sched_walk_init(&w, s, peer, x);
	nodes[0] = x->src;
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE) {
		if (H == MSCCL_MAX_HOPS)
			return (-COLL_ETOOBIG);
		ports[H] = (uint32_t)tx % s->ports;
		nodes[++H] = w.node;
	}
	if (tx < 0)
		return ((int)tx);
	for (j = 0; j < x->nblk; j++) {
		uint32_t b = s->blk[x->blk_off + j];

		loc[0] = e->at[b];
		for (h = 1; h <= H; h++)
			loc[h] = land(e, nodes[h], b);
		for (h = 0; h <= H; h++) {
			struct mstep m = {
			    .node = nodes[h],
			    .chan = k * s->ports + ports[h < H ? h : H - 1],
			    .type = h == 0   ? ST_S
			            : h == H ? ST_R
			                     : ST_RCS,
			    .peer_out = h < H ? nodes[h + 1] : NONE,
			    .peer_in = h > 0 ? nodes[h - 1] : NONE,
			    .src = h == H ? loc[h - 1] : loc[h],
			    .dst = h == 0 ? loc[1] : loc[h],
			    .k1 = (uint64_t)h << 32 | x->src,
			    .k2 = b,
			    .dep = h == 0 ? e->at_step[b] : -1};

			if ((rv = add(e, &m)) != 0)
				return (rv);
		}
		e->at[b] = loc[H];
		e->at_step[b] = (int64_t)e->nst - 1;
	}
	return (0);
}

static int
cmp_step(const void *a, const void *b)
{
	const struct mstep *x = a, *y = b;

	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	if (x->chan != y->chan)
		return (x->chan < y->chan ? -1 : 1);
	if (x->k1 != y->k1)
		return (x->k1 < y->k1 ? -1 : 1);
	return (x->k2 < y->k2 ? -1 : x->k2 > y->k2);
}

__attribute__((__format__(printf, 2, 3))) static void
put(struct ex *e, const char *fmt, ...)
{
	va_list ap;
	int     n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(e->out + e->len, e->ocap - e->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			e->oom = 1;
			return;
		}
		if ((size_t)n < e->ocap - e->len) {
			e->len += (size_t)n;
			return;
		}
		{
			size_t nc = 2 * e->ocap + (size_t)n;
			char  *p = realloc(e->out, nc);

			if (p == NULL) {
				e->oom = 1;
				return;
			}
			e->out = p;
			e->ocap = nc;
		}
	}
}

/* Thread blocks: each (node, channel) run of sorted steps; their one
 * send and one receive peer; step indices; dependencies by position. */
static int
assign(struct ex *e, uint32_t *pos, char *err, size_t errlen)
{
	size_t   i, start = 0;
	uint32_t tb = 0;

	for (i = 0; i < e->nst; i++)
		pos[e->st[i].orig] = (uint32_t)i;
	for (i = 0; i < e->nst; i++) {
		struct mstep *m = &e->st[i];

		if (i > 0 && m->node != e->st[i - 1].node)
			tb = 0;
		else if (i > 0 && m->chan != e->st[i - 1].chan)
			tb++;
		if (i == 0 || m->node != e->st[i - 1].node ||
		    m->chan != e->st[i - 1].chan)
			start = i;
		m->tb = tb;
		m->idx = (uint32_t)(i - start);
		if (m->idx >= MSCCL_MAX_STEPS)
			return (errf(-EINVAL, err, errlen,
			             "msccl: rank %u would run more than %d "
			             "steps in one thread block",
			             m->node, MSCCL_MAX_STEPS));
		/* One send and one receive peer a thread block. */
		if (i > start &&
		    ((m->peer_out != NONE && e->st[start].peer_out != NONE &&
		      m->peer_out != e->st[start].peer_out) ||
		     (m->peer_in != NONE && e->st[start].peer_in != NONE &&
		      m->peer_in != e->st[start].peer_in)))
			return (errf(-EINVAL, err, errlen,
			             "msccl: rank %u talks to two peers on "
			             "channel %u",
			             m->node, m->chan));
	}
	for (i = 0; i < e->nst; i++)
		if (e->st[i].dep >= 0)
			e->st[pos[e->st[i].dep]].hasdep = 1;
	return (0);
}

/* The peers of the thread block whose steps start at index i. */
static void
tb_peers(const struct ex *e, size_t i, int64_t *send, int64_t *recv)
{
	size_t j;

	*send = *recv = -1;
	for (j = i; j < e->nst && e->st[j].node == e->st[i].node &&
	            e->st[j].chan == e->st[i].chan;
	     j++) {
		if (e->st[j].peer_out != NONE)
			*send = e->st[j].peer_out;
		if (e->st[j].peer_in != NONE)
			*recv = e->st[j].peer_in;
	}
}

static void
emit(struct ex *e, const uint32_t *pos, uint64_t bytes)
{
	const struct sched *s = e->s;
	uint32_t            n = s->n, nc = n * s->parts, u;
	size_t              i = 0;

	put(e,
	    "<algo name=\"ocsd-%s\" proto=\"Simple\" nchannels=\"%u\" "
	    "nchunksperloop=\"%u\" ngpus=\"%u\" coll=\"alltoall\" "
	    "inplace=\"0\" outofplace=\"1\" minBytes=\"%llu\" "
	    "maxBytes=\"%llu\">\n",
	    s->algo, s->nph * s->ports, nc, n, (unsigned long long)(bytes / 2),
	    (unsigned long long)(2 * bytes));
	for (u = 0; u < n; u++) {
		put(e,
		    "  <gpu id=\"%u\" i_chunks=\"%u\" o_chunks=\"%u\" "
		    "s_chunks=\"%u\">\n",
		    u, nc, nc, e->scratch[u]);
		while (i < e->nst && e->st[i].node == u) {
			const struct mstep *m = &e->st[i];
			int64_t             sp, rp;

			if (m->idx == 0) {
				tb_peers(e, i, &sp, &rp);
				put(e,
				    "    <tb id=\"%u\" send=\"%lld\" "
				    "recv=\"%lld\" chan=\"%u\">\n",
				    m->tb, (long long)sp, (long long)rp,
				    m->chan == CHAN_COPY ? 0 : m->chan);
			}
			put(e,
			    "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" "
			    "srcoff=\"%u\" dstbuf=\"%c\" dstoff=\"%u\" "
			    "cnt=\"1\" depid=\"%d\" deps=\"%d\" "
			    "hasdep=\"%d\"/>\n",
			    m->idx, st_name[m->type], m->src.buf, m->src.off,
			    m->dst.buf, m->dst.off,
			    m->dep >= 0 ? (int)e->st[pos[m->dep]].tb : -1,
			    m->dep >= 0 ? (int)e->st[pos[m->dep]].idx : -1,
			    m->hasdep);
			i++;
			if (i == e->nst || e->st[i].node != u ||
			    e->st[i].chan != m->chan)
				put(e, "    </tb>\n");
		}
		put(e, "  </gpu>\n");
	}
	put(e, "</algo>\n");
}

/* The blocks a rank keeps (B[u,u]): input to output, one copy each. */
static int
copies(struct ex *e)
{
	const struct sched *s = e->s;
	uint32_t            u, p;
	int                 rv;

	for (u = 0; u < s->n; u++)
		for (p = 0; p < s->parts; p++) {
			struct mstep m = {.node = u,
			                  .chan = CHAN_COPY,
			                  .type = ST_CPY,
			                  .peer_out = NONE,
			                  .peer_in = NONE,
			                  .src = {'i', u * s->parts + p},
			                  .dst = {'o', u * s->parts + p},
			                  .k2 = p,
			                  .dep = -1};

			if ((rv = add(e, &m)) != 0)
				return (rv);
		}
	return (0);
}

static int
walk_phases(struct ex *e)
{
	const struct sched *s = e->s;
	uint32_t           *peer, k, i, bad;
	int                 rv = 0;

	if ((peer = malloc((size_t)s->n * s->ports * sizeof(*peer))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < s->nph && rv == 0; k++) {
		if (s->ph[k].cfg >= 0 &&
		    (rv = sched_peers(s, &s->cfg[s->ph[k].cfg], peer, &bad)) !=
		        0)
			break;
		for (i = 0; i < s->ph[k].nxfer && rv == 0; i++)
			rv = transfer(e, k, &s->xf[s->ph[k].xfer_off + i],
			              peer);
	}
	free(peer);
	return (rv);
}

int
msccl_export(const struct sched *s, uint64_t bytes, char **xml, size_t *len,
             char *err, size_t errlen)
{
	struct ex e = {.s = s};
	uint32_t *pos = NULL, nb, b;
	int       rv = -ENOMEM;

	*xml = NULL;
	*len = 0;
	if (s->coll != SCHED_ALLTOALL || s->nph == 0 || s->ph[0].cfg < 0)
		return (errf(-EINVAL, err, errlen,
		             "msccl: only uniform All-to-All schedules (not "
		             "%s)",
		             s->algo));
	if ((uint64_t)s->nph * s->ports > MSCCL_MAX_CHANNELS)
		return (
		    errf(-EINVAL, err, errlen,
		         "msccl: %u phases x %u transceivers need more than "
		         "%d channels",
		         s->nph, s->ports, MSCCL_MAX_CHANNELS));
	nb = sched_nblocks(s);
	e.scratch = calloc(s->n, sizeof(*e.scratch));
	e.at = malloc(((size_t)nb + 1) * sizeof(*e.at));
	e.at_step = malloc(((size_t)nb + 1) * sizeof(*e.at_step));
	if (!e.scratch || !e.at || !e.at_step)
		goto out;
	for (b = 0; b < nb; b++) {
		e.at[b] = (struct loc){'i', sched_blk_dst(s, b) * s->parts +
		                                sched_blk_part(s, b)};
		e.at_step[b] = -1;
	}
	if ((rv = walk_phases(&e)) != 0 || (rv = copies(&e)) != 0)
		goto out;
	e.ocap = 65536;
	if ((pos = malloc((e.nst + 1) * sizeof(*pos))) == NULL ||
	    (e.out = malloc(e.ocap)) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	qsort(e.st, e.nst, sizeof(*e.st), cmp_step);
	if ((rv = assign(&e, pos, err, errlen)) != 0)
		goto out;
	emit(&e, pos, bytes);
	if (e.oom) {
		rv = -ENOMEM;
		goto out;
	}
	*xml = e.out;
	*len = e.len;
	e.out = NULL;
	rv = 0;
out:
	if (rv != 0 && rv != -EINVAL)
		errf(rv, err, errlen, "msccl: %s", coll_strerror(rv));
	free(e.out);
	free(e.st);
	free(e.scratch);
	free(e.at);
	free(e.at_step);
	free(pos);
	return (rv);
}
