/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_run.c: verified All-to-All runs with the real
 * processes: ocs-emu carrying light on loopback, ocsd driving it over
 * TL1, and N ocs-agent processes joined with a shared secret.  Every
 * block is checked by the agents; the test also checks the totals against
 * the schedule, barriers only before reconfigurations, and the failures:
 * a killed agent, a wrong secret, a corrupted frame, an operator abort.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "collectives/a2a.h"
#include "collectives/tmat.h"
#include "collectives/tsyn.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/rig.h"

#define fx rig

/* Shorthands over the rig, failing the test on trouble. */
#define ctl rig_ctl

static void
agent_start(struct rig *f, int h, const char *secret)
{
	assert_int_equal(rig_agent(f, h, secret), 0);
}

static void
wait_agents(struct rig *f, int n)
{
	assert_int_equal(rig_wait_agents(f, n, 20000), 0);
}

/* Bytes ocs-emu has carried out of its egress ports so far. */
static uint64_t
relayed(struct rig *f)
{
	char     buf[8192], *p;
	uint64_t sum = 0;

	assert_int_equal(
	    rig_tl1(f, "RTRV-PORT-CNTR::ALL:2:;", buf, sizeof(buf)), 0);
	for (p = buf; (p = strstr(p, "OUT=")) != NULL; p += 4)
		sum += strtoull(p + 4, NULL, 10);
	return (sum);
}

/* ocsctl run in the background, its stderr in DIR/run.err. */
static void
run_bg(struct rig *f, struct proc *r, const char *algo, const char *bytes,
       const char *reconfig)
{
	char  bin[256], log[300];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
	    "-s",
	    f->sock,
	    "run",
	    "--algo",
	    (char *)(uintptr_t)algo,
	    "--bytes",
	    (char *)(uintptr_t)bytes,
	    "--reconfig",
	    (char *)(uintptr_t)reconfig,
	    NULL};

	snprintf(log, sizeof(log), "%s/run.err", f->dir);
	unlink(log); /* proc_start appends */
	assert_int_equal(proc_start(r, argv, log), 0);
}

/* The first line run_bg's ocsctl wrote on stderr. */
static void
first_line(struct rig *f, char *line, size_t sz)
{
	char  log[300];
	FILE *lf;

	snprintf(log, sizeof(log), "%s/run.err", f->dir);
	assert_non_null(lf = fopen(log, "r"));
	assert_non_null(fgets(line, (int)sz, lf));
	fclose(lf);
}

static struct rig *
up(int n)
{
	struct rig *r = rig_up(n, "1ms", "deadline = 30s\n");

	assert_non_null(r);
	return (r);
}

static int
setup9(void **state)
{
	*state = up(9);
	return (0);
}

/*
 * A run long enough to act on mid-phase: fibres at 20 Mbps, so that 8 MiB
 * a node of the static ring lasts seconds.  Long with a slow link, not
 * with 256 MiB a node: nine agents faulting in and filling 2.3 GB took
 * longer than these tests wait on two busy cores (issue 34).
 */
#define SLOW_BYTES "8MiB"

static int
setup9_slow(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .run_conf = "deadline = 30s\n",
	                     .rate = "20Mbps"};

	*state = rig_up_opts(9, &o);
	assert_non_null(*state);
	return (0);
}

static int
setup25x4(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .run_conf = "deadline = 30s\n", .trx = 4};

	*state = rig_up_opts(25, &o);
	assert_non_null(*state);
	return (0);
}

static int
setup27(void **state)
{
	*state = up(27);
	return (0);
}

/* Block deliveries the schedule has: what the agents must verify. */
static uint64_t
expected_blocks_r(const char *algo, uint32_t radix, uint32_t n, uint64_t bytes,
                  json_t *rb)
{
	struct a2a   a;
	struct sched s;
	uint8_t      before[64] = {0};
	uint64_t     total = 0;
	uint32_t     i;
	size_t       k;
	json_t      *v;

	assert_int_equal(a2a_init_radix(&a, algo, n, radix), 0);
	json_array_foreach(rb, k, v) before[json_integer_value(v)] = 1;
	assert_int_equal(a2a_build(&a, bytes, before, 1u << 26, &s), 0);
	for (i = 0; i < s.nxf; i++)
		total += s.xf[i].nblk;
	sched_free(&s);
	a2a_fini(&a);
	return (total);
}

static uint64_t
expected_blocks(const char *algo, uint32_t n, uint64_t bytes, json_t *rb)
{
	return (expected_blocks_r(algo, 0, n, bytes, rb));
}

/* ocsctl -j run ...; the report, checked for full verification. */
static json_t *
run_ok(struct fx *f, const char *algo, const char *bytes, const char *extra1,
       const char *extra2, uint32_t n)
{
	char        *o, *e;
	json_t      *j, *r;
	json_error_t je;
	uint64_t     want, got;
	int          rv;

	rv = ctl(f, &o, &e, "-j", "run", "--algo", algo, "--bytes", bytes,
	         extra1, extra2, NULL);
	if (rv != 0)
		fail_msg("%s run: exit %d: %s", algo, rv, e);
	j = json_loads(o, 0, &je);
	if (j == NULL)
		fail_msg("bad JSON: %s", o);
	free(o);
	free(e);
	r = json_object_get(j, "report");
	assert_non_null(r);
	assert_true(json_is_true(json_object_get(r, "verified")));
	assert_int_equal(json_integer_value(json_object_get(r, "errors")), 0);
	if (n == 0) /* as many as there are */
		n = (uint32_t)json_integer_value(json_object_get(r, "nodes"));
	assert_int_equal(json_integer_value(json_object_get(r, "nodes")), n);
	want = expected_blocks(
	    algo, n, (uint64_t)json_integer_value(json_object_get(r, "bytes")),
	    json_object_get(r, "reconfigure_before"));
	got = (uint64_t)json_integer_value(
	    json_object_get(r, "blocks_verified"));
	if (got != want)
		fail_msg("%s: %llu blocks verified, the schedule moves %llu",
		         algo, (unsigned long long)got,
		         (unsigned long long)want);
	return (j);
}

static void
test_run_three_algorithms(void **state)
{
	struct fx *f = *state;

	json_decref(run_ok(f, "retri", "1MiB", NULL, NULL, 9));
	json_decref(run_ok(f, "bridge", "1MiB", "--reconfig", "all", 9));
	json_decref(run_ok(f, "static", "1MiB", NULL, NULL, 9));
	json_decref(run_ok(f, "bruck", "1MiB", "--reconfig", "auto", 9));
	/* Two-port Bruck needs 4 transceivers a host; these have 2. */
	{
		char *o, *e;

		assert_int_not_equal(ctl(f, &o, &e, "run", "--algo", "bruck2",
		                         "--bytes", "1MiB", NULL),
		                     0);
		if (strstr(e, "needs 4") == NULL)
			fail_msg("bruck2 on 2 transceivers: %s", e);
		free(o);
		free(e);
	}
	/* Uneven block sizes: m not a multiple of n. */
	json_decref(run_ok(f, "retri", "1000003", "--reconfig", "none", 9));
}

