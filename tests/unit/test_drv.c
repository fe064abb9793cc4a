/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_drv.c: the driver registry and the wrappers every
 * caller goes through, on the real in-process emu driver: names, the
 * checks made before a driver sees a batch, read-back sizes, optional
 * ops, and the error texts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "ocs-drivers/drv.h"

static struct drv *
open_emu(uint32_t ports)
{
	struct drv_opts o = {.timeout_ms = 1000, .ports = ports};
	struct drv     *d;

	assert_int_equal(drv_open(&d, "emu", "", &o), 0);
	assert_non_null(d);
	return (d);
}

static void
test_drv_open_refusals(void **state)
{
	struct drv_opts o = {.timeout_ms = 1000};
	struct drv     *d = (struct drv *)&o;

	(void)state;
	assert_int_equal(drv_open(&d, "cisco", "x", &o), -DRV_EUNKNOWN);
	assert_null(d);
	assert_int_equal(drv_open(&d, "emu", "", NULL), -EINVAL);
	o.timeout_ms = 0;
	assert_int_equal(drv_open(&d, "emu", "", &o), -EINVAL);
	assert_null(drv_lookup("nope"));
	assert_string_equal(drv_lookup("polatis")->name, "polatis");
	assert_non_null(strstr(drv_names(), "calient"));
}

static void
test_drv_apply_checks_ports_first(void **state)
{
	struct drv      *d = open_emu(8);
	struct drv_caps  c;
	uint16_t         map[9], disc[1];
	struct drv_patch p[2];
	struct drv_batch b = {.connect = p};

	(void)state;
	assert_int_equal(drv_caps(d, &c), 0);
	assert_int_equal(c.nports, 8);
	/* Egress out of range, ingress on the egress side, a port twice. */
	p[0] = (struct drv_patch){1, 17};
	b.nconnect = 1;
	assert_int_equal(drv_apply(d, &b), -DRV_EPORT);
	p[0] = (struct drv_patch){9, 10};
	assert_int_equal(drv_apply(d, &b), -DRV_EPORT);
	p[0] = (struct drv_patch){1, 9};
	p[1] = (struct drv_patch){2, 9};
	b.nconnect = 2;
	assert_int_equal(drv_apply(d, &b), -EINVAL);
	disc[0] = 0;
	b = (struct drv_batch){.disconnect = disc, .ndisconnect = 1};
	assert_int_equal(drv_apply(d, &b), -DRV_EPORT);
	/* None of it reached the switch. */
	assert_int_equal(drv_read_map(d, map, 8), 0);
	for (int i = 1; i <= 8; i++)
		assert_int_equal(map[i], 0);
	/* An empty batch is nothing to do. */
	b = (struct drv_batch){0};
	assert_int_equal(drv_apply(d, &b), 0);
	p[0] = (struct drv_patch){1, 9};
	b = (struct drv_batch){.connect = p, .nconnect = 1};
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 8), 0);
	assert_int_equal(map[1], 9);
	/* Refused by the device: its words come back. */
	p[0] = (struct drv_patch){2, 9};
	assert_int_equal(drv_apply(d, &b), -DRV_EDENIED);
	assert_non_null(strstr(drv_last_error(d), "already patched"));
	drv_close(d);
}

static void
test_drv_read_back_and_ports(void **state)
{
	struct drv           *d = open_emu(4);
	struct drv_port_state st[2];
	uint16_t              map[9], ports[2] = {1, 8};

	(void)state;
	assert_int_equal(drv_read_map(d, map, 8), -EINVAL); /* wrong size */
	assert_int_equal(drv_ports_state(d, ports, 2, st), 0);
	ports[1] = 9;
	assert_int_equal(drv_ports_state(d, ports, 2, st), -DRV_EPORT);
	drv_close(d);
	drv_close(NULL);
}

static void
test_drv_strerror(void **state)
{
	(void)state;
	assert_string_equal(drv_strerror(-DRV_EPORT), "port out of range");
	assert_string_equal(drv_strerror(-ETIMEDOUT), strerror(ETIMEDOUT));
	assert_string_equal(drv_strerror(-DRV_EMAX), "unknown error");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drv_open_refusals),
	    cmocka_unit_test(test_drv_apply_checks_ports_first),
	    cmocka_unit_test(test_drv_read_back_and_ports),
	    cmocka_unit_test(test_drv_strerror),
	};

	return (cmocka_run_group_tests_name("drv", tests, NULL, NULL));
}
