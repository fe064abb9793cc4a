/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TE-CCL's input files (microsoft/TE-CCL, teccl/input_data.py: a JSON
 * object of TopologyParams, GurobiParams and InstanceParams) as a
 * topology and an instance.  TE-CCL builds its topologies in Python
 * classes; the shipped files are those classes evaluated (gen.py), so
 * DGX1, DGX2 (2 chassis), AMD (1 chassis) and NDv2 (1, 2, 4, 8, 10
 * chassis) map to them, and Mesh is built here as TE-CCL builds it.
 * Every key TE-CCL's dataclasses define is accepted (the solver's
 * settings are read and ignored: there is no MILP here); any other key,
 * or a value of the wrong type or range, is named in one line.  Where
 * the topology is not TE-CCL's (NDv2 with 2 chassis), note says how.
 */
#ifndef COLL_TOPO_TECCL_H
#define COLL_TOPO_TECCL_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/topo.h"

struct topo_teccl {
	char     name[16];    /* TopologyParams.name as given */
	char     builtin[16]; /* the shipped topology, "" for a Mesh */
	uint32_t chassis, side;
	double   alpha;       /* TopologyParams.alpha[0], s */
	int      alpha_links; /* the topology takes alpha on every link */
	double   chunk_bytes; /* TopologyParams.chunk_size (GB) in bytes */
	uint32_t num_chunks;  /* InstanceParams.num_chunks */
	int      alltoall;    /* InstanceParams.collective 2 */
	char     note[400];   /* what differs from TE-CCL's class, or "" */
};

/* Is text a TE-CCL input?  0 (x filled), -ENOENT (not one: no
 * TopologyParams), or -COLL_ETOPO with one line in err. */
int topo_teccl_parse(const char *text, size_t len, struct topo_teccl *x,
                     char *err, size_t errlen);

/* TE-CCL's Mesh: side^2 GPUs, i linked both ways to i +- 1 and i +- side
 * (TE-CCL's own rule, so the last GPU of a row reaches the first of the
 * next), 100 GB/s, alpha.  0, -ENOMEM or -COLL_ETOPO. */
int topo_teccl_mesh(const struct topo_teccl *x, struct topo *t, char *err,
                    size_t errlen);

#endif
