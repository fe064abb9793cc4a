/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_polatis.c: the polatis driver against a real ocs-emu
 * process over TCP on an ephemeral port: login failure, a port the device
 * refuses, 128 patches in one ENT-PATCH, read-back across '>' blocks,
 * DLT-PATCH ALL, the switching time, autonomous messages on the same
 * socket, and a connection dropped by the emulator and recovered.
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

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/proc.h"

struct fx {
	char       *dir;
	struct proc emu;
	char        addr[64];
	int         nent, ndlt, nauto, nlogin; /* counted by the trace hook */
};

static void
count(void *arg, const char *fmt, ...)
{
	struct fx *f = arg;
	va_list    ap;
	char       line[256];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strncmp(line, "tl1 > ENT-PATCH", 15) == 0)
		f->nent++;
	if (strncmp(line, "tl1 > DLT-PATCH", 15) == 0)
		f->ndlt++;
	if (strncmp(line, "tl1 < autonomous", 16) == 0)
		f->nauto++;
	if (strncmp(line, "tl1 > ACT-USER", 14) == 0)
		f->nlogin++;
}

/* Start ocs-emu with extra arguments; addr "" means an ephemeral port. */
static void
emu_start(struct fx *f, const char *addr, const char *extra1,
          const char *extra2)
{
	char  bin[256], log[300], state[300], line[256], tl1[80];
	char *argv[16];
	int   n = 0;

	snprintf(log, sizeof(log), "%s/emu.log", f->dir);
	snprintf(state, sizeof(state), "%s/emu.state", f->dir);
	snprintf(tl1, sizeof(tl1), "%s", addr[0] ? addr : "127.0.0.1:0");
	argv[n++] = (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin));
	argv[n++] = "--tl1";
	argv[n++] = tl1;
	argv[n++] = "--ports";
	argv[n++] = "192";
	argv[n++] = "--switch-time";
	argv[n++] = "50ms";
	argv[n++] = "--state";
	argv[n++] = state;
	if (extra1)
		argv[n++] = (char *)(uintptr_t)extra1;
	if (extra2)
		argv[n++] = (char *)(uintptr_t)extra2;
	argv[n] = NULL;
	assert_int_equal(proc_start(&f->emu, argv, log), 0);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: tl1 ", 13), 0);
	snprintf(f->addr, sizeof(f->addr), "%.63s", line + 13);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = proc_tmpdir("polatis");
	emu_start(f, "", "--autonomous", NULL);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	int dirty;

	proc_stop(&f->emu, SIGTERM);
	dirty = proc_log_dirty(&f->emu);
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

static struct drv *
open_drv(struct fx *f, const char *pw, int expect)
{
	struct drv_opts o = {.user = "root",
	                     .password = pw,
	                     .timeout_ms = 2000,
	                     .trace = count,
	                     .trace_arg = f};
	struct drv     *d;

	assert_int_equal(drv_open(&d, "polatis", f->addr, &o), expect);
	assert_non_null(d);
	return (d);
}

/* Send raw TL1 on a new session and wait for n COMPLDs. */
static void
raw(struct fx *f, const char *cmds, int ncompld)
{
	char     host[64], port[16], chunk[4096], *buf = NULL, *p;
	uint64_t dl = mono_ms() + 3000;
	size_t   got = 0;
	int      fd, seen = 0;
	ssize_t  r;

	assert_int_equal(net_hostport(f->addr, NULL, host, sizeof(host), port,
	                              sizeof(port)),
	                 0);
	fd = net_connect(host, port, 2000, -1);
	assert_true(fd >= 0);
	assert_int_equal(net_write_all(fd, cmds, strlen(cmds), dl, -1), 0);
	while (seen < ncompld &&
	       (r = net_read_some(fd, chunk, sizeof(chunk), dl, -1)) > 0) {
		buf = realloc(buf, got + (size_t)r + 1);
		assert_non_null(buf);
		memcpy(buf + got, chunk, (size_t)r);
		got += (size_t)r;
		buf[got] = '\0';
		for (seen = 0, p = buf; (p = strstr(p, "COMPLD")); p++)
			seen++;
	}
	assert_int_equal(seen, ncompld);
	free(buf);
	close(fd);
}

