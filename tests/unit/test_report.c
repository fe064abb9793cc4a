/* SPDX-License-Identifier: BSD-2-Clause */
/* tests/unit/test_report.c: a run's report to JSON and back (proto/report.c),
 * the schema of ocsctl -j and of ocsd's runs.jsonl; and its timeline's
 * form (proto/report_tl.c, ocs-web's /api/timeline/ID). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "proto/msg.h"
#include "proto/report.h"
#include "proto/report_tl.h"

/* A report with every part: two phases, two agents' timelines (static:
 * the caller reads it until the next call). */
static Ocs__RunReport *
sample_report(void)
{
	static Ocs__RunReport     r;
	static Ocs__PhaseReport   ph[2], *pp[2] = {&ph[0], &ph[1]};
	static Ocs__AgentTimeline tl[2], *tp[2] = {&tl[0], &tl[1]};
	static Ocs__PhaseTime     pt[4],
	    *ptp[4] = {&pt[0], &pt[1], &pt[2], &pt[3]};
	static uint32_t before[1] = {1};
	static char    *hosts[2] = {"h0", "h1"};
	int             i;

	ocs__run_report__init(&r);
	r.run_id = 77;
	r.algo = "retri";
	r.nodes = 2;
	r.bytes = 1 << 20;
	r.has_started_unix_ms = 1;
	r.started_unix_ms = 1790000000123ull;
	r.n_reconfigure_before = 1;
	r.reconfigure_before = before;
	for (i = 0; i < 2; i++) {
		ocs__phase_report__init(&ph[i]);
		ph[i].phase = (uint32_t)i;
		ph[i].reconfigured = 1;
		ph[i].reconf_s = 0.001 * (i + 1);
		ph[i].data_s = 0.25;
		ph[i].barrier_s = 0.0005;
		ph[i].bytes = 4096;
		ph[i].predicted_s = 0.2;
		ph[i].has_control_s = i == 0;
		ph[i].control_s = 0.003;
		ocs__agent_timeline__init(&tl[i]);
		tl[i].host = hosts[i];
		tl[i].node = (uint32_t)i;
		tl[i].has_setup_s = 1;
		tl[i].setup_s = 0.01;
		tl[i].n_phases = 2;
		tl[i].phases = &ptp[2 * i];
	}
	for (i = 0; i < 4; i++) {
		ocs__phase_time__init(&pt[i]);
		pt[i].phase = (uint32_t)(i % 2);
		pt[i].data_s = 0.1 * i;
		pt[i].verify_s = 0.01;
		pt[i].wait_s = 0.002;
	}
	r.n_phases = 2;
	r.phases = pp;
	r.total_s = 0.5;
	r.has_wall_s = 1;
	r.wall_s = 0.9;
	r.predicted_s = 0.4;
	r.blocks_verified = 12;
	r.delta_s = 0.001;
	r.bandwidth_bps = 1e9;
	r.alpha_s = 1e-6;
	r.alpha_h = 2e-6;
	r.n_hosts = 2;
	r.hosts = hosts;
	r.n_timeline = 2;
	r.timeline = tp;
	return (&r);
}

static json_t *
sample(void)
{
	return (report_to_json(sample_report()));
}

static void
test_report_round_trip(void **state)
{
	json_t         *j = sample(), *k;
	Ocs__RunReport *r;
	char            err[200];

	(void)state;
	assert_non_null(j);
	assert_int_equal(report_from_json(j, &r, err, sizeof(err)), 0);
	assert_int_equal(r->run_id, 77);
	assert_string_equal(r->algo, "retri");
	assert_int_equal(r->n_phases, 2);
	assert_true(r->phases[0]->has_control_s);
	assert_false(r->phases[1]->has_control_s);
	assert_int_equal(r->n_timeline, 2);
	assert_string_equal(r->timeline[1]->host, "h1");
	assert_int_equal(r->timeline[1]->n_phases, 2);
	assert_int_equal(r->started_unix_ms, 1790000000123ull);
	assert_null(r->aborted);
	/* And out again: the same JSON. */
	k = report_to_json(r);
	assert_true(json_equal(j, k));
	json_decref(k);
	/* A listing drops phases and timelines, keeps the rest. */
	report_strip(r);
	assert_int_equal(r->n_phases, 0);
	assert_int_equal(r->n_timeline, 0);
	assert_int_equal(r->blocks_verified, 12);
	report_free(r);
	json_decref(j);
}

/* A run whose error is longer than a name (256 characters) keeps its
 * record: the reason whole. */
