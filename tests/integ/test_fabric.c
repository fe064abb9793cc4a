/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_fabric.c: one ocsd driving two switches, a fabric of
 * two planes: ocs-emu twice on loopback, switch A through the polatis
 * driver (TL1) and switch B through the calient driver (REST).  Changes
 * land on the switch their transceivers are cabled to, show/status/diff
 * answer per switch and for all (-j keyed by switch), -S picks one, a
 * restart reconciles both, and a switch that fails is named while the
 * other keeps what it holds.  Each switch's map is read back with the
 * driver, not through ocsd.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "tests/lib/proc.h"
#include "tests/lib/rig.h"
#include "tests/lib/rjson.h"

struct fx {
	char       *dir;
	struct proc emu[2], ocsd;
	char        tl1[2][64], rest[2][64]; /* each emulator's faces */
	char        conf[300], sock[320];
};

/* ocs-emu number i, on the addresses it had (again) or new ones. */
static void
emu_start(struct fx *f, int i, int again)
{
	char  bin[256], log[300], st[300], line[256], tl1[80], rest[80];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
	    "--tl1",
	    tl1,
	    "--rest",
	    rest,
	    "--ports",
	    "16",
	    "--switch-time",
	    "5ms",
	    "--state",
	    st,
	    NULL};

	snprintf(tl1, sizeof(tl1), "%s", again ? f->tl1[i] : "127.0.0.1:0");
	snprintf(rest, sizeof(rest), "%s", again ? f->rest[i] : "127.0.0.1:0");
	snprintf(log, sizeof(log), "%s/emu%d.log", f->dir, i);
	snprintf(st, sizeof(st), "%s/emu%d.state", f->dir, i);
	assert_int_equal(proc_start(&f->emu[i], argv, log), 0);
	assert_int_equal(proc_line(&f->emu[i], line, sizeof(line), 5000), 0);
	snprintf(f->tl1[i], sizeof(f->tl1[i]), "%.63s", line + 13);
	assert_int_equal(proc_line(&f->emu[i], line, sizeof(line), 5000), 0);
	snprintf(f->rest[i], sizeof(f->rest[i]), "%.63s", line + 14);
}

