/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_switch: one full reconfiguration of 2n duplex circuits (4n
 * unidirectional patches; every ingress port changes) against ocs-emu
 * with --switch-time 0, measured in the same run three ways:
 *   raw TL1   the two commands the driver sends (DLT-PATCH of the old
 *             ingress ports, ENT-PATCH of the new patches), hand-written
 *             to a socket, each waiting for its COMPLD;
 *   driver    drv_apply() of the polatis driver (same two commands);
 *   ocsd      an APPLY request over nng to ocsd: name resolution, the
 *             worker, the driver, a read-back, the reply.
 * The same for the polatis-netconf driver (one edit-config of running
 * over SSH, libnetconf2 at both ends; its read-back a <get>), the
 * calient driver (one bdel, one badd over REST) and the calient-tl1
 * driver (ENT-CRS + ACT-CRS per new connection, CANC-CRS + DLT-CRS per
 * old one: TL1 has no bulk form).
 * The driver's own overhead is driver - raw.  Medians of R rounds.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "ocs-drivers/drv.h"
#include "ocs-drivers/tl1.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/msg.h"
#include "tests/lib/proc.h"

#define ROUNDS 40

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/* Transceiver x = 4 * host + t: TX on ingress x + 1, RX on egress P + x + 1.
 */
struct conf_ab {
	uint32_t          n, P;
	struct drv_patch *p[2];         /* config A and B, 4n patches each */
	char            **a[2], **b[2]; /* the same as 2n name pairs */
};

static void
make_configs(struct conf_ab *c, uint32_t n)
{
	static const int step[2][2] = {{1, 3}, {2, 5}};
	uint32_t         k, i, t, m;

	c->n = n;
	c->P = 4 * n;
	for (k = 0; k < 2; k++) {
		c->p[k] = calloc(4 * n, sizeof(*c->p[k]));
		c->a[k] = calloc(2 * n, sizeof(char *));
		c->b[k] = calloc(2 * n, sizeof(char *));
		m = 0;
		for (i = 0; i < n; i++)
			for (t = 0; t < 2; t++) {
				uint32_t x = 4 * i + 2 * t;
				uint32_t y =
				    4 * ((i + (uint32_t)step[k][t]) % n) +
				    2 * t + 1;

				c->p[k][2 * m].in = (uint16_t)(x + 1);
				c->p[k][2 * m].out = (uint16_t)(c->P + y + 1);
				c->p[k][2 * m + 1].in = (uint16_t)(y + 1);
				c->p[k][2 * m + 1].out =
				    (uint16_t)(c->P + x + 1);
				asprintf(&c->a[k][m], "h%u.%u", x / 4, x % 4);
				asprintf(&c->b[k][m], "h%u.%u", y / 4, y % 4);
				m++;
			}
	}
}

/* Send one command and wait for its COMPLD. */
static int
raw_cmd(int fd, struct tl1_buf *in, const char *verb, const char *aid,
        const char *rest, uint32_t ctag)
{
	struct tl1_buf  out = {0};
	struct tl1_resp r;
	char            chunk[65536], tag[16];
	uint64_t        dl = mono_ms() + 10000;
	ssize_t         n;
	int             rv = -1;

	snprintf(tag, sizeof(tag), "%u", ctag);
	tl1_cmd_fmt(&out, verb, "", aid, ctag, rest);
	if (net_write_all(fd, out.p, out.len, dl, -1) != 0)
		goto done;
	for (;;) {
		while ((n = tl1_resp_parse(in->p, in->len, &r)) > 0) {
			int mine = r.kind == TL1_RESP &&
			           strcmp(r.tag, tag) == 0 && !r.more;
			int ok = r.status == TL1_COMPLD;

			tl1_buf_consume(in, (size_t)n);
			tl1_resp_free(&r);
			if (mine) {
				rv = ok ? 0 : -1;
				goto done;
			}
		}
		if (n < 0 ||
		    (n = net_read_some(fd, chunk, sizeof(chunk), dl, -1)) <= 0)
			goto done;
		tl1_buf_put(in, chunk, (size_t)n);
	}
done:
	tl1_buf_free(&out);
	return (rv);
}

static double
bench_raw(const char *addr, const struct conf_ab *c)
{
	struct tl1_buf in = {0}, aid = {0};
	char           host[64], port[16];
	uint16_t      *ins = calloc(4 * c->n, sizeof(*ins));
	double         t[ROUNDS], t0;
	uint32_t       ctag = 1, k, i;
	int            fd, r;

	net_hostport(addr, NULL, host, sizeof(host), port, sizeof(port));
	fd = net_connect(host, port, 2000, -1);
	if (fd < 0 ||
	    raw_cmd(fd, &in, "ACT-USER", "root", "::root", ctag++) != 0)
		return (-1);
	for (i = 0; i < 4 * c->n; i++)
		ins[i] = (uint16_t)(i + 1);
	for (r = 0; r < ROUNDS + 1; r++) {
		k = (uint32_t)r % 2;
		t0 = now_ms();
		tl1_aid_fmt(&aid, ins, 4 * c->n);
		if (r > 0 &&
		    raw_cmd(fd, &in, "DLT-PATCH", aid.p, ":", ctag++) != 0)
			return (-1);
		tl1_buf_free(&aid);
		tl1_aid_fmt_patches(&aid, c->p[k], 4 * c->n);
		if (raw_cmd(fd, &in, "ENT-PATCH", aid.p, ":", ctag++) != 0)
			return (-1);
		tl1_buf_free(&aid);
		if (r > 0)
			t[r - 1] = now_ms() - t0;
	}
	close(fd);
	tl1_buf_free(&in);
	free(ins);
	return (median(t, ROUNDS));
}

