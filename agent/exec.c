/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The executor (see exec.h).
 *
 * Flow control.  A node never stops reading its fibres: frames for it go
 * to their block slots, frames it relays go on at once from the input
 * (what the fibre does not take goes to the output queue of their port,
 * which grows as needed: at most the phase's relay volume through that
 * port, known from the plan).  Its own frames are injected
 * only while that queue is nearly empty, so relays go first and a node's
 * own data never fills the path.  With every reader always reading, the
 * rings of a reused configuration cannot lock up, however long the paths
 * and whatever the fibres and the switch buffer in between (a bounded
 * relay queue that stops reading can: every node waits for the next one
 * around the ring).  Frames of the next phase on the same circuits may
 * arrive early (no barrier between such phases): they wait at the head of
 * their input until this node moves on, which is safe because a fibre is
 * FIFO and a sender starts a phase only after finishing the last.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "agent/frame.h"
#include "agent/pattern.h"
#include "agent/vplace.h"
#include "collectives/sched.h"
#include "proto/base/mono.h"
#include "agent/exec_int.h"

int
ex_fail(struct exec *e, int code, const char *fmt, ...)
{
	va_list ap;
	int     n;

	n = snprintf(e->err, e->errlen, "phase %u: ", e->k);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < e->errlen)
		vsnprintf(e->err + n, e->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return (code);
}

/* A topology collective (chunks kept when sent, sums for reductions). */
int
ex_is_coll(const struct plan *p)
{
	return (p->coll >= SCHED_ALLGATHER && p->coll <= SCHED_ALLREDUCE);
}

/* Do this phase's receives replace (gather) rather than add? */
int
ex_gathering(const struct exec *e)
{
	return (e->p.coll == SCHED_ALLGATHER ||
	        (e->p.coll == SCHED_ALLREDUCE && e->k >= e->p.ag_from));
}

const char *
ex_pname(uint32_t port)
{
	static const char *const n[] = {"R", "L", "2", "3",
	                                "4", "5", "6", "7"};

	return (port < EXEC_MAX_PORTS ? n[port] : "?");
}

void
ex_bname(const struct exec *e, uint32_t b, char *buf, size_t len)
{
	const struct plan_vblk *v;

	if (ex_is_coll(&e->p))
		snprintf(buf, len, "chunk %u of node %u", b % e->p.parts,
		         b / e->p.parts);
	else if (e->p.vb == NULL)
		sched_blk_name(&e->lay, b, buf, len);
	else if ((v = plan_vblk(&e->p, b)) != NULL)
		snprintf(buf, len, "B[%u,%u]@%llu+%llu", v->src, v->dst,
		         (unsigned long long)v->off,
		         (unsigned long long)v->len);
	else
		snprintf(buf, len, "block %u", b);
}

static int
cmp_expect(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	return (x->blk < y->blk ? -1 : x->blk > y->blk);
}

/* Explicit blocks: each one a pair of real nodes, under 4 GiB (frame
 * offsets are 32-bit), and every block a send or receive names listed. */
static int
check_vblocks(const struct plan *p, char *err, size_t len)
{
	uint32_t k, i, j;

	for (i = 0; i < p->nvb; i++)
		if (p->vb[i].src >= p->n || p->vb[i].dst >= p->n ||
		    p->vb[i].src == p->vb[i].dst ||
		    p->vb[i].len > UINT32_MAX - 1 ||
		    p->vb[i].off > ((uint64_t)1 << 50)) {
			snprintf(err, len,
			         "plan: block %u (%u -> %u, %llu bytes) is "
			         "not one this run can hold",
			         p->vb[i].id, p->vb[i].src, p->vb[i].dst,
			         (unsigned long long)p->vb[i].len);
			return (-EINVAL);
		}
	for (k = 0; k < p->nph; k++) {
		const struct plan_phase *ph = &p->ph[k];

		for (i = 0; i < ph->nsend; i++)
			for (j = 0; j < ph->send[i].nblk; j++)
				if (plan_vblk(p, ph->send[i].blk[j]) == NULL)
					goto bad;
		for (i = 0; i < ph->nrecv; i++)
			for (j = 0; j < ph->recv[i].nblk; j++)
				if (plan_vblk(p, ph->recv[i].blk[j]) == NULL)
					goto bad;
	}
	return (0);
bad:
	snprintf(err, len, "plan: phase %u names a block it does not list", k);
	return (-EINVAL);
}

