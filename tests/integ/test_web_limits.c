/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/integ/test_web_limits.c: bad requests never take ocs-web or ocsd
 * down.  ocs-emu and ocsd (tests/lib/rig.c, no agents) with ocs-web
 * beside them (--head-timeout 1s), spoken to over raw TCP: malformed
 * request lines, headers and parameters each get their HTTP error (the
 * status named), a head over 8 KiB 431, a body 413, a wrong Host 421;
 * slow clients (slowloris: a head a line at a time, or nothing at all)
 * get a 408 or are closed after the head timeout while others are
 * served; 1 000 connections at once: those over the limit get a 503, and
 * ocs-web answers once they are gone; a non-local bind without --tls and
 * --auth does not start, one with them serves over TLS to curl with the
 * password only; --auth asks for the password.  The page's files carry
 * ETags (If-None-Match gets a 304 and no body), index.html links to them
 * by version (those URLs immutable, any other revalidated), /api/snap
 * holds every snapshot of the feed and the API's JSON is compact.  After
 * each,
 * ocsd still answers ocsctl and ocs-web its pages.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "tests/lib/rig.h"

#define CONNS    1000
#define CONN_MAX 512 /* ocs-web's WEB_CONN_MAX */

struct fx {
	struct rig *r;
	struct proc web;
	char        port[16];
	char        host[128]; /* "127.0.0.1:PORT", the Host to send */
};

/* ocs-web on the rig with extra arguments (NULL-ended); its port. */
static int
web_start(struct fx *f, struct proc *p, const char *a, const char *b)
{
	char  bin[256], log[300], line[256], url[128];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
	    "-s",
	    f->r->sock,
	    "-l",
	    "127.0.0.1:0",
	    (char *)(uintptr_t)a,
	    (char *)(uintptr_t)b,
	    NULL};
	char *colon;

	snprintf(log, sizeof(log), "%s/web.log", f->r->dir);
	if (proc_start(p, argv, log) != 0 ||
	    proc_line(p, line, sizeof(line), 10000) != 0 ||
	    sscanf(line, "ocs-web: http://%127s", url) != 1)
		return (-1);
	url[strcspn(url, "/")] = '\0';
	snprintf(f->host, sizeof(f->host), "%s", url);
	colon = strrchr(url, ':');
	snprintf(f->port, sizeof(f->port), "%s", colon ? colon + 1 : "");
	return (0);
}

static int
setup(void **state)
{
	static struct fx f;
	struct rig_opts  o = {.switch_time = "1ms", .no_agents = 1};
	struct rlimit    rl;

	memset(&f, 0, sizeof(f));
	/* 1 000 sockets of ours at once. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
		rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((f.r = rig_up_opts(2, &o)) == NULL)
		return (-1);
	if (web_start(&f, &f.web, "--head-timeout", "1s") != 0) {
		fprintf(stderr, "ocs-web did not start\n");
		rig_down(f.r);
		return (-1);
	}
	*state = &f;
	return (0);
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	int        st = proc_stop(&f->web, SIGTERM);

	/* Still up until now, and it ended on its signal cleanly. */
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "ocs-web ended with status %d\n", st);
		rig_down(f->r);
		return (-1);
	}
	return (rig_down(f->r) == 0 ? 0 : -1);
}

/* Everything the server sends on fd until it closes (or timeout_ms).
 * Its HTTP status, or -1 with no status line. */
static int
drain(int fd, char *buf, size_t len, int timeout_ms)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;
	size_t   n = 0;
	ssize_t  k;
	int      st;

	buf[0] = '\0';
	while (n + 1 < len &&
	       (k = net_read_some(fd, buf + n, len - n - 1, end, -1)) > 0) {
		n += (size_t)k;
		buf[n] = '\0';
	}
	if (sscanf(buf, "HTTP/1.1 %d ", &st) != 1)
		return (-1);
	return (st);
}

static int
conn(struct fx *f)
{
	int fd = net_connect("127.0.0.1", f->port, 5000, -1);

	assert_true(fd >= 0);
	return (fd);
}

