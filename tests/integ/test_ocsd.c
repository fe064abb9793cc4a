/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_ocsd.c: ocs-emu, ocsd and ocsctl as real processes on
 * loopback (ephemeral TCP port, IPC socket in a scratch directory):
 * connect/show/disconnect, apply and clear, a restart of ocsd that keeps
 * live circuits, changes behind ocsd's back held until told, an
 * unreachable switch, and bad configurations and commands.  Every test
 * runs twice: through the polatis driver (TL1) and through the calient
 * driver (REST); the switch is read back over TL1 either way, so the two
 * faces of ocs-emu are checked to agree too.
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/proc.h"

struct fx {
	char       *dir;
	struct proc emu, ocsd;
	char        addr[64], conf[300], sock[320];
	const char *driver;
	char        rest[64], swaddr[80]; /* REST ADDR:PORT; conf address */
	const char *timeout, *poll;       /* [switch] lines; NULL: 1s, 0 */
};

/* Start ocs-emu; again (after a stop) on the same addresses. */
static void
emu_start(struct fx *f, int again)
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

	snprintf(tl1, sizeof(tl1), "%s", again ? f->addr : "127.0.0.1:0");
	snprintf(rest, sizeof(rest), "%s", again ? f->rest : "127.0.0.1:0");
	snprintf(log, sizeof(log), "%s/emu.log", f->dir);
	snprintf(st, sizeof(st), "%s/emu.state", f->dir);
	assert_int_equal(proc_start(&f->emu, argv, log), 0);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	snprintf(f->addr, sizeof(f->addr), "%.63s", line + 13);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	snprintf(f->rest, sizeof(f->rest), "%.63s", line + 14);
	if (strcmp(f->driver, "calient") == 0)
		snprintf(f->swaddr, sizeof(f->swaddr), "http://%s", f->rest);
	else
		snprintf(f->swaddr, sizeof(f->swaddr), "%s", f->addr);
}

/* ocsctl -s SOCK args...; returns the exit status. */
static int
ctl(struct fx *f, char **out, char **err, ...)
{
	char    bin[256], sarg[330], *argv[16];
	int     n = 0, rv;
	va_list ap;

	snprintf(sarg, sizeof(sarg), "%s", f->sock);
	argv[n++] = (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin));
	argv[n++] = "-s";
	argv[n++] = sarg;
	va_start(ap, err);
	while ((argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	rv = proc_run(argv, out, err);
	return (rv);
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
	int   i;

	snprintf(log, sizeof(log), "%s/ocsd.log", f->dir);
	assert_int_equal(proc_start(&f->ocsd, argv, log), 0);
	/* Ready when it answers and has met the switch. */
	for (i = 0; i < 100; i++) {
		int rv = ctl(f, &o, &e, "status", NULL);
		int up = rv == 0 && strstr(o, ": connected") != NULL;

		free(o);
		free(e);
		if (up)
			return;
		mono_sleep_ms(50);
	}
	fail_msg("ocsd did not come up (see %s)", log);
}

static void
write_conf(struct fx *f, const char *path, const char *extra)
{
	FILE *c = fopen(path, "w");
	int   h, t;

	assert_non_null(c);
	fprintf(c,
	        "[switch]\ndriver = %s\naddress = %s\nuser = root\n"
	        "password = root\ntimeout = %s\nswitch_time = 5ms\n%s\n"
	        "[control]\nlisten = %s\n[state]\ndir = %s/state\n%s"
	        "[cabling]\n",
	        f->driver, f->swaddr, f->timeout ? f->timeout : "1s",
	        f->poll ? f->poll : "poll = 0", f->sock, f->dir,
	        extra ? extra : "");
	for (h = 0; h < 4; h++)
		for (t = 0; t < 2; t++)
			fprintf(c, "h%d.%d = %d %d\n", h, t, 2 * h + t + 1,
			        2 * h + t + 17);
	fclose(c);
}

static int
setup(void **state, const char *driver)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->driver = driver;
	f->dir = proc_tmpdir("ocsd");
	snprintf(f->conf, sizeof(f->conf), "%s/ocsd.conf", f->dir);
	snprintf(f->sock, sizeof(f->sock), "ipc://%s/ctl.sock", f->dir);
	emu_start(f, 0);
	write_conf(f, f->conf, NULL);
	ocsd_start(f);
	*state = f;
	return (0);
}

