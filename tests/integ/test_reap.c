/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_reap.c: the check that every test, bench and make run
 * leaves no process behind (tests/lib/reap.c) does catch one: a child
 * left running, a daemon that detached, and passes a clean command.
 */
#include <errno.h>
#include <libgen.h>
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

#include "tests/lib/proc.h"

/* reap sits beside this test's binary. */
static const char *
reap_path(char *buf, size_t len)
{
	char    self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(n > 0);
	self[n] = '\0';
	snprintf(buf, len, "%s/reap", dirname(self));
	return (buf);
}

static int
reap_sh(const char *script, char **err)
{
	char  r[600], *o;
	char *argv[] = {(char *)(uintptr_t)reap_path(r, sizeof(r)), "sh", "-c",
	                (char *)(uintptr_t)script, NULL};
	int   rv = proc_run(argv, &o, err);

	free(o);
	return (rv);
}

static void
test_reap_finds_leftovers(void **state)
{
	char *e;

	(void)state;
	assert_int_equal(reap_sh("exit 3", &e), 3);
	assert_string_equal(e, "");
	free(e);
	/* A child left running. */
	assert_int_equal(reap_sh("sleep 57 & exit 0", &e), 125);
	assert_non_null(strstr(e, "left behind"));
	assert_non_null(strstr(e, "sleep 57"));
	free(e);
	/* A daemon that detached (its own session, its parent gone). */
	assert_int_equal(reap_sh("(setsid sleep 58 &); exit 0", &e), 125);
	assert_non_null(strstr(e, "sleep 58"));
	free(e);
	/* One that stops by itself in time is not held against anyone. */
	assert_int_equal(reap_sh("sleep 0.3 & exit 0", &e), 0);
	free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reap_finds_leftovers),
	};

	return (cmocka_run_group_tests_name("reap", tests, NULL, NULL));
}
