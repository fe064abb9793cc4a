/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Collective runs: hand each agent its part, and drive the phases in
 * lockstep with the switch.
 *
 * Barriers only where needed.  A phase that sets circuits (and phase 0)
 * is a barrier: every agent must have finished everything before it (its
 * Ready arrives only then, and a node finishes a phase only once it has
 * received all it should, so no byte is in flight), then the switch is
 * reconfigured through the worker, COMPLD and read-back checked, and only
 * then are the held Readys answered (the release).  Phases on the same
 * circuits are not gathered: agents go on as their data allows, because a
 * fibre is FIFO and frames of a later phase simply wait at the receiver.
 * The last barrier (phase = #phases) ends the run.
 *
 * Failures (an agent lost or reporting an error, a barrier past its
 * deadline, a switch error, the operator) end the run for every agent:
 * the reason is published on the event socket for agents in a phase and
 * answers every held request; the switch stays as it was last set, which
 * the desired map records.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "ocsd/ev.h"
#include "ocsd/run_int.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"
#include "proto/base/path.h"

/*
 * After a run the switch goes back to what it held before it: the run's
 * configurations were nobody's intent (--keep makes the last one the
 * desired map instead).  Through the worker, like every change; if the
 * run's last reconfiguration is still queued, once it is done.
 */
static void
restore(struct ocsd *d, int keep)
{
	struct runner *rn = d->runner;
	uint32_t       i;

	if (rn->restoring) {
		rn->restore_again = keep ? 2 : 1;
		return;
	}
	fab_reset(&rn->rjob);
	for (i = 0; i < d->nsw; i++)
		if (map_copy(&rn->rjob.target[i],
		             keep ? &d->sw[i].live : &rn->prerun[i]) != 0 ||
		    rn->rjob.target[i].n != d->sw[i].nports) {
			log_warnx("after the run: cannot build the map to "
			          "restore; %s keeps the run's circuits",
			          d->nsw > 1 ? "every switch" : "the switch");
			fab_reset(&rn->rjob);
			return;
		}
	rn->rjob.transient = !keep;
	rn->restoring = keep ? 2 : 1;
	fab_submit_locked(&rn->rjob, rn->raio);
}

/* The run's intent, once, before phase 0 changes anything: a restart
 * that finds it puts the desired map back (sw.c). */
int
run_save_intent(struct ocsd *d, const struct run *r, char *err, size_t len)
{
	struct runner    *rn = d->runner;
	struct run_report rep;
	char              buf[160];
	int               n, rv;

	if (rn->hooks.intent != NULL) {
		run_report(r, &rep);
		return (rn->hooks.intent(rn->hooks.arg, &rep, err, len));
	}
	n = snprintf(buf, sizeof(buf),
	             "# ocsd: run %llu in progress; on a restart the desired "
	             "map is restored\nrun %llu\n",
	             (unsigned long long)r->id, (unsigned long long)r->id);
	if ((rv = path_write_atomic(d->run_state_path, buf, (size_t)n,
	                            0640)) != 0) {
		snprintf(err, len, "saving the run's intent to %.300s: %s",
		         d->run_state_path, strerror(-rv));
		return (-OCSD_ESTATE);
	}
	return (0);
}

/* The run is over: the operator hears, the history keeps it, the run is
 * freed. */
static void
end_run(struct ocsd *d, struct run *r, int rv, const char *why)
{
	struct runner    *rn = d->runner;
	struct run_waiter w = r->ctl;
	nng_aio          *aio = r->ctl_aio;
	struct run_report rep;

	run_report(r, &rep);
	ev_say(d->ev, "run", "finished", NULL, r->id, r->nph, "run %llu %s",
	       (unsigned long long)r->id, rv ? "ended" : "verified");
	if (w.done != NULL)
		w.done(w.arg, rv, why, &rep);
	if (rn->hooks.record != NULL)
		rn->hooks.record(rn->hooks.arg, &rep, rv ? why : NULL);
	run_free(r);
	if (w.done != NULL && aio != NULL)
		nng_aio_finish(aio, 0);
}

/*
 * The run is over.  The run is forgotten and the restore queued before
 * the operator hears: whoever waits on the aio runs at once on another
 * thread and must find no run in progress.  A verified run is not done
 * until the switch holds what it should after it (restore_cb): a switch
 * that vanished during the run (ocs-emu killed, its kernel circuits left
 * lit) must not be reported put back.
 */
static void
conclude(struct ocsd *d, struct run *r, int rv, const char *why)
{
	struct runner *rn = d->runner;

	nng_aio_cancel(rn->timer);
	nng_aio_cancel(rn->ltimer);
	rn->run = NULL;
	if (rv == 0 && rn->ending == NULL) {
		rn->ending = r;
		restore(d, r->keep);
		if (rn->restoring)
			return;
		rn->ending = NULL;
		snprintf(rn->last_abort, sizeof(rn->last_abort),
		         "run %llu: every block verified, but the switch "
		         "could not be put back (the map to restore could not "
		         "be built): it keeps the run's circuits",
		         (unsigned long long)r->id);
		end_run(d, r, -OCSD_ESTATE, rn->last_abort);
		return;
	}
	restore(d, r->keep && rv == 0);
	end_run(d, r, rv, why);
}

/* The restore after a verified run is done: the run ends, failed if the
 * switch could not be reached (its map is not what the report would
 * say).  With d->mtx held. */
static void
conclude_restored(struct ocsd *d, int keep, const char *err)
{
	struct runner *rn = d->runner;
	struct run    *r = rn->ending;

	rn->ending = NULL;
	if (err == NULL) {
		end_run(d, r, 0, NULL);
		return;
	}
	snprintf(rn->last_abort, sizeof(rn->last_abort),
	         "run %llu: every block verified, but the switch is gone "
	         "(%.300s): %s",
	         (unsigned long long)r->id, err,
	         keep ? "its last configuration is not kept"
	              : "its map was not restored and may still hold the "
	                "run's circuits");
	log_warnx("%s", rn->last_abort);
	end_run(d, r, -OCSD_ESWITCH, rn->last_abort);
}

void
run_abort(struct ocsd *d, const char *fmt, ...)
{
	struct runner *rn = d->runner;
	struct run    *r = rn ? rn->run : NULL;
	va_list        ap;
	char           why[600];

	if (r == NULL && (rn == NULL || rn->pjob == NULL))
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (r == NULL) {
		(void)run_job_cancel(d, NULL, why);
		return;
	}
	log_warnx("run %llu aborted: %s", (unsigned long long)r->id, why);
	snprintf(rn->last_abort, sizeof(rn->last_abort),
	         "run %llu aborted: %.450s", (unsigned long long)r->id, why);
	agents_abort(d, r->id, r->bar[r->bi], why, r->node, r->n);
	conclude(d, r, -OCSD_EABORT, rn->last_abort);
}

int
run_busy(const struct ocsd *d)
{
	return (d->runner != NULL &&
	        (d->runner->run != NULL || d->runner->pjob != NULL));
}

int
run_where(const struct ocsd *d, uint64_t *id, uint32_t *phase)
{
	const struct run *r = d->runner ? d->runner->run : NULL;

	if (r == NULL)
		return (0);
	*id = r->id;
	/* Released up to the last barrier; before the first, phase 0. */
	*phase = r->bi > 0 ? r->bar[r->bi - 1] : 0;
	return (1);
}

const char *
run_last_abort(const struct ocsd *d)
{
	return (d->runner ? d->runner->last_abort : "");
}

static void
send_plan(struct ocsd *d, struct run *r, struct agent *a)
{
	struct plan p;

	/* The agent's transceivers are the schedule's ports. */
	if (plan_from_sched(&r->s, &r->plans[a->node], r->id, r->chunk,
	                    r->deadline_ms, r->s.ports, &p) != 0 ||
	    (run_fab_plan(r, &p), run_srv_plan(r, &p),
	     agents_send_plan(d, a, r->id, &p, r->algo)) != 0) {
		plan_free(&p);
		run_abort(d, "out of memory building the plan of %s", a->host);
		return;
	}
	plan_free(&p);
	a->plan_sent = 1;
}

/* ---- barriers ------------------------------------------------------------- */

/* Each barrier has the run's deadline from the release before it. */
static void
arm_timer(struct runner *rn, const struct run *r)
{
	nng_aio_cancel(rn->timer);
	/* A cancelled sleep's callback may come after the new one began
	 * (it then reads its result): the callback checks the time too. */
	rn->due_us = mono_us() + (uint64_t)r->deadline_ms * 1000;
	nng_sleep_aio((nng_duration)r->deadline_ms, rn->timer);
}

/* The barrier's (first) release is out: its times, and on to the next. */
void
run_released(struct ocsd *d, struct run *r, uint64_t now)
{
	uint32_t k = r->bar[r->bi];

	r->barrier_ms[k] =
	    (now - r->t_first) / 1e3 - r->reconf_ms[k] - r->link_ms[k];
	if (r->barrier_ms[k] < 0)
		r->barrier_ms[k] = 0;
	if (k == 0)
		r->t_start = now;
	r->t_release[k] = now;
	nng_aio_cancel(d->runner->ltimer);
	/* Planes apart: only the planes released so far (apart_left is 0
	 * outside such a barrier); a plane still moving keeps the counts
	 * taken before its switch moved. */
	run_links_mark(r, ~r->apart_left);
	log_debug("run %llu: phase %u released", (unsigned long long)r->id, k);
	ev_say(d->ev, "run", "phase", NULL, r->id, k, "run %llu: phase %u",
	       (unsigned long long)r->id, k);
	r->bi++;
	r->nready = 0;
	arm_timer(d->runner, r);
}

static void
release(struct ocsd *d, struct run *r)
{
	uint32_t k = r->bar[r->bi], i;
	/* The phase begins with the first release sent: the first agent
	 * may be at work before the last is told (on two cores, even
	 * before ocsd runs again). */
	uint64_t t = mono_us();

	for (i = 0; i < r->n; i++) {
		r->node[i]->ready = AG_NONE;
		agents_release(d, r->node[i], r->id, k);
	}
	run_released(d, r, t);
}

static void
finish(struct ocsd *d, struct run *r)
{
	uint32_t i;

	r->t_end = mono_us();
	for (i = 0; i < r->n; i++)
		agents_finished(d, r->node[i], r->id, r->nph);
	log_info("run %llu: %s on %u nodes done in %.3f s (model %.3f s), "
	         "%llu blocks verified, %llu errors",
	         (unsigned long long)r->id, r->algo, r->n,
	         (r->t_end - r->t_start) / 1e6, r->predicted,
	         (unsigned long long)r->verified,
	         (unsigned long long)r->errors);
	conclude(d, r, 0, NULL);
}

/* Everyone is at the barrier: end, release, or reconfigure first. */
static void
all_ready(struct ocsd *d, struct run *r)
{
	struct runner *rn = d->runner;
	uint32_t       k = r->bar[r->bi], i;
	char           why[400];
	int            rv;

	/* Planes apart: the last barrier's switches first. */
	if (r->apart_busy) {
		r->apart_next = 1;
		return;
	}
	if (k == r->nph) {
		finish(d, r);
		return;
	}
	if (k > 0 && !r->before[k]) {
		release(d, r);
		return;
	}
	if (r->apart && r->s.ph[k].planes != 0) {
		(void)run_apart_begin(d, r);
		return;
	}
	/* Phase 0's circuits, or a reconfiguration: through the worker.
	 * The deadline does not run while the switch moves. */
	nng_aio_cancel(rn->timer);
	for (i = 0; i < d->nsw; i++)
		if (!d->sw[i].have_live) {
			run_abort(d, "%s%s state unknown (not read back yet)",
			          d->nsw > 1 ? "switch " : "switch",
			          d->nsw > 1 ? d->sw[i].label : "");
			return;
		}
	if (k == 0 && (rv = run_save_intent(d, r, why, sizeof(why))) != 0) {
		run_abort(d, "%s; nothing changed on the switch", why);
		return;
	}
	/* Every switch at once (a worker each); the phase is released
	 * when all have settled and passed their light checks. */
	fab_reset(&rn->job);
	rn->job.transient = 1;
	for (i = 0; i < d->nsw; i++)
		if ((rv = run_phase_map(d, r, k, i, &rn->job.target[i])) !=
		    0) {
			run_abort(
			    d, "cannot build the switch map of phase %u: %s",
			    k, ocsd_strerror(rv));
			return;
		}
	run_links_plan(d, r, rn->job.target);
	r->reconfiguring = 1;
	rn->reconf_busy = 1;
	fab_submit_locked(&rn->job, rn->reconf);
}

void
run_continue(struct ocsd *d, struct run *r)
{
	all_ready(d, r);
}

/* The switch has settled: release once every link the phase lights is
 * up (run_link.c), within the link-up deadline. */
static void
links_wait(struct ocsd *d, struct run *r)
{
	uint32_t k = r->bar[r->bi];
	char     why[200];

	if (run_links_up(r, why, sizeof(why))) {
		r->linkwait = 0;
		r->link_ms[k] = (mono_us() - r->t_settled) / 1e3;
		release(d, r);
		return;
	}
	if (!r->linkwait) {
		r->linkwait = 1;
		log_debug("run %llu: phase %u waits for its links (%s)",
		          (unsigned long long)r->id, k, why);
		d->runner->ldue_us =
		    mono_us() + (uint64_t)r->link_deadline_ms * 1000;
		nng_sleep_aio((nng_duration)r->link_deadline_ms,
		              d->runner->ltimer);
	}
}

/* The links of the phase did not all come up in time: name one. */
static void
ltimer_cb(void *arg)
{
	struct ocsd *d = arg;
	struct run  *r;
	char         why[200];

	if (nng_aio_result(d->runner->ltimer) != 0)
		return; /* cancelled: released, or the run is over */
	nng_mtx_lock(d->mtx);
	r = d->runner->run;
	if (r != NULL && r->linkwait && mono_us() >= d->runner->ldue_us &&
	    !run_links_up(r, why, sizeof(why)))
		run_abort(d,
		          "phase %u: links not up %.3f s after the switch "
		          "settled: %s",
		          r->bar[r->bi], r->link_deadline_ms / 1e3, why);

	nng_mtx_unlock(d->mtx);
}

/* The restore after a run is done: say how it went. */
static void
restore_cb(void *arg)
{
	struct ocsd   *d = arg;
	struct runner *rn = d->runner;
	int            keep, again, result = nng_aio_result(rn->raio);

	nng_mtx_lock(d->mtx);
	keep = rn->restoring == 2;
	rn->restoring = 0;
	if (result != 0 || rn->rjob.rv != 0)
		log_warnx("after the run: %s: %s",
		          keep ? "keeping its configuration"
		               : "putting the switch back",
		          result != 0 ? "cancelled" : rn->rjob.err);
	else if (keep)
		log_info(
		    "after the run: its last configuration is the desired "
		    "map (--keep)");
	else
		log_info("after the run: the switch holds what it held before "
		         "(%u changes)",
		         rn->rjob.changed);
	if (result == 0 && rn->rjob.rv == 0 && rn->run == NULL)
		unlink(d->run_state_path);
	if ((again = rn->restore_again) != 0) {
		rn->restore_again = 0;
		restore(d, again == 2);
	}
	/* A verified run waits for the restore that follows it. */
	if (rn->ending != NULL && !rn->restoring)
		conclude_restored(d, keep,
		                  result != 0        ? nng_strerror(result)
		                  : rn->rjob.rv != 0 ? rn->rjob.err
		                                     : NULL);
	nng_mtx_unlock(d->mtx);
}

static void
reconf_cb(void *arg)
{
	struct ocsd   *d = arg;
	struct runner *rn = d->runner;
	struct run    *r;
	uint32_t       k;

	nng_mtx_lock(d->mtx);
	rn->reconf_busy = 0;
	r = rn->run;
	if (r != NULL && r->apart_busy) {
		(void)run_apart_done(d, r);
		nng_mtx_unlock(d->mtx);
		return;
	}
	if (r == NULL || !r->reconfiguring) {
		nng_mtx_unlock(d->mtx);
		return;
	}
	r->reconfiguring = 0;
	k = r->bar[r->bi];
	if (nng_aio_result(rn->reconf) != 0)
		run_abort(d, "reconfiguration before phase %u cancelled", k);
	else if (rn->job.rv != 0)
		run_abort(d, "reconfiguration before phase %u: %s", k,
		          rn->job.err);
	else {
		r->reconf_ms[k] = rn->job.took_ms;
		r->t_settled = mono_us();
		links_wait(d, r);
	}
	nng_mtx_unlock(d->mtx);
}

/* The barrier's deadline passed: name who is late. */
static void
timer_cb(void *arg)
{
	struct ocsd *d = arg;
	struct run  *r;
	char         late[400];
	size_t       off = 0;
	uint32_t     i;

	if (nng_aio_result(d->runner->timer) != 0)
		return; /* cancelled: released, reconfiguring or over */
	nng_mtx_lock(d->mtx);
	r = d->runner->run;
	if (r == NULL || r->reconfiguring || r->linkwait || r->apart_next ||
	    mono_us() < d->runner->due_us) {
		nng_mtx_unlock(d->mtx);
		return;
	}
	late[0] = '\0';
	for (i = 0; i < r->n && off < sizeof(late) - 40; i++)
		if (r->node[i] && r->node[i]->ready != r->bi)
			off += (size_t)snprintf(late + off, sizeof(late) - off,
			                        "%s%s", off ? ", " : "",
			                        r->node[i]->host);
	run_abort(d, "%s not ready for phase %u within %.1f s", late,
	          r->bar[r->bi], r->deadline_ms / 1e3);
	nng_mtx_unlock(d->mtx);
}

/* ---- what the agents' registry tells the runner --------------------------- */

static void
on_poll(void *arg, struct agent *a)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner->run;

	if (r && a->node >= 0 && !a->plan_sent && a->hold.kind == HOLD_POLL)
		send_plan(d, r, a);
}