/* ocsctl -s SOCK args...; the exit status, *out and *err malloc'd. */
static int
ctl(struct fx *f, char **out, char **err, ...)
{
	char    bin[256], sarg[330], *argv[16];
	int     n = 0;
	va_list ap;

	snprintf(sarg, sizeof(sarg), "%s", f->sock);
	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	argv[n++] = "-s";
	argv[n++] = sarg;
	va_start(ap, err);
	while ((argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	return (proc_run(argv, out, err));
}

/* Succeeds, and its stdout has want (NULL: anything). */
static void
ok(struct fx *f, const char *want, ...)
{
	char    bin[256], sarg[330], *argv[16], *o, *e;
	int     n = 0, rv;
	va_list ap;

	snprintf(sarg, sizeof(sarg), "%s", f->sock);
	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	argv[n++] = "-s";
	argv[n++] = sarg;
	va_start(ap, want);
	while ((argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	rv = proc_run(argv, &o, &e);
	if (rv != 0 || (want && strstr(o, want) == NULL))
		fail_msg("ocsctl %s: exit %d, stdout \"%s\" (want \"%s\"), "
		         "stderr \"%s\"",
		         argv[3], rv, o, want ? want : "", e);
	free(o);
	free(e);
}

/* Fails with one line on stderr naming needle. */
static void
refused(struct fx *f, const char *needle, const char *a, const char *b,
        const char *c)
{
	char *o, *e;
	int   rv = ctl(f, &o, &e, a, b, c, NULL);

	if (rv == 0 || strstr(e, needle) == NULL || proc_nlines(e) != 1)
		fail_msg("ocsctl %s %s: exit %d, stderr \"%s\" (want one line "
		         "with \"%s\")",
		         a, b ? b : "", rv, e, needle);
	free(o);
	free(e);
}

static void
ocsd_start(struct fx *f)
{
	char  bin[256], log[300], *o, *e;
	char *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                "-d",
	                "-v",
	                "-f",
	                f->conf,
	                NULL};
	int   i, rv, up;

	snprintf(log, sizeof(log), "%s/ocsd.log", f->dir);
	assert_int_equal(proc_start(&f->ocsd, argv, log), 0);
	/* Ready when it answers and has met both switches. */
	for (i = 0; i < 200; i++) {
		rv = ctl(f, &o, &e, "-br", "status", NULL);
		up = rv == 0 && strstr(o, "A connected") != NULL &&
		     strstr(o, "B connected") != NULL;
		free(o);
		free(e);
		if (up)
			return;
		mono_sleep_ms(50);
	}
	fail_msg("ocsd did not come up (see %s)", log);
}

/* Four hosts, two transceivers each: .0 on switch A, .1 on switch B, on
 * the same port numbers (ports are a switch's own). */
static void
write_conf(struct fx *f)
{
	FILE *c = fopen(f->conf, "w");
	int   h;

	assert_non_null(c);
	fprintf(c,
	        "[switch A]\ndriver = polatis\naddress = %s\nuser = root\n"
	        "password = root\ntimeout = 1s\nswitch_time = 5ms\npoll = 0\n"
	        "[switch B]\ndriver = calient\naddress = http://%s\n"
	        "user = root\npassword = root\ntimeout = 1s\n"
	        "switch_time = 5ms\npoll = 0\n"
	        "[control]\nlisten = %s\n[state]\ndir = %s/state\n"
	        "[cabling]\n",
	        f->tl1[0], f->rest[1], f->sock, f->dir);
	for (h = 0; h < 4; h++)
		fprintf(c, "h%d.0 = A %d %d\nh%d.1 = B %d %d\n", h, h + 1,
		        h + 17, h, h + 1, h + 17);
	fclose(c);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = proc_tmpdir("fabric");
	snprintf(f->conf, sizeof(f->conf), "%s/ocsd.conf", f->dir);
	snprintf(f->sock, sizeof(f->sock), "ipc://%s/ctl.sock", f->dir);
	emu_start(f, 0, 0);
	emu_start(f, 1, 0);
	write_conf(f);
	ocsd_start(f);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int        dirty, i;

	if (f->ocsd.pid)
		proc_stop(&f->ocsd, SIGTERM);
	for (i = 0; i < 2; i++)
		if (f->emu[i].pid)
			proc_stop(&f->emu[i], SIGTERM);
	dirty = proc_log_dirty(&f->ocsd) | proc_log_dirty(&f->emu[0]) |
	        proc_log_dirty(&f->emu[1]);
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

/* Switch i's own map, read over TL1 with the driver. */
static void
switch_map(struct fx *f, int i, uint16_t *map)
{
	struct drv_opts o = {
	    .user = "root", .password = "root", .timeout_ms = 2000};
	struct drv *d;

	assert_int_equal(drv_open(&d, "polatis", f->tl1[i], &o), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	drv_close(d);
}

static json_t *
show_json(struct fx *f, const char *sw)
{
	char        *o, *e;
	json_t      *j;
	json_error_t je;
	int          rv = sw ? ctl(f, &o, &e, "-j", "-S", sw, "show", NULL)
	                     : ctl(f, &o, &e, "-j", "show", NULL);

	assert_int_equal(rv, 0);
	if ((j = json_loads(o, 0, &je)) == NULL)
		fail_msg("bad JSON: %s", o);
	free(o);
	free(e);
	return (j);
}

/* A connect lands on the switch its transceivers are cabled to, and
 * only there; show keys by switch. */
static void
test_fabric_connect_per_switch(void **state)
{
	struct fx *f = *state;
	uint16_t   a[17], b[17];
	json_t    *j, *sa, *sb;

	ok(f, "2 patch changes", "connect", "h0.0", "h1.0", NULL);
	ok(f, "2 patch changes", "connect", "h2.1", "h3.1", NULL);
	switch_map(f, 0, a);
	switch_map(f, 1, b);
	assert_int_equal(a[1], 18); /* A: h0.0 TX -> h1.0 RX */
	assert_int_equal(a[2], 17);
	assert_int_equal(a[3], 0);
	assert_int_equal(b[3], 20); /* B: h2.1 TX -> h3.1 RX */
	assert_int_equal(b[4], 19);
	assert_int_equal(b[1], 0);
	j = show_json(f, NULL);
	sa = json_object_get(json_object_get(j, "switches"), "A");
	sb = json_object_get(json_object_get(j, "switches"), "B");
	assert_non_null(sa);
	assert_non_null(sb);
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(sa, "switch"), "driver")),
	                    "polatis");
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(sb, "switch"), "driver")),
	                    "calient");
	assert_true(json_is_true(json_object_get(sa, "in_sync")));
	assert_int_equal(json_array_size(json_object_get(sa, "circuits")), 1);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(sb, "circuits"), 0), "a")),
	    "h2.1");
	assert_int_equal(json_array_size(json_object_get(sa, "cabling")), 4);
	json_decref(j);
	/* -S: that switch's part alone, keyed by its name as ever. */
	j = show_json(f, "B");
	assert_null(json_object_get(json_object_get(j, "switches"), "A"));
	sb = json_object_get(json_object_get(j, "switches"), "B");
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(sb, "switch"), "name")),
	                    "B");
	json_decref(j);
	/* Text groups by switch. */
	ok(f, "switch A: polatis", "show", NULL);
	ok(f, "switch B: calient", "show", NULL);
	/* A circuit across the planes is no circuit; a port number needs
	 * its switch; an unknown switch is named. */
	refused(f, "transceiver h1.1 is cabled to switch B, not A", "connect",
	        "h0.0", "h1.1");
	refused(f, "port numbers are a switch's own", "disconnect", "3", NULL);
	refused(f, "switch \"C\": no such switch", "-S", "C", "show");
	ok(f, "1 patch change", "-S", "B", "disconnect", "20", NULL);
	switch_map(f, 1, b);
	assert_int_equal(b[3], 0);
	assert_int_equal(b[4], 19);
}

