/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the MSCCL exporters (msccl.h): the steps an exporter collects,
 * and the writer they share: steps merged into steps of several chunks
 * (msccl_merge.c), laid out in thread blocks and channels within the
 * runtime's limits (msccl_layout.c), played to check the program cannot
 * deadlock (msccl_play.c) and printed (msccl_xml.c).
 */
#ifndef COLL_MSCCL_INT_H
#define COLL_MSCCL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/msccl.h"
#include "collectives/sched.h"

enum { ST_S, ST_R, ST_CPY, ST_RRC };

/* A buffer location: 'i', 'o' or 's' and a chunk index. */
struct mloc {
	char     buf;
	uint32_t off;
};

/*
 * One step.  A send (ST_S) and its receive (ST_R, ST_RRC) carry the
 * transfer's key (k1, k2): the same at both ends, unique among the
 * transfers, and larger than the key of the step dep names.  Copies
 * (ST_CPY) have no peer and no key.  A send's dst and a receive's src
 * name the location at the peer (a receive that reduces, ST_RRC, reads
 * its own src).
 */
struct mstep {
	uint32_t    node;
	uint8_t     type, hasdep;
	uint32_t    peer; /* the receiver of a send, the sender of a receive */
	struct mloc src, dst;
	uint64_t    k1, k2;
	int64_t     dep;  /* index in steps[] (as added) of the step it waits
	                  * for, or -1 */
	uint32_t    orig; /* index as added */
	/* Set by the writer. */
	uint32_t cnt;    /* chunks (a merged step) */
	uint64_t stream; /* the connection end(s) of its thread block */
	uint32_t slice, chan, tb, idx;
};

#define MSTEP_NONE UINT32_MAX

/* What the <algo> and <gpu> tags say. */
struct mhead {
	const char *name, *coll;
	uint32_t    ngpus, nchunks;
	uint32_t    ic, oc;   /* input and output chunks a rank */
	uint32_t   *scratch;  /* [ngpus]: scratch chunks a rank */
	uint64_t    min, max; /* bytes */
};

struct msteps {
	struct mstep *st;
	size_t        n, cap;
};

/* Append m (its orig set here).  0, -ENOMEM, -COLL_ETOOBIG. */
int  msteps_add(struct msteps *, const struct mstep *m);
void msteps_free(struct msteps *);

/* A thread block of the laid-out steps: [first, first + n), its channel,
 * its send and receive peers (-1: none). */
struct mtb {
	size_t   first;
	uint32_t n, node, chan;
	int64_t  send, recv;
};

/* A dependency of a step merged into another: the merged step waits for
 * it too. */
struct mxdep {
	uint32_t step, dep; /* orig indices */
};

/*
 * A layout of an exporter's steps (a copy: a layout that does not fit is
 * thrown away and another tried).  After msccl_layout, v holds the steps
 * that are written (merged ones gone into the step they joined), sorted
 * by rank, thread block and index, and:
 */
struct mlay {
	struct msteps v;
	size_t        norig; /* steps as the exporter added them */
	uint32_t     *lead;  /* [norig]: the step (orig) it was merged into */
	struct mxdep *xd;    /* merged steps' dependencies, by step */
	size_t        nxd;
	uint32_t     *pos;    /* [norig]: index in v of its step */
	size_t       *dfirst; /* [v.n + 1]: step i waits for dl[dfirst[i]..] */
	size_t       *dl;     /* indices in v */
	uint32_t     *nop;    /* [v.n]: nop steps before it (one more
	                       * dependency each) */
	struct mtb   *tbs;
	size_t        ntb;
	uint32_t      nchan;
};

/*
 * Lay out the exporter's steps for h->ngpus ranks: a thread block a
 * connection end, or (pair) both ends shared with one peer; steps of
 * consecutive chunks merged; cut into slices within lim's steps a thread
 * block, on channels within its channels and thread blocks.  0, -ENOMEM,
 * -E2BIG (more thread blocks than lim allows: try pair) or -EINVAL, with
 * one line in err.  mlay_free frees it either way.
 */
int  msccl_layout(const struct msteps *, uint32_t  ngpus,
                  const struct msccl_limits *, int pair, struct mlay *,
                  char *err, size_t errlen);
void mlay_free(struct mlay *);

/* Merge (msccl_merge.c): scratch chunks renumbered in the order the
 * sorted steps use them, then runs of a connection's consecutive
 * transfers merged into steps of up to max_cnt chunks.  0 or -ENOMEM. */
int msccl_merge(struct mlay *, int pair, uint32_t max_cnt);

/*
 * Play the laid-out program as the runtime's kernel runs it: every
 * thread block runs its steps in order; a step waits for the steps it
 * depends on; a send waits while `slots` sends wait unreceived on its
 * connection (channel, sender, receiver); a receive waits for its send.
 * 0 when every step runs, or -EDEADLK (or -EINVAL for a connection
 * without one thread block at each end) with err naming the first
 * thread block left waiting.
 */
int msccl_play(const struct mlay *, uint32_t slots, char *err, size_t errlen);

/* Lay out, play and print the XML into a malloc'd *xml.  0, -ENOMEM,
 * -EDEADLK or -EINVAL with one line in err. */
int msccl_write_xml(const struct msteps *, const struct mhead *,
                    const struct msccl_limits *, char **xml, size_t *len,
                    char *err, size_t errlen);

/* The topology schedules' exporter (msccl_topo.c). */
int msccl_export_topo(const struct sched *, uint64_t      bytes,
                      const struct msccl_limits *, char **xml, size_t *len,
                      char *err, size_t errlen);

#endif
