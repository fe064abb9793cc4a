/* SPDX-License-Identifier: BSD-2-Clause */
/* The runner's insides, shared by run.c, run_plan.c and run_report.c. */
#ifndef OCS_RUN_INT_H
#define OCS_RUN_INT_H

#include "collectives/a2a.h"
#include "collectives/plan.h"
#include "collectives/planes.h"
#include "collectives/skew.h"
#include "collectives/topo.h"
#include "collectives/tsyn.h"
#include "ocsd/fab.h"
#include "ocsd/run.h"

#define RUN_MAX_BLOCKS ((uint64_t)1 << 24)
#define RUN_MAX_NODES  1024

/* One agent of a run as it was when the run was asked for: planning reads
 * this copy, not the registry, which changes meanwhile. */
struct run_member {
	uint32_t id, ntrx;
	uint64_t mem_limit;
	char     host[64];
	char     laddr[PLAN_LADDR_MAX]; /* its local links' listener, or "" */
	uint8_t  sw[AGENT_MAX_TRX];     /* each transceiver's switch (plane) */
};

/* What planning reads of the configuration, copied for the same
 * reason (a reload may swap it). */
struct run_env {
	uint32_t chunk, deadline_ms, switch_ms, link_deadline_ms;
	double   bps, alpha_s, alpha_h, reconf_s;
	double   link_up_s; /* the model's link-up time, part of delta */
	double   su_bps, su_alpha; /* servers' local links */
	/* A fabric: its switches (planes), each one's switching time. */
	uint32_t nsw;
	uint32_t sw_ms[CONF_SWITCH_MAX];
	/* ocsd.conf's [servers] (a copy the job owns), or nsrv 0. */
	const struct conf_server *srv;
	uint32_t                  nsrv, srv_size;
};

/* A node's links in the stretch the run is in (run_link.c): lit, the
 * transceivers whose receiver the phase's map lights (their links must
 * be up); chg, those of them whose light comes from elsewhere than
 * before (their link goes down and must come up again: more carrier ups
 * than ups[t]). */
struct run_links {
	uint32_t lit, chg;
	uint32_t ups[AGENT_MAX_TRX];
};

struct run {
	uint64_t   id;
	char       algo[32]; /* "auto:" and the planner */
	uint32_t   n, nph, chunk, deadline_ms;
	uint64_t   bytes;
	struct a2a a;
	char       matrix_name[128]; /* skewed runs, else "" */
	uint32_t   joined;           /* agents joined when it was asked for */
	char       left_out[400];    /* which of them it does not use, why */
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
	/* Planes (--planes): what was asked, whether the schedule was
	 * spread over them, each one's delta, and the model's cost with
	 * the planes together and apart (0: not asked). */
	enum planes_mode planes;
	int              spread;
	uint32_t         nplanes; /* the fabric's, at bind */
	char             plane_name[CONF_SWITCH_MAX][16];
	double           plane_delta[CONF_SWITCH_MAX];
	double           pred_together, pred_apart;
	struct agent   **node; /* NULL once lost */
	/* A fabric: per configuration, node and schedule port, the port
	 * its light comes in at (run_fab.c); NULL on one switch. */
	uint8_t           *rxmap;
	struct run_member *member; /* node i as planned */
	char (*host)[64];
	/* Barriers: the phases that wait for everyone, then nph (the end);
	 * bi is the one the run waits for now. */
	uint32_t bar[RUN_MAX_PHASES + 1], nbar, bi, nready;
	int      reconfiguring;
	/* After the switch settled, before the release: waiting for every
	 * link the phase uses to come up (run_link.c). */
	int               linkwait;
	uint64_t          t_settled; /* us */
	uint32_t          link_deadline_ms;
	double            link_up_s, switch_s; /* the model's terms */
	struct run_links *lk;                  /* per node */
	double            link_ms[RUN_MAX_PHASES];

	uint64_t t_first, t_start, t_end; /* us */
	double   reconf_ms[RUN_MAX_PHASES], barrier_ms[RUN_MAX_PHASES];
	double   control_ms[RUN_MAX_PHASES];
	uint64_t t_release[RUN_MAX_PHASES];
	uint64_t data_ns[RUN_MAX_PHASES], pbytes[RUN_MAX_PHASES];
	uint64_t verified, errors;
	struct run_node_time *nt; /* per node: where its time went */
	uint64_t              t_req, started_unix_ms; /* us; ms */

	/* Servers (run_srv.c): their size (0: none), the local links'
	 * model and shaping, the token of their hellos, each phase's bytes. */
	uint32_t              gpus;
	double                su_bps, su_alpha;
	uint8_t               ltoken[PLAN_LTOKEN];
	struct skew_srv_bytes by[RUN_MAX_PHASES];
	/* Planes apart (run_apart.c): the barrier whose planes are being
	 * released (apart_k), those not released yet, and those whose
	 * switch settled but whose links are not all up; apart_busy while
	 * its switches move, apart_next when the next barrier's Readys are
	 * all in and wait for them.  Per phase and plane: the switch's time
	 * and the release, after the barrier's last Ready (ms). */
	int      apart, apart_busy, apart_next, apart_first;
	uint32_t apart_k, apart_left, apart_links;
	double   plane_reconf_ms[RUN_MAX_PHASES][CONF_SWITCH_MAX];
	double   plane_release_ms[RUN_MAX_PHASES][CONF_SWITCH_MAX];
	/* Planes apart: when each plane waiting for its links gives up
	 * (the link deadline from its switch's settling), us. */
	uint64_t apart_due_us[CONF_SWITCH_MAX];

