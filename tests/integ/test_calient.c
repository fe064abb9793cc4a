/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_calient.c: the calient driver against a real ocs-emu
 * process serving CALIENT REST (and TL1 on the same switch model) on
 * ephemeral ports: add/list/delete, a bulk apply of 162 duplex circuits
 * in one badd, 401 and 403, a status "0" refusal with the device's text,
 * both faces seeing the same circuits, RENAT's requests through the real
 * server, the CALIENT TL1 face and the calient-tl1 driver on the same
 * switch, and the emulator's faults as the drivers meet them.
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
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/proc.h"

#define NPORTS 324

struct fx {
	char       *dir;
	struct proc emu;
	char        tl1[64], rest[80], tl1c[64];
	int         nbadd, nbdel, nlist; /* counted by the trace hook */
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
	if (strstr(line, "rest > POST /rest/crossconnects/?id=badd"))
		f->nbadd++;
	if (strstr(line, "rest > POST /rest/crossconnects/?id=bdel"))
		f->nbdel++;
	if (strstr(line, "rest > GET /rest/crossconnects/?id=list"))
		f->nlist++;
}

static void
emu_start(struct fx *f, const char *extra1, const char *extra2)
{
	char  bin[256], log[300], line[256], ports[16];
	char *argv[20];
	int   n = 0;

	snprintf(log, sizeof(log), "%s/emu.log", f->dir);
	snprintf(ports, sizeof(ports), "%d", NPORTS);
	argv[n++] = (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin));
	argv[n++] = "--tl1";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--rest";
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--ports";
	argv[n++] = ports;
	argv[n++] = "--switch-time";
	argv[n++] = "20ms";
	argv[n++] = "--viewer";
	argv[n++] = "guest:guest";
	argv[n++] = "--tl1-calient";
	argv[n++] = "127.0.0.1:0";
	if (extra1)
		argv[n++] = (char *)(uintptr_t)extra1;
	if (extra2)
		argv[n++] = (char *)(uintptr_t)extra2;
	argv[n] = NULL;
	assert_int_equal(proc_start(&f->emu, argv, log), 0);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: tl1 ", 13), 0);
	snprintf(f->tl1, sizeof(f->tl1), "%.63s", line + 13);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: rest ", 14), 0);
	snprintf(f->rest, sizeof(f->rest), "http://%.63s", line + 14);
	assert_int_equal(proc_line(&f->emu, line, sizeof(line), 5000), 0);
	assert_int_equal(strncmp(line, "ocs-emu: tl1-calient ", 21), 0);
	snprintf(f->tl1c, sizeof(f->tl1c), "%.63s", line + 21);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = proc_tmpdir("calient");
	emu_start(f, NULL, NULL);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int        dirty;

	proc_stop(&f->emu, SIGTERM);
	dirty = proc_log_dirty(&f->emu);
	proc_rmtree(f->dir);
	free(f->dir);
	free(f);
	return (dirty ? -1 : 0);
}

static struct drv *
open_as(struct fx *f, const char *drv, const char *user, const char *pw,
        int expect)
{
	struct drv_opts o = {.user = user,
	                     .password = pw,
	                     .timeout_ms = 1500,
	                     .trace = count,
	                     .trace_arg = f};
	struct drv     *d;

	assert_int_equal(drv_open(&d, drv,
	                          !strcmp(drv, "calient")       ? f->rest
	                          : !strcmp(drv, "calient-tl1") ? f->tl1c
	                                                        : f->tl1,
	                          &o),
	                 expect);
	assert_non_null(d);
	return (d);
}

/* An ocs-emu control command over its REST face. */
static void
fault(struct fx *f, const char *spec)
{
	char  url[200], body[300], *out, *err;
	char *argv[] = {"curl", "-s", "-u", "root:root", "-X",
	                "POST", "-d", body, url,         NULL};

	snprintf(url, sizeof(url), "%s/rest/emu/?id=fault", f->rest);
	snprintf(body, sizeof(body), "{\"fault\":\"%s\"}", spec);
	assert_int_equal(proc_run(argv, &out, &err), 0);
	assert_non_null(strstr(out, "\"status\":\"1\""));
	free(out);
	free(err);
}

