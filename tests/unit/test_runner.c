/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_runner.c: ocsd's run state machine without processes.
 * The runner hears agents only through the callbacks it registers
 * (agents.h), so this test stands in for the agents' registry: it records
 * what the runner answers (plans, releases, finishes, aborts) and plays
 * the agents' Polls, Readys and losses.  The switch is real: the worker
 * thread (sw.c) with the in-process emu driver, so every barrier's
 * reconfiguration is applied and read back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocsd/reply.h"
#include "ocsd/run_int.h"
#include "proto/base/mono.h"

#define NAG 4

/* ---- the registry's half, recorded --------------------------------------- */

static struct agents_events ev;
static struct agent         ag[NAG];
static uint32_t             nplans, nfinished, nabort, released[NAG];
static uint32_t             last_phase;
static char                 abort_reason[600];

void
agents_notify(struct agents *a, const struct agents_events *e)
{
	(void)a;
	ev = *e;
}

uint32_t
agents_active(struct ocsd *d, struct agent **out, uint32_t cap)
{
	uint32_t i;

	(void)d;
	for (i = 0; i < NAG && i < cap; i++)
		out[i] = &ag[i];
	return (i);
}

/* Every agent of the test takes part. */
uint32_t
agents_left_out(struct ocsd *d, char *buf, size_t len)
{
	(void)d;
	if (len)
		buf[0] = '\0';
	return (NAG);
}

struct agent *
agents_get(struct ocsd *d, uint32_t id)
{
	(void)d;
	return (id >= 1 && id <= NAG ? &ag[id - 1] : NULL);
}

int
agents_ports(const struct ocsd *d, struct agent *a)
{
	const struct conf_trx *t;
	char                   name[80];
	uint32_t               i;

	for (i = 0; i < a->ntrx; i++) {
		snprintf(name, sizeof(name), "%s.%u", a->host, i);
		if ((t = conf_trx_find(d->conf, name)) == NULL)
			return (-ENOENT);
		a->in[i] = t->in;
		a->out[i] = t->out;
		a->sw[i] = (uint8_t)t->sw;
	}
	return (0);
}

/* An answer goes to a held request, as the registry does. */
static int
answer(struct agent *a)
{
	if (a->hold.kind == HOLD_NONE)
		return (0);
	a->hold.kind = HOLD_NONE;
	return (1);
}

int
agents_send_plan(struct ocsd *d, struct agent *a, uint64_t run_id,
                 const struct plan *p, const char *algo)
{
	(void)d, (void)run_id, (void)algo;
	assert_int_equal(p->node, (uint32_t)a->node);
	nplans += answer(a);
	return (0);
}

void
agents_release(struct ocsd *d, struct agent *a, uint64_t run_id,
               uint32_t phase)
{
	(void)d, (void)run_id;
	released[a - ag] += answer(a);
	last_phase = phase;
}

/* Planes apart: each release of a plane, in order, as node 0 heard it. */
static uint32_t plane_seen[16], nplane_seen;

void
agents_release_plane(struct ocsd *d, struct agent *a, uint64_t run_id,
                     uint32_t phase, uint32_t plane)
{
	(void)d, (void)run_id;
	released[a - ag] += answer(a);
	last_phase = phase;
	if (a == ag && nplane_seen < 16)
		plane_seen[nplane_seen++] = plane;
}

void
agents_finished(struct ocsd *d, struct agent *a, uint64_t run_id,
                uint32_t phase)
{
	(void)d, (void)run_id, (void)phase;
	nfinished += answer(a);
}

void
agents_abort(struct ocsd *d, uint64_t run_id, uint32_t phase,
             const char *reason, struct agent *const *nodes, uint32_t n)
{
	uint32_t i;

	(void)d, (void)run_id, (void)phase;
	nabort++;
	snprintf(abort_reason, sizeof(abort_reason), "%s", reason);
	for (i = 0; i < n; i++)
		if (nodes[i])
			answer(nodes[i]);
}

/* ---- a daemon with a real switch worker ---------------------------------- */

