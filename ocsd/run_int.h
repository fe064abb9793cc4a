/* SPDX-License-Identifier: BSD-2-Clause */
/* The runner's insides, shared by run.c, run_plan.c and run_report.c. */
#ifndef OCS_RUN_INT_H
#define OCS_RUN_INT_H

#include "collectives/a2a.h"
#include "collectives/topo.h"
#include "collectives/tsyn.h"
#include "ocsd/run.h"

#define RUN_MAX_BLOCKS ((uint64_t)1 << 24)
#define RUN_MAX_NODES  1024

struct run {
	uint64_t   id;
	char       algo[32]; /* "auto:" and the planner */
	uint32_t   n, nph, chunk, deadline_ms;
	uint64_t   bytes;
	struct a2a a;
	char       matrix_name[128]; /* skewed runs, else "" */
	/* Synthesised collectives: the topology (s.topo points here). */
	struct topo         topo;
	int                 has_topo;
	enum sched_coll     coll;
	enum tsyn_algo      talgo;
	struct sched        s;
	struct sched_nplan *plans;
	struct cost_params  cp;
	uint8_t             before[RUN_MAX_PHASES + 1];
	struct cost_phase   pc[RUN_MAX_PHASES];
	double              predicted;
	struct agent      **node; /* NULL once lost */
	char (*host)[64];
	/* Barriers: the phases that wait for everyone, then nph (the end);
	 * bi is the one the run waits for now. */
	uint32_t bar[RUN_MAX_PHASES + 1], nbar, bi, nready;
	int      reconfiguring;

	uint64_t t_first, t_start, t_end; /* us */
	double   reconf_ms[RUN_MAX_PHASES], barrier_ms[RUN_MAX_PHASES];
	double   control_ms[RUN_MAX_PHASES];
	uint64_t t_release[RUN_MAX_PHASES];
	uint64_t data_ns[RUN_MAX_PHASES], pbytes[RUN_MAX_PHASES];
	uint64_t verified, errors;
	struct run_node_time *nt; /* per node: where its time went */
	uint64_t              t_req, started_unix_ms; /* us; ms */

	int               keep; /* the last configuration stays (--keep) */
	struct run_waiter ctl;  /* the operator waiting for the report */
	nng_aio          *ctl_aio;
};

/* Is algo a skewed All-to-All planner (or auto)? */
int run_is_skew(const char *algo);

struct runner {
	struct run   *run; /* at most one at a time */
	uint64_t      last_id;
	char          last_abort[512]; /* why the last run ended early */
	nng_aio      *timer;           /* the current barrier's deadline */
	nng_aio      *reconf;          /* the reconfiguration job's */
	struct sw_job job;
	int           reconf_busy; /* the job is queued or running */
	struct map    prerun;      /* the switch before the run */
	/* Putting the switch back after a run: a job of its own, so that
	 * the next run need not wait for it (the worker keeps the order). */
	struct sw_job    rjob;
	nng_aio         *raio;
	int              restoring; /* 1 putting back, 2 keeping (--keep) */
	int              restore_again; /* another run ended meanwhile: 1, 2 */
	struct run_hooks hooks;
};

/* run_plan.c: a new run for request q on the active agents act[0..n),
 * planned and costed; 0 or an error with err set. */
int  run_plan(struct ocsd *, const struct run_req *q, struct agent **act,
              uint32_t n, struct run **out, char *err, size_t len);
void run_free(struct run *);
/* The switch map for phase k's circuits; other patches stay as they are
 * unless they touch a port of the run. */
int run_phase_map(const struct ocsd *, const struct run *, uint32_t k,
                  struct map *t);

/* run_topo.c: a synthesised collective's request into r (the topology
 * loaded, *n its hosts, from the *n agents joined), then its schedule on
 * the agents' circuits, plans and prediction.  0, -ENOMEM, or an error
 * with err set (-OCSD_EUSAGE for what the operator asked). */
int run_topo_request(struct run *r, const struct run_req *q, uint32_t *n,
                     char *err, size_t len);
int run_topo_build(struct run *r, const struct run_req *q, struct agent **act,
                   char *err, size_t len);

/* run_report.c: what the run did (points into r). */
void run_report(const struct run *r, struct run_report *out);

#endif
