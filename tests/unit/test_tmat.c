/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_tmat.c: traffic matrices from CSV, JSON and the
 * generators; every malformed input refused with its row and column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectives/tmat.h"

static int
parse(const char *text, struct tmat *m, char *err, size_t len)
{
	return (tmat_parse(text, strlen(text), m, err, len));
}

static void
test_csv_and_json(void **state)
{
	struct tmat m;
	char        err[256];

	(void)state;
	assert_int_equal(parse("# bytes sent, row = source\n"
	                       "0, 10, 2KiB\n"
	                       "\n"
	                       "  5,0,0   # a comment\n"
	                       "1,2,0\n",
	                       &m, err, sizeof(err)),
	                 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(tmat_at(&m, 0, 2), 2048);
	assert_int_equal(tmat_at(&m, 1, 0), 5);
	assert_int_equal(tmat_row(&m, 0), 2058);
	assert_int_equal(tmat_col(&m, 0), 6);
	assert_int_equal(tmat_rho(&m), 2058);
	assert_int_equal(tmat_row_nnz(&m, 2), 2);
	tmat_free(&m);
	assert_int_equal(
	    parse(" {\"bytes\": [[0, 3], [4, 0]]}", &m, err, sizeof(err)), 0);
	assert_int_equal(tmat_at(&m, 1, 0), 4);
	tmat_free(&m);
	/* The diagonal is kept (it is local) but never counted. */
	assert_int_equal(parse("7,1\n1,7\n", &m, err, sizeof(err)), 0);
	assert_int_equal(tmat_rho(&m), 1);
	tmat_free(&m);
}

static void
test_bad_files_named(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"0,1\n1,x\n", "row 2, column 2: \"x\""},
	    {"0,1,2\n1,0\n", "row 2 has 2 columns, row 1 has 3"},
	    {"0,1\n1,0\n1,1\n", "more than 2 rows"},
	    {"0,1,1\n1,0,1\n", "2 rows for 3 columns"},
	    {"5\n", "at least 2"},
	    {"", "no rows"},
	    {"# only a comment\n", "no rows"},
	    {"0,-1\n1,0\n", "row 1, column 2"},
	    {"0,1\n,0\n", "row 2, column 1"},
	    {"0,1,\n1,0,0\n0,0,0\n", "row 1, column 3"},
	    {"{\"bytes\": [[0, 1], [1]]}", "row 2 must be an array of 2"},
	    {"{\"bytes\": [[0, 1], [1, -3]]}", "row 2, column 2"},
	    {"{\"bytes\": [[0, 1], [1, 0.5]]}", "row 2, column 2"},
	    {"{\"bytes\": [[0, 1], [1, 0]], \"x\": 1}", "unknown field"},
	    {"{\"bytes\": 3}", "array of 2.."},
	    {"{\"bytes\": [[0", "line 1"},
	};
	struct tmat m;
	char        err[256];
	size_t      i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse(bad[i].text, &m, err, sizeof(err)) != -EINVAL ||
		    strstr(err, bad[i].want) == NULL)
			fail_msg("%zu: \"%s\" -> \"%s\", want \"%s\"", i,
			         bad[i].text, err, bad[i].want);
		assert_null(m.b);
	}
	assert_int_equal(tmat_parse("0,1\n\0,0", 8, &m, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "binary"));
}

static void
test_generators(void **state)
{
	struct tmat a, b;
	char        err[256];
	uint64_t    tot = 0;
	uint32_t    i;

	(void)state;
	assert_int_equal(
	    tmat_generate("zipf:16:0.8:7", 1 << 20, &a, err, sizeof(err)), 0);
	assert_int_equal(
	    tmat_generate("zipf:16:0.8:7", 1 << 20, &b, err, sizeof(err)), 0);
	assert_memory_equal(a.b, b.b, 16 * 16 * sizeof(*a.b));
	for (i = 0; i < 16; i++) {
		assert_int_equal(tmat_at(&a, i, i), 0);
		tot += tmat_row(&a, i);
	}
	/* Scaled to 1 MiB a node on average (rounding per entry). */
	assert_true(tot > 16 * 1048576 - 256 && tot < 16 * 1048576 + 256);
	tmat_free(&b);
	assert_int_equal(
	    tmat_generate("zipf:16:0.8:8", 1 << 20, &b, err, sizeof(err)), 0);
	assert_memory_not_equal(a.b, b.b, 16 * 16 * sizeof(*a.b));
	tmat_free(&a);
	tmat_free(&b);
	assert_int_equal(
	    tmat_generate("uniform:4:1KiB", 0, &a, err, sizeof(err)), 0);
	assert_int_equal(tmat_at(&a, 2, 3), 1024);
	assert_int_equal(tmat_at(&a, 3, 3), 0);
	tmat_free(&a);
	assert_int_equal(
	    tmat_generate("hotspot:8:2:4", 7000, &a, err, sizeof(err)), 0);
	/* Four times as much to the hot nodes, to the rounding byte. */
	assert_true(tmat_at(&a, 5, 0) + 4 >= 4 * tmat_at(&a, 5, 3) &&
	            tmat_at(&a, 5, 0) <= 4 * tmat_at(&a, 5, 3) + 4);
	tmat_free(&a);
	assert_int_equal(
	    tmat_generate("moe:8:32:2:100:1", 1 << 20, &a, err, sizeof(err)),
	    0);
	assert_true(tmat_rho(&a) > 0);
	tmat_free(&a);
	/* Not a generator: a file name. */
	assert_int_equal(tmat_generate("matrix.csv", 0, &a, err, sizeof(err)),
	                 1);
}

static void
test_bad_generators_named(void **state)
{
	static const struct {
		const char *spec, *want;
	} bad[] = {
	    {"zipf:1:0.8:1", "N must be 2..1024"},
	    {"zipf:2000:0.8:1", "N must be 2..1024"},
	    {"zipf:8:x:1", "field 2 \"x\""},
	    {"zipf:8:0.8", "want zipf:N:S:SEED[:MAX]"},
	    {"zipf:8:0.8:1:0", "MAX must be"},
	    {"zipf:8::1", "empty"},
	    {"uniform:8:lots", "not a size"},
	    {"moe:8:4:5:10:1", "top-k must be 1..EXPERTS"},
	    {"moe:8:4:1:0:1", "tokens"},
	    {"hotspot:8:9:2", "K must be 1..N"},
	    {"hotspot:8:2:0", "factor"},
	    {"hotspot:8:2:2:", "empty or extra"},
	};
	struct tmat m;
	char        err[256];
	size_t      i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (tmat_generate(bad[i].spec, 1024, &m, err, sizeof(err)) !=
		        -EINVAL ||
		    strstr(err, bad[i].want) == NULL)
			fail_msg("%s -> \"%s\", want \"%s\"", bad[i].spec, err,
			         bad[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv_and_json),
	    cmocka_unit_test(test_bad_files_named),
	    cmocka_unit_test(test_generators),
	    cmocka_unit_test(test_bad_generators_named),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