/*
 * Skewed All-to-All on 9 agents: every planner (and auto, and the ring
 * algorithms carrying the same matrix) delivers exactly the matrix's
 * bytes, verified; the skewed planners reconfigure before every stage.
 */
static void
test_run_skewed(void **state)
{
	static const char *const algos[] = {"fast",    "spreadout", "solstice",
	                                    "eclipse", "sorted",    "auto",
	                                    "retri",   "static"};
	struct fx               *f = *state;
	struct tmat              m;
	char                     err[256], *o, *e;
	uint64_t                 total = 0, got;
	size_t                   a, k;
	uint32_t                 i;
	json_t                  *j, *r, *ph, *v;

	assert_int_equal(
	    tmat_generate("zipf:9:0.8:5", 1 << 20, &m, err, sizeof(err)), 0);
	for (i = 0; i < 9; i++)
		total += tmat_row(&m, i);
	for (a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
		j = NULL;
		if (ctl(f, &o, &e, "-j", "run", "--algo", algos[a], "--bytes",
		        "1MiB", "--matrix", "zipf:9:0.8:5", NULL) != 0)
			fail_msg("%s: %s", algos[a], e);
		assert_non_null(j = json_loads(o, 0, NULL));
		free(o);
		free(e);
		r = json_object_get(j, "report");
		assert_true(json_is_true(json_object_get(r, "verified")));
		assert_int_equal(
		    json_integer_value(json_object_get(r, "errors")), 0);
		assert_string_equal(
		    json_string_value(json_object_get(r, "matrix")),
		    "zipf:9:0.8:5");
		ph = json_object_get(r, "phases");
		got = 0;
		json_array_foreach(ph, k, v) got +=
		    (uint64_t)json_integer_value(json_object_get(v, "bytes"));
		if (a < 6) {
			/* One hop: each byte arrives once, and every stage
			 * is a configuration of its own. */
			assert_int_equal(got, total);
			assert_int_equal(json_array_size(json_object_get(
			                     r, "reconfigure_before")),
			                 json_array_size(ph) - 1);
		} else
			assert_true(got >= total);
		json_decref(j);
	}
	tmat_free(&m);
	/* At 20 ms a reconfiguration, auto lets bytes ride several hops
	 * of the configurations it keeps: agents relay explicit blocks. */
	if (ctl(f, &o, &e, "-j", "run", "--algo", "auto", "--bytes", "1MiB",
	        "--matrix", "zipf:9:0.8:5", "--delay", "20ms", NULL) != 0)
		fail_msg("auto with reuse: %s", e);
	assert_non_null(j = json_loads(o, 0, NULL));
	r = json_object_get(j, "report");
	assert_non_null(
	    strstr(json_string_value(json_object_get(r, "algo")), "+reuse"));
	assert_true(json_is_true(json_object_get(r, "verified")));
	assert_int_equal(json_integer_value(json_object_get(r, "errors")), 0);
	json_decref(j);
	free(o);
	free(e);
	/* Skewed planners need a matrix; a matrix needs its node count. */
	assert_int_not_equal(
	    ctl(f, &o, &e, "run", "--algo", "fast", "--bytes", "1MiB", NULL),
	    0);
	assert_non_null(strstr(e, "--matrix"));
	free(o);
	free(e);
	assert_int_not_equal(ctl(f, &o, &e, "run", "--algo", "fast", "--bytes",
	                         "1MiB", "--matrix", "zipf:12:0.8:5", NULL),
	                     0);
	assert_non_null(strstr(e, "12 nodes"));
	free(o);
	free(e);
}

/*
 * Each report has every agent's timeline and the end-to-end time; runs
 * are kept (STATE/runs.jsonl, ocsctl runs); a run too big for an agent's
 * memory is refused before it starts, naming the agent.
 */
static void
test_run_timed_kept_and_sized(void **state)
{
	struct fx *f = *state;
	json_t    *j, *r, *t, *a;
	char      *o, *e, id[32];
	size_t     i;

	j = run_ok(f, "retri", "256KiB", "--reconfig", "all", 9);
	r = json_object_get(j, "report");
	snprintf(id, sizeof(id), "%lld",
	         (long long)json_integer_value(json_object_get(r, "run_id")));
	assert_true(json_real_value(json_object_get(r, "wall_s")) >=
	            json_real_value(json_object_get(r, "total_s")));
	t = json_object_get(r, "timeline");
	assert_int_equal(json_array_size(t), 9);
	json_array_foreach(t, i, a)
	{
		json_t *ph = json_object_get(a, "phases");

		assert_true(json_real_value(json_object_get(a, "setup_s")) >
		            0);
		assert_non_null(json_object_get(a, "teardown_s"));
		assert_int_equal(json_array_size(ph), 2);
		/* Phase 1 is reconfigured: every agent waited at its
		 * barrier, and checked what it received. */
		assert_true(json_real_value(json_object_get(
		                json_array_get(ph, 1), "wait_s")) > 0);
		assert_true(json_real_value(json_object_get(
		                json_array_get(ph, 1), "verify_s")) > 0);
	}
	json_decref(j);
	/* Kept: listed, and shown whole. */
	assert_int_equal(ctl(f, &o, &e, "runs", NULL), 0);
	assert_non_null(strstr(o, id));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "-j", "runs", id, NULL), 0);
	assert_non_null(j = json_loads(o, 0, NULL));
	r = json_object_get(j, "report");
	assert_int_equal(json_array_size(json_object_get(r, "timeline")), 9);
	json_decref(j);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "runs", id, NULL), 0);
	assert_non_null(strstr(o, "agents: setup up to"));
	assert_non_null(strstr(o, "verified: "));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "runs", "99", NULL), 1);
	assert_non_null(strstr(e, "run 99: not in"));
	free(o);
	free(e);
	/* Lines the operator broke are skipped, the rest still listed. */
	{
		char  path[300];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/state/runs.jsonl", f->dir);
		assert_non_null(fp = fopen(path, "a"));
		fprintf(fp, "garbage\n{\"run_id\": 5}\n[1,2]\n");
		fclose(fp);
		assert_int_equal(ctl(f, &o, &e, "runs", NULL), 0);
		assert_non_null(strstr(o, id));
		free(o);
		free(e);
	}
	/* An agent that may take 2 MiB cannot hold 1 MiB of ReTri. */
	proc_stop(&f->agent[0], SIGTERM);
	assert_int_equal(rig_agent_opt(f, 0, "secret", "--mem-limit", "2MiB"),
	                 0);
	wait_agents(f, 9);
	assert_int_equal(
	    ctl(f, &o, &e, "run", "--algo", "retri", "--bytes", "1MiB", NULL),
	    2);
	assert_non_null(strstr(e, "agent h00 (node 0) would need 2."));
	assert_non_null(strstr(e, "its limit is 2 MiB"));
	free(o);
	free(e);
	json_decref(run_ok(f, "retri", "64KiB", NULL, NULL, 9));
}

