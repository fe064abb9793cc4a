/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_xc.c: cabling-map translation (transceivers and ports
 * into patches, busy checks, whole maps, circuits) and the map module
 * (batches, atomic save and load).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocsd/xc.h"

/* An 8x8 switch, four transceivers on two hosts. */
#define CABLING                                                               \
	"[switch]\ndriver = emu\nports = 8\n[cabling]\n"                      \
	"h0.0 = 1 9\nh0.1 = 2 10\nh1.0 = 3 11\nh1.1 = 4 12\n"

static int
setup(void **state)
{
	struct conf *c;
	char         err[256];

	if (conf_parse(CABLING, "x", &c, err, sizeof(err)) != 0)
		return (-1);
	*state = c;
	return (0);
}

static int
teardown(void **state)
{
	conf_free(*state);
	return (0);
}

static void
test_xc_connect_transceivers_is_two_patches(void **state)
{
	struct conf     *c = *state;
	struct map       d, l;
	struct drv_patch p[2];
	size_t           np;
	char             err[256];

	map_init(&d, 8);
	map_init(&l, 8);
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h0.0", "h1.1", p, &np, err, sizeof(err)),
	    0);
	assert_int_equal(np, 2);
	assert_int_equal(p[0].in, 1);   /* h0.0 TX */
	assert_int_equal(p[0].out, 12); /* h1.1 RX */
	assert_int_equal(p[1].in, 4);
	assert_int_equal(p[1].out, 9);
	/* Ports, either order. */
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "13", "5", p, &np, err, sizeof(err)), 0);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].in, 5);
	assert_int_equal(p[0].out, 13);
	/* A loopback is one patch. */
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h0.0", "h0.0", p, &np, err, sizeof(err)),
	    0);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].out, 9);
	map_free(&d);
	map_free(&l);
}

static void
test_xc_connect_refusals(void **state)
{
	struct conf     *c = *state;
	struct map       d, l;
	struct drv_patch p[2];
	size_t           np;
	char             err[256];

	map_init(&d, 8);
	map_init(&l, 8);
	l.out[1] = 11; /* live: h0.0 -> h1.0 */
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h0.0", "h1.1", p, &np, err, sizeof(err)),
	    -DRV_EBUSY);
	assert_string_equal(
	    err,
	    "ingress 1 (h0.0 TX) is patched to 11 (h1.0 RX) on the switch's "
	    "map; disconnect it first");
	d.out[2] = 12; /* desired: h0.1 -> h1.1 */
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h1.0", "h1.1", p, &np, err, sizeof(err)),
	    -DRV_EBUSY);
	assert_string_equal(
	    err,
	    "egress 12 (h1.1 RX) is fed by ingress 2 (h0.1 TX) on the desired "
	    "map; disconnect it first");
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h9.0", "h1.1", p, &np, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "unknown transceiver \"h9.0\""));
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h0.0", "5", p, &np, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "connect two transceivers"));
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "5", "6", p, &np, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "ingress port (1..8)"));
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "17", "6", p, &np, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "port 17 is not on a 8x8 switch"));
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "5x", "6", p, &np, err, sizeof(err)),
	    -EINVAL);
	map_free(&d);
	map_free(&l);
}

