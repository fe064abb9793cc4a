/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Validation of a schedule: the rules of DESIGN.md, checked by replaying
 * it.  All-to-All blocks move (they are not copied), so possession is one
 * location per block; phases are synchronous, so a block received in phase
 * k can be sent on in phase k+1, not earlier (multi-hop relays inside one
 * transfer are the way to go further within a phase).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"

__attribute__((__format__(printf, 6, 7))) static int
fail(struct sched_verr *err, int code, int32_t phase, int64_t node,
     int64_t block, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		err->phase = phase;
		err->node = node;
		err->block = block;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return (code);
}

static int
check_path(const struct sched *s, const uint32_t *peer,
           const struct sched_xfer *x, uint32_t ph, struct sched_verr *err)
{
	struct sched_walk w;
	int64_t           tx;
	uint32_t          hop = 0;

	sched_walk_init(&w, s, peer, x);
	while ((tx = sched_walk_next(&w)) >= 0 && tx != SCHED_NONE)
		hop++;
	switch (tx) {
	case -COLL_EDARK:
		return (fail(
		    err, -COLL_EDARK, (int32_t)ph, w.node, -1,
		    "phase %u: node %u: transfer %u->%u: hop %u leaves by "
		    "port %u, which has no circuit (rule: every hop on a lit "
		    "circuit)",
		    ph, w.node, x->src, x->dst, hop, w.port));
	case -COLL_EPORT:
		return (fail(
		    err, -COLL_EPORT, (int32_t)ph, w.node, -1,
		    "phase %u: node %u: transfer %u->%u: hop %u uses port "
		    "%u of %u (rule: port limits)",
		    ph, w.node, x->src, x->dst, hop, w.port, s->ports));
	case -COLL_EPATH:
		return (fail(
		    err, -COLL_EPATH, (int32_t)ph, w.node, -1,
		    "phase %u: node %u: transfer %u->%u: path breaks after "
		    "%u hops (rule: a path of circuits from source to "
		    "destination)",
		    ph, w.node, x->src, x->dst, hop));
	}
	if (w.node != x->dst)
		return (fail(
		    err, -COLL_EPATH, (int32_t)ph, x->src, -1,
		    "phase %u: node %u: transfer %u->%u ends at node %u after "
		    "%u hops (rule: a path of circuits from source to "
		    "destination)",
		    ph, x->src, x->src, x->dst, w.node, hop));
	return (0);
}

/* Endpoints, then the path. */
static int
check_xfer(const struct sched *s, const uint32_t *peer,
           const struct sched_xfer *x, uint32_t p, struct sched_verr *err)
{
	if (x->src >= s->n || x->dst >= s->n || x->src == x->dst)
		return (fail(err, -COLL_EPATH, (int32_t)p, x->src, -1,
		             "phase %u: transfer %u->%u: bad endpoints for %u "
		             "nodes",
		             p, x->src, x->dst, s->n));
	return (check_path(s, peer, x, p, err));
}

/* The phase's circuits, if it sets them, into peer: every port rule. */
static int
check_circuits(const struct sched *s, const struct sched_phase *ph, uint32_t p,
               uint32_t *peer, struct sched_verr *err)
{
	uint32_t bad;

	if (ph->cfg >= 0) {
		const struct sched_cfg *c = &s->cfg[ph->cfg];

		if (sched_peers(s, c, peer, &bad) != 0) {
			const struct sched_circuit *e =
			    &s->circ[c->circ_off + bad];
			return (fail(err, -COLL_EPORT, (int32_t)p, e->a, -1,
			             "phase %u: node %u: circuit %u.%u-%u.%u "
			             "breaks a port rule (rule: port limits: "
			             "at "
			             "most %u transceivers per node, each in "
			             "at most one circuit, no node joined to "
			             "itself)",
			             p, e->a, e->a, e->pa, e->b, e->pb,
			             s->ports));
		}
	}
	return (0);
}

/*
 * A transfer's blocks as the phase starts: each exists, is sent once in
 * the phase, and is held by the sender; their sizes add up to the
 * transfer's bytes.  sent[b] becomes p.
 */
