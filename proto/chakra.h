/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Chakra execution traces of a schedule (the IR, any kind: All-to-All,
 * skewed, topology collectives), for ASTRA-sim to simulate at any scale:
 * one file a rank, PREFIX.RANK.et, each a stream of messages preceded by
 * their length as a protobuf varint, a GlobalMetadata first, then Nodes
 * (proto/chakra_et_def.proto, protobuf-c).
 *
 * Every hop of every transfer is a COMM_SEND_NODE on the rank it leaves
 * and a COMM_RECV_NODE on the rank it reaches, with comm_src, comm_dst
 * and comm_tag (the same on both ends, unique in the schedule) as int32,
 * comm_size (bytes) as int64 and is_cpu_op false: the types ASTRA-sim's
 * feeder up to August 2025 reads (it reads an int64 comm_src as 0;
 * FeederV3 converts either).  A relay's send depends on the receive
 * that brought the block.  Phases are kept apart as the agents keep
 * them: on each rank a COMP_NODE closes phase k, depending on everything
 * the rank did in it, and lasting the reconfiguration delay (in whole
 * microseconds, Chakra's unit) when phase k + 1 sets new circuits; phase
 * k + 1's nodes depend on it.  Every dependency is in data_deps, which
 * both feeders honour (the older one ignores ctrl_deps).
 */
#ifndef OCS_PROTO_CHAKRA_H
#define OCS_PROTO_CHAKRA_H

#include <stddef.h>

#include "collectives/sched.h"

/* Write s's traces to prefix.RANK.et for every rank, reconfigurations
 * lasting reconf_s.  0, or a negative code with one line in err naming
 * the file or the transfer. */
int chakra_export(const struct sched *s, double reconf_s, const char *prefix,
                  char *err, size_t len);

#endif
