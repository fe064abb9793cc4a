/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Collective runs inside ocsd (run.c, run_plan.c, run_report.c): plans
 * made with the collectives library, barriers in lockstep with the
 * switch worker, the report.  The runner owns its state, its deadline
 * timer and its reconfiguration job; it hears from the agents' registry
 * through the callbacks it registers (agents.h) and answers agents
 * through the registry's senders.  Everything is called with d->mtx held
 * but run_init, run_listen, run_stop and run_fini.
 */
#ifndef OCS_RUN_H
#define OCS_RUN_H

#include <stdint.h>

#include "ocsd/agents.h"
#include "ocsd/ocsd.h"

#define RUN_MAX_PHASES 256

/* An operator's run request, in ocsd's terms (ctl.c fills it from the
 * wire).  Unset numbers (has_* 0, or 0) take the configuration's. */
struct run_req {
	char     algo[16];
	char     reconfig[256]; /* "" for auto */
	uint64_t bytes;
	uint32_t nodes, chunk;
	int      has_alpha_s, has_alpha_h, has_delta;
	int      keep; /* keep the run's last configuration as the map */
	double   bandwidth_bps, alpha_s, alpha_h, delta;
	/* A skewed All-to-All: mn * mn bytes (ctl_check checked the
	 * shape), pointing into the request; NULL for uniform blocks. */
	const uint64_t *matrix;
	uint32_t        mn;
	uint32_t        radix; /* retri's, 0: 3 */
	char planes[16];       /* together | apart | auto; "": as before */
	char matrix_name[128];
	/* A synthesised collective ("" for All-to-All): its name, the
	 * topology (a generator or JSON text, pointing into the request;
	 * NULL: ring:N) and chunks per node (0: 1). */
	char        collective[16];
	const char *topology;
	uint32_t    chunks;
	/* FAST's servers executed (run_srv.c): 0 or 1 none, else nodes in
	 * servers of gpus; their local links' rate and latency (0: the
	 * configuration's). */
	uint32_t gpus;
	double   su_bps, su_alpha;
	int      has_su_alpha;
};

/* One agent's time in a run, as it reported it. */
struct run_node_time {
	uint64_t setup_ns, teardown_ns;
	struct {
		uint64_t data_ns, verify_ns, wait_ns;
	} ph[RUN_MAX_PHASES];
};

/* What a run did, phase by phase, beside what the model predicted. */
struct run_phase_report {
	int      reconfigured, has_control;
	double   reconf_s, data_s, barrier_s, predicted_s, control_s;
	double   link_s; /* the switch settled to every link up */
	uint64_t bytes;
	/* Servers: what the plan moves (every hop), and of it locally. */
	uint64_t planned_bytes, local_bytes;
	/* Planes apart, a barrier: each plane's switch time and release
	 * after the last Ready (nplanes in the report; pmask the planes
	 * reconfigured). */
	int      apart;
	uint32_t pmask;
	double   plane_reconf_s[8], plane_release_s[8];
};
struct run_report {
	uint64_t                id;
	const char             *algo;
	const char             *matrix;   /* skewed runs, else NULL */
	const char             *topology; /* synthesised collectives */
	uint32_t                joined;   /* agents joined when asked */
	const char             *left_out; /* of them not in it, why; NULL */
	uint32_t                nodes, nph, nbefore;
	uint64_t                bytes, verified, errors;
	double                  delta_s, bandwidth_bps, alpha_s, alpha_h;
	double                  switch_s, link_up_s; /* delta's terms */
	double                  total_s, predicted_s;
	uint32_t                before[RUN_MAX_PHASES];
	struct run_phase_report ph[RUN_MAX_PHASES];
	/* A fabric's planes (--planes): "together" or "apart" (NULL: not
	 * asked), the model both ways, and each plane's switch. */
	const char *planes;
	double      pred_together_s, pred_apart_s;
	uint32_t    nplanes;
	const char (*plane_name)[16];
	const char (*hosts)[64];        /* nodes of them */
	const struct run_node_time *nt; /* nodes of them */
	uint64_t                    started_unix_ms;
	double                      wall_s; /* request to report */
	uint32_t                    gpus;   /* servers' size, 0: none */
	double                      su_bps; /* their local links' rate */
};

/* What the runner calls at every run's end besides its waiter (ocsd
 * keeps the record: runs.jsonl); called with d->mtx held. */
struct run_hooks {
	void *arg;
	void (*record)(void       *arg, const struct run_report *,
	               const char *aborted);
	/* Before a run first changes the switch: its intent, durable (a
	 * restart finds it, puts the desired map back and records the run
	 * as interrupted).  0, or an error with err set (nothing changes). */
	int (*intent)(void *arg, const struct run_report *, char *err,
	              size_t len);
};

/* Who waits for a run: done is called once, with d->mtx held, before
 * the run's aio finishes: rv 0 (completed) or -OCSD_EABORT with why, and
 * the report (valid during the call only). */
struct run_waiter {
	void *arg;
	void (*done)(void *arg, int rv, const char *why,
	             const struct run_report *);
};

/* The runner's state and aios, for the life of ocsd. */
int  run_init(struct ocsd *, const struct run_hooks *);
void run_fini(struct ocsd *);
/* Hear the agents' registry. */
void run_listen(struct ocsd *, struct agents *);

/*
 * Start a run for an operator: aio is the waiting control context's
 * (finished when the run ends, cancelled: the run aborts), w hears the
 * outcome and the report first.  0, or an error with one line in err
 * (nothing started).
 */
int run_start(struct ocsd *, const struct run_req *,
              const struct run_waiter *w, nng_aio *aio, char *err,
              size_t errlen);
/* End the run in progress, if any, for every agent with this reason. */
void run_abort(struct ocsd *, const char *fmt, ...)
    __attribute__((__format__(printf, 2, 3)));
/* Is a run in progress?  Why did the last one end early ("" if not)? */
int run_busy(const struct ocsd *);
/* A run being planned: 1 and a line for status (its id, how long, which
 * planner), else 0. */
int run_planning(const struct ocsd *, char *buf, size_t len);
/* The run in progress (1) and the phase its agents are in, or 0. */
int         run_where(const struct ocsd *, uint64_t *id, uint32_t *phase);
const char *run_last_abort(const struct ocsd *);
/* Shutdown: abort and release everything (takes d->mtx). */
void run_stop(struct ocsd *);

#endif
