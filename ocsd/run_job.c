/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run asked for is planned off the lock: on the planner thread, from
 * copies of the request, of the agents as they were and of the
 * configuration, so that a plan of a thousand nodes freezes nothing (the
 * control socket and the agents' heartbeats go on).  Only when the plan
 * is made does the run take the lock again, find its agents anew by id
 * (one lost meanwhile fails it) and start.  An abort while planning
 * answers the operator at once; the planner gives up at its next step
 * (between planners) and its plan is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocsd/run_int.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"

/* At shutdown, how long the planner may take to notice. */
#define RUN_PLANNER_STOP_MS 2000

struct run_job {
	struct ocsd        *d;
	struct run_req      q; /* its matrix and topology are copies too */
	uint64_t           *matrix;
	char               *topology;
	struct conf_server *srv; /* ocsd.conf's [servers], copied */
	struct run_member   m[RUN_MAX_NODES];
	uint32_t            n, joined;
	char                left[320]; /* joined, not eligible: who, why */
	struct run_env      env;
	struct run_waiter   w;
	nng_aio            *aio;
	uint64_t            id, t_req, started_unix_ms;
	int                 started, cancelled;
	/* Where planning is, for status: a planner's name, i of n. */
	char     step[32];
	uint32_t step_i, step_n;
};

static void
job_free(struct run_job *j)
{
	if (j == NULL)
		return;
	free(j->matrix);
	free(j->topology);
	free(j->srv);
	free(j);
}

/* The request, the agents and the configuration, copied. */
static struct run_job *
job_new(struct ocsd *d, const struct run_req *q, char *err, size_t len)
{
	struct run_job *j = calloc(1, sizeof(*j));
	struct agent   *act[RUN_MAX_NODES];
	uint32_t        swms;
	uint32_t        i;

	if (j == NULL ||
	    (q->matrix != NULL &&
	     (j->matrix = malloc((size_t)q->mn * q->mn * sizeof(uint64_t))) ==
	         NULL) ||
	    (q->topology != NULL &&
	     (j->topology = strdup(q->topology)) == NULL)) {
		job_free(j);
		snprintf(err, len, "out of memory for the run");
		return (NULL);
	}
	j->d = d;
	j->q = *q;
	if (q->matrix != NULL) {
		memcpy(j->matrix, q->matrix,
		       (size_t)q->mn * q->mn * sizeof(uint64_t));
		j->q.matrix = j->matrix;
	}
	j->q.topology = j->topology;
	j->n = agents_active(d, act, RUN_MAX_NODES);
	j->joined = agents_left_out(d, j->left, sizeof(j->left));
	for (i = 0; i < j->n; i++) {
		j->m[i].id = act[i]->id;
		j->m[i].ntrx = act[i]->ntrx;
		j->m[i].mem_limit = act[i]->mem_limit;
		snprintf(j->m[i].laddr, sizeof(j->m[i].laddr), "%s",
		         act[i]->local_link);
		snprintf(j->m[i].host, sizeof(j->m[i].host), "%s",
		         act[i]->host);
		memcpy(j->m[i].sw, act[i]->sw, sizeof(j->m[i].sw));
	}
	/* A fabric's switches move at once: the slowest is the delta. */
	for (i = 0, swms = 0; i < d->conf->nsw; i++)
		if (d->conf->sw[i].switch_ms > swms)
			swms = d->conf->sw[i].switch_ms;
	j->env =
	    (struct run_env){.chunk = d->conf->run_chunk,
	                     .deadline_ms = d->conf->run_deadline_ms,
	                     .switch_ms = swms,
	                     .bps = d->conf->run_bps,
	                     .alpha_s = d->conf->run_alpha_s,
	                     .alpha_h = d->conf->run_alpha_h,
	                     .reconf_s = d->conf->run_reconf_s,
	                     .link_up_s = d->conf->run_link_up_s,
	                     .su_bps = d->conf->run_su_bps,
	                     .su_alpha = d->conf->run_su_alpha,
	                     .link_deadline_ms = d->conf->run_link_deadline_ms,
	                     .nsw = d->conf->nsw};
	for (i = 0; i < d->conf->nsw && i < CONF_SWITCH_MAX; i++)
		j->env.sw_ms[i] = d->conf->sw[i].switch_ms;
	if (d->conf->nsrv > 0) {
		size_t sz = d->conf->nsrv * sizeof(*j->srv);

		if ((j->srv = malloc(sz)) == NULL) {
			job_free(j);
			snprintf(err, len, "out of memory for the run");
			return (NULL);
		}
		memcpy(j->srv, d->conf->srv, sz);
		j->env.srv = j->srv;
		j->env.nsrv = d->conf->nsrv;
		j->env.srv_size = d->conf->srv_size;
	}
	return (j);
}

/* The waiter hears the end of a run that never started. */
static void
job_answer(struct run_job *j, int rv, const char *why)
{
	if (j->w.done == NULL)
		return;
	j->w.done(j->w.arg, rv, why, NULL);
	j->w.done = NULL;
	nng_aio_finish(j->aio, 0);
}

/* The planner's hook, between planners: where it is, and whether to give
 * up.  On the planner thread: the lock, briefly. */
static int
job_step(void *arg, const char *planner, uint32_t i, uint32_t n)
{
	struct run_job *j = arg;
	int             stop;

	nng_mtx_lock(j->d->mtx);
	snprintf(j->step, sizeof(j->step), "%s", planner);
	j->step_i = i + 1;
	j->step_n = n;
	stop = j->cancelled;
	nng_mtx_unlock(j->d->mtx);
	return (stop);
}

/* The joined agents the run leaves out, and why: not eligible (a fibre
 * out: a replacement agent whose fibres are still the stopped one's), or
 * not needed (fewer nodes asked for than there are); said in the
 * report's first line and the log, never silently. */
static void
job_left_out(const struct run_job *j, struct run *r)
{
	size_t   at, len = sizeof(r->left_out);
	uint32_t i;

	r->joined = j->joined;
	at = (size_t)snprintf(r->left_out, len, "%s", j->left);
	for (i = r->n; i < j->n && at < len; i++)
		at += (size_t)snprintf(r->left_out + at, len - at, "%s%s",
		                       i > r->n ? ", "
		                       : at     ? "; "
		                                : "",
		                       j->m[i].host);
	if (r->n < j->n && at < len)
		snprintf(r->left_out + at, len - at,
		         " not needed (a run of %u nodes)", r->n);
	if (r->left_out[0])
		log_warnx("run %llu: on %u of %u joined agents; left out: %s",
		          (unsigned long long)j->id, r->n, j->joined,
		          r->left_out);
}

/* The plan is made (or not): with the lock, start the run, or say why
 * not.  The job is done either way. */
static void
job_done(struct ocsd *d, struct run_job *j, struct run *r, int rv,
         const char *err)
{
	char why[768];

	if (j->cancelled) {
		run_free(r);
		return;
	}
	if (rv != 0) {
		/* Too few agents: which joined ones could not take part. */
		if (rv == -OCSD_EREQUEST && j->left[0])
			snprintf(why, sizeof(why), "%s; left out: %s", err,
			         j->left);
		else
			snprintf(why, sizeof(why), "%s", err);
		log_info("run %llu: not started: %s",
		         (unsigned long long)j->id, why);
		job_answer(j, rv, why);
		return;
	}
	job_left_out(j, r);
	if ((rv = run_begin(d, r, j->id, j->t_req, j->started_unix_ms, &j->w,
	                    j->aio, why, sizeof(why))) != 0) {
		log_info("run %llu: not started: %s",
		         (unsigned long long)j->id, why);
		run_free(r);
		job_answer(j, rv, why);
	}
}

static void
planner_main(void *arg)
{
	struct ocsd            *d = arg;
	struct runner          *rn = d->runner;
	struct run_job         *j;
	struct run             *r;
	const struct skew_watch hook = {.step = job_step};
	struct skew_watch       h;
	char                    err[768];
	int                     rv;

	nng_mtx_lock(d->mtx);
	for (;;) {
		while (!rn->pstop && (rn->pjob == NULL || rn->pjob->started))
			nng_cv_wait(rn->pcv);
		if (rn->pstop)
			break;
		j = rn->pjob;
		j->started = 1;
		h = hook;
		h.arg = j;
		r = NULL;
		err[0] = '\0';
		/* Given up before it began: nothing to plan. */
		rv = j->cancelled ? -ECANCELED : 0;
		nng_mtx_unlock(d->mtx);
		if (rv == 0)
			rv = run_srv_group(&j->env, &j->q, j->m, j->n,
			                   j->matrix, err, sizeof(err));
		if (rv == 0)
			rv = run_plan(&j->env, &j->q, j->m, j->n, &h, &r, err,
			              sizeof(err));
		nng_mtx_lock(d->mtx);
		rn->pjob = NULL;
		job_done(d, j, r, rv, err);
		job_free(j);
	}
	rn->pdone = 1;
	nng_cv_wake(rn->pcv);
	nng_mtx_unlock(d->mtx);
}

int
run_job_start(struct ocsd *d, const struct run_req *q,
              const struct run_waiter *w, nng_aio *aio, char *err, size_t len)
{
	struct runner  *rn = d->runner;
	struct run_job *j;

	if ((j = job_new(d, q, err, len)) == NULL)
		return (-ENOMEM);
	if (!nng_aio_begin(aio)) {
		job_free(j);
		return (-ECANCELED);
	}
	j->w = *w;
	j->aio = aio;
	j->id = ++rn->last_id;
	j->t_req = mono_us();
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		j->started_unix_ms = (uint64_t)ts.tv_sec * 1000 +
		                     (uint64_t)ts.tv_nsec / 1000000;
	}
	rn->last_abort[0] = '\0';
	rn->pjob = j;
	log_info("run %llu: planning %s on %u agents",
	         (unsigned long long)j->id, q->algo, j->n);
	nng_cv_wake(rn->pcv);
	return (0);
}