static void
test_report_long_error(void **state)
{
	json_t         *j = sample();
	Ocs__RunReport *r;
	char            err[200], why[700];

	(void)state;
	memset(why, 'w', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	json_object_set_new(j, "aborted", json_string(why));
	assert_int_equal(report_from_json(j, &r, err, sizeof(err)), 0);
	assert_string_equal(r->aborted, why);
	report_free(r);
	/* A control character is still refused. */
	why[10] = '\n';
	json_object_set_new(j, "aborted", json_string(why));
	assert_int_not_equal(report_from_json(j, &r, err, sizeof(err)), 0);
	json_decref(j);
}

/* Each bad value is refused with its field named. */
static void
test_report_refuses(void **state)
{
	static const struct {
		const char *key, *json, *why;
	} bad[] = {
	    {"run_id", "-1", "run_id: expected an integer"},
	    {"algo", "7", "algo: expected a printable string"},
	    {"algo", "\"a\\u0001b\"", "algo: expected a printable string"},
	    {"total_s", "\"x\"", "total_s: expected a number"},
	    {"phases", "{}", "phases: expected an array"},
	    {"phases", "[3]", "phases[0]: expected an object"},
	    {"phases", "[{\"phase\":0}]", "reconf_s: missing"},
	    {"hosts", "[\"h0\", 5]", "hosts[1]: expected a host name"},
	    {"timeline", "[{\"host\":\"h\",\"node\":0,\"phases\":[{}]}]",
	     "phase: missing"},
	    {"reconfigure_before", "[-3]",
	     "reconfigure_before[0]: expected a phase"},
	};
	Ocs__RunReport *r;
	char            err[200];
	size_t          i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = sample();

		json_object_set_new(
		    j, bad[i].key,
		    json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
		assert_int_equal(report_from_json(j, &r, err, sizeof(err)),
		                 -MSG_EFIELD);
		assert_null(r);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("%s = %s: \"%s\", want \"%s\"", bad[i].key,
			         bad[i].json, err, bad[i].why);
		json_decref(j);
	}
	{
		json_t *j = sample();

		json_object_del(j, "algo");
		assert_int_equal(report_from_json(j, &r, err, sizeof(err)),
		                 -MSG_EFIELD);
		assert_string_equal(err, "algo: missing");
		json_decref(j);
	}
	{
		json_t *three = json_integer(3);

		assert_int_equal(report_from_json(three, &r, err, sizeof(err)),
		                 -MSG_EFIELD);
		json_decref(three);
	}
}

/* agents[a][key][k] as an integer. */
static json_int_t
tl_at(const json_t *o, size_t a, const char *key, size_t k)
{
	return (json_integer_value(json_array_get(
	    json_object_get(json_array_get(json_object_get(o, "agents"), a),
	                    key),
	    k)));
}

/* The timeline's form: the report's JSON less its timeline, and each
 * agent's times as columns of microseconds, its phases' numbers only
 * when they are not 0, 1, ... */
static void
test_report_timeline_form(void **state)
{
	Ocs__RunReport *r = sample_report();
	json_t         *o, *full, *a1;
	const char     *k;
	json_t         *v;
	char           *s;
	size_t          len;

	(void)state;
	assert_non_null(s = report_timeline_json(r, &len));
	assert_int_equal(len, strlen(s));
	assert_non_null(o = json_loads(s, 0, NULL));
	free(s);
	assert_null(json_object_get(o, "timeline"));
	/* Every other key as report_to_json has it (6 digits, ocsctl's). */
	full = report_to_json(r);
	json_object_foreach(full, k, v)
	{
		if (strcmp(k, "timeline") == 0)
			continue;
		assert_non_null(json_object_get(o, k));
	}
	assert_int_equal(json_integer_value(json_object_get(o, "run_id")), 77);
	assert_true(json_real_value(json_object_get(
	                json_array_get(json_object_get(o, "phases"), 1),
	                "reconf_s")) == 0.002);
	json_decref(full);
	assert_int_equal(json_array_size(json_object_get(o, "agents")), 2);
	a1 = json_array_get(json_object_get(o, "agents"), 1);
	assert_string_equal(json_string_value(json_object_get(a1, "host")),
	                    "h1");
	assert_int_equal(json_integer_value(json_object_get(a1, "node")), 1);
	assert_int_equal(json_integer_value(json_object_get(a1, "setup_us")),
	                 10000);
	assert_null(json_object_get(a1, "phase"));
	assert_int_equal(tl_at(o, 1, "data_us", 0), 200000);
	assert_int_equal(tl_at(o, 1, "data_us", 1), 300000);
	assert_int_equal(tl_at(o, 0, "data_us", 0), 0);
	assert_int_equal(tl_at(o, 1, "verify_us", 1), 10000);
	assert_int_equal(tl_at(o, 1, "wait_us", 0), 2000);
	json_decref(o);
	/* Phases out of order: their numbers said. */
	r->timeline[1]->phases[0]->phase = 1;
	r->timeline[1]->phases[1]->phase = 0;
	s = report_timeline_json(r, &len);
	r->timeline[1]->phases[0]->phase = 0;
	r->timeline[1]->phases[1]->phase = 1;
	assert_non_null(s);
	assert_non_null(o = json_loads(s, 0, NULL));
	free(s);
	assert_null(json_object_get(
	    json_array_get(json_object_get(o, "agents"), 0), "phase"));
	assert_int_equal(tl_at(o, 1, "phase", 0), 1);
	assert_int_equal(tl_at(o, 1, "phase", 1), 0);
	json_decref(o);
}

/* A host that needs escaping stays one JSON string; a time that is no
 * time (NaN, negative) is 0, never a bar across the page. */
static void
test_report_timeline_odd(void **state)
{
	Ocs__RunReport *r = sample_report();
	json_t         *o;
	char           *s, *h0 = r->timeline[0]->host;
	size_t          len;

	(void)state;
	r->timeline[0]->host = "h\"0\n\\";
	r->timeline[0]->phases[0]->data_s = NAN;
	r->timeline[0]->phases[1]->wait_s = -1;
	s = report_timeline_json(r, &len);
	r->timeline[0]->host = h0;
	r->timeline[0]->phases[0]->data_s = 0;
	r->timeline[0]->phases[1]->wait_s = 0.002;
	assert_non_null(s);
	assert_non_null(o = json_loads(s, 0, NULL));
	free(s);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(o, "agents"), 0), "host")),
	    "h\"0\n\\");
	assert_int_equal(tl_at(o, 0, "data_us", 0), 0);
	assert_int_equal(tl_at(o, 0, "wait_us", 1), 0);
	json_decref(o);
}