/* Send raw (all of it) and read the answer to the end: its status. */
static int
ask_raw(struct fx *f, const char *raw, size_t rl, char *buf, size_t len)
{
	int fd = conn(f), st;

	if (net_write_all(fd, raw, rl, mono_ms() + 5000, -1) != 0) {
		close(fd);
		return (-1);
	}
	st = drain(fd, buf, len, 5000);
	close(fd);
	return (st);
}

/* GET path with our Host, Connection: close: its status. */
static int
get(struct fx *f, const char *path, char *buf, size_t len)
{
	char req[2048];
	int  n = snprintf(req, sizeof(req),
	                  "GET %s HTTP/1.1\r\nHost: %s\r\n"
	                   "Connection: close\r\n\r\n",
	                  path, f->host);

	return (ask_raw(f, req, (size_t)n, buf, len));
}

/* ocsd and ocs-web both still answer. */
static void
both_up(struct fx *f)
{
	char  buf[8192], *o = NULL, *e = NULL;
	pid_t ocsd = f->r->ocsd.pid;

	assert_int_equal(rig_ctl(f->r, &o, &e, "status", NULL), 0);
	free(o);
	free(e);
	assert_true(proc_alive(&f->r->ocsd) && f->r->ocsd.pid == ocsd);
	assert_int_equal(get(f, "/api/status", buf, sizeof(buf)), 200);
	assert_non_null(strstr(buf, "\"switch\""));
}

/* The HASH of index.html's link "/NAME?v=HASH" into v[17]. */
static void
linked_version(const char *page, const char *name, char *v)
{
	char        want[64];
	const char *p;

	snprintf(want, sizeof(want), "\"%s?v=", name);
	assert_non_null(p = strstr(page, want));
	p += strlen(want);
	assert_true(strspn(p, "0123456789abcdef") == 16 && p[16] == '"');
	memcpy(v, p, 16);
	v[16] = '\0';
}

/* The body of an answer in buf (after its head). */
static const char *
body_of(const char *buf)
{
	const char *b = strstr(buf, "\r\n\r\n");

	assert_non_null(b);
	return (b + 4);
}

static void
test_web_cache(void **state)
{
	struct fx  *f = *state;
	static char buf[1 << 18];
	char        v[17], path[64], req[512], etag[40];
	json_t     *j = NULL;
	uint64_t    end = mono_ms() + 10000;
	int         n;

	/* index.html: never stored, linking to versioned files. */
	assert_int_equal(get(f, "/", buf, sizeof(buf)), 200);
	assert_non_null(strstr(buf, "Cache-Control: no-store\r\n"));
	assert_non_null(strstr(buf, "ETag: \""));
	linked_version(buf, "/app.js", v);
	linked_version(buf, "/style.css", path);
	/* The versioned URL is kept for good, and its ETag is the hash. */
	snprintf(path, sizeof(path), "/app.js?v=%s", v);
	assert_int_equal(get(f, path, buf, sizeof(buf)), 200);
	assert_non_null(strstr(buf, "immutable\r\n"));
	snprintf(etag, sizeof(etag), "ETag: \"%s\"\r\n", v);
	assert_non_null(strstr(buf, etag));
	assert_non_null(strstr(body_of(buf), "'use strict'"));
	/* Unversioned or an old version: asked again each time. */
	assert_int_equal(get(f, "/app.js", buf, sizeof(buf)), 200);
	assert_non_null(strstr(buf, "Cache-Control: no-cache\r\n"));
	assert_int_equal(
	    get(f, "/app.js?v=0123456789abcdef", buf, sizeof(buf)), 200);
	assert_null(strstr(buf, "immutable"));
	/* Its validator: 304 and no body; another validator: the file. */
	n = snprintf(req, sizeof(req),
	             "GET /app.js HTTP/1.1\r\nHost: %s\r\n"
	             "If-None-Match: \"x\", \"%s\"\r\n"
	             "Connection: close\r\n\r\n",
	             f->host, v);
	assert_int_equal(ask_raw(f, req, (size_t)n, buf, sizeof(buf)), 304);
	assert_string_equal(body_of(buf), "");
	n = snprintf(req, sizeof(req),
	             "GET /app.js HTTP/1.1\r\nHost: %s\r\n"
	             "If-None-Match: \"0123456789abcdef\"\r\n"
	             "Connection: close\r\n\r\n",
	             f->host);
	assert_int_equal(ask_raw(f, req, (size_t)n, buf, sizeof(buf)), 200);
	assert_non_null(strstr(body_of(buf), "'use strict'"));
	/* /api/snap: the feed's snapshots, from memory, never cached. */
	while (j == NULL || json_object_get(j, "show") == NULL) {
		json_decref(j);
		assert_true(mono_ms() < end);
		mono_sleep_ms(50);
		assert_int_equal(get(f, "/api/snap", buf, sizeof(buf)), 200);
		assert_non_null(strstr(buf, "Cache-Control: no-store\r\n"));
		assert_non_null(j = json_loads(body_of(buf), 0, NULL));
		assert_true(json_is_object(j));
	}
	assert_non_null(json_object_get(json_object_get(j, "show"), "switch"));
	json_decref(j);
	/* The API's JSON is compact (one line and its newline). */
	assert_int_equal(get(f, "/api/status", buf, sizeof(buf)), 200);
	assert_null(strstr(body_of(buf), "\n "));
	assert_true(strchr(body_of(buf), '\n') ==
	            body_of(buf) + strlen(body_of(buf)) - 1);
	both_up(f);
}