/*
 * A run aborted while planning got an id the operator was told: the
 * history keeps it too (no phases, nothing on the switch), as it keeps
 * every run that got an id.
 */
static void
job_record(struct runner *rn, const struct run_job *j, const char *why)
{
	struct run_report *rep;
	char(*host)[64];
	uint32_t i, n = j->q.nodes && j->q.nodes < j->n ? j->q.nodes : j->n;

	if (rn->hooks.record == NULL ||
	    (rep = calloc(1, sizeof(*rep))) == NULL)
		return;
	/* The agents it would have run on, as they were asked. */
	if ((host = calloc(n + 1, sizeof(*host))) == NULL) {
		free(rep);
		return;
	}
	for (i = 0; i < n; i++)
		memcpy(host[i], j->m[i].host, sizeof(host[i]));
	rep->hosts = (const char(*)[64])host;
	rep->id = j->id;
	rep->algo = j->q.algo;
	rep->matrix = j->q.matrix_name[0] ? j->q.matrix_name : NULL;
	rep->joined = j->joined;
	rep->left_out = j->left[0] ? j->left : NULL;
	rep->nodes = n;
	rep->bytes = j->q.bytes;
	rep->started_unix_ms = j->started_unix_ms;
	rep->wall_s = (mono_us() - j->t_req) / 1e6;
	rn->hooks.record(rn->hooks.arg, rep, why);
	free(host);
	free(rep); /* a report is large: RUN_MAX_PHASES of each */
}

