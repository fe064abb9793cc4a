/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tests/unit/test_calient_dev.c: the calient driver against a scripted
 * device, a small HTTP server in the test on loopback that answers with
 * what real switches send: list rows named by their owners, uni rows,
 * ports on other shelves with gaps, and the connection handling of the
 * servers switches embed (Connection: close after each answer; HTTP/1.0
 * with the body running to the close; a kept-alive connection closed
 * while idle).  What the driver sends back is checked too: bulk bodies
 * that name the device's ports.  The calient-tl1 driver meets a scripted
 * TL1 device too, answering with the S162 replies of Quali's driver tests
 * (other shelves, a uni connection, the agent> prompt or none), and is
 * checked for the commands it sends: ENT-CRS then ACT-CRS, CANC-CRS then
 * DLT-CRS, as clients drive a real switch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "ocs-drivers/drv.h"
#include "tests/lib/tl1dev.h"

enum mode {
	KEEP,       /* HTTP/1.1, Content-Length, keeps the connection */
	CLOSE_EACH, /* says Connection: close and closes */
	HTTP10,     /* HTTP/1.0, no Content-Length, body ends at the close */
	IDLE_CLOSE, /* HTTP/1.1 keep-alive, but closes after each answer
	               without a word (an idle timeout of zero) */
};

/* Eight ports as a real switch names them: shelves 1, 3 and 6, eight
 * per module, gaps.  Sorted: 1.1.1 1.1.2 1.1.8 1.2.1 3.3.1 3.3.2 3.3.8
 * 6.1.1, the driver's ports 1..8. */
static const char summary[] =
    "[{\"port\":\"6.1.1\",\"conn\":\"\",\"power\":\"NONE\"},"
    "{\"port\":\"3.3.2\",\"conn\":\"\",\"power\":\"-3.1\"},"
    "{\"port\":\"1.1.1\",\"conn\":\"1.1.1-3.3.1\",\"power\":\"-2.0\"},"
    "{\"port\":\"3.3.1\",\"conn\":\"1.1.1-3.3.1\",\"power\":\"-2.5\"},"
    "{\"port\":\"1.1.8\",\"conn\":\"6.1.1>1.1.8\",\"power\":\"NONE\"},"
    "{\"port\":\"1.2.1\",\"conn\":\"\",\"power\":\"NONE\"},"
    "{\"port\":\"3.3.8\",\"conn\":\"\",\"power\":\"NONE\"},"
    "{\"port\":\"1.1.2\",\"conn\":\"\",\"power\":\"NONE\"}]";

/* Owners' names: lab_a (bi 1.1.1-3.3.1), a uni 6.1.1>1.1.8 named by a
 * group's convention, and a uni named as if it were bi. */
static const char list_owned[] =
    "[{\"name\":\"lab_a\",\"group\":\"Quali\",\"dir\":\"bi\",\"band\":"
    "\"CBAND\",\"half1\":{\"conn\":\"1.1.1>3.3.1\",\"inp\":\"-2.0\",\"outp\":"
    "\"-3.0\",\"loss\":\"1.0\",\"alarm\":\"\",\"as\":\"IS\",\"os\":\"IS\","
    "\"oc\":\"OK\",\"state\":\"ACT\"},\"half2\":{\"conn\":\"3.3.1>1.1.1\","
    "\"inp\":\"-2.5\",\"outp\":\"-3.5\",\"oc\":\"OK\"}},"
    "{\"name\":\"tx-fail-test\",\"group\":\"DSTRAUB\",\"dir\":\"uni\","
    "\"half1\":{\"conn\":\"6.1.1>1.1.8\",\"oc\":\"FAIL\"}},"
    "{\"name\":\"1.1.2-1.2.1\",\"group\":\"SYSTEM\",\"dir\":\"uni\","
    "\"half1\":{\"conn\":\"1.1.2>1.2.1\"}}]";

struct dev {
	int       lfd;
	uint16_t  port;
	enum mode mode;
	pthread_t th;
	/* What the driver sent, in order (POST bodies and request lines). */
	char sent[8192];
	int  conns, reqs;
};

