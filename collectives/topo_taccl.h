/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TACCL's topology profiles (microsoft/taccl, taccl/topologies/generic.py:
 * name, gpus_per_node, nics_per_node, alpha, node_betas_list,
 * node_invbws_list, remote_alpha, remote_beta, remote_invbw) and, for more
 * than one node, its communication sketches (nnodes, and the inter-node
 * connections internode_sketch.internode_conn {"GPU": [GPUs]}), as a
 * topology in our terms:
 *
 * - the node: NDv2 (8 GPUs, TACCL's hybrid cube mesh with its two link
 *   classes), DGX2 (16 GPUs all joined, one class), or for another name
 *   with one class TACCL's hub-and-spoke (every pair joined);
 * - a link of class k is busy node_invbws_list[k] us a chunk (its rate:
 *   chunk / invbw) and delivers it alpha + node_betas_list[k] us after
 *   it starts (its latency: what that takes beyond the busy time), the
 *   chunk being the size at the end of the profile's name (NDv2_1MB:
 *   1 MiB, DGX2_32KB: 32 KiB, binary as TACCL's buffer sizes are);
 * - with a sketch of n nodes, GPU s of every node sends to GPU r of every
 *   other node for each r in internode_conn[s] (TACCL's _add_ext_edge),
 *   with remote_invbw, remote_alpha and remote_beta alike.
 *
 * Unknown keys, wrong types and inconsistent sizes are named in one line.
 */
#ifndef COLL_TOPO_TACCL_H
#define COLL_TOPO_TACCL_H

#include <stddef.h>

#include "collectives/topo.h"

/* profile (and sketch, nullable) as a topology.  0, -ENOENT (the profile
 * is not TACCL's: no node_invbws_list), -ENOMEM or -COLL_ETOPO with one
 * line in err. */
int topo_taccl_parse(const char *profile, size_t plen, const char *sketch,
                     size_t slen, struct topo *t, char *err, size_t errlen);

#endif