static void
test_polatis_login_refused(void **state)
{
	struct fx      *f = *state;
	struct drv     *d = open_drv(f, "wrong", -DRV_EAUTH);
	struct drv_caps c;

	assert_non_null(strstr(drv_last_error(d), "PICC Permission denied"));
	/* Later calls fail the same way, quickly, without hammering. */
	assert_int_equal(drv_caps(d, &c), -DRV_EAUTH);
	drv_close(d);
}

static void
test_polatis_device_refuses_port(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_drv(f, "root", 0);
	struct drv_patch p = {1000, 1100};
	struct drv_batch b = {.connect = &p, .nconnect = 1};

	/* Past the wrappers, straight to the device. */
	assert_int_equal(d->ops->apply(d->priv, &b), -DRV_EDENIED);
	assert_string_equal(drv_last_error(d),
	                    "ENT-PATCH: IDNV Invalid OXC port: 1000");
	/* The session is still good. */
	p = (struct drv_patch){5, 197};
	assert_int_equal(drv_apply(d, &b), 0);
	drv_close(d);
}

static void
test_polatis_128_patches_one_command(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_drv(f, "root", 0);
	struct drv_patch p[128];
	struct drv_batch b = {.connect = p, .nconnect = 128};
	struct drv_caps  c;
	uint16_t         map[193];
	uint64_t         t0;
	int              i;

	assert_int_equal(drv_caps(d, &c), 0);
	assert_int_equal(c.nports, 192);
	/* A scrambled permutation so that ranges cannot cover it all. */
	for (i = 0; i < 128; i++) {
		p[i].in = (uint16_t)(i + 1);
		p[i].out = (uint16_t)(193 + (i * 37) % 128);
	}
	f->nent = 0;
	t0 = mono_ms();
	assert_int_equal(drv_apply(d, &b), 0);
	/* COMPLD only after the 50 ms switching time. */
	assert_true(mono_ms() - t0 >= 50);
	assert_int_equal(f->nent, 1);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	for (i = 0; i < 128; i++)
		assert_int_equal(map[i + 1], p[i].out);
	for (i = 129; i <= 192; i++)
		assert_int_equal(map[i], 0);
	/* The emulator reported each new path on the same socket. */
	assert_true(f->nauto >= 128);
	/* DLT-PATCH ALL from another session clears everything. */
	raw(f, "ACT-USER::root:1::root;DLT-PATCH::ALL:2:;", 2);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	for (i = 1; i <= 192; i++)
		assert_int_equal(map[i], 0);
	drv_close(d);
}

/* Long read-backs come in several '>' blocks. */
static void
test_polatis_continuation_readback(void **state)
{
	struct fx       *f = *state;
	struct drv      *d;
	struct drv_patch p[150];
	struct drv_batch b = {.connect = p, .nconnect = 150};
	uint16_t         map[193];
	int              i;

	proc_stop(&f->emu, SIGTERM);
	unlink(f->emu.log);
	emu_start(f, "", "--block-size", "64");
	d = open_drv(f, "root", 0);
	for (i = 0; i < 150; i++)
		p[i] = (struct drv_patch){(uint16_t)(i + 1),
		                          (uint16_t)(192 + 150 - i)};
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	for (i = 0; i < 150; i++)
		assert_int_equal(map[i + 1], p[i].out);
	drv_close(d);
}

