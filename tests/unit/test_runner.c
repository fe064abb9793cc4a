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
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char       err[256];
	uint32_t   i;

	snprintf(f->dir, sizeof(f->dir), "/tmp/ocs-test-runner-XXXXXX");
	if (f == NULL || mkdtemp(f->dir) == NULL ||
	    conf_parse(CONF, "t.conf", &f->d.conf, err, sizeof(err)) != 0)
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
	for (i = 0; i < 200 && !f->d.sw[0].have_live; i++)
		mono_sleep_ms(10);
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
	return (f->d.sw[0].have_live ? 0 : -1);
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
start(struct fx *f, const char *reconfig)
{
	struct run_req          q = {.algo = "retri", .bytes = 4096};
	const struct run_waiter w = {.arg = &f->p, .done = run_done};
	int                     i, started;

	snprintf(q.reconfig, sizeof(q.reconfig), "%s", reconfig);
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
	};

	return (cmocka_run_group_tests_name("runner", tests, NULL, NULL));
}
