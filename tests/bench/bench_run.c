/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_run: lockstep collectives on this machine, all measured in the
 * same run.
 *   1. loopback TCP round trip (the floor for any control exchange), and
 *      the round trip through an ocs-emu fibre pair, and nng's REQ/REP
 *      round trip between two processes (nng_floor.h);
 *   2. aggregate throughput of 2n concurrent streams through the ocs-emu
 *      light path against the same streams directly over loopback TCP;
 *   3. per-phase control overhead (release to all done, less data time)
 *      of ocsd with 9, 27 and 81 agents, every phase a barrier;
 *   4. All-to-All completion against the model, calibrated with 1-3;
 *   5. the executor's memory per byte of payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "agent/exec.h"
#include "agent/frame.h"
#include "ocs-drivers/drv.h"
#include "tests/bench/nng_floor.h"
#include "collectives/a2a.h"
#include "proto/base/mono.h"
#include "proto/base/net.h"
#include "proto/base/units.h"
#include "tests/lib/rig.h"
#include "tests/lib/xrun.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
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

static void
nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A connected loopback TCP pair. */
static int
tcp_pair(int *a, int *b)
{
	char host[64], port[16], bound[80];
	int  l = net_listen("127.0.0.1", "0", bound, sizeof(bound));

	if (l < 0 || net_hostport(bound, NULL, host, sizeof(host), port,
	                          sizeof(port)) != 0)
		return (-1);
	*a = net_connect(host, port, 2000, -1);
	for (int i = 0;
	     i < 200 && (*b = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0; i++)
		mono_sleep_ms(5);
	close(l);
	if (*a < 0 || *b < 0)
		return (-1);
	nodelay(*a);
	nodelay(*b);
	return (0);
}

/* Blocking, but never forever: a lost byte fails the bench. */
static void
blocking(int fd)
{
	struct timeval tv = {10, 0};
	int            fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Median round trip of one byte between a and b. */
static double
rtt(int a, int b)
{
	double t[4000], t0;
	char   c = 'x';
	int    i;

	blocking(a);
	blocking(b);
	for (i = 0; i < 4000; i++) {
		t0 = now_s();
		if (write(a, &c, 1) != 1 || read(b, &c, 1) != 1 ||
		    write(b, &c, 1) != 1 || read(a, &c, 1) != 1)
			return (-1);
		t[i] = now_s() - t0;
	}
	return (median(t, 4000));
}

/*
 * The same between two processes: a child echoes on b, this one times
 * a.  Each way wakes a process, which the one-thread figure never does:
 * this is the floor any control exchange between ocsd and an agent has.
 */
static double
rtt_procs(int a, int b)
{
	double t[4000], t0;
	char   c = 'x';
	int    i, st;
	pid_t  pid;

	blocking(a);
	blocking(b);
	if ((pid = fork()) < 0)
		return (-1);
	if (pid == 0) {
		close(a);
		while (read(b, &c, 1) == 1 && write(b, &c, 1) == 1)
			;
		_exit(0);
	}
	close(b);
	for (i = 0; i < 4000; i++) {
		t0 = now_s();
		if (write(a, &c, 1) != 1 || read(a, &c, 1) != 1)
			break;
		t[i] = now_s() - t0;
	}
	close(a); /* the child reads end of file and exits */
	waitpid(pid, &st, 0);
	return (i == 4000 ? median(t, 4000) : -1);
}

/* Part 2's rounds of raw streams then executor, and its largest ring. */
#define EXEC_ROUNDS 5
#define XFER_MAX_N  16

/* ---- streams ------------------------------------------------------------ */

struct stream {
	int       tx, rx;
	uint64_t  bytes, got;
	pthread_t ts, tr;
};

static void *
sender(void *arg)
{
	struct stream *s = arg;
	static char    buf[1 << 20];
	uint64_t       left = s->bytes;
	ssize_t        w;

	while (left > 0) {
		w = write(s->tx, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (w <= 0)
			break;
		left -= (uint64_t)w;
	}
	return (NULL);
}

static void *
receiver(void *arg)
{
	struct stream *s = arg;
	char          *buf = malloc(1 << 20);
	ssize_t        r;

	while (s->got < s->bytes) {
		r = read(s->rx, buf, 1 << 20);
		if (r <= 0)
			break;
		s->got += (uint64_t)r;
	}
	free(buf);
	return (NULL);
}

/* Aggregate bytes/s of ns streams of `bytes` each. */
static double
run_streams(struct stream *st, int ns, uint64_t bytes)
{
	double   t0 = now_s();
	uint64_t got = 0;
	int      i;

	for (i = 0; i < ns; i++) {
		st[i].bytes = bytes;
		st[i].got = 0;
		blocking(st[i].tx);
		blocking(st[i].rx);
		pthread_create(&st[i].tr, NULL, receiver, &st[i]);
		pthread_create(&st[i].ts, NULL, sender, &st[i]);
	}
	for (i = 0; i < ns; i++) {
		pthread_join(st[i].ts, NULL);
		pthread_join(st[i].tr, NULL);
		got += st[i].got;
	}
	return (got / (now_s() - t0));
}

/* TL1 to ocs-emu: log in, then one command, wait for COMPLD. */
static int
tl1(const char *addr, const char *cmd)
{
	char     host[64], port[16], buf[65536];
	uint64_t dl = mono_ms() + 5000;
	size_t   got = 0;
	ssize_t  r;
	int      fd;

	net_hostport(addr, NULL, host, sizeof(host), port, sizeof(port));
	if ((fd = net_connect(host, port, 2000, -1)) < 0)
		return (-1);
	net_write_all(fd, "ACT-USER::root:1::root;", 23, dl, -1);
	net_write_all(fd, cmd, strlen(cmd), dl, -1);
	while (got < sizeof(buf) - 1 &&
	       (r = net_read_some(fd, buf + got, sizeof(buf) - 1 - got, dl,
	                          -1)) > 0) {
		got += (size_t)r;
		buf[got] = '\0';
		if (strstr(buf, "M  2 "))
			break;
	}
	close(fd);
	return (strstr(buf, "M  2 COMPLD") ? 0 : -1);
}

/* A fibre into ocs-emu for ingress i, egress o. */
static int
fibre(const char *addr, int i, int o)
{
	char     host[64], port[16], line[64];
	uint64_t dl = mono_ms() + 3000;
	int      fd, n = 0;

	net_hostport(addr, NULL, host, sizeof(host), port, sizeof(port));
	if ((fd = net_connect(host, port, 2000, -1)) < 0)
		return (-1);
	snprintf(line, sizeof(line), "FIBRE %d %d\n", i, o);
	net_write_all(fd, line, strlen(line), dl, -1);
	while (n < 3 && net_read_some(fd, line + n, 1, dl, -1) == 1)
		n++;
	return (n == 3 && memcmp(line, "OK\n", 3) == 0 ? fd : -1);
}

struct relay_rig {
	struct proc emu;
	char        tl1[64], fib[64];
};

static int
emu_up_at(struct relay_rig *rr, int ports, const char *fib)
{
	char  bin[256], line[128], p[16];
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocs-emu", bin, sizeof(bin)),
	    "--tl1",
	    "127.0.0.1:0",
	    "--fibre",
	    (char *)(uintptr_t)fib,
	    "--ports",
	    p,
	    "--switch-time",
	    "0",
	    NULL};

	snprintf(p, sizeof(p), "%d", ports);
	if (proc_start(&rr->emu, argv, NULL) != 0)
		return (-1);
	if (proc_line(&rr->emu, line, sizeof(line), 5000) != 0) {
		proc_stop(&rr->emu, SIGTERM);
		return (-1);
	}
	snprintf(rr->tl1, sizeof(rr->tl1), "%.60s", line + 13);
	if (proc_line(&rr->emu, line, sizeof(line), 5000) != 0) {
		proc_stop(&rr->emu, SIGTERM);
		return (-1);
	}
	snprintf(rr->fib, sizeof(rr->fib), "%.60s", line + 15);
	return (0);
}

static int
emu_up(struct relay_rig *rr, int ports)
{
	return (emu_up_at(rr, ports, "127.0.0.1:0"));
}

/* A fibre at any address (TCP or unix:), blocking answer. */
static int
fibre_at(const char *addr, int i, int o)
{
	char     line[64];
	uint64_t dl = mono_ms() + 3000;
	int      fd, n = 0;

	if ((fd = net_connect_addr(addr, 2000)) < 0)
		return (-1);
	snprintf(line, sizeof(line), "FIBRE %d %d\n", i, o);
	net_write_all(fd, line, strlen(line), dl, -1);
	while (n < 3 && net_read_some(fd, line + n, 1, dl, -1) == 1)
		n++;
	return (n == 3 && memcmp(line, "OK\n", 3) == 0 ? fd : -1);
}

/* 2n streams in a ring of fibres through ocs-emu listening at fib. */
static double
relay_streams(const char *fib, int n, double *emu_cpu)
{
	struct relay_rig rr;
	struct stream    st[64];
	char             cmd[4096];
	int              fd[64], i, nfd = 0, P = 2 * n + 2;
	double           t0, c0, bw = -1;
	size_t           off;

	if (emu_up_at(&rr, P, fib) != 0)
		return (-1);
	off = (size_t)snprintf(cmd, sizeof(cmd), "ENT-PATCH::1&&%d,", 2 * n);
	for (i = 0; i < 2 * n; i++) {
		if ((fd[i] = fibre_at(rr.fib, i + 1, P + i + 1)) < 0)
			goto out;
		nfd++;
		off +=
		    (size_t)snprintf(cmd + off, sizeof(cmd) - off, "%s%d",
		                     i ? "&" : "", P + (i + 1) % (2 * n) + 1);
	}
	snprintf(cmd + off, sizeof(cmd) - off, ":2:;");
	if (tl1(rr.tl1, cmd) != 0)
		goto out;
	for (i = 0; i < 2 * n; i++) {
		st[i].tx = fd[i];
		st[i].rx = fd[(i + 1) % (2 * n)];
	}
	t0 = now_s();
	c0 = proc_cpu_s(rr.emu.pid);
	bw = run_streams(st, 2 * n, 128ull << 20);
	*emu_cpu = (proc_cpu_s(rr.emu.pid) - c0) / (now_s() - t0);
out:
	/* Its switch stops on every way out: nothing outlives the bench. */
	for (i = 0; i < nfd; i++)
		close(fd[i]);
	proc_stop(&rr.emu, SIGTERM);
	return (bw);
}

/*
 * The executor of every node, in threads, running algo without
 * reconfiguration over circuits that are direct loopback TCP (fib NULL)
 * or fibres through ocs-emu at fib.  Link bytes (every byte that crossed
 * a circuit: delivered or relayed) per second; payload bytes delivered
 * per second in *payload.
 */
static double
exec_streams(const char *fib, const char *algo, uint32_t n, uint64_t bytes,
             double *payload, double *cpu_gb)
{
	struct relay_rig    rr;
	struct a2a          a;
	struct sched        s;
	struct sched_nplan *np;
	struct xrun_node   *v = calloc(n, sizeof(*v));
	uint8_t             before[64] = {0};
	char                cmd[8300], ins[4096], outs[4096], err[200];
	uint32_t            i, p, P = 2 * n + 2;
	uint64_t            got = 0, link = 0;
	double              dt, rv = -1;
	size_t              oi = 0, oo = 0;

	if (v == NULL || a2a_init(&a, algo, n) != 0 ||
	    a2a_build(&a, bytes, before, 1u << 24, &s) != 0 ||
	    sched_plans(&s, &np) != 0)
		return (-1);
	memset(&rr, 0, sizeof(rr));
	if (fib && emu_up_at(&rr, (int)P, fib) != 0)
		goto out;
	for (i = 0; i < s.cfg[0].ncirc; i++) {
		const struct sched_circuit *c = &s.circ[s.cfg[0].circ_off + i];
		uint32_t ta = 2 * c->a + c->pa, tb = 2 * c->b + c->pb;
		int      x, y;

		if (fib == NULL) {
			if (tcp_pair(&x, &y) != 0)
				goto out;
			fcntl(x, F_SETFL, fcntl(x, F_GETFL) | O_NONBLOCK);
			fcntl(y, F_SETFL, fcntl(y, F_GETFL) | O_NONBLOCK);
			v[c->a].fd[c->pa].fd = x;
			v[c->b].fd[c->pb].fd = y;
			continue;
		}
		oi += (size_t)snprintf(ins + oi, sizeof(ins) - oi, "%s%u&%u",
		                       i ? "&" : "", ta + 1, tb + 1);
		oo += (size_t)snprintf(outs + oo, sizeof(outs) - oo, "%s%u&%u",
		                       i ? "&" : "", P + tb + 1, P + ta + 1);
	}
	for (i = 0; i < n; i++) {
		if (plan_from_sched(&s, &np[i], 7, 65536, 60000, 2, &v[i].p) !=
		    0)
			goto out;
		for (p = 0; p < 2; p++) {
			if (fib == NULL) {
				v[i].x[p] =
				    (struct xport){&xrun_fd_ops, &v[i].fd[p]};
				continue;
			}
			if (xport_open(&v[i].x[p], &xport_fibre_ops, rr.fib,
			               2 * i + p + 1, P + 2 * i + p + 1, 2000,
			               err, sizeof(err)) != 0) {
				fprintf(stderr, "bench_run: %s\n", err);
				goto out;
			}
		}
	}
	if (fib) {
		snprintf(cmd, sizeof(cmd), "ENT-PATCH::%s,%s:2:;", ins, outs);
		if (tl1(rr.tl1, cmd) != 0)
			goto out;
	}
	/* The nodes run their phases at the same time: the slowest one's
	 * phase time (setup, filling the blocks, excluded) is the wall. */
	xrun(v, n);
	for (dt = 0, i = 0; i < n; i++)
		if (v[i].data_ns / 1e9 > dt)
			dt = v[i].data_ns / 1e9;
	for (i = 0; i < n; i++) {
		if (v[i].rv != 0) {
			fprintf(stderr, "bench_run: node %u: %s\n", i,
			        v[i].err);
			goto out;
		}
		got += v[i].bytes;
		link += v[i].bytes + v[i].relayed;
	}
	*payload = got / dt;
	rv = link / dt;
	/* The nodes' threads' CPU over the phases, per GB crossing a
	 * circuit: the machine has two cores, so this bounds the rate. */
	if (cpu_gb) {
		uint64_t cpu_ns = 0;

		for (i = 0; i < n; i++)
			cpu_ns += v[i].cpu_ns;
		*cpu_gb = cpu_ns / (double)link;
	}
out:
	for (i = 0; i < n; i++) {
		for (p = 0; p < 2; p++) {
			if (fib)
				xport_close(&v[i].x[p]);
			else if (v[i].fd[p].fd > 0)
				close(v[i].fd[p].fd);
		}
		plan_free(&v[i].p);
	}
	/* Its switch stops on every way out: nothing outlives the bench. */
	if (fib)
		proc_stop(&rr.emu, SIGTERM);
	free(v);
	sched_plans_free(np, n);
	sched_free(&s);
	a2a_fini(&a);
	return (rv);
}

/* ---- runs through ocsd ---------------------------------------------------- */

/* The patches of configuration c of s, as the rig cables node i
 * (transceiver p on ingress 2i+p+1, egress that + P). */
static size_t
cfg_patches(const struct sched *s, uint32_t c, uint32_t P,
            struct drv_patch *out)
{
	const struct sched_cfg *g = &s->cfg[c];
	size_t                  m = 0;
	uint32_t                i;

	for (i = 0; i < g->ncirc; i++) {
		const struct sched_circuit *e = &s->circ[g->circ_off + i];
		uint16_t ia = (uint16_t)(2 * e->a + e->pa + 1),
		         ib = (uint16_t)(2 * e->b + e->pb + 1);

		out[m++] = (struct drv_patch){ia, (uint16_t)(ib + P)};
		if (!e->oneway)
			out[m++] = (struct drv_patch){ib, (uint16_t)(ia + P)};
	}
	return (m);
}

/*
 * The reconfigurations of an n-node ReTri run with every phase
 * reconfigured, sent straight to the rig's switch through the polatis
 * driver: the batch, the read-back, the power of the new paths' ports,
 * each its own exchange (mode 0), or the read-back and the power in one
 * (1), or both with the batch's last command (2, as ocsd's worker does
 * them); back to back, or each after a pause of gap_ms as in a run (the
 * data phase), where the switch's and the controller's threads have
 * gone to sleep.  Median ms of `rounds` passes; -1 on failure.
 */
static double
reconf_direct(const struct rig *r, uint32_t n, int rounds, int mode,
              int gap_ms)
{
	struct drv_opts o = {
	    .user = "root", .password = "root", .timeout_ms = 10000};
	uint32_t              P = (uint32_t)atoi(r->emu_ports), k, i;
	struct drv_patch      cur[64], nxt[64];
	struct drv_port_state st[128];
	uint16_t              ins[64], ports[128], *map;
	uint8_t               before[64];
	double                t[512], t0, rv = -1;
	size_t                nc = 0, nn, nt = 0;
	struct drv_batch      b;
	struct sched          s;
	struct a2a            a;
	struct drv           *d = NULL;
	int                   rd, srv = 0, mr = 0;

	memset(before, 1, sizeof(before));
	if ((map = calloc(P + 1, sizeof(*map))) == NULL ||
	    a2a_init(&a, "retri", n) != 0)
		return (-1);
	if (a2a_build(&a, 8192, before, 1u << 20, &s) != 0 ||
	    drv_open(&d, "polatis", r->tl1, &o) != 0)
		goto out;
	for (rd = 0; rd < rounds; rd++)
		for (k = 0; k <= s.nph && nt < 512; k++) {
			/* The last pass puts the switch back as it was. */
			nn = k < s.nph ? cfg_patches(&s, s.ph[k].cfg, P, nxt)
			               : 0;
			for (i = 0; i < nc; i++)
				ins[i] = cur[i].in;
			for (i = 0; i < nn; i++) {
				ports[2 * i] = nxt[i].in;
				ports[2 * i + 1] = nxt[i].out;
			}
			b = (struct drv_batch){ins, nc, nxt, nn};
			if (gap_ms > 0)
				mono_sleep_ms((uint64_t)gap_ms);
			t0 = now_s();
			if (mode == 2
			        ? drv_apply_read(d, &b, map, P, ports, 2 * nn,
			                         st, &mr, &srv) != 0 ||
			              mr != 0 || (nn && srv != 0)
			        : drv_apply(d, &b) != 0 ||
			              (mode == 1
			                   ? drv_read_map_state(
			                         d, map, P, ports, 2 * nn, st,
			                         &srv) != 0 ||
			                         (nn && srv != 0)
			                   : drv_read_map(d, map, P) != 0 ||
			                         (nn && drv_ports_state(
			                                    d, ports, 2 * nn,
			                                    st) != 0))) {
				fprintf(stderr, "bench_run: switch: %s\n",
				        drv_last_error(d));
				goto out;
			}
			if (k < s.nph)
				t[nt++] = (now_s() - t0) * 1e3;
			memcpy(cur, nxt, nn * sizeof(*nxt));
			nc = nn;
		}
	rv = median(t, (int)nt);
out:
	if (d)
		drv_close(d);
	free(map);
	sched_free(&s);
	a2a_fini(&a);
	return (rv);
}

static json_t *
run_json(struct rig *r, char *const *args)
{
	char   *o, *e, *argv[24] = {NULL};
	json_t *j;
	int     n = 0, rv;

	argv[n++] = "-j";
	argv[n++] = "run";
	while (args[n - 2])
		argv[n] = args[n - 2], n++;
	argv[n] = NULL;
	rv = rig_ctl(r, &o, &e, argv[0], argv[1], argv[2], argv[3], argv[4],
	             argv[5], argv[6], argv[7], argv[8], argv[9], argv[10],
	             argv[11], argv[12], argv[13], argv[14], argv[15], NULL);
	j = rv == 0 ? json_loads(o, 0, NULL) : NULL;
	if (rv != 0)
		fprintf(stderr, "run failed: %s", e);
	free(o);
	free(e);
	return (j);
}

static double
jnum(json_t *o, const char *k)
{
	return (json_number_value(json_object_get(o, k)));
}

/* Aggregate bytes/s of 2n raw loopback TCP streams of 128 MiB each,
 * ring i -> i+1; this process's CPU per GB moved in *cpu_gb. */
static double
raw_streams(int n, double *cpu_gb)
{
	struct stream  st[2 * XFER_MAX_N];
	const uint64_t bytes = 128ull << 20;
	double         bw, c0 = proc_cpu_s(getpid());
	int            i, m = 0;

	for (i = 0; i < 2 * n; i++, m++)
		if (tcp_pair(&st[i].tx, &st[i].rx) != 0)
			break;
	bw = m == 2 * n ? run_streams(st, 2 * n, bytes) : -1;
	*cpu_gb = (proc_cpu_s(getpid()) - c0) / (2.0 * n * bytes / 1e9);
	for (i = 0; i < m; i++) {
		close(st[i].tx);
		close(st[i].rx);
	}
	return (bw);
}

/* Part 2's executor against the raw streams: medians over the rounds,
 * and the range of the rounds' ratios. */
struct xvr {
	double raw, link, payload, ratio, lo, hi;
	double cpu_x, cpu_r; /* CPU seconds per GB: executor, raw streams */
};

/*
 * The raw streams and the executor over loopback TCP circuits, one
 * after the other, `rounds` times: their medians, and the median of
 * each round's ratio (the machine's load drifts from round to round,
 * a ratio within one round much less).
 */
static int
exec_vs_raw(int n, int rounds, struct xvr *o)
{
	double r[16], x[16], p[16], q[16], cx[16], cr[16];
	int    i;

	for (i = 0; i < rounds; i++) {
		r[i] = raw_streams(n, &cr[i]);
		x[i] = exec_streams(NULL, "static", (uint32_t)n, 64ull << 20,
		                    &p[i], &cx[i]);
		if (r[i] <= 0 || x[i] <= 0)
			return (-1);
		q[i] = x[i] / r[i];
		fprintf(stderr, "\r   round %d of %d: %3.0f%%", i + 1, rounds,
		        100 * q[i]);
	}
	fprintf(stderr, "\r%40s\r", "");
	o->raw = median(r, rounds);
	o->link = median(x, rounds);
	o->payload = median(p, rounds);
	o->ratio = median(q, rounds);
	o->cpu_x = median(cx, rounds);
	o->cpu_r = median(cr, rounds);
	for (o->lo = o->hi = q[0], i = 1; i < rounds; i++) {
		o->lo = q[i] < o->lo ? q[i] : o->lo;
		o->hi = q[i] > o->hi ? q[i] : o->hi;
	}
	return (0);
}

/* 2. throughput: raw streams, ocs-emu's relay (its TCP fibres' rate in
 * *relay_tcp, for part 4's model), and the executor over circuits of
 * each kind. */
static int
part_xfer(int n, double *relay_tcp)
{
	struct xvr d;
	double     relay, relay_u, emu_cpu, emu_cpu_u;
	double     x_tcp, x_unix, p_tcp, p_unix;
	char       upath[128];

	if (exec_vs_raw(n, EXEC_ROUNDS, &d) != 0)
		return (-1);
	relay = relay_streams("127.0.0.1:0", n, &emu_cpu);
	snprintf(upath, sizeof(upath), "unix:/tmp/ocs-bench-fibre-%d.sock",
	         (int)getpid());
	relay_u = relay_streams(upath, n, &emu_cpu_u);
	if (relay <= 0 || relay_u <= 0)
		return (-1);
	*relay_tcp = relay;
	printf("2. aggregate throughput, %d concurrent streams of 128 MiB\n",
	       2 * n);
	printf("   direct loopback TCP      %6.2f GB/s  (median of %d)\n",
	       d.raw / 1e9, EXEC_ROUNDS);
	printf("   ocs-emu, TCP fibres      %6.2f GB/s  %3.0f%% of direct "
	       "(ocs-emu %.0f%% of a core)\n",
	       relay / 1e9, 100 * relay / d.raw, 100 * emu_cpu);
	printf("   ocs-emu, UNIX fibres     %6.2f GB/s  %3.0f%% of direct "
	       "(ocs-emu %.0f%% of a core)\n",
	       relay_u / 1e9, 100 * relay_u / d.raw, 100 * emu_cpu_u);
	/* Link bytes against the raw streams: both count every byte that
	 * crossed a circuit (the executor's relayed ones too). */
	printf("   the agents' executor, %d nodes (%d circuits), static ring "
	       "All-to-All of 64 MiB per node,\n   link bytes (delivered + "
	       "relayed) and payload:\n",
	       n, 2 * n);
	x_tcp = exec_streams("127.0.0.1:0", "static", (uint32_t)n, 64ull << 20,
	                     &p_tcp, NULL);
	x_unix = exec_streams(upath, "static", (uint32_t)n, 64ull << 20,
	                      &p_unix, NULL);
	if (x_tcp <= 0 || x_unix <= 0)
		return (-1);
	printf("   circuits as loopback TCP %6.2f GB/s  %3.0f%% of the raw "
	       "streams (payload %.2f GB/s;\n%29s median of %d rounds of "
	       "raw streams then executor, %.0f..%.0f%%;\n%29s CPU per GB "
	       "moved: executor %.2f s, raw streams %.2f s)\n",
	       d.link / 1e9, 100 * d.ratio, d.payload / 1e9, "", EXEC_ROUNDS,
	       100 * d.lo, 100 * d.hi, "", d.cpu_x, d.cpu_r);
	printf("   ocs-emu, TCP fibres      %6.2f GB/s  %3.0f%% of the relay "
	       "(payload %.2f GB/s)\n",
	       x_tcp / 1e9, 100 * x_tcp / relay, p_tcp / 1e9);
	printf("   ocs-emu, UNIX fibres     %6.2f GB/s  %3.0f%% of the relay "
	       "(payload %.2f GB/s)\n\n",
	       x_unix / 1e9, 100 * x_unix / relay_u, p_unix / 1e9);
	return (0);
}

/* No argument: every part; "control" or "exec": the round trips and
 * that part alone. */
int
main(int argc, char **argv)
{
	static const int         ns[] = {9, 27, 81};
	static const char *const sizes[] = {"1MiB", "4MiB", "16MiB", "64MiB"};
	static const char *const algos[] = {"retri", "bridge", "static"};
	struct relay_rig         rr;
	double rtt_tcp, rtt_fib, rtt_2p, ctrl9 = 0, relay = 0, ctl[6] = {0};
	double reconf9 = 0, rtt_nng, ctrl81 = 0;
	double direct9[2][3] = {{-1, -1, -1}, {-1, -1, -1}};
	int all = argc < 2, control = all || strcmp(argv[1], "control") == 0;
	int xfer = all || strcmp(argv[1], "exec") == 0;
	double bw_link, a_h;
	char   cmd[4096], bws[32], as[32], ah[32], dl[32];
	int    a, b, i, k, n = 9;

	struct rig_opts quiet0 = {.switch_time = "0", .quiet = 1};
	struct rig_opts quiet1 = {.switch_time = "1ms", .quiet = 1};

	nng_floor_child(argc, argv);
	sock_floor_child(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_run: lockstep collectives on this machine (%ld cores), "
	       "ocs-emu on loopback\n\n",
	       sysconf(_SC_NPROCESSORS_ONLN));

	/* 1. round trips */
	if (tcp_pair(&a, &b) != 0)
		return (1);
	rtt_tcp = rtt(a, b);
	close(a);
	close(b);
	if (tcp_pair(&a, &b) != 0 || (rtt_2p = rtt_procs(a, b)) < 0)
		return (1);
	if (emu_up(&rr, 2 * n + 2) != 0)
		return (1);
	a = fibre(rr.fib, 1, 2 * n + 2 + 1);
	b = fibre(rr.fib, 2, 2 * n + 2 + 2);
	/* a's TX (ingress 1) to b's RX (egress P+2), and back. */
	snprintf(cmd, sizeof(cmd), "ENT-PATCH::1&2,%d&%d:2:;", 2 * n + 4,
	         2 * n + 3);
	if (a < 0 || b < 0 || tl1(rr.tl1, cmd) != 0) {
		proc_stop(&rr.emu, SIGTERM);
		return (1);
	}
	rtt_fib = rtt(a, b);
	close(a);
	close(b);
	/* Its own switch: stopped on every way out of this part. */
	proc_stop(&rr.emu, SIGTERM);
	if (rtt_fib < 0) {
		fprintf(stderr, "bench_run: no echo through the fibres\n");
		return (1);
	}
	printf("1. round trip of one byte (median of 4000)\n");
	printf("   loopback TCP          %8.1f us  (one thread writes and "
	       "reads both ends)\n",
	       rtt_tcp * 1e6);
	printf("   loopback TCP          %8.1f us  (between two processes: "
	       "the floor of a control exchange)\n",
	       rtt_2p * 1e6);
	printf("   ocs-emu fibre pair    %8.1f us  (two TCP legs and the "
	       "relay)\n",
	       rtt_fib * 1e6);
	/* A Ready and its release: one agent's barrier, nng alone. */
	if ((rtt_nng = nng_floor_ms(1, 1, 401) / 1e3) <= 0)
		return (1);
	printf("   nng REQ/REP over IPC  %8.1f us  (between two processes, "
	       "48 bytes: the floor of\n   an agent's exchange with ocsd; "
	       "median of 401)\n\n",
	       rtt_nng * 1e6);

	if (!xfer)
		goto control;
	if (part_xfer(n, &relay) != 0)
		return (1);
	if (!control)
		return (0);
control:
	/* 3. control overhead per phase */
	printf("3. control overhead per phase: release to all done, less the "
	       "slowest data time;\n   ReTri, 8 KiB per node, a barrier and "
	       "a reconfiguration before every phase,\n   switching time 0; "
	       "median over phases of 5 runs; the default configuration\n"
	       "   (no link address: ocsd derives it), agents joined in "
	       "the clear and, in the same run,\n   over TLS (their links "
	       "TLS too); RTT: TCP between two processes; nng RTT: REQ/REP\n"
	       "   between two processes; floor: the same barrier with as "
	       "many client processes doing\n   nothing else on bare "
	       "sockets (median of 101)\n");
	printf("   %6s %-8s %6s %10s %10s %11s %14s %9s\n", "agents", "link",
	       "phases", "control", "reconf", "control/RTT", "control/nngRTT",
	       "floor");
	for (k = 0; k < 6; k++) {
		struct rig_opts o = quiet0;
		struct rig     *r;
		double          c[512], rc[512], fl;
		int             nc = 0, run;
		char *args[] = {"--algo",     "retri", "--bytes", "8KiB",
		                "--reconfig", "all",   NULL};

		o.tls = k % 2;
		if ((r = rig_up_opts(ns[k / 2], &o)) == NULL)
			return (1);
		for (run = 0; run < 5; run++) {
			json_t *j = run_json(r, args), *ph;
			size_t  p;

			if (j == NULL)
				return (1);
			ph = json_object_get(json_object_get(j, "report"),
			                     "phases");
			for (p = 0; p < json_array_size(ph); p++) {
				json_t *e = json_array_get(ph, p);

				c[nc] = jnum(e, "control_s");
				rc[nc++] = jnum(e, "reconf_s");
			}
			json_decref(j);
		}
		if (k == 0) {
			ctrl9 = median(c, nc);
			reconf9 = median(rc, nc);
			/* The same batches straight to the same switch, now
			 * that the runs have put it back. */
			for (i = 0; i < 6; i++)
				direct9[i / 3][i % 3] =
				    reconf_direct(r, (uint32_t)ns[0], 5, i % 3,
				                  i / 3 ? 5 : 0);
		}
		rig_down(r);
		fl = sock_floor_ms((uint32_t)ns[k / 2], (uint32_t)ns[k / 2],
		                   101);
		printf(
		    "   %6d %-8s %6zu %7.2f ms %7.2f ms %11.1f %14.1f %6.2f "
		    "ms\n",
		    ns[k / 2], k % 2 ? "tls" : "plain", (size_t)(nc / 5),
		    median(c, nc) * 1e3, median(rc, nc) * 1e3,
		    median(c, nc) / rtt_2p, median(c, nc) / rtt_nng, fl);
		ctl[k] = median(c, nc);
		if (k == 4)
			ctrl81 = median(c, nc);
	}
	printf("   goals: 9 agents <= 3x RTT (plain %.1fx, %s; TLS %.1fx, "
	       "%s), 81 agents <= 1 ms (plain %.2f ms, %s;\n   TLS %.2f ms, "
	       "%s); TLS within 1.5x of plain (%.2fx, %.2fx, %.2fx at 9, "
	       "27, 81)\n",
	       ctrl9 / rtt_2p, ctrl9 <= 3 * rtt_2p ? "met" : "NOT met",
	       ctl[1] / rtt_2p, ctl[1] <= 3 * rtt_2p ? "met" : "NOT met",
	       ctrl81 * 1e3, ctrl81 <= 1e-3 ? "met" : "NOT met", ctl[5] * 1e3,
	       ctl[5] <= 1e-3 ? "met" : "NOT met", ctl[1] / ctl[0],
	       ctl[3] / ctl[2], ctl[5] / ctl[4]);

	printf("   reconfiguration at 9 agents: through ocsd %.3f ms (the "
	       "runs' reconf_s); the same batches\n   straight to the "
	       "switch through the driver:     back to back  after a 5 ms "
	       "pause\n",
	       reconf9 * 1e3);
	for (i = 0; i < 3; i++) {
		static const char *const how[] = {
		    "batch, read-back, port power, an exchange each",
		    "read-back and power in one exchange",
		    "both with the batch's last command (as ocsd)"};

		if (direct9[0][i] <= 0 || direct9[1][i] <= 0)
			return (1);
		printf("     %-47s %.3f ms %5.2fx  %.3f ms %5.2fx\n", how[i],
		       direct9[0][i], reconf9 * 1e3 / direct9[0][i],
		       direct9[1][i], reconf9 * 1e3 / direct9[1][i]);
	}
	if (!all)
		return (0);

	/* 4. measured against the calibrated model, 9 agents, 1 ms switch */
	bw_link = relay / (2 * n) * 8;
	a_h = rtt_fib / 2;
	snprintf(bws, sizeof(bws), "%.0fbps", bw_link);
	snprintf(as, sizeof(as), "%.0fus", ctrl9 * 1e6);
	snprintf(ah, sizeof(ah), "%.0fus", a_h * 1e6);
	snprintf(dl, sizeof(dl), "%.0fus", (reconf9 + 0.001) * 1e6);
	printf("\n4. All-to-All on 9 agents, switching time 1 ms, against the "
	       "model calibrated here:\n   bandwidth %.2f Gbps per link "
	       "(2. / 18 links), alpha-h %s (1. fibre RTT / 2),\n   alpha-s "
	       "%s (3. control), delta %s (3. reconf + 1 ms)\n",
	       bw_link / 1e9, ah, as, dl);
	printf("   %-7s %7s %4s %12s %12s %7s\n", "algo", "size", "R",
	       "measured", "model", "ratio");
	{
		struct rig *r = rig_up_opts(n, &quiet1);

		if (r == NULL)
			return (1);
		for (k = 0; k < 3; k++)
			for (i = 0; i < 4; i++) {
				char *args[] = {
				    "--algo",      (char *)(uintptr_t)algos[k],
				    "--bytes",     (char *)(uintptr_t)sizes[i],
				    "--bandwidth", bws,
				    "--alpha-s",   as,
				    "--alpha-h",   ah,
				    "--delay",     dl,
				    NULL};
				json_t *j = run_json(r, args), *rep;
				double  m, p;

				if (j == NULL)
					return (1);
				rep = json_object_get(j, "report");
				m = jnum(rep, "total_s");
				p = jnum(rep, "predicted_s");
				printf("   %-7s %7s %4zu %9.2f ms %9.2f ms "
				       "%7.2f\n",
				       algos[k], sizes[i],
				       json_array_size(json_object_get(
				           rep, "reconfigure_before")),
				       m * 1e3, p * 1e3, m / p);
				json_decref(j);
			}
		rig_down(r);
	}

	/* 5. executor memory */
	printf("\n5. executor memory per agent (ReTri, 9 nodes, R* plan, "
	       "64 KiB chunks): buffers / payload m\n");
	for (i = 0; i < 4; i++) {
		struct a2a          aa;
		struct sched        s;
		struct sched_nplan *np;
		struct plan         p;
		struct exec        *e;
		struct xport        x[2] = {{&xport_fibre_ops, NULL},
		                            {&xport_fibre_ops, NULL}};
		uint8_t             before[8] = {0, 1};
		uint64_t            m;
		char                err[200];

		if (a2a_init(&aa, "retri", 9) != 0)
			return (1);
		unit_parse_size(sizes[i], &m);
		if (a2a_build(&aa, m, before, 1u << 24, &s) != 0 ||
		    sched_plans(&s, &np) != 0)
			return (1);
		memset(&p, 0, sizeof(p));
		p.run = 1;
		p.node = 0;
		p.n = 9;
		p.parts = 1;
		p.chunk = 65536;
		p.deadline_ms = 1000;
		p.max_blocks = np[0].max_blocks;
		p.nph = s.nph;
		p.nports = 2;
		p.bytes = m;
		p.ph = calloc(s.nph, sizeof(*p.ph));
		/* Phase 0 waits for its circuits (exec_check insists). */
		p.ph[0].barrier = 1;
		if (exec_new(&e, &p, x, NULL, err, sizeof(err)) != 0) {
			fprintf(stderr, "bench_run: executor: %s\n", err);
			return (1);
		}
		{
			/* In and out buffers of 4 frames on 2 ports. */
			double fixed = 2.0 * 2 * 4 * (FRAME_HDR + 65536);

			printf("   m = %-6s  %8.2f MiB of buffers = %.3f m + "
			       "%.2f MiB\n",
			       sizes[i], exec_mem(e) / 1048576.0,
			       (exec_mem(e) - fixed) / (double)m,
			       fixed / 1048576.0);
		}
		exec_free(e);
		free(p.ph);
		sched_plans_free(np, 9);
		sched_free(&s);
		a2a_fini(&aa);
	}
	return (0);
}