static int
setup_polatis(void **state)
{
	return (setup(state, "polatis"));
}

static int
setup_calient(void **state)
{
	return (setup(state, "calient"));
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	int dirty;

	if (f->ocsd.pid)
		proc_stop(&f->ocsd, SIGTERM);
	if (f->emu.pid)
		proc_stop(&f->emu, SIGTERM);
	dirty = proc_log_dirty(&f->ocsd) | proc_log_dirty(&f->emu);
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

/* The switch's own map, read with the driver (not through ocsd). */
static void
switch_map(struct fx *f, uint16_t *map)
{
	struct drv_opts o = {
	    .user = "root", .password = "root", .timeout_ms = 2000};
	struct drv *d;

	assert_int_equal(drv_open(&d, "polatis", f->addr, &o), 0);
	assert_int_equal(drv_read_map(d, map, 16), 0);
	drv_close(d);
}

static json_t *
show(struct fx *f)
{
	char        *o, *e;
	json_t      *j;
	json_error_t je;

	assert_int_equal(ctl(f, &o, &e, "-j", "show", NULL), 0);
	j = json_loads(o, 0, &je);
	if (j == NULL)
		fail_msg("bad JSON: %s", o);
	free(o);
	free(e);
	return (j);
}

/* One line on stderr, naming needle; nothing on stdout. */
static void
expect_fail(int rv, int want, char **o, char **e, const char *needle)
{
	if (rv != want || strstr(*e, needle) == NULL || proc_nlines(*e) != 1 ||
	    (*o)[0] != '\0')
		fail_msg("exit %d (want %d), stderr \"%s\" (want one line "
		         "with \"%s\"), stdout \"%s\"",
		         rv, want, *e, needle, *o);
	free(*o);
	free(*e);
}

static void
test_ocsd_connect_show_disconnect(void **state)
{
	struct fx *f = *state;
	uint16_t   map[17];
	json_t    *j, *c;
	char      *o, *e;

	struct stat st;

	/* The operator socket: owner and group only. */
	assert_int_equal(stat(f->sock + 6, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0660);
	assert_int_equal(ctl(f, &o, &e, "connect", "h0.0", "h1.1", NULL), 0);
	assert_non_null(strstr(o, "2 patch changes applied and read back"));
	free(o);
	free(e);
	switch_map(f, map);
	assert_int_equal(map[1], 20); /* h0.0 TX -> h1.1 RX */
	assert_int_equal(map[4], 17); /* h1.1 TX -> h0.0 RX */
	j = show(f);
	assert_true(json_is_true(json_object_get(j, "in_sync")));
	c = json_array_get(json_object_get(j, "circuits"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "a")),
	                    "h0.0");
	assert_string_equal(json_string_value(json_object_get(c, "b")),
	                    "h1.1");
	assert_true(json_is_true(json_object_get(c, "complete")));
	assert_int_equal(json_array_size(json_object_get(j, "live")), 2);
	json_decref(j);
	/* A busy transceiver is refused, naming who holds it. */
	expect_fail(ctl(f, &o, &e, "connect", "h0.0", "h2.0", NULL), 1, &o, &e,
	            "ingress 1 (h0.0 TX) is patched to 20 (h1.1 RX)");
	/* Raw ports work too. */
	assert_int_equal(ctl(f, &o, &e, "connect", "8", "32", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "disconnect", "h1.1", "32", NULL), 0);
	free(o);
	free(e);
	switch_map(f, map);
	assert_int_equal(map[1], 0);
	assert_int_equal(map[4], 0);
	assert_int_equal(map[8], 0);
}

static void
test_ocsd_apply_and_clear(void **state)
{
	struct fx *f = *state;
	char       path[320], want[400], *o, *e;
	uint16_t   map[17];
	FILE      *fp;

	snprintf(path, sizeof(path), "%s/ring.map", f->dir);
	fp = fopen(path, "w");
	fprintf(fp, "# a ring of four hosts\nh0.0 h1.1\nh1.0 h2.1\n\n"
	            "h2.0 h3.1   # comment\nh3.0 h0.1\n");
	fclose(fp);
	assert_int_equal(ctl(f, &o, &e, "apply", path, NULL), 0);
	assert_non_null(strstr(o, "8 patch changes"));
	free(o);
	free(e);
	switch_map(f, map);
	assert_int_equal(map[3], 22); /* h1.0 -> h2.1 */
	assert_int_equal(map[7], 18); /* h3.0 -> h0.1 */
	/* A conflicting file: FILE:LINE, switch untouched. */
	fp = fopen(path, "w");
	fprintf(fp, "h0.0 h1.1\n# x\nh2.0 h1.1\n");
	fclose(fp);
	snprintf(want, sizeof(want), "%s:3:", path);
	expect_fail(ctl(f, &o, &e, "apply", path, NULL), 1, &o, &e, want);
	switch_map(f, map);
	assert_int_equal(map[3], 22);
	fp = fopen(path, "w");
	fprintf(fp, "h0.0\n");
	fclose(fp);
	expect_fail(ctl(f, &o, &e, "apply", path, NULL), 1, &o, &e,
	            "ring.map:1: expected \"A B\"");
	assert_int_equal(ctl(f, &o, &e, "clear", NULL), 0);
	free(o);
	free(e);
	switch_map(f, map);
	for (int i = 1; i <= 16; i++)
		assert_int_equal(map[i], 0);
}

/* A map that cannot be read, or has nothing in it, never clears the
 * switch: only --force (or clear) empties it on purpose (issue 11). */
static void
test_ocsd_apply_refuses_nothing(void **state)
{
	struct fx *f = *state;
	char       path[320], big[320], *o, *e;
	uint16_t   map[17];
	FILE      *fp;

	snprintf(path, sizeof(path), "%s/one.map", f->dir);
	snprintf(big, sizeof(big), "%s/big.map", f->dir);
	fp = fopen(path, "w");
	fprintf(fp, "h0.0 h1.1\n");
	fclose(fp);
	assert_int_equal(ctl(f, &o, &e, "apply", path, NULL), 0);
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "apply", f->dir, NULL), 1, &o, &e,
	            "Is a directory");
	expect_fail(ctl(f, &o, &e, "apply", "/dev/null", NULL), 1, &o, &e,
	            "no patches");
	fp = fopen(path, "w");
	fprintf(fp, "# nothing but a comment\n\n");
	fclose(fp);
	expect_fail(ctl(f, &o, &e, "apply", path, NULL), 1, &o, &e, "--force");
	switch_map(f, map);
	assert_int_equal(map[1], 20); /* h0.0 -> h1.1 still there */
	assert_int_equal(ctl(f, &o, &e, "apply", "--force", path, NULL), 0);
	assert_non_null(strstr(o, "2 patch changes"));
	free(o);
	free(e);
	switch_map(f, map);
	assert_int_equal(map[1], 0);
	/* A map longer than the switch names its first impossible line. */
	fp = fopen(big, "w");
	for (int i = 1; i <= 10000; i++)
		fprintf(fp, "%d %d\n", i, i + 16);
	fclose(fp);
	expect_fail(ctl(f, &o, &e, "apply", big, NULL), 1, &o, &e,
	            "big.map:17: port 33 is not on a 16x16 switch");
	/* A binary file's bytes are not echoed raw. */
	fp = fopen(big, "w");
	fprintf(fp, "\x01\x02\xff x\x80\n");
	fclose(fp);
	expect_fail(ctl(f, &o, &e, "apply", big, NULL), 1, &o, &e,
	            "big.map:1: expected \"A B\", got \"\\x01\\x02\\xff "
	            "x\\x80\"");
}

