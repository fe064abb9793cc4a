/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Planes apart: a barrier whose phase names the planes it reconfigures
 * (collectives/sched.h) on a fabric of one switch a plane.  Every named
 * switch moves at once (a worker each, as any reconfiguration), but each
 * plane is released as soon as its own switch has settled, read back and
 * passed its light check, and its links are up: plane q's release does
 * not wait for plane p's switch.  The planes the phase leaves alone keep
 * their circuits and are released at once.  The first plane released
 * answers every agent's Ready (the barrier is passed: agents send on the
 * lit planes); the others are pushed as they come, and the agents'
 * executors hold a port's frames until its plane is released.  An agent
 * whose Ready named no planes (an older one) is answered once every plane
 * is.  The next barrier waits for this one's switches.
 */
#include <stdio.h>
#include <string.h>

#include "ocsd/ev.h"
#include "ocsd/run_int.h"
#include "proto/base/log.h"
#include "proto/base/mono.h"

/* Plane p of the barrier being released is lit for its agents. */
static void
release_plane(struct ocsd *d, struct run *r, uint32_t p)
{
	uint32_t k = r->apart_k, i;
	uint64_t t = mono_us(); /* the first release sent (run.c) */

	if (!((r->apart_left >> p) & 1))
		return;
	r->apart_left &= ~(1u << p);
	r->apart_links &= ~(1u << p);
	r->plane_release_ms[k][p] = (mono_us() - r->t_first) / 1e3;
	log_debug("run %llu: phase %u, plane %s released",
	          (unsigned long long)r->id, k, d->sw[p].label);
	for (i = 0; i < r->n; i++) {
		struct agent *a = r->node[i];

		if (a == NULL)
			continue;
		if (a->planes != 0)
			agents_release_plane(d, a, r->id, k, p);
		else if (r->apart_left == 0)
			agents_release(d, a, r->id, k);
		if (!r->apart_first)
			a->ready = AG_NONE;
	}
	if (!r->apart_first) {
		r->apart_first = 1;
		run_released(d, r, t);
	} else
		run_links_mark(r, 1u << p);
}

/*
 * Each plane waiting for its links gives up the link deadline after its
 * switch settled.  One timer serves them all: the deadlines come in the
 * order the planes begin to wait, so a timer running is never later
 * than a new one; it is begun only when idle (an aio cancelled and begun
 * again at once may still have its completion queued) and sleeps again
 * from its own callback.
 */
static void
links_arm(struct ocsd *d, struct run *r)
{
	struct runner *rn = d->runner;
	uint64_t       now = mono_us(), due = UINT64_MAX;
	uint32_t       p;

	if (rn->atimer_on)
		return;
	for (p = 0; p < d->nsw; p++)
		if (((r->apart_links >> p) & 1) && r->apart_due_us[p] < due)
			due = r->apart_due_us[p];
	if (due == UINT64_MAX)
		return;
	rn->atimer_on = 1;
	nng_sleep_aio((nng_duration)(due > now ? (due - now) / 1000 + 1 : 0),
	              rn->atimer);
}

void
run_apart_timer(void *arg)
{
	struct ocsd *d = arg;
	struct run  *r;
	uint64_t     now = mono_us();
	uint32_t     p;
	char         why[200];

	nng_mtx_lock(d->mtx);
	d->runner->atimer_on = 0;
	r = d->runner->run;
	if (nng_aio_result(d->runner->atimer) != 0 || r == NULL) {
		nng_mtx_unlock(d->mtx);
		return; /* stopped, or the run is over */
	}
	for (p = 0; p < d->nsw; p++)
		if (((r->apart_links >> p) & 1) && now >= r->apart_due_us[p] &&
		    !run_links_up_sw(r, 1u << p, why, sizeof(why))) {
			run_abort(d,
			          "phase %u: links not up %.3f s after switch "
			          "%s settled: %s",
			          r->apart_k, r->link_deadline_ms / 1e3,
			          d->sw[p].label, why);
			nng_mtx_unlock(d->mtx);
			return;
		}
	links_arm(d, r);
	nng_mtx_unlock(d->mtx);
}

