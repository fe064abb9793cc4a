/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_servers.c: FAST's server level executed on ocs-emu: 8
 * agents as 2 servers of 4 (--gpus-per-server 4), balancing and
 * redistribution over the local links between the agents of a server,
 * the stages on circuits.  Every block verified, each phase's bytes as
 * planned, every cross-server byte on circuits once, the local links
 * shaped (never faster than their rate); a local link that fails is
 * named; requests that cannot be servers are refused, saying why.  And
 * servers from ocsd.conf's [servers] whose hosts are not consecutive
 * nodes: the same run without --gpus-per-server, each host sending what
 * the matrix's row of it says.
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
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "collectives/tmat.h"
#include "tests/lib/rig.h"

#define MATRIX "zipf:8:0.8:5"
#define G      4
#define SU_BPS 400e6

static int
setup8(void **state)
{
	*state = rig_up(8, "1ms",
	                "deadline = 30s\nscaleup_bandwidth = 400Mbps\n"
	                "scaleup_alpha = 20us\n");
	assert_non_null(*state);
	return (0);
}

/* Servers of the even and of the odd hosts, GPU order not host order. */
static int
setup8_conf(void **state)
{
	*state = rig_up(8, "1ms",
	                "deadline = 30s\nscaleup_bandwidth = 400Mbps\n"
	                "scaleup_alpha = 20us\n[servers]\n"
	                "even = h06 h00 h02 h04\nodd = h01 h03 h05 h07\n");
	assert_non_null(*state);
	return (0);
}

/* The traffic between servers of G: what the circuits must carry.
 * by_parity: the servers are the even and the odd hosts, else
 * consecutive hosts. */
static uint64_t
cross_bytes_of(int by_parity)
{
	struct tmat m;
	char        err[256];
	uint64_t    cross = 0;
	uint32_t    i, j;

	assert_int_equal(tmat_generate(MATRIX, 1 << 20, &m, err, sizeof(err)),
	                 0);
	for (i = 0; i < m.n; i++)
		for (j = 0; j < m.n; j++)
			if (by_parity ? i % 2 != j % 2 : i / G != j / G)
				cross += tmat_at(&m, i, j);
	tmat_free(&m);
	return (cross);
}

static uint64_t
cross_bytes(void)
{
	return (cross_bytes_of(0));
}

static json_int_t
num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("report: \"%s\" missing", k);
	return (json_integer_value(v));
}

/* A run's JSON answer checked as a run of 2 servers of G: verified,
 * each phase's bytes the plan's, circuits carrying the servers' cross
 * traffic (cross) once. */
static void
check_g4(const char *o, uint64_t cross)
{
	json_t  *j, *rep, *ph, *v;
	size_t   k;
	uint64_t circ = 0, local = 0;
	double   floor_s;

	assert_non_null(j = json_loads(o, 0, NULL));
	rep = json_object_get(j, "report");
	assert_true(json_is_true(json_object_get(rep, "verified")));
	assert_int_equal(num(rep, "errors"), 0);
	assert_true(num(rep, "blocks_verified") > 0);
	assert_int_equal(num(rep, "gpus_per_server"), G);
	ph = json_object_get(rep, "phases");
	/* Balancing, one stage between the two servers, redistribution. */
	assert_int_equal(json_array_size(ph), 3);
	json_array_foreach(ph, k, v)
	{
		uint64_t planned = (uint64_t)num(v, "planned_bytes");
		uint64_t lb = (uint64_t)num(v, "local_bytes");

		/* Every hop received is a byte the plan moves there. */
		assert_int_equal((uint64_t)num(v, "bytes"), planned);
		circ += planned - lb;
		local += lb;
		/* Shaped: no faster than the mean GPU's local bytes at the
		 * rate, less the burst of a full bucket (5 ms of it). */
		floor_s = lb / 8 > 250000
		              ? (double)(lb / 8 - 250000) * 8 / SU_BPS
		              : 0;
		assert_true(json_real_value(json_object_get(v, "data_s")) >=
		            floor_s);
	}
	assert_int_equal(circ, cross);
	assert_true(local > 0);
	/* Stage 0's circuits are set before phase 0: no reconfiguration
	 * within a run of one stage. */
	assert_int_equal(
	    json_array_size(json_object_get(rep, "reconfigure_before")), 0);
	json_decref(j);
}

static void
test_servers_fast_g4_verified(void **state)
{
	struct rig *r = *state;
	char       *o, *e;

	if (rig_ctl(r, &o, &e, "-j", "run", "--algo", "fast", "--bytes",
	            "1MiB", "--matrix", MATRIX, "--gpus-per-server", "4",
	            NULL) != 0)
		fail_msg("%s", e);
	check_g4(o, cross_bytes());
	free(o);
	free(e);
}

/* [servers] even = h06 h00 h02 h04, odd = h01 h03 h05 h07: no
 * --gpus-per-server, the section's servers; the nodes server by server
 * in its order, and the circuits carry the traffic between even and odd
 * hosts (not between h00..h03 and h04..h07). */
