/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_servers: FAST's server level executed, measured against its
 * model.  8 and 12 agents as servers of 4 (--gpus-per-server 4): the
 * balancing and redistribution over local links between a server's
 * agents at 400 Mbps (the token bucket of xport_local), the stages
 * between servers on circuits at 100 Mbps (ocs-emu's fibres), a zipf
 * matrix of 16 MiB a node at most, switching time 1 ms and 10 ms; beside
 * it FAST on the same matrix with one NIC a GPU and no servers.  Medians
 * of RUNS runs; the per-phase table is of the last configuration's last
 * run, with the plan's bytes against what the agents received.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "agent/local.h"
#include "proto/base/mono.h"
#include "tests/lib/rig.h"

#define RUNS 3
/* make run's model of the fibres (bench_fabric.c says where it comes
 * from), and the local links as they are shaped. */
#define MODEL                                                                 \
	"bandwidth = 97Mbps\nalpha_s = 1.5ms\nalpha_h = 0\n"                  \
	"reconf_overhead = 560us\ndeadline = 60s\n"                           \
	"scaleup_bandwidth = 400Mbps\nscaleup_alpha = 20us\n"

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

static double
jnum(json_t *o, const char *k)
{
	return (json_number_value(json_object_get(o, k)));
}

struct meas {
	double   total, predicted;
	uint32_t phases, blocks;
	int      bytes_ok; /* every phase's bytes as planned */
};

/* RUNS runs of FAST on r (gpus "" for none); *last keeps the last
 * report (the caller frees it). */
static int
measure(struct rig *r, const char *matrix, const char *gpus, struct meas *m,
        json_t **last)
{
	double tot[RUNS], pr[RUNS];
	int    run;

	m->bytes_ok = 1;
	for (run = 0; run < RUNS; run++) {
		char   *o, *e;
		json_t *j, *rep, *ph, *x;
		size_t  p;
		int     rv;

		rv = gpus[0] ? rig_ctl(r, &o, &e, "-j", "run", "--algo",
		                       "fast", "--bytes", "16MiB", "--matrix",
		                       matrix, "--gpus-per-server", gpus, NULL)
		             : rig_ctl(r, &o, &e, "-j", "run", "--algo",
		                       "fast", "--bytes", "16MiB", "--matrix",
		                       matrix, NULL);
		if (rv != 0) {
			fprintf(stderr, "run failed: %s", e);
			free(o);
			free(e);
			return (-1);
		}
		j = json_loads(o, 0, NULL);
		free(o);
		free(e);
		rep = json_object_get(j, "report");
		ph = json_object_get(rep, "phases");
		json_array_foreach(ph, p, x) if (gpus[0] &&
		                                 jnum(x, "bytes") !=
		                                     jnum(x, "planned_bytes"))
		    m->bytes_ok = 0;
		if (!json_is_true(json_object_get(rep, "verified")))
			m->bytes_ok = 0;
		tot[run] = jnum(rep, "total_s");
		pr[run] = jnum(rep, "predicted_s");
		m->phases = (uint32_t)json_array_size(ph);
		m->blocks = (uint32_t)jnum(rep, "blocks_verified");
		if (*last)
			json_decref(*last);
		*last = j;
	}
	m->total = median(tot, RUNS);
	m->predicted = median(pr, RUNS);
	return (0);
}

/* The last run's phases: measured and predicted, the plan's bytes
 * (local, on circuits) against what arrived. */
static void
phases(json_t *rep)
{
	json_t *ph = json_object_get(rep, "phases"), *x;
	size_t  p;

	printf("\n   one run, phase by phase (servers of 4, the last "
	       "configuration above):\n");
	printf("   %5s %10s %10s %10s %12s %12s %12s\n", "phase", "reconf",
	       "data", "predicted", "local", "circuits", "received");
	json_array_foreach(ph, p, x)
	{
		double lb = jnum(x, "local_bytes"),
		       pb = jnum(x, "planned_bytes");

		printf(
		    "   %5zu %7.2f ms %7.1f ms %7.1f ms %8.2f MiB %8.2f MiB "
		    "%8.2f MiB\n",
		    p, jnum(x, "reconf_s") * 1e3, jnum(x, "data_s") * 1e3,
		    jnum(x, "predicted_s") * 1e3, lb / 1048576,
		    (pb - lb) / 1048576, jnum(x, "bytes") / 1048576);
	}
}

/* Node `node` of a server of two, its one local link to `peer`. */
static void
plan2(struct plan *p, uint32_t node, uint32_t peer, const char *addr,
      double bps)
{
	memset(p, 0, sizeof(*p));
	p->node = node;
	p->n = 2;
	p->local_from = 1;
	p->nlocal = 1;
	p->nports = 2;
	p->lnode[0] = peer;
	p->local_bps = bps;
	snprintf(p->laddr[0], sizeof(p->laddr[0]), "%s", addr);
}

/* One local link alone, 20 MB through it as an executor would move them
 * (poll, hold): what rate the shaping gives, without agents' work. */
static double
link_alone(double bps)
{
	static char        buf[1 << 20];
	struct local_links a, b;
	struct plan        p0, p1;
	char               b0[64], b1[64], err[256];
	size_t             total = 20000000, sent = 0, got = 0;
	int l0 = local_listen("127.0.0.1:0", b0, sizeof(b0), err, sizeof(err)),
	    l1 = local_listen("127.0.0.1:0", b1, sizeof(b1), err, sizeof(err));
	uint64_t t0;

	plan2(&p0, 0, 1, b1, bps);
	plan2(&p1, 1, 0, b0, bps);
	if (l0 < 0 || l1 < 0 ||
	    local_connect(l0, &p0, 1, &a, 2000, NULL, err, sizeof(err)) != 0 ||
	    local_connect(l1, &p1, 1, &b, 2000, NULL, err, sizeof(err)) != 0)
		return (0);
	t0 = mono_ns();
	while (got < total) {
		ssize_t w = sent < total ? xport_send(&a.x[0], buf,
		                                      total - sent < 65600
		                                          ? total - sent
		                                          : 65600)
		                         : 0,
		        r = xport_recv(&b.x[0], buf, sizeof(buf));
		uint64_t h = xport_hold(&a.x[0]);

		sent += w > 0 ? (size_t)w : 0;
		got += r > 0 ? (size_t)r : 0;
		if (w <= 0 && r <= 0) {
			struct pollfd pf[2] = {
			    {xport_fd(&a.x[0]), h ? 0 : POLLOUT, 0},
			    {xport_fd(&b.x[0]), POLLIN, 0}};

			poll(pf, 2, h ? (int)(h / 1000000) + 1 : 50);
		}
	}
	t0 = mono_ns() - t0;
	local_close(&a);
	local_close(&b);
	close(l0);
	close(l1);
	return ((double)total * 8 / ((double)t0 / 1e9));
}

int
main(void)
{
	const char *deltas[] = {"1ms", "10ms"};
	const int   hosts[] = {8, 12};
	const char *gpus[] = {"4", ""};
	json_t     *last = NULL;
	int         d, h, g;

	printf("bench_servers: FAST with servers of 4 agents "
	       "(--gpus-per-server 4): balancing and\n   redistribution "
	       "over local links at 400 Mbps, stages on circuits at 100 "
	       "Mbps;\n   zipf:N:0.8:5 scaled to 16 MiB a node at most; "
	       "beside it FAST with one NIC a\n   GPU (no servers); "
	       "medians of %d runs; bytes: every phase's as planned\n",
	       RUNS);
	printf("   a local link alone (xport_local, 20 MB): 100 Mbps -> %.1f, "
	       "400 Mbps -> %.1f,\n   1 Gbps -> %.1f Mbps\n",
	       link_alone(100e6) / 1e6, link_alone(400e6) / 1e6,
	       link_alone(1e9) / 1e6);
	printf("   %6s %5s %-8s %6s %10s %10s %7s %7s %6s\n", "delta", "hosts",
	       "servers", "phases", "total", "predicted", "meas/pr", "blocks",
	       "bytes");
	for (d = 0; d < 2; d++)
		for (h = 0; h < 2; h++) {
			struct rig_opts o = {.switch_time = deltas[d],
			                     .quiet = 1,
			                     .rate = "100Mbps",
			                     .run_conf = MODEL};
			struct rig     *r = rig_up_opts(hosts[h], &o);
			char            mx[32];

			if (r == NULL)
				return (1);
			snprintf(mx, sizeof(mx), "zipf:%d:0.8:5", hosts[h]);
			for (g = 0; g < 2; g++) {
				struct meas m;
				json_t     *keep = NULL;

				if (measure(r, mx, gpus[g], &m,
				            g == 0 ? &last : &keep) != 0) {
					rig_down(r);
					return (1);
				}
				json_decref(keep);
				printf(
				    "   %6s %5d %-8s %6u %7.1f ms %7.1f ms "
				    "%7.2f %7u %6s\n",
				    deltas[d], hosts[h],
				    g == 0
				        ? (hosts[h] == 8 ? "2 of 4" : "3 of 4")
				        : "none",
				    m.phases, m.total * 1e3, m.predicted * 1e3,
				    m.total / m.predicted, m.blocks,
				    g == 1       ? "-"
				    : m.bytes_ok ? "equal"
				                 : "DIFF");
			}
			rig_down(r);
		}
	if (last != NULL)
		phases(json_object_get(last, "report"));
	json_decref(last);
	return (0);
}
