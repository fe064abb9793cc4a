/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_check.c: ocsctl check's peer column on the relay rig
 * (ocs-emu, ocsd, agents on loopback): a probe sent across each
 * idle-patched circuit is heard by the receiver the switch's map says;
 * with a [cabling] line wrong (two hosts' receivers swapped, ocsd
 * reloaded while the agents stay plugged where they are) the probe
 * names the host actually heard; a probe changes no circuit and a run
 * after it is not disturbed by it; on a fabric, every switch's ports
 * are read and peers matched on their own switch.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/base/mono.h"
#include "tests/lib/rig.h"

/* ocsctl check until its output has want (up to 10 s): its exit status,
 * the output in *out (the caller frees it). */
static int
check_until(struct rig *r, const char *want, char **out, int json)
{
	char *err = NULL;
	int   i, rv = -1;

	*out = NULL;
	for (i = 0; i < 20; i++) {
		free(*out);
		free(err);
		rv = json ? rig_ctl(r, out, &err, "-j", "check", NULL)
		          : rig_ctl(r, out, &err, "check", NULL);
		if (*out && strstr(*out, want))
			break;
		mono_sleep_ms(500);
	}
	if (getenv("OCS_TEST_SHOW") && *out)
		fprintf(stderr, "%s", *out);
	if (*out == NULL || !strstr(*out, want))
		fprintf(stderr, "check: exit %d, no \"%s\": %s%s\n", rv, want,
		        *out ? *out : "", err ? err : "");
	free(err);
	return (rv);
}

/* The row of transceiver name in check's table (a copy), or "". */
static void
row(const char *out, const char *name, char *buf, size_t len)
{
	const char *p = out;
	size_t      n, k = strlen(name);

	buf[0] = '\0';
	/* The line that begins with it (it may be a peer on another). */
	while (p != NULL && (strncmp(p, name, k) != 0 || p[k] != ' '))
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	if (p == NULL)
		return;
	n = strcspn(p, "\n");
	snprintf(buf, len, "%.*s", (int)n, p);
}

static void
connect2(struct rig *r, const char *a, const char *b)
{
	char *out, *err;

	assert_int_equal(rig_ctl(r, &out, &err, "connect", a, b, NULL), 0);
	free(out);
	free(err);
}

/* Every patched receiver hears the transmitter the map says. */
static void
test_check_heard(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .trx = 1, .quiet = 1};
	struct rig     *r;
	char           *out, line[400];

	assert_non_null(r = rig_up_opts(3, &o));
	*state = r;
	connect2(r, "h00.0", "h01.0");
	assert_int_equal(
	    check_until(r, "0 transceivers with problems", &out, 0), 0);
	row(out, "h00.0", line, sizeof(line));
	assert_non_null(strstr(line, " h01.0 "));
	row(out, "h01.0", line, sizeof(line));
	assert_non_null(strstr(line, " h00.0 "));
	/* Nothing patched to h02.0: nothing heard, nothing wrong. */
	row(out, "h02.0", line, sizeof(line));
	assert_non_null(strstr(line, " - "));
	assert_non_null(strstr(line, " ok"));
	free(out);
	/* -j: the peer heard and the one the map expects, by name. */
	assert_int_equal(check_until(r, "\"peer_expected\"", &out, 1), 0);
	assert_non_null(strstr(out, "\"peer\": \"h01.0\""));
	assert_non_null(strstr(out, "\"peer_expected\": \"h01.0\""));
	free(out);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* A fabric: asked without -S, check reads each switch's ports, and a
 * receiver's expected transmitter is found on its own switch (port
 * numbers repeat across switches: h01.0 is A's port 2, h01.1 B's). */
static void
test_check_fabric(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .fabric = 1, .quiet = 1};
	struct rig     *r;
	char           *out, line[400];

	assert_non_null(r = rig_up_opts(4, &o));
	*state = r;
	connect2(r, "h00.0", "h01.0");
	connect2(r, "h02.1", "h03.1");
	assert_int_equal(
	    check_until(r, "0 transceivers with problems", &out, 0), 0);
	assert_non_null(strstr(out, "(of 8)"));
	row(out, "h00.0", line, sizeof(line));
	assert_non_null(strstr(line, " A "));
	assert_non_null(strstr(line, " h01.0 "));
	row(out, "h01.1", line, sizeof(line));
	assert_non_null(strstr(line, " B "));
	assert_non_null(strstr(line, " ok"));
	row(out, "h03.1", line, sizeof(line));
	assert_non_null(strstr(line, " h02.1 "));
	free(out);
	assert_int_equal(check_until(r, "\"peer_expected\"", &out, 1), 0);
	assert_non_null(strstr(out, "\"peer_expected\": \"h03.1\""));
	assert_non_null(strstr(out, "\"switch\": \"B\""));
	assert_null(strstr(out, "\"peer_expected\": \"h01.1\""));
	free(out);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

/* ocsd.conf with the egress ports of h01.0 and h02.0 swapped: what a
 * wrong [cabling] line (or a swapped receive fibre) looks like. */