#define CONF                                                                  \
	"[switch]\ndriver = emu\nports = 8\nswitch_time = 0\n"                \
	"light_check = no\npoll = 0\n"                                        \
	"[cabling]\n"                                                         \
	"h0.0 = 1 9\nh0.1 = 2 10\nh1.0 = 3 11\nh1.1 = 4 12\n"                 \
	"h2.0 = 5 13\nh2.1 = 6 14\nh3.0 = 7 15\nh3.1 = 8 16\n"

/* A fabric of two switches, a plane each: transceiver .0 of every host
 * on A, .1 on B, on the same port numbers. */
#define CONF_FAB                                                              \
	"[switch A]\ndriver = emu\nports = 8\nswitch_time = 0\n"              \
	"light_check = no\npoll = 0\n"                                        \
	"[switch B]\ndriver = emu\nports = 8\nswitch_time = 0\n"              \
	"light_check = no\npoll = 0\n"                                        \
	"[cabling]\n"                                                         \
	"h0.0 = A 1 9\nh0.1 = B 1 9\nh1.0 = A 2 10\nh1.1 = B 2 10\n"          \
	"h2.0 = A 3 11\nh2.1 = B 3 11\nh3.0 = A 4 12\nh3.1 = B 4 12\n"

/* The fabric again, B slow to switch (150 ms) and links waited for
 * within 400 ms of a switch settling. */
#define CONF_FAB_SLOW_B                                                       \
	"[switch A]\ndriver = emu\nports = 8\nswitch_time = 0\n"              \
	"light_check = no\npoll = 0\n"                                        \
	"[switch B]\ndriver = emu\nports = 8\nswitch_time = 150ms\n"          \
	"light_check = no\npoll = 0\n"                                        \
	"[run]\nlink_deadline = 400ms\n"                                      \
	"[cabling]\n"                                                         \
	"h0.0 = A 1 9\nh0.1 = B 1 9\nh1.0 = A 2 10\nh1.1 = B 2 10\n"          \
	"h2.0 = A 3 11\nh2.1 = B 3 11\nh3.0 = A 4 12\nh3.1 = B 4 12\n"

/* The run's outcome, as the operator's request hears it. */
struct pending {
	int          rv;
	char         err[768];
	struct reply rep;
};

struct fx {
	struct ocsd    d;
	char           dir[64];
	struct pending p;
	nng_aio       *aio;
};

static void
run_done(void *arg, int rv, const char *why, const struct run_report *rep)
{
	struct pending *p = arg;

	p->rv = rv;
	if (why != NULL)
		snprintf(p->err, sizeof(p->err), "%s", why);
	if (rep != NULL)
		reply_run(&p->rep, rep);
}

static int
setup_conf(void **state, const char *conf)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       err[256];
	uint32_t   i, k, up;

	snprintf(f->dir, sizeof(f->dir), "/tmp/ocs-test-runner-XXXXXX");
	if (f == NULL || mkdtemp(f->dir) == NULL ||
	    conf_parse(conf, "t.conf", &f->d.conf, err, sizeof(err)) != 0)
		return (-1);
	snprintf(f->d.conf->state_dir, sizeof(f->d.conf->state_dir), "%s",
	         f->dir);
	snprintf(f->d.run_state_path, sizeof(f->d.run_state_path),
	         "%s/run.state", f->dir);
	if (sw_init(&f->d) != 0)
		return (-1);
	nng_mtx_alloc(&f->d.mtx);
	nng_cv_alloc(&f->d.cv, f->d.mtx);
	f->d.ag = (struct agents *)&ev; /* present; only its events matter */
	if (run_init(&f->d, NULL) != 0 || sw_start(&f->d) != 0 ||
	    nng_aio_alloc(&f->aio, NULL, NULL) != 0)
		return (-1);
	run_listen(&f->d, f->d.ag);
	for (i = 0, up = 0; i < 200 && !up; i++) {
		mono_sleep_ms(10);
		nng_mtx_lock(f->d.mtx);
		for (k = 0, up = 1; k < f->d.nsw; k++)
			up &= f->d.sw[k].have_live;
		nng_mtx_unlock(f->d.mtx);
	}
	memset(ag, 0, sizeof(ag));
	for (i = 0; i < NAG; i++) {
		snprintf(ag[i].host, sizeof(ag[i].host), "h%u", i);
		ag[i].id = i + 1;
		ag[i].ntrx = 2;
		ag[i].fibres_up = 2;
		ag[i].node = -1;
		ag[i].ready = AG_NONE;
	}
	nplans = nfinished = nabort = last_phase = 0;
	memset(released, 0, sizeof(released));
	abort_reason[0] = '\0';
	*state = f;
	return (up ? 0 : -1);
}

