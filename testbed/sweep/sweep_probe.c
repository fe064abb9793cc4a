/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --rate auto on a local testbed: the fastest fibre rate at which this
 * machine's CPU keeps up with n agents, so that what a sweep measures is
 * the links.  From the fastest candidate down, a testbed of n agents
 * makes one static run long enough to see (about PROBE_S at the
 * candidate's rate) and the CPU it took is judged (sweep_cpu.h): a run
 * the CPU bounded means the next rate down, unless the machine was busy
 * with work that is not the testbed's (half a core or more): then no
 * rate will do, and the probe says so rather than pick one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"

#define PROBE_S      0.4
#define PROBE_OTHERS 0.5 /* cores of work not the testbed's */

static const char *const rates[] = {"400Mbps", "200Mbps", "100Mbps",
                                    "50Mbps",  "25Mbps",  "12500Kbps"};
#define NRATES (sizeof(rates) / sizeof(rates[0]))

/* The static ring's busiest link carries c blocks of m / n. */
static uint64_t
probe_bytes(uint32_t n, double bps)
{
	double c = n % 2 ? (n * (double)n - 1) / 8 : n * (double)n / 8;
	double m = PROBE_S * bps / 8 * n / (c > 0 ? c : 1);

	return ((uint64_t)fmax(64 * 1024, floor(m / 4096) * 4096));
}

/* One candidate: 1 if the links bound it, 0 if the testbed's CPU did,
 * -1 if the machine's other work did (or the run failed; why in err). */
static int
probe_one(struct sweep_bed *b, uint32_t n, const char *rate,
          const struct cmodel *m0, char *err, size_t len)
{
	struct cmodel    m = *m0;
	struct sweep_row r;
	struct cpu_use   u;
	json_t          *rep;
	char             sz[32];
	int              rv;

	unit_parse_rate(rate, &m.bps);
	snprintf(b->rate, sizeof(b->rate), "%s", rate);
	if (bed_up(b, n, 1e-3, &m, err, len) != 0)
		return (-1);
	memset(&r, 0, sizeof(r));
	snprintf(r.algo, sizeof(r.algo), "static");
	r.nodes = n;
	r.bytes = probe_bytes(n, m.bps);
	rv = sweep_run_once(b, &r, "none", &rep, &u, err, len);
	bed_down(b);
	if (rv != 0)
		return (-1);
	json_decref(rep);
	fprintf(stderr,
	        "ocs-sweep: --rate auto: %s, %u agents, static %s: busiest "
	        "%s %.2f core, testbed %.2f, machine %.2f of %u cores, "
	        "waited %.0f%%\n",
	        rate, n, unit_fmt_size(r.bytes, sz, sizeof(sz)), u.who, u.max,
	        u.sum, u.host, u.cores, 100 * u.wait);
	if (!cpu_bound(&u, err, len))
		return (1);
	/* Half a core or more of other work: a slower testbed would wait
	 * for the CPU as well.  Otherwise the testbed is its own
	 * bottleneck, and a slower rate asks less of it. */
	if (u.host - u.sum >= PROBE_OTHERS) {
		snprintf(
		    err, len,
		    "the machine is busy with other work (%.2f of %u cores "
		    "not the testbed's)",
		    u.host - u.sum, u.cores);
		return (-1);
	}
	return (0);
}

int
sweep_probe(struct sweep *s, struct sweep_bed *b, uint32_t n)
{
	char   err[1200], last[300] = "";
	size_t i;
	int    rv;

	for (i = 0; i < NRATES; i++) {
		rv = probe_one(b, n, rates[i], &s->m, err, sizeof(err));
		if (rv == 1) {
			snprintf(s->rate, sizeof(s->rate), "%s", rates[i]);
			fprintf(stderr,
			        "ocs-sweep: --rate auto: fibres at %s for %u "
			        "agents: the links, not the CPU, bound a run "
			        "on this machine%s%s\n",
			        rates[i], n, last[0] ? " (faster: " : "",
			        last[0] ? last : "");
			if (last[0])
				fputs(")\n", stderr);
			return (0);
		}
		if (rv < 0) {
			fprintf(
			    stderr,
			    "ocs-sweep: --rate auto: refused: %s; no rate "
			    "would measure the links now (measure when the "
			    "machine is quiet, or give --rate to measure "
			    "anyway: such points are flagged cpu_bound)\n",
			    err);
			return (-1);
		}
		snprintf(last, sizeof(last), "%.200s at %s", err, rates[i]);
	}
	fprintf(stderr,
	        "ocs-sweep: --rate auto: refused: even at %s the CPU bounds a "
	        "run of %u agents (%s): fewer agents (--nodes)\n",
	        rates[NRATES - 1], n, last);
	return (-1);
}