/* clear, map diff and map sync for all: each switch's part; -S one. */
static void
test_fabric_for_all(void **state)
{
	struct fx *f = *state;
	uint16_t   a[17], b[17];

	ok(f, NULL, "connect", "h0.0", "h1.0", NULL);
	ok(f, NULL, "connect", "h0.1", "h1.1", NULL);
	ok(f, "2 patch changes", "-S", "A", "clear", NULL);
	switch_map(f, 0, a);
	switch_map(f, 1, b);
	assert_int_equal(a[1], 0);
	assert_int_equal(b[1], 18);
	ok(f, "map: switch matches the desired map", "map", "diff", NULL);
	ok(f, "2 patch changes", "clear", NULL);
	switch_map(f, 1, b);
	assert_int_equal(b[1], 0);
	ok(f, "0 patch changes", "map", "sync", NULL);
	ok(f, "B connected in-sync", "-br", "status", NULL);
}

/* A restart reconciles every switch: the circuits stay on both, each
 * desired map in its own file. */
static void
test_fabric_restart_reconciles_both(void **state)
{
	struct fx  *f = *state;
	uint16_t    a[17], b[17];
	char        path[400];
	struct stat st;

	ok(f, NULL, "connect", "h0.0", "h3.0", NULL);
	ok(f, NULL, "connect", "h1.1", "h2.1", NULL);
	proc_stop(&f->ocsd, SIGTERM);
	snprintf(path, sizeof(path), "%s/state/desired-A.map", f->dir);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/state/desired-B.map", f->dir);
	assert_int_equal(stat(path, &st), 0);
	ocsd_start(f);
	switch_map(f, 0, a);
	switch_map(f, 1, b);
	assert_int_equal(a[1], 20);
	assert_int_equal(b[2], 19);
	ok(f, "map: switch matches the desired map", "status", NULL);
}

/* One switch gone: its error names it, the other answers and keeps its
 * circuits; once back, both are in sync. */
static void
test_fabric_one_switch_fails(void **state)
{
	struct fx *f = *state;
	uint16_t   a[17];
	char      *o, *e;
	int        rv;

	ok(f, NULL, "connect", "h0.0", "h1.0", NULL);
	proc_stop(&f->emu[1], SIGTERM);
	rv = ctl(f, &o, &e, "connect", "h0.1", "h1.1", NULL);
	if (rv == 0 || strstr(e, "switch B (calient)") == NULL)
		fail_msg("exit %d, stderr \"%s\"", rv, e);
	free(o);
	free(e);
	rv = ctl(f, &o, &e, "clear", NULL);
	/* A is cleared first, then B fails: said, with what A did. */
	if (rv == 0 || strstr(e, "switch B: ") == NULL ||
	    strstr(e, "switches before it changed as asked: 2") == NULL)
		fail_msg("exit %d, stderr \"%s\"", rv, e);
	free(o);
	free(e);
	switch_map(f, 0, a);
	assert_int_equal(a[1], 0);
	ok(f, "switch A: polatis", "status", NULL);
	emu_start(f, 1, 1);
	ok(f, "0 patch changes", "-S", "B", "map", "sync", NULL);
	ok(f, "B connected in-sync", "-br", "status", NULL);
}

