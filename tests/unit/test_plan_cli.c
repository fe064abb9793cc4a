/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_plan_cli.c: ocs-plan's option parser, every unit and
 * every kind of bad input, each error naming the option and the value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/msccl.h"
#include "collectives/plan_cli.h"

#define ARGV(...) ((char *[]){"ocs-plan", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)) - 1)
#define PARSE(o, e, ...)                                                      \
	plan_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (e), sizeof(e))

static void
test_plan_cli_defaults(void **state)
{
	struct plan_opts o;
	char             err[256];

	(void)state;
	assert_int_equal(PARSE(&o, err, "--algo", "retri", "--nodes", "27"),
	                 0);
	assert_string_equal(o.algo, "retri");
	assert_int_equal(o.nodes, 27);
	assert_int_equal(o.bytes, 1048576);
	assert_true(o.rate == 400e9);
	assert_true(o.alpha_s == 1.7e-6);
	assert_true(o.alpha_h == 1e-6);
	assert_int_equal(o.ndelay, 1);
	assert_true(o.delay[0] == 1e-6);
	assert_int_equal(o.reconf, PLAN_RECONF_AUTO);
	assert_false(o.validate || o.phases || o.json);
}

static void
test_plan_cli_all_options(void **state)
{
	struct plan_opts o;
	char             err[256];

	(void)state;
	assert_int_equal(
	    PARSE(&o, err, "--algo", "bridge", "--nodes", "64", "--bytes",
	          "64MB", "--delay", "1ms,2ms,3us,4ns,0,5s", "--alpha-s",
	          "2us", "--alpha-h", "500ns", "--bandwidth", "100Gbps",
	          "--reconfig", "2,4,5", "--validate", "--phases", "--json"),
	    0);
	assert_int_equal(o.bytes, 64000000);
	assert_int_equal(o.ndelay, 6);
	assert_true(o.delay[0] == 1e-3);
	assert_true(o.delay[2] == 3e-6);
	assert_true(o.delay[3] == 4e-9);
	assert_true(o.delay[4] == 0);
	assert_true(o.delay[5] == 5);
	assert_true(o.alpha_s == 2e-6);
	assert_true(o.alpha_h == 500 * 1e-9);
	assert_true(o.rate == 100e9);
	assert_int_equal(o.reconf, PLAN_RECONF_LIST);
	assert_int_equal(o.nrlist, 3);
	assert_int_equal(o.rlist[2], 5);
	assert_true(o.validate && o.phases && o.json);
	assert_int_equal(plan_check(&o, 7, err, sizeof(err)), 0);
	/* Equals-sign forms and the other reconfig words. */
	assert_int_equal(PARSE(&o, err, "--algo=static", "--nodes=5",
	                       "--reconfig=none", "--bytes=3KiB"),
	                 0);
	assert_int_equal(o.reconf, PLAN_RECONF_NONE);
	assert_int_equal(o.bytes, 3072);
	assert_int_equal(PARSE(&o, err, "--algo", "retri", "--nodes", "9",
	                       "--reconfig", "all"),
	                 0);
	assert_int_equal(o.reconf, PLAN_RECONF_ALL);
	assert_int_equal(PARSE(&o, err, "--help"), 0);
	assert_true(o.help);
}

/* Each bad input: rejected, and the message names option and value. */
static void
bad(int rv, const char *err, const char *opt, const char *val)
{
	assert_int_equal(rv, -EINVAL);
	if (strstr(err, opt) == NULL || strstr(err, val) == NULL)
		fail_msg("error \"%s\" must name %s and %s", err, opt, val);
	assert_null(strchr(err, '\n'));
}

static void
test_plan_cli_bad_inputs(void **state)
{
	struct plan_opts o;
	char             e[256];

	(void)state;
	bad(PARSE(&o, e, "--algo", "pairwise", "--nodes", "9"), e, "--algo",
	    "pairwise");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "1"), e, "--nodes",
	    "\"1\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "0"), e, "--nodes",
	    "\"0\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "-3"), e, "--nodes",
	    "-3");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "nine"), e, "--nodes",
	    "nine");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "27x"), e, "--nodes",
	    "27x");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "99999999999999"), e,
	    "--nodes", "99999999999999");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--bytes", "1XB"),
	    e, "--bytes", "1XB");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--bytes", "1.5"),
	    e, "--bytes", "1.5");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--bytes", "-1"),
	    e, "--bytes", "-1");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--delay", "5"), e,
	    "--delay", "\"5\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--delay",
	          "1us,,2us"),
	    e, "--delay", "1us,,2us");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--delay", "1us,"),
	    e, "--delay", "1us,");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--delay",
	          "1us,2hours"),
	    e, "--delay", "2hours");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--alpha-s",
	          "fast"),
	    e, "--alpha-s", "fast");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--alpha-h", "1"),
	    e, "--alpha-h", "\"1\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--bandwidth",
	          "400"),
	    e, "--bandwidth", "400");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--bandwidth",
	          "0Gbps"),
	    e, "--bandwidth", "0Gbps");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig",
	          "2,1"),
	    e, "--reconfig", "2,1");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig",
	          "1,1"),
	    e, "--reconfig", "1,1");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig", "0"),
	    e, "--reconfig", "\"0\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig",
	          "sometimes"),
	    e, "--reconfig", "sometimes");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig",
	          "1,"),
	    e, "--reconfig", "1,");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--reconfig", ""),
	    e, "--reconfig", "\"\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--chunk", "0"), e,
	    "--chunk", "0");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--frobnicate"), e,
	    "--frobnicate", "unknown");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "extra"), e,
	    "extra", "unexpected");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes"), e, "--nodes",
	    "missing");
	bad(PARSE(&o, e, "--nodes", "9"), e, "--algo", "missing");
	bad(PARSE(&o, e, "--algo", "retri"), e, "--nodes", "missing");
}