static void
test_web_bad_requests(void **state)
{
	static const struct {
		const char *req; /* %s: our Host */
		int         status;
	} cases[] = {
	    {"GET /api/runs/abc HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/runs/0 HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/runs/99999999999999999999999 HTTP/1.1\r\nHost: "
	     "%s\r\n\r\n",
	     404},
	    {"GET /api/runs/12x HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/timeline/abc HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/timeline/0 HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/timeline/ HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/ports?switch=9x HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/ports?switch=a%%20b HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/ports?switch=%%zz HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/ports?switch= HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/ports?switch=abcdefghijabcdefghijabcdefghijabc "
	     "HTTP/1.1\r\nHost: %s\r\n\r\n",
	     400},
	    {"GET /api/sweep HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/sweep?n=%%zz HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /api/sweep?n=-1 HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /api/sweep?n=0&file=../../etc/passwd HTTP/1.1\r\nHost: "
	     "%s\r\n\r\n",
	     404},
	    {"GET /api/plan?n=99999999999999 HTTP/1.1\r\nHost: %s\r\n\r\n",
	     400},
	    {"GET /api/plan?n=9999 HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /../../etc/passwd HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"GET /%%zz HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /a%%00b HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GET /nothing HTTP/1.1\r\nHost: %s\r\n\r\n", 404},
	    {"POST /api/status HTTP/1.1\r\nHost: %s\r\n\r\n", 405},
	    {"DELETE / HTTP/1.1\r\nHost: %s\r\n\r\n", 405},
	    {"GET / HTTP/2.0\r\nHost: %s\r\n\r\n", 505},
	    {"GET / HTTP/1.1x\r\nHost: %s\r\n\r\n", 505},
	    {"GET nopath HTTP/1.1\r\nHost: %s\r\n\r\n", 400},
	    {"GARBAGE\r\n\r\n%s", 400},
	    {"\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n%s", 400},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nNoColon\r\n\r\n", 400},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nBad Name: x\r\n\r\n", 400},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nContent-Length: 5\r\n\r\nhello",
	     413},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nContent-Length: -1\r\n\r\n", 400},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nContent-Length: 1x\r\n\r\n", 400},
	    {"GET / HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: "
	     "chunked\r\n\r\n0\r\n\r\n",
	     501},
	    {"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n%s", 421},
	    {"GET / HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n%s", 421},
	    {"GET / HTTP/1.0\r\n\r\n%s", 421},
	};
	struct fx *f = *state;
	char       req[1024], buf[8192];
	size_t     i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = snprintf(req, sizeof(req), cases[i].req, f->host);
		int st = ask_raw(f, req, (size_t)n, buf, sizeof(buf));

		if (st != cases[i].status)
			fail_msg("case %zu: %d, expected %d: %.200s", i, st,
			         cases[i].status, buf);
		/* An error says why in one line. */
		if (st >= 400)
			assert_non_null(strstr(buf, "\r\n\r\n"));
	}
	/* A bad parameter is named, with its value. */
	assert_int_equal(get(f, "/api/sweep?n=abc", buf, sizeof(buf)), 404);
	assert_non_null(
	    strstr(buf, "404 Not Found: n \"abc\": no such sweep"));
	assert_int_equal(get(f, "/api/sweep", buf, sizeof(buf)), 400);
	assert_non_null(strstr(buf, "400 Bad Request: n: missing"));
	assert_int_equal(get(f, "/api/runs/7x", buf, sizeof(buf)), 404);
	assert_non_null(strstr(buf, "run id \"7x\""));
	assert_int_equal(get(f, "/api/runs/77", buf, sizeof(buf)), 404);
	assert_non_null(strstr(buf, "\"error\""));
	assert_int_equal(get(f, "/api/timeline/77", buf, sizeof(buf)), 404);
	assert_non_null(strstr(buf, "\"error\""));
	assert_int_equal(get(f, "/api/ports?switch=a%20b", buf, sizeof(buf)),
	                 400);
	assert_non_null(strstr(buf, "switch \"a b\""));
	/* HEAD: the head of the answer alone. */
	{
		int   n = snprintf(req, sizeof(req),
		                   "HEAD / HTTP/1.1\r\nHost: %s\r\n"
		                     "Connection: close\r\n\r\n",
		                   f->host);
		char *body;

		assert_int_equal(ask_raw(f, req, (size_t)n, buf, sizeof(buf)),
		                 200);
		body = strstr(buf, "\r\n\r\n");
		assert_non_null(body);
		assert_string_equal(body + 4, "");
	}
	both_up(f);
}

