/* SPDX-License-Identifier: BSD-2-Clause */
/* tests/unit/test_units.c: sizes, times and rates as users type them. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "collectives/coll.h"
#include "proto/base/units.h"

static void
test_unit_size_every_suffix(void **state)
{
	static const struct {
		const char *in;
		uint64_t    want;
	} ok[] = {
	    {"0", 0},
	    {"17", 17},
	    {"17B", 17},
	    {"1KB", 1000},
	    {"1MB", 1000000},
	    {"1GB", 1000000000},
	    {"2TB", 2000000000000ULL},
	    {"1KiB", 1024},
	    {"1MiB", 1048576},
	    {"1GiB", 1073741824},
	    {"1TiB", 1099511627776ULL},
	    {"1.5KiB", 1536},
	    {"0.5MB", 500000},
	    {"64MiB", 67108864},
	    {"1.", 1},
	};
	uint64_t b;
	size_t   i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(unit_parse_size(ok[i].in, &b), 0);
		assert_int_equal(b, ok[i].want);
	}
}

static void
test_unit_size_rejects_bad_input(void **state)
{
	static const struct {
		const char *in;
		int         rv;
	} bad[] = {
	    {"", -UNIT_ENONUM},
	    {"MiB", -UNIT_ENONUM},
	    {"-1", -UNIT_ENONUM},
	    {"+1", -UNIT_ENONUM},
	    {"1e6", -UNIT_EUNIT},
	    {"0x10", -UNIT_EUNIT},
	    {"inf", -UNIT_ENONUM},
	    {"nan", -UNIT_ENONUM},
	    {"1..2", -UNIT_ENONUM},
	    {".", -UNIT_ENONUM},
	    {"1XB", -UNIT_EUNIT},
	    {"1mib", -UNIT_EUNIT},
	    {"1 MiB", -UNIT_EUNIT},
	    {"1.5", -UNIT_EFRAC},
	    {"0.1B", -UNIT_EFRAC},
	    {"2PiB", -UNIT_EUNIT},
	    {"999999999999999999999", -UNIT_ERANGE},
	    {"99999999999999999999999999999999999999999999999999999999999"
	     "999999",
	     -UNIT_ENONUM},
	};
	uint64_t b = 42;
	size_t   i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(unit_parse_size(bad[i].in, &b), bad[i].rv);
		assert_int_equal(b, 42);
	}
}

static void
test_unit_time_every_suffix(void **state)
{
	double t;

	(void)state;
	assert_int_equal(unit_parse_time("1ns", &t), 0);
	assert_true(t == 1e-9);
	assert_int_equal(unit_parse_time("1.7us", &t), 0);
	assert_true(t == 1.7 * 1e-6);
	assert_int_equal(unit_parse_time("1.7\xc2\xb5s", &t), 0);
	assert_true(t == 1.7 * 1e-6);
	assert_int_equal(unit_parse_time("25ms", &t), 0);
	assert_true(t == 25 * 1e-3);
	assert_int_equal(unit_parse_time("2s", &t), 0);
	assert_true(t == 2);
	assert_int_equal(unit_parse_time("0", &t), 0);
	assert_true(t == 0);
	assert_int_equal(unit_parse_time("0.0", &t), 0);
	assert_true(t == 0);
}

static void
test_unit_time_rejects_bad_input(void **state)
{
	double t = 7;

	(void)state;
	assert_int_equal(unit_parse_time("25", &t), -UNIT_ENOUNIT);
	assert_int_equal(unit_parse_time("1h", &t), -UNIT_EUNIT);
	assert_int_equal(unit_parse_time("1 us", &t), -UNIT_EUNIT);
	assert_int_equal(unit_parse_time("1US", &t), -UNIT_EUNIT);
	assert_int_equal(unit_parse_time("-1us", &t), -UNIT_ENONUM);
	assert_int_equal(unit_parse_time("us", &t), -UNIT_ENONUM);
	assert_int_equal(unit_parse_time("", &t), -UNIT_ENONUM);
	assert_int_equal(unit_parse_time("2000000s", &t), -UNIT_ERANGE);
	assert_true(t == 7);
}

static void
test_unit_rate_every_suffix(void **state)
{
	double r;

	(void)state;
	assert_int_equal(unit_parse_rate("100bps", &r), 0);
	assert_true(r == 100);
	assert_int_equal(unit_parse_rate("1Kbps", &r), 0);
	assert_true(r == 1e3);
	assert_int_equal(unit_parse_rate("10Mbps", &r), 0);
	assert_true(r == 10e6);
	assert_int_equal(unit_parse_rate("400Gbps", &r), 0);
	assert_true(r == 400e9);
	assert_int_equal(unit_parse_rate("1.6Tbps", &r), 0);
	assert_true(r == 1.6e12);
	assert_int_equal(unit_parse_rate("25GBps", &r), 0);
	assert_true(r == 200e9);
	assert_int_equal(unit_parse_rate("1GiBps", &r), 0);
	assert_true(r == 8.0 * 1073741824);
	assert_int_equal(unit_parse_rate("1Bps", &r), 0);
	assert_true(r == 8);
}

static void
test_unit_rate_rejects_bad_input(void **state)
{
	double r = 3;

	(void)state;
	assert_int_equal(unit_parse_rate("0Gbps", &r), -UNIT_ERANGE);
	assert_int_equal(unit_parse_rate("400", &r), -UNIT_ENOUNIT);
	assert_int_equal(unit_parse_rate("400gbps", &r), -UNIT_EUNIT);
	assert_int_equal(unit_parse_rate("400Gb", &r), -UNIT_EUNIT);
	assert_int_equal(unit_parse_rate("Gbps", &r), -UNIT_ENONUM);
	assert_int_equal(unit_parse_rate("-4Gbps", &r), -UNIT_ENONUM);
	assert_true(r == 3);
}

static void
test_unit_formats(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(unit_fmt_time(1.7e-6, b, sizeof(b)), "1.7 us");
	assert_string_equal(unit_fmt_time(0.025, b, sizeof(b)), "25 ms");
	assert_string_equal(unit_fmt_time(0, b, sizeof(b)), "0 s");
	assert_string_equal(unit_fmt_time(5e-9, b, sizeof(b)), "5 ns");
	assert_string_equal(unit_fmt_size(1048576, b, sizeof(b)), "1 MiB");
	assert_string_equal(unit_fmt_size(1000, b, sizeof(b)), "1000 B");
	assert_string_equal(unit_fmt_size(1536, b, sizeof(b)), "1536 B");
	assert_string_equal(unit_fmt_rate(400e9, b, sizeof(b)), "400 Gbps");
	assert_string_equal(unit_fmt_rate(1e6, b, sizeof(b)), "1 Mbps");
}

static void
test_coll_strerror_covers_both_ranges(void **state)
{
	(void)state;
	assert_string_equal(coll_strerror(-UNIT_EUNIT), "unknown unit");
	assert_string_equal(coll_strerror(-ENOMEM), "Cannot allocate memory");
	assert_string_equal(coll_strerror(-COLL_EMAX), "unknown error");
	assert_string_equal(coll_strerror(0), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unit_size_every_suffix),
	    cmocka_unit_test(test_unit_size_rejects_bad_input),
	    cmocka_unit_test(test_unit_time_every_suffix),
	    cmocka_unit_test(test_unit_time_rejects_bad_input),
	    cmocka_unit_test(test_unit_rate_every_suffix),
	    cmocka_unit_test(test_unit_rate_rejects_bad_input),
	    cmocka_unit_test(test_unit_formats),
	    cmocka_unit_test(test_coll_strerror_covers_both_ranges),
	};

	return (cmocka_run_group_tests_name("units", tests, NULL, NULL));
}