/* Is this Ready the one the run waits for?  Nothing changes here. */
static int
on_ready_check(void *arg, const struct agent *a, const struct agents_ready *m,
               char *err, size_t len)
{
	const struct ocsd   *d = arg;
	const struct runner *rn = d->runner;
	const struct run    *r = rn->run;
	uint32_t             k, i, first;

	if (!m->has_run || r == NULL || m->run_id != r->id) {
		if (m->has_run && m->run_id == rn->last_id &&
		    rn->last_abort[0])
			snprintf(err, len, "%s", rn->last_abort);
		else
			snprintf(err, len,
			         "ready for run %llu, which is not running",
			         (unsigned long long)m->run_id);
		return (-OCSD_EABORT);
	}
	if (a->node < 0) {
		snprintf(err, len, "not in run %llu",
		         (unsigned long long)r->id);
		return (-OCSD_EREQUEST);
	}
	k = r->bar[r->bi];
	if (!m->has_phase || m->phase != k || r->reconfiguring) {
		snprintf(err, len, "ready for phase %u, expected %u",
		         m->has_phase ? m->phase : 0, k);
		return (-MSG_EFIELD);
	}
	if (a->ready == r->bi) {
		snprintf(err, len, "duplicate ready for phase %u", k);
		return (-MSG_EFIELD);
	}
	/* Reports only of the phases since the last barrier. */
	first = r->bi ? r->bar[r->bi - 1] : 0;
	for (i = 0; i < m->ndone; i++)
		if (m->done[i].phase < first || m->done[i].phase >= k) {
			snprintf(err, len,
			         "report for phase %u, expected %u..%u",
			         m->done[i].phase, first, k ? k - 1 : 0);
			return (-MSG_EFIELD);
		}
	return (0);
}