/* The desired map is written before the switch is touched: when it
 * cannot be, nothing changes and the answer says so; a change is never
 * reported failed once it is on the switch (issue 11). */
static void
test_ocsd_intent_saved_first(void **state)
{
	struct fx *f = *state;
	char       state_dir[300], path[320], *o, *e;
	uint16_t   map[17];

	snprintf(state_dir, sizeof(state_dir), "%s/state", f->dir);
	proc_rmtree(state_dir);
	expect_fail(ctl(f, &o, &e, "connect", "h0.0", "h1.1", NULL), 1, &o, &e,
	            "nothing changed");
	switch_map(f, map);
	assert_int_equal(map[1], 0);
	assert_int_equal(map[4], 0);
	/* Back: the change goes through, and is what a restart finds. */
	assert_int_equal(mkdir(state_dir, 0750), 0);
	assert_int_equal(ctl(f, &o, &e, "connect", "h0.0", "h1.1", NULL), 0);
	free(o);
	free(e);
	switch_map(f, map);
	assert_int_equal(map[1], 20);
	snprintf(path, sizeof(path), "%s/desired.map", state_dir);
	{
		FILE *fp = fopen(path, "r");
		char  buf[256];
		int   found = 0;

		assert_non_null(fp);
		while (fgets(buf, sizeof(buf), fp) != NULL)
			found += strcmp(buf, "1 20\n") == 0;
		fclose(fp);
		assert_int_equal(found, 1);
	}
}