	int               keep; /* the last configuration stays (--keep) */
	struct run_waiter ctl;  /* the operator waiting for the report */
	nng_aio          *ctl_aio;
};

/* Is algo a skewed All-to-All planner (or auto)? */
int run_is_skew(const char *algo);

/* Servers (run_srv.c), each a no-op without them: the request against
 * the agents (0, -OCSD_EUSAGE, -OCSD_EREQUEST; reason in err); the
 * schedule (r->gpus, su_* and cp set); the model of it as it runs (after
 * cost_sched, whose prediction it replaces); a plan's local links. */
int run_srv_check(const struct run_req *, const struct run_member *,
                  uint32_t n, char *err, size_t len);
/* Servers from ocsd.conf's [servers] (run_srv.c), before planning: a
 * skewed run without --gpus-per-server (or with the section's size) gets
 * the section's servers, its nodes m[0..q->mn) renumbered server by
 * server (GPU k of a server its k-th host) and the matrix with them, so
 * that each host sends what it sent before; q->gpus set.  0, or an error
 * with err set (a conflicting size, a node in no server, a server in
 * part). */
int  run_srv_group(const struct run_env *, struct run_req *q,
                   struct run_member *m, uint32_t n, uint64_t *matrix,
                   char *err, size_t len);
int  run_srv_build(struct run *, const struct run_req *,
                   const struct skew_watch *, char *err, size_t len);
int  run_srv_predict(struct run *);
void run_srv_plan(const struct run *, struct plan *);

struct runner {
	struct run *run; /* at most one at a time */
	uint64_t    last_id;
	char        last_abort[512]; /* why the last run ended early */
	nng_aio    *timer;           /* the current barrier's deadline */
	uint64_t    due_us;          /* when it is due (mono) */
	nng_aio    *ltimer;          /* the links' deadline after a switch */
	uint64_t    ldue_us;
	/* Planes apart: the links' deadlines of the planes waiting for
	 * them (run_apart.c), set only while idle (atimer_on). */
	nng_aio *atimer;
	int      atimer_on;
	nng_aio *reconf; /* the reconfiguration job's */
	/* A reconfiguration moves every switch of a fabric at once (a
	 * worker each) and is done when all have settled. */
	struct fab_job job;
	int            reconf_busy; /* the job is queued or running */
	struct map     prerun[CONF_SWITCH_MAX]; /* each switch before */
	/* Putting the switches back after a run: a job of its own, so
	 * that the next run need not wait for it (the workers keep the
	 * order). */
	struct fab_job rjob;
	nng_aio       *raio;
	int            restoring;     /* 1 putting back, 2 keeping (--keep) */
	int            restore_again; /* another run ended meanwhile: 1, 2 */
	/* A verified run waiting for its restore before it ends: a switch
	 * that cannot be put back fails it (run.c conclude). */
	struct run      *ending;
	struct run_hooks hooks;
	/* Planning (run_job.c): the run asked for, and its thread. */
	struct run_job *pjob;
	nng_thread     *pthr;
	nng_cv         *pcv;
	int             pstop, pdone;
};

/* run_job.c: plan the run asked for on the planner thread, then start it
 * (run_begin).  With d->mtx held.  0 (the aio begun; w hears the end),
 * or an error with err set. */
int run_job_start(struct ocsd *, const struct run_req *,
                  const struct run_waiter *w, nng_aio *aio, char *err,
                  size_t len);
/* Give up the run being planned (its operator's aio, or any when NULL):
 * 1 if there was one. */
int run_job_cancel(struct ocsd *, nng_aio *aio, const char *why);
/* Is a run being planned?  Its id. */
int run_job_busy(const struct ocsd *, uint64_t *id);
int run_planner_start(struct ocsd *);
/* 0, or -EBUSY when the planner is still deep in a plan (left to the
 * process's end). */
int run_planner_stop(struct ocsd *);
/* run.c: a planned run starts, with d->mtx held: its agents bound again,
 * the switch's map kept for after, plans to the agents.  0 or an error
 * with err set (nothing started). */
int run_begin(struct ocsd *, struct run *r, uint64_t id, uint64_t t_req,
              uint64_t started_unix_ms, const struct run_waiter *w,
              nng_aio *aio, char *err, size_t len);

/* run_plan.c: a new run for request q on the agents m[0..n) (as they
 * were when it was asked for), planned and costed with env, without ocsd
 * (the planner thread: no lock, nothing shared); 0 or an error with err
 * set.  hook (nullable) hears each step and may cancel (-ECANCELED). */