static int
read_req(int fd, char *buf, size_t cap, size_t *len)
{
	size_t      n = 0, need = 0;
	ssize_t     k;
	const char *end, *cl;

	while (n < cap - 1) {
		if ((k = read(fd, buf + n, cap - 1 - n)) <= 0)
			return (-1);
		n += (size_t)k;
		buf[n] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) == NULL)
			continue;
		cl = strcasestr(buf, "Content-Length:");
		need = (size_t)(end + 4 - buf) +
		       (cl && cl < end ? strtoul(cl + 15, NULL, 10) : 0);
		if (n >= need)
			break;
	}
	*len = n;
	return (0);
}

/* Results for a bulk body: one success per object. */
static void
bulk_answer(const char *body, char *out, size_t len)
{
	size_t k = 0, n = 0;

	for (; *body; body++)
		if (*body == '{')
			n++;
	k += (size_t)snprintf(out + k, len - k, "[");
	while (n-- > 0)
		k += (size_t)snprintf(out + k, len - k,
		                      "{\"response\":{\"status\":\"1\"}}%s",
		                      n ? "," : "");
	snprintf(out + k, len - k, "]");
}

static void
answer(struct dev *d, int fd, const char *req)
{
	char        hdr[512], body[4096];
	const char *b = strstr(req, "\r\n\r\n") + 4, *ver;
	int         n;

	snprintf(d->sent + strlen(d->sent), sizeof(d->sent) - strlen(d->sent),
	         "%.*s %s\n", (int)strcspn(req, "\r"), req, b);
	d->reqs++;
	if (strstr(req, "GET /rest/ports/?id=summary"))
		snprintf(body, sizeof(body), "%s", summary);
	else if (strstr(req, "GET /rest/crossconnects/?id=list"))
		snprintf(body, sizeof(body), "%s", list_owned);
	else if (strstr(req, "POST /rest/crossconnects/?id=b"))
		bulk_answer(b, body, sizeof(body));
	else
		snprintf(body, sizeof(body), "[]");
	ver = d->mode == HTTP10 ? "HTTP/1.0" : "HTTP/1.1";
	if (d->mode == HTTP10)
		n = snprintf(hdr, sizeof(hdr),
		             "%s 200 OK\r\nContent-Type: application/json\r\n"
		             "Set-Cookie: S=abc; Path=/rest\r\n\r\n",
		             ver);
	else
		n = snprintf(hdr, sizeof(hdr),
		             "%s 200 OK\r\nContent-Type: application/json\r\n"
		             "Content-Length: %zu\r\n%s"
		             "Set-Cookie: S=abc; Path=/rest\r\n\r\n",
		             ver, strlen(body),
		             d->mode == CLOSE_EACH ? "Connection: close\r\n"
		                                   : "");
	if (write(fd, hdr, (size_t)n) != n ||
	    write(fd, body, strlen(body)) != (ssize_t)strlen(body))
		return;
}

static void *
serve(void *arg)
{
	struct dev *d = arg;
	char        req[16384];
	size_t      len;
	int         fd;

	while ((fd = accept(d->lfd, NULL, NULL)) >= 0) {
		d->conns++;
		while (read_req(fd, req, sizeof(req), &len) == 0) {
			answer(d, fd, req);
			if (d->mode != KEEP)
				break;
		}
		if (d->mode == IDLE_CLOSE)
			usleep(20000); /* the close comes after the answer */
		close(fd);
	}
	return (NULL);
}

static struct dev *
dev_start(enum mode m)
{
	struct dev        *d = calloc(1, sizeof(*d));
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t          al = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d->mode = m;
	d->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(d->lfd >= 0);
	assert_int_equal(bind(d->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(d->lfd, 8), 0);
	assert_int_equal(getsockname(d->lfd, (struct sockaddr *)&a, &al), 0);
	d->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&d->th, NULL, serve, d), 0);
	return (d);
}

static void
dev_stop(struct dev *d)
{
	shutdown(d->lfd, SHUT_RDWR);
	close(d->lfd);
	pthread_join(d->th, NULL);
	free(d);
}

static struct drv *
dev_open(struct dev *d)
{
	struct drv_opts o = {
	    .user = "admin", .password = "pxc", .timeout_ms = 2000};
	struct drv *drv;
	char        url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%u", d->port);
	assert_int_equal(drv_open(&drv, "calient", url, &o), 0);
	return (drv);
}