/* A conf of its own for a second ocsd: the in-process switch, a control
 * socket and state of its own, agents with the given secret file. */
static void
own_conf(struct fx *f, const char *path, const char *secret)
{
	FILE *c = fopen(path, "w");

	assert_non_null(c);
	fprintf(c,
	        "[switch]\ndriver = emu\nports = 8\n[control]\n"
	        "listen = ipc://%s/d.sock\n[state]\ndir = %s/dstate\n"
	        "[agents]\nlisten = ipc://%s/dag.sock\n"
	        "secret_file = %s\n",
	        f->dir, f->dir, f->dir, secret);
	fclose(c);
}

/* Without -d, ocsd exits 0 only once it serves, with a pid file; a
 * start-up error is printed and the exit is 1, with nothing left running
 * (issue 11). */
static void
test_ocsd_detaches_when_ready(void **state)
{
	struct fx *f = *state;
	char       bin[PATH_MAX], conf[300], pidf[300], sec[300], sock[320];
	char       cwd[PATH_MAX], *o, *e;
	char *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                "-f",
	                conf,
	                "-p",
	                pidf,
	                NULL};
	char *nargv[] = {argv[0], "-n", "-f", conf, NULL};
	FILE *fp;
	long  pid = 0;
	int   i;

	snprintf(conf, sizeof(conf), "%s/d.conf", f->dir);
	snprintf(pidf, sizeof(pidf), "%s/ocsd.pid", f->dir);
	/* ocsd is started from f->dir with "-p ocsd.pid", as the README
	 * does: removed at exit although the daemon's cwd is / (issue 34:
	 * it was left behind). */
	assert_non_null(realpath(argv[0], bin));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	argv[4] = "ocsd.pid";
	/* A secret others may read: refused by -n and by the start. */
	snprintf(sec, sizeof(sec), "%s/secret", f->dir);
	fp = fopen(sec, "w");
	fprintf(fp, "0123456789abcdef0123456789abcdef\n");
	fclose(fp);
	chmod(sec, 0644);
	own_conf(f, conf, "secret"); /* relative: beside d.conf */
	assert_int_equal(proc_run(nargv, &o, &e), 1);
	assert_non_null(strstr(e, "readable by others"));
	free(o);
	free(e);
	assert_int_equal(proc_run(argv, &o, &e), 1);
	assert_non_null(strstr(e, "readable by others"));
	free(o);
	free(e);
	assert_int_equal(access(pidf, F_OK), -1);
	/* Fixed: the parent returns once it serves. */
	chmod(sec, 0600);
	assert_int_equal(proc_run(nargv, &o, &e), 0);
	free(o);
	free(e);
	assert_int_equal(chdir(f->dir), 0);
	i = proc_run(argv, &o, &e);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(i, 0);
	free(o);
	free(e);
	assert_non_null(fp = fopen(pidf, "r"));
	assert_int_equal(fscanf(fp, "%ld", &pid), 1);
	fclose(fp);
	assert_int_equal(kill((pid_t)pid, 0), 0);
	snprintf(sock, sizeof(sock), "ipc://%s/d.sock", f->dir);
	{
		char *cargv[] = {
		    (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
		    "-s", sock, "status", NULL};

		assert_int_equal(proc_run(cargv, &o, &e), 0);
		free(o);
		free(e);
	}
	kill((pid_t)pid, SIGTERM);
	for (i = 0; i < 100 && kill((pid_t)pid, 0) == 0; i++)
		mono_sleep_ms(50);
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(access(pidf, F_OK), -1);
}