static void
bench_driver(const char *drvname, const char *addr, const char *dir,
             const struct conf_ab *c, double *apply, double *with_rb)
{
	char            kh[300];
	struct drv_opts o = {.user = "root",
	                     .password = "root",
	                     .timeout_ms = 10000,
	                     .known_hosts = kh};

	snprintf(kh, sizeof(kh), "%s/known_hosts", dir);
	struct drv_batch b;
	struct drv      *d;
	uint16_t        *map = calloc(c->P + 1, sizeof(*map));
	uint16_t        *ins = calloc(4 * c->n, sizeof(*ins));
	double           ta[ROUNDS], tr[ROUNDS], t0;
	uint32_t         i;
	int              r;

	*apply = *with_rb = -1;
	if (drv_open(&d, drvname, addr, &o) != 0)
		return;
	/* Start from a clean switch. */
	drv_read_map(d, map, c->P);
	for (i = 0; i < 4 * c->n; i++)
		ins[i] = (uint16_t)(i + 1);
	memset(&b, 0, sizeof(b));
	b.disconnect = ins;
	b.ndisconnect = 4 * c->n;
	drv_apply(d, &b);
	for (r = 0; r < 2 * ROUNDS + 1; r++) {
		b.connect = c->p[r % 2];
		b.nconnect = 4 * c->n;
		b.ndisconnect = r > 0 ? 4 * c->n : 0;
		t0 = now_ms();
		if (drv_apply(d, &b) != 0) {
			fprintf(stderr, "driver: %s\n", drv_last_error(d));
			return;
		}
		if (r > 0 && r <= ROUNDS)
			ta[r - 1] = now_ms() - t0;
		if (r > ROUNDS) {
			if (drv_read_map(d, map, c->P) != 0)
				return;
			tr[r - ROUNDS - 1] = now_ms() - t0;
		}
	}
	*apply = median(ta, ROUNDS);
	*with_rb = median(tr, ROUNDS);
	drv_close(d);
	free(map);
	free(ins);
}

static int
ocsd_request(nng_socket s, Ocs__CtlRequest *q)
{
	Ocs__Msg m, *rep;
	nng_msg *nm;
	char     why[256];
	int      rv;

	msg_init(&m, 1);
	m.body_case = OCS__MSG__BODY_CTL;
	m.ctl = q;
	if (msg_encode(&m, &nm) != 0 || nng_sendmsg(s, nm, 0) != 0 ||
	    nng_recvmsg(s, &nm, 0) != 0)
		return (-1);
	rv = msg_decode(nng_msg_body(nm), nng_msg_len(nm), &rep, why,
	                sizeof(why));
	nng_msg_free(nm);
	if (rv != 0)
		return (-1);
	if (rep->body_case == OCS__MSG__BODY_ERROR) {
		fprintf(stderr, "ocsd: %s\n", rep->error->text);
		rv = -1;
	}
	msg_free(rep);
	return (rv);
}

static double
bench_ocsd(const char *dir, const char *drvname, const char *addr,
           const struct conf_ab *c)
{
	Ocs__CtlRequest  q;
	Ocs__Endpoints  *e = calloc(2 * c->n, sizeof(*e));
	Ocs__Endpoints **ep = calloc(2 * c->n, sizeof(*ep));
	struct proc      p;
	nng_socket       s;
	char             conf[300], sock[320], log[300], bin[256];
	char  *argv[] = {(char *)(uintptr_t)proc_bin("ocsd", bin, sizeof(bin)),
	                 "-d", "-f", conf, NULL};
	double t[ROUNDS], t0, res = -1;
	uint32_t i;
	int      r, k;
	FILE    *f;

	snprintf(conf, sizeof(conf), "%s/ocsd.conf", dir);
	snprintf(sock, sizeof(sock), "ipc://%s/ctl.sock", dir);
	snprintf(log, sizeof(log), "%s/ocsd.log", dir);
	f = fopen(conf, "we");
	fprintf(f,
	        "[switch]\ndriver = %s\naddress = %s\nuser = root\n"
	        "password = root\ntimeout = 10s\npoll = 0\n[control]\n"
	        "listen = %s\n[state]\ndir = %s/state\n[cabling]\n",
	        drvname, addr, sock, dir);
	for (i = 0; i < 4 * c->n; i++)
		fprintf(f, "h%u.%u = %u %u\n", i / 4, i % 4, i + 1,
		        c->P + i + 1);
	fclose(f);
	if (proc_start(&p, argv, log) != 0)
		return (-1);
	nng_req0_open(&s);
	nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 20000);
	nng_socket_set_ms(s, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
	for (k = 0; k < 100 && nng_dial(s, sock, NULL, 0) != 0; k++)
		mono_sleep_ms(50);
	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__APPLY;
	q.n_pairs = 2 * c->n;
	q.pairs = ep;
	for (r = 0; r < ROUNDS + 1; r++) {
		for (i = 0; i < 2 * c->n; i++) {
			ocs__endpoints__init(&e[i]);
			e[i].a = c->a[r % 2][i];
			e[i].b = c->b[r % 2][i];
			ep[i] = &e[i];
		}
		t0 = now_ms();
		/* The first request also waits for ocsd to reach the switch.
		 */
		for (k = 0; k < 100 && ocsd_request(s, &q) != 0; k++)
			mono_sleep_ms(50);
		if (k == 100)
			goto out;
		if (r > 0)
			t[r - 1] = now_ms() - t0;
	}
	res = median(t, ROUNDS);
out:
	nng_close(s);
	proc_stop(&p, SIGTERM);
	free(e);
	free(ep);
	return (res);
}