static void
on_ready(void *arg, struct agent *a, const struct agents_ready *m)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner->run;
	uint32_t     k = r->bar[r->bi], i;

	if (m->setup_ns)
		r->nt[a->node].setup_ns = m->setup_ns;
	if (m->teardown_ns)
		r->nt[a->node].teardown_ns = m->teardown_ns;
	for (i = 0; i < m->ndone; i++) {
		const struct plan_done *pd = &m->done[i];

		r->nt[a->node].ph[pd->phase].data_ns = pd->data_ns;
		r->nt[a->node].ph[pd->phase].verify_ns = pd->verify_ns;
		r->nt[a->node].ph[pd->phase].wait_ns = pd->wait_ns;
		if (pd->data_ns > r->data_ns[pd->phase])
			r->data_ns[pd->phase] = pd->data_ns;
		r->pbytes[pd->phase] += pd->recv;
		r->verified += pd->verified;
		r->errors += pd->errors;
	}
	a->ready = r->bi;
	a->planes = m->planes;
	if (r->nready++ == 0)
		r->t_first = mono_us();
	if (r->nready < r->n)
		return;
	/* The stretch since the last release: what was not data (the
	 * slowest agent's, phase by phase) was control; before the final
	 * Ready, nor was freeing buffers (the slowest agent's teardown). */
	if (r->bi > 0) {
		uint32_t p0 = r->bar[r->bi - 1];
		double   span = (mono_us() - r->t_release[p0]) / 1e3, data = 0;
		uint64_t td = 0;

		for (i = p0; i < k; i++)
			data += r->data_ns[i] / 1e6;
		for (i = 0; k == r->nph && i < r->n; i++)
			if (r->nt[i].teardown_ns > td)
				td = r->nt[i].teardown_ns;
		data += td / 1e6;
		r->control_ms[p0] = span > data ? span - data : 0;
	}
	all_ready(d, r);
}