/* ocsctl's usage and errors say what they should, once, in the format
 * asked for (issue 11). */
static void
test_ocsd_ocsctl_manners(void **state)
{
	struct fx *f = *state;
	char      *o, *e;
	json_t    *j;

	expect_fail(ctl(f, &o, &e, "frobnicate", NULL), 2, &o, &e,
	            "agents, run, abort");
	assert_int_equal(ctl(f, &o, &e, "-h", NULL), 0);
	assert_non_null(strstr(o, "usage: ocsctl"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "--help", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "--version", NULL), 0);
	assert_non_null(strstr(o, "ocsctl "));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "--json", "status", NULL), 0);
	assert_non_null(j = json_loads(o, 0, NULL));
	json_decref(j);
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "-json", "status", NULL), 2, &o, &e,
	            "--json");
	/* The endpoints once, not echoed by the client and again by ocsd. */
	assert_int_equal(ctl(f, &o, &e, "connect", "h0.1", "2", NULL), 1);
	assert_null(strstr(strstr(e, "h0.1") + 1, "h0.1"));
	free(o);
	free(e);
	/* Under -j an error is a JSON object too. */
	assert_int_equal(ctl(f, &o, &e, "-j", "connect", "3", "99", NULL), 1);
	assert_non_null(j = json_loads(o, 0, NULL));
	assert_non_null(
	    strstr(json_string_value(json_object_get(j, "error")), "port 99"));
	json_decref(j);
	free(o);
	free(e);
}

static void
test_ocsd_restart_keeps_live_circuits(void **state)
{
	struct fx *f = *state;
	uint16_t   before[17], after[17];
	json_t    *j;
	char      *o, *e;
	int        st;

	assert_int_equal(ctl(f, &o, &e, "connect", "h2.0", "h3.1", NULL), 0);
	free(o);
	free(e);
	st = proc_stop(&f->ocsd, SIGTERM);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	switch_map(f, before);
	assert_int_equal(before[5], 24);
	ocsd_start(f);
	switch_map(f, after);
	assert_memory_equal(before, after, sizeof(before));
	j = show(f);
	assert_true(json_is_true(json_object_get(j, "in_sync")));
	assert_int_equal(json_array_size(json_object_get(j, "circuits")), 1);
	json_decref(j);
}

/* A change made on the switch while ocsd was down is held, not undone. */
static void
test_ocsd_holds_outside_changes(void **state)
{
	struct fx      *f = *state;
	struct drv_opts o = {
	    .user = "root", .password = "root", .timeout_ms = 2000};
	struct drv_patch p = {9, 25};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	struct drv      *d;
	uint16_t         map[17];
	json_t          *j;
	char            *out, *err;

	proc_stop(&f->ocsd, SIGTERM);
	assert_int_equal(drv_open(&d, "polatis", f->addr, &o), 0);
	assert_int_equal(drv_apply(d, &b), 0);
	drv_close(d);
	ocsd_start(f);
	switch_map(f, map);
	assert_int_equal(map[9], 25);
	assert_int_equal(ctl(f, &out, &err, "-j", "map", "diff", NULL), 0);
	j = json_loads(out, 0, NULL);
	assert_true(json_is_false(json_object_get(j, "in_sync")));
	assert_int_equal(json_array_size(json_object_get(j, "only_live")), 1);
	json_decref(j);
	free(out);
	free(err);
	assert_int_equal(ctl(f, &out, &err, "map", "sync", NULL), 0);
	free(out);
	free(err);
	switch_map(f, map);
	assert_int_equal(map[9], 0);
}