static void
test_plan_cli_checks_against_phases(void **state)
{
	struct plan_opts o;
	char             e[256];

	(void)state;
	/* retri with 27 nodes has 3 phases: boundaries 1 and 2. */
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "27",
	                       "--reconfig", "1,3"),
	                 0);
	bad(plan_check(&o, 3, e, sizeof(e)), e, "--reconfig", "1,3");
	assert_non_null(strstr(e, "phase 3 out of range 1..2"));
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "27",
	                       "--delay", "1us,2us,3us"),
	                 0);
	bad(plan_check(&o, 3, e, sizeof(e)), e, "--delay", "1us,2us,3us");
	assert_non_null(strstr(e, "expected 1 or 2"));
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "27",
	                       "--delay", "1us,2us"),
	                 0);
	assert_int_equal(plan_check(&o, 3, e, sizeof(e)), 0);
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "3",
	                       "--delay", "1us,2us"),
	                 0);
	bad(plan_check(&o, 1, e, sizeof(e)), e, "--delay", "1us,2us");
}

/* --planes: the ring algorithms on planes, with --transceivers. */
static void
test_plan_cli_planes(void **state)
{
	struct plan_opts o;
	char             e[256];

	(void)state;
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "9"), 0);
	assert_int_equal(o.planes_mode, PLANES_NONE);
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "27",
	                       "--planes", "auto", "--transceivers", "4"),
	                 0);
	assert_int_equal(o.planes_mode, PLANES_AUTO);
	assert_int_equal(o.planes, 4);
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "9",
	                       "--planes", "apart"),
	                 0);
	assert_int_equal(o.planes_mode, PLANES_APART);
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--planes",
	          "sideways"),
	    e, "--planes", "sideways");
	bad(PARSE(&o, e, "--algo", "fast", "--matrix", "uniform:8:1024",
	          "--planes", "apart"),
	    e, "--planes", "ring algorithms");
	/* --transceivers without --planes stays the skewed planners'. */
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--transceivers",
	          "4"),
	    e, "--transceivers", "--matrix");
}

/* The MSCCL runtime an export is for: --msccl-dialect, --max-steps. */
static void
test_plan_cli_msccl_runtime(void **state)
{
	struct plan_opts  o;
	struct msccl_opts m;
	char              e[256];

	(void)state;
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "9",
	                       "--export", "msccl", "x"),
	                 0);
	plan_msccl_opts(&o, &m);
	assert_int_equal(m.dialect, MSCCL_CURRENT);
	assert_int_equal(m.max_steps, 0);
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "9",
	                       "--msccl-dialect", "legacy", "--max-steps",
	                       "256", "--export", "msccl", "x"),
	                 0);
	plan_msccl_opts(&o, &m);
	assert_int_equal(m.dialect, MSCCL_LEGACY);
	assert_int_equal(m.max_steps, 256);
	assert_int_equal(PARSE(&o, e, "--algo", "retri", "--nodes", "9",
	                       "--max-steps", "1024", "--export", "msccl",
	                       "x"),
	                 0);
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--msccl-dialect",
	          "rccl", "--export", "msccl", "x"),
	    e, "--msccl-dialect", "rccl");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--max-steps", "0",
	          "--export", "msccl", "x"),
	    e, "--max-steps", "\"0\"");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--max-steps",
	          "1025", "--export", "msccl", "x"),
	    e, "--max-steps", "1025");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--max-steps",
	          "64x", "--export", "msccl", "x"),
	    e, "--max-steps", "64x");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--msccl-dialect",
	          "legacy", "--max-steps", "300", "--export", "msccl", "x"),
	    e, "--max-steps", "300");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--max-steps",
	          "64"),
	    e, "--max-steps", "only with --export msccl");
	bad(PARSE(&o, e, "--algo", "retri", "--nodes", "9", "--msccl-dialect",
	          "legacy", "--export", "chakra", "x"),
	    e, "--msccl-dialect", "only with --export msccl");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_cli_defaults),
	    cmocka_unit_test(test_plan_cli_all_options),
	    cmocka_unit_test(test_plan_cli_bad_inputs),
	    cmocka_unit_test(test_plan_cli_msccl_runtime),
	    cmocka_unit_test(test_plan_cli_planes),
	    cmocka_unit_test(test_plan_cli_checks_against_phases),
	};

	return (cmocka_run_group_tests_name("plan_cli", tests, NULL, NULL));
}