static int
setup(void **state)
{
	return (setup_conf(state, CONF));
}

static int
setup_fab(void **state)
{
	return (setup_conf(state, CONF_FAB));
}

/* Agents that say their links (up, one carrier up so far). */
static int
setup_fab_slow_b(void **state)
{
	uint32_t i, t;

	if (setup_conf(state, CONF_FAB_SLOW_B) != 0)
		return (-1);
	for (i = 0; i < NAG; i++) {
		ag[i].has_links = 1;
		for (t = 0; t < 2; t++) {
			ag[i].links[t].state = AGL_UP;
			ag[i].links[t].ups = 1;
		}
	}
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char       cmd[128];

	run_stop(&f->d);
	sw_stop(&f->d);
	run_fini(&f->d);
	nng_aio_free(f->aio);
	reply_free(&f->p.rep);
	sw_free(&f->d);
	conf_free(f->d.conf);
	nng_cv_free(f->d.cv);
	nng_mtx_free(f->d.mtx);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	free(f);
	return (system(cmd) == 0 ? 0 : -1);
}

static void
start_planes(struct fx *f, const char *algo, const char *reconfig,
             const char *planes)
{
	struct run_req          q = {.bytes = 4096};
	static uint64_t         m[NAG * NAG];
	uint32_t                k;
	const struct run_waiter w = {.arg = &f->p, .done = run_done};
	int                     i, started;

	snprintf(q.algo, sizeof(q.algo), "%s", algo);
	if (run_is_skew(algo)) {
		/* A skewed planner takes a matrix: node i sends 1 KiB
		 * times (1 + i + j) % NAG to node j. */
		for (k = 0; k < NAG * NAG; k++)
			m[k] = k / NAG == k % NAG
			           ? 0
			           : 1024 * (1 + (k / NAG + k % NAG) % NAG);
		q.matrix = m;
		q.mn = NAG;
	}
	snprintf(q.reconfig, sizeof(q.reconfig), "%s", reconfig);
	snprintf(q.planes, sizeof(q.planes), "%s", planes);
	reply_init(&f->p.rep);
	nng_mtx_lock(f->d.mtx);
	assert_int_equal(
	    run_start(&f->d, &q, &w, f->aio, f->p.err, sizeof(f->p.err)), 0);
	/* Planned off the lock: it starts once the planner is done. */
	for (i = 0; i < 500 && f->d.runner->run == NULL; i++) {
		nng_mtx_unlock(f->d.mtx);
		mono_sleep_ms(2);
		nng_mtx_lock(f->d.mtx);
	}
	started = f->d.runner->run != NULL;
	nng_mtx_unlock(f->d.mtx);
	if (!started)
		fail_msg("not started: %s", f->p.err);
}

static void
start_algo(struct fx *f, const char *algo, const char *reconfig)
{
	start_planes(f, algo, reconfig, "");
}

static void
start(struct fx *f, const char *reconfig)
{
	start_algo(f, "retri", reconfig);
}

/* What an agent's Poll and Ready look like to the runner. */
static void
poll_(struct fx *f, int i)
{
	nng_mtx_lock(f->d.mtx);
	ag[i].hold.kind = HOLD_POLL;
	ev.poll(ev.arg, &ag[i]);
	nng_mtx_unlock(f->d.mtx);
}

/* Agent i is ready for phase, reporting phases [from, phase) done. */
static int
ready(struct fx *f, int i, uint32_t phase, uint32_t from, char *err,
      size_t len)
{
	struct agents_ready rd = {.has_run = 1, .has_phase = 1};
	struct run         *r;
	uint32_t            k;
	int                 rv;

	nng_mtx_lock(f->d.mtx);
	r = f->d.runner->run;
	rd.run_id = r ? r->id : 1;
	rd.phase = phase;
	for (k = from; k < phase; k++)
		rd.done[rd.ndone++] = (struct plan_done){
		    .phase = k, .data_ns = 1000, .recv = 100, .verified = 3};
	if ((rv = ev.ready_check(ev.arg, &ag[i], &rd, err, len)) == 0) {
		ag[i].hold.kind = HOLD_READY;
		ev.ready(ev.arg, &ag[i], &rd);
	}
	nng_mtx_unlock(f->d.mtx);
	return (rv);
}