/* A Ready reports every phase since the last barrier: no stretch may be
 * longer than a Ready carries (the last one ends at the run's end). */
static int
check_stretches(const struct plan *p, char *err, size_t len)
{
	uint32_t k, last = 0;

	for (k = 1; k <= p->nph; k++) {
		if (k < p->nph && !p->ph[k].barrier)
			continue;
		if (k - last > PLAN_MAX_DONE) {
			snprintf(err, len,
			         "plan: phases %u..%u without a barrier (%u), "
			         "at most %u",
			         last, k - 1, k - last, PLAN_MAX_DONE);
			return (-EINVAL);
		}
		last = k;
	}
	return (0);
}

int
exec_check(const struct plan *p, char *err, size_t len)
{
	uint64_t nb = (uint64_t)p->n * p->n * p->parts;
	uint32_t k, i, j;

	/* Explicit block ids are any 32-bit ids the plan lists. */
	if (p->vb != NULL)
		nb = UINT32_MAX;
	if (p->coll > SCHED_ALLREDUCE || (ex_is_coll(p) && p->vb != NULL) ||
	    (p->coll == SCHED_ALLREDUCE && p->ag_from > p->nph)) {
		snprintf(err, len, "plan: collective %u (ag_from %u)", p->coll,
		         p->ag_from);
		return (-EINVAL);
	}
	/* A node holds every chunk of a topology collective at most. */
	if (ex_is_coll(p))
		nb = (uint64_t)p->n * p->parts;

	/* The slots must fit in memory arithmetic (and the hash table in
	 * 32 bits): at most every block, each under 4 GiB. */
	if (p->nports == 0 || p->nports > EXEC_MAX_PORTS || p->n < 2 ||
	    p->node >= p->n || p->parts == 0 ||
	    (p->vb == NULL && nb > UINT32_MAX / 4) || p->chunk < 64 ||
	    p->chunk > FRAME_MAX_PAYLOAD ||
	    (p->vb == NULL &&
	     (p->max_blocks < (uint64_t)p->n * p->parts ||
	      p->max_blocks > nb ||
	      p->bytes / ((uint64_t)p->n * p->parts) + 1 > UINT32_MAX)) ||
	    p->nph == 0 || p->ph == NULL) {
		snprintf(err, len,
		         "plan: bad sizes (n %u, node %u, parts %u, "
		         "chunk %u, ports %u)",
		         p->n, p->node, p->parts, p->chunk, p->nports);
		return (-EINVAL);
	}
	/* After the sizes: nb is n x parts, not zero, from here. */
	if ((p->coll == SCHED_REDUCESCATTER || p->coll == SCHED_ALLREDUCE) &&
	    (p->bytes % (4 * nb) != 0 || p->chunk % 4 != 0)) {
		snprintf(err, len,
		         "plan: sums need chunks and frames of whole int32 "
		         "elements (%llu bytes in %llu chunks, frames of %u)",
		         (unsigned long long)p->bytes, (unsigned long long)nb,
		         p->chunk);
		return (-EINVAL);
	}
	if (p->deadline_ms == 0 || p->deadline_ms > 86400000u) {
		snprintf(err, len, "plan: deadline_ms %u (1 ms to a day)",
		         p->deadline_ms);
		return (-EINVAL);
	}
	/* Phase 0 waits for its circuits: the release is its barrier. */
	if (!p->ph[0].barrier) {
		snprintf(err, len, "plan: phase 0 without a barrier");
		return (-EINVAL);
	}
	if (check_stretches(p, err, len) != 0 ||
	    (p->vb != NULL && check_vblocks(p, err, len) != 0))
		return (-EINVAL);
	for (k = 0; k < p->nph; k++) {
		const struct plan_phase *ph = &p->ph[k];

		for (i = 0; i < ph->nsend; i++) {
			if (ph->send[i].port >= p->nports ||
			    ph->send[i].dst >= p->n || ph->send[i].hops == 0 ||
			    ph->send[i].hops > 0xffff)
				goto bad;
			for (j = 0; j < ph->send[i].nblk; j++)
				if (ph->send[i].blk[j] >= nb)
					goto bad;
		}
		for (i = 0; i < ph->nrelay; i++)
			if (ph->relay[i].in_port >= p->nports ||
			    ph->relay[i].out_port >= p->nports ||
			    ph->relay[i].src >= p->n ||
			    ph->relay[i].dst >= p->n)
				goto bad;
		for (i = 0; i < ph->nrecv; i++) {
			if (ph->recv[i].port >= p->nports ||
			    ph->recv[i].src >= p->n)
				goto bad;
			for (j = 0; j < ph->recv[i].nblk; j++)
				if (ph->recv[i].blk[j] >= nb)
					goto bad;
		}
	}
	return (0);
bad:
	snprintf(err, len,
	         "plan: phase %u names a port, node or block that "
	         "does not exist",
	         k);
	return (-EINVAL);
}