static int
check_blocks(const struct sched *s, const struct sched_xfer *x, uint32_t p,
             const uint32_t *loc, uint32_t *sent, struct sched_verr *err)
{
	uint32_t nb = sched_nblocks(s), b, j;
	uint64_t bytes = 0;
	char     name[48];
	int      rv = 0;

	for (j = 0; j < x->nblk; j++) {
		b = s->blk[x->blk_off + j];
		if (b >= nb) {
			rv = fail(err, -COLL_ENOTHELD, (int32_t)p, x->src, b,
			          "phase %u: node %u: block id %u "
			          "does not exist",
			          p, x->src, b);
			return (rv);
		}
		if (sent[b] == p) {
			sched_blk_name(s, b, name, sizeof(name));
			rv = fail(err, -COLL_ENOTHELD, (int32_t)p, x->src, b,
			          "phase %u: node %u: block %s sent "
			          "twice in one phase (rule: a node "
			          "only forwards blocks it holds)",
			          p, x->src, name);
			return (rv);
		}
		if (loc[b] != x->src) {
			sched_blk_name(s, b, name, sizeof(name));
			rv = fail(err, -COLL_ENOTHELD, (int32_t)p, x->src, b,
			          "phase %u: node %u: block %s is "
			          "held by node %u (rule: a node "
			          "only forwards blocks it holds)",
			          p, x->src, name, loc[b]);
			return (rv);
		}
		sent[b] = p;
		bytes += sched_blk_bytes(s, b);
	}
	if (bytes != x->bytes) {
		rv = fail(err, -COLL_EBYTES, (int32_t)p, x->src, -1,
		          "phase %u: node %u: transfer %u->%u "
		          "says %llu bytes, its blocks hold %llu",
		          p, x->src, x->src, x->dst,
		          (unsigned long long)x->bytes,
		          (unsigned long long)bytes);
		return (rv);
	}
	return (0);
}

/* Insertion sort of one pair's block ids by offset (a pair has as many
 * blocks as stages carry it: few). */
static void
sort_by_off(const struct sched *s, uint32_t *ids, uint32_t k)
{
	uint32_t i, j, t;

	for (i = 1; i < k; i++) {
		t = ids[i];
		for (j = i; j > 0 && s->vb[ids[j - 1]].off > s->vb[t].off; j--)
			ids[j] = ids[j - 1];
		ids[j] = t;
	}
}

/*
 * Explicit blocks cut each pair's traffic exactly: in order of offset
 * they start at 0, touch without overlap, and end at the pair's bytes;
 * the diagonal has none.  (Every real byte then arrives exactly once when
 * every block ends at its destination.)
 */
static int
check_vblocks(const struct sched *s, struct sched_verr *err)
{
	uint32_t *cnt, *ids, n = s->n, b, p, i;
	uint64_t  at;
	int       rv = 0;

	cnt = calloc((size_t)n * n + 1, sizeof(*cnt));
	ids = malloc(((size_t)s->nvb + 1) * sizeof(*ids));
	if (cnt == NULL || ids == NULL) {
		rv = fail(err, -ENOMEM, -1, -1, -1, "out of memory");
		goto out;
	}
	for (b = 0; b < s->nvb; b++) {
		/* A node's blocks to itself stay put and carry nothing. */
		if (s->vb[b].src == s->vb[b].dst && s->vb[b].len != 0) {
			rv = fail(
			    err, -COLL_EBYTES, -1, s->vb[b].src, b,
			    "block %u: bytes from a node to itself (rule: "
			    "the diagonal stays local)",
			    b);
			goto out;
		}
		cnt[(size_t)s->vb[b].src * n + s->vb[b].dst + 1]++;
	}
	for (p = 0; p < n * n; p++)
		cnt[p + 1] += cnt[p];
	for (b = 0; b < s->nvb; b++)
		ids[cnt[(size_t)s->vb[b].src * n + s->vb[b].dst]++] = b;
	/* cnt[p] is now the end of pair p's ids. */
	for (p = 0, i = 0; p < n * n; p++) {
		if (p / n == p % n)
			continue;
		sort_by_off(s, ids + i, cnt[p] - i);
		for (at = 0; i < cnt[p]; i++) {
			if (s->vb[ids[i]].off != at)
				break;
			at += s->vb[ids[i]].len;
		}
		if (i != cnt[p] || at != s->vmat[p]) {
			rv =
			    fail(err, -COLL_EBYTES, -1, p / n, -1,
			         "node %u: its %llu bytes for node %u are not "
			         "cut exactly into blocks (at byte %llu) "
			         "(rule: every byte sent exactly once)",
			         p / n, (unsigned long long)s->vmat[p], p % n,
			         (unsigned long long)at);
			goto out;
		}
	}
out:
	free(cnt);
	free(ids);
	return (rv);
}