/* Plane p's switch has settled: released once its links are up. */
static void
settled(struct ocsd *d, struct run *r, uint32_t p)
{
	char why[200];

	if (!((r->apart_left >> p) & 1))
		return;
	if (run_links_up_sw(r, 1u << p, why, sizeof(why))) {
		release_plane(d, r, p);
		return;
	}
	if (!((r->apart_links >> p) & 1))
		r->apart_due_us[p] =
		    mono_us() + (uint64_t)r->link_deadline_ms * 1000;
	r->apart_links |= 1u << p;
	links_arm(d, r);
	log_debug("run %llu: phase %u, plane %s waits for its links (%s)",
	          (unsigned long long)r->id, r->apart_k, d->sw[p].label, why);
}

int
run_apart_begin(struct ocsd *d, struct run *r)
{
	struct runner *rn = d->runner;
	uint32_t       k = r->bar[r->bi], mask, p;
	char           why[400];
	int            rv;

	mask = r->s.ph[k].planes & ((1u << d->nsw) - 1);
	for (p = 0; p < d->nsw; p++)
		if (((mask >> p) & 1) && !d->sw[p].have_live) {
			run_abort(d,
			          "switch %s state unknown (not read back "
			          "yet)",
			          d->sw[p].label);
			return (-1);
		}
	if (k == 0 && (rv = run_save_intent(d, r, why, sizeof(why))) != 0) {
		run_abort(d, "%s; nothing changed on the switch", why);
		return (rv);
	}
	fab_reset(&rn->job);
	rn->job.transient = 1;
	for (p = 0; p < d->nsw; p++)
		if (((mask >> p) & 1) &&
		    (rv = run_phase_map(d, r, k, p, &rn->job.target[p])) !=
		        0) {
			run_abort(
			    d, "cannot build switch %s's map of phase %u: %s",
			    d->sw[p].label, k, ocsd_strerror(rv));
			return (rv);
		}
	run_links_plan(d, r, rn->job.target);
	r->apart_k = k;
	r->apart_left = (1u << d->nsw) - 1;
	r->apart_links = 0;
	r->apart_first = 0;
	r->apart_busy = 1;
	rn->reconf_busy = 1;
	/* The deadline does not run while the named switches move; the
	 * planes left alone go on at once. */
	nng_aio_cancel(rn->timer);
	fab_submit_locked(&rn->job, rn->reconf);
	for (p = 0; p < d->nsw && rn->run == r; p++)
		if (!((mask >> p) & 1))
			release_plane(d, r, p);
	return (0);
}

void
run_apart_one(void *arg, uint32_t sw)
{
	struct ocsd *d = arg;
	struct run  *r = d->runner ? d->runner->run : NULL;

	if (r == NULL || !r->apart_busy || sw >= d->nsw)
		return;
	r->plane_reconf_ms[r->apart_k][sw] = d->runner->job.sj[sw].took_ms;
	settled(d, r, sw);
}

int
run_apart_done(struct ocsd *d, struct run *r)
{
	struct runner *rn = d->runner;
	uint32_t       k = r->apart_k, p;

	r->apart_busy = 0;
	if (nng_aio_result(rn->reconf) != 0) {
		run_abort(d, "reconfiguration before phase %u cancelled", k);
		return (-1);
	}
	if (rn->job.rv != 0) {
		run_abort(d, "reconfiguration before phase %u: %s", k,
		          rn->job.err);
		return (-1);
	}
	r->reconf_ms[k] = rn->job.took_ms;
	/* Every switch has settled (each said so as it did; a plane that
	 * was not, now). */
	for (p = 0; p < d->nsw && rn->run == r; p++)
		if (!((r->apart_links >> p) & 1))
			settled(d, r, p);
	/* No switch left to wait for: a barrier whose Readys are all in
	 * goes on. */
	if (r->apart_next && rn->run == r) {
		r->apart_next = 0;
		run_continue(d, r);
	}
	return (0);
}

void
run_apart_links(struct ocsd *d, struct run *r)
{
	uint32_t p;

	for (p = 0; p < d->nsw && d->runner->run == r; p++)
		if ((r->apart_links >> p) & 1) {
			r->apart_links &= ~(1u << p);
			settled(d, r, p);
		}
}
