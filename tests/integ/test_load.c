/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_load.c: ocs-load's simulated agents against a real
 * ocsd driving ocs-emu.  300 hosts join at once without one being told
 * to try again (the challenge table holds a storm), ocsd lists them all,
 * they take ReTri runs on every one of them through to Finished with a
 * reconfiguration before every phase, and when ocs-load stops ocsd loses
 * every one of them.  Its refusals: a wrong secret, an uncabled host.
 */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/base/mono.h"
#include "tests/lib/rig.h"

#define HOSTS 300

/* ocs-load on the rig's agents' socket with one more option pair. */
static int
load_start(struct rig *r, struct proc *p, const char *n, const char *secret,
           const char *opt, const char *val)
{
	char  bin[256], sec[300], log[300];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-load", bin, sizeof(bin)),
	    "--controller",
	    r->join,
	    "--secret",
	    sec,
	    "--agents",
	    (char *)(uintptr_t)n,
	    (char *)(uintptr_t)opt,
	    (char *)(uintptr_t)val,
	    NULL};

	snprintf(sec, sizeof(sec), "%s/%s", r->dir, secret);
	snprintf(log, sizeof(log), "%s/load.log", r->dir);
	return (proc_start(p, argv, log));
}

/* The "agents" of ocsctl -j status in state st. */
static int
agents_in(struct rig *r, const char *st)
{
	char   *o, *e;
	json_t *j, *a;
	size_t  i;
	int     n = -1;

	if (rig_ctl(r, &o, &e, "-j", "agents", NULL) == 0 &&
	    (j = json_loads(o, 0, NULL)) != NULL) {
		a = json_object_get(j, "agents");
		for (n = 0, i = 0; i < json_array_size(a); i++)
			n += strcmp(json_string_value(json_object_get(
			                json_array_get(a, i), "state")),
			            st) == 0;
		json_decref(j);
	}
	free(o);
	free(e);
	return (n);
}

static int log_says(const struct proc *, const char *);
static int in_history(struct rig *, const struct proc *);

/* ocsctl on the rig, in the background (stdout read with proc_line). */
static int
ctl_start(struct rig *r, struct proc *p, char *const *args)
{
	char bin[256], log[300], *argv[16];
	int  n = 0;

	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	argv[n++] = "-s";
	argv[n++] = r->sock;
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/ctl-bg.log", r->dir);
	return (proc_start(p, argv, log));
}

/* ocsctl status: how long it took (ms), and whether it says planning. */
static double
status_ms(struct rig *r, int *planning)
{
	uint64_t t0 = mono_us();
	char    *o, *e;

	assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
	*planning = strstr(o, ": planning auto on 128 agents") != NULL;
	free(o);
	free(e);
	return ((mono_us() - t0) / 1e3);
}

/*
 * ocsd plans off its lock (issue 34): a skewed run with auto on 128
 * agents takes seconds to plan, and meanwhile status answers at once and
 * says how far planning is, and no agent is lost (their heartbeats go
 * on).  An abort while planning ends the run at once; the plan is
 * dropped, and the next run starts clean.
 */