/* A link of a's changed: the one awaited, or one lost mid-phase. */
static void
on_links(void *arg, struct agent *a)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner->run;
	uint32_t     k, p0;
	char         why[200];

	if (r == NULL || a->node < 0)
		return;
	if (r->linkwait) {
		links_wait(d, r);
		return;
	}
	/* Planes apart: a plane moving, or waiting for its links. */
	if (r->apart_busy || r->apart_links) {
		run_apart_links(d, r);
		return;
	}
	/* Links move while the switch does; before phase 0 none is used. */
	if (r->reconfiguring || r->bi == 0 ||
	    !run_links_broken(r, a, why, sizeof(why)))
		return;
	k = r->bar[r->bi];
	p0 = r->bar[r->bi - 1];
	if (k - p0 == 1)
		run_abort(d, "%s in phase %u", why, p0);
	else
		run_abort(d, "%s in phases %u-%u", why, p0, k - 1);
}

static void
on_abort(void *arg, struct agent *a, uint64_t run_id, const char *reason)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner->run;

	if (r && a->node >= 0 && run_id == r->id)
		run_abort(d, "%s (node %d): %s", a->host, a->node, reason);
}

static void
on_lost(void *arg, struct agent *a, const char *why)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner->run;
	int          node = a->node;
	uint32_t     k, p0;
	char         when[64];

	if (r == NULL || node < 0)
		return;
	/* Between two barriers ocsd does not see which phase an agent is
	 * in, only whether it had reported ready for the next one. */
	k = r->bar[r->bi];
	p0 = r->bi > 0 ? r->bar[r->bi - 1] : 0;
	if (a->ready == r->bi)
		snprintf(when, sizeof(when), "waiting for phase %u", k);
	else if (r->bi == 0)
		snprintf(when, sizeof(when), "before phase 0");
	else if (k - p0 == 1)
		snprintf(when, sizeof(when), "in phase %u", p0);
	else
		snprintf(when, sizeof(when), "in phases %u-%u", p0, k - 1);
	r->node[node] = NULL;
	a->node = -1;
	run_abort(d, "agent %s (node %d) lost %s: %s", a->host, node, when,
	          why);
}