static void
test_web_huge_heads(void **state)
{
	struct fx *f = *state;
	char      *req = malloc(1 << 20), buf[8192];
	size_t     n;
	int        i;

	assert_non_null(req);
	/* A path and a query too long. */
	n = (size_t)snprintf(req, 1 << 20,
	                     "GET /%0300d HTTP/1.1\r\nHost: %s\r\n\r\n", 0,
	                     f->host);
	assert_int_equal(ask_raw(f, req, n, buf, sizeof(buf)), 414);
	n = (size_t)snprintf(req, 1 << 20,
	                     "GET /api/sweep?n=%0600d HTTP/1.1\r\nHost: "
	                     "%s\r\n\r\n",
	                     0, f->host);
	assert_int_equal(ask_raw(f, req, n, buf, sizeof(buf)), 414);
	/* One header of 1 MiB: refused without reading it all. */
	n = (size_t)snprintf(req, 1 << 20,
	                     "GET / HTTP/1.1\r\nHost: %s\r\nX: ", f->host);
	memset(req + n, 'a', (1 << 20) - n - 4);
	memcpy(req + (1 << 20) - 4, "\r\n\r\n", 4);
	assert_int_equal(ask_raw(f, req, 1 << 20, buf, sizeof(buf)), 431);
	/* A Host too long for its field, and 200 small headers. */
	n = (size_t)snprintf(req, 1 << 20,
	                     "GET / HTTP/1.1\r\nHost: %0200d\r\n\r\n", 0);
	assert_int_equal(ask_raw(f, req, n, buf, sizeof(buf)), 431);
	n = (size_t)snprintf(req, 1 << 20, "GET / HTTP/1.1\r\nHost: %s\r\n",
	                     f->host);
	for (i = 0; i < 200; i++)
		n +=
		    (size_t)snprintf(req + n, (1 << 20) - n, "X-%d: y\r\n", i);
	n += (size_t)snprintf(req + n, (1 << 20) - n, "\r\n");
	assert_int_equal(ask_raw(f, req, n, buf, sizeof(buf)), 431);
	free(req);
	both_up(f);
}

