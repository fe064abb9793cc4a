/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixed topologies for schedule synthesis (spec/topology-synthesis.md):
 * nodes that are GPUs (they hold and need data) or switches / border
 * routers (they forward and may copy, but have no demand), and directed
 * links with a bandwidth and a latency.  Loaded from JSON text (no I/O
 * here: the caller reads the file) or made by a generator; every
 * malformed input gets one line naming the field and the value.
 *
 * File format:
 *   { "name": "dgx1", "source": "...",
 *     "nodes": [ {"name": "g0", "kind": "gpu", "group": "chassis0"}, ...],
 *     "links": [ {"src": "g0", "dst": "g1", "bandwidth": "50GBps",
 *                 "latency": "700ns", "both": true,
 *                 "distance_km": 1200}, ... ] }
 * kind is gpu, switch or router; group is optional; bandwidth takes the
 * rate units of units.h (Gbps, GBps, GiBps, ...), latency the time units;
 * "both" adds the reverse link too; distance_km adds propagation in fibre
 * (5 us per km) to the latency.
 *
 * Generators: ring:N:RATE:TIME, mesh:RxC:RATE:TIME (a plain grid),
 * subring:N:S1[,S2...]:RATE:TIME (the OCS circuit configurations: node i
 * joined to i + S and i - S for each stride S),
 * torus:AxBxC:RATE:TIME (wrap-around in every dimension; 1 to 3
 * dimensions), all links bidirectional.
 */
#ifndef COLL_TOPO_H
#define COLL_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define TOPO_NAME_MAX       32
#define TOPO_MAX_NODES      4096
#define TOPO_MAX_LINKS      65536
#define TOPO_FIBRE_S_PER_KM 5e-6

enum topo_kind { TOPO_GPU, TOPO_SWITCH, TOPO_ROUTER };

struct topo_node {
	char           name[TOPO_NAME_MAX];
	enum topo_kind kind;
	int32_t        group; /* index in topo.groups, or -1 */
	int32_t        gpu;   /* GPU index 0..ngpu-1, or -1 */
};

struct topo_link {
	uint32_t src, dst;
	double   bw;    /* bytes per second */
	double   alpha; /* seconds */
};

struct topo {
	char              name[64];
	uint32_t          n, ngpu, nlink, ngroup;
	struct topo_node *node;
	struct topo_link *link;
	uint32_t         *gpu_node; /* [ngpu]: node of GPU g */
	char (*groups)[TOPO_NAME_MAX];
	/* Links by endpoint (CSR): out[out_off[u] .. out_off[u+1]) are the
	 * indices of u's outgoing links, in[...] of its incoming ones. */
	uint32_t *out_off, *out, *in_off, *in;
	double    bw_max; /* the fastest link */
};

/* Parse JSON text.  0, -ENOMEM, or -COLL_ETOPO with one line in err. */
int topo_parse(const char *text, size_t len, struct topo *, char *err,
               size_t errlen);
/* A generator spec (ring:, mesh:, torus:).  Same returns; -ENOENT if the
 * spec is not a generator at all. */
int  topo_generate(const char *spec, struct topo *, char *err, size_t errlen);
void topo_free(struct topo *);

/* The file name (under the shipped topology directory) of a named
 * topology ("dgx1", "ndv2:4", ...), or NULL if name is not one. */
const char *topo_builtin_file(const char *name, char *buf, size_t len);
/* The names, for messages. */
const char *topo_builtin_names(void);

/* The link u -> v, or -1. */
int64_t topo_link_of(const struct topo *, uint32_t u, uint32_t v);

#endif
