/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_oxc.c: the switch model (patches, busy ports, replace,
 * dark periods, shutters, power) and the driver wrappers over the
 * in-process emu driver (port checks, partial batches, device text).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/oxc.h"

#define MS 1000000ull

static void
test_oxc_connect_all_or_nothing(void **state)
{
	struct oxc       x;
	struct oxc_err   e;
	struct drv_patch ok[2] = {{1, 9}, {2, 10}};
	struct drv_patch badp[2] = {{3, 11}, {4, 4}};

	(void)state;
	assert_int_equal(oxc_init(&x, 8, 25 * MS), 0);
	assert_int_equal(oxc_connect(&x, ok, 2, 0, &e), 0);
	assert_int_equal(oxc_count(&x), 2);
	/* The second patch is bad: the first is not applied either. */
	assert_int_equal(oxc_connect(&x, badp, 2, 0, &e), -DRV_EPORT);
	assert_int_equal(e.code, -DRV_EPORT);
	assert_int_equal(e.port, 4);
	assert_int_equal(x.out_of[3], 0);
	/* Busy ports are refused with the current peer named. */
	badp[0] = (struct drv_patch){1, 12};
	assert_int_equal(oxc_connect(&x, badp, 1, 0, &e), -DRV_EBUSY);
	assert_int_equal(e.code, -DRV_EBUSY);
	assert_int_equal(e.port, 1);
	assert_int_equal(e.other, 9);
	badp[0] = (struct drv_patch){5, 10};
	assert_int_equal(oxc_connect(&x, badp, 1, 0, &e), -DRV_EBUSY);
	assert_int_equal(e.port, 10);
	assert_int_equal(e.other, 2);
	/* A port twice in one command. */
	badp[0] = (struct drv_patch){5, 13};
	badp[1] = (struct drv_patch){6, 13};
	assert_int_equal(oxc_connect(&x, badp, 2, 0, &e), -EINVAL);
	assert_int_equal(e.code, -EINVAL);
	assert_int_equal(e.port, 13);
	/* Re-entering an existing patch is a no-op. */
	assert_int_equal(oxc_connect(&x, ok, 1, 0, &e), 0);
	oxc_free(&x);
}

static void
test_oxc_replace_mode(void **state)
{
	struct oxc       x;
	struct oxc_err   e;
	struct drv_patch p = {1, 9};

	(void)state;
	assert_int_equal(oxc_init(&x, 8, 0), 0);
	x.busy_replace = 1;
	assert_int_equal(oxc_connect(&x, &p, 1, 0, &e), 0);
	p.out = 10;
	assert_int_equal(oxc_connect(&x, &p, 1, 0, &e), 0);
	assert_int_equal(x.out_of[1], 10);
	assert_int_equal(x.in_of[9], 0);
	p = (struct drv_patch){2, 10};
	assert_int_equal(oxc_connect(&x, &p, 1, 0, &e), 0);
	assert_int_equal(x.out_of[1], 0);
	assert_int_equal(x.out_of[2], 10);
	assert_int_equal(oxc_count(&x), 1);
	oxc_free(&x);
}

static void
test_oxc_dark_during_switching(void **state)
{
	struct oxc       x;
	struct oxc_err   e;
	struct drv_patch p = {1, 9};
	uint16_t         port = 9;

	(void)state;
	assert_int_equal(oxc_init(&x, 8, 25 * MS), 0);
	assert_int_equal(oxc_connect(&x, &p, 1, 100 * MS, &e), 0);
	assert_false(oxc_lit(&x, 1, 100 * MS));
	assert_false(oxc_lit(&x, 1, 124 * MS));
	assert_true(oxc_lit(&x, 1, 125 * MS));
	assert_true(oxc_power(&x, 9, 110 * MS) == OXC_NO_LIGHT);
	assert_true(oxc_power(&x, 9, 130 * MS) == OXC_LIT_DBM - OXC_LOSS_DB);
	assert_true(oxc_power(&x, 10, 130 * MS) == OXC_NO_LIGHT);
	assert_true(oxc_power(&x, 1, 0) == OXC_LIT_DBM);
	assert_int_equal(oxc_settled_at(&x), 125 * MS);
	/* A closed shutter or failed port stops the light. */
	x.closed[9] = 1;
	assert_false(oxc_lit(&x, 1, 200 * MS));
	x.closed[9] = 0;
	x.failed[1] = 1;
	assert_false(oxc_lit(&x, 1, 200 * MS));
	x.failed[1] = 0;
	/* Disconnect by the egress side. */
	assert_int_equal(oxc_disconnect(&x, &port, 1, 0, &e), 0);
	assert_int_equal(oxc_count(&x), 0);
	port = 17;
	assert_int_equal(oxc_disconnect(&x, &port, 1, 0, &e), -DRV_EPORT);
	assert_int_equal(e.code, -DRV_EPORT);
	oxc_free(&x);
}

static void
test_drv_emu_through_wrappers(void **state)
{
	struct drv_opts  o = {.timeout_ms = 1000, .ports = 8};
	struct drv      *d;
	struct drv_caps  c;
	struct drv_patch p[2] = {{1, 9}, {2, 10}};
	struct drv_batch b = {.connect = p, .nconnect = 2};
	uint16_t         map[9], disc[1] = {1};

	(void)state;
	assert_int_equal(drv_open(&d, "nope", "", &o), -DRV_EUNKNOWN);
	assert_null(d);
	assert_int_equal(drv_open(&d, "emu", "", &o), 0);
	assert_int_equal(drv_caps(d, &c), 0);
	assert_int_equal(c.nports, 8);
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 8), 0);
	assert_int_equal(map[1], 9);
	assert_int_equal(map[2], 10);
	assert_int_equal(map[3], 0);
	/* Wrappers check ports before the driver sees them. */
	p[0].out = 3;
	b.nconnect = 1;
	assert_int_equal(drv_apply(d, &b), -DRV_EPORT);
	p[0] = (struct drv_patch){3, 11};
	p[1] = (struct drv_patch){4, 11};
	b.nconnect = 2;
	assert_int_equal(drv_apply(d, &b), -EINVAL);
	/* Refused by the device: its text is kept. */
	p[0] = (struct drv_patch){3, 10};
	b.nconnect = 1;
	assert_int_equal(drv_apply(d, &b), -DRV_EDENIED);
	assert_string_equal(drv_last_error(d),
	                    "SNVS Port 10 already patched to 2");
	/* A disconnect that went through before the refusal: partial. */
	b.disconnect = disc;
	b.ndisconnect = 1;
	assert_int_equal(drv_apply(d, &b), -DRV_EPARTIAL);
	assert_int_equal(drv_read_map(d, map, 8), 0);
	assert_int_equal(map[1], 0);
	assert_int_equal(drv_read_map(d, map, 7), -EINVAL);
	assert_string_equal(drv_strerror(-DRV_EPARTIAL),
	                    "batch may be half applied");
	drv_close(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_oxc_connect_all_or_nothing),
	    cmocka_unit_test(test_oxc_replace_mode),
	    cmocka_unit_test(test_oxc_dark_during_switching),
	    cmocka_unit_test(test_drv_emu_through_wrappers),
	};

	return (cmocka_run_group_tests_name("oxc", tests, NULL, NULL));
}
