/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the MSCCL exporters (msccl.h): the steps an exporter collects,
 * and the writer they share, which sorts them into thread blocks, checks
 * MSCCL's limits and prints the XML.
 */
#ifndef COLL_MSCCL_INT_H
#define COLL_MSCCL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/sched.h"

enum { ST_S, ST_R, ST_RCS, ST_CPY, ST_RRC };

/* A buffer location: 'i', 'o' or 's' and a chunk index. */
struct mloc {
	char     buf;
	uint32_t off;
};

struct mstep {
	uint32_t    node, chan;
	uint64_t    grp; /* thread block: steps of one node with one grp */
	uint8_t     type, hasdep;
	uint32_t    peer_out, peer_in; /* MSTEP_NONE where it has none */
	struct mloc src, dst;
	uint64_t    k1, k2;  /* order in the thread block */
	int64_t     dep;     /* index in steps[] of the step it waits for */
	uint32_t    orig;    /* index before sorting */
	uint32_t    tb, idx; /* after sorting */
};

#define MSTEP_NONE UINT32_MAX
#define CHAN_COPY  UINT32_MAX /* the local copies' thread block */
#define GRP_COPY   UINT64_MAX

/* What the <algo> and <gpu> tags say. */
struct mhead {
	const char *name, *coll;
	uint32_t    ngpus, nchan, nchunks;
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

/*
 * Sort the steps into thread blocks (node, grp), number them, resolve
 * dependencies, check MSCCL's limits (steps a thread block, thread blocks
 * a channel, one send and one receive peer a thread block) and print the
 * XML into a malloc'd *xml.  0, -ENOMEM, or -EINVAL with one line in err.
 */
int msccl_write_xml(struct msteps *, const struct mhead *, char **xml,
                    size_t *len, char *err, size_t errlen);

/* The topology schedules' exporter (msccl_topo.c). */
int msccl_export_topo(const struct sched *, uint64_t bytes, char **xml,
                      size_t *len, char *err, size_t errlen);

#endif