/* A reload (SIGHUP): a switch's changed section reaches that switch
 * (its worker reconnects), the other keeps its session; a reload that
 * adds or removes a switch is refused and the running configuration
 * stays. */
static void
test_fabric_reload(void **state)
{
	struct fx *f = *state;
	char       text[4096], line[512], *o, *e;
	FILE      *c;
	size_t     n;
	int        i, seen = 0;

	ok(f, NULL, "connect", "h0.1", "h1.1", NULL);
	assert_non_null(c = fopen(f->conf, "r"));
	n = fread(text, 1, sizeof(text) - 1, c);
	fclose(c);
	text[n] = '\0';
	/* Switch B's switching time: 5 ms -> 7 ms. */
	{
		char *b = strstr(text, "[switch B]");
		char *t = b ? strstr(b, "switch_time = 5ms") : NULL;

		assert_non_null(t);
		t[14] = '7';
	}
	assert_non_null(c = fopen(f->conf, "w"));
	fputs(text, c);
	fclose(c);
	kill(f->ocsd.pid, SIGHUP);
	for (i = 0; i < 100 && !seen; i++) {
		assert_int_equal(ctl(f, &o, &e, "status", NULL), 0);
		seen = strstr(o, "switching time 7 ms") != NULL &&
		       strstr(o, "switching time 5 ms") != NULL;
		free(o);
		free(e);
		if (!seen)
			mono_sleep_ms(50);
	}
	assert_true(seen);
	ok(f, "B connected in-sync", "-br", "status", NULL);
	ok(f, "h0.1 <-> h1.1", "-br", "show", NULL);
	/* Without switch B: refused, said, and B still driven. */
	assert_non_null(c = fopen(f->conf, "w"));
	fprintf(c,
	        "[switch A]\ndriver = polatis\naddress = %s\nuser = root\n"
	        "password = root\n[control]\nlisten = %s\n[state]\n"
	        "dir = %s/state\n[cabling]\nh0.0 = A 1 17\n",
	        f->tl1[0], f->sock, f->dir);
	fclose(c);
	kill(f->ocsd.pid, SIGHUP);
	snprintf(text, sizeof(text), "%s/ocsd.log", f->dir);
	for (i = 0, seen = 0; i < 100 && !seen; i++) {
		assert_non_null(c = fopen(text, "r"));
		while (!seen && fgets(line, sizeof(line), c) != NULL)
			seen = strstr(line, "need a restart; keeping the "
			                    "configuration") != NULL;
		fclose(c);
		if (!seen)
			mono_sleep_ms(50);
	}
	assert_true(seen);
	ok(f, "B connected in-sync", "-br", "status", NULL);
	ok(f, "h0.1 <-> h1.1", "-br", "show", NULL);
}

/* ---- runs over the fabric: agents on both planes -------------------- */

#define FAB_HOSTS 4

static int
setup_rig(void **state)
{
	struct rig_opts o = {.switch_time = "1ms", .fabric = 1};

	*state = rig_up_opts(FAB_HOSTS, &o);
	return (*state ? 0 : -1);
}

/* ocsctl ARGS on the rig succeeds. */
static void
ok_rig(struct rig *r, const char *a, const char *b, const char *c)
{
	char *o, *e;
	int   rv = rig_ctl(r, &o, &e, a, b, c, NULL);

	if (rv != 0)
		fail_msg("ocsctl %s %s %s: exit %d, stderr \"%s\"", a, b, c,
		         rv, e);
	free(o);
	free(e);
}

