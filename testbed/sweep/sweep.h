/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep: "is reconfiguring worth it at this delta?" over algorithms,
 * node counts, message sizes and reconfiguration delays, from the model
 * (every point) and the link simulator (--simulate), into a CSV that a
 * second run resumes, with heatmaps of speedup drawn by gnuplot.
 */
#ifndef OCS_SWEEP_H
#define OCS_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "collectives/cmodel.h"
#include "collectives/cost.h"
#include "testbed/sweep/sweep_bed.h"
#include "testbed/sweep/sweep_cpu.h"
#include "testbed/sweep/sweep_csv.h"

#include <jansson.h>

enum sweep_reconf { SWEEP_AUTO, SWEEP_NONE, SWEEP_ALL };

/* --simulate [ours|ns3|both]: which simulators fill the row. */
#define SWEEP_SIM_OURS 1 /* simulated_s: collectives/sim.c */
#define SWEEP_SIM_NS3  2 /* packet_s: ns-3 (sweep_ns3.c, bin/ocs-ns3) */

/* One pair a heatmap compares: time(b at nb) / time(a at na). */
struct sweep_pair {
	char     a[16], b[16];
	uint32_t na, nb;
};

#define SWEEP_MAX_ALGOS 8
#define SWEEP_MAX_PAIRS 16
#define SWEEP_MAX_JOBS  64

struct sweep {
	const char       *algo[SWEEP_MAX_ALGOS];
	size_t            nalgo;
	double           *nodes, *bytes, *delay;
	size_t            nnodes, nbytes, ndelay;
	struct cmodel     m;
	enum sweep_reconf reconf;
	int               simulate, plots; /* simulate: SWEEP_SIM_* bits */
	char              out[512];
	struct sweep_pair pair[SWEEP_MAX_PAIRS];
	size_t            npair;
	const char       *preset;
	/* Measured points (--measure) and calibration (--calibrate): on a
	 * local testbed (--local, relay at rate) or a running ocsd. */
	int         measure, calibrate, local, model_given;
	int         netns; /* local, in namespaces: the kernel's datapath */
	const char *ocsd;
	uint32_t    repeat;
	char        rate[32];
	const char *cal_out;
	unsigned    jobs;     /* threads for model points, 0 or 1: this one */
	char        hash[17]; /* the rows' model_hash (sweep_hash) */
	char        backend[160];
	char        ns3[480];              /* bin/ocs-ns3 */
	struct sweep_ns3_cache *ns3_cache; /* main's; NULL: none */
};

/* ns-3's times with delta taken out, by (algo, nodes, bytes, placement):
 * at every reconfiguration nothing is in flight while the switch takes
 * its delta, so a point's time is this plus its deltas, and the sweep's
 * delta axis costs one ns-3 run a placement, not one a point.  Shared
 * by --jobs threads under its mutex. */
struct sweep_ns3_cache;
struct sweep_ns3_cache *sweep_ns3_cache_new(void);
void                    sweep_ns3_cache_free(struct sweep_ns3_cache *);

/* The sweep's backend ("model", "+sim", "+ns3", "+measure:local:RATE")
 * and the rows' model_hash from it, the model and --reconfig. */
void sweep_hash(struct sweep *);

/* The model's point (and the simulator's, with simulate): the row's
 * algo, nodes, bytes, delta_s and model are set by the caller.  0, or
 * <0 with the reason in err. */
int sweep_point(const struct sweep *, struct sweep_row *, char *err,
                size_t len);

/* --simulate ns3 (sweep_ns3.c): the schedule of a, bytes and before
 * played by bin/ocs-ns3 on ns-3; *t its completion, NAN (and 0) when the
 * point is past what ns-3 plays in seconds.  0, or <0 with err. */
struct a2a;
int sweep_ns3_point(const struct sweep *, const struct a2a *, uint64_t bytes,
                    const struct cost_params *, const uint8_t *before,
                    double *t, char *err, size_t len);
/* The IR s in ocs-ns3's input format (testbed/ns3/ocs-ns3.cc) on f, a
 * reconfiguration before phase k costing cost_delta(cp, k); 0 or a
 * path's error. */
#include <stdio.h>
int sweep_ns3_write(FILE *f, const struct sched *s,
                    const struct cost_params *cp, double bps);

/* The point measured on the bed (sweep_measure.c): the row's plan run
 * s->repeat times, verified; 0, or -1 with the reason in err. */
int sweep_measure(const struct sweep *, const struct sweep_bed *,
                  struct sweep_row *, char *err, size_t len);
/* One run of the row's algo, nodes and bytes with ocsctl's --reconfig
 * argument; its verified JSON report (a new reference) in *report, and
 * (cpu nullable) the CPU the testbed and the machine used meanwhile. */
int sweep_run_once(const struct sweep_bed *, const struct sweep_row *,
                   const char *reconfig, json_t **report, struct cpu_use *cpu,
                   char *err, size_t len);
/* --calibrate (sweep_cal.c): a few verified runs on the bed, the model
 * fitted to them written to s->cal_out.  Exit status (0, 1). */
int sweep_calibrate(struct sweep *, struct sweep_bed *);

/* --rate auto (sweep_probe.c): the fastest fibre rate at which a local
 * testbed of n agents is bounded by its links, into s->rate (and the
 * bed's); 0, or -1 with why said on stderr (the CPU bounds every rate,
 * or the machine is busy with other work). */
int sweep_probe(struct sweep *, struct sweep_bed *, uint32_t n);

/* --jobs (sweep_jobs.c): fill(u, k, row) sets point k's row (called from
 * worker threads; nonzero: skip it), emit(u, k, row) writes a computed
 * row (the calling thread, in order of k; nonzero: stop).  0, or <0 with
 * the reason in err; an interruption (*stop) ends early with 0. */
struct sweep_jobs_ops {
	int (*fill)(void *u, size_t k, struct sweep_row *);
	int (*emit)(void *u, size_t k, const struct sweep_row *);
};
int sweep_jobs_run(const struct sweep *, unsigned jobs, size_t n,
                   const struct sweep_jobs_ops *, void *u,
                   volatile sig_atomic_t *stop, char *err, size_t len);

/* Heatmaps of every pair and completion-time plots from the CSV's rows
 * (sweep_plot.c), PNGs in s->out.  0, or -1 with the reason in err. */
int sweep_plots(const struct sweep *, const struct sweep_row *, size_t nrows,
                char *err, size_t len);

#endif