/* Skewed traffic that all stays local needs no phase at all. */
static int
first_cfg(const struct sched *s, struct sched_verr *err)
{
	if ((s->nph == 0 && s->coll != SCHED_ALLTOALLV) ||
	    (s->nph > 0 && s->ph[0].cfg < 0))
		return (
		    fail(err, -COLL_ENOCFG, 0, -1, -1,
		         "phase 0: no circuit configuration (rule: the first "
		         "phase sets the circuits)"));
	return (0);
}

int
sched_validate_circuits(const struct sched *s, struct sched_verr *err)
{
	uint32_t *peer, p, i;
	int       rv;

	if (err)
		memset(err, 0, sizeof(*err));
	if ((rv = first_cfg(s, err)) != 0 ||
	    (rv = sched_validate_planes(s, err)) != 0)
		return (rv);
	if ((peer = malloc((size_t)s->n * s->ports * sizeof(*peer) + 1)) ==
	    NULL)
		return (fail(err, -ENOMEM, -1, -1, -1, "out of memory"));
	for (p = 0; p < s->nph && rv == 0; p++) {
		const struct sched_phase *ph = &s->ph[p];

		rv = check_circuits(s, ph, p, peer, err);
		for (i = 0; i < ph->nxfer && rv == 0; i++)
			rv = check_xfer(s, peer, &s->xf[ph->xfer_off + i], p,
			                err);
	}
	free(peer);
	return (rv);
}

int
sched_validate(const struct sched *s, struct sched_verr *err)
{
	uint32_t *peer = NULL, *loc = NULL, *sent = NULL;
	uint32_t  nb = sched_nblocks(s), b, p, i, j;
	char      name[48];
	int       rv = 0;

	if (err)
		memset(err, 0, sizeof(*err));
	if (s->coll != SCHED_ALLTOALL && s->coll != SCHED_ALLTOALLV)
		return (fail(err, -EINVAL, -1, -1, -1,
		             "unsupported collective %d", s->coll));

	if ((rv = first_cfg(s, err)) != 0 ||
	    (rv = sched_validate_planes(s, err)) != 0)
		return (rv);

	peer = malloc((size_t)s->n * s->ports * sizeof(*peer));
	loc = malloc((size_t)nb * sizeof(*loc));
	sent = malloc((size_t)nb * sizeof(*sent));
	if (peer == NULL || loc == NULL || sent == NULL) {
		rv = fail(err, -ENOMEM, -1, -1, -1, "out of memory");
		goto out;
	}
	for (b = 0; b < nb; b++) {
		loc[b] = sched_blk_src(s, b);
		sent[b] = UINT32_MAX;
	}

	for (p = 0; p < s->nph; p++) {
		const struct sched_phase *ph = &s->ph[p];

		if ((rv = check_circuits(s, ph, p, peer, err)) != 0)
			goto out;
		/* Check every send against possession at the phase start. */
		for (i = 0; i < ph->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[ph->xfer_off + i];

			if ((rv = check_xfer(s, peer, x, p, err)) != 0)
				goto out;
			if ((rv = check_blocks(s, x, p, loc, sent, err)) != 0)
				goto out;
		}
		/* Deliver at the end of the phase. */
		for (i = 0; i < ph->nxfer; i++) {
			const struct sched_xfer *x = &s->xf[ph->xfer_off + i];

			for (j = 0; j < x->nblk; j++)
				loc[s->blk[x->blk_off + j]] = x->dst;
		}
	}
	if (s->coll == SCHED_ALLTOALLV && (rv = check_vblocks(s, err)) != 0)
		goto out;
	for (b = 0; b < nb; b++) {
		if (loc[b] != sched_blk_dst(s, b)) {
			sched_blk_name(s, b, name, sizeof(name));
			rv = fail(
			    err, -COLL_EUNDELIVERED, -1, loc[b], b,
			    "end: node %u: holds block %s, which belongs to "
			    "node %u (rule: every node ends with exactly its "
			    "blocks)",
			    loc[b], name, sched_blk_dst(s, b));
			goto out;
		}
	}
out:
	free(peer);
	free(loc);
	free(sent);
	return (rv);
}