static int
setup_expect(struct exec *e)
{
	uint32_t k, i, j, n;

	e->exp = calloc(e->p.nph, sizeof(*e->exp));
	e->nexp = calloc(e->p.nph, sizeof(*e->nexp));
	if (e->exp == NULL || e->nexp == NULL)
		return (-ENOMEM);
	for (k = 0; k < e->p.nph; k++) {
		const struct plan_phase *ph = &e->p.ph[k];

		for (n = 0, i = 0; i < ph->nrecv; i++)
			n += ph->recv[i].nblk;
		if ((e->exp[k] = calloc(n ? n : 1, sizeof(**e->exp))) == NULL)
			return (-ENOMEM);
		for (n = 0, i = 0; i < ph->nrecv; i++)
			for (j = 0; j < ph->recv[i].nblk; j++) {
				e->exp[k][n].blk = ph->recv[i].blk[j];
				e->exp[k][n++].recv = i;
			}
		qsort(e->exp[k], n, sizeof(**e->exp), cmp_expect);
		e->nexp[k] = n;
		if (ph->nrecv > e->maxrecv)
			e->maxrecv = ph->nrecv;
		if (ph->nrelay > e->maxrelay)
			e->maxrelay = ph->nrelay;
		if (ph->nsend > e->maxsend)
			e->maxsend = ph->nsend;
	}
	e->recv_done = calloc(e->maxrecv + 1, sizeof(uint32_t));
	e->relay_done = calloc(e->maxrelay + 1, sizeof(uint32_t));
	e->relay_bytes = calloc(e->maxrelay + 1, sizeof(uint64_t));
	e->send_blk = calloc(e->maxsend + 1, sizeof(uint32_t));
	e->send_off = calloc(e->maxsend + 1, sizeof(uint32_t));
	if (!e->recv_done || !e->relay_done || !e->send_blk || !e->send_off ||
	    !e->relay_bytes)
		return (-ENOMEM);
	return (0);
}

/*
 * The slab, its pages present: their first faults are setup, not data
 * time (a NIC's buffers are registered before a run, too).  malloc and
 * memset would not do it: the compiler makes them one calloc, which
 * leaves fresh pages untouched, and the faults then came in the data
 * phase.
 */
/*
 * A run's setup (its slab faulted in, its own blocks filled) is done in
 * pieces of EX_SETUP_PIECE with an abort checked between them: a 256 MiB
 * run's buffers took seconds to fault in and fill with nine agents on a
 * loaded 2-core machine, and an agent that neither heard the abort nor
 * polled meanwhile was counted lost by ocsd (three missed heartbeats),
 * every one of them, so the next run found none.
 */
#define EX_SETUP_PIECE (4u << 20)

/* Has an abort come on the session (its descriptor readable)? */
static int
aborted(struct exec *e, char *why, size_t len)
{
	struct pollfd p = {.fd = e->ab.fd, .events = POLLIN};

	return (e->ab.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN) &&
	        e->ab.check(e->ab.arg, why, len));
}

