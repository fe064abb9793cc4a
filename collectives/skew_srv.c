/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FAST's server level executed: a server-level plan (skew_servers, then
 * a planner) as a GPU-level schedule whose scale-up moves run over the
 * servers' local links (sched.local_from) and whose stages run on
 * circuits, GPU k of a server to GPU k of its stage's peer server.
 *
 * Phase 0 balances: GPU k of server a keeps up to `share` (the server
 * matrix's entry, each pair's bytes / g rounded up) of what it sends to
 * server b for its own NIC, and hands the rest to GPUs of a with room;
 * the traffic that stays in a server goes straight to its GPU.  Phase
 * s + 1 is stage s on circuits, and the redistribution (receiver GPU k'
 * to the block's own GPU) of what stage s - 1 brought, over the local
 * links meanwhile; phase K + 1 redistributes the last stage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/skew.h"

/* One piece of a pair's traffic on its way: bytes [off, off + len) of
 * src -> dst, sent by plane (GPU position) `plane` in stage `st`. */
struct piece {
	uint32_t src, dst, plane, st;
	uint64_t off, len;
};

/* One hop of one block in one phase. */
struct move {
	uint32_t ph, from, to, port, blk;
};

struct build {
	const struct skew_plan *pl;
	const struct tmat      *m;
	uint32_t                g, ns;
	uint64_t               *cur; /* n * n: each pair's bytes cut so far */
	struct piece           *pc;
	size_t                  npc, cap;
	struct move            *mv;
	size_t                  nmv, capmv;
};

static int
add_piece(struct build *b, uint32_t src, uint32_t dst, uint32_t plane,
          uint32_t st, uint64_t len)
{
	size_t at = (size_t)src * b->m->n + dst;

	if (len == 0)
		return (0);
	if (b->npc == b->cap) {
		size_t        nc = b->cap ? 2 * b->cap : 256;
		struct piece *p = realloc(b->pc, nc * sizeof(*p));

		if (p == NULL)
			return (-ENOMEM);
		b->pc = p;
		b->cap = nc;
	}
	b->pc[b->npc++] = (struct piece){src, dst, plane, st, b->cur[at], len};
	b->cur[at] += len;
	return (0);
}

/* Take up to want bytes of what GPU src (position k of server a) sends
 * to server bs, in destination order, as pieces of plane `plane`
 * (stage unset: SKEW_IDLE).  The bytes taken. */
static int
take(struct build *b, uint32_t src, uint32_t bs, uint32_t plane, uint64_t want,
     uint64_t *got)
{
	uint32_t j;
	uint64_t left, n;
	int      rv;

	*got = 0;
	for (j = bs * b->g; j < bs * b->g + b->g && *got < want; j++) {
		if (j == src)
			continue;
		left =
		    tmat_at(b->m, src, j) - b->cur[(size_t)src * b->m->n + j];
		n = left < want - *got ? left : want - *got;
		if ((rv = add_piece(b, src, j, plane, SKEW_IDLE, n)) != 0)
			return (rv);
		*got += n;
	}
	return (0);
}

/* Server pair (a, bs): every byte a piece of one plane, each plane at
 * most share (what its stages carry for the pair), own bytes first. */
static int
balance_pair(struct build *b, uint32_t a, uint32_t bs, uint64_t share)
{
	uint64_t room[64], got, more;
	uint32_t k, q;
	int      rv;

	for (k = 0; k < b->g; k++) {
		if ((rv = take(b, a * b->g + k, bs, k, share, &got)) != 0)
			return (rv);
		room[k] = share - got;
	}
	/* What is left over goes to the planes with room (scale-up). */
	for (k = 0; k < b->g; k++)
		for (q = 0; q < b->g; q++) {
			if (room[q] == 0)
				continue;
			if ((rv = take(b, a * b->g + k, bs, q, room[q],
			               &more)) != 0)
				return (rv);
			room[q] -= more;
		}
	return (0);
}

/* Cut plane k's pieces for (a, bs) (from index lo on) over the stages
 * that join a to bs, in stage order, each carrying real bytes. */
static int
cut_stages(struct build *b, size_t lo, uint32_t a, uint32_t bs, uint32_t k)
{
	const struct skew_plan *pl = b->pl;
	size_t                  i, end = b->npc;
	uint32_t                s = 0;
	uint64_t                cap = 0, n;

	for (i = lo; i < end; i++) {
		struct piece p = b->pc[i];

		if (p.plane != k || p.st != SKEW_IDLE)
			continue;
		b->pc[i].len = 0; /* replaced by its cuts */
		while (p.len > 0) {
			while (cap == 0 && s < pl->nst) {
				if (skew_perm(pl, s)[a] == bs)
					cap = skew_real(pl, s)[a];
				if (cap == 0)
					s++;
			}
			if (s == pl->nst)
				return (
				    -EDOM); /* more than the plan carries */
			n = p.len < cap ? p.len : cap;
			if (b->npc == b->cap) {
				struct piece *q =
				    realloc(b->pc, 2 * b->cap * sizeof(*q));

				if (q == NULL)
					return (-ENOMEM);
				b->pc = q;
				b->cap *= 2;
			}
			b->pc[b->npc++] =
			    (struct piece){p.src, p.dst, k, s, p.off, n};
			p.off += n;
			p.len -= n;
			if ((cap -= n) == 0)
				s++;
		}
	}
	return (0);
}

static int
add_move(struct build *b, uint32_t ph, uint32_t from, uint32_t to,
         uint32_t port, uint32_t blk)
{
	if (b->nmv == b->capmv) {
		size_t       nc = b->capmv ? 2 * b->capmv : 256;
		struct move *m = realloc(b->mv, nc * sizeof(*m));

		if (m == NULL)
			return (-ENOMEM);
		b->mv = m;
		b->capmv = nc;
	}
	b->mv[b->nmv++] = (struct move){ph, from, to, port, blk};
	return (0);
}

static int
cmp_move(const void *x, const void *y)
{
	const struct move *a = x, *b = y;

	if (a->ph != b->ph)
		return (a->ph < b->ph ? -1 : 1);
	if (a->from != b->from)
		return (a->from < b->from ? -1 : 1);
	if (a->to != b->to)
		return (a->to < b->to ? -1 : 1);
	return (a->blk < b->blk ? -1 : a->blk > b->blk);
}

/* Every piece a block, and its hops: balancing (phase 0), its stage
 * (phase st + 1, port 0), redistribution (phase st + 2). */
static int
blocks_and_moves(struct build *b, struct sched *s)
{
	size_t   i;
	uint32_t g = b->g, from;
	int      id, rv;

	for (i = 0; i < b->npc; i++) {
		const struct piece *p = &b->pc[i];

		if (p->len == 0)
			continue;
		if ((id = sched_add_vblk(s, p->src, p->dst, p->off, p->len)) <
		    0)
			return (id);
		if (p->src / g == p->dst / g) { /* stays in the server */
			rv = add_move(b, 0, p->src, p->dst,
			              sched_local_port(s, p->src, p->dst),
			              (uint32_t)id);
			if (rv != 0)
				return (rv);
			continue;
		}
		from = p->src - p->src % g + p->plane;
		if (from != p->src &&
		    (rv = add_move(b, 0, p->src, from,
		                   sched_local_port(s, p->src, from),
		                   (uint32_t)id)) != 0)
			return (rv);
		if ((rv = add_move(b, p->st + 1, from,
		                   p->dst - p->dst % g + p->plane, 0,
		                   (uint32_t)id)) != 0)
			return (rv);
		from = p->dst - p->dst % g + p->plane;
		if (from != p->dst &&
		    (rv = add_move(b, p->st + 2, from, p->dst,
		                   sched_local_port(s, from, p->dst),
		                   (uint32_t)id)) != 0)
			return (rv);
	}
	return (0);
}

/* The phases: stage st's circuits set before phase st + 1 (stage 0's
 * before phase 0, which uses only local links), then the moves. */
static int
emit(struct build *b, struct sched *s)
{
	const struct skew_plan *pl = b->pl;
	uint32_t                ph, nph = pl->nst + 2, a, q, *blk;
	size_t                  i = 0, j;
	int                     rv = 0;

	qsort(b->mv, b->nmv, sizeof(*b->mv), cmp_move);
	if ((blk = malloc((b->nmv + 1) * sizeof(*blk))) == NULL)
		return (-ENOMEM);
	for (ph = 0; ph < nph && rv == 0; ph++) {
		uint32_t st = ph == 0 ? 0 : ph - 1;
		int      cfg = (ph == 0 || ph >= 2) && st < pl->nst;

		if ((rv = sched_add_phase(s, cfg, 0)) < 0)
			break;
		rv = 0;
		for (a = 0; cfg && a < b->ns && rv == 0; a++)
			for (q = 0; q < b->g && rv == 0; q++)
				if (skew_perm(pl, st)[a] != SKEW_IDLE)
					rv = sched_add_link(
					    s, a * b->g + q, 0,
					    skew_perm(pl, st)[a] * b->g + q,
					    0);
		while (rv == 0 && i < b->nmv && b->mv[i].ph == ph) {
			struct sched_seg sg = {b->mv[i].from,
			                       (uint16_t)b->mv[i].port, 0, 1};

			for (j = i; j < b->nmv && b->mv[j].ph == ph &&
			            b->mv[j].from == b->mv[i].from &&
			            b->mv[j].to == b->mv[i].to;
			     j++)
				blk[j - i] = b->mv[j].blk;
			rv = sched_add_xfer(s, b->mv[i].from, b->mv[i].to, blk,
			                    (uint32_t)(j - i), &sg, 1);
			i = j;
		}
	}
	free(blk);
	return (rv);
}

int
skew_srv_build(const struct skew_plan *pl, const struct tmat *m, uint32_t g,
               struct sched *s)
{
	struct build b = {.pl = pl, .m = m, .g = g};
	uint32_t     a, bs, k, i;
	size_t       lo;
	int          rv;

	memset(s, 0, sizeof(*s));
	if (g < 2 || g > 64 || m->n % g != 0 || pl->n != m->n / g ||
	    pl->nst == 0)
		return (-EINVAL);
	b.ns = m->n / g;
	if ((rv = sched_init_v(s, "fast", m->n, g, m->b)) != 0)
		return (rv);
	snprintf(s->algo, sizeof(s->algo), "%.15s", pl->algo);
	s->local_from = 1;
	if ((b.cur = calloc((size_t)m->n * m->n, sizeof(*b.cur))) == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	for (a = 0; a < b.ns && rv == 0; a++)
		for (bs = 0; bs < b.ns && rv == 0; bs++) {
			uint64_t tot = 0;

			if (bs == a) {
				for (k = 0; k < g && rv == 0; k++)
					for (i = 0; i < g && rv == 0; i++)
						if (i != k)
							rv = add_piece(
							    &b, a * g + k,
							    a * g + i, k, 0,
							    tmat_at(
							        m, a * g + k,
							        a * g + i));
				continue;
			}
			for (k = 0; k < g; k++)
				for (i = 0; i < g; i++)
					tot +=
					    tmat_at(m, a * g + k, bs * g + i);
			lo = b.npc;
			rv = balance_pair(&b, a, bs, (tot + g - 1) / g);
			for (k = 0; k < g && rv == 0; k++)
				rv = cut_stages(&b, lo, a, bs, k);
		}
	if (rv == 0)
		rv = blocks_and_moves(&b, s);
	if (rv == 0)
		rv = emit(&b, s);
out:
	free(b.cur);
	free(b.pc);
	free(b.mv);
	return (rv);
}

int
skew_srv_cost(const struct sched *s, const struct cost_params *cp,
              double su_alpha, double su_beta, struct cost_phase *pc,
              double *total, struct skew_srv_bytes *by)
{
	uint64_t *net, *loc, mn, ml;
	uint32_t  p, x, i;

	if ((net = calloc(2 * (size_t)s->n, sizeof(*net))) == NULL)
		return (-ENOMEM);
	loc = net + s->n;
	*total = 0;
	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];
		double                    tn, tl;

		memset(net, 0, 2 * (size_t)s->n * sizeof(*net));
		for (x = 0; x < ph->nxfer; x++) {
			const struct sched_xfer *xf = &s->xf[ph->xfer_off + x];
			int local = s->seg[xf->seg_off].port >= s->local_from;

			(local ? loc : net)[xf->src] += xf->bytes;
			if (by != NULL)
				*(local ? &by[p].local : &by[p].circuit) +=
				    xf->bytes;
		}
		for (mn = ml = 0, i = 0; i < s->n; i++) {
			mn = net[i] > mn ? net[i] : mn;
			ml = loc[i] > ml ? loc[i] : ml;
		}
		tn = mn ? cp->alpha_h + cp->beta * (double)mn : 0;
		tl = ml ? su_alpha + su_beta * (double)ml : 0;
		memset(&pc[p], 0, sizeof(pc[p]));
		pc[p].reconf = p > 0 && ph->cfg >= 0 ? cp->delta : 0;
		pc[p].hops = mn || ml;
		pc[p].link_bytes = (double)(mn > ml ? mn : ml);
		pc[p].dir_bytes = pc[p].link_bytes;
		/* The redistribution runs while the stage is on circuits. */
		pc[p].total = pc[p].reconf + cp->alpha_s + (tn > tl ? tn : tl);
		*total += pc[p].total;
	}
	free(net);
	return (0);
}