/* Slowloris: heads a line at a time, and connections that say nothing,
 * while a page is asked for; the slow ones are dropped after the head
 * timeout (1 s here), the page answered meanwhile. */
static void
test_web_slow_clients(void **state)
{
	struct fx *f = *state;
	enum { SLOW = 100, MUTE = 100 };
	int      fd[SLOW + MUTE], open_n = SLOW + MUTE, got408 = 0, i;
	char     buf[8192];
	uint64_t t0 = mono_ms(), t;

	for (i = 0; i < SLOW + MUTE; i++) {
		fd[i] = conn(f);
		if (i < SLOW)
			assert_int_equal(
			    net_write_all(fd[i], "GET / HTTP/1.1\r\n", 16,
			                  mono_ms() + 2000, -1),
			    0);
	}
	/* Served while they dribble. */
	t = mono_ms();
	assert_int_equal(get(f, "/api/status", buf, sizeof(buf)), 200);
	printf("# a page asked beside %d slow connections: %llu ms\n",
	       SLOW + MUTE, (unsigned long long)(mono_ms() - t));
	while (open_n > 0 && mono_ms() - t0 < 15000) {
		for (i = 0; i < SLOW + MUTE; i++) {
			struct pollfd p = {.fd = fd[i], .events = POLLIN};

			if (fd[i] < 0)
				continue;
			if (i < SLOW) /* one more header line, never the end */
				send(fd[i], "X-Slow: 1\r\n", 11,
				     MSG_NOSIGNAL | MSG_DONTWAIT);
			if (poll(&p, 1, 0) == 1) {
				int st = drain(fd[i], buf, sizeof(buf), 2000);

				if (i < SLOW) {
					if (st != 408)
						fail_msg("slow %d: %d: %.100s",
						         i, st, buf);
					got408++;
				} else
					assert_int_equal(st, -1);
				close(fd[i]);
				fd[i] = -1;
				open_n--;
			}
		}
		mono_sleep_ms(200);
	}
	printf("# %d slow heads got a 408, %d mute connections closed, "
	       "after %llu ms\n",
	       got408, MUTE - (open_n - (SLOW - got408)),
	       (unsigned long long)(mono_ms() - t0));
	for (i = 0; i < SLOW + MUTE; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	assert_int_equal(open_n, 0);
	assert_int_equal(got408, SLOW);
	both_up(f);
}

/* 1 000 connections at once on another ocs-web: those over its 512 get
 * a 503; ocsd answers meanwhile, ocs-web after. */
static void
test_web_many_connections(void **state)
{
	struct fx  *f = *state, g = *f;
	struct proc web;
	int        *fd = calloc(CONNS, sizeof(int)), i, n503 = 0, held = 0;
	char        buf[4096], *o = NULL, *e = NULL;
	uint64_t    t0;

	assert_non_null(fd);
	/* Its head timeout longer than the test: a held connection is
	 * one held for the limit, not yet dropped for its silence. */
	assert_int_equal(web_start(&g, &web, "--head-timeout", "60s"), 0);
	t0 = mono_ms();
	for (i = 0; i < CONNS; i++)
		fd[i] = net_connect("127.0.0.1", g.port, 5000, -1);
	printf("# %d connections made in %llu ms\n", CONNS,
	       (unsigned long long)(mono_ms() - t0));
	/* Every connection: a 503 and its end, or held open in silence
	 * (once ocs-web has had the time to accept them all). */
	mono_sleep_ms(2000);
	for (i = 0; i < CONNS; i++) {
		struct pollfd p = {.fd = fd[i], .events = POLLIN};

		if (fd[i] < 0)
			continue;
		if (poll(&p, 1, 0) == 1) {
			int st = drain(fd[i], buf, sizeof(buf), 2000);

			if (st != 503)
				fail_msg("connection %d: %d: %.100s", i, st,
				         buf);
			n503++;
		} else
			held++;
	}
	printf("# %d connections: %d held, %d answered 503\n", CONNS, held,
	       n503);
	assert_true(held <= CONN_MAX);
	assert_true(n503 >= CONNS - CONN_MAX);
	/* ocsd is not behind ocs-web's door. */
	assert_int_equal(rig_ctl(f->r, &o, &e, "status", NULL), 0);
	free(o);
	free(e);
	for (i = 0; i < CONNS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
	/* Answering again as soon as they are gone. */
	for (i = 0; i < 50; i++) {
		if (get(&g, "/api/status", buf, sizeof(buf)) == 200)
			break;
		mono_sleep_ms(100);
	}
	assert_true(i < 50);
	assert_true(proc_alive(&web));
	proc_stop(&web, SIGTERM);
	both_up(f);
}

/* ocs-web ARGS... : its exit status and stderr (malloc'd). */
static int
web_run(struct fx *f, char **err, const char *a, const char *b, const char *c,
        const char *d)
{
	char  bin[256], *o = NULL;
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
	    "-s",
	    f->r->sock,
	    (char *)(uintptr_t)a,
	    (char *)(uintptr_t)b,
	    (char *)(uintptr_t)c,
	    (char *)(uintptr_t)d,
	    NULL};
	int rv = proc_run(argv, &o, err);

	free(o);
	return (rv);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, 0600), 0);
}