/* The slab's pages in now, not in a phase's first writes: 0, or
 * -ECANCELED (an abort came; why says it). */
static int
slab_populate(struct exec *e, char *why, size_t len)
{
	uint8_t *b = e->slab;
	size_t   o, n;

	for (o = 0; o < e->slab_len; o += n) {
		n = e->slab_len - o < EX_SETUP_PIECE ? e->slab_len - o
		                                     : EX_SETUP_PIECE;
		if (madvise(b + o, n, MADV_POPULATE_WRITE) != 0)
			ex_prefault(b + o, n); /* a kernel before 5.14 */
		if (aborted(e, why, len))
			return (-ECANCELED);
	}
	return (0);
}

static int
slab_map(struct exec *e, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return (-ENOMEM);
	e->slab = p;
	e->slab_len = len;
	return (0);
}

/* Uniform blocks: slots of the largest block, as many as the plan holds
 * at once, found by a hash of their ids. */
static int
setup_slots(struct exec *e)
{
	uint32_t hcap, i;

	e->slot_bytes = e->p.bytes / ((uint64_t)e->p.n * e->p.parts) + 1;
	e->nslots = e->p.max_blocks;
	for (hcap = 16; hcap < 2 * e->nslots; hcap *= 2)
		;
	e->hmask = hcap - 1;
	e->slots = calloc(e->nslots, sizeof(*e->slots));
	e->freel = malloc(e->nslots * sizeof(*e->freel));
	e->hash = calloc(hcap, sizeof(*e->hash));
	if (!e->slots || !e->freel || !e->hash ||
	    slab_map(e, e->nslots * e->slot_bytes) != 0)
		return (-ENOMEM);
	for (i = 0; i < e->nslots; i++)
		e->freel[e->nfree++] = e->nslots - 1 - i;
	return (0);
}

/* Explicit blocks: one slot each, at the place vplace found. */
static int
setup_vslots(struct exec *e)
{
	e->nslots = e->p.nvb;
	e->vat = malloc((e->nslots + 1) * sizeof(*e->vat));
	e->vheld = calloc(e->nslots + 1, 1);
	e->slots = calloc(e->nslots + 1, sizeof(*e->slots));
	if (!e->vat || !e->vheld || !e->slots ||
	    vplace(&e->p, e->vat, &e->vslab) != 0)
		return (-ENOMEM);
	return (slab_map(e, e->vslab + 1));
}

/* Block b's slot filled with the pattern (r, d, part) from byte off of
 * it, in pieces: 0, or -ECANCELED (an abort came; why says it). */
static int
own_fill(struct exec *e, uint32_t b, uint32_t r, uint32_t d, uint32_t part,
         uint64_t off, char *why, size_t len)
{
	uint32_t sl = ex_take(e, b);
	uint8_t *p = ex_slot_data(e, sl);
	size_t   size = ex_blk_size(e, b), o, n;

	for (o = 0; o < size; o += n) {
		n = size - o < EX_SETUP_PIECE ? size - o : EX_SETUP_PIECE;
		pat_fill(p + o, n, e->p.run, r, d, part, off + o);
		if (aborted(e, why, len))
			return (-ECANCELED);
	}
	e->slots[sl].have = size;
	return (0);
}

/* A topology collective's own chunks: AllGather its share, the
 * reductions its contribution to every chunk (pattern (node, chunk)). */
static int
own_chunks(struct exec *e, char *why, size_t len)
{
	uint32_t nb = e->p.n * e->p.parts, b;
	int      share = e->p.coll == SCHED_ALLGATHER, rv = 0;

	for (b = share ? e->p.node * e->p.parts : 0;
	     rv == 0 && b < (share ? (e->p.node + 1) * e->p.parts : nb); b++)
		rv = own_fill(e, b, e->p.node, b, 0, 0, why, len);
	return (rv);
}

/* The node's own blocks, filled with the pattern: B[node, d].part for
 * every d, or the explicit blocks it is the source of. */