/* Wait (the switch worker reconfigures) until every agent has had n
 * releases. */
static void
wait_released(struct fx *f, uint32_t n)
{
	uint32_t i, t, ok = 0;

	for (t = 0; t < 500 && !ok; t++) {
		nng_mtx_lock(f->d.mtx);
		for (ok = 1, i = 0; i < NAG; i++)
			ok &= released[i] == n;
		nng_mtx_unlock(f->d.mtx);
		if (!ok)
			mono_sleep_ms(10);
	}
	assert_true(ok);
}

static void
test_runner_whole_run(void **state)
{
	struct fx *f = *state;
	char       err[256];
	uint32_t   i, k, kd;

	start(f, "all");
	for (i = 0; i < NAG; i++)
		poll_(f, (int)i);
	assert_int_equal(nplans, NAG);
	/* Phase 0's circuits are set once everyone is ready. */
	for (i = 0; i < NAG; i++)
		assert_int_equal(ready(f, (int)i, 0, 0, err, sizeof(err)), 0);
	wait_released(f, 1);
	/* The run's configurations are not the desired map: it stays
	 * (checked outside the lock: a failed assertion jumps out). */
	nng_mtx_lock(f->d.mtx);
	k = map_count(&f->d.sw[0].live);
	kd = map_count(&f->d.sw[0].desired);
	nng_mtx_unlock(f->d.mtx);
	assert_int_equal(k, 2 * NAG);
	assert_int_equal(kd, 0);
	for (i = 0; i < NAG; i++)
		assert_int_equal(ready(f, (int)i, 1, 0, err, sizeof(err)), 0);
	wait_released(f, 2);
	assert_int_equal(last_phase, 1);
	/* The end: everyone finishes, the operator gets the report. */
	for (i = 0; i < NAG; i++)
		assert_int_equal(ready(f, (int)i, 2, 1, err, sizeof(err)), 0);
	nng_aio_wait(f->aio);
	assert_int_equal(nfinished, NAG);
	assert_int_equal(f->p.rv, 0);
	assert_non_null(f->p.rep.r.report);
	assert_int_equal(f->p.rep.r.report->n_phases, 2);
	assert_int_equal(f->p.rep.r.report->blocks_verified, 2 * 3 * NAG);
	assert_int_equal(f->p.rep.r.report->phases[1]->bytes, 100 * NAG);
	assert_int_equal(nabort, 0);
	assert_false(run_busy(&f->d));
	/* Then the switch goes back to what it held before the run. */
	for (i = 0, k = 1; i < 200 && k != 0; i++) {
		mono_sleep_ms(10);
		nng_mtx_lock(f->d.mtx);
		k = map_count(&f->d.sw[0].live);
		nng_mtx_unlock(f->d.mtx);
	}
	assert_int_equal(k, 0);
}

