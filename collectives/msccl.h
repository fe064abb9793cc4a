/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSCCL XML export of a schedule from the IR: a uniform All-to-All (this
 * comment) or a topology collective (msccl_topo.c says how).  All-to-All:
 * <algo> of <gpu> of <tb> of <step>, with every attribute the MSCCL/RCCL
 * runtime reads.  Layout: rank r's input chunk d * parts + p is B[r,d].p,
 * its output chunk s * parts + p is B[s,r].p; blocks a rank keeps between
 * phases, or forwards within one, use scratch chunks.
 *
 * Channels: phase k, direction dir (0 right, 1 left) is channel 2k + dir;
 * on it a rank has one thread block sending to the next rank that way
 * and receiving from the previous one, so a thread block has one send and
 * one receive peer and each connection one thread block at either end.
 * In a thread block steps are ordered by the hop they are on (own sends,
 * then relays hop by hop, receives last), which is the same order on both
 * ends of every connection; a block kept over phases carries an explicit
 * dependency on the receive that brought it.
 */
#ifndef COLL_MSCCL_H
#define COLL_MSCCL_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/sched.h"

#define MSCCL_MAX_CHANNELS       32  /* NCCL's MAXCHANNELS */
#define MSCCL_MAX_STEPS          256 /* steps a thread block, MSCCL's limit */
#define MSCCL_MAX_TB_PER_CHANNEL 32  /* thread blocks a rank, a channel */
#define MSCCL_MAX_HOPS           4096

/*
 * The XML for schedule s planned for `bytes` a rank, into a malloc'd
 * *xml (*len bytes, NUL terminated).  0, -ENOMEM, or -EINVAL with one
 * line in err (a skewed All-to-All, whose blocks are not equal shares,
 * or beyond MSCCL's limits: channels, steps a thread block, thread
 * blocks a channel).
 */
int msccl_export(const struct sched *s, uint64_t bytes, char **xml,
                 size_t *len, char *err, size_t errlen);
/* The same into the file path (created or truncated); a negative errno
 * with one line in err if it cannot be written. */
int msccl_write(const struct sched *s, uint64_t bytes, const char *path,
                char *err, size_t errlen);

#endif
