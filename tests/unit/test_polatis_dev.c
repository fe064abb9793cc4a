/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_polatis_dev.c: the polatis driver against scripted
 * devices with replies a real Polatis gives that ocs-emu does not: an
 * unnamed switch whose SID is "( nil )" (Quali's driver special-cases
 * it), and sizes N x M, wider (8x16) and narrower (16x8).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "tests/lib/tl1dev.h"

static struct drv *
open_dev(struct tl1dev *d, const char *size, const char *const *patches,
         size_t np, struct tl1dev_reply *r)
{
	struct drv_opts o = {
	    .user = "admin", .password = "root", .timeout_ms = 2000};
	struct drv *drv;
	char        url[64];

	r[0] =
	    (struct tl1dev_reply){"RTRV-EQPT", (const char *const[]){size}, 1};
	r[1] = (struct tl1dev_reply){"RTRV-PATCH", patches, np};
	d->r = r;
	d->nr = 2;
	assert_int_equal(tl1dev_start(d), 0);
	snprintf(url, sizeof(url), "127.0.0.1:%u", d->port);
	assert_int_equal(drv_open(&drv, "polatis", url, &o), 0);
	return (drv);
}

static void
test_nil_sid(void **state)
{
	static const char *const p[] = {"1,9", "2,10"};
	struct tl1dev            d = {.sid = "( nil )"};
	struct tl1dev_reply      r[2];
	struct drv *drv = open_dev(&d, "SYSTEM:SIZE=8x8", p, 2, r);
	uint16_t    map[9];

	(void)state;
	assert_int_equal(drv_read_map(drv, map, 8), 0);
	assert_int_equal(map[1], 9);
	assert_int_equal(map[2], 10);
	drv_close(drv);
	tl1dev_stop(&d);
}

static void
test_wider(void **state)
{
	static const char *const p[] = {"1,9", "3,20"};
	struct tl1dev            d = {.sid = "POLATIS"};
	struct tl1dev_reply      r[2];
	struct drv     *drv = open_dev(&d, "SYSTEM:SIZE=8x16", p, 2, r);
	struct drv_caps c;
	uint16_t        map[9];

	(void)state;
	assert_int_equal(drv_caps(drv, &c), 0);
	assert_int_equal(c.nports, 8);
	assert_int_equal(c.nout, 16);
	assert_int_equal(drv_nout(&c), 8);
	/* Ingress 3 is in use by a port this numbering cannot name: the
	 * read says so rather than call ingress 3 free. */
	assert_int_equal(drv_read_map(drv, map, 8), -DRV_EPROTO);
	assert_non_null(
	    strstr(drv_last_error(drv), "ingress 3 is patched to egress 20"));
	drv_close(drv);
	tl1dev_stop(&d);
}

static void
test_narrower(void **state)
{
	static const char *const p[] = {"1,17"};
	struct tl1dev            d = {.sid = "POLATIS"};
	struct tl1dev_reply      r[2];
	struct drv      *drv = open_dev(&d, "SYSTEM:SIZE=16x8", p, 1, r);
	struct drv_patch ok = {2, 24}, off = {3, 25};
	struct drv_batch b = {.connect = &ok, .nconnect = 1};
	struct drv_caps  c;
	uint16_t         map[17];

	(void)state;
	assert_int_equal(drv_caps(drv, &c), 0);
	assert_int_equal(c.nports, 16);
	assert_int_equal(drv_nout(&c), 8);
	assert_int_equal(drv_read_map(drv, map, 16), 0);
	assert_int_equal(map[1], 17);
	assert_int_equal(drv_apply(drv, &b), 0);
	assert_non_null(strstr(d.sent, "ENT-PATCH::2,24:"));
	/* Egress 25 does not exist on a 16x8: refused before sending. */
	b.connect = &off;
	assert_int_equal(drv_apply(drv, &b), -DRV_EPORT);
	assert_null(strstr(d.sent, "ENT-PATCH::3,25"));
	drv_close(drv);
	tl1dev_stop(&d);
}

/*
 * The read-back and the light check in one exchange: RTRV-PATCH and
 * RTRV-PORT-POWER go in one write, and their replies are matched by tag
 * whichever comes first.
 */