static void
test_ocsd_switch_unreachable(void **state)
{
	struct fx *f = *state;
	char       addr[80], *o, *e;

	snprintf(addr, sizeof(addr), "%s", f->swaddr);
	proc_stop(&f->emu, SIGTERM);
	expect_fail(ctl(f, &o, &e, "connect", "h0.0", "h1.1", NULL), 1, &o, &e,
	            addr);
	/* ocsd keeps serving and says what is wrong. */
	assert_int_equal(ctl(f, &o, &e, "status", NULL), 0);
	assert_non_null(strstr(o, "NOT CONNECTED"));
	/* What the switch holds is not known now (issue 11). */
	assert_null(strstr(o, "matches"));
	assert_non_null(strstr(o, "map: unknown"));
	free(o);
	free(e);
	emu_start(f, 1);
	assert_int_equal(ctl(f, &o, &e, "connect", "h0.0", "h1.1", NULL), 0);
	free(o);
	free(e);
}

/* Status until it holds needle, for ms at most; 0 when it did. */
static int
status_until(struct fx *f, const char *needle, int ms, char *last, size_t len)
{
	uint64_t t0 = mono_ms();
	char    *o, *e;
	int      hit;

	do {
		assert_int_equal(ctl(f, &o, &e, "status", NULL), 0);
		hit = strstr(o, needle) != NULL;
		snprintf(last, len, "%s", o);
		free(o);
		free(e);
		if (hit)
			return (0);
		mono_sleep_ms(100);
	} while (mono_ms() - t0 < (uint64_t)ms);
	return (-1);
}

/* A dead switch is found by the next probe, at the default interval
 * (it was 30 s, status said "connected" all that while); a probe that
 * hangs leaves the read-back to age, and status says it is overdue. */
static void
test_ocsd_status_follows_the_switch(void **state)
{
	struct fx *f = *state;
	char       last[2048];

	proc_stop(&f->ocsd, SIGTERM);
	f->poll = "# poll: the default";
	write_conf(f, f->conf, NULL);
	ocsd_start(f);
	proc_stop(&f->emu, SIGKILL);
	if (status_until(f, "NOT CONNECTED", 7000, last, sizeof(last)) != 0)
		fail_msg("7 s after the switch died, status still says: %s",
		         last);
	emu_start(f, 1);
	assert_int_equal(
	    status_until(f, ": connected", 5000, last, sizeof(last)), 0);
	/* A switch that stops answering: the probe waits its timeout. */
	proc_stop(&f->ocsd, SIGTERM);
	f->poll = "poll = 1s";
	f->timeout = "8s";
	write_conf(f, f->conf, NULL);
	ocsd_start(f);
	kill(f->emu.pid, SIGSTOP);
	if (status_until(f, "overdue", 5000, last, sizeof(last)) != 0) {
		kill(f->emu.pid, SIGCONT);
		fail_msg("a stopped switch, 5 s on, status says: %s", last);
	}
	kill(f->emu.pid, SIGCONT);
	assert_null(strstr(last, "NOT CONNECTED"));
	assert_non_null(strstr(last, "read back"));
}

/* A relative ipc:// socket is the configuration's neighbour, not the
 * cwd's, and is gone when ocsd stops (issue 34). */
static void
test_ocsd_relative_socket(void **state)
{
	struct fx  *f = *state;
	char        abs[320], path[300];
	struct stat st;

	proc_stop(&f->ocsd, SIGTERM);
	snprintf(abs, sizeof(abs), "%s", f->sock);
	snprintf(f->sock, sizeof(f->sock), "ipc://rel-%d.sock", (int)getpid());
	write_conf(f, f->conf, NULL);
	snprintf(path, sizeof(path), "%s/rel-%d.sock", f->dir, (int)getpid());
	snprintf(f->sock, sizeof(f->sock), "ipc://%s", path);
	ocsd_start(f);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(stat(path + strlen(f->dir) + 1, &st), -1);
	proc_stop(&f->ocsd, SIGTERM);
	if (stat(path, &st) == 0)
		fail_msg("%s left behind", path);
	snprintf(f->sock, sizeof(f->sock), "%s", abs);
}