/* A non-local address needs TLS and a password; a password on loopback
 * is asked for. */
static void
test_web_bind_and_auth(void **state)
{
	struct fx  *f = *state, g = *f;
	struct proc web;
	char        auth[300], req[512], buf[4096], *err = NULL;
	int         n;

	snprintf(auth, sizeof(auth), "%s/web.auth", f->r->dir);
	write_file(auth, "operator:correct horse\n");
	assert_int_equal(web_run(f, &err, "-l", "0.0.0.0:0", NULL, NULL), 2);
	assert_non_null(strstr(err, "needs --tls"));
	free(err);
	assert_int_equal(web_run(f, &err, "-l", "0.0.0.0:0", "--auth", auth),
	                 2);
	assert_non_null(strstr(err, "needs --tls"));
	free(err);
	assert_int_equal(web_run(f, &err, "-l", "0.0.0.0:0", "--tls", auth),
	                 2);
	assert_non_null(strstr(err, "needs --tls"));
	free(err);
	/* A password file others may read is refused. */
	chmod(auth, 0644);
	assert_int_equal(web_run(f, &err, "-l", "127.0.0.1:0", "--auth", auth),
	                 2);
	assert_non_null(strstr(err, "readable by others"));
	free(err);
	chmod(auth, 0600);
	assert_int_equal(web_start(&g, &web, "--auth", auth), 0);
	assert_int_equal(get(&g, "/api/status", buf, sizeof(buf)), 401);
	assert_non_null(strstr(buf, "WWW-Authenticate: Basic"));
	/* operator:wrong, then operator:correct horse. */
	n = snprintf(req, sizeof(req),
	             "GET /api/status HTTP/1.1\r\nHost: %s\r\nAuthorization: "
	             "Basic b3BlcmF0b3I6d3Jvbmc=\r\nConnection: close\r\n\r\n",
	             g.host);
	assert_int_equal(ask_raw(&g, req, (size_t)n, buf, sizeof(buf)), 401);
	n = snprintf(req, sizeof(req),
	             "GET /api/status HTTP/1.1\r\nHost: %s\r\nAuthorization: "
	             "Basic b3BlcmF0b3I6Y29ycmVjdCBob3JzZQ==\r\n"
	             "Connection: close\r\n\r\n",
	             g.host);
	assert_int_equal(ask_raw(&g, req, (size_t)n, buf, sizeof(buf)), 200);
	proc_stop(&web, SIGTERM);
	both_up(f);
}