int
run_job_cancel(struct ocsd *d, nng_aio *aio, const char *why)
{
	struct runner  *rn = d->runner;
	struct run_job *j = rn ? rn->pjob : NULL;

	if (j == NULL || j->cancelled || (aio != NULL && j->aio != aio))
		return (0);
	j->cancelled = 1;
	log_warnx("run %llu aborted while planning: %s",
	          (unsigned long long)j->id, why);
	snprintf(rn->last_abort, sizeof(rn->last_abort),
	         "run %llu aborted while planning: %.400s",
	         (unsigned long long)j->id, why);
	job_record(rn, j, rn->last_abort);
	if (aio != NULL)
		j->w.done = NULL; /* the operator's request went */
	else
		job_answer(j, -OCSD_EABORT, rn->last_abort);
	return (1);
}

int
run_job_busy(const struct ocsd *d, uint64_t *id)
{
	const struct run_job *j = d->runner ? d->runner->pjob : NULL;

	if (j != NULL)
		*id = j->id;
	return (j != NULL);
}

int
run_planning(const struct ocsd *d, char *buf, size_t len)
{
	const struct run_job *j = d->runner ? d->runner->pjob : NULL;
	int                   n;

	if (j == NULL)
		return (0);
	n = snprintf(buf, len, "run %llu: planning %s on %u agents for %.1f s",
	             (unsigned long long)j->id, j->q.algo, j->n,
	             (mono_us() - j->t_req) / 1e6);
	if (j->step_n > 1 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%s, planner %u of %u)",
		         j->step, j->step_i, j->step_n);
	if (j->cancelled && n > 0 && (size_t)n < len)
		snprintf(buf + strlen(buf), len - strlen(buf),
		         "; aborted, its plan will be dropped");
	return (1);
}

int
run_planner_start(struct ocsd *d)
{
	struct runner *rn = d->runner;
	int            rv;

	if ((rv = nng_cv_alloc(&rn->pcv, d->mtx)) != 0 ||
	    (rv = nng_thread_create(&rn->pthr, planner_main, d)) != 0)
		return (msg_nngerr(rv));
	return (0);
}

int
run_planner_stop(struct ocsd *d)
{
	struct runner *rn = d->runner;
	nng_time       until = nng_clock() + RUN_PLANNER_STOP_MS;

	if (rn->pthr == NULL)
		return (0);
	nng_mtx_lock(d->mtx);
	rn->pstop = 1;
	nng_cv_wake(rn->pcv);
	while (!rn->pdone && nng_cv_until(rn->pcv, until) == 0)
		;
	nng_mtx_unlock(d->mtx);
	if (!rn->pdone) {
		/* A planner deep in one algorithm: the process ends with it
		 * rather than wait. */
		log_warnx("stopping: the planner is still busy; not waiting");
		return (-EBUSY);
	}
	nng_thread_destroy(rn->pthr);
	nng_cv_free(rn->pcv);
	rn->pthr = NULL;
	return (0);
}
