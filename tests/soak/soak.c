/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * make soak: 10,000 reconfigurations through each driver (polatis over
 * TL1, calient over REST), ocsd driving ocs-emu as real processes.  Each
 * is an operator APPLY that ocsd applies, reads back and compares; every
 * 100th the switch is also read over TL1 by this program and compared
 * with the map asked for.  Prints progress, then per driver: the count,
 * mismatches, failures, the median time, and the RSS of ocsd and ocs-emu
 * after a warm-up and at the end.  Exit 1 on any mismatch or failure, or
 * if either daemon grew by more than SOAK_RSS_SLACK_KB.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "ocs-drivers/drv.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/msg.h"
#include "tests/lib/proc.h"

#define HOSTS             16 /* 2 transceivers each: 64 ports */
#define NCONF             3
#define WARMUP            200
#define SOAK_RSS_SLACK_KB 1024

struct cfg {
	char    *a[HOSTS], *b[HOSTS];
	uint16_t map[2 * HOSTS + 1];
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

static long
rss_kb(pid_t pid)
{
	char  path[64], line[256];
	long  kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return (kb);
}

/* Ring k: host i's TX 0 to host (i + s) RX 1, TX 1 to host (i - s) RX 0,
 * with s = 1, 3, 5: every circuit is duplex (two patches). */
static void
make_cfgs(struct cfg *c)
{
	static const int step[NCONF] = {1, 3, 5};
	int              k, i, P = 2 * HOSTS;

	for (k = 0; k < NCONF; k++) {
		memset(c[k].map, 0, sizeof(c[k].map));
		for (i = 0; i < HOSTS; i++) {
			int j = (i + step[k]) % HOSTS;

			asprintf(&c[k].a[i], "h%02d.0", i);
			asprintf(&c[k].b[i], "h%02d.1", j);
			/* hX.t TX is ingress 2X+t+1, RX egress P+2X+t+1 */
			c[k].map[2 * i + 1] = (uint16_t)(P + 2 * j + 2);
			c[k].map[2 * j + 2] = (uint16_t)(P + 2 * i + 1);
		}
	}
}

static int
apply(nng_socket s, const struct cfg *c, char *why, size_t wl)
{
	Ocs__CtlRequest q;
	Ocs__Endpoints  e[HOSTS], *ep[HOSTS];
	Ocs__Msg        m, *rep;
	nng_msg        *nm;
	int             i, rv;

	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__APPLY;
	q.n_pairs = HOSTS;
	q.pairs = ep;
	for (i = 0; i < HOSTS; i++) {
		ocs__endpoints__init(&e[i]);
		e[i].a = c->a[i];
		e[i].b = c->b[i];
		ep[i] = &e[i];
	}
	msg_init(&m, 1);
	m.body_case = OCS__MSG__BODY_CTL;
	m.ctl = &q;
	if (msg_encode(&m, &nm) != 0 || nng_sendmsg(s, nm, 0) != 0 ||
	    nng_recvmsg(s, &nm, 0) != 0) {
		snprintf(why, wl, "no answer from ocsd");
		return (-1);
	}
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &rep, why, wl);
	nng_msg_free(nm);
	if (rv != 0)
		return (-1);
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		snprintf(why, wl, "%s", rep->error->text);
		rv = -1;
	}
	msg_free(rep);
	return (rv);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

struct result {
	int    n, mismatch, failed;
	double median_ms;
	long   rss0[2], rss1[2]; /* ocsd, ocs-emu */
};