static void
test_calient_add_list_delete(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_as(f, "calient", "root", "root", 0);
	struct drv_caps  c;
	struct drv_patch p[3] = {
	    {1, NPORTS + 17}, {17, NPORTS + 1}, {2, NPORTS + 3}};
	struct drv_batch b = {.connect = p, .nconnect = 3};
	uint16_t         dis[1] = {17}, map[NPORTS + 1];

	assert_int_equal(drv_caps(d, &c), 0);
	assert_int_equal(c.nports, NPORTS);
	assert_true(c.bidirectional);
	f->nbadd = f->nlist = 0;
	assert_int_equal(drv_apply(d, &b), 0);
	/* One list to learn the connection names, one bulk add. */
	assert_int_equal(f->nbadd, 1);
	assert_int_equal(f->nlist, 1);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(map[1], NPORTS + 17);
	assert_int_equal(map[17], NPORTS + 1);
	assert_int_equal(map[2], NPORTS + 3);
	/* Taking down one half of the bi 1-17 leaves 1>17 as a uni. */
	b = (struct drv_batch){.disconnect = dis, .ndisconnect = 1};
	f->nbadd = f->nbdel = 0;
	assert_int_equal(drv_apply(d, &b), 0);
	assert_int_equal(f->nbdel, 1);
	assert_int_equal(f->nbadd, 1);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(map[1], NPORTS + 17);
	assert_int_equal(map[17], 0);
	assert_int_equal(map[2], NPORTS + 3);
	drv_close(d);
}

static void
test_calient_bulk_162(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_as(f, "calient", "root", "root", 0);
	struct drv      *t = open_as(f, "polatis", "root", "root", 0);
	struct drv_patch p[2 * 162];
	struct drv_batch b = {.connect = p, .nconnect = 2 * 162};
	uint16_t         map[NPORTS + 1], tmap[NPORTS + 1], all[NPORTS];
	uint64_t         t0;
	int              i;

	/* 162 duplex circuits: port i with port 163 + (i * 7) % 162. */
	for (i = 0; i < 162; i++) {
		int a = i + 1, bb = 163 + (i * 7) % 162;

		p[2 * i] =
		    (struct drv_patch){(uint16_t)a, (uint16_t)(NPORTS + bb)};
		p[2 * i + 1] =
		    (struct drv_patch){(uint16_t)bb, (uint16_t)(NPORTS + a)};
	}
	f->nbadd = 0;
	t0 = mono_ms();
	assert_int_equal(drv_apply(d, &b), 0);
	assert_true(mono_ms() - t0 >= 20); /* answered after settling */
	assert_int_equal(f->nbadd, 1);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	for (i = 0; i < 2 * 162; i++)
		assert_int_equal(map[p[i].in], p[i].out);
	/* TL1 sees the same patches. */
	assert_int_equal(drv_read_map(t, tmap, NPORTS), 0);
	assert_memory_equal(map, tmap, sizeof(map));
	/* And REST sees what TL1 changes. */
	for (i = 0; i < NPORTS; i++)
		all[i] = (uint16_t)(i + 1);
	b = (struct drv_batch){.disconnect = all, .ndisconnect = NPORTS};
	assert_int_equal(drv_apply(t, &b), 0);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	for (i = 1; i <= NPORTS; i++)
		assert_int_equal(map[i], 0);
	drv_close(t);
	drv_close(d);
}

static void
test_calient_auth(void **state)
{
	struct fx  *f = *state;
	struct drv *d = open_as(f, "calient", "root", "wrong", -DRV_EAUTH);
	struct drv_patch p = {1, NPORTS + 2};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	uint16_t         map[NPORTS + 1];

	assert_non_null(strstr(drv_last_error(d), "HTTP 401"));
	assert_non_null(strstr(drv_last_error(d), f->rest));
	drv_close(d);
	/* The viewer reads but may not write: 403, told apart. */
	d = open_as(f, "calient", "guest", "guest", 0);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(drv_apply(d, &b), -DRV_EPERM);
	assert_non_null(strstr(drv_last_error(d), "HTTP 403"));
	drv_close(d);
}

/* curl as RENAT's requests.Session sends: form body, %-escaped '>'. */
static char *
curl(struct fx *f, const char *method, const char *path, const char *form)
{
	char  url[300], *out, *err;
	char *argv[] = {
	    "curl", "-s", "-u", "root:root", "-X", (char *)(uintptr_t)method,
	    url,    NULL, NULL, NULL};

	snprintf(url, sizeof(url), "%s%s", f->rest, path);
	if (form != NULL) {
		argv[7] = "-d";
		argv[8] = (char *)(uintptr_t)form;
	}
	assert_int_equal(proc_run(argv, &out, &err), 0);
	free(err);
	return (out);
}

/* RENAT's bi link through the real server: two form-encoded uni adds,
 * the port detail read as json()[0], DELETE ?conn=A%3EB; the driver
 * reads the two uni connections as the duplex circuit they make. */
