/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_scale: ocsd's control path with 100, 1 000 and 4 000 agents,
 * simulated from this one process by ocs-load's library (each its own
 * connection, the real protocol, no data moved), against a real ocsd
 * driving ocs-emu over TL1:
 *   1. the join storm: every agent says Hello at once; time to the last
 *      JoinReply, and how many were told to try again;
 *   2. heartbeats: idle agents' held Polls answered each heartbeat (1 s),
 *      and ocsd's CPU while it does that;
 *   3. ocsd's memory per agent (resident, after the joins less before);
 *   4. barriers: ReTri over every agent (up to ocsd's 1 024 nodes a
 *      run), a barrier and a reconfiguration before every phase; the
 *      control time per phase (release to the last Ready), median over
 *      phases and runs, and per agent: in the default configuration
 *      (agents in the clear, their links derived), and in the same run
 *      with agents over TLS (a second ocsd, tls+tcp://, links TLS too);
 *      beside them the floors of the same barrier on this machine over
 *      bare sockets and over nng alone (nng_floor.h); and the CPU each
 *      side spent a phase, ocsd and the simulated agents, in the clear
 *      and over TLS (on a shared machine the wall time is everybody's).
 * At 4 000 agents each has one transceiver (4 000 of the emulated
 * switch's 4 096 ports), and a run needs two: barriers stop at 1 000.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "proto/base/mono.h"
#include "proto/msg.h"
#include "testbed/load/load.h"
#include "tests/bench/nng_floor.h"
#include "tests/lib/rig.h"

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* VmRSS of pid in KiB, or 0. */
static long
rss_kib(pid_t pid)
{
	char  path[64], line[256];
	long  kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return (kib);
}

/* The run's per-phase control times (seconds) appended to c. */
static int
run_controls(struct rig *r, uint32_t nodes, double *c, int *nc, int cap)
{
	char    nb[16], bytes[32], *o, *e;
	json_t *j, *ph;
	size_t  p;
	int     rv;

	snprintf(nb, sizeof(nb), "%u", nodes);
	snprintf(bytes, sizeof(bytes), "%u", 8 * nodes);
	rv = rig_ctl(r, &o, &e, "-j", "run", "--algo", "retri", "--nodes", nb,
	             "--bytes", bytes, "--reconfig", "all", NULL);
	j = rv == 0 ? json_loads(o, 0, NULL) : NULL;
	if (j == NULL)
		fprintf(stderr, "bench_scale: run on %u nodes: %s", nodes, e);
	free(o);
	free(e);
	if (j == NULL)
		return (-1);
	ph = json_object_get(json_object_get(j, "report"), "phases");
	for (p = 0; p < json_array_size(ph) && *nc < cap; p++)
		c[(*nc)++] = json_number_value(
		    json_object_get(json_array_get(ph, p), "control_s"));
	json_decref(j);
	return (0);
}

struct row {
	uint32_t n, trx;
	double   join_s, idle_rate, hb_cpu, kib_per_agent;
	uint64_t retries;
	double   ctl_ms;   /* median per phase, < 0: no run */
	double   tls_ms;   /* the same with TLS agents */
	double   floor_ms; /* nng alone, the same n */
	double   sock_ms;  /* bare sockets alone, the same n */
	int      phases;
	/* CPU per phase of the runs (their planning included): ocsd's,
	 * and this process's (the simulated agents'), in ms. */
	double cpu_ocsd_ms, cpu_agents_ms;
	/* ocsctl's status request round trips: idle, and while
	 * ocsd plans a skewed run with auto on every agent (median, max). */
	double st_idle_ms, st_plan_ms, st_plan_max_ms, plan_s;
	int    st_n;
};

/* One status request on an open REQ socket to ocsd's control socket,
 * as ocsctl sends it (no secret on the rig's): its round trip in ms. */
static double
status_ms(nng_socket sock)
{
	Ocs__CtlRequest q;
	Ocs__Msg        m, *rep = NULL;
	char            why[300];
	uint64_t        t0 = mono_us();
	int             rv;

	ocs__ctl_request__init(&q);
	q.op = OCS__CTL_REQUEST__OP__STATUS;
	msg_init(&m, t0);
	m.body_case = OCS__MSG__BODY_CTL;
	m.ctl = &q;
	rv = msg_call(sock, &m, "ocsd", &rep, why, sizeof(why));
	t0 = mono_us() - t0;
	rv = rv == 0 && rep->body_case == OCS__MSG__BODY_CTL_REPLY ? 0 : -1;
	msg_free(rep);
	return (rv == 0 ? t0 / 1e3 : 1e9);
}

/*
 * Planning is off ocsd's lock (issue 34: a 256-agent auto plan froze it
 * for 45 s): status asked every 50 ms while auto plans a skewed run over
 * every agent, for 10 s at most, then the plan aborted; against status
 * when idle, asked the same way.
 */
static void
status_while_planning(struct rig *r, uint32_t n, struct row *w)
{
	char  bin[256], mx[48], log[300], *o, *e;
	char *argv[] = {
	    (char *)(uintptr_t)proc_bin("ocsctl", bin, sizeof(bin)),
	    "-s",
	    r->sock,
	    "run",
	    "--algo",
	    "auto",
	    "--matrix",
	    mx,
	    "--bytes",
	    "1KiB",
	    NULL};
	double      idle[21], plan[200];
	struct proc c;
	nng_socket  sock;
	uint64_t    t0;
	int         i, k = 0, on;

	if (nng_req0_open(&sock) != 0)
		return;
	nng_socket_set_ms(sock, NNG_OPT_RECVTIMEO, 60000);
	nng_socket_set_size(sock, NNG_OPT_RECVMAXSZ, MSG_MAX_BYTES);
	if (nng_dial(sock, r->sock, NULL, 0) != 0) {
		nng_close(sock);
		return;
	}
	for (i = 0; i < 21; i++)
		idle[i] = status_ms(sock);
	qsort(idle, 21, sizeof(*idle), cmp_d);
	w->st_idle_ms = idle[10];
	snprintf(mx, sizeof(mx), "zipf:%u:0.8:1", n);
	snprintf(log, sizeof(log), "%s/plan.err", r->dir);
	if (proc_start(&c, argv, log) != 0)
		return;
	/* ocsctl's start on a busy machine can take longer than 50 ms:
	 * the plan is waited for before it is timed. */
	t0 = mono_us();
	for (on = 0; !on && mono_us() - t0 < 5000000;) {
		mono_sleep_ms(10);
		if (rig_ctl(r, &o, &e, "status", NULL) == 0)
			on = strstr(o, "planning") != NULL;
		free(o);
		free(e);
	}
	t0 = mono_us();
	while (on && k < 200 && mono_us() - t0 < 10000000) {
		mono_sleep_ms(50);
		if (rig_ctl(r, &o, &e, "status", NULL) == 0)
			on = strstr(o, "planning") != NULL;
		free(o);
		free(e);
		if (on)
			plan[k++] = status_ms(sock);
	}
	w->plan_s = (mono_us() - t0) / 1e6;
	(void)rig_ctl(r, &o, &e, "abort", NULL);
	free(o);
	free(e);
	proc_wait(&c, 60000);
	proc_stop(&c, SIGKILL);
	nng_close(sock);
	w->st_n = k;
	if (k == 0)
		return;
	qsort(plan, (size_t)k, sizeof(*plan), cmp_d);
	w->st_plan_ms = plan[k / 2];
	w->st_plan_max_ms = plan[k - 1];
}

/* Row w for n agents; tls: agents over TLS, and only the barriers. */
static int
one(uint32_t n, int tls, struct row *w)
{
	struct rig_opts   ro = {.switch_time = "0",
	                        .no_agents = 1,
	                        .quiet = 1,
	                        .tls = tls,
	                        .trx = n > 1024 ? 1 : 2};
	struct load_opts  o = {.prefix = "h", .width = 2, .n = n};
	struct rig       *r;
	struct load      *ld = NULL;
	struct load_stats s0, s1;
	char              path[400], err[300];
	double            c0, t0, c[4096];
	long              k0;
	int               nc = 0, runs, rv = -1;

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->trx = o.ntrx = (uint32_t)ro.trx;
	if ((r = rig_up_opts((int)n, &ro)) == NULL)
		return (-1);
	snprintf(path, sizeof(path), "%s/secret", r->dir);
	o.controller = r->join;
	o.tls_ca = tls ? r->ca : NULL;
	k0 = rss_kib(r->ocsd.pid);
	if (auth_read_secret(path, o.secret, &o.secret_len, err,
	                     sizeof(err)) != 0 ||
	    load_start(&o, &ld, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_scale: %s\n", err);
		goto out;
	}
	if (load_wait_joined(ld, 60000) != 0) {
		load_stats(ld, &s0);
		fprintf(stderr, "bench_scale: %u of %u joined: %s\n",
		        s0.joined, n, s0.err);
		goto out;
	}
	load_stats(ld, &s0);
	w->join_s = s0.join_last_us / 1e6;
	w->retries = s0.join_retries;
	w->kib_per_agent = (double)(rss_kib(r->ocsd.pid) - k0) / n;
	/* Five heartbeats of idle agents. */
	c0 = proc_cpu_s(r->ocsd.pid);
	t0 = mono_us() / 1e6;
	mono_sleep_ms(tls ? 0 : 5000);
	load_stats(ld, &s1);
	t0 = mono_us() / 1e6 - t0;
	w->idle_rate = (double)(s1.idles - s0.idles) / t0;
	w->hb_cpu = (proc_cpu_s(r->ocsd.pid) - c0) / t0;
	w->ctl_ms = -1;
	if (ro.trx >= 2) {
		double a0 = proc_cpu_s(getpid());

		c0 = proc_cpu_s(r->ocsd.pid);
		for (runs = 0; runs < 3; runs++)
			if (run_controls(r, n, c, &nc, 4096) != 0)
				goto out;
		w->cpu_ocsd_ms = (proc_cpu_s(r->ocsd.pid) - c0) * 1e3 / nc;
		w->cpu_agents_ms = (proc_cpu_s(getpid()) - a0) * 1e3 / nc;
		qsort(c, (size_t)nc, sizeof(*c), cmp_d);
		w->ctl_ms = c[nc / 2] * 1e3;
		w->phases = nc / 3;
		if (!tls) {
			w->floor_ms = nng_floor_ms(n, 1, 21);
			w->sock_ms = sock_floor_ms(n, 1, 21);
		}
		if (load_wait_finished(ld, 3ull * n, 10000) != 0) {
			fprintf(stderr, "bench_scale: agents not finished\n");
			goto out;
		}
	}
	load_stats(ld, &s1);
	if (s1.failed || s1.aborts) {
		fprintf(stderr, "bench_scale: %u failed, %llu aborted: %s\n",
		        s1.failed, (unsigned long long)s1.aborts, s1.err);
		goto out;
	}
	/* Last: its run is aborted (the agents count that). */
	if (!tls && ro.trx >= 2)
		status_while_planning(r, n, w);
	rv = 0;
out:
	load_stop(ld);
	if (rig_down(r) != 0)
		rv = -1;
	return (rv);
}

/* The agent counts: 100 1000 4000, or the arguments' (1..8192). */
int
main(int argc, char **argv)
{
	uint32_t   ns[8] = {100, 1000, 4000};
	struct row w[8];
	double     tls_cpu[8][2] = {{0}};
	int        i, nn = 3;

	nng_floor_child(argc, argv);
	sock_floor_child(argc, argv);
	for (i = 1; i < argc && i <= 8; i++)
		if ((ns[i - 1] = (uint32_t)atoi(argv[i])) < 2 ||
		    ns[i - 1] > LOAD_MAX) {
			fprintf(stderr, "bench_scale: agents 2..%d\n",
			        LOAD_MAX);
			return (2);
		}
	if (argc > 1)
		nn = i - 1;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("bench_scale: ocsd with simulated agents (ocs-load's "
	       "library, one process,\n  one connection an agent, no data), "
	       "ocs-emu over TL1, %ld cores\n",
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf(
	    "  join: every Hello at once, to the last JoinReply; "
	    "heartbeat: 1 s, idle answers/s\n  and ocsd's CPU; memory: "
	    "ocsd's RSS after the joins less before, per agent;\n  barrier: "
	    "ReTri on every agent, --reconfig all, control per phase "
	    "(release\n  to the last Ready), median of 3 runs' phases, agents "
	    "in the clear, and over TLS\n  (a second ocsd, links TLS too); "
	    "floors: the same barrier between two processes\n  over "
	    "bare sockets (one epoll loop each side) and over nng alone (one "
	    "REP context\n  a client), median of 21\n");
	printf("  %6s %4s %8s %7s %8s %8s %9s %6s %9s %9s %9s %9s %9s\n",
	       "agents", "trx", "join", "retries", "idle/s", "ocsd CPU",
	       "KiB/agent", "phases", "barrier", "per agent", "over TLS",
	       "sock flr", "nng flr");
	for (i = 0; i < nn; i++) {
		struct row wn;

		if (one(ns[i], 0, &w[i]) != 0)
			return (1);
		w[i].tls_ms = -1;
		if (w[i].ctl_ms >= 0) {
			if (one(ns[i], 1, &wn) != 0)
				return (1);
			w[i].tls_ms = wn.ctl_ms;
			tls_cpu[i][0] = wn.cpu_ocsd_ms;
			tls_cpu[i][1] = wn.cpu_agents_ms;
		}
		printf("  %6u %4u %6.3f s %7llu %8.0f %7.1f%% %9.1f", w[i].n,
		       w[i].trx, w[i].join_s, (unsigned long long)w[i].retries,
		       w[i].idle_rate, 100 * w[i].hb_cpu, w[i].kib_per_agent);
		if (w[i].ctl_ms >= 0)
			printf(" %6d %6.2f ms %6.2f us %6.2f ms %6.2f ms "
			       "%6.2f ms\n",
			       w[i].phases, w[i].ctl_ms,
			       1e3 * w[i].ctl_ms / w[i].n, w[i].tls_ms,
			       w[i].sock_ms, w[i].floor_ms);
		else
			printf(" %6s %9s %9s %9s %9s %9s\n", "-", "-", "-",
			       "-", "-", "-");
	}
	/* Wall time on a shared machine is the other programs' too: what
	 * the barrier costs each side is its CPU. */
	printf("  CPU per phase of the runs (release, Readys, and the runs' "
	       "planning and plans), ocsd's\n  and the simulated agents', "
	       "in the clear and over TLS:\n");
	for (i = 0; i < nn; i++)
		if (w[i].ctl_ms >= 0)
			printf("  %6u agents: ocsd %.2f ms, TLS %.2f ms "
			       "(%+.2f us an agent); agents %.2f ms, TLS "
			       "%.2f ms (%+.2f us an agent)\n",
			       w[i].n, w[i].cpu_ocsd_ms, tls_cpu[i][0],
			       1e3 * (tls_cpu[i][0] - w[i].cpu_ocsd_ms) /
			           w[i].n,
			       w[i].cpu_agents_ms, tls_cpu[i][1],
			       1e3 * (tls_cpu[i][1] - w[i].cpu_agents_ms) /
			           w[i].n);
	printf("  status (ocsctl's request, one REQ socket, median of 21) "
	       "idle, and every 50 ms "
	       "while ocsd plans\n  auto on a zipf matrix over every agent "
	       "(10 s at most, then aborted):\n");
	for (i = 0; i < nn; i++)
		if (w[i].st_n > 0)
			printf("  %6u agents: idle %.2f ms; planning %.2f ms "
			       "median, %.2f ms max of %d (planned %.1f s)\n",
			       w[i].n, w[i].st_idle_ms, w[i].st_plan_ms,
			       w[i].st_plan_max_ms, w[i].st_n, w[i].plan_s);
	for (i = 0; i < nn && ns[i] != 1000; i++)
		;
	if (i == nn)
		return (0);
	printf(
	    "  goals: join storm of 1 000 <= 2 s (%s), barrier at 1 000 "
	    "<= 10 ms (%s; %.1fx the bare-socket floor here),\n  over "
	    "TLS <= 10 ms (%s) and within 1.5x of the clear (%.2fx)\n",
	    w[i].join_s <= 2 ? "met" : "NOT met",
	    w[i].ctl_ms <= 10 ? "met" : "NOT met", w[i].ctl_ms / w[i].sock_ms,
	    w[i].tls_ms <= 10 ? "met" : "NOT met", w[i].tls_ms / w[i].ctl_ms);
	return (0);
}