/* The map of list_owned, on ports 1..8 (N = 8: egress is 8 + port). */
static void
check_owned_map(struct drv *drv)
{
	uint16_t map[9];

	assert_int_equal(drv_read_map(drv, map, 8), 0);
	assert_int_equal(map[1], 8 + 5); /* 1.1.1 -> 3.3.1 */
	assert_int_equal(map[5], 8 + 1); /* and back */
	assert_int_equal(map[8], 8 + 3); /* 6.1.1 > 1.1.8 */
	assert_int_equal(map[2], 8 + 4); /* 1.1.2 > 1.2.1, uni */
	assert_int_equal(map[4], 0);
	assert_int_equal(map[3], 0);
}

static void
test_owned_rows_and_shelves(void **state)
{
	struct dev      *d = dev_start(KEEP);
	struct drv      *drv = dev_open(d);
	struct drv_caps  c;
	struct drv_patch p[2] = {{6, 8 + 7}, {7, 8 + 6}};
	struct drv_batch b = {.connect = p, .nconnect = 2};
	uint16_t         dis[1] = {8};
	uint32_t         port;

	(void)state;
	assert_int_equal(drv_caps(drv, &c), 0);
	assert_int_equal(c.nports, 8);
	check_owned_map(drv);
	/* The driver names the device's ports in what it sends. */
	assert_int_equal(drv_apply(drv, &b), 0);
	assert_non_null(strstr(d->sent, "POST /rest/crossconnects/?id=badd "
	                                "HTTP/1.1 [{\"in\":\"3.3.2\",\"out\":"
	                                "\"3.3.8\",\"dir\":\"bi\"}]"));
	b = (struct drv_batch){.disconnect = dis, .ndisconnect = 1};
	assert_int_equal(drv_apply(drv, &b), 0);
	assert_non_null(strstr(d->sent, "[{\"conn\":\"6.1.1>1.1.8\"}]"));
	/* The cabling may name ports as the device does. */
	assert_int_equal(drv_port_lookup(drv, "3.3.1", &port), 0);
	assert_int_equal(port, 5);
	assert_int_equal(drv_port_lookup(drv, "6.1.1/1", &port), 0);
	assert_int_equal(port, 8);
	assert_int_equal(drv_port_lookup(drv, "2.1.1", &port), -ENOENT);
	/* One connection served everything. */
	assert_int_equal(d->conns, 1);
	drv_close(drv);
	dev_stop(d);
}

static void
test_connection_close(void **state)
{
	static const enum mode modes[] = {CLOSE_EACH, HTTP10, IDLE_CLOSE};
	size_t                 i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct dev      *d = dev_start(modes[i]);
		struct drv      *drv = dev_open(d);
		struct drv_patch p[1] = {{6, 8 + 7}};
		struct drv_batch b = {.connect = p, .nconnect = 1};

		/* Twice: each read-back after an answer that closed. */
		check_owned_map(drv);
		check_owned_map(drv);
		assert_int_equal(drv_apply(drv, &b), 0);
		/* Every request went once: none was lost to a closed
		 * connection and none was sent twice to the device. */
		assert_int_equal(d->reqs, d->conns);
		assert_int_equal(d->reqs, 5); /* login, list x2, list, badd */
		drv_close(drv);
		dev_stop(d);
	}
}

/* ---- the TL1 device ------------------------------------------------ */