static int
own_blocks(struct exec *e, char *why, size_t len)
{
	uint32_t d, part, b, src, dst, pt;
	uint64_t off;
	int      rv = 0;

	if (ex_is_coll(&e->p))
		return (own_chunks(e, why, len));
	for (d = 0; rv == 0 && e->p.vb == NULL && d < e->p.n; d++)
		for (part = 0; rv == 0 && part < e->p.parts; part++)
			rv = own_fill(
			    e, sched_blk_id(&e->lay, e->p.node, d, part),
			    e->p.node, d, part, 0, why, len);
	for (d = 0; rv == 0 && e->p.vb != NULL && d < e->p.nvb; d++) {
		if (e->p.vb[d].src != e->p.node)
			continue;
		b = e->p.vb[d].id;
		ex_blk_pattern(e, b, &src, &dst, &pt, &off);
		rv = own_fill(e, b, src, dst, pt, off, why, len);
	}
	return (rv);
}

int
exec_new(struct exec **out, const struct plan *p, struct xport *ports,
         const struct exec_abort *ab, char *err, size_t errlen)
{
	struct exec *e;
	uint32_t     i;
	size_t       fb;
	char         why[300];
	int          rv;

	*out = NULL;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return (-ENOMEM);
	e->p = *p;
	if ((rv = exec_check(p, err, errlen)) != 0) {
		free(e);
		return (rv);
	}
	e->run32 = (uint32_t)p->run;
	if (ab)
		e->ab = *ab;
	else
		e->ab.fd = -1;
	e->lay.n = p->n;
	e->lay.parts = p->parts;
	e->lay.bytes = p->bytes;
	rv = p->vb != NULL ? setup_vslots(e) : setup_slots(e);
	if (rv != 0 || setup_expect(e) != 0)
		goto nomem;
	/* Input holds at least one frame whole, and reads about a MiB at a
	 * time as a raw stream would (at 64 KiB chunks, 4 frames cost 13 %
	 * more CPU per byte than 16: more reads, and relays written on in
	 * smaller runs); output a few frames (bubble rule). */
	fb = FRAME_HDR + p->chunk;
	for (i = 0; i < p->nports; i++) {
		struct port *pt = &e->port[i];

		pt->x = &ports[i];
		pt->in.cap =
		    fb * (fb >= (1u << 18) ? 4 : ((1u << 20) / fb + 1));
		pt->out.cap = 4 * fb;
		pt->in.p = malloc(pt->in.cap);
		pt->out.p = malloc(pt->out.cap);
		if (pt->in.p == NULL || pt->out.p == NULL)
			goto nomem;
		ex_prefault(pt->in.p, pt->in.cap);
		ex_prefault(pt->out.p, pt->out.cap);
	}
	if (ex_is_coll(p) && ((e->sum = malloc(p->chunk)) == NULL ||
	                      (e->tmp = malloc(p->chunk)) == NULL))
		goto nomem;
	if ((rv = slab_populate(e, why, sizeof(why))) != 0 ||
	    (rv = own_blocks(e, why, sizeof(why))) != 0) {
		exec_free(e);
		snprintf(err, errlen, "aborted: %s", why);
		return (rv);
	}
	*out = e;
	return (0);
nomem:
	exec_free(e);
	snprintf(err, errlen, "out of memory for a run of %llu bytes",
	         (unsigned long long)p->bytes);
	return (-ENOMEM);
}

void
exec_free(struct exec *e)
{

	uint32_t i;

	if (e == NULL)
		return;
	for (i = 0; i < EXEC_MAX_PORTS; i++) {
		free(e->port[i].in.p);
		free(e->port[i].out.p);
	}
	for (i = 0; e->exp && i < e->p.nph; i++)
		free(e->exp[i]);
	free(e->exp);
	free(e->nexp);
	free(e->recv_done);
	free(e->relay_done);
	free(e->send_blk);
	free(e->send_off);
	if (e->slab != NULL)
		munmap(e->slab, e->slab_len);
	free(e->slots);
	free(e->freel);
	free(e->hash);
	free(e->vat);
	free(e->vheld);
	free(e->relay_bytes);
	free(e->sum);
	free(e->tmp);
	free(e);
}