/* ---- starting and stopping ------------------------------------------------ */

/* The operator's request went away (ctl closing): end the run. */
static void
ctl_cancel(nng_aio *aio, void *arg, int rv)
{
	struct ocsd *d = arg;
	struct run  *r;

	nng_mtx_lock(d->mtx);
	if (run_job_cancel(d, aio, "the operator's request was cancelled")) {
		nng_mtx_unlock(d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	/* A verified run waiting for the switch to be put back: it ends
	 * as it would, heard by nobody. */
	if ((r = d->runner->ending) != NULL && r->ctl_aio == aio) {
		r->ctl.done = NULL;
		r->ctl_aio = NULL;
		nng_mtx_unlock(d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	r = d->runner->run;
	if (r && r->ctl_aio == aio) {
		r->ctl.done = NULL; /* nobody to report to */
		run_abort(d, "the operator's request was cancelled");
		nng_mtx_unlock(d->mtx);
		nng_aio_finish(aio, rv);
		return;
	}
	nng_mtx_unlock(d->mtx);
}

int
run_start(struct ocsd *d, const struct run_req *q, const struct run_waiter *w,
          nng_aio *aio, char *err, size_t errlen)
{
	struct runner *rn = d->runner;
	uint32_t       i;
	uint64_t       id;
	int            rv;

	if (d->ag == NULL || rn == NULL) {
		snprintf(err, errlen,
		         "no agents: [agents] listen is not configured");
		return (-OCSD_EREQUEST);
	}
	/* A run's last reconfiguration may still be on the switch. */
	if (rn->run || rn->ending || rn->reconf_busy || run_job_busy(d, &id)) {
		snprintf(err, errlen, "run %llu is %s",
		         (unsigned long long)(rn->run      ? rn->run->id
		                              : rn->ending ? rn->ending->id
		                              : rn->pjob   ? id
		                                           : rn->last_id),
		         rn->pjob ? "being planned (ocsctl status says how "
		                    "far)"
		                  : "in progress");
		return (-OCSD_EBUSY);
	}
	for (i = 0; i < d->nsw; i++) {
		struct sw *s = &d->sw[i];

		if (s->connected && s->have_live)
			continue;
		/* The last fault may have cleared: look again now, rather
		 * than refuse runs until the backoff ends. */
		sw_kick_locked(s);
		snprintf(err, errlen,
		         "%s%s is not connected (trying again now)%s%s",
		         d->nsw > 1 ? "switch " : "the switch",
		         d->nsw > 1 ? s->label : "", s->sw_err[0] ? ": " : "",
		         s->sw_err);
		return (-OCSD_ESWITCH);
	}
	if ((rv = run_job_start(d, q, w, aio, err, errlen)) != 0)
		return (rv);
	nng_aio_defer(aio, ctl_cancel, d);
	return (0);
}

int
run_begin(struct ocsd *d, struct run *r, uint64_t id, uint64_t t_req,
          uint64_t started_unix_ms, const struct run_waiter *w, nng_aio *aio,
          char *err, size_t len)
{
	struct runner *rn = d->runner;
	uint32_t       i;
	int            rv;

	for (i = 0; i < d->nsw; i++)
		if (!d->sw[i].connected || !d->sw[i].have_live) {
			snprintf(
			    err, len,
			    "%s%s went away while the run was planned%s%s",
			    d->nsw > 1 ? "switch " : "the switch",
			    d->nsw > 1 ? d->sw[i].label : "",
			    d->sw[i].sw_err[0] ? ": " : "", d->sw[i].sw_err);
			return (-OCSD_ESWITCH);
		}
	if ((rv = run_bind(d, r, err, len)) != 0 ||
	    (rv = run_links_mtu(r, err, len)) != 0)
		return (rv);
	/* What the switch holds now is what it goes back to after; while
	 * the last run's restore is still on its way, what it restores. */
	for (i = 0; i < d->nsw && rn->restoring != 1; i++) {
		map_free(&rn->prerun[i]);
		if (map_copy(&rn->prerun[i], &d->sw[i].live) != 0) {
			snprintf(err, len, "out of memory");
			return (-ENOMEM);
		}
	}
	/* [run] idle_lit: and with the hosts' dark transceivers lit. */
	if (d->conf->run_idle_lit && rn->restoring != 1)
		run_idle_loops(d, r, rn->prerun);
	r->id = id;
	r->t_req = t_req;
	r->started_unix_ms = started_unix_ms;
	for (i = 0; i < r->n; i++) {
		r->node[i]->node = (int)i;
		r->node[i]->plan_sent = 0;
		r->node[i]->ready = AG_NONE;
	}
	r->ctl = *w;
	r->ctl_aio = aio;
	rn->run = r;
	log_info("run %llu: %s, %u nodes, %llu bytes each, %u phases, model "
	         "%.6f s",
	         (unsigned long long)r->id, r->algo, r->n,
	         (unsigned long long)r->bytes, r->nph, r->predicted);
	ev_say(d->ev, "run", "started", NULL, r->id, -1, "run %llu: %s on %u",
	       (unsigned long long)r->id, r->algo, r->n);
	/* Agents already waiting get their plans now, the others when they
	 * next poll. */
	for (i = 0; i < r->n && rn->run == r; i++)
		on_poll(d, r->node[i]);
	if (rn->run == r)
		arm_timer(rn, r);
	return (0);
}

void
run_listen(struct ocsd *d, struct agents *ag)
{
	const struct agents_events ev = {
	    .arg = d,
	    .poll = on_poll,
	    .ready_check = on_ready_check,
	    .ready = on_ready,
	    .abort = on_abort,
	    .links = on_links,
	    .lost = on_lost,
	};

	agents_notify(ag, &ev);
}

void
run_stop(struct ocsd *d)
{
	nng_mtx_lock(d->mtx);
	run_abort(d, "ocsd is shutting down");
	nng_mtx_unlock(d->mtx);
}

/* The runner lives as long as ocsd. */
int
run_init(struct ocsd *d, const struct run_hooks *hooks)
{
	struct runner *rn;
	int            rv;

	if ((rn = calloc(1, sizeof(*rn))) == NULL)
		return (-ENOMEM);
	if (fab_init(&rn->job, d) != 0 || fab_init(&rn->rjob, d) != 0) {
		fab_fini(&rn->job);
		fab_fini(&rn->rjob);
		free(rn);
		return (-ENOMEM);
	}
	if ((rv = nng_aio_alloc(&rn->reconf, reconf_cb, d)) != 0 ||
	    (rv = nng_aio_alloc(&rn->raio, restore_cb, d)) != 0 ||
	    (rv = nng_aio_alloc(&rn->timer, timer_cb, d)) != 0 ||
	    (rv = nng_aio_alloc(&rn->ltimer, ltimer_cb, d)) != 0 ||
	    (rv = nng_aio_alloc(&rn->atimer, run_apart_timer, d)) != 0) {
		nng_aio_free(rn->reconf);
		nng_aio_free(rn->raio);
		nng_aio_free(rn->timer);
		nng_aio_free(rn->ltimer);
		fab_fini(&rn->job);
		fab_fini(&rn->rjob);
		free(rn);
		return (msg_nngerr(rv));
	}
	/* Planes apart hear each switch of a run's job settle. */
	rn->job.one = run_apart_one;
	rn->job.one_arg = d;
	/* Runs are numbered from the clock so that ids do not repeat
	 * across restarts. */
	rn->last_id = (uint64_t)time(NULL) << 16;
	if (hooks != NULL)
		rn->hooks = *hooks;
	d->runner = rn;
	if ((rv = run_planner_start(d)) != 0) {
		run_fini(d);
		return (rv);
	}
	return (0);
}

/* After run_stop, the worker and the agents' socket: the aios' callbacks
 * can no longer come. */
void
run_fini(struct ocsd *d)
{
	struct runner *rn = d->runner;
	uint32_t       i;

	if (rn == NULL)
		return;
	/* A planner still deep in a plan keeps the runner: the process is
	 * ending, and it would find it freed. */
	if (run_planner_stop(d) != 0)
		return;
	nng_aio_stop(rn->timer);
	nng_aio_stop(rn->ltimer);
	nng_aio_stop(rn->atimer);
	nng_aio_stop(rn->reconf);
	nng_aio_stop(rn->raio);
	if (rn->ending != NULL) /* its restore never came back */
		run_free(rn->ending);
	nng_aio_free(rn->timer);
	nng_aio_free(rn->ltimer);
	nng_aio_free(rn->atimer);
	nng_aio_free(rn->reconf);
	nng_aio_free(rn->raio);
	fab_fini(&rn->job);
	fab_fini(&rn->rjob);
	for (i = 0; i < CONF_SWITCH_MAX; i++)
		map_free(&rn->prerun[i]);
	free(rn);
	d->runner = NULL;
}