static void
test_read_with_power(void **state)
{
	static const char *const p[] = {"1,9", "2,10"};
	static const char *const pw[] = {"1:-3.50", "9:-4.00", "2:-60.00"};
	static const uint16_t    ports[] = {1, 9, 2, 10, 9};
	struct tl1dev_reply      r[3];
	struct drv_port_state    st[5];
	uint16_t                 map[9];
	int                      rev, srv;

	(void)state;
	for (rev = 0; rev < 2; rev++) {
		struct tl1dev d = {.sid = "POLATIS", .reverse = rev};
		struct drv   *drv = open_dev(&d, "SYSTEM:SIZE=8x8", p, 2, r);

		r[2] = (struct tl1dev_reply){"RTRV-PORT-POWER", pw, 3};
		d.nr = 3;
		memset(map, 0xff, sizeof(map));
		assert_int_equal(
		    drv_read_map_state(drv, map, 8, ports, 5, st, &srv), 0);
		assert_int_equal(srv, 0);
		assert_int_equal(map[1], 9);
		assert_int_equal(map[2], 10);
		assert_int_equal(map[3], 0);
		assert_true(st[0].dbm == -3.5 && st[1].dbm == -4.0);
		assert_true(st[2].dbm == -60.0);
		assert_true(st[3].dbm == DRV_NO_READING);
		assert_true(st[4].dbm == -4.0);
		assert_non_null(
		    strstr(d.sent, "RTRV-PORT-POWER::1&9&2&10&9:"));
		assert_int_equal(d.most_in_one_read, 2);
		/* Alone, each is its own exchange as before. */
		assert_int_equal(drv_ports_state(drv, ports, 2, st), 0);
		assert_true(st[1].dbm == -4.0);
		assert_int_equal(drv_read_map(drv, map, 8), 0);
		assert_int_equal(map[2], 10);
		drv_close(drv);
		tl1dev_stop(&d);
	}
}

/* A batch with its read-back: DLT-PATCH alone, then ENT-PATCH and both
 * reads in one write; a batch of deletes only sends them with its
 * reads. */
static void
test_apply_read(void **state)
{
	static const char *const p[] = {"1,9", "2,10"};
	static const char *const pw[] = {"1:-3.00", "9:-4.00"};
	static const uint16_t    ports[] = {1, 9}, dis[] = {3};
	struct drv_patch         con = {1, 9};
	struct drv_batch         b = {dis, 1, &con, 1};
	struct tl1dev            d = {.sid = "POLATIS"};
	struct tl1dev_reply      r[3];
	struct drv_port_state    st[2];
	struct drv *drv = open_dev(&d, "SYSTEM:SIZE=8x8", p, 2, r);
	uint16_t    map[9];
	int         mrv, srv;
	const char *dlt;

	(void)state;
	r[2] = (struct tl1dev_reply){"RTRV-PORT-POWER", pw, 2};
	d.nr = 3;
	d.most_in_one_read = 0;
	assert_int_equal(
	    drv_apply_read(drv, &b, map, 8, ports, 2, st, &mrv, &srv), 0);
	assert_int_equal(mrv, 0);
	assert_int_equal(srv, 0);
	assert_int_equal(map[1], 9);
	assert_true(st[0].dbm == -3.0 && st[1].dbm == -4.0);
	assert_int_equal(d.most_in_one_read, 3);
	dlt = strstr(d.sent, "DLT-PATCH::3:");
	assert_non_null(dlt);
	assert_non_null(strstr(dlt, "ENT-PATCH::1,9:"));
	/* Deletes only: the reads go with them, no power asked. */
	b = (struct drv_batch){dis, 1, NULL, 0};
	d.most_in_one_read = 0;
	assert_int_equal(
	    drv_apply_read(drv, &b, map, 8, NULL, 0, NULL, &mrv, &srv), 0);
	assert_int_equal(mrv, 0);
	assert_int_equal(srv, -ENOTSUP);
	assert_int_equal(d.most_in_one_read, 2);
	drv_close(drv);
	tl1dev_stop(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nil_sid),
	    cmocka_unit_test(test_wider),
	    cmocka_unit_test(test_narrower),
	    cmocka_unit_test(test_read_with_power),
	    cmocka_unit_test(test_apply_read),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
