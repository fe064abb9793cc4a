/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-plan's command line (the contract of issue #2): parsed into a struct
 * with one-line errors that name the option and its value.  Kept apart
 * from main so tests can feed it argument vectors.
 */
#ifndef COLL_PLAN_CLI_H
#define COLL_PLAN_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/planes.h"

struct sched;
struct msccl_opts;

#define PLAN_MAX_NODES  (1u << 24)
#define PLAN_MAX_PHASES 64

enum plan_reconf {
	PLAN_RECONF_AUTO,
	PLAN_RECONF_NONE,
	PLAN_RECONF_ALL,
	PLAN_RECONF_LIST,
};

struct plan_opts {
	const char      *algo;
	uint32_t         nodes;
	uint64_t         bytes;
	double           delay[PLAN_MAX_PHASES]; /* as given */
	uint32_t         ndelay;
	const char      *delay_arg;
	double           alpha_s, alpha_h, rate; /* s, s, bit/s */
	double           reconf_s; /* --model: added to every delay */
	double           frame;    /* --model: store-and-forward, 0: none */
	enum plan_reconf reconf;
	uint32_t         rlist[PLAN_MAX_PHASES];
	uint32_t         nrlist;
	const char      *reconf_arg;
	int              validate, phases, json, simulate, help;
	uint64_t         chunk; /* 0: default */
	/* Fixed-topology mode (--topology): tsyn.h. */
	const char *topology;   /* file, generator or shipped name */
	const char *collective; /* allgather | reducescatter | allreduce */
	uint32_t    chunks;     /* per GPU share (default 1) */
	int         chunks_set, bytes_set; /* given on the command line */
	int         steps;                 /* print every slot's sends */
	/* Skewed All-to-All mode (--matrix): skew.h. */
	const char *matrix; /* file or generator */
	uint32_t    gpus;   /* per server (0 until checked, then >= 1) */
	uint32_t    planes; /* transceivers a node (0 until checked) */
	uint32_t    radix;  /* ReTri's, 0: 3 */
	/* --export FORMAT FILE: "msccl" (ring algorithms) or "chakra"
	 * (any schedule; export_file is the prefix).  The program sets
	 * chakra, the writer (proto/chakra.h; the library cannot reach
	 * protobuf-c), for the modes to call on a validated schedule. */
	const char *export_fmt, *export_file;
	/* --msccl-dialect current|legacy, --max-steps N: the runtime the
	 * MSCCL XML is for (msccl.h; 0: the dialect's steps). */
	int      msccl_legacy;
	uint32_t max_steps;
	int (*chakra)(const struct sched *, double reconf_s,
	              const char *prefix, char *err, size_t len);
	double su_rate, su_alpha;
	int    su_rate_set;
	/* --planes: the ring algorithms on planes of transceivers
	 * (planes.h), together, apart or the model's cheaper. */
	enum planes_mode planes_mode;
};

/*
 * Parse argv.  Returns 0 (opts filled; opts->help set for --help), or
 * -EINVAL with one line in err naming the option and value.
 */
int plan_parse(int argc, char **argv, struct plan_opts *, char *err,
               size_t errlen);

/* Checks that need the number of phases: the --delay list length and the
 * --reconfig indices.  0 or -EINVAL with err filled. */
int plan_check(const struct plan_opts *, uint32_t nphases, char *err,
               size_t errlen);

/* The MSCCL runtime --msccl-dialect and --max-steps name. */
void plan_msccl_opts(const struct plan_opts *, struct msccl_opts *);

/* The usage text. */
const char *plan_usage(void);

#endif