size_t
exec_mem(const struct exec *e)
{
	size_t m = sizeof(*e) +
	           e->nslots * (e->slot_bytes + sizeof(struct slot) + 4) +
	           (e->hmask + 1) * 4;

	if (e->p.vb != NULL)
		m = sizeof(*e) + e->vslab +
		    e->nslots * (sizeof(struct slot) + sizeof(uint64_t) + 1);
	uint32_t i;

	for (i = 0; i < e->p.nports; i++)
		m += e->port[i].in.cap + e->port[i].out.cap;
	for (i = 0; i < e->p.nph; i++)
		m += e->nexp[i] * sizeof(struct expect);
	return (m);
}

/* ---- a phase ------------------------------------------------------------ */

static int
phase_done(const struct exec *e)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint32_t                 i;

	for (i = 0; i < ph->nsend; i++)
		if (e->send_blk[i] < ph->send[i].nblk)
			return (0);
	for (i = 0; i < e->p.nports; i++)
		if (e->port[i].out.tail != e->port[i].out.head)
			return (0);
	for (i = 0; i < ph->nrecv; i++)
		if (e->recv_done[i] < ph->recv[i].nblk)
			return (0);
	for (i = 0; i < ph->nrelay; i++)
		if (e->relay_done[i] < ph->relay[i].nblk)
			return (0);
	return (1);
}

/* What is still missing, for a timeout's reason. */
static void
missing(const struct exec *e, char *buf, size_t len)
{
	const struct plan_phase *ph = &e->p.ph[e->k];
	uint32_t                 i, sends = 0, blocks = 0, relays = 0;
	size_t                   off = 0;

	for (i = 0; i < ph->nsend; i++)
		sends += ph->send[i].nblk - e->send_blk[i];
	for (i = 0; i < ph->nrelay; i++)
		relays += ph->relay[i].nblk - e->relay_done[i];
	buf[0] = '\0';
	for (i = 0; i < ph->nrecv; i++) {
		uint32_t m = ph->recv[i].nblk - e->recv_done[i];

		blocks += m;
		if (m && off < len)
			off += (size_t)snprintf(
			    buf + off, len - off,
			    "%s%u from node %u on port %s", off ? ", " : "", m,
			    ph->recv[i].src, ex_pname(ph->recv[i].port));
	}
	if (off < len)
		snprintf(buf + off, len - off,
		         "%s%u blocks to receive, %u to relay, %u to send",
		         off ? "; " : "", blocks, relays, sends);
}

/* Which ports may send: those of the planes released (all of them when
 * the plan has no planes apart).  1 while some port waits. */
static int
gate(struct exec *e)
{
	uint32_t all = (1u << e->p.nports) - 1, lit, q;

	e->gate = all;
	if (e->p.nplanes < 2 || e->ab.lit == NULL)
		return (0);
	lit = e->ab.lit(e->ab.arg);
	/* A server's local links (from local_from) are on no plane. */
	for (q = 0; q < (e->p.local_from ? e->p.local_from : e->p.nports); q++)
		if (!((lit >> e->p.plane[q]) & 1))
			e->gate &= ~(1u << q);
	return (e->gate != all);
}

/* Nothing moved: sleep in poll until a port can move something or an
 * abort comes; a shaped link that may not send yet is waited for until
 * it may (xport_hold), not polled for room it has.  1 if aborted (why
 * says why). */
static int
wait_io(struct exec *e, char *why, size_t len)
{
	struct pollfd pfd[EXEC_MAX_PORTS + 1];
	uint32_t      i, n;
	int           tmo = 50;

	for (n = 0, i = 0; i < e->p.nports; i++) {
		struct port *pt = &e->port[i];
		uint64_t     hold =
                    pt->out.tail != pt->out.head ? xport_hold(pt->x) : 0;

		pfd[n].fd = xport_fd(pt->x);
		pfd[n].events =
		    (pt->in.cap - (pt->in.tail - pt->in.head) > 0 ? POLLIN
		                                                  : 0) |
		    (pt->out.tail != pt->out.head && hold == 0 && ex_open(e, i)
		         ? POLLOUT
		         : 0);
		if (hold > 0 && hold / 1000000 + 1 < (uint64_t)tmo)
			tmo = (int)(hold / 1000000) + 1;
		n++;
	}
	if (e->ab.fd >= 0) {
		pfd[n].fd = e->ab.fd;
		pfd[n++].events = POLLIN;
	}
	poll(pfd, n, tmo);
	return (e->ab.fd >= 0 && (pfd[n - 1].revents & POLLIN) &&
	        e->ab.check(e->ab.arg, why, len));
}