/* A run, -j; its report (the caller json_decrefs the whole). */
static json_t *
run_json(struct rig *r, const char *algo, int want, char **err)
{
	char        *o, *e;
	json_t      *j;
	json_error_t je;
	int          rv;

	rv = rig_ctl(r, &o, &e, "-j", "run", "--algo", algo, "--bytes",
	             "256KiB", "--reconfig", "all", NULL);
	if ((rv == 0) != want)
		fail_msg("run %s: exit %d, stderr \"%s\"", algo, rv, e);
	j = json_loads(o, 0, &je);
	free(o);
	if (err != NULL)
		*err = e;
	else
		free(e);
	return (j);
}

/* ReTri over two switches of two dialects: each ring direction on its
 * own plane, every block verified, and both switches back to what they
 * held. */
static void
test_fabric_run_retri(void **state)
{
	struct rig *r = *state;
	json_t     *j = run_json(r, "retri", 1, NULL), *rep;
	char       *o, *e;

	assert_non_null(j);
	rep = json_object_get(j, "report");
	assert_non_null(rep);
	assert_true(json_is_true(json_object_get(rep, "verified")));
	assert_true(
	    json_integer_value(json_object_get(rep, "blocks_verified")) > 0);
	assert_int_equal(json_integer_value(json_object_get(rep, "errors")),
	                 0);
	json_decref(j);
	/* The restore is the workers' last job: wait until both hold
	 * nothing again. */
	for (int i = 0; i < 100; i++) {
		int in_sync, rv = rig_ctl(r, &o, &e, "map", "diff", NULL);

		in_sync = rv == 0 && strstr(o, "only on the switch (0)") &&
		          strstr(strstr(o, "only on the switch (0)") + 1,
		                 "only on the switch (0)");
		free(o);
		free(e);
		if (in_sync)
			return;
		mono_sleep_ms(50);
	}
	fail_msg("the switches did not go back after the run");
}

/* Switch B slow (300 ms to switch), A quick (1 ms). */
static int
setup_slow_b(void **state)
{
	struct rig_opts o = {
	    .switch_time = "1ms", .switch_time_b = "300ms", .fabric = 1};

	*state = rig_up_opts(FAB_HOSTS, &o);
	return (*state ? 0 : -1);
}

/*
 * Planes apart on two switches, B much slower than A: every byte
 * verified, and plane A is released before plane B's switch has even
 * settled (A's data flows while B is dark), where together every plane
 * waits for B.
 */
static void
test_fabric_planes_apart(void **state)
{
	struct rig  *r = *state;
	char        *o, *e;
	json_t      *j, *rep, *a, *b;
	json_error_t je;
	double       ra, rb, bb;
	int          rv;

	rv = rig_ctl(r, &o, &e, "-j", "run", "--algo", "retri", "--bytes",
	             "256KiB", "--reconfig", "all", "--planes", "apart", NULL);
	if (rv != 0)
		fail_msg("run: exit %d, stderr \"%s\"", rv, e);
	free(e);
	assert_non_null(j = json_loads(o, 0, &je));
	free(o);
	rep = json_object_get(j, "report");
	assert_true(json_is_true(json_object_get(rep, "verified")));
	assert_int_equal(json_integer_value(json_object_get(rep, "errors")),
	                 0);
	assert_string_equal(json_string_value(json_object_get(rep, "planes")),
	                    "apart");
	assert_non_null(a = rjson_plane(rep, 1, "A"));
	assert_non_null(b = rjson_plane(rep, 1, "B"));
	assert_true(json_is_true(json_object_get(a, "reconfigured")));
	assert_true(json_is_true(json_object_get(b, "reconfigured")));
	ra = json_real_value(json_object_get(a, "release_s"));
	rb = json_real_value(json_object_get(b, "release_s"));
	bb = json_real_value(json_object_get(b, "reconf_s"));
	/* B takes its 300 ms; A is out long before. */
	if (!(bb >= 0.25 && rb >= bb && ra < 0.5 * bb))
		fail_msg("plane A released after %.3f s, B after %.3f s (its "
		         "switch %.3f s)",
		         ra, rb, bb);
	json_decref(j);
	/* Together, the barrier waits for B before anyone sends. */
	rv = rig_ctl(r, &o, &e, "-j", "run", "--algo", "retri", "--bytes",
	             "256KiB", "--reconfig", "all", "--planes", "together",
	             NULL);
	if (rv != 0)
		fail_msg("run: exit %d, stderr \"%s\"", rv, e);
	free(e);
	assert_non_null(j = json_loads(o, 0, &je));
	free(o);
	rep = json_object_get(j, "report");
	assert_true(json_is_true(json_object_get(rep, "verified")));
	assert_string_equal(json_string_value(json_object_get(rep, "planes")),
	                    "together");
	assert_null(rjson_plane(rep, 1, "A"));
	assert_true(json_real_value(json_object_get(
	                json_array_get(json_object_get(rep, "phases"), 1),
	                "reconf_s")) >= 0.25);
	json_decref(j);
	/* One switch has no planes to keep apart: said, not run. */
}

