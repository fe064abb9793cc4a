/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_faults.c: the switch control path under every fault
 * ocs-emu injects (refused logins, dropped connections, replies later
 * than the driver timeout, a batch refused half way, garbage, slow
 * switching, a lost port), through each driver (polatis over TL1, calient
 * over REST).  For each: ocsctl gets one clear line naming the switch and
 * the device's words, never a success for a circuit that is not there;
 * ocsd keeps answering; and once the fault is gone the switch holds
 * exactly the desired map.  Last, a collective run aborts cleanly when
 * its reconfiguration fails.
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

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/rig.h"

#define NHOSTS 4

static struct rig *
up(const char *driver, int agents)
{
	struct rig_opts o = {.switch_time = "20ms",
	                     .driver = driver,
	                     .timeout = "1s",
	                     .no_agents = !agents};
	struct rig     *r = rig_up_opts(agents ? 3 : NHOSTS, &o);

	assert_non_null(r);
	return (r);
}

static int
setup_polatis(void **state)
{
	*state = up("polatis", 0);
	return (0);
}

static int
setup_calient(void **state)
{
	*state = up("calient", 0);
	return (0);
}

static int
is_calient(struct rig *r)
{
	char  path[300], buf[4096];
	FILE *f;
	int   yes;

	snprintf(path, sizeof(path), "%s/ocsd.conf", r->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	yes = strstr(buf, "driver = calient") != NULL;
	return (yes);
}

/* ocsctl must fail with one line holding every needle; stdout empty. */
static void
expect_fail(struct rig *r, const char *n1, const char *n2, ...)
{
	char   *o, *e;
	char   *argv[8];
	int     k = 0, rv;
	va_list ap;

	va_start(ap, n2);
	while (k < 7 && (argv[k] = va_arg(ap, char *)) != NULL)
		k++;
	va_end(ap);
	rv = rig_ctl(r, &o, &e, argv[0], k > 1 ? argv[1] : NULL,
	             k > 2 ? argv[2] : NULL, k > 3 ? argv[3] : NULL, NULL);
	if (getenv("OCS_TEST_VERBOSE"))
		fprintf(stderr, "  ocsctl %s: %s", argv[0], e);
	if (rv != 1 || proc_nlines(e) != 1 || o[0] != '\0' ||
	    strstr(e, n1) == NULL || (n2 && strstr(e, n2) == NULL))
		fail_msg("exit %d, stderr \"%s\" (want one line with \"%s\" "
		         "and \"%s\"), stdout \"%s\"",
		         rv, e, n1, n2 ? n2 : "", o);
	free(o);
	free(e);
}

static void
ok(struct rig *r, const char *a1, const char *a2, const char *a3)
{
	char *o, *e;
	int   rv = rig_ctl(r, &o, &e, a1, a2, a3, NULL);

	if (rv != 0)
		fail_msg("ocsctl %s %s %s: exit %d: %s", a1, a2 ? a2 : "",
		         a3 ? a3 : "", rv, e);
	free(o);
	free(e);
}

/* The switch's map, read over TL1 (whatever ocsd's driver is). */
static void
switch_map(struct rig *r, uint16_t *map, uint32_t n)
{
	struct drv_opts o = {
	    .user = "root", .password = "root", .timeout_ms = 2000};
	struct drv *d;

	assert_int_equal(drv_open(&d, "polatis", r->tl1, &o), 0);
	assert_int_equal(drv_read_map(d, map, n), 0);
	drv_close(d);
}

/* Faults off: ocsd must see the switch holding its desired map, and
 * report circuits that really are on the switch. */
static json_t *
consistent(struct rig *r)
{
	char        *o, *e;
	json_t      *j, *s;
	json_error_t je;
	int          i, rv = -1;

	assert_int_equal(rig_fault(r, "none"), 0);
	/* ocsd reconnects with backoff: give it a moment. */
	for (i = 0; i < 60 && rv != 0; i++) {
		rv = rig_ctl(r, &o, &e, "-j", "map", "diff", NULL);
		if (rv != 0) {
			free(o);
			free(e);
			mono_sleep_ms(100);
		}
	}
	assert_int_equal(rv, 0);
	j = json_loads(o, 0, &je);
	if (j == NULL || !json_is_true(json_object_get(j, "in_sync")))
		fail_msg("not in sync after the fault: %s", o);
	free(o);
	free(e);
	json_decref(j);
	assert_int_equal(rig_ctl(r, &o, &e, "-j", "show", NULL), 0);
	s = json_loads(o, 0, &je);
	assert_non_null(s);
	free(o);
	free(e);
	return (s);
}

static size_t
ncircuits(json_t *show)
{
	size_t n = json_array_size(json_object_get(show, "circuits"));

	json_decref(show);
	return (n);
}

static void
test_fault_refused_login(void **state)
{
	struct rig *r = *state;
	int         cal = is_calient(r);

	/* TL1: the session has to be made again (drop) and is refused;
	 * REST: the session cookie and Basic auth are refused at once. */
	assert_int_equal(rig_fault(r, cal ? "login" : "login,drop=1"), 0);
	expect_fail(r, cal ? "HTTP 401" : "PICC Permission denied",
	            cal ? r->rest : r->tl1, "connect", "h00.0", "h01.1", NULL);
	/* Still serving, and saying why the switch is down. */
	{
		char *o, *e;

		assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
		assert_non_null(strstr(o, "NOT CONNECTED"));
		assert_non_null(strstr(o, "refused"));
		free(o);
		free(e);
	}
	assert_int_equal(ncircuits(consistent(r)), 0);
	ok(r, "connect", "h00.0", "h01.1");
	assert_int_equal(ncircuits(consistent(r)), 1);
}

static void
test_fault_dropped_connections(void **state)
{
	struct rig *r = *state;
	char       *o, *e;
	int         k, rv, done = 0;

	/* Every few commands the switch hangs up: each attempt either
	 * succeeds (and is really there) or fails naming the switch. */
	for (k = 0; k < 6; k++) {
		char a[16], b[16];

		assert_int_equal(rig_fault(r, k % 2 ? "drop=3" : "drop=5"), 0);
		snprintf(a, sizeof(a), "h%02d.0", k % NHOSTS);
		snprintf(b, sizeof(b), "h%02d.1", (k + 1) % NHOSTS);
		rv = rig_ctl(r, &o, &e, "connect", a, b, NULL);
		if (rv == 0)
			done++;
		else if (proc_nlines(e) != 1 || strstr(e, "switch ") == NULL)
			fail_msg("exit %d: %s", rv, e);
		free(o);
		free(e);
		json_decref(consistent(r));
		{
			uint16_t map[2 * NHOSTS + 3];

			switch_map(r, map, 2 * NHOSTS + 2);
			/* h0k.0 TX is ingress 2k+1: patched iff it worked. */
			if (rv == 0)
				assert_int_not_equal(map[2 * (k % NHOSTS) + 1],
				                     0);
		}
		rig_ctl(r, &o, &e, "clear", NULL);
		free(o);
		free(e);
	}
	(void)done;
}

static void
test_fault_delay_beyond_timeout(void **state)
{
	struct rig *r = *state;
	uint64_t    t0;
	char       *o, *e;

	assert_int_equal(rig_fault(r, "delay=4000ms"), 0);
	t0 = mono_ms();
	expect_fail(r, "timed out", NULL, "connect", "h00.0", "h01.1", NULL);
	/* Bounded by the 1 s timeout (a read-back and a reconnection
	 * attempt on top), not by the switch. */
	assert_true(mono_ms() - t0 < 6000);
	/* Operators are still answered while the switch sits on its
	 * replies: well before it answers (4 s).  The bound is the whole
	 * ocsctl process, whose start and exit alone took 0.5-0.7 s under
	 * ASan (LeakSanitizer's scan) at load 15-50. */
	t0 = mono_ms();
	assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
	if (mono_ms() - t0 >= 2000)
		fail_msg("status took %llu ms with the switch hung",
		         (unsigned long long)(mono_ms() - t0));
	free(o);
	free(e);
	mono_sleep_ms(4100); /* late replies drain */
	assert_int_equal(ncircuits(consistent(r)), 0);
}

static void
test_fault_deny_half(void **state)
{
	struct rig *r = *state;
	char        path[300];
	uint16_t    map[2 * NHOSTS + 3];
	FILE       *f;
	int         i;

	snprintf(path, sizeof(path), "%s/ring.map", r->dir);
	f = fopen(path, "w");
	for (i = 0; i < NHOSTS; i++)
		fprintf(f, "h%02d.0 h%02d.1\n", i, (i + 1) % NHOSTS);
	fclose(f);
	assert_int_equal(rig_fault(r, "deny-half"), 0);
	expect_fail(r, "Equipment fault", "rolled back", "apply", path, NULL);
	/* Said once: what the switch said, and that it was undone. */
	{
		char *o, *e, *p;
		int   n = 0;

		assert_int_equal(rig_fault(r, "deny-half"), 0);
		assert_int_equal(rig_ctl(r, &o, &e, "apply", path, NULL), 1);
		for (p = e; (p = strstr(p, "rolled back")) != NULL; p++)
			n++;
		assert_int_equal(n, 1);
		assert_null(strstr(e, "half applied"));
		assert_non_null(strstr(e, "stopped part way"));
		free(o);
		free(e);
	}
	/* Nothing of it stays on the switch. */
	switch_map(r, map, 2 * NHOSTS + 2);
	for (i = 1; i <= 2 * NHOSTS + 2; i++)
		assert_int_equal(map[i], 0);
	assert_int_equal(ncircuits(consistent(r)), 0);
	ok(r, "apply", path, NULL);
	assert_int_equal(ncircuits(consistent(r)), NHOSTS);
}

static void
test_fault_garbage(void **state)
{
	struct rig *r = *state;

	assert_int_equal(rig_fault(r, "garbage"), 0);
	expect_fail(r, is_calient(r) ? "not JSON" : "garbage", NULL, "connect",
	            "h00.0", "h01.1", NULL);
	/* Whether the switch acted or not, ocsd puts it back. */
	assert_int_equal(ncircuits(consistent(r)), 0);
}

static void
test_fault_slow_switching(void **state)
{
	struct rig *r = *state;
	char       *o, *e;

	/* 10 x 20 ms: still inside the timeout, so it works, slowly, and
	 * ocsd says so. */
	assert_int_equal(rig_fault(r, "slow"), 0);
	ok(r, "connect", "h00.0", "h01.1");
	assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
	assert_non_null(strstr(o, "warning: slow"));
	free(o);
	free(e);
	assert_int_equal(ncircuits(consistent(r)), 1);
	/* Back to its speed: the warning goes with the cause (issue 11). */
	assert_int_equal(rig_fault(r, "none"), 0);
	ok(r, "connect", "h02.0", "h03.1");
	assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
	assert_null(strstr(o, "warning: slow"));
	free(o);
	free(e);
}

static void
test_fault_lost_port(void **state)
{
	struct rig *r = *state;
	char        lose[32], rx[64];
	int         P = 2 * NHOSTS + 2;

	/* h01.1's RX is egress P + 4: its port dies. */
	snprintf(lose, sizeof(lose), "lose=%d", P + 4);
	snprintf(rx, sizeof(rx), "%d (h01.1 RX)", P + 4);
	assert_int_equal(rig_fault(r, lose), 0);
	expect_fail(r, rx, "rolled back", "connect", "h00.0", "h01.1", NULL);
	/* Circuits not through that port still work. */
	ok(r, "connect", "h02.0", "h03.1");
	assert_int_equal(ncircuits(consistent(r)), 1);
}

/* A failed ingress: no light from the host into the circuit.  TL1 has
 * no FAILED state, so only the power reading at the ingress shows it
 * (issue 11). */
static void
test_fault_lost_ingress(void **state)
{
	struct rig *r = *state;

	/* h00.0's TX is ingress 1. */
	assert_int_equal(rig_fault(r, "lose=1"), 0);
	expect_fail(r, "1 (h00.0 TX)", "rolled back", "connect", "h00.0",
	            "h01.1", NULL);
	ok(r, "connect", "h02.0", "h03.1");
	assert_int_equal(ncircuits(consistent(r)), 1);
	/* none means a healthy switch: the port is back. */
	assert_int_equal(rig_fault(r, "none"), 0);
	ok(r, "connect", "h00.0", "h01.1");
	assert_int_equal(ncircuits(consistent(r)), 2);
}

/* A run whose reconfiguration the switch refuses half way. */
static void
test_fault_run_aborts(void **state)
{
	struct rig *r;
	char       *o, *e;
	int         rv;

	(void)state;
	r = up("polatis", 1);
	assert_int_equal(rig_fault(r, "deny-half"), 0);
	rv = rig_ctl(r, &o, &e, "run", "--algo", "retri", "--bytes", "64KiB",
	             NULL);
	if (rv == 0 || strstr(e, "aborted") == NULL ||
	    strstr(e, "Equipment fault") == NULL)
		fail_msg("exit %d: %s %s", rv, o, e);
	free(o);
	free(e);
	/* The agents are idle again and the next run works. */
	assert_int_equal(rig_wait_agents(r, 3, 10000), 0);
	assert_int_equal(rig_fault(r, "none"), 0);
	rv = rig_ctl(r, &o, &e, "run", "--algo", "retri", "--bytes", "64KiB",
	             NULL);
	if (rv != 0)
		fail_msg("exit %d: %s", rv, e);
	free(o);
	free(e);
	/* The switch goes away (logins refused), then comes back: the
	 * first run after it does not fail with the old error. */
	assert_int_equal(rig_fault(r, "login,drop=1"), 0);
	assert_int_equal(rig_ctl(r, &o, &e, "connect", "h00.0", "h01.1", NULL),
	                 1);
	free(o);
	free(e);
	assert_int_equal(rig_ctl(r, &o, &e, "status", NULL), 0);
	assert_non_null(strstr(o, "NOT CONNECTED"));
	free(o);
	free(e);
	assert_int_equal(rig_fault(r, "none"), 0);
	rv = rig_ctl(r, &o, &e, "run", "--algo", "retri", "--bytes", "64KiB",
	             NULL);
	if (rv != 0)
		fail_msg("the run after the fault cleared: exit %d: %s", rv,
		         e);
	free(o);
	free(e);
	assert_int_equal(rig_down(r), 0);
}

#define BOTH(fn)                                                              \
	{#fn "/polatis", fn, setup_polatis, rig_teardown, NULL},              \
	{                                                                     \
#fn "/calient", fn, setup_calient, rig_teardown, NULL         \
	}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    BOTH(test_fault_refused_login),
	    BOTH(test_fault_dropped_connections),
	    BOTH(test_fault_delay_beyond_timeout),
	    BOTH(test_fault_deny_half),
	    BOTH(test_fault_garbage),
	    BOTH(test_fault_slow_switching),
	    BOTH(test_fault_lost_port),
	    BOTH(test_fault_lost_ingress),
	    cmocka_unit_test(test_fault_run_aborts),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("faults", tests, NULL, NULL));
}