int
exec_phase(struct exec *e, uint32_t k, struct plan_done *done, char *err,
           size_t errlen)
{
	uint64_t t0 = mono_ns(), dl, now, t_ab = t0;
	uint32_t i;
	int      rv, moved, dark;
	char     why[400];

	e->err = err;
	e->errlen = errlen;
	e->k = k;
	if (k >= e->p.nph)
		return (ex_fail(e, -EINVAL, "no such phase (%u)", e->p.nph));
	memset(&e->d, 0, sizeof(e->d));
	e->d.phase = k;
	memset(e->recv_done, 0, (e->maxrecv + 1) * sizeof(uint32_t));
	memset(e->relay_done, 0, (e->maxrelay + 1) * sizeof(uint32_t));
	memset(e->relay_bytes, 0, (e->maxrelay + 1) * sizeof(uint64_t));
	memset(e->send_blk, 0, (e->maxsend + 1) * sizeof(uint32_t));
	memset(e->send_off, 0, (e->maxsend + 1) * sizeof(uint32_t));
	dl = t0 + (uint64_t)e->p.deadline_ms * 1000000u;
	/* An abort that came with the last answer waits in the session's
	 * buffer, where polling its descriptor would not see it. */
	if (e->ab.fd >= 0 && e->ab.check(e->ab.arg, why, sizeof(why)))
		return (ex_fail(e, -ECANCELED, "aborted: %s", why));
	dark = gate(e);
	for (i = 0; i < e->p.nports; i++) {
		xport_epoch(e->port[i].x, e->run32, (uint16_t)k,
		            (uint16_t)e->p.node);
		/* Frames of this phase that came early count as its first
		 * bytes. */
		e->port[i].fed = e->port[i].in.tail != e->port[i].in.head;
		e->port[i].last_in_ns = t0;
	}
	for (;;) {
		moved = 0;
		for (i = 0; i < e->p.nports; i++) {
			if ((rv = ex_flush(e, i)) < 0)
				return (rv);
			moved |= rv;
		}
		if ((rv = ex_inject(e)) < 0)
			return (rv);
		moved |= rv;
		for (i = 0; i < e->p.nports; i++) {
			if ((rv = ex_pull(e, i)) < 0)
				return (rv);
			moved |= rv;
			if ((rv = ex_consume(e, i)) < 0)
				return (rv);
			moved |= rv;
		}
		if (phase_done(e))
			break;
		if ((now = mono_ns()) > dl) {
			missing(e, why, sizeof(why));
			return (ex_fail(e, -ETIMEDOUT,
			                "timed out after %.1f s: %s",
			                e->p.deadline_ms / 1000.0, why));
		}
		/* Data that keeps moving (a dark fibre takes all it is
		 * given) must not hide an abort: looked for every 20 ms. */
		/* ... and a plane still dark is looked for at once: its
		 * release comes pushed on the session. */
		if ((moved && now - t_ab > 20000000u) || dark) {
			t_ab = now;
			/* While a plane is dark its release may already wait
			 * in the session's buffer (read with the barrier's
			 * answer), where polling the descriptor would not
			 * see it: asked for directly. */
			if (dark ? e->ab.fd >= 0 &&
			               e->ab.check(e->ab.arg, why, sizeof(why))
			         : aborted(e, why, sizeof(why)))
				return (ex_fail(e, -ECANCELED, "aborted: %s",
				                why));
			dark = gate(e);
		}
		if (moved)
			continue;
		if ((rv = ex_stalled(e, now)) < 0)
			return (rv);
		if (wait_io(e, why, sizeof(why)))
			return (ex_fail(e, -ECANCELED, "aborted: %s", why));
		dark = gate(e);
	}
	e->d.data_ns = mono_ns() - t0;
	*done = e->d;
	return (0);
}

