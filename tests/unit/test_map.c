/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_map.c: cross-connect maps: comparison, the batch that
 * turns one into another, and the saved desired map (written, read back,
 * refused when malformed, never half written).
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
#include <sys/stat.h>
#include <unistd.h>

#include "ocsd/map.h"
#include "proto/base/path.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ocs-test-map-XXXXXX");
	return (mkdtemp(dir) == NULL ? -1 : 0);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return (system(cmd) == 0 ? 0 : -1);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_map_compare(void **state)
{
	struct map a, b = {0};

	(void)state;
	assert_int_equal(map_init(&a, 4), 0);
	a.out[1] = 6;
	a.out[3] = 5;
	assert_int_equal(map_copy(&b, &a), 0);
	assert_true(map_equal(&a, &b));
	assert_int_equal(map_count(&a), 2);
	assert_int_equal(map_in_of(&a, 5), 3);
	assert_int_equal(map_in_of(&a, 7), 0);
	b.out[3] = 0;
	assert_false(map_equal(&a, &b));
	map_free(&a);
	map_free(&b);
	assert_null(b.out);
}

static void
test_map_batch(void **state)
{
	struct map       from, to;
	struct map_batch mb;

	(void)state;
	assert_int_equal(map_init(&from, 4), 0);
	assert_int_equal(map_init(&to, 4), 0);
	from.out[1] = 5; /* kept */
	from.out[2] = 6; /* moved to 7 */
	from.out[3] = 8; /* removed */
	to.out[1] = 5;
	to.out[2] = 7;
	to.out[4] = 8; /* new */
	assert_int_equal(map_batch(&from, &to, &mb), 0);
	assert_int_equal(mb.b.ndisconnect, 2);
	assert_int_equal(mb.b.disconnect[0], 2);
	assert_int_equal(mb.b.disconnect[1], 3);
	assert_int_equal(mb.b.nconnect, 2);
	assert_int_equal(mb.b.connect[0].in, 2);
	assert_int_equal(mb.b.connect[0].out, 7);
	assert_int_equal(mb.b.connect[1].in, 4);
	assert_int_equal(mb.b.connect[1].out, 8);
	map_batch_free(&mb);
	map_free(&to);
	assert_int_equal(map_init(&to, 5), 0);
	assert_int_equal(map_batch(&from, &to, &mb), -EINVAL);
	map_free(&from);
	map_free(&to);
}

static void
test_map_save_and_load(void **state)
{
	struct map  m, back;
	char        path[128], tmp[140], err[256];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/desired.map", dir);
	assert_int_equal(map_load(path, &back, err, sizeof(err)), -ENOENT);
	assert_int_equal(map_init(&m, 16), 0);
	m.out[1] = 17;
	m.out[16] = 32;
	assert_int_equal(map_save(path, &m), 0);
	/* No temporary left behind. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(stat(tmp, &st), -1);
	assert_int_equal(map_load(path, &back, err, sizeof(err)), 0);
	assert_true(map_equal(&m, &back));
	map_free(&back);
	/* Into a directory that is not there: an error, not a crash. */
	snprintf(path, sizeof(path), "%s/gone/desired.map", dir);
	assert_int_equal(map_save(path, &m), -ENOENT);
	map_free(&m);
}

static void
test_map_load_refuses(void **state)
{
	static const char *bad[] = {
	    "1 5\n",                /* no ports line first */
	    "ports 0\n",            /* no switch */
	    "ports 4 x\n",          /* trailing junk */
	    "ports 4\n1 4\n",       /* egress on the ingress side */
	    "ports 4\n1 5\n2 5\n",  /* egress twice */
	    "ports 4\n1 5\n1 6\n",  /* ingress twice */
	    "ports 4\n9 5\n",       /* ingress out of range */
	    "ports 4\n1 5 6\n",     /* three numbers */
	    "# only a comment\n\n", /* nothing */
	};
	struct map m;
	char       path[128], err[256];
	size_t     i;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.map", dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, bad[i]);
		err[0] = '\0';
		if (map_load(path, &m, err, sizeof(err)) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_non_null(strstr(err, "bad.map"));
		assert_null(m.out);
	}
	write_file(path, "# ocsd\nports 4\n\n1 5\n# c\n4 8\n");
	assert_int_equal(map_load(path, &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 4);
	assert_int_equal(map_count(&m), 2);
	map_free(&m);
}

/* The base's whole-or-nothing write (the map, the run's intent, a
 * model): the new content replaces the old, no .tmp stays behind, and a
 * failure leaves the old file as it was. */
static void
test_path_write_atomic(void **state)
{
	char  path[128], tmp[140], got[64] = "";
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/intent", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(path_write_atomic(path, "old\n", 4, 0640), 0);
	assert_int_equal(path_write_atomic(path, "new one\n", 8, 0640), 0);
	assert_int_not_equal(access(tmp, F_OK), 0);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "new one\n");
	/* Its temporary file cannot be made: nothing changes. */
	assert_int_equal(mkdir(tmp, 0700), 0);
	assert_int_equal(path_write_atomic(path, "lost\n", 5, 0640), -EISDIR);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "new one\n");
	rmdir(tmp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_map_compare),
	    cmocka_unit_test(test_map_batch),
	    cmocka_unit_test(test_map_save_and_load),
	    cmocka_unit_test(test_map_load_refuses),
	    cmocka_unit_test(test_path_write_atomic),
	};

	return (cmocka_run_group_tests_name("map", tests, setup, teardown));
}
