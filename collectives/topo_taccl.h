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
 *   classes), DGX2 (16 GPUs joined by an NVSwitch: a switch node, so a
 *   GPU sends and receives one chunk at a time through it, TACCL's
 *   switch constraint), or for another name with one class TACCL's
 *   hub-and-spoke (every pair joined);
 * - a link of class k is busy node_invbws_list[k] us a chunk (whole us
 *   for NDv2 and DGX2, as TACCL takes them; its rate: chunk / invbw) and
 *   delivers it alpha + node_betas_list[k] us after it starts (its
 *   latency: what that takes beyond the busy time), the chunk being the
 *   size at the end of the profile's name (NDv2_1MB: 10^6 bytes, as
 *   TE-CCL reads TACCL's NDv2 figures, DGX2_32KB: 32000);
 * - with a sketch of n nodes, GPU s of every node sends to GPU r of every
 *   other node for each r in internode_conn[s], an object or TACCL's
 *   "fully-connected" (every GPU) or "direct-map" (the same GPU)
 *   (_add_ext_edge); every sender with as many remote GPUs, the node's
 *   NICs (NDv2 1, DGX2 8, else nics_per_node) shared as TACCL shares
 *   them: remote_beta times connections / NICs (whole us), a link
 *   remote_alpha + that a chunk, remote_invbw unused (cli/common.py);
 * - beyond two nodes TACCL lets each GPU's remote links share one link's
 *   rate each way: here a link gets its fixed share (1/k for a GPU with
 *   k remote links), never faster than TACCL and slower where fewer are
 *   busy.
 *
 * Where the topology differs from TACCL's model (the NVSwitch's two
 * hops, the NIC's fixed shares) note says so.  Unknown keys, wrong
 * types and inconsistent sizes are named in one line.
 */
#ifndef COLL_TOPO_TACCL_H
#define COLL_TOPO_TACCL_H

#include <stddef.h>

#include "collectives/topo.h"

/* profile (and sketch, nullable) as a topology; what differs from
 * TACCL's model in note (nullable; "" when nothing).  0, -ENOENT (the
 * profile is not TACCL's: no node_invbws_list), -ENOMEM or -COLL_ETOPO
 * with one line in err. */
int topo_taccl_parse(const char *profile, size_t plen, const char *sketch,
                     size_t slen, struct topo *t, char *note, size_t notelen,
                     char *err, size_t errlen);

#endif