/* n not a power of 3 (or 2): a subset of the agents. */
static void
test_run_any_n(void **state)
{
	struct fx *f = *state;

	json_t *j, *r;

	json_decref(run_ok(f, "retri", "256KiB", "--nodes", "7", 7));
	json_decref(run_ok(f, "bridge", "256KiB", "--nodes", "5", 5));
	/* Fewer nodes than joined: the report says which are not used. */
	j = run_ok(f, "retri", "256KiB", "--nodes", "2", 2);
	r = json_object_get(j, "report");
	assert_int_equal(json_integer_value(json_object_get(r, "joined")), 9);
	assert_string_equal(
	    json_string_value(json_object_get(r, "left_out")),
	    "h02, h03, h04, h05, h06, h07, h08 not needed (a run of 2 nodes)");
	json_decref(j);
	j = run_ok(f, "retri", "256KiB", NULL, NULL, 9);
	assert_null(json_object_get(json_object_get(j, "report"), "left_out"));
	json_decref(j);
	/* Arguments ocsd finds wrong are usage errors, as the client's. */
	{
		char *o, *e;

		assert_int_equal(ctl(f, &o, &e, "run", "--algo", "foo",
		                     "--bytes", "1KiB", NULL),
		                 2);
		assert_non_null(strstr(e, "algo \"foo\": unknown"));
		free(o);
		free(e);
		assert_int_equal(ctl(f, &o, &e, "run", "--algo", "retri",
		                     "--bytes", "1KiB", "--reconfig", "9",
		                     NULL),
		                 2);
		free(o);
		free(e);
		/* A switch without a capture (the relay) says so; the run
		 * itself is reported, verified, and the exit status is 1. */
		assert_int_equal(ctl(f, &o, &e, "run", "--capture", "--algo",
		                     "static", "--bytes", "4KiB", NULL),
		                 1);
		assert_non_null(strstr(o, "verified: "));
		assert_non_null(strstr(e, "No capture"));
		free(o);
		free(e);
	}
}

/* Barriers only before reconfigurations: ocsd releases phase 0, and a
 * later phase only if the switch changes before it. */
static void
test_run_barriers_only_before_reconfigurations(void **state)
{
	struct fx *f = *state;
	json_t    *j, *ph;
	char       cmd[600], *o, *e;
	char      *argv[] = {"/bin/sh", "-c", cmd, NULL};

	/* ReTri on 9 nodes has two phases. */
	j = run_ok(f, "retri", "512KiB", "--reconfig", "none", 9);
	ph = json_object_get(json_object_get(j, "report"), "phases");
	assert_true(json_is_true(
	    json_object_get(json_array_get(ph, 0), "reconfigured")));
	assert_true(json_is_false(
	    json_object_get(json_array_get(ph, 1), "reconfigured")));
	json_decref(j);
	snprintf(cmd, sizeof(cmd), "grep -c 'phase 1 released' %s/ocsd.log",
	         f->dir);
	proc_run(argv, &o, &e);
	assert_int_equal(atoi(o), 0);
	free(o);
	free(e);
	json_decref(run_ok(f, "retri", "512KiB", "--reconfig", "all", 9));
	proc_run(argv, &o, &e);
	assert_int_equal(atoi(o), 1);
	free(o);
	free(e);
}

static void
test_run_agent_killed_mid_run(void **state)
{
	struct fx  *f = *state;
	struct proc r;
	char        line[512], *o, *e;
	int         st, i;
	uint64_t    base = relayed(f);

	run_bg(f, &r, "bridge", "64MiB", "none");
	/* Kill one agent once the run has begun on all of them. */
	for (i = 0; i < 200; i++) {
		assert_int_equal(ctl(f, &o, &e, "agents", NULL), 0);
		st = strstr(o, " idle ") == NULL && strstr(o, "running");
		free(o);
		free(e);
		if (st)
			break;
		mono_sleep_ms(20);
	}
	/* ... and data is flowing through the switch. */
	for (i = 0; i < 500 && relayed(f) - base < (4u << 20); i++)
		mono_sleep_ms(10);
	proc_stop(&f->agent[4], SIGKILL);
	assert_int_equal(proc_wait(&r, 15000), 1);
	first_line(f, line, sizeof(line));
	if (strstr(
	        line,
	        "agent h04 (node 4) lost in phases 0-3: its link closed (the "
	        "agent closed it)") == NULL)
		fail_msg("reason: %s", line);
	/* It comes back; the next run succeeds. */
	agent_start(f, 4, "secret");
	wait_agents(f, 9);
	json_decref(run_ok(f, "retri", "1MiB", NULL, NULL, 9));
}

static void
test_run_wrong_secret_refused(void **state)
{
	struct fx *f = *state;
	char       cmd[600], *o, *e;
	char      *argv[] = {"/bin/sh", "-c", cmd, NULL};

	agent_start(f, 9, "wrong");
	assert_int_equal(proc_wait(&f->agent[9], 5000), 1);
	snprintf(
	    cmd, sizeof(cmd),
	    "grep -c 'join refused: controller: join refused: wrong proof' "
	    "%s/agent-h09.log; grep -c 'join as h09 .* refused: wrong "
	    "proof' %s/ocsd.log",
	    f->dir, f->dir);
	proc_run(argv, &o, &e);
	assert_string_equal(o, "1\n1\n");
	free(o);
	free(e);
}

static void
test_run_corrupted_frame_detected(void **state)
{
	struct fx *f = *state;
	char       buf[4096], *o, *e;
	int        rv;

	assert_int_equal(
	    rig_tl1(f, "OPR-PORT-CORRUPT::1&&18:2:;", buf, sizeof(buf)), 0);
	rv = ctl(f, &o, &e, "run", "--algo", "retri", "--bytes", "1MiB", NULL);
	assert_int_equal(rv, 1);
	if (strstr(e, "CRC mismatch in a frame of B[") == NULL)
		fail_msg("reason: %s", e);
	free(o);
	free(e);
}