int run_plan(const struct run_env *env, const struct run_req *q,
             const struct run_member *m, uint32_t n,
             const struct skew_watch *hook, struct run **out, char *err,
             size_t len);
/* The planned run's nodes: each member its live agent again (by id: one
 * lost or joined anew meanwhile fails it), ports from the cabling; in a
 * fabric every circuit of the schedule joins two transceivers of one
 * switch.  With d->mtx held.  0 or -OCSD_EABORT / -OCSD_EREQUEST with err
 * set. */
int  run_bind(struct ocsd *d, struct run *r, char *err, size_t len);
void run_free(struct run *);
/* Switch sw's map for phase k's circuits (a fabric: the circuits whose
 * transceivers are cabled to it); other patches stay as they are unless
 * they touch a port of the run. */
int run_phase_map(const struct ocsd *, const struct run *, uint32_t k,
                  uint32_t sw, struct map *t);

/* run_fab.c: a run on a fabric, each circuit made as one-way patches on
 * their senders' switches.  run_fab_bind (at bind, the nodes known)
 * finds where every transfer comes in: 0, or -OCSD_EREQUEST / -ENOMEM
 * with err set.  run_fab_rx: the port node receives at in configuration
 * cfg for the schedule's port.  run_fab_plan: a node's plan with its
 * receive ports moved. */
struct plan;
int run_fab_bind(const struct ocsd *, struct run *, char *err, size_t len);
uint32_t run_fab_rx(const struct run *, uint32_t cfg, uint32_t node,
                    uint32_t port);
void     run_fab_plan(const struct run *, struct plan *);

/* run_topo.c: a synthesised collective's request into r (the topology
 * loaded, *n its hosts, from the *n agents joined), then its schedule on
 * the agents' circuits, plans and prediction.  0, -ENOMEM, or an error
 * with err set (-OCSD_EUSAGE for what the operator asked). */
int run_topo_request(struct run *r, const struct run_req *q, uint32_t *n,
                     char *err, size_t len);
int run_topo_build(struct run *r, const struct run_req *q,
                   const struct run_member *m, char *err, size_t len);

/* run_apart.c, with d->mtx held: a barrier whose phase names its planes
 * (sched.h) on a fabric, its switches moved at once and each plane
 * released as its own switch settles (the planes it leaves alone at
 * once).  run_apart_begin: all Readys in (0, or the run aborted);
 * run_apart_one: the fab job's hook, a switch settled; run_apart_done:
 * the job complete (0, or the run aborted); run_apart_links: an agent's
 * link changed.  run.c's barrier bookkeeping at a barrier's first
 * release: run_released (k the phase; r->bi moves on; t_us when the
 * first release was sent). */
int  run_apart_begin(struct ocsd *, struct run *);
void run_apart_one(void *arg, uint32_t sw);
int  run_apart_done(struct ocsd *, struct run *);
void run_apart_links(struct ocsd *, struct run *);
void run_released(struct ocsd *, struct run *, uint64_t t_us);
/* Planes apart: the timer of the planes' link deadlines (rn->atimer's
 * callback; arg is the ocsd). */
void run_apart_timer(void *arg);
/* Every Ready of the barrier is in: end, release, or reconfigure. */
void run_continue(struct ocsd *, struct run *);
int  run_save_intent(struct ocsd *, const struct run *, char *err, size_t len);

/* run_link.c, with d->mtx held.  Before the switches are asked for
 * phase k's maps tm (one a switch, by index): which links the phase
 * lights, and which must retrain. */
void run_links_plan(struct ocsd *, struct run *, const struct map *tm);
/* Is every link the phase lights up (those that retrain, up again)?  1,
 * else 0 with the first that is not named in why. */
int run_links_up(const struct run *, char *why, size_t len);
/* The same for the transceivers on the switches of mask (a bit each). */
int run_links_up_sw(const struct run *, uint32_t mask, char *why, size_t len);
/* At the release: the carrier counts the stretch must keep, of the
 * transceivers on the switches of mask (planes apart mark each plane at
 * its own release: a plane still moving has not retrained yet). */
void run_links_mark(struct run *, uint32_t mask);
/* In a released stretch: has one of a's lit links lost its carrier (or
 * lost it and got it back)?  1 with host, interface and what in why. */
int run_links_broken(const struct run *, const struct agent *, char *why,
                     size_t len);
/* The MTUs of the run's hosts' transceivers, as they said them, are all
 * the same: 0, or -OCSD_EUSAGE naming two that differ. */
int run_links_mtu(const struct run *, char *err, size_t len);

/* run_idle.c, with d->mtx held: [run] idle_lit's loops added to maps
 * (one a switch, what the run puts back): each of the run's hosts'
 * transceivers that maps leave dark lit by another of its own. */
void run_idle_loops(struct ocsd *, const struct run *, struct map *maps);

/* run_report.c: what the run did (points into r). */
void run_report(const struct run *r, struct run_report *out);

#endif