/* curl ARGS... URL: the HTTP status it saw ("000": none). */
static void
curl(const char *user, const char *url, char *code, size_t len)
{
	char *argv[] = {"curl",
	                "-sk",
	                "-m",
	                "10",
	                "-o",
	                "/dev/null",
	                "-w",
	                "%{http_code}",
	                (char *)(uintptr_t)url,
	                user ? "-u" : NULL,
	                (char *)(uintptr_t)user,
	                NULL};
	char *o = NULL, *e = NULL;

	proc_run(argv, &o, &e);
	snprintf(code, len, "%s", o ? o : "");
	free(o);
	free(e);
}

/* Bound to every address: TLS and the password, as curl sees them; a
 * client speaking plain HTTP to it gets no page, and it carries on. */
static void
test_web_tls_bind(void **state)
{
	struct fx  *f = *state;
	struct proc web;
	char        bin[256], cert[300], auth[300], log[300], line[256];
	char        cmd[900], url[128], code[16], *o = NULL, *e = NULL;
	char       *port;
	char       *sargv[] = {"sh", "-c", cmd, NULL};

	snprintf(cert, sizeof(cert), "%s/web.pem", f->r->dir);
	snprintf(auth, sizeof(auth), "%s/web.auth", f->r->dir);
	snprintf(log, sizeof(log), "%s/web-tls.log", f->r->dir);
	snprintf(cmd, sizeof(cmd),
	         "cd %s && openssl req -x509 -newkey rsa:2048 -nodes -days 2 "
	         "-subj /CN=127.0.0.1 -keyout wk.pem -out wc.pem 2>/dev/null "
	         "&& cat wc.pem wk.pem > web.pem",
	         f->r->dir);
	assert_int_equal(proc_run(sargv, &o, &e), 0);
	free(o);
	free(e);
	write_file(auth, "operator:correct horse\n");
	{
		char *argv[] = {
		    (char *)(uintptr_t)proc_bin("ocs-web", bin, sizeof(bin)),
		    "-s",
		    f->r->sock,
		    "-l",
		    "0.0.0.0:0",
		    "--tls",
		    cert,
		    "--auth",
		    auth,
		    NULL};

		assert_int_equal(proc_start(&web, argv, log), 0);
	}
	assert_int_equal(proc_line(&web, line, sizeof(line), 10000), 0);
	assert_non_null(strstr(line, "ocs-web: https://"));
	assert_non_null(port = strrchr(line, ':'));
	snprintf(url, sizeof(url), "https://127.0.0.1%.*s/api/status",
	         (int)strcspn(port, "/"), port);
	curl(NULL, url, code, sizeof(code));
	assert_string_equal(code, "401");
	curl("operator:wrong", url, code, sizeof(code));
	assert_string_equal(code, "401");
	curl("operator:correct horse", url, code, sizeof(code));
	assert_string_equal(code, "200");
	/* Plain HTTP to it: no answer, and ocs-web carries on. */
	memmove(url + 4, url + 5, strlen(url + 5) + 1);
	curl("operator:correct horse", url, code, sizeof(code));
	assert_string_not_equal(code, "200");
	memmove(url + 5, url + 4, strlen(url + 4) + 1);
	url[4] = 's';
	curl("operator:correct horse", url, code, sizeof(code));
	assert_string_equal(code, "200");
	proc_stop(&web, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_web_bad_requests),
	    cmocka_unit_test(test_web_cache),
	    cmocka_unit_test(test_web_huge_heads),
	    cmocka_unit_test(test_web_slow_clients),
	    cmocka_unit_test(test_web_many_connections),
	    cmocka_unit_test(test_web_bind_and_auth),
	    cmocka_unit_test(test_web_tls_bind),
	};

	return (
	    cmocka_run_group_tests_name("web_limits", tests, setup, teardown));
}