static void
test_load_plans_off_the_lock(void **state)
{
	struct rig_opts ro = {.switch_time = "0", .no_agents = 1, .quiet = 1};
	char *const     skew[] = {
	        "run",     "--algo", "auto", "--matrix", "zipf:128:0.8:1",
	        "--bytes", "1KiB",   NULL};
	struct rig *r;
	struct proc p = {0}, c = {0};
	char        line[300], *o, *e;
	double      worst = 0, ms;
	int         i, planning, seen = 0, rv;

	(void)state;
	assert_non_null(r = rig_up_opts(128, &ro));
	assert_int_equal(
	    load_start(r, &p, "128", "secret", "--duration", "300s"), 0);
	assert_int_equal(proc_line(&p, line, sizeof(line), 30000), 0);
	assert_int_equal(ctl_start(r, &c, skew), 0);
	for (i = 0, rv = -1; i < 3000 && rv == -1; i++) {
		ms = status_ms(r, &planning);
		worst = ms > worst ? ms : worst;
		seen += planning;
		rv = proc_wait(&c, 20);
	}
	if (rv != 0)
		fail_msg("the skewed run: exit %d", rv);
	if (seen == 0 || worst > 1000)
		fail_msg("status while planning: seen %d times, slowest %.1f "
		         "ms",
		         seen, worst);
	assert_int_equal(agents_in(r, "idle"), 128);
	/* Abort while it plans: at once, and nothing is lost. */
	assert_int_equal(ctl_start(r, &c, skew), 0);
	for (i = 0; i < 500; i++) {
		status_ms(r, &planning);
		if (planning)
			break;
		mono_sleep_ms(10);
	}
	assert_true(planning);
	assert_int_equal(rig_ctl(r, &o, &e, "abort", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(proc_wait(&c, 5000), 1);
	assert_true(log_says(&c, "aborted while planning"));
	/* It got an id: the history keeps it (bench_soak found it
	 * missing). */
	assert_true(in_history(r, &c));
	/* The next run goes once the dropped plan has noticed. */
	for (i = 0; i < 200; i++) {
		rv = rig_ctl(r, &o, &e, "run", "--algo", "retri", "--bytes",
		             "1KiB", NULL);
		if (rv == 0 || strstr(e, "being planned") == NULL)
			break;
		free(o);
		free(e);
		mono_sleep_ms(100);
	}
	if (rv != 0)
		fail_msg("the run after an abort while planning: %s", e);
	free(o);
	free(e);
	assert_int_equal(agents_in(r, "idle"), 128);
	assert_int_equal(proc_stop(&p, SIGTERM), 0);
	assert_int_equal(rig_down(r), 0);
}

static void
test_load_storm_runs_and_loss(void **state)
{
	struct rig_opts ro = {.switch_time = "0", .no_agents = 1, .quiet = 1};
	struct rig     *r;
	struct proc     p = {0};
	char            line[300], *o, *e;
	unsigned        n = 0, retries = 1;
	int             i, k;

	(void)state;
	assert_non_null(r = rig_up_opts(HOSTS, &ro));
	assert_int_equal(
	    load_start(r, &p, "300", "secret", "--duration", "120s"), 0);
	assert_int_equal(proc_line(&p, line, sizeof(line), 20000), 0);
	assert_int_equal(sscanf(line,
	                        "ocs-load: %u agents joined in %*f s (%u", &n,
	                        &retries),
	                 2);
	assert_int_equal(n, HOSTS);
	/* Some may have been told to try again (a full table of joins in
	 * flight is ocsd's back-pressure, and a busy machine fills it);
	 * every one got in. */
	(void)retries;
	assert_int_equal(agents_in(r, "idle"), HOSTS);
	for (k = 0; k < 2; k++) {
		json_t *j, *rep;

		assert_int_equal(rig_ctl(r, &o, &e, "-j", "run", "--algo",
		                         "retri", "--bytes", "2400",
		                         "--reconfig", "all", NULL),
		                 0);
		assert_non_null(j = json_loads(o, 0, NULL));
		rep = json_object_get(j, "report");
		assert_int_equal(
		    json_integer_value(json_object_get(rep, "nodes")), HOSTS);
		/* 300 nodes: 6 phases, each reconfigured, each a barrier
		 * every agent passed. */
		assert_int_equal(
		    json_array_size(json_object_get(rep, "phases")), 6);
		for (i = 0; i < 6; i++)
			assert_true(json_is_true(json_object_get(
			    json_array_get(json_object_get(rep, "phases"),
			                   (size_t)i),
			    "reconfigured")));
		json_decref(j);
		free(o);
		free(e);
	}
	/* A signal ends it cleanly; ocsd then loses every agent. */
	assert_int_equal(proc_stop(&p, SIGTERM), 0);
	for (i = 0; i < 100 && agents_in(r, "lost") != HOSTS; i++)
		mono_sleep_ms(50);
	assert_int_equal(agents_in(r, "lost"), HOSTS);
	assert_int_equal(rig_down(r), 0);
}

/* Does ocs-load's stderr say what? */
static int
log_says(const struct proc *p, const char *what)
{
	char   buf[8192];
	FILE  *f = fopen(p->log, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	if (strstr(buf, what) == NULL) {
		fprintf(stderr, "ocs-load said: %s\n", buf);
		return (0);
	}
	return (1);
}

/* The run id in ocsctl's "run N aborted ..." is in `ocsctl runs`. */
static int
in_history(struct rig *r, const struct proc *c)
{
	char               buf[4096], id[32], *o, *e, *p;
	FILE              *f = fopen(c->log, "r");
	size_t             n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	unsigned long long v;
	int                ok;

	if (f)
		fclose(f);
	buf[n] = '\0';
	if ((p = strstr(buf, "run ")) == NULL ||
	    sscanf(p, "run %llu aborted", &v) != 1) {
		fprintf(stderr, "no run id in: %s\n", buf);
		return (0);
	}
	snprintf(id, sizeof(id), "%llu", v);
	if (rig_ctl(r, &o, &e, "runs", NULL) != 0) {
		fprintf(stderr, "ocsctl runs: %s\n", e);
		free(o);
		free(e);
		return (0);
	}
	if (!(ok = strstr(o, id) != NULL))
		fprintf(stderr, "run %s not in ocsctl runs:\n%s\n", id, o);
	free(o);
	free(e);
	return (ok);
}

static void
test_load_refused(void **state)
{
	struct rig_opts ro = {.switch_time = "0", .no_agents = 1, .quiet = 1};
	struct rig     *r;
	struct proc     p = {0};
	int             rv;

	(void)state;
	assert_non_null(r = rig_up_opts(4, &ro));
	/* The wrong secret: refused, said in one line, exit 1. */
	assert_int_equal(load_start(r, &p, "4", "wrong", "--duration", "5s"),
	                 0);
	assert_int_equal(proc_wait(&p, 15000), 1);
	assert_true(log_says(&p, "join refused: wrong proof of the secret"));
	/* A fifth host has no cabling. */
	assert_int_equal(load_start(r, &p, "5", "secret", "--duration", "5s"),
	                 0);
	if ((rv = proc_wait(&p, 15000)) != 1) {
		log_says(&p, "(what it said)");
		fail_msg("ocs-load with an uncabled host: exit %d", rv);
	}
	assert_true(log_says(
	    &p, "h04: controller: join refused: no cabling for h04.0"));
	/* Its own arguments. */
	assert_int_equal(load_start(r, &p, "0", "secret", "--duration", "5s"),
	                 0);
	assert_int_equal(proc_wait(&p, 5000), 2);
	assert_true(log_says(&p, "--agents \"0\": 1..8192"));
	assert_int_equal(rig_down(r), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load_storm_runs_and_loss),
	    cmocka_unit_test(test_load_refused),
	    cmocka_unit_test(test_load_plans_off_the_lock),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
