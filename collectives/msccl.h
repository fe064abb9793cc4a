/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * MSCCL XML export of a schedule from the IR: a uniform All-to-All
 * (msccl.c) or a topology collective (msccl_topo.c).  <algo> of <gpu> of
 * <tb> of <step>, with every attribute the runtimes read, for the
 * runtimes that execute it: msccl-executor-nccl and RCCL (the current
 * dialect, the default) or the legacy microsoft/msccl.
 *
 * Every transfer between two ranks is keyed, the key the same at both
 * ends and unique, and every dependency points to a smaller key.  A
 * thread block holds one connection end (its sends to one peer, or its
 * receives from one), or where a rank would need more thread blocks than
 * the runtime has, both ends it shares with one peer; its steps go in key
 * order.  Then the step with the smallest key not yet run can always run,
 * even with one buffer slot a connection: the runtime's Simple protocol
 * lets two sends wait unreceived on a connection, so nothing deadlocks.
 * The writer plays every export with two slots before writing it and
 * refuses one that would wait forever.
 *
 * A connection end longer than the runtime's steps a thread block is cut
 * into slices, slice j of a connection on a channel of its own at both
 * ends; channels and thread blocks are checked against the runtime's
 * limits (msccl_limits).
 */
#ifndef COLL_MSCCL_H
#define COLL_MSCCL_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/sched.h"

#define MSCCL_MAX_HOPS 4096

enum msccl_dialect {
	/* msccl-executor-nccl and RCCL: coll="reducescatter", runtimes
	 * built with MSCCL_MAX_NUM_STEPS 64 (RCCL hard-codes it), RCCL's 64
	 * thread blocks a rank. */
	MSCCL_CURRENT,
	/* microsoft/msccl (and msccl-tools' output): coll="reduce_scatter",
	 * 256 steps a thread block. */
	MSCCL_LEGACY,
};

struct msccl_opts {
	enum msccl_dialect dialect;
	uint32_t max_steps; /* steps a thread block; 0: the dialect's */
};

/* What a runtime accepts (both dialects' parsers and kernels). */
struct msccl_limits {
	const char *reducescatter; /* the coll attribute */
	uint32_t    max_steps;     /* MSCCL_MAX_NUM_STEPS */
	uint32_t    max_tbs;       /* thread blocks a rank */
	uint32_t    max_tb_chan;   /* send (receive) peers a channel, a rank */
	uint32_t    max_chan;      /* MAXCHANNELS */
	uint32_t    max_nodes;     /* XML elements the parser keeps a rank */
	uint32_t    max_off;       /* chunk offsets are int16_t */
	uint32_t    slots;         /* unreceived sends a connection (Simple) */
};

#define MSCCL_STEPS_CURRENT 64
#define MSCCL_STEPS_LEGACY  256
#define MSCCL_STEPS_MAX     1024 /* the parsers' MAX_SUBS */

/* "current" or "legacy": 0, or -EINVAL. */
int         msccl_dialect_parse(const char *, enum msccl_dialect *);
const char *msccl_dialect_name(enum msccl_dialect);

/* The limits for opts (NULL: the current dialect's defaults). */
void msccl_limits(const struct msccl_opts *, struct msccl_limits *);

/*
 * The XML for schedule s planned for `bytes` a rank, into a malloc'd
 * *xml (*len bytes, NUL terminated); opts NULL for the defaults.  0,
 * -ENOMEM, or -EINVAL with one line in err (a skewed All-to-All, whose
 * blocks are not equal shares, or beyond the runtime's limits: channels,
 * thread blocks, chunks, XML elements), or -EDEADLK (a program that
 * would wait forever with the runtime's two slots a connection; the
 * exporters do not write one, the check stands guard).
 */
int msccl_export(const struct sched *s, uint64_t bytes,
                 const struct msccl_opts *opts, char **xml, size_t *len,
                 char *err, size_t errlen);
/* The same into the file path (created or truncated); a negative errno
 * with one line in err if it cannot be written. */
int msccl_write(const struct sched *s, uint64_t bytes,
                const struct msccl_opts *opts, const char *path, char *err,
                size_t errlen);

#endif
