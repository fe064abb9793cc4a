/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_emu_cap.c: ocs-emu's capture accounting, fed frames
 * without libpcap (emu_cap_frame): a stray frame with a later run id
 * amid a run does not end it (the rest of the run is still counted), a
 * later run that is really under way does, frames of an earlier run are
 * nobody's, and the query says the capture's own drops.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/base/mono.h"
#include "testbed/ocs-emu/emu_cap.h"

static int
setup(void **state)
{
	struct emu_cap *c;

	assert_int_equal(emu_cap_new(&c, 4), 0);
	*state = c;
	return (0);
}

static int
teardown(void **state)
{
	emu_cap_close(*state);
	return (0);
}

/* n frames of run on port p, phase k, at t0, t0 + 1 us, ... */
static void
feed(struct emu_cap *c, uint32_t run, uint32_t p, uint32_t k, int n, double t0)
{
	struct cap_frame f = {.port = p, .run = run, .phase = k, .src = 1};
	int              i;

	for (i = 0; i < n; i++) {
		f.t = t0 + i * 1e-6;
		emu_cap_frame(c, &f);
	}
}

static void
query_is(struct emu_cap *c, uint32_t run, const char *want)
{
	char out[1024];

	assert_int_equal(emu_cap_query(c, run, out, sizeof(out)), 0);
	if (strncmp(out, want, strlen(want)) != 0)
		fail_msg("run %x: %s, not %s", run, out, want);
}

/* One frame of a later run amid run 100: run 100 goes on being seen. */
static void
test_stray_later_frame(void **state)
{
	struct emu_cap *c = *state;
	char            out[256];

	feed(c, 100, 1, 0, 50, 1.0);
	feed(c, 0x7e57, 2, 3, 1, 1.1); /* a stray: later id */
	feed(c, 100, 1, 0, 50, 1.2);
	feed(c, 100, 0, 1, 2, 1.3); /* and unlit ones of run 100 */
	query_is(c, 100, "FRAMES=100,UNLIT=2,DROPS=0,FIRST=1/1");
	assert_int_equal(emu_cap_query(c, 0x7e57, out, sizeof(out)), -ENOENT);
}

/* A later run that is under way (many frames, none of the last run
 * between): the last is over and kept, the new one counted from its
 * first frame. */
static void
test_next_run(void **state)
{
	struct emu_cap *c = *state;

	feed(c, 100, 1, 0, 30, 1.0);
	feed(c, 101, 2, 0, 40, 2.0);
	query_is(c, 100, "FRAMES=30,UNLIT=0,DROPS=0");
	query_is(c, 101, "FRAMES=40,UNLIT=0,DROPS=0");
}

/* A few frames of a later run, then the last run quiet: it begins. */
static void
test_next_run_after_quiet(void **state)
{
	struct emu_cap *c = *state;

	feed(c, 100, 1, 0, 30, 1.0);
	feed(c, 101, 2, 0, 3, 2.0);
	mono_sleep_ms(40);
	query_is(c, 101, "FRAMES=3,UNLIT=0,DROPS=0");
	query_is(c, 100, "FRAMES=30,UNLIT=0,DROPS=0");
}

/* Frames of an earlier run (an aborted one draining) count for none. */
static void
test_earlier_run_ignored(void **state)
{
	struct emu_cap *c = *state;

	feed(c, 100, 1, 0, 10, 1.0);
	feed(c, 99, 1, 0, 10, 1.1);
	feed(c, 100, 1, 1, 10, 1.2);
	query_is(c, 100, "FRAMES=20,UNLIT=0,DROPS=0");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stray_later_frame, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_next_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_next_run_after_quiet, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_earlier_run_ignored, setup,
	                                    teardown),
	};

	return (cmocka_run_group_tests_name("emu_cap", tests, NULL, NULL));
}