static void
test_calient_renat(void **state)
{
	struct fx  *f = *state;
	struct drv *d = open_as(f, "calient", "root", "root", 0);
	uint16_t    map[NPORTS + 1];
	char       *s;

	s = curl(f, "POST", "/rest/crossconnects/",
	         "id=add&in=1.1.1&out=1.1.2&dir=uni");
	assert_string_equal(s, "[{\"status\":\"1\",\"msg\":\"Success\","
	                       "\"description\":\"\"}]");
	free(s);
	free(curl(f, "POST", "/rest/crossconnects/",
	          "id=add&in=1.1.2&out=1.1.1&dir=uni"));
	s = curl(f, "GET", "/rest/ports/?id=detail&port=1.1.2", NULL);
	assert_non_null(strstr(s, "\"incircuit\":\"1.1.2>1.1.1\""));
	assert_non_null(strstr(s, "\"outcircuit\":\"1.1.1>1.1.2\""));
	assert_true(s[0] == '[');
	free(s);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(map[1], NPORTS + 2);
	assert_int_equal(map[2], NPORTS + 1);
	s = curl(f, "DELETE", "/rest/crossconnects/?conn=1.1.1%3E1.1.2", NULL);
	assert_non_null(strstr(s, "\"status\":\"1\""));
	free(s);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(map[1], 0);
	assert_int_equal(map[2], NPORTS + 1);
	drv_close(d);
}

/* CALIENT's TL1 face and the calient-tl1 driver on the same switch as
 * the REST face: what one makes the other reads, by name. */
static void
test_calient_tl1(void **state)
{
	struct fx       *f = *state;
	struct drv      *t = open_as(f, "calient-tl1", "root", "root", 0);
	struct drv      *r = open_as(f, "calient", "root", "root", 0);
	struct drv_caps  c;
	struct drv_patch p[3] = {
	    {1, NPORTS + 17}, {17, NPORTS + 1}, {2, NPORTS + 3}};
	struct drv_batch b = {.connect = p, .nconnect = 3};
	uint16_t         map[NPORTS + 1], dis[1] = {1};
	uint32_t         port;
	char             now[128];
	uint64_t         t0;

	assert_int_equal(drv_caps(t, &c), 0);
	assert_int_equal(c.nports, NPORTS);
	t0 = mono_ms();
	assert_int_equal(drv_apply(t, &b), 0);
	/* Two connections, each answered once its mirrors settled. */
	assert_true(mono_ms() - t0 >= 2 * 20);
	assert_int_equal(drv_read_map(r, map, NPORTS), 0);
	assert_int_equal(map[1], NPORTS + 17);
	assert_int_equal(map[17], NPORTS + 1);
	assert_int_equal(map[2], NPORTS + 3);
	b = (struct drv_batch){.disconnect = dis, .ndisconnect = 1};
	assert_int_equal(drv_apply(r, &b), 0);
	assert_int_equal(drv_read_map(t, map, NPORTS), 0);
	assert_int_equal(map[1], 0);
	assert_int_equal(map[17], NPORTS + 1);
	assert_int_equal(drv_port_lookup(t, "1.2.1", &port), 0);
	assert_int_equal(port, 17);
	/* Faults through the TL1 face, cleared again. */
	assert_int_equal(drv_inject(t, "delay=1ms", now, sizeof(now)), 0);
	assert_non_null(strstr(now, "delay"));
	assert_int_equal(drv_inject(t, "none", now, sizeof(now)), 0);
	drv_close(t);
	drv_close(r);
	t = open_as(f, "calient-tl1", "root", "wrong", -DRV_EAUTH);
	assert_non_null(strstr(drv_last_error(t), "Invalid user or password"));
	drv_close(t);
}

static void
test_calient_status_zero(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_as(f, "calient", "root", "root", 0);
	struct drv      *t = open_as(f, "polatis", "root", "root", 0);
	struct drv_patch p = {5, NPORTS + 6}, q = {9, NPORTS + 6};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	uint16_t         map[NPORTS + 1];

	/* Someone else takes egress 6 between our list and our add: the
	 * device answers HTTP 200 with status "0". */
	assert_int_equal(drv_apply(t, &b), 0);
	b.connect = &q;
	assert_int_equal(d->ops->apply(d->priv, &b), -DRV_EBUSY);
	assert_non_null(strstr(drv_last_error(d), "egress 330"));
	/* Past our own check: the device's text comes back. */
	fault(f, "deny-half");
	{
		struct drv_patch two[2] = {{10, NPORTS + 11},
		                           {12, NPORTS + 13}};

		b = (struct drv_batch){.connect = two, .nconnect = 2};
		assert_int_equal(drv_apply(d, &b), -DRV_EPARTIAL);
		assert_non_null(strstr(drv_last_error(d), "Equipment fault"));
		assert_non_null(strstr(drv_last_error(d), "1 of 2 done"));
	}
	fault(f, "none");
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(map[10], NPORTS + 11);
	assert_int_equal(map[12], 0);
	drv_close(t);
	drv_close(d);
}