/* Planes apart: each plane's times in phase 1 and the run's two
 * predictions ride in the timeline's form as in ocsctl's (the Runs page
 * draws a lane a plane from them), and come back from runs.jsonl's. */
static void
test_report_timeline_planes(void **state)
{
	Ocs__RunReport *r = sample_report(), *back;
	static char     na[] = "A", nb[] = "B";
	Ocs__PlaneTime  pl[2], *pp[2] = {&pl[0], &pl[1]};
	json_t         *o, *q, *full, *again;
	char           *s, err[200];
	size_t          len;

	(void)state;
	ocs__plane_time__init(&pl[0]);
	ocs__plane_time__init(&pl[1]);
	pl[0].name = na;
	pl[0].reconfigured = 1;
	pl[0].has_reconf_s = 1;
	pl[0].reconf_s = 0.001;
	pl[0].has_release_s = 1;
	pl[0].release_s = 0.0125;
	pl[1].name = nb;
	pl[1].reconfigured = 1;
	pl[1].has_reconf_s = 1;
	pl[1].reconf_s = 0.2;
	pl[1].has_release_s = 1;
	pl[1].release_s = 0.2155;
	r->phases[1]->n_planes = 2;
	r->phases[1]->planes = pp;
	r->planes = "apart";
	r->has_predicted_together_s = r->has_predicted_apart_s = 1;
	r->predicted_together_s = 0.6;
	r->predicted_apart_s = 0.45;
	s = report_timeline_json(r, &len);
	full = report_to_json(r);
	r->phases[1]->n_planes = 0;
	r->phases[1]->planes = NULL;
	r->planes = NULL;
	r->has_predicted_together_s = r->has_predicted_apart_s = 0;
	assert_non_null(s);
	assert_non_null(o = json_loads(s, 0, NULL));
	free(s);
	assert_string_equal(json_string_value(json_object_get(o, "planes")),
	                    "apart");
	assert_true(json_real_value(
	                json_object_get(o, "predicted_together_s")) == 0.6);
	assert_true(json_real_value(json_object_get(o, "predicted_apart_s")) ==
	            0.45);
	assert_null(json_object_get(
	    json_array_get(json_object_get(o, "phases"), 0), "planes"));
	q = json_object_get(json_array_get(json_object_get(o, "phases"), 1),
	                    "planes");
	assert_int_equal(json_array_size(q), 2);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(q, 1), "name")),
	    "B");
	assert_true(json_is_true(
	    json_object_get(json_array_get(q, 1), "reconfigured")));
	assert_true(json_real_value(json_object_get(json_array_get(q, 1),
	                                            "reconf_s")) == 0.2);
	assert_true(json_real_value(json_object_get(json_array_get(q, 1),
	                                            "release_s")) == 0.2155);
	assert_true(json_real_value(json_object_get(json_array_get(q, 0),
	                                            "release_s")) == 0.0125);
	json_decref(o);
	/* From runs.jsonl's form and out again: the same. */
	assert_int_equal(report_from_json(full, &back, err, sizeof(err)), 0);
	assert_int_equal(back->phases[1]->n_planes, 2);
	assert_string_equal(back->phases[1]->planes[0]->name, "A");
	again = report_to_json(back);
	assert_true(json_equal(full, again));
	json_decref(again);
	report_free(back);
	json_decref(full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_report_round_trip),
	    cmocka_unit_test(test_report_long_error),
	    cmocka_unit_test(test_report_refuses),
	    cmocka_unit_test(test_report_timeline_form),
	    cmocka_unit_test(test_report_timeline_odd),
	    cmocka_unit_test(test_report_timeline_planes),
	};

	return (cmocka_run_group_tests_name("report", tests, NULL, NULL));
}