static void
test_runner_refuses_bad_readys(void **state)
{
	struct fx *f = *state;
	char       err[256];

	start(f, "all");
	poll_(f, 0);
	assert_int_equal(ready(f, 0, 1, 0, err, sizeof(err)), -MSG_EFIELD);
	assert_string_equal(err, "ready for phase 1, expected 0");
	assert_int_equal(ag[0].hold.kind, HOLD_NONE); /* refused */
	assert_int_equal(ready(f, 0, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(ready(f, 0, 0, 0, err, sizeof(err)), -MSG_EFIELD);
	assert_string_equal(err, "duplicate ready for phase 0");
	/* Reports only of the phases since the last barrier. */
	assert_int_equal(ready(f, 1, 1, 0, err, sizeof(err)), -MSG_EFIELD);
	nng_mtx_lock(f->d.mtx);
	run_abort(&f->d, "test over");
	nng_mtx_unlock(f->d.mtx);
	nng_aio_wait(f->aio);
	assert_int_equal(f->p.rv, -OCSD_EABORT);
	/* A Ready of the ended run hears why it ended. */
	assert_int_equal(ready(f, 2, 0, 0, err, sizeof(err)), -OCSD_EABORT);
}

static void
test_runner_lost_agent_aborts(void **state)
{
	struct fx *f = *state;
	char       err[256];
	uint32_t   i;

	start(f, "none");
	for (i = 0; i < NAG; i++)
		poll_(f, (int)i);
	assert_int_equal(ready(f, 0, 0, 0, err, sizeof(err)), 0);
	nng_mtx_lock(f->d.mtx);
	ev.lost(ev.arg, &ag[2], "its link closed (the agent closed it)");
	nng_mtx_unlock(f->d.mtx);
	nng_aio_wait(f->aio);
	assert_int_equal(nabort, 1);
	assert_string_equal(abort_reason,
	                    "agent h2 (node 2) lost before phase 0: its link "
	                    "closed (the agent closed it)");
	assert_int_equal(ag[0].hold.kind, HOLD_NONE); /* heard it */
	assert_int_equal(f->p.rv, -OCSD_EABORT);
	assert_non_null(strstr(f->p.err, "lost"));
	assert_false(run_busy(&f->d));
	for (i = 0; i < NAG; i++)
		assert_int_equal(ag[i].node, -1);
}

/* Patches on switch k (the lock taken). */
static uint32_t
count(struct fx *f, uint32_t k)
{
	uint32_t n;

	nng_mtx_lock(f->d.mtx);
	n = map_count(&f->d.sw[k].live);
	nng_mtx_unlock(f->d.mtx);
	return (n);
}

/*
 * A run over a fabric: each phase's circuits go to the switches of their
 * transceivers, both switches move before the release, and both go back
 * to what they held once the run is over.  *used gets the patches each
 * switch held, phase by phase, in all.
 */
static void
fabric_run(struct fx *f, const char *algo, int every_phase_both)
{
	char     err[256];
	uint32_t i, ph, nph, a, b, ports, used[2] = {0, 0};

	start_algo(f, algo, "all");
	nng_mtx_lock(f->d.mtx);
	nph = f->d.runner->run->nph;
	ports = f->d.runner->run->s.ports;
	nng_mtx_unlock(f->d.mtx);
	for (i = 0; i < NAG; i++)
		poll_(f, (int)i);
	assert_int_equal(nplans, NAG);
	for (ph = 0; ph < nph; ph++) {
		for (i = 0; i < NAG; i++)
			assert_int_equal(ready(f, (int)i, ph, ph ? ph - 1 : 0,
			                       err, sizeof(err)),
			                 0);
		wait_released(f, ph + 1);
		/* A switch holds one-way patches from its own plane's
		 * transmitters: a node sends at most one stream into each
		 * plane. */
		a = count(f, 0);
		b = count(f, 1);
		assert_true(a + b > 0 && a <= NAG && b <= NAG);
		if (every_phase_both)
			assert_int_equal(a, b);
		used[0] += a;
		used[1] += b;
	}
	if (ports > 1) {
		assert_true(used[0] > 0);
		assert_true(used[1] > 0);
	}
	for (i = 0; i < NAG; i++)
		assert_int_equal(
		    ready(f, (int)i, nph, nph - 1, err, sizeof(err)), 0);
	nng_aio_wait(f->aio);
	if (f->p.rv != 0)
		fail_msg("run: %s", f->p.err);
	assert_int_equal(nabort, 0);
	for (i = 0, a = b = 1; i < 200 && (a || b); i++) {
		mono_sleep_ms(10);
		a = count(f, 0);
		b = count(f, 1);
	}
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
}

static void
test_runner_fabric_skewed(void **state)
{
	fabric_run(*state, "spreadout", 0);
}

/* ReTri's rings join port 0 of a node to port 1 of its neighbour: on a
 * fabric each direction is a one-way patch on its sender's plane (a ring
 * clockwise on A, counter-clockwise on B), the same count on each. */
static void
test_runner_fabric_retri(void **state)
{
	fabric_run(*state, "retri", 1);
}

/* The receive ports follow: a node hears its ring neighbour on the
 * transceiver of the plane the neighbour sent into. */
static void
test_runner_fabric_rx_ports(void **state)
{
	struct fx  *f = *state;
	struct run *r;
	uint32_t    c, i, rx;

	start_algo(f, "retri", "all");
	for (i = 0; i < NAG; i++)
		poll_(f, (int)i);
	nng_mtx_lock(f->d.mtx);
	r = f->d.runner->run;
	assert_non_null(r->rxmap);
	for (c = 0; c < r->s.ncfg; c++)
		for (i = 0; i < r->s.cfg[c].ncirc; i++) {
			const struct sched_circuit *e =
			    &r->s.circ[r->s.cfg[c].circ_off + i];

			rx = run_fab_rx(r, c, e->b, e->pb);
			assert_int_equal(r->node[e->b]->sw[rx],
			                 r->node[e->a]->sw[e->pa]);
		}
	run_abort(&f->d, "test over");
	nng_mtx_unlock(f->d.mtx);
	nng_aio_wait(f->aio);
}

/* Transceiver t of every agent got its carrier back (a LinkState). */
static void
carrier_up(struct fx *f, uint32_t t)
{
	uint32_t i;

	nng_mtx_lock(f->d.mtx);
	for (i = 0; i < NAG; i++) {
		ag[i].links[t].ups++;
		ev.links(ev.arg, &ag[i]);
	}
	nng_mtx_unlock(f->d.mtx);
}

/* A planes-apart ReTri on A (quick) and B (150 ms): every agent's Ready
 * for phase 0 in, both switches moving. */
static void
apart_phase0(struct fx *f)
{
	char     err[256];
	uint32_t i;

	start_planes(f, "retri", "all", "apart");
	for (i = 0; i < NAG; i++)
		poll_(f, (int)i);
	assert_int_equal(nplans, NAG);
	for (i = 0; i < NAG; i++)
		assert_int_equal(ready(f, (int)i, 0, 0, err, sizeof(err)), 0);
}

/*
 * The relay's race in make run-fabric: B's light came back and its links
 * retrained before B's switch was heard to settle (its read-back takes
 * longer than the light), and A was released meanwhile.  B's links came
 * back since B's switch was asked, so B is released when it settles; the
 * counts taken at A's release (after B's links were up) must not hold B
 * for ever.
 */
static void
test_runner_apart_links_early(void **state)
{
	struct fx *f = *state;

	apart_phase0(f);
	mono_sleep_ms(30); /* A has settled; B moves for 150 ms */
	carrier_up(f, 1);  /* B's links, up before B's answer */
	carrier_up(f, 0);  /* A's: A is released */
	wait_released(f, 1);
	nng_mtx_lock(f->d.mtx);
	assert_int_equal(nabort, 0);
	assert_true(f->d.runner->run->plane_release_ms[0][1] >= 100);
	nng_mtx_unlock(f->d.mtx);
}

/*
 * Planes apart, B's links never come back: the run ends within the link
 * deadline of B's settling, named, though A's release (after B began to
 * wait) cancelled the timer that was counting it.
 */
static void
test_runner_apart_links_deadline(void **state)
{
	struct fx *f = *state;
	uint32_t   i, n = 0;

	apart_phase0(f);
	mono_sleep_ms(250); /* B has settled and waits for its links */
	carrier_up(f, 0);   /* A is released */
	for (i = 0; i < 300 && n == 0; i++) {
		mono_sleep_ms(10);
		nng_mtx_lock(f->d.mtx);
		n = nabort;
		nng_mtx_unlock(f->d.mtx);
	}
	if (n != 1)
		fail_msg("no abort 3 s after B settled without its links");
	assert_non_null(strstr(abort_reason, "links not up"));
	assert_non_null(strstr(abort_reason, "transceiver 1"));
	nng_aio_wait(f->aio);
	assert_int_not_equal(f->p.rv, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_runner_whole_run, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_runner_refuses_bad_readys,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_lost_agent_aborts,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_fabric_skewed,
	                                    setup_fab, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_fabric_retri,
	                                    setup_fab, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_fabric_rx_ports,
	                                    setup_fab, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_apart_links_early,
	                                    setup_fab_slow_b, teardown),
	    cmocka_unit_test_setup_teardown(test_runner_apart_links_deadline,
	                                    setup_fab_slow_b, teardown),
	};

	return (cmocka_run_group_tests_name("runner", tests, NULL, NULL));
}