static int
soak(const char *driver, int total, struct result *res)
{
	struct cfg      c[NCONF];
	struct proc     emu, ocsd;
	struct drv     *tl1 = NULL;
	struct drv_opts dopt = {
	    .user = "root", .password = "root", .timeout_ms = 5000};
	nng_socket s;
	char      *dir = proc_tmpdir("soak"), bin[256], ebin[256], log[300],
	     conf[300], sock[320], line[256], tl1a[64], resta[64], why[600];
	char *eargv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", ebin, sizeof(ebin)),
	    "--tl1",
	    "127.0.0.1:0",
	    "--rest",
	    "127.0.0.1:0",
	    "--ports",
	    "32",
	    "--switch-time",
	    "1ms",
	    NULL};
	char *oargv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                 "-d", "-f", conf, NULL};
	double  *t = calloc((size_t)total, sizeof(*t)), t0;
	uint16_t map[2 * HOSTS + 1];
	FILE    *f;
	int      i, k, rv = -1;

	memset(res, 0, sizeof(*res));
	make_cfgs(c);
	snprintf(log, sizeof(log), "%s/emu.log", dir);
	if (proc_start(&emu, eargv, log) != 0 ||
	    proc_line(&emu, line, sizeof(line), 5000) != 0)
		return (-1);
	snprintf(tl1a, sizeof(tl1a), "%.60s", line + 13);
	if (proc_line(&emu, line, sizeof(line), 5000) != 0)
		return (-1);
	snprintf(resta, sizeof(resta), "%.60s", line + 14);
	snprintf(conf, sizeof(conf), "%s/ocsd.conf", dir);
	snprintf(sock, sizeof(sock), "ipc://%s/ctl.sock", dir);
	f = fopen(conf, "we");
	fprintf(f,
	        "[switch]\ndriver = %s\naddress = %s%s\nuser = root\n"
	        "password = root\ntimeout = 5s\nswitch_time = 1ms\npoll = 0\n"
	        "[control]\nlisten = %s\n[state]\ndir = %s/state\n"
	        "[cabling]\n",
	        driver, strcmp(driver, "calient") ? "" : "http://",
	        strcmp(driver, "calient") ? tl1a : resta, sock, dir);
	for (i = 0; i < 2 * HOSTS; i++)
		fprintf(f, "h%02d.%d = %d %d\n", i / 2, i % 2, i + 1,
		        2 * HOSTS + i + 1);
	fclose(f);
	snprintf(log, sizeof(log), "%s/ocsd.log", dir);
	if (proc_start(&ocsd, oargv, log) != 0)
		goto out;
	nng_req0_open(&s);
	nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 30000);
	nng_socket_set_ms(s, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	for (k = 0; k < 100 && nng_dial(s, sock, NULL, 0) != 0; k++)
		mono_sleep_ms(50);
	for (k = 0; k < 100 && apply(s, &c[NCONF - 1], why, sizeof(why)); k++)
		mono_sleep_ms(50);
	if (drv_open(&tl1, "polatis", tl1a, &dopt) != 0)
		goto out;
	for (i = 0; i < WARMUP + total; i++) {
		const struct cfg *want = &c[i % NCONF];

		if (i == WARMUP) {
			res->rss0[0] = rss_kb(ocsd.pid);
			res->rss0[1] = rss_kb(emu.pid);
		}
		t0 = now_ms();
		if (apply(s, want, why, sizeof(why)) != 0) {
			res->failed++;
			if (res->failed <= 5)
				fprintf(stderr, "soak %s: #%d: %s\n", driver,
				        i, why);
			continue;
		}
		if (i >= WARMUP) {
			t[res->n++] = now_ms() - t0;
			if ((res->n % 1000) == 0)
				fprintf(stderr, "soak %s: %d/%d\n", driver,
				        res->n, total);
		}
		if (i % 100 == 0) {
			if (drv_read_map(tl1, map, 2 * HOSTS) != 0 ||
			    memcmp(map + 1, want->map + 1,
			           2 * HOSTS * sizeof(*map)) != 0)
				res->mismatch++;
		}
	}
	res->rss1[0] = rss_kb(ocsd.pid);
	res->rss1[1] = rss_kb(emu.pid);
	qsort(t, (size_t)res->n, sizeof(*t), cmp_d);
	res->median_ms = res->n ? t[res->n / 2] : 0;
	rv = 0;
	nng_close(s);
out:
	if (tl1)
		drv_close(tl1);
	if (ocsd.pid)
		proc_stop(&ocsd, SIGTERM);
	proc_stop(&emu, SIGTERM);
	proc_rmtree(dir);
	free(dir);
	free(t);
	return (rv);
}

int
main(int argc, char **argv)
{
	static const char *const drivers[] = {"polatis", "calient"};
	struct result            r[2];
	int                      total = argc > 1 ? atoi(argv[1]) : 10000;
	int                      d, bad = 0;

	signal(SIGPIPE, SIG_IGN);
	for (d = 0; d < 2; d++)
		if (soak(drivers[d], total, &r[d]) != 0) {
			fprintf(stderr, "soak %s: could not start\n",
			        drivers[d]);
			return (1);
		}
	printf("soak: %d reconfigurations (%d duplex circuits each, "
	       "read back by ocsd after every one, by TL1 every 100th)\n",
	       total, HOSTS);
	printf("| driver | done | failed | mismatches | median ms | ocsd RSS "
	       "start/end kB | ocs-emu RSS start/end kB |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (d = 0; d < 2; d++) {
		printf(
		    "| %s | %d | %d | %d | %.3f | %ld / %ld | %ld / %ld |\n",
		    drivers[d], r[d].n, r[d].failed, r[d].mismatch,
		    r[d].median_ms, r[d].rss0[0], r[d].rss1[0], r[d].rss0[1],
		    r[d].rss1[1]);
		bad |= r[d].failed || r[d].mismatch || r[d].n != total ||
		       r[d].rss1[0] - r[d].rss0[0] > SOAK_RSS_SLACK_KB ||
		       r[d].rss1[1] - r[d].rss0[1] > SOAK_RSS_SLACK_KB;
	}
	return (bad);
}
