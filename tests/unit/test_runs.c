/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_runs.c: ocsd's kept runs (runs.c): a record appended
 * after a torn last line (a crash mid-write) is not glued to it and lost,
 * the torn tail is cut at start, a line too long to keep is read past
 * without being held, and a record too long to read back is kept without
 * its timeline.  The index (runs_index.c) answers as the file does: a
 * run's record, the newest RUNS_LIST_MAX, the last of an id written
 * twice, after the file was trimmed, rewritten or added to by hand.
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

#include "ocsd/runs.h"

static char dir[64], path[128];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ocs-test-runs-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return (-1);
	snprintf(path, sizeof(path), "%s/runs.jsonl", dir);
	return (0);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd) == 0 ? 0 : -1);
}

static json_t *
rec(uint64_t id)
{
	json_t *o = json_object();

	json_object_set_new(o, "run_id", json_integer((json_int_t)id));
	json_object_set_new(o, "algo", json_string("retri"));
	return (o);
}

static void
append_text(const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static size_t
count(uint64_t id)
{
	json_t *all;
	char    err[256];
	size_t  n;

	assert_int_equal(runs_read(path, id, &all, err, sizeof(err)), 0);
	n = json_array_size(all);
	json_decref(all);
	return (n);
}

static void
test_runs_torn_tail(void **state)
{
	json_t *r;
	size_t  cut;

	(void)state;
	r = rec(1);
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	/* A crash while the next was written: no newline at the end. */
	append_text("{\"run_id\": 2, \"algo\": \"ret");
	r = rec(3);
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	assert_int_equal(count(0), 2);
	assert_int_equal(count(3), 1);
	/* At start the torn tail is cut back to the last whole line. */
	append_text("{\"run_id\": 4, \"al");
	assert_int_equal(runs_repair(path, &cut), 0);
	assert_int_equal(cut, strlen("{\"run_id\": 4, \"al"));
	assert_int_equal(runs_repair(path, &cut), 0);
	assert_int_equal(cut, 0);
	r = rec(5);
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	assert_int_equal(count(0), 3);
}

static void
test_runs_long_lines(void **state)
{
	FILE   *f;
	json_t *r, *all, *big;
	char    err[256];
	size_t  i;

	(void)state;
	/* A line longer than a record may be: read past, not held. */
	assert_non_null(f = fopen(path, "w"));
	fputs("{\"run_id\": 7, \"x\": \"", f);
	for (i = 0; i < RUNS_LINE_MAX / 4096 + 8; i++)
		fprintf(f, "%4096d", 0);
	fputs("\"}\n", f);
	fclose(f);
	r = rec(8);
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	assert_int_equal(runs_read(path, 0, &all, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(all), 1);
	json_decref(all);
	/* A record too long to keep whole loses its timeline, says so. */
	r = rec(9);
	big = json_array();
	for (i = 0; i < RUNS_LINE_MAX / 32; i++)
		json_array_append_new(big,
		                      json_string("0123456789abcdef0123456"
		                                  "789abcdef0123456789"));
	json_object_set_new(r, "timeline", big);
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	assert_int_equal(runs_read(path, 9, &all, err, sizeof(err)), 0);
	r = json_array_get(all, 0);
	assert_null(json_object_get(r, "timeline"));
	assert_non_null(json_object_get(r, "timeline_dropped"));
	json_decref(all);
}

/* The algo of run id through the index, or "" when it is not there. */
static const char *
algo_of(struct runs_index *ix, uint64_t id, char *buf, size_t len)
{
	json_t *all = NULL;
	char    err[256];
	int     rv = runs_index_read(ix, id, &all, err, sizeof(err));

	buf[0] = '\0';
	if (rv == -ENOENT) {
		assert_non_null(strstr(err, "not in"));
		return (buf);
	}
	assert_int_equal(rv, 0);
	assert_int_equal(json_array_size(all), 1);
	assert_int_equal(json_integer_value(json_object_get(
	                     json_array_get(all, 0), "run_id")),
	                 id);
	snprintf(buf, len, "%s",
	         json_string_value(
	             json_object_get(json_array_get(all, 0), "algo")));
	json_decref(all);
	return (buf);
}

static json_t *
rec_algo(uint64_t id, const char *algo)
{
	json_t *o = rec(id);

	json_object_set_new(o, "algo", json_string(algo));
	return (o);
}

static void
test_runs_index(void **state)
{
	struct runs_index *ix;
	json_t            *r, *all, *want;
	char               b[64], err[256];
	uint64_t           i;

	(void)state;
	/* Made from a file that was there, then kept as it grows. */
	r = rec_algo(1, "one");
	assert_int_equal(runs_append(path, r), 0);
	json_decref(r);
	append_text("not json\n");
	assert_non_null(ix = runs_index_new(path));
	assert_string_equal(algo_of(ix, 1, b, sizeof(b)), "one");
	for (i = 2; i <= RUNS_LIST_MAX + 10; i++) {
		r = rec_algo(i, i % 2 ? "odd" : "even");
		assert_int_equal(runs_index_append(ix, r), 0);
		json_decref(r);
	}
	assert_string_equal(algo_of(ix, 7, b, sizeof(b)), "odd");
	assert_string_equal(algo_of(ix, RUNS_LIST_MAX + 10, b, sizeof(b)),
	                    "even");
	assert_string_equal(algo_of(ix, RUNS_LIST_MAX + 11, b, sizeof(b)), "");
	/* The listing is the file's newest, as read whole. */
	assert_int_equal(runs_index_read(ix, 0, &all, err, sizeof(err)), 0);
	assert_int_equal(runs_read(path, 0, &want, err, sizeof(err)), 0);
	assert_int_equal(json_array_size(all), RUNS_LIST_MAX);
	assert_true(json_equal(all, want));
	json_decref(all);
	json_decref(want);
	/* Twice the same id (by hand): the last. */
	r = rec_algo(7, "again");
	assert_int_equal(runs_index_append(ix, r), 0);
	json_decref(r);
	assert_string_equal(algo_of(ix, 7, b, sizeof(b)), "again");
	/* Added to by another hand: found. */
	append_text("{\"run_id\": 500, \"algo\": \"hand\"}\n");
	assert_string_equal(algo_of(ix, 500, b, sizeof(b)), "hand");
	/* Trimmed to fewer, shorter lines: each where it now is. */
	unlink(path);
	append_text("{\"run_id\": 9, \"algo\": \"nine\"}\n"
	            "{\"run_id\": 1, \"algo\": \"1\"}\n");
	assert_string_equal(algo_of(ix, 1, b, sizeof(b)), "1");
	assert_string_equal(algo_of(ix, 7, b, sizeof(b)), "");
	/* Rewritten to the same size, other ids at the same places. */
	unlink(path);
	append_text("{\"run_id\": 3, \"algo\": \"nine\"}\n"
	            "{\"run_id\": 2, \"algo\": \"1\"}\n");
	assert_string_equal(algo_of(ix, 2, b, sizeof(b)), "1");
	assert_string_equal(algo_of(ix, 1, b, sizeof(b)), "");
	/* Appended to again through the index after all that. */
	r = rec_algo(4, "four");
	assert_int_equal(runs_index_append(ix, r), 0);
	json_decref(r);
	assert_string_equal(algo_of(ix, 4, b, sizeof(b)), "four");
	assert_string_equal(algo_of(ix, 3, b, sizeof(b)), "nine");
	runs_index_free(ix);
	/* No file yet: nothing, then the first record. */
	unlink(path);
	assert_non_null(ix = runs_index_new(path));
	assert_string_equal(algo_of(ix, 1, b, sizeof(b)), "");
	r = rec_algo(1, "first");
	assert_int_equal(runs_index_append(ix, r), 0);
	json_decref(r);
	assert_string_equal(algo_of(ix, 1, b, sizeof(b)), "first");
	runs_index_free(ix);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_runs_torn_tail, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_runs_long_lines, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_runs_index, setup, teardown),
	};

	return (cmocka_run_group_tests_name("runs", tests, NULL, NULL));
}