static void
test_polatis_reconnects_after_drop(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_drv(f, "root", 0);
	struct drv_patch p = {7, 200};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	uint16_t         map[193];
	char             addr[64];

	assert_int_equal(drv_apply(d, &b), 0);
	/* The emulator drops sessions idle for 1 s (a real switch's
	 * ED-EQPT TIMEOUT counts minutes). */
	drv_close(d);
	proc_stop(&f->emu, SIGTERM);
	unlink(f->emu.log);
	emu_start(f, "", "--session-timeout", "1s");
	d = open_drv(f, "root", 0);
	f->nlogin = 0;
	mono_sleep_ms(1600);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	assert_int_equal(map[7], 200);
	assert_int_equal(f->nlogin, 1); /* it noticed, and logged in */
	/* A batch after the switch closed the idle session: the driver
	 * notices the close before sending, so the batch is not lost in
	 * it (its outcome would be unknown). */
	mono_sleep_ms(1600);
	p = (struct drv_patch){9, 202};
	assert_int_equal(drv_apply(d, &b), 0);
	p = (struct drv_patch){7, 200};
	raw(f, "ACT-USER::root:1::root;ED-EQPT::TIMEOUT:2:::ADMIN=0;", 2);
	/* The emulator restarts on the same port, patches restored. */
	snprintf(addr, sizeof(addr), "%s", f->addr);
	proc_stop(&f->emu, SIGTERM);
	emu_start(f, addr, NULL, NULL);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	assert_int_equal(map[7], 200);
	/* While it is down, calls fail with a clear error, bounded. */
	proc_stop(&f->emu, SIGTERM);
	assert_true(drv_read_map(d, map, 192) < 0);
	assert_non_null(strstr(drv_last_error(d), addr));
	emu_start(f, addr, NULL, NULL);
	p = (struct drv_patch){8, 201};
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	assert_int_equal(map[8], 201);
	drv_close(d);
}

/* A connection that never logs in is closed after the login grace:
 * idle clients cannot take every session and lock the controller out. */
static void
test_polatis_login_grace(void **state)
{
	struct fx *f = *state;
	char       host[64], port[16], buf[256];
	uint64_t   t0;
	int        fd;

	proc_stop(&f->emu, SIGTERM);
	unlink(f->emu.log);
	emu_start(f, "", "--login-grace", "300ms");
	assert_int_equal(net_hostport(f->addr, NULL, host, sizeof(host), port,
	                              sizeof(port)),
	                 0);
	t0 = mono_ms();
	fd = net_connect(host, port, 2000, -1);
	assert_true(fd >= 0);
	/* Nothing but the close comes. */
	assert_int_equal(net_read_some(fd, buf, sizeof(buf), t0 + 3000, -1),
	                 0);
	assert_true(mono_ms() - t0 >= 250);
	close(fd);
}

/*
 * A flood of connections that never log in (issue 34: they took all 64
 * sessions and ocsd showed NOT CONNECTED): the oldest give way, the
 * driver logs in and works, and the emulator says so in a few lines, not
 * one a connection.
 */
static void
test_polatis_flood_leaves_room(void **state)
{
	struct fx  *f = *state;
	char        host[64], port[16], cmd[300], *o, *e;
	char       *argv[] = {"/bin/sh", "-c", cmd, NULL};
	struct drv *d;
	uint16_t    map[193];
	int         fd[150], i;

	assert_int_equal(net_hostport(f->addr, NULL, host, sizeof(host), port,
	                              sizeof(port)),
	                 0);
	for (i = 0; i < 150; i++)
		assert_true((fd[i] = net_connect(host, port, 2000, -1)) >= 0);
	mono_sleep_ms(200);
	d = open_drv(f, "root", 0);
	assert_int_equal(drv_read_map(d, map, 192), 0);
	drv_close(d);
	for (i = 0; i < 150; i++)
		close(fd[i]);
	snprintf(cmd, sizeof(cmd), "grep -c tl1 %s", f->emu.log);
	proc_run(argv, &o, &e);
	if (atoi(o) > 20)
		fail_msg("%s lines of ocs-emu's log for a flood of 150", o);
	free(o);
	free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_polatis_login_refused, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_polatis_device_refuses_port,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_polatis_128_patches_one_command, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_polatis_continuation_readback,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_polatis_reconnects_after_drop,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_polatis_login_grace, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_polatis_flood_leaves_room,
	                                    setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("polatis", tests, NULL, NULL));
}
