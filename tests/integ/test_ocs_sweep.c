/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_ocs_sweep.c: bin/ocs-sweep as a user runs it: a small
 * sweep with the simulator and plots (CSV complete, PNGs drawn, meta.json
 * read back), run again (nothing redone), interrupted half way and
 * resumed (no row lost or twice), and bad input (one line, exit 2).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/base/mono.h"
#include "tests/lib/proc.h"

static char *
sweep_bin(char *buf, size_t len)
{
	return ((char *)(uintptr_t)proc_bin("ocs-sweep", buf, len));
}

/* Rows of dir/sweep.csv (not the header), and whether any repeats. */
static int
rows(const char *dir, int *dups)
{
	char  path[300], line[1200], **seen = NULL;
	int   n = 0, i;
	FILE *f;

	*dups = 0;
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *key = line;
		int   c = 0;
		char *p;

		if (strncmp(line, "algo,", 5) == 0)
			continue;
		/* algo,nodes,bytes,delta_s identify a point */
		for (p = line; *p && c < 4; p++)
			c += *p == ',';
		p[-1] = '\0';
		for (i = 0; i < n; i++)
			*dups |= strcmp(seen[i], key) == 0;
		seen = realloc(seen, (size_t)(n + 1) * sizeof(*seen));
		seen[n++] = strdup(key);
	}
	fclose(f);
	for (i = 0; i < n; i++)
		free(seen[i]);
	free(seen);
	return (n);
}

static int
png_ok(const char *dir, const char *name)
{
	char        path[400], sig[8];
	struct stat st;
	FILE       *f;
	int         ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) != 0 || st.st_size < 5000 ||
	    (f = fopen(path, "r")) == NULL)
		return (0);
	ok = fread(sig, 1, 8, f) == 8 &&
	     memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0;
	fclose(f);
	return (ok);
}

static void
test_small_sweep_plots_resume(void **state)
{
	char   *dir = proc_tmpdir("sweep"), bin[256], *o, *e, path[300];
	char   *argv[] = {sweep_bin(bin, sizeof(bin)),
	                  "--algo",
	                  "retri,static",
	                  "--nodes",
	                  "9,27",
	                  "--bytes",
	                  "64KiB,16MiB",
	                  "--delay",
	                  "10us,10ms",
	                  "--simulate",
	                  "--plots",
	                  "--out",
	                  dir,
	                  NULL};
	json_t *meta;
	int     dups;

	(void)state;
	assert_int_equal(proc_run(argv, &o, &e), 0);
	free(o);
	free(e);
	assert_int_equal(rows(dir, &dups), 16);
	assert_false(dups);
	assert_true(png_ok(dir, "heat-retri-9-vs-static-9.png"));
	assert_true(png_ok(dir, "heat-retri-27-vs-static-27.png"));
	assert_true(png_ok(dir, "time-65536.png"));
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	assert_non_null(meta = json_load_file(path, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(meta, "model"), "name")),
	                    "default");
	assert_int_equal(json_integer_value(json_object_get(meta, "points")),
	                 16);
	json_decref(meta);
	/* Again: every point is there already. */
	assert_int_equal(proc_run(argv, &o, &e), 0);
	assert_non_null(strstr(e, "16 points done before, resuming"));
	free(o);
	free(e);
	assert_int_equal(rows(dir, &dups), 16);
	assert_false(dups);
	proc_rmtree(dir);
	free(dir);
}

/* Interrupted half way, then the same command: every point once. */
static void
test_interrupt_and_resume(void **state)
{
	char       *dir = proc_tmpdir("sweep"), bin[256], *o, *e, log[300];
	char       *argv[] = {sweep_bin(bin, sizeof(bin)),
	                      "--algo",
	                      "retri,bridge,static",
	                      "--nodes",
	                      "9,27",
	                      "--bytes",
	                      "1KiB..16MiB*2",
	                      "--delay",
	                      "1us..1s*2",
	                      "--simulate",
	                      "--out",
	                      dir,
	                      NULL};
	struct proc p;
	int         dups, n, st, want = 3 * 2 * 15 * 20;

	(void)state;
	snprintf(log, sizeof(log), "%s/err.log", dir);
	assert_int_equal(proc_start(&p, argv, log), 0);
	mono_sleep_ms(700);
	kill(p.pid, SIGINT);
	st = proc_wait(&p, 20000);
	n = rows(dir, &dups);
	if (st == 0)
		fprintf(stderr, "(the sweep finished before the signal)\n");
	else
		assert_int_equal(st, 130);
	assert_true(n > 0 && n <= want);
	assert_false(dups);
	assert_int_equal(proc_run(argv, &o, &e), 0);
	free(o);
	free(e);
	assert_int_equal(rows(dir, &dups), want);
	assert_false(dups);
	proc_rmtree(dir);
	free(dir);
}

static void
bad(const char *opt, const char *val, const char *says)
{
	char  bin[256], *o, *e;
	char *argv[] = {sweep_bin(bin, sizeof(bin)),
	                "--algo",
	                "retri",
	                "--nodes",
	                "9",
	                "--bytes",
	                "1MiB",
	                "--delay",
	                "1ms",
	                (char *)(uintptr_t)opt,
	                (char *)(uintptr_t)val,
	                NULL};

	assert_int_equal(proc_run(argv, &o, &e), 2);
	if (!strstr(e, says))
		fprintf(stderr, "%s %s said: %s", opt, val, e);
	assert_non_null(strstr(e, says));
	assert_ptr_equal(strchr(e, '\n'), e + strlen(e) - 1); /* one line */
	free(o);
	free(e);
}

static void
test_bad_input(void **state)
{
	(void)state;
	bad("--nodes", "0", "--nodes \"0\"");
	bad("--bytes", "1MiB..1KiB*2", "--bytes");
	bad("--delay", "1ms..2ms*1", "--delay");
	bad("--algo", "foo", "--algo \"foo\"");
	bad("--reconfig", "some", "--reconfig \"some\"");
	bad("--compare", "retri/static", "--compare");
	bad("--preset", "nope", "--preset \"nope\"");
	bad("--model", "/nonexistent/model.ini", "--model");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_sweep_plots_resume),
	    cmocka_unit_test(test_interrupt_and_resume),
	    cmocka_unit_test(test_bad_input),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