static void
test_run_operator_abort(void **state)
{
	struct fx  *f = *state;
	struct proc r;
	char        line[512], *o, *e;
	int         i, rv = 1;

	run_bg(f, &r, "static", SLOW_BYTES, "auto");
	for (i = 0; i < 200 && rv != 0; i++) {
		mono_sleep_ms(20);
		rv = ctl(f, &o, &e, "abort", NULL);
		free(o);
		free(e);
	}
	assert_int_equal(rv, 0);
	assert_int_equal(proc_wait(&r, 15000), 1);
	first_line(f, line, sizeof(line));
	assert_non_null(strstr(line, "aborted by the operator"));
	/* The aborted run is kept, with why. */
	assert_int_equal(ctl(f, &o, &e, "runs", NULL), 0);
	assert_non_null(strstr(o, "aborted by the operator"));
	free(o);
	free(e);
	/* Agents are back and a run goes through. */
	wait_agents(f, 9);
	json_decref(run_ok(f, "bridge", "256KiB", NULL, NULL, 9));
}

/* How many agents ocsctl agents calls lost. */
static int
lost_agents(struct fx *f)
{
	char *o, *e, *p;
	int   n = 0;

	assert_int_equal(ctl(f, &o, &e, "-br", "agents", NULL), 0);
	for (p = o; (p = strstr(p, " lost ")) != NULL; p++)
		n++;
	free(o);
	free(e);
	return (n);
}

/*
 * An abort that lands in a long phase hands every agent back idle and
 * eligible at once: quiet in a phase is not a missed heartbeat (issue 34:
 * every agent was lost within a tick of the abort, and the next run
 * found none).  Watched for more than three heartbeats.
 */