static void
swap_cabling(struct rig *r)
{
	char  path[300], *buf, *a, *b, *la, *lb;
	FILE *f;
	long  n;

	snprintf(path, sizeof(path), "%s/ocsd.conf", r->dir);
	assert_non_null(f = fopen(path, "r"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(buf = calloc(1, (size_t)n + 64));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_non_null(a = strstr(buf, "h01.0 = "));
	assert_non_null(b = strstr(buf, "h02.0 = "));
	/* "hNN.0 = IN OUT\n": OUT is the last word of the line. */
	la = strchr(strchr(a + 8, ' ') + 1, '\n');
	lb = strchr(strchr(b + 8, ' ') + 1, '\n');
	a = strchr(a + 8, ' ') + 1;
	b = strchr(b + 8, ' ') + 1;
	assert_int_equal(la - a, lb - b); /* same width: swap in place */
	{
		char t[16];

		snprintf(t, sizeof(t), "%.*s", (int)(la - a), a);
		memcpy(a, b, (size_t)(lb - b));
		memcpy(b, t, strlen(t));
	}
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(buf);
	assert_int_equal(kill(r->ocsd.pid, SIGHUP), 0);
}

/* A wrong cabling line: the probe names who was heard, where. */
static void
test_check_swapped(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .trx = 1, .quiet = 1};
	struct rig     *r;
	char           *out, *err, line[600];

	assert_non_null(r = rig_up_opts(3, &o));
	*state = r;
	connect2(r, "h00.0", "h01.0");
	swap_cabling(r);
	/* h00.0's light goes to the port ocsd now calls h02.0's, where
	 * h01's receiver really is. */
	assert_int_equal(check_until(r, "sent by h00.0, not heard", &out, 0),
	                 1);
	row(out, "h02.0", line, sizeof(line));
	assert_non_null(strstr(line, "sent by h00.0, not heard"));
	row(out, "h01.0", line, sizeof(line));
	assert_non_null(strstr(line, "heard h00.0 where the switch's map "
	                             "patches nothing"));
	free(out);
	/* h01.0 and h02.0 patched to each other as ocsd sees them: each
	 * receiver hears its own transmitter instead, and both are named. */
	assert_int_equal(rig_ctl(r, &out, &err, "clear", NULL), 0);
	free(out);
	free(err);
	connect2(r, "h01.0", "h02.0");
	assert_int_equal(
	    check_until(r, "but the switch's map patches", &out, 0), 1);
	row(out, "h01.0", line, sizeof(line));
	assert_non_null(strstr(line, "heard h01.0, but the switch's map "
	                             "patches h02.0 to it"));
	row(out, "h02.0", line, sizeof(line));
	assert_non_null(strstr(line, "heard h02.0, but the switch's map "
	                             "patches h01.0 to it"));
	free(out);
	/* A probe changed no circuit: the map is as connect left it. */
	assert_int_equal(rig_ctl(r, &out, &err, "show", NULL), 0);
	assert_non_null(strstr(out, "circuits (1):"));
	assert_non_null(strstr(out, "h01.0            <-> h02.0"));
	free(out);
	free(err);
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

struct bg_check {
	struct rig *r;
	int         rv;
	char       *out;
};

static void *
bg_check(void *arg)
{
	struct bg_check *b = arg;
	char            *err = NULL;

	b->rv = rig_ctl(b->r, &b->out, &err, "check", NULL);
	free(err);
	return (NULL);
}

/* Probes and a run: a run right after a check, or started while one is
 * out, verifies every block (a late probe in its fibres is skipped, not
 * taken for data; its agents take the run's plan first). */
static void
test_check_then_run(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .quiet = 1};
	struct rig     *r;
	char           *out, *err;
	int             i;

	assert_non_null(r = rig_up_opts(3, &o));
	*state = r;
	connect2(r, "h00.0", "h01.1");
	connect2(r, "h01.0", "h02.1");
	connect2(r, "h02.0", "h00.1");
	for (i = 0; i < 2; i++) {
		(void)rig_ctl(r, &out, &err, "check", NULL);
		assert_non_null(strstr(out, "0 transceivers with problems"));
		free(out);
		free(err);
		assert_int_equal(rig_ctl(r, &out, &err, "run", "--algo",
		                         "static", "--bytes", "64KiB", NULL),
		                 0);
		assert_non_null(strstr(out, "verified"));
		free(out);
		free(err);
	}
	for (i = 0; i < 2; i++) {
		struct bg_check b = {r, -1, NULL};
		pthread_t       t;

		assert_int_equal(pthread_create(&t, NULL, bg_check, &b), 0);
		mono_sleep_ms(50 * (uint32_t)i);
		assert_int_equal(rig_ctl(r, &out, &err, "run", "--algo",
		                         "static", "--bytes", "64KiB", NULL),
		                 0);
		assert_non_null(strstr(out, "verified"));
		free(out);
		free(err);
		pthread_join(t, NULL);
		/* The check answered, whatever it found of agents in the
		 * run. */
		assert_true(b.rv == 0 || b.rv == 1);
		assert_non_null(b.out);
		assert_non_null(strstr(b.out, "transceivers with problems"));
		free(b.out);
	}
	*state = NULL;
	assert_int_equal(rig_down(r), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_check_heard, rig_teardown),
	    cmocka_unit_test_teardown(test_check_swapped, rig_teardown),
	    cmocka_unit_test_teardown(test_check_fabric, rig_teardown),
	    cmocka_unit_test_teardown(test_check_then_run, rig_teardown),
	};

	return (cmocka_run_group_tests_name("check", tests, NULL, NULL));
}