/* Two transceivers a plane: .0 and .1 on A (slow: 150 ms), .2 and .3
 * on B. */
static int
setup_pairs(void **state)
{
	struct rig_opts o = {.switch_time = "150ms",
	                     .switch_time_b = "1ms",
	                     .fabric = 1,
	                     .trx = 4};

	*state = rig_up_opts(5, &o);
	return (*state ? 0 : -1);
}

/*
 * 2q transceivers on q planes: Bridge on 5 hosts (3 phases) spread over
 * the planes taking turns.  Phase 0 sets both (epoch 0 on A, 1 on B);
 * phase 1 runs on B while A changes for epoch 2; phase 2 goes on A once
 * it is released, without a barrier.  Every block verified; together,
 * every phase on both planes, verified too.
 */
static void
test_fabric_planes_spread(void **state)
{
	struct rig  *r = *state;
	const char  *mode[] = {"apart", "together"};
	json_t      *j, *rep, *ph;
	json_error_t je;
	char        *o, *e;
	int          i, rv;

	for (i = 0; i < 2; i++) {
		rv = rig_ctl(r, &o, &e, "-j", "run", "--algo", "bridge",
		             "--bytes", "160KiB", "--reconfig", "all",
		             "--planes", mode[i], NULL);
		if (rv != 0)
			fail_msg("run %s: exit %d, stderr \"%s\"", mode[i], rv,
			         e);
		free(e);
		assert_non_null(j = json_loads(o, 0, &je));
		free(o);
		rep = json_object_get(j, "report");
		assert_true(json_is_true(json_object_get(rep, "verified")));
		assert_string_equal(
		    json_string_value(json_object_get(rep, "planes")),
		    mode[i]);
		ph = json_object_get(rep, "phases");
		assert_int_equal(json_array_size(ph), 3);
		if (i == 0) {
			/* Phase 1 changes A only; B was lit already. */
			assert_true(json_is_true(json_object_get(
			    rjson_plane(rep, 1, "A"), "reconfigured")));
			assert_false(json_is_true(json_object_get(
			    rjson_plane(rep, 1, "B"), "reconfigured")));
			assert_false(json_is_true(json_object_get(
			    json_array_get(ph, 2), "reconfigured")));
		}
		json_decref(j);
	}
}

/* A skewed planner's stages too. */
static void
test_fabric_run_skewed(void **state)
{
	struct rig *r = *state;
	char       *o, *e;
	int         rv;

	rv = rig_ctl(r, &o, &e, "run", "--algo", "spreadout", "--bytes",
	             "64KiB", "--matrix", "zipf:4:0.8:5", NULL);
	if (rv != 0 || strstr(o, "verified") == NULL)
		fail_msg("exit %d, stdout \"%s\", stderr \"%s\"", rv, o, e);
	free(o);
	free(e);
}

/* Switch B refuses a batch mid-run: the run ends naming switch B, B is
 * rolled back, A said to hold its circuits; once the fault is cleared
 * and B's map synced, both are as before. */