static void
test_run_abort_keeps_agents(void **state)
{
	struct fx  *f = *state;
	struct proc r;
	uint64_t    base = relayed(f), t0;
	char       *o, *e;
	int         i;

	run_bg(f, &r, "static", SLOW_BYTES, "auto");
	/* In the phase: data flowing through the switch. */
	for (i = 0; i < 3000 && relayed(f) - base < (8u << 20); i++)
		mono_sleep_ms(10);
	assert_int_equal(ctl(f, &o, &e, "abort", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(proc_wait(&r, 15000), 1);
	for (t0 = mono_ms(); mono_ms() - t0 < 3500;) {
		if (lost_agents(f) != 0) {
			assert_int_equal(ctl(f, &o, &e, "agents", NULL), 0);
			fail_msg("an agent was lost after the abort:\n%s", o);
		}
		mono_sleep_ms(100);
	}
	/* The next run takes them all, without waiting for anyone. */
	json_decref(run_ok(f, "retri", "256KiB", NULL, NULL, 9));
}

/* Circuits do not change under a run unless the operator forces it, and
 * then the run ends first and says why (issue 11). */
static void
test_run_map_changes_wait_for_the_run(void **state)
{
	struct fx  *f = *state;
	struct proc r;
	char        line[512], *o, *e;
	int         i, running = 0;

	run_bg(f, &r, "static", SLOW_BYTES, "auto");
	for (i = 0; i < 400 && !running; i++) {
		mono_sleep_ms(10);
		assert_int_equal(ctl(f, &o, &e, "agents", NULL), 0);
		running = strstr(o, "running") != NULL;
		free(o);
		free(e);
	}
	assert_true(running);
	/* status says so too. */
	assert_int_equal(ctl(f, &o, &e, "status", NULL), 0);
	assert_non_null(strstr(o, "in progress, phase"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "clear", NULL), 1);
	assert_non_null(strstr(e, "in progress"));
	assert_non_null(strstr(e, "--force"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "connect", "h00.0", "h01.1", NULL), 1);
	assert_non_null(strstr(e, "in progress"));
	free(o);
	free(e);
	/* Adopting the switch's map would make the run's circuits the
	 * operator's (issue 34). */
	assert_int_equal(ctl(f, &o, &e, "map", "adopt", NULL), 1);
	assert_non_null(strstr(e, "in progress"));
	free(o);
	free(e);
	/* A forced change that would be refused does not cost the run. */
	assert_int_equal(
	    ctl(f, &o, &e, "connect", "--force", "h00.0", "h99.1", NULL), 1);
	assert_non_null(strstr(e, "h99.1"));
	free(o);
	free(e);
	assert_true(proc_alive(&r));
	assert_int_equal(ctl(f, &o, &e, "clear", "--force", NULL), 0);
	assert_non_null(strstr(o, "aborted"));
	free(o);
	free(e);
	assert_int_equal(proc_wait(&r, 15000), 1);
	first_line(f, line, sizeof(line));
	assert_non_null(strstr(line, "--force"));
	wait_agents(f, 9);
	json_decref(run_ok(f, "bridge", "256KiB", NULL, NULL, 9));
}

/* Wait until n agents show every fibre plugged ("2/2"). */
static void
wait_plugged(struct rig *f, int n)
{
	char *o, *e, *p;
	int   i, k = 0;

	for (i = 0; i < 150 && k != n; i++) {
		if (i)
			mono_sleep_ms(100);
		assert_int_equal(ctl(f, &o, &e, "agents", NULL), 0);
		for (k = 0, p = o; (p = strstr(p, " 2/2 ")) != NULL; p++)
			k++;
		free(o);
		free(e);
	}
	assert_int_equal(k, n);
}

/* The state ocsctl agents shows for host h ("idle", "lost", ...). */
static int
agent_state_is(struct rig *f, const char *host, const char *state)
{
	char *o, *e, *p, *s;
	int   yes = 0;

	/* Lines "  agent  host  trx  state  seen"; a host may be listed
	 * twice (lost, and its replacement): any line will do. */
	if (ctl(f, &o, &e, "agents", NULL) == 0)
		for (p = o; (p = strstr(p, host)) != NULL; p++) {
			s = strstr(p, state);
			if (s != NULL && s < p + strcspn(p, "\n"))
				yes = 1;
		}
	free(o);
	free(e);
	return (yes);
}

/* lo names exactly n of h03 and h04, each with fewer than 2 of its 2
 * fibres up ("h03 (fibres 0 of 2 up), h04 (fibres 1 of 2 up)"). */
static int
left_out_hung(const char *lo, int n)
{
	char host[8];
	int  k, seen = 0, used, got = 0;

	if (lo == NULL || n < 1 || n > 2)
		return (0);
	while (sscanf(lo, "%7s (fibres %d of 2 up)%n", host, &k, &used) == 2) {
		int bit = strcmp(host, "h03") == 0   ? 1
		          : strcmp(host, "h04") == 0 ? 2
		                                     : 0;

		if (bit == 0 || (seen & bit) || k < 0 || k > 1)
			return (0);
		seen |= bit;
		got++;
		lo += used;
		if (*lo == '\0')
			return (got == n);
		if (strncmp(lo, ", ", 2) != 0)
			return (0);
		lo += 2;
	}
	return (0);
}

/* A hung host (stopped, so its connection stays up) is found by its
 * missed heartbeats, or evicted at once by the operator; either way a
 * replacement for it may join (issue 11). */
static void
test_run_hung_agent_replaced(void **state)
{
	struct fx  *f = *state;
	struct proc old3, old4;
	char       *o, *e;
	int         i, lost = 0;

	old3 = f->agent[3];
	old4 = f->agent[4];
	assert_int_equal(kill(old3.pid, SIGSTOP), 0);
	assert_int_equal(kill(old4.pid, SIGSTOP), 0);
	assert_int_equal(ctl(f, &o, &e, "agents", "evict", "h04", NULL), 0);
	assert_non_null(strstr(o, "h04"));
	free(o);
	free(e);
	assert_true(agent_state_is(f, "h04", "lost"));
	/* Heartbeats are 1 s: three missed, and h03 is lost too. */
	for (i = 0; i < 100 && !lost; i++) {
		mono_sleep_ms(100);
		lost = agent_state_is(f, "h03", "lost");
	}
	assert_true(lost);
	agent_start(f, 3, "secret");
	agent_start(f, 4, "secret");
	wait_agents(f, 9);
	/* Joined, their fibres still the hung ones': a run now takes the
	 * other 7 and says which it left out and why (issue 34: it said
	 * nothing, and used 2 of 3). */
	{
		json_t     *j = run_ok(f, "retri", "64KiB", NULL, NULL, 0);
		json_t     *r = json_object_get(j, "report");
		const char *lo =
		    json_string_value(json_object_get(r, "left_out"));

		json_int_t n = json_integer_value(json_object_get(r, "nodes"));

		/* Both, as a rule; one may have plugged in meanwhile, or
		 * one fibre of one (the relay closes a hung sender's
		 * connection in time). */
		if (!left_out_hung(lo, 9 - (int)n))
			fail_msg("%lld nodes, left out: %s", (long long)n,
			         lo ? lo : "(not said)");
		assert_int_equal(
		    json_integer_value(json_object_get(r, "joined")), 9);
		json_decref(j);
	}
	kill(old3.pid, SIGKILL);
	kill(old4.pid, SIGKILL);
	proc_stop(&old3, SIGKILL);
	proc_stop(&old4, SIGKILL);
	/* The hung ones held the fibres: the replacements plug in once
	 * they are gone. */
	wait_plugged(f, 9);
	json_decref(run_ok(f, "retri", "256KiB", NULL, NULL, 9));
	assert_int_equal(ctl(f, &o, &e, "agents", "evict", "h99", NULL), 1);
	assert_non_null(strstr(e, "h99"));
	free(o);
	free(e);
}

/* The switch restarts (a power cycle): ocsd reconnects, the agents plug
 * their fibres in again by themselves, say so, and the next run works
 * (issue 11). */
static void
test_run_switch_restart(void **state)
{
	struct fx *f = *state;
	char      *o, *e;
	int        i, rv = 1;

	assert_int_equal(rig_emu_restart(f), 0);
	wait_plugged(f, 9);
	/* ocsd may still be reconnecting to the switch: a run goes through
	 * within a few seconds, not never. */
	for (i = 0; i < 30 && rv != 0; i++) {
		rv = ctl(f, &o, &e, "run", "--algo", "retri", "--bytes",
		         "64KiB", NULL);
		if (rv != 0)
			mono_sleep_ms(200);
		free(o);
		free(e);
	}
	assert_int_equal(rv, 0);
}

/* How many circuits "ocsctl show" lists, and whether a <-> b is one. */
static int
circuits(struct rig *f, const char *a, const char *b, int *has)
{
	char *o, *e, *p, line[128];
	int   n = -1;

	assert_int_equal(ctl(f, &o, &e, "show", NULL), 0);
	if ((p = strstr(o, "circuits (")) != NULL)
		n = atoi(p + 10);
	snprintf(line, sizeof(line), "%-16s <-> %s\n", a, b);
	*has = strstr(o, line) != NULL;
	free(o);
	free(e);
	return (n);
}

/* After a run the switch is the operator's again, unless --keep; the
 * desired map on disk is not rewritten at every phase (issue 11).  The
 * operator's circuit joins a host's two transceivers, which no run's
 * configuration does. */
static void
test_run_restores_the_operators_map(void **state)
{
	struct fx  *f = *state;
	char        path[300], *o, *e;
	struct stat st1, st2;
	int         has, i;

	assert_int_equal(ctl(f, &o, &e, "clear", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "connect", "h00.0", "h00.1", NULL), 0);
	free(o);
	free(e);
	snprintf(path, sizeof(path), "%s/state/desired.map", f->dir);
	assert_int_equal(stat(path, &st1), 0);
	json_decref(run_ok(f, "retri", "256KiB", "--reconfig", "all", 9));
	/* The restore follows the report: give it a moment. */
	for (i = 0, has = 0; i < 50 && !has; i++) {
		mono_sleep_ms(50);
		(void)circuits(f, "h00.0", "h00.1", &has);
	}
	assert_int_equal(circuits(f, "h00.0", "h00.1", &has), 1);
	assert_true(has);
	assert_int_equal(stat(path, &st2), 0);
	assert_true(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
	            st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
	/* --keep: the run's last configuration becomes the map. */
	json_decref(run_ok(f, "retri", "256KiB", "--reconfig", "all", 9));
	for (i = 0, has = 0; i < 50 && !has; i++) {
		mono_sleep_ms(50);
		(void)circuits(f, "h00.0", "h00.1", &has);
	}
	json_decref(run_ok(f, "retri", "256KiB", "--keep", NULL, 9));
	assert_true(circuits(f, "h00.0", "h00.1", &has) > 1);
	assert_false(has);
	assert_int_equal(ctl(f, &o, &e, "-j", "map", "diff", NULL), 0);
	assert_non_null(strstr(o, "\"in_sync\": true"));
	free(o);
	free(e);
}

/* The switch's patches as ocs-emu reports them, "in,out;" each. */
static void
patches(struct fx *f, char *out, size_t sz)
{
	char     buf[8192], *p = buf;
	unsigned in, eg;
	size_t   off = 0;
	int      n;

	assert_int_equal(rig_tl1(f, "RTRV-PATCH:::2:;", buf, sizeof(buf)), 0);
	out[0] = '\0';
	while ((p = strchr(p, '"')) != NULL) {
		if (sscanf(p, "\"%u,%u\"%n", &in, &eg, &n) == 2) {
			off += (size_t)snprintf(out + off, sz - off, "%u,%u;",
			                        in, eg);
			assert_true(off < sz);
			p += n;
		} else
			p++;
	}
}

/* Does the file `name` in the test's directory say this? */
static int
log_has(struct fx *f, const char *name, const char *what)
{
	char  path[300], line[1024];
	FILE *lf;
	int   yes = 0;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	if ((lf = fopen(path, "r")) == NULL)
		return (0);
	while (!yes && fgets(line, sizeof(line), lf) != NULL)
		yes = strstr(line, what) != NULL;
	fclose(lf);
	return (yes);
}

/* Does ocsd's log (all its lives) say this? */
static int
ocsd_log_has(struct fx *f, const char *what)
{
	return (log_has(f, "ocsd.log", what));
}

/*
 * ocsd killed (-9) in the middle of a run: the switch keeps the run's
 * circuits, and the run's intent on disk (written once, before phase 0)
 * explains them; the restarted ocsd says a run was in progress, puts the
 * operator's map back (the run's circuits go, the operator's circuit
 * stays, nothing else changes), forgets the intent, and the next run
 * works (issue 16).
 */
static void
test_run_ocsd_killed_mid_run(void **state)
{
	struct fx  *f = *state;
	struct proc run;
	char        before[4096], now[4096], intent[300], *o, *e;
	int         i;
	uint64_t    base;

	assert_int_equal(ctl(f, &o, &e, "clear", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "connect", "h00.0", "h00.1", NULL), 0);
	free(o);
	free(e);
	patches(f, before, sizeof(before));
	assert_true(strlen(before) > 0);
	base = relayed(f);
	run_bg(f, &run, "static", SLOW_BYTES, "all");
	/* In the phase: data flowing through the switch. */
	for (i = 0; i < 3000 && relayed(f) - base < (8u << 20); i++)
		mono_sleep_ms(10);
	patches(f, now, sizeof(now));
	assert_string_not_equal(now, before);
	proc_stop(&f->ocsd, SIGKILL);
	/* The operator's ocsctl lost its ocsd: it says so at once, not at
	 * its timeout. */
	assert_int_equal(proc_wait(&run, 5000), 1);
	assert_true(
	    log_has(f, "run.err", "closed the connection before answering"));
	/* What the switch holds now is nobody's map, and the disk says
	 * why. */
	snprintf(intent, sizeof(intent), "%s/state/run.state", f->dir);
	assert_int_equal(access(intent, F_OK), 0);
	patches(f, now, sizeof(now));
	assert_string_not_equal(now, before);
	assert_int_equal(rig_ocsd_restart(f), 0);
	/* The agents were in a phase sending into fibres gone dark: they
	 * notice ocsd's end at once and join again within a few seconds
	 * (issue 34: one took 23 s). */
	if (rig_wait_agents(f, 9, 6000) != 0)
		fail_msg("the agents took more than 6 s to join again");
	for (i = 0; i < 200; i++) {
		patches(f, now, sizeof(now));
		if (strcmp(now, before) == 0)
			break;
		mono_sleep_ms(20);
	}
	assert_string_equal(now, before);
	/* ocsd says so, and forgets the intent, once the switch has read
	 * back as restored: a moment after the switch shows it. */
	for (i = 0; i < 200; i++) {
		if (ocsd_log_has(f, "the switch holds the desired map") &&
		    access(intent, F_OK) == -1)
			break;
		mono_sleep_ms(20);
	}
	assert_true(ocsd_log_has(f, "was in progress when ocsd stopped"));
	assert_true(ocsd_log_has(f, "the switch holds the desired map"));
	assert_int_equal(access(intent, F_OK), -1);
	assert_int_equal(ctl(f, &o, &e, "-j", "map", "diff", NULL), 0);
	assert_non_null(strstr(o, "\"in_sync\": true"));
	free(o);
	free(e);
	/* The run is in the history, as interrupted (issue 34: a run ended
	 * by kill -9 was never recorded). */
	assert_int_equal(ctl(f, &o, &e, "runs", NULL), 0);
	if (strstr(o, "interrupted: ocsd stopped during the run") == NULL)
		fail_msg("runs: %s", o);
	free(o);
	free(e);
	/* Joined, and their fibres plugged again: the relay's queues of the
	 * killed run drain at the fibres' 20 Mbps first. */
	wait_agents(f, 9);
	wait_plugged(f, 9);
	json_decref(run_ok(f, "retri", "256KiB", NULL, NULL, 9));
}

/* A run on the 25 hosts: its report verified, nph phases, and every
 * delivery of the schedule counted. */
static void
run_on_25(struct fx *f, const char *algo, uint32_t radix, const char *label,
          size_t nph)
{
	char    *o, *e, rs[8];
	json_t  *j, *r;
	uint64_t want;

	snprintf(rs, sizeof(rs), "%u", radix ? radix : 3);
	if (ctl(f, &o, &e, "-j", "run", "--algo", algo, "--bytes", "1MiB",
	        radix ? "--radix" : NULL, rs, NULL) != 0)
		fail_msg("%s: %s", label, e);
	assert_non_null(j = json_loads(o, 0, NULL));
	free(o);
	free(e);
	r = json_object_get(j, "report");
	assert_string_equal(json_string_value(json_object_get(r, "algo")),
	                    label);
	assert_true(json_is_true(json_object_get(r, "verified")));
	assert_int_equal(json_integer_value(json_object_get(r, "errors")), 0);
	assert_int_equal(json_array_size(json_object_get(r, "phases")), nph);
	want = expected_blocks_r(
	    algo, radix, 25,
	    (uint64_t)json_integer_value(json_object_get(r, "bytes")),
	    json_object_get(r, "reconfigure_before"));
	assert_int_equal(
	    json_integer_value(json_object_get(r, "blocks_verified")), want);
	json_decref(j);
}

/*
 * ReTri of radix 5 on 25 hosts with 4 transceivers each: two rings a
 * phase (strides b^k and 2 b^k), 2 phases, every block verified, the
 * schedule's deliveries all counted; then two-port Bruck on them.
 */
static void
test_run_radix5(void **state)
{
	struct fx *f = *state;
	char      *o, *e;

	run_on_25(f, "retri", 5, "retri (radix 5)", 2);
	/* Two-port Bruck on the same hosts: two rings a phase, all four
	 * transceivers, 3 phases on 25 hosts. */
	run_on_25(f, "bruck2", 0, "bruck2", 3);
	/* Radix 7 needs 6 transceivers: refused before anything moves. */
	assert_int_not_equal(ctl(f, &o, &e, "run", "--algo", "retri",
	                         "--radix", "7", "--bytes", "1MiB", NULL),
	                     0);
	assert_non_null(strstr(e, "needs 6"));
	free(o);
	free(e);
}

/* The reconfigurations tsyn_on_circuits gives a synthesised collective
 * on hosts of 2 transceivers: the phases that set a configuration. */
static json_t *
coll_reconfigs(const char *spec, const char *algo, enum sched_coll coll,
               uint64_t bytes, uint32_t chunks)
{
	struct tsyn_params q = {
	    .coll = coll, .bytes = bytes, .chunks = chunks};
	struct topo  t;
	struct sched ts, s;
	char         err[256];
	json_t      *a = json_array();
	uint32_t     k;

	assert_int_equal(tsyn_algo_parse(algo, &q.algo), 0);
	assert_int_equal(topo_generate(spec, &t, err, sizeof(err)), 0);
	assert_int_equal(tsyn_synth(&t, &q, &ts, err, sizeof(err)), 0);
	assert_int_equal(tsyn_on_circuits(&ts, 2, &s, err, sizeof(err)), 0);
	for (k = 1; k < s.nph; k++)
		if (s.ph[k].cfg >= 0)
			json_array_append_new(a, json_integer(k));
	sched_free(&s);
	sched_free(&ts);
	topo_free(&t);
	return (a);
}

/* ocsctl -j run --collective ...: verified, every block each node ends
 * with checked once, reconfigured where the library says. */
static void
coll_ok_n(struct fx *f, uint32_t n, const char *algo, const char *coll,
          const char *topo, uint32_t chunks, uint64_t bytes)
{
	static const char *const     names[] = {"allgather", "reducescatter",
	                                        "allreduce"};
	static const enum sched_coll cs[] = {
	    SCHED_ALLGATHER, SCHED_REDUCESCATTER, SCHED_ALLREDUCE};
	char        *o, *e, b[32], c[16];
	json_t      *j, *r, *want;
	json_error_t je;
	uint64_t     per;
	size_t       i;
	int          rv;

	for (i = 0; strcmp(names[i], coll) != 0; i++)
		;
	snprintf(b, sizeof(b), "%llu", (unsigned long long)bytes);
	snprintf(c, sizeof(c), "%u", chunks);
	rv = ctl(f, &o, &e, "-j", "run", "--algo", algo, "--collective", coll,
	         "--bytes", b, "--chunks", c, "--topology", topo, NULL);
	if (rv != 0)
		fail_msg("%s %s on %s: exit %d: %s", algo, coll, topo, rv, e);
	if ((j = json_loads(o, 0, &je)) == NULL)
		fail_msg("bad JSON: %s", o);
	r = json_object_get(j, "report");
	assert_true(json_is_true(json_object_get(r, "verified")));
	assert_int_equal(json_integer_value(json_object_get(r, "nodes")), n);
	assert_string_equal(json_string_value(json_object_get(r, "topology")),
	                    topo);
	per = i == 0 ? n - 1 : i == 1 ? 1 : n;
	if ((uint64_t)json_integer_value(
	        json_object_get(r, "blocks_verified")) != n * per * chunks)
		fail_msg("%s %s on %s: %lld blocks verified, expected %llu",
		         algo, coll, topo,
		         (long long)json_integer_value(
		             json_object_get(r, "blocks_verified")),
		         (unsigned long long)(n * per * chunks));
	want = coll_reconfigs(topo, algo, cs[i], bytes, chunks);
	if (!json_equal(want, json_object_get(r, "reconfigure_before"))) {
		char *w = json_dumps(want, 0);

		fail_msg(
		    "%s %s on %s: reconfigured before %s, expected %s", algo,
		    coll, topo,
		    json_dumps(json_object_get(r, "reconfigure_before"), 0),
		    w);
	}
	json_decref(want);
	json_decref(j);
	free(o);
	free(e);
}

static void
coll_ok(struct fx *f, const char *algo, const char *coll, const char *topo,
        uint32_t chunks, uint64_t bytes)
{
	coll_ok_n(f, 9, algo, coll, topo, chunks, bytes);
}

/* Refused before anything moves, with the reason. */
static void
coll_refused(struct fx *f, const char *why, const char *algo, const char *coll,
             const char *bytes, const char *topo)
{
	char *o, *e;

	assert_int_not_equal(ctl(f, &o, &e, "run", "--algo", algo,
	                         "--collective", coll, "--bytes", bytes,
	                         topo ? "--topology" : NULL, topo, NULL),
	                     0);
	if (strstr(e, why) == NULL)
		fail_msg("%s %s %s: \"%s\", expected \"%s\"", algo, coll,
		         bytes, e, why);
	free(o);
	free(e);
}

/*
 * Synthesised collectives on 9 agents through ocs-emu: AllGather,
 * ReduceScatter and AllReduce (int32 sums) on the ring of the hosts, one
 * configuration; and on subring:9:1,3, whose 4 links a host are more
 * than its 2 transceivers, so the run reconfigures between stretches of
 * slots.  Every element is checked by the agents.
 */
static void
test_run_collectives(void **state)
{
	struct fx *f = *state;

	coll_ok(f, "ten", "allgather", "ring:9:100Mbps:0s", 1, 9 * 8192);
	coll_ok(f, "ten", "allreduce", "ring:9:100Mbps:0s", 2, 9 * 2 * 8192);
	coll_ok(f, "mteg", "reducescatter", "ring:9:100Mbps:0s", 1, 9 * 8192);
	coll_ok(f, "mteg", "allreduce", "subring:9:1,3:100Mbps:0s", 1,
	        9 * 8192);
	coll_ok(f, "ten", "allgather", "subring:9:1,3:100Mbps:0s", 2,
	        9 * 2 * 8192);
	coll_refused(f, "needs a multiple of 36", "ten", "allreduce", "1000",
	             NULL);
	coll_refused(f, "9 agents have joined", "ten", "allgather", "16KiB",
	             "mesh:4x4");
	coll_refused(f, "not a synthesiser", "retri", "allgather", "9KiB",
	             NULL);
	coll_refused(f, "topology: ", "ten", "allgather", "9KiB",
	             "subring:9:11");
	/* Not a generator: said as such (the reason was uninitialised
	 * stack bytes once). */
	coll_refused(f, "topology: \"x:3:", "ten", "allgather", "96KiB",
	             "x:3");
	coll_refused(f, "not a generator (ring:, subring:", "ten", "allgather",
	             "96KiB", "x:3");
	/* A topology file is read by ocsctl and sent whole; a switch in it
	 * is no host a circuit can join. */
	{
		char  path[] = "/tmp/ocs-topo-XXXXXX";
		int   fd = mkstemp(path);
		FILE *fp;
		int   i;

		assert_true(fd >= 0);
		assert_non_null(fp = fdopen(fd, "w"));
		fprintf(fp, "{\"name\": \"star\", \"nodes\": [");
		for (i = 0; i < 8; i++)
			fprintf(fp, "{\"name\": \"g%d\", \"kind\": \"gpu\"},",
			        i);
		fprintf(fp, "{\"name\": \"sw\", \"kind\": \"switch\"}],\n"
		            "\"links\": [");
		for (i = 0; i < 8; i++)
			fprintf(fp,
			        "%s{\"src\": \"g%d\", \"dst\": \"sw\", "
			        "\"bandwidth\": \"1GBps\", \"latency\": "
			        "\"1us\", \"both\": true}",
			        i ? "," : "", i);
		fprintf(fp, "]}\n");
		fclose(fp);
		coll_refused(f, "sw is not a GPU", "ten", "allgather", "8KiB",
		             path);
		unlink(path);
	}
}

static void
test_run_27_agents(void **state)
{
	struct fx *f = *state;

	json_decref(run_ok(f, "retri", "256KiB", NULL, NULL, 27));
	json_decref(run_ok(f, "retri", "256KiB", "--reconfig", "none", 27));
	json_decref(run_ok(f, "bridge", "256KiB", "--reconfig", "all", 27));
	json_decref(run_ok(f, "static", "256KiB", NULL, NULL, 27));
	/* 104 phases on one configuration: more than a Ready reports, so
	 * the plan has barriers in between (the agent kept 64 reports on
	 * its stack and wrote past them). */
	coll_ok_n(f, 27, "ring", "allreduce", "ring:27:100Mbps:0s", 1,
	          27 * 4096);
}

static int
setup3_idle_lit(void **state)
{
	*state = rig_up(3, "1ms", "deadline = 30s\nidle_lit = yes\n");
	assert_non_null(*state);
	return (0);
}

/*
 * [run] idle_lit: after a run the switch holds what the operator patched
 * and, besides, every host's dark transceivers looped to one another
 * (two: each into the other's RX; one: into its own RX).  3 hosts of 2
 * transceivers on 8 ports: h<h>.<j> sends into ingress 2h+j+1 and
 * receives from egress 8+2h+j+1; the operator's h00.0 <-> h01.0 is kept.
 */
static void
test_run_idle_lit(void **state)
{
	struct fx *f = *state;
	char      *o, *e, now[512] = "";
	int        i;

	if (ctl(f, &o, &e, "connect", "h00.0", "h01.0", NULL) != 0)
		fail_msg("connect: %s", e);
	free(o);
	free(e);
	json_decref(run_ok(f, "static", "64KiB", NULL, NULL, 3));
	for (i = 0; i < 200; i++) {
		patches(f, now, sizeof(now));
		if (strcmp(now, "1,11;2,10;3,9;4,12;5,14;6,13;") == 0)
			break;
		mono_sleep_ms(20);
	}
	assert_string_equal(now, "1,11;2,10;3,9;4,12;5,14;6,13;");
	/* The next run starts from the loops and puts them back. */
	json_decref(run_ok(f, "static", "64KiB", NULL, NULL, 3));
	for (i = 0; i < 200; i++) {
		patches(f, now, sizeof(now));
		if (strcmp(now, "1,11;2,10;3,9;4,12;5,14;6,13;") == 0)
			break;
		mono_sleep_ms(20);
	}
	assert_string_equal(now, "1,11;2,10;3,9;4,12;5,14;6,13;");
}

static int
setup4_link_up(void **state)
{
	struct rig_opts o = {.switch_time = "1ms",
	                     .link_up = "20ms",
	                     .run_conf = "deadline = 30s\nlink_up = 20ms\n"};

	*state = rig_up_opts(4, &o);
	assert_non_null(*state);
	return (0);
}

/*
 * The relay's links: ocs-emu --link-up 20ms loses what is sent into a
 * receiver before its link has come up, so the agents watch their links
 * on the relay (LINK) and ocsd releases a reconfigured phase only once
 * every link it lights is up again: the run is verified, and each such
 * phase was released at least the switching time and the retraining
 * after its reconfiguration began.  ocsctl agents shows the links.
 */
static void
test_run_relay_link_up(void **state)
{
	struct fx *f = *state;
	char      *o, *e;
	json_t    *j, *rep, *ph, *p;
	size_t     k, n = 0;
	double     rl;

	assert_int_equal(ctl(f, &o, &e, "agents", NULL), 0);
	if (strstr(o, "dark") == NULL)
		fail_msg("agents: %s", o);
	free(o);
	free(e);
	j = run_ok(f, "bruck", "256KiB", NULL, NULL, 4);
	rep = json_object_get(j, "report");
	ph = json_object_get(rep, "phases");
	json_array_foreach(ph, k, p)
	{
		if (!json_is_true(json_object_get(p, "reconfigured")))
			continue;
		n++;
		rl = json_real_value(json_object_get(p, "reconf_s")) +
		     json_real_value(json_object_get(p, "link_s"));
		if (rl < 0.021)
			fail_msg("phase %zu: reconf + link-up %.6f s", k, rl);
	}
	assert_true(n > 0);
	json_decref(j);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_run_three_algorithms, setup9,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_collectives, setup9,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_any_n, setup9,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_skewed, setup9,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_radix5, setup25x4,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_timed_kept_and_sized,
	                                    setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_run_barriers_only_before_reconfigurations, setup9,
	        rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_agent_killed_mid_run,
	                                    setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_wrong_secret_refused,
	                                    setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_corrupted_frame_detected,
	                                    setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_run_map_changes_wait_for_the_run, setup9_slow,
	        rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_hung_agent_replaced,
	                                    setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_switch_restart, setup9,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_run_restores_the_operators_map, setup9, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_operator_abort,
	                                    setup9_slow, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_abort_keeps_agents,
	                                    setup9_slow, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_ocsd_killed_mid_run,
	                                    setup9_slow, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_idle_lit, setup3_idle_lit,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_relay_link_up,
	                                    setup4_link_up, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_run_27_agents, setup27,
	                                    rig_teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	/* One test, or those matching a glob: test_run 'test_run_abort*'. */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return (cmocka_run_group_tests_name("run", tests, NULL, NULL));
}