static void
test_ocsd_bad_config_and_commands(void **state)
{
	struct fx *f = *state;
	char       bin[256], bad[320], sock[320], *o, *e;
	char *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                "-n", "-f", bad, NULL};
	FILE *fp;

	snprintf(bad, sizeof(bad), "%s/bad.conf", f->dir);
	write_conf(f, bad, "reconcile = sometimes\n");
	expect_fail(
	    proc_run(argv, &o, &e), 1, &o, &e,
	    "bad.conf:13: reconcile: \"sometimes\": expected hold, push or "
	    "adopt");
	write_conf(f, bad, NULL);
	fp = fopen(bad, "a");
	fprintf(fp, "h9.0 = 1 30\n");
	fclose(fp);
	expect_fail(proc_run(argv, &o, &e), 1, &o, &e,
	            "bad.conf:22: h9.0: \"1 30\": port 1 also cabled to h0.0");
	argv[3] = f->conf;
	assert_int_equal(proc_run(argv, &o, &e), 0);
	assert_non_null(strstr(e, "configuration OK"));
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "connect", "h9.9", "h1.1", NULL), 1, &o, &e,
	            "unknown transceiver \"h9.9\"");
	expect_fail(ctl(f, &o, &e, "connect", "3", "99", NULL), 1, &o, &e,
	            "port 99 is not on a 16x16 switch");
	expect_fail(ctl(f, &o, &e, "frobnicate", NULL), 2, &o, &e,
	            "\"frobnicate\": unknown command");
	expect_fail(ctl(f, &o, &e, "map", "merge", NULL), 2, &o, &e,
	            "map \"merge\"");
	snprintf(sock, sizeof(sock), "%s", f->sock);
	snprintf(f->sock, sizeof(f->sock), "ipc://%s/none.sock", f->dir);
	expect_fail(ctl(f, &o, &e, "status", NULL), 1, &o, &e,
	            "cannot reach ocsd");
	snprintf(f->sock, sizeof(f->sock), "%s", sock);
}

/* ip's manners: help, per-command help, unique prefixes, -br, sorted
 * output, show's parts. */
static void
test_ocsd_ocsctl_like_ip(void **state)
{
	struct fx *f = *state;
	char      *o, *e;

	assert_int_equal(ctl(f, &o, &e, "help", NULL), 0);
	assert_non_null(strstr(o, "fault"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "help", "run", NULL), 0);
	assert_non_null(strstr(o, "usage: ocsctl run --algo"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "apply", "--help", NULL), 0);
	assert_non_null(strstr(o, "usage: ocsctl apply [--force] FILE"));
	free(o);
	free(e);
	/* A unique prefix is the command; an ambiguous one names both. */
	assert_int_equal(ctl(f, &o, &e, "con", "h2.0", "h0.0", NULL), 0);
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "conn", "h1.1", "h3.0", NULL), 0);
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "s", NULL), 2, &o, &e,
	            "\"s\": ambiguous (show, status)");
	/* -br: one circuit a line, sorted (h0.0 before h1.1). */
	assert_int_equal(ctl(f, &o, &e, "-br", "sh", NULL), 0);
	assert_string_equal(o, "h0.0 <-> h2.0\nh1.1 <-> h3.0\n");
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "--brief", "show", "patches", NULL),
	                 0);
	assert_int_equal(proc_nlines(o), 4);
	assert_non_null(strstr(o, "1 21 h0.0 h2.0\n"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "show", "cabling", NULL), 0);
	assert_null(strstr(o, "circuits"));
	assert_non_null(strstr(o, "transceivers (8):"));
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "show", "wires", NULL), 2, &o, &e,
	            "show \"wires\": expected switch");
	assert_int_equal(ctl(f, &o, &e, "-br", "status", NULL), 0);
	assert_string_equal(o, "connected in-sync\n");
	free(o);
	free(e);
	/* Help says each command whole, not its first line. */
	assert_int_equal(ctl(f, &o, &e, "help", NULL), 0);
	assert_non_null(strstr(o, "no patches would clear every circuit"));
	free(o);
	free(e);
	/* Under -j, what ocsctl refuses itself is JSON on stdout too, and
	 * an argument's control bytes never reach the terminal raw. */
	assert_int_equal(ctl(f, &o, &e, "-j", "run", "--algo", "x", NULL), 2);
	assert_non_null(strstr(o, "\"error\": \"run: --algo and --bytes"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "-j", "show", "\033[2Jwires", NULL),
	                 2);
	assert_non_null(strstr(o, "\"error\": \"show \\\"\\u001B[2Jwires"));
	assert_null(strchr(e, '\033'));
	assert_non_null(strstr(e, "\\x1b[2Jwires"));
	free(o);
	free(e);
}