static void
test_fabric_switch_fault_mid_run(void **state)
{
	struct rig *r = *state;
	char       *o, *e;
	json_t     *j;
	int         rv;

	rv = rig_ctl(r, &o, &e, "-S", "B", "fault", "deny-half", NULL);
	if (rv != 0)
		fail_msg("fault: exit %d, stderr \"%s\"", rv, e);
	free(o);
	free(e);
	j = run_json(r, "retri", 0, &e);
	if (strstr(e, "switch B: ") == NULL ||
	    strstr(e, "switch A holds the new circuits") == NULL)
		fail_msg("stderr \"%s\"", e);
	free(e);
	json_decref(j);
	rv = rig_ctl(r, &o, &e, "-S", "B", "fault", "none", NULL);
	free(o);
	free(e);
	assert_int_equal(rv, 0);
	/* The run's restore may have met the fault on B: sync puts the
	 * desired map back; then both are in sync. */
	rv = rig_ctl(r, &o, &e, "map", "sync", NULL);
	free(o);
	free(e);
	assert_int_equal(rv, 0);
	rv = rig_ctl(r, &o, &e, "-br", "status", NULL);
	if (rv != 0 || strstr(o, "A connected in-sync") == NULL ||
	    strstr(o, "B connected in-sync") == NULL)
		fail_msg("status: %s", o);
	free(o);
	free(e);
	/* And the fabric runs again. */
	json_decref(run_json(r, "retri", 1, NULL));
}

/* Both circuits, and nothing else, read from ocsd (-br show). */
static int
holds_only(struct rig *r, const char *c1, const char *c2)
{
	char *o, *e;
	int   ok = rig_ctl(r, &o, &e, "-br", "show", NULL) == 0 &&
	         strstr(o, c1) != NULL && strstr(o, c2) != NULL &&
	         proc_nlines(o) == 2;

	free(o);
	free(e);
	return (ok);
}

/*
 * ocsd killed (-9) mid-run on a fabric: both switches keep the run's
 * circuits, and the run's intent on disk explains them; the restarted
 * ocsd reconciles every switch (each puts the operator's map back) and
 * forgets the intent only once both have.
 */
static void
test_fabric_ocsd_killed_mid_run(void **state)
{
	struct rig *r = *state;
	struct proc run;
	char        bin[256], log[300], intent[300], *o, *e;
	char       *argv[] = {
	          (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
	          "-s",
	          r->sock,
	          "run",
	          "--algo",
	          "static",
	          "--bytes",
	          "256MiB",
	          NULL};
	int i, busy = 0;

	ok_rig(r, "connect", "h00.0", "h01.0");
	ok_rig(r, "connect", "h00.1", "h01.1");
	assert_true(holds_only(r, "h00.0 <-> h01.0", "h00.1 <-> h01.1"));
	snprintf(log, sizeof(log), "%s/run.err", r->dir);
	assert_int_equal(proc_start(&run, argv, log), 0);
	/* In the phase: the run's circuits on the switches. */
	for (i = 0; i < 1000 && !busy; i++) {
		busy = !holds_only(r, "h00.0 <-> h01.0", "h00.1 <-> h01.1");
		if (!busy)
			mono_sleep_ms(5);
	}
	assert_true(busy);
	proc_stop(&r->ocsd, SIGKILL);
	proc_wait(&run, 5000);
	snprintf(intent, sizeof(intent), "%s/state/run.state", r->dir);
	assert_int_equal(access(intent, F_OK), 0);
	assert_int_equal(rig_ocsd_restart(r), 0);
	for (i = 0; i < 300; i++) {
		if (holds_only(r, "h00.0 <-> h01.0", "h00.1 <-> h01.1") &&
		    access(intent, F_OK) == -1)
			break;
		mono_sleep_ms(20);
	}
	assert_true(holds_only(r, "h00.0 <-> h01.0", "h00.1 <-> h01.1"));
	assert_int_equal(access(intent, F_OK), -1);
	assert_int_equal(rig_ctl(r, &o, &e, "-br", "status", NULL), 0);
	if (strstr(o, "A connected in-sync") == NULL ||
	    strstr(o, "B connected in-sync") == NULL)
		fail_msg("status: %s", o);
	free(o);
	free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_fabric_connect_per_switch,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_for_all, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(
	        test_fabric_restart_reconciles_both, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_one_switch_fails,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_reload, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_run_retri, setup_rig,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_run_skewed, setup_rig,
	                                    rig_teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_planes_apart,
	                                    setup_slow_b, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_planes_spread,
	                                    setup_pairs, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_switch_fault_mid_run,
	                                    setup_rig, rig_teardown),
	    cmocka_unit_test_setup_teardown(test_fabric_ocsd_killed_mid_run,
	                                    setup_rig, rig_teardown),
	};

	return (cmocka_run_group_tests_name("fabric", tests, NULL, NULL));
}