static void
test_xc_disconnect_both_maps(void **state)
{
	struct conf *c = *state;
	struct map   d, l;
	uint16_t     ins[4];
	size_t       n;
	char         err[256];

	map_init(&d, 8);
	map_init(&l, 8);
	d.out[1] = 12; /* desired h0.0 <-> h1.1 */
	d.out[4] = 9;
	l.out[1] = 12; /* live has lost one direction, and an odd patch */
	l.out[6] = 9;
	assert_int_equal(
	    xc_disconnect(c, 0, &d, &l, "h0.0", ins, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ins[0], 1);
	assert_int_equal(ins[1], 4);
	assert_int_equal(ins[2], 6);
	assert_int_equal(
	    xc_disconnect(c, 0, &d, &l, "12", ins, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ins[0], 1);
	assert_int_equal(
	    xc_disconnect(c, 0, &d, &l, "h0.1", ins, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	map_free(&d);
	map_free(&l);
}

static void
test_xc_build_whole_map(void **state)
{
	struct conf *c = *state;
	struct map   t;
	char *a[3] = {"h0.0", "h0.1", "5"}, *b[3] = {"h1.1", "h1.0", "16"};
	char  err[256];

	assert_int_equal(xc_build(c, 0, 8, a, b, 3, &t, err, sizeof(err)), 0);
	assert_int_equal(map_count(&t), 5);
	assert_int_equal(t.out[2], 11);
	assert_int_equal(t.out[5], 16);
	map_free(&t);
	b[2] = "h1.0";
	a[2] = "h0.0";
	assert_int_equal(xc_build(c, 0, 8, a, b, 3, &t, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "entry 3: h0.0 h1.0: port 1 (h0.0 TX) "
	                            "is already used by entry 1"));
	a[2] = "h7.0";
	assert_int_equal(xc_build(c, 0, 8, a, b, 3, &t, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "entry 3: unknown transceiver"));
}

static void
test_xc_circuits(void **state)
{
	struct conf      *c = *state;
	struct map        m;
	struct xc_circuit cv[4];

	map_init(&m, 8);
	m.out[1] = 12;
	m.out[4] = 9;  /* h0.0 <-> h1.1 */
	m.out[2] = 11; /* h0.1 -> h1.0 only */
	assert_int_equal(xc_circuits(c, 0, &m, cv, 4), 2);
	assert_string_equal(cv[0].a->name, "h0.0");
	assert_string_equal(cv[0].b->name, "h1.1");
	assert_true(cv[0].complete);
	assert_string_equal(cv[1].a->name, "h0.1");
	assert_false(cv[1].complete);
	map_free(&m);
}

/* A fabric: each switch's requests take its transceivers only, and a
 * transceiver of another switch is refused with both switches named;
 * circuits and port names are a switch's own (the same numbers on two
 * switches are two ports). */
static void
test_xc_fabric(void **state)
{
	struct conf      *c;
	struct map        d, l, t;
	struct drv_patch  p[2];
	struct xc_circuit cv[4];
	size_t            np;
	char              err[256], buf[64];
	char             *a[] = {"h0.1"}, *b[] = {"h1.1"};

	(void)state;
	assert_int_equal(
	    conf_parse("[switch A]\ndriver = emu\n[switch B]\ndriver = emu\n"
	               "[cabling]\nh0.0 = A 1 9\nh1.0 = A 2 10\n"
	               "h0.1 = B 1 9\nh1.1 = B 2 10\n",
	               "x", &c, err, sizeof(err)),
	    0);
	map_init(&d, 8);
	map_init(&l, 8);
	assert_int_equal(
	    xc_connect(c, 1, &d, &l, "h0.1", "h1.1", p, &np, err, sizeof(err)),
	    0);
	assert_int_equal(np, 2);
	assert_int_equal(p[0].in, 1);
	assert_int_equal(p[0].out, 10);
	assert_int_equal(
	    xc_connect(c, 0, &d, &l, "h0.0", "h1.1", p, &np, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(
	    strstr(err, "transceiver h1.1 is cabled to switch B, not A"));
	assert_int_equal(xc_build(c, 0, 8, a, b, 1, &t, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "entry 1: "));
	assert_int_equal(xc_build(c, 1, 8, a, b, 1, &t, err, sizeof(err)), 0);
	assert_int_equal(t.out[1], 10);
	/* B's map holds h0.1 <-> h1.1: its circuit is B's transceivers'. */
	t.out[2] = 9;
	assert_int_equal(xc_circuits(c, 1, &t, cv, 4), 1);
	assert_string_equal(cv[0].a->name, "h0.1");
	assert_string_equal(cv[0].b->name, "h1.1");
	assert_true(cv[0].complete);
	assert_string_equal(xc_port_name(c, 0, 8, 1, buf, sizeof(buf)),
	                    "1 (h0.0 TX)");
	assert_string_equal(xc_port_name(c, 1, 8, 1, buf, sizeof(buf)),
	                    "1 (h0.1 TX)");
	map_free(&t);
	map_free(&d);
	map_free(&l);
	conf_free(c);
}

static void
test_map_batch_and_delta(void **state)
{
	struct map       from, to;
	struct map_batch mb;
	struct drv_patch p = {3, 10};
	uint16_t         in = 1;

	(void)state;
	map_init(&from, 8);
	map_init(&to, 8);
	from.out[1] = 9;
	from.out[2] = 10;
	from.out[3] = 11;
	to.out[1] = 9;  /* kept */
	to.out[3] = 10; /* re-pointed onto 2's old egress */
	to.out[4] = 12; /* new */
	assert_int_equal(map_batch(&from, &to, &mb), 0);
	assert_int_equal(mb.b.ndisconnect, 2); /* 2 and 3 */
	assert_int_equal(mb.disc[0], 2);
	assert_int_equal(mb.disc[1], 3);
	assert_int_equal(mb.b.nconnect, 2);
	assert_int_equal(mb.conn[0].in, 3);
	assert_int_equal(mb.conn[1].in, 4);
	map_batch_free(&mb);
	/* Deltas: disconnect 1, connect 3 -> 10 (steals 2's egress). */
	xc_delta(&from, &in, 1, &p, 1);
	assert_int_equal(from.out[1], 0);
	assert_int_equal(from.out[2], 0);
	assert_int_equal(from.out[3], 10);
	map_free(&from);
	map_free(&to);
}

static void
test_map_save_load(void **state)
{
	struct map m, r;
	char       dir[] = "/tmp/test-map-XXXXXX", path[64], err[256];
	FILE      *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/desired.map", dir);
	assert_int_equal(map_load(path, &r, err, sizeof(err)), -ENOENT);
	map_init(&m, 8);
	m.out[1] = 12;
	m.out[8] = 9;
	assert_int_equal(map_save(path, &m), 0);
	assert_int_equal(map_load(path, &r, err, sizeof(err)), 0);
	assert_true(map_equal(&m, &r));
	map_free(&r);
	/* A corrupt file is refused with its line. */
	f = fopen(path, "w");
	fprintf(f, "ports 8\n1 12\n2 12\n");
	fclose(f);
	assert_int_equal(map_load(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "desired.map:3: bad line \"2 12\""));
	f = fopen(path, "w");
	fprintf(f, "1 12\n");
	fclose(f);
	assert_int_equal(map_load(path, &r, err, sizeof(err)), -EINVAL);
	unlink(path);
	rmdir(dir);
	map_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_xc_connect_transceivers_is_two_patches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xc_connect_refusals, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xc_disconnect_both_maps,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_xc_build_whole_map, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_xc_circuits, setup, teardown),
	    cmocka_unit_test(test_xc_fabric),
	    cmocka_unit_test(test_map_batch_and_delta),
	    cmocka_unit_test(test_map_save_load),
	};

	return (cmocka_run_group_tests_name("xc", tests, NULL, NULL));
}