/* The S162 of Quali's fixtures: its ports and connections. */
static const char *const tl1_ports[] = {
    "1.1.1:WX,NONE,NONE:INAS=OOS-NP,INOS=OOS,INOC=OK,INRS=NPR,OUTAS=OOS-NP,"
    "OUTOS=OOS,OUTOC=OK,OUTRS=NPR",
    "1.1.2:WX,NONE,NONE:INAS=OOS-NP,INOS=OOS,INOC=OK,INRS=NPR,OUTAS=OOS-NP,"
    "OUTOS=OOS,OUTOC=OK,OUTRS=NPR",
    "2.3.3:WX,NONE,TRANSIT:INAS=OOS-NP,INOS=OOS,INOC=OK,INRS=NPR,OUTAS=IS,"
    "OUTOS=IS,OUTOC=OK,OUTRS=NPR",
    "2.3.6:WX,TRANSIT,TRANSIT:INAS=IS,INOS=IS,INOC=OK,INRS=NPR,OUTAS=IS,"
    "OUTOS=IS,OUTOC=OK,OUTRS=NPR",
    "2.8.5:WX,TRANSIT,NONE:INAS=IS,INOS=IS,INOC=OK,INRS=NPR,OUTAS=OOS-NP,"
    "OUTOS=OOS,OUTOC=OK,OUTRS=NPR",
    "3.2.5:WX,TRANSIT,TRANSIT:INAS=IS,INOS=IS,INOC=OK,INRS=NPR,OUTAS=IS,"
    "OUTOS=IS,OUTOC=OK,OUTRS=NPR",
    "6.1.1:WX,NONE,NONE:INAS=OOS-NP,INOS=OOS,INOC=NOHW,INRS=NPR,OUTAS=OOS-"
    "NP,OUTOS=OOS,OUTOC=OK,OUTRS=NPR",
};
static const char *const tl1_crs[] = {
    "2.3.6-3.2.5:SRCPORT=2.3.6,DSTPORT=3.2.5,GRPNAME=DSTRAUB,CONNNAME=2.3.6-"
    "3.2.5,CONNTYPE=2WAY,AS=UMA,OS=RDY,OC=OK,PS=UPR,AL=CL",
    "2.8.5>2.3.3:SRCPORT=2.8.5,DSTPORT=2.3.3,GRPNAME=DSTRAUB,CONNNAME=lab_b,"
    "CONNTYPE=1WAY,AS=UMA,OS=RDY,OC=FAIL,PS=UPR,AL=CL",
};

static const struct tl1dev_reply s162[] = {
    {"ACT-USER", (const char *const[]){"admin:admin,2"}, 1},
    {"RTRV-PORT", tl1_ports, 7},
    {"RTRV-CRS", tl1_crs, 2},
};

static void
test_calient_tl1_device(void **state)
{
	int p;

	(void)state;
	for (p = 0; p < 2; p++) {
		struct tl1dev   d = {.sid = "CALIENT01TS",
		                     .prompt = p ? "agent> " : NULL,
		                     .r = s162,
		                     .nr = 3};
		struct drv_opts o = {
		    .user = "admin", .password = "pxc", .timeout_ms = 2000};
		struct drv      *drv;
		struct drv_patch pt[2] = {{1, 7 + 2}, {2, 7 + 1}};
		struct drv_batch b = {.connect = pt, .nconnect = 2};
		uint16_t         map[8], dis[1] = {5};
		struct drv_caps  c;
		char             url[64];

		assert_int_equal(tl1dev_start(&d), 0);
		snprintf(url, sizeof(url), "127.0.0.1:%u", d.port);
		assert_int_equal(drv_open(&drv, "calient-tl1", url, &o), 0);
		assert_int_equal(drv_caps(drv, &c), 0);
		assert_int_equal(c.nports, 7);
		/* 1.1.1 1.1.2 2.3.3 2.3.6 2.8.5 3.2.5 6.1.1 are 1..7. */
		assert_int_equal(drv_read_map(drv, map, 7), 0);
		assert_int_equal(map[4], 7 + 6); /* 2.3.6 -> 3.2.5 */
		assert_int_equal(map[6], 7 + 4);
		assert_int_equal(map[5], 7 + 3); /* lab_b: 2.8.5 > 2.3.3 */
		assert_int_equal(map[1], 0);
		assert_int_equal(drv_apply(drv, &b), 0);
		assert_non_null(strstr(d.sent,
		                       "ENT-CRS::1.1.1,1.1.2:5::SYSTEM,"
		                       "2WAY\nACT-CRS::1.1.1,1.1.2:6::"
		                       "1.1.1-1.1.2,SYSTEM\n"));
		/* Taking lab_b down by its owner's name and group. */
		b = (struct drv_batch){.disconnect = dis, .ndisconnect = 1};
		assert_int_equal(drv_apply(drv, &b), 0);
		assert_non_null(strstr(d.sent, "CANC-CRS::2.8.5,2.3.3:8::,"
		                               "DSTRAUB,lab_b\nDLT-CRS::2.8.5,"
		                               "2.3.3:9::,DSTRAUB,lab_b\n"));
		drv_close(drv);
		tl1dev_stop(&d);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_owned_rows_and_shelves),
	    cmocka_unit_test(test_connection_close),
	    cmocka_unit_test(test_calient_tl1_device),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