static void
test_servers_from_conf(void **state)
{
	struct rig *r = *state;
	char       *o, *e;
	json_t     *j, *hosts;
	const char *want[] = {"h06", "h00", "h02", "h04",
	                      "h01", "h03", "h05", "h07"};
	size_t      k;

	assert_true(cross_bytes_of(1) != cross_bytes_of(0));
	if (rig_ctl(r, &o, &e, "-j", "run", "--algo", "fast", "--bytes",
	            "1MiB", "--matrix", MATRIX, NULL) != 0)
		fail_msg("%s", e);
	check_g4(o, cross_bytes_of(1));
	assert_non_null(j = json_loads(o, 0, NULL));
	hosts = json_object_get(json_object_get(j, "report"), "hosts");
	assert_int_equal(json_array_size(hosts), 8);
	for (k = 0; k < 8; k++)
		assert_string_equal(
		    json_string_value(json_array_get(hosts, k)), want[k]);
	json_decref(j);
	free(o);
	free(e);
	/* The section's size given: the same servers. */
	if (rig_ctl(r, &o, &e, "-j", "run", "--algo", "fast", "--bytes",
	            "1MiB", "--matrix", MATRIX, "--gpus-per-server", "4",
	            NULL) != 0)
		fail_msg("%s", e);
	check_g4(o, cross_bytes_of(1));
	free(o);
	free(e);
}

/* One agent's local links fail in the balancing phase: the run ends and
 * says which local link. */
static void
test_servers_local_link_fails_named(void **state)
{
	struct rig *r = *state;
	char       *o, *e;

	proc_stop(&r->agent[5], SIGTERM);
	assert_int_equal(rig_wait_agents(r, 7, 20000), 0);
	assert_int_equal(rig_agent_opt(r, 5, "secret", "--fault-local", "0"),
	                 0);
	assert_int_equal(rig_wait_agents(r, 8, 20000), 0);
	assert_int_not_equal(rig_ctl(r, &o, &e, "run", "--algo", "fast",
	                             "--bytes", "1MiB", "--matrix", MATRIX,
	                             "--gpus-per-server", "4", NULL),
	                     0);
	if (strstr(e, "local link") == NULL)
		fail_msg("not named: %s", e);
	print_message("%s", e);
	assert_non_null(strstr(e, "node "));
	free(o);
	free(e);
}

static void
expect_refused(struct rig *r, const char *want, ...)
{
	char   *argv[24], *o, *e;
	va_list ap;
	int     n = 0, rv;

	va_start(ap, want);
	while (n < 23 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	rv = rig_ctl(r, &o, &e, argv[0], argv[1], argv[2], argv[3], argv[4],
	             argv[5], argv[6], argv[7], argv[8], argv[9], argv[10],
	             NULL);
	assert_int_not_equal(rv, 0);
	if (strstr(e, want) == NULL)
		fail_msg("expected \"%s\", got: %s", want, e);
	free(o);
	free(e);
}

static void
test_servers_refused(void **state)
{
	struct rig *r = *state;

	expect_refused(r, "not 2 or more whole servers", "run", "--algo",
	               "fast", "--bytes", "1MiB", "--matrix", MATRIX,
	               "--gpus-per-server", "3", NULL, NULL);
	expect_refused(r, "only with a skewed planner", "run", "--algo",
	               "retri", "--bytes", "1MiB", "--nodes", "8",
	               "--gpus-per-server", "4", NULL, NULL);
	expect_refused(r, "--gpus-per-server \"9\"", "run", "--algo", "fast",
	               "--bytes", "1MiB", "--matrix", MATRIX,
	               "--gpus-per-server", "9", NULL, NULL);
	expect_refused(r, "--scaleup-bandwidth \"fast\"", "run", "--algo",
	               "fast", "--bytes", "1MiB", "--matrix", MATRIX,
	               "--scaleup-bandwidth", "fast", NULL);
	/* An agent that listens for no local link cannot be a GPU of a
	 * server. */
	proc_stop(&r->agent[2], SIGTERM);
	assert_int_equal(rig_wait_agents(r, 7, 20000), 0);
	assert_int_equal(rig_agent_opt(r, 2, "secret", "--local-link", "none"),
	                 0);
	assert_int_equal(rig_wait_agents(r, 8, 20000), 0);
	expect_refused(r, "agent h02 (node 2) has no local link", "run",
	               "--algo", "fast", "--bytes", "1MiB", "--matrix", MATRIX,
	               "--gpus-per-server", "4", NULL);
}

static void expect_refused(struct rig *r, const char *want, ...);

/* A size against the section's, and a run of part of a server: refused
 * before anything moves, the section and the host named. */
static void
test_servers_conf_refused(void **state)
{
	struct rig *r = *state;

	expect_refused(r,
	               "gpus-per-server 2: ocsd.conf's [servers] makes "
	               "servers of 4 (even (h06 h00 h02 h04))",
	               "run", "--algo", "fast", "--bytes", "1MiB", "--matrix",
	               MATRIX, "--gpus-per-server", "2", NULL);
	expect_refused(r,
	               "server even (h06 h00 h02 h04) of ocsd.conf's "
	               "[servers]: h06 is not among the run's 6 nodes",
	               "run", "--algo", "fast", "--bytes", "1MiB", "--matrix",
	               "zipf:6:0.8:5", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_servers_fast_g4_verified,
	                                    setup8, rig_teardown),
	    cmocka_unit_test_setup_teardown(
	        test_servers_local_link_fails_named, setup8, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_servers_refused, setup8,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_servers_from_conf,
	                                    setup8_conf, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_servers_conf_refused,
	                                    setup8_conf, rig_teardown),
	};

	return (cmocka_run_group_tests_name("servers", tests, NULL, NULL));
}