/* Every port's power from the switch; faults for rehearsals go to
 * ocs-emu through the driver, and show up there. */
static void
test_ocsd_ports_and_faults(void **state)
{
	struct fx *f = *state;
	char      *o, *e;
	json_t    *j, *p;
	size_t     i;

	assert_int_equal(ctl(f, &o, &e, "fault", "lose=3", NULL), 0);
	assert_non_null(strstr(o, "faults now: lose=3"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "-j", "show", "ports", NULL), 0);
	assert_non_null(j = json_loads(o, 0, NULL));
	free(o);
	free(e);
	assert_int_equal(json_array_size(json_object_get(j, "ports")), 32);
	json_array_foreach(json_object_get(j, "ports"), i, p)
	{
		int port = (int)json_integer_value(json_object_get(p, "port"));
		double dbm = json_real_value(json_object_get(p, "dbm"));

		/* TL1 knows only power; REST says FAILED too. */
		if (port == 3)
			assert_true(dbm <= -40 || json_is_true(json_object_get(
			                              p, "failed")));
		else if (port == 4)
			assert_true(dbm > -40);
		if (port == 3)
			assert_string_equal(json_string_value(json_object_get(
			                        p, "transceiver")),
			                    "h1.0");
	}
	json_decref(j);
	assert_int_equal(ctl(f, &o, &e, "show", "ports", NULL), 0);
	assert_non_null(strstr(o, "egress"));
	free(o);
	free(e);
	assert_int_equal(ctl(f, &o, &e, "fault", "none", NULL), 0);
	assert_non_null(strstr(o, "faults now: none"));
	free(o);
	free(e);
	expect_fail(ctl(f, &o, &e, "fault", "drop=x", NULL), 1, &o, &e,
	            "drop");
	expect_fail(ctl(f, &o, &e, "fault", "a b", NULL), 1, &o, &e, "blanks");
}

#define BOTH(fn)                                                              \
	{#fn "/polatis", fn, setup_polatis, teardown, NULL},                  \
	{                                                                     \
#fn "/calient", fn, setup_calient, teardown, NULL             \
	}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    BOTH(test_ocsd_connect_show_disconnect),
	    BOTH(test_ocsd_apply_and_clear),
	    BOTH(test_ocsd_apply_refuses_nothing),
	    BOTH(test_ocsd_intent_saved_first),
	    {"test_ocsd_detaches_when_ready", test_ocsd_detaches_when_ready,
	     setup_polatis, teardown, NULL},
	    BOTH(test_ocsd_restart_keeps_live_circuits),
	    BOTH(test_ocsd_holds_outside_changes),
	    BOTH(test_ocsd_switch_unreachable),
	    {"test_ocsd_relative_socket", test_ocsd_relative_socket,
	     setup_polatis, teardown, NULL},
	    {"test_ocsd_status_follows_the_switch",
	     test_ocsd_status_follows_the_switch, setup_polatis, teardown,
	     NULL},
	    BOTH(test_ocsd_bad_config_and_commands),
	    {"test_ocsd_ocsctl_manners", test_ocsd_ocsctl_manners,
	     setup_polatis, teardown, NULL},
	    {"test_ocsd_ocsctl_like_ip", test_ocsd_ocsctl_like_ip,
	     setup_polatis, teardown, NULL},
	    BOTH(test_ocsd_ports_and_faults),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("ocsd", tests, NULL, NULL));
}