/* The faults, as the driver meets them. */
static void
test_calient_faults(void **state)
{
	struct fx       *f = *state;
	struct drv      *d = open_as(f, "calient", "root", "root", 0);
	struct drv_patch p = {20, NPORTS + 21};
	struct drv_batch b = {.connect = &p, .nconnect = 1};
	uint16_t         map[NPORTS + 1];
	uint64_t         t0;

	/* A delayed answer: bounded by the timeout, read retried. */
	fault(f, "delay=2s");
	t0 = mono_ms();
	assert_int_equal(drv_read_map(d, map, NPORTS), -ETIMEDOUT);
	assert_true(mono_ms() - t0 < 2 * 1500 + 500);
	assert_non_null(strstr(drv_last_error(d), "timed out"));
	/* An apply that times out may have been done. */
	fault(f, "none");
	mono_sleep_ms(600); /* the delayed answers drain */
	fault(f, "delay=2s");
	assert_true(drv_apply(d, &b) < 0);
	fault(f, "none");
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	/* Garbage: an unparseable answer is a protocol error. */
	fault(f, "garbage");
	assert_int_equal(drv_read_map(d, map, NPORTS), -DRV_EPROTO);
	assert_non_null(strstr(drv_last_error(d), "not JSON"));
	p = (struct drv_patch){22, NPORTS + 23};
	assert_int_equal(drv_apply(d, &b), -DRV_EPROTO);
	fault(f, "none");
	/* Dropped connections: reads are retried on a new one. */
	fault(f, "drop=2");
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	fault(f, "none");
	/* Refused logins, once the session has to be made again. */
	fault(f, "login");
	drv_close(d);
	d = open_as(f, "calient", "root", "root", -DRV_EAUTH);
	fault(f, "none");
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	drv_close(d);
}

/* VmRSS of pid in KiB. */
static long
rss_kib(pid_t pid)
{
	char  path[64], line[256];
	long  kib = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return (0);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(fp);
	return (kib);
}

/*
 * Requests half sent and left there (issue 34: nng's HTTP server held
 * 3 000 of them after 30 s, RSS 6.5 -> 32 MB): the REST face holds 64
 * from one address, closes each once idle for the login grace, its
 * memory stays put, and the switch answers the driver afterwards.
 */
static void
test_calient_half_sent_requests(void **state)
{
	struct fx  *f = *state;
	static int  fd[300];
	const char *half =
	    "GET /rest/ports/?id=summary HTTP/1.1\r\nHost: x\r\n";
	uint16_t    map[NPORTS + 1];
	struct drv *d;
	long        rss0;
	int         i, open_left, held = 0;
	uint64_t    t0;

	proc_stop(&f->emu, SIGTERM);
	emu_start(f, "--login-grace", "1s");
	rss0 = rss_kib(f->emu.pid);
	for (i = 0; i < 300; i++) {
		fd[i] = net_connect_addr(f->rest + 7, 2000);
		assert_true(fd[i] >= 0);
		(void)!write(fd[i], half, strlen(half));
	}
	mono_sleep_ms(300);
	assert_true(rss_kib(f->emu.pid) - rss0 < 8192);
	/* Held ones are open now; the rest were closed at once. */
	for (i = 0; i < 300; i++) {
		char c;

		held +=
		    recv(fd[i], &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
	}
	assert_true(held > 0 && held <= 64);
	t0 = mono_ms();
	do {
		mono_sleep_ms(100);
		for (open_left = 0, i = 0; i < 300; i++) {
			char c;

			open_left += recv(fd[i], &c, 1, MSG_DONTWAIT) < 0 &&
			             errno == EAGAIN;
		}
	} while (open_left > 0 && mono_ms() - t0 < 4000);
	if (open_left > 0)
		fail_msg("%d of %d half-sent requests still held 4 s after "
		         "a 1 s grace",
		         open_left, held);
	for (i = 0; i < 300; i++)
		close(fd[i]);
	d = open_as(f, "calient", "root", "root", 0);
	assert_int_equal(drv_read_map(d, map, NPORTS), 0);
	drv_close(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_calient_add_list_delete,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_calient_bulk_162, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_calient_auth, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_calient_renat, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_calient_tl1, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_calient_status_zero, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_calient_half_sent_requests,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_calient_faults, setup,
	                                    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests_name("calient", tests, NULL, NULL));
}