/* Explicit blocks: the node holds, whole, every listed block that ends
 * here and nothing else. */
static int
finish_v(struct exec *e)
{
	uint32_t i;
	char     bn[64];

	for (i = 0; i < e->p.nvb; i++) {
		int mine = e->p.vb[i].dst == e->p.node;

		if (mine ==
		    (e->vheld[i] && e->slots[i].have == e->p.vb[i].len))
			continue;
		ex_bname(e, e->p.vb[i].id, bn, sizeof(bn));
		return (ex_fail(e, -EPROTO, "end: node %u %s %s", e->p.node,
		                mine ? "lacks" : "still holds", bn));
	}
	return (0);
}

/* A topology collective's end: every chunk held whole; every output
 * element of a reduction (a ReduceScatter's own chunks, every chunk of
 * an AllReduce) is the sum of every node's contribution. */
static int
finish_coll(struct exec *e, uint64_t *verified)
{
	uint32_t b, sl, off, len, nb = e->p.n * e->p.parts;
	int64_t  bad;
	char     bn[48];

	for (b = 0; b < nb; b++) {
		ex_bname(e, b, bn, sizeof(bn));
		if ((sl = ex_find(e, b)) == NONE ||
		    e->slots[sl].have != ex_blk_size(e, b))
			return (ex_fail(e, -EPROTO, "end: node %u lacks %s",
			                e->p.node, bn));
		if (e->p.coll == SCHED_ALLGATHER ||
		    (e->p.coll == SCHED_REDUCESCATTER &&
		     b / e->p.parts != e->p.node))
			continue;
		for (off = 0; off < ex_blk_size(e, b); off += len) {
			len = ex_blk_size(e, b) - off < e->p.chunk
			          ? ex_blk_size(e, b) - off
			          : e->p.chunk;
			if ((bad =
			         ex_sum_check(e, b, ex_slot_data(e, sl) + off,
			                      off, len)) >= 0)
				return (ex_fail(
				    e, -EPROTO,
				    "end: node %u's sum of %s wrong at "
				    "byte %lld",
				    e->p.node, bn, (long long)bad));
		}
		/* AllReduce counted the others' blocks as they came. */
		if (e->p.coll == SCHED_REDUCESCATTER ||
		    b / e->p.parts == e->p.node)
			(*verified)++;
	}
	return (0);
}

int
exec_finish(struct exec *e, uint64_t *verified, char *err, size_t errlen)
{
	uint32_t i, want = e->p.n * e->p.parts;

	e->err = err;
	e->errlen = errlen;
	*verified = 0;
	if (e->p.vb != NULL)
		return (finish_v(e));
	if (ex_is_coll(&e->p))
		return (finish_coll(e, verified));
	if (e->nheld != want)
		return (ex_fail(e, -EPROTO,
		                "end: node %u holds %u blocks, expected %u",
		                e->p.node, e->nheld, want));
	for (i = 0; i <= e->hmask; i++) {
		const struct slot *s;

		if (e->hash[i] == 0)
			continue;
		s = &e->slots[e->hash[i] - 1];
		if (sched_blk_dst(&e->lay, s->blk) != e->p.node ||
		    s->have != ex_blk_size(e, s->blk)) {
			char bn[48];

			ex_bname(e, s->blk, bn, sizeof(bn));
			return (ex_fail(
			    e, -EPROTO,
			    "end: node %u holds %s, which is not its own or "
			    "is incomplete",
			    e->p.node, bn));
		}
	}
	return (0);
}

uint32_t
exec_drain(struct xport *ports, uint32_t nports)
{
	uint8_t  buf[65536];
	uint32_t i, gone = 0;
	ssize_t  r;

	for (i = 0; i < nports; i++) {
		while ((r = xport_recv(&ports[i], buf, sizeof(buf))) > 0)
			;
		gone += r == 0 || (r < 0 && r != -EAGAIN);
	}
	return (gone);
}