int
main(void)
{
	static const uint32_t ns[] = {27, 81, 192};
	size_t                i;

	signal(SIGPIPE, SIG_IGN);
	printf("bench_switch: one full reconfiguration of 2n duplex circuits "
	       "(4n patches, every ingress changes),\nocs-emu --switch-time "
	       "0 on loopback, median of %d rounds; ocsd includes the "
	       "read-back\n\n",
	       ROUNDS);
	printf("%5s %7s | %10s %10s %10s %12s %10s | %10s %12s %10s | "
	       "%10s %12s %10s | %11s %12s\n",
	       "n", "patches", "raw TL1", "polatis", "overhead", "drv+readbk",
	       "ocsd", "p-netconf", "drv+readbk", "ocsd", "calient",
	       "drv+readbk", "ocsd", "calient-tl1", "drv+readbk");
	fflush(stdout);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct conf_ab c;
		struct proc    emu;
		char           bin[256], ports[16], line[256], addr[64], *dir;
		char          *argv[] = {
		             (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
		             "--tl1",
		             "127.0.0.1:0",
		             "--rest",
		             "127.0.0.1:0",
		             "--tl1-calient",
		             "127.0.0.1:0",
		             "--netconf",
		             "127.0.0.1:0",
		             "--ports",
		             ports,
		             "--switch-time",
		             "0",
		             NULL};
		double raw, drv, rb, od, cdrv, crb, cod, tdrv, trb, ndrv, nrb,
		    nod;
		char rest[80], tl1c[80], nc[80];

		make_configs(&c, ns[i]);
		snprintf(ports, sizeof(ports), "%u", c.P);
		dir = proc_tmpdir("bench");
		if (proc_start(&emu, argv, NULL) != 0 ||
		    proc_line(&emu, line, sizeof(line), 5000) != 0) {
			printf("%5u  ocs-emu did not start\n", ns[i]);
			continue;
		}
		snprintf(addr, sizeof(addr), "%.60s", line + 13);
		if (proc_line(&emu, line, sizeof(line), 5000) != 0) {
			printf("%5u  ocs-emu has no REST face\n", ns[i]);
			continue;
		}
		snprintf(rest, sizeof(rest), "http://%.60s", line + 14);
		if (proc_line(&emu, line, sizeof(line), 5000) != 0) {
			printf("%5u  ocs-emu has no CALIENT TL1 face\n",
			       ns[i]);
			continue;
		}
		snprintf(tl1c, sizeof(tl1c), "%.60s", line + 21);
		if (proc_line(&emu, line, sizeof(line), 5000) != 0) {
			printf("%5u  ocs-emu has no NETCONF face\n", ns[i]);
			continue;
		}
		snprintf(nc, sizeof(nc), "%.60s", line + 17);
		raw = bench_raw(addr, &c);
		bench_driver("polatis", addr, dir, &c, &drv, &rb);
		od = bench_ocsd(dir, "polatis", addr, &c);
		bench_driver("polatis-netconf", nc, dir, &c, &ndrv, &nrb);
		nod = bench_ocsd(dir, "polatis-netconf", nc, &c);
		bench_driver("calient", rest, dir, &c, &cdrv, &crb);
		cod = bench_ocsd(dir, "calient", rest, &c);
		bench_driver("calient-tl1", tl1c, dir, &c, &tdrv, &trb);
		printf("%5u %7u | %7.3f ms %7.3f ms %7.3f ms %9.3f ms %7.3f "
		       "ms | %7.3f ms %9.3f ms %7.3f ms | %7.3f ms %9.3f ms "
		       "%7.3f ms | %8.3f ms %9.3f ms\n",
		       ns[i], 4 * ns[i], raw, drv, drv - raw, rb, od, ndrv,
		       nrb, nod, cdrv, crb, cod, tdrv, trb);
		fflush(stdout);
		proc_stop(&emu, SIGTERM);
		proc_rmtree(dir);
		free(dir);
	}
	return (0);
}
