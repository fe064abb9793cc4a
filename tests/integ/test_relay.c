/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_relay.c: ocs-emu's fibre relay with a line rate
 * (--rate) carries every byte, in order, and no faster than the rate
 * (less the bucket it starts with); without --rate it is not held back
 * to it.  A lower bound only: how much slower a loaded machine makes
 * it is for make bench, not a test.
 */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/proc.h"

#define MOVE_BYTES (3u << 20)

struct relay {
	struct proc emu;
	char        tl1[64], fib[64];
};

static void
relay_up(struct relay *r, const char *rate)
{
	char  bin[256], line[128];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
	    "--tl1",
	    "127.0.0.1:0",
	    "--fibre",
	    "127.0.0.1:0",
	    "--ports",
	    "4",
	    "--switch-time",
	    "0",
	    rate ? "--rate" : NULL,
	    (char *)(uintptr_t)rate,
	    NULL};

	assert_int_equal(proc_start(&r->emu, argv, NULL), 0);
	assert_int_equal(proc_line(&r->emu, line, sizeof(line), 5000), 0);
	assert_non_null(strstr(line, "ocs-emu: tl1 "));
	snprintf(r->tl1, sizeof(r->tl1), "%.60s", line + 13);
	assert_int_equal(proc_line(&r->emu, line, sizeof(line), 5000), 0);
	assert_non_null(strstr(line, "ocs-emu: fibre "));
	snprintf(r->fib, sizeof(r->fib), "%.60s", line + 15);
}

static void
tl1(const char *addr, const char *cmd)
{
	char     buf[4096] = "";
	uint64_t dl = mono_ms() + 5000;
	size_t   got = 0;
	ssize_t  n;
	int      fd = net_connect_addr(addr, 2000);

	assert_true(fd >= 0);
	net_write_all(fd, "ACT-USER::root:1::root;", 23, dl, -1);
	net_write_all(fd, cmd, strlen(cmd), dl, -1);
	while (!strstr(buf, "M  2 ") && got < sizeof(buf) - 1 &&
	       (n = net_read_some(fd, buf + got, sizeof(buf) - 1 - got, dl,
	                          -1)) > 0) {
		got += (size_t)n;
		buf[got] = '\0';
	}
	close(fd);
	assert_non_null(strstr(buf, "M  2 COMPLD"));
}

static int
fibre(const char *addr, int in, int out)
{
	char     line[64];
	uint64_t dl = mono_ms() + 3000;
	int      fd = net_connect_addr(addr, 2000), n = 0;

	assert_true(fd >= 0);
	snprintf(line, sizeof(line), "FIBRE %d %d\n", in, out);
	net_write_all(fd, line, strlen(line), dl, -1);
	while (n < 3 && net_read_some(fd, line + n, 1, dl, -1) == 1)
		n++;
	assert_memory_equal(line, "OK\n", 3);
	return (fd);
}

struct sender {
	int fd;
};

static void *
send_all(void *u)
{
	struct sender *s = u;
	uint8_t       *buf = malloc(MOVE_BYTES);
	size_t         i;

	if (buf == NULL)
		return (NULL);
	for (i = 0; i < MOVE_BYTES; i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 12));
	net_write_all(s->fd, buf, MOVE_BYTES, mono_ms() + 60000, -1);
	free(buf);
	return (NULL);
}

/* Seconds to move MOVE_BYTES from ingress 1 to egress 6 (patched 1>6),
 * every byte checked. */
static double
move(const char *rate)
{
	struct relay  r;
	struct sender s;
	pthread_t     th;
	uint8_t      *got = malloc(MOVE_BYTES);
	size_t        have = 0, i;
	ssize_t       n;
	double        t0, dt;
	int           rx;

	assert_non_null(got);
	relay_up(&r, rate);
	tl1(r.tl1, "ENT-PATCH::1,6:2;");
	s.fd = fibre(r.fib, 1, 5);
	rx = fibre(r.fib, 2, 6);
	t0 = mono_s();
	assert_int_equal(pthread_create(&th, NULL, send_all, &s), 0);
	while (have < MOVE_BYTES &&
	       (n = net_read_some(rx, got + have, MOVE_BYTES - have,
	                          mono_ms() + 20000, -1)) > 0)
		have += (size_t)n;
	dt = mono_s() - t0;
	pthread_join(th, NULL);
	assert_int_equal(have, MOVE_BYTES);
	for (i = 0; i < MOVE_BYTES; i++)
		if (got[i] != (uint8_t)(i * 7 + (i >> 12)))
			fail_msg("byte %zu differs", i);
	close(s.fd);
	close(rx);
	free(got);
	proc_stop(&r.emu, SIGTERM);
	return (dt);
}

static void
test_rate_holds(void **state)
{
	/* 3 MiB at 80 Mbps is 0.315 s; the bucket starts with less than
	 * 64 KiB. */
	double dt = move("80Mbps"), floor = (MOVE_BYTES - 65536) * 8 / 80e6;

	(void)state;
	print_message("3 MiB through a fibre at 80 Mbps: %.3f s (floor "
	              "%.3f s)\n",
	              dt, floor);
	assert_true(dt >= floor * 0.98);
}

static void
test_unmetered(void **state)
{
	/* Unmetered, a loopback relay moves 3 MiB well within the 80 Mbps
	 * floor (it carries GB/s): the rate above is the bucket's doing. */
	double dt = move(NULL);

	(void)state;
	print_message("3 MiB unmetered: %.3f s\n", dt);
	assert_true(dt < (MOVE_BYTES - 65536) * 8 / 80e6);
}

static void
test_rate_refused(void **state)
{
	char  bin[256], *out = NULL, *err = NULL;
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
	    "--tl1",
	    "127.0.0.1:0",
	    "--rate",
	    "5Tbps",
	    NULL};

	(void)state;
	assert_int_equal(proc_run(argv, &out, &err), 2);
	assert_non_null(strstr(err, "--rate \"5Tbps\""));
	assert_int_equal(proc_nlines(err), 1);
	free(out);
	free(err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rate_holds),
	    cmocka_unit_test(test_unmetered),
	    cmocka_unit_test(test_rate_refused),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
