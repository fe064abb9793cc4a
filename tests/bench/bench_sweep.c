/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_sweep: what ocs-sweep costs and how well its model predicts.
 *
 * 1. Model points a second: sweep_point (R* and the predicted time from
 *    the exact optimiser) over the ReTri paper's grid, in this process.
 * 2. Issue 40's goals, measured: two calibrations in a row on 9 local
 *    agents (fibres at OCS_BENCH_RATE, or by default the rate the first
 *    calibration chose, --rate auto: the fastest the links and not the
 *    CPU bound) and how far apart their bandwidths are; then the
 *    measured sweep (retri, bridge, static; 16 and 64 MiB; delta 0,
 *    1 ms, 10 ms; 3 runs a point) at that rate with the first model,
 *    and again at half the rate (the bandwidth scaled),
 *    each point within 15% of its prediction, flagged CPU-bound with the
 *    reason, or neither.  The load average is printed beside: on a busy
 *    machine points are flagged, not believed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectives/a2a.h"
#include "proto/base/mono.h"
#include "proto/base/units.h"
#include "testbed/sweep/sweep.h"
#include "testbed/sweep/sweep_list.h"
#include "tests/lib/proc.h"

static void
model_rate(void)
{
	static const char *const algo[] = {"retri", "bridge", "static"};
	struct sweep             s;
	struct sweep_row         r;
	double                  *nodes, *bytes, *delay, t0, dt;
	size_t                   nn, nb, nd, i, j, k, a, pts = 0;
	char                     err[300];

	memset(&s, 0, sizeof(s));
	snprintf(s.m.name, sizeof(s.m.name), "paper");
	s.m.bps = 400e9;
	s.m.alpha_s = 1.7e-6;
	s.m.alpha_h = 1e-6;
	if (sweep_list_parse("8,9,64,81,243,256", SWEEP_COUNT, &nodes, &nn,
	                     err, sizeof(err)) != 0 ||
	    sweep_list_parse("1KiB..256MiB*4", SWEEP_SIZE, &bytes, &nb, err,
	                     sizeof(err)) != 0 ||
	    sweep_list_parse("1us..100ms*10,150ms", SWEEP_TIME, &delay, &nd,
	                     err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_sweep: %s\n", err);
		exit(1);
	}
	t0 = mono_s();
	for (a = 0; a < 3; a++)
		for (i = 0; i < nn; i++)
			for (j = 0; j < nb; j++)
				for (k = 0; k < nd; k++) {
					memset(&r, 0, sizeof(r));
					snprintf(r.algo, sizeof(r.algo), "%s",
					         algo[a]);
					r.nodes = (uint32_t)nodes[i];
					r.bytes = (uint64_t)bytes[j];
					r.delta_s = delay[k];
					if (sweep_point(&s, &r, err,
					                sizeof(err)) == 0)
						pts++;
				}
	dt = mono_s() - t0;
	printf("model points (the ReTri paper's grid: 3 algorithms x %zu "
	       "node counts x %zu sizes x %zu delays)\n",
	       nn, nb, nd);
	printf("  %zu points in %.3f s: %.0f points/s\n\n", pts, dt, pts / dt);
	free(nodes);
	free(bytes);
	free(delay);
}

static int
sweep(char *const *argv, char **errs)
{
	char *o, *e;
	int   st = proc_run(argv, &o, &e);

	if (st != 0)
		fprintf(stderr, "bench_sweep: ocs-sweep failed (%d):\n%s", st,
		        e);
	free(o);
	if (errs)
		*errs = e;
	else
		free(e);
	return (st);
}

struct tally {
	int within, flagged, off, n;
};

/* The CSV's measured rows as a table, each within 15% of its prediction,
 * flagged CPU-bound (with why), or neither. */
static int
table(const char *dir, struct tally *t)
{
	char  path[440], line[1200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	printf("  %-7s %5s %9s %7s %10s %10s %9s %7s  %s\n", "algo", "nodes",
	       "bytes", "delta", "measured", "predicted", "meas/pred",
	       "spread", "cpu_bound");
	while (fgets(line, sizeof(line), f) != NULL) {
		struct sweep_row r;
		char             err[200], sz[32];
		double           q;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "algo,", 5) == 0 ||
		    sweep_row_parse(line, &r, err, sizeof(err)) != 0 ||
		    isnan(r.measured_s))
			continue;
		q = r.measured_s / r.predicted_s;
		printf("  %-7s %5u %9s %5.0fms %8.4f s %8.4f s %9.3f %6.1f%%  "
		       "%s\n",
		       r.algo, r.nodes, unit_fmt_size(r.bytes, sz, sizeof(sz)),
		       r.delta_s * 1e3, r.measured_s, r.predicted_s, q,
		       100 * (r.measured_max_s - r.measured_min_s) /
		           r.measured_s,
		       r.cpu_bound[0] ? r.cpu_bound : "-");
		t->n++;
		if (fabs(q - 1) <= 0.15)
			t->within++;
		else if (r.cpu_bound[0])
			t->flagged++;
		else
			t->off++;
	}
	fclose(f);
	return (0);
}

/* A calibration into model; its bandwidth (0 if none), the file used
 * (the model, or the refused fit). */
static double
calibrate(const char *n, const char *rate, const char *model, char *used,
          size_t ul)
{
	char   bin[256], line[300];
	double bps = 0;
	FILE  *f;
	char  *e = NULL, *r;
	char  *c[] = {
	     (char *)(uintptr_t)proc_bin("ocs-sweep", bin, sizeof(bin)),
	     "--calibrate",
	     "--local",
	     "--nodes",
	     (char *)(uintptr_t)n,
	     "--rate",
	     (char *)(uintptr_t)rate,
	     "--out",
	     (char *)(uintptr_t)model,
	     NULL};
	int st = sweep(c, &e);

	snprintf(used, ul, "%s%s", model, st == 0 ? "" : ".rejected");
	/* Why it was refused (the probe's or the fit's), its first line. */
	if (e && (r = strstr(e, "refused")) != NULL) {
		while (r > e && r[-1] != '\n')
			r--;
		printf("  %.*s\n", (int)strcspn(r, "\n"), r);
	}
	free(e);
	if ((f = fopen(used, "r")) == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "bandwidth = %lfbps", &bps);
		if (line[0] == ';' &&
		    (strstr(line, "bandwidth") || strstr(line, "alpha_") ||
		     strstr(line, "reconf_overhead") ||
		     strstr(line, "worst residual")))
			printf("  %s", line + 2);
	}
	fclose(f);
	return (bps);
}

/* The rate a model file's [conditions] record ("" if none), as ocs-sweep
 * --rate takes it. */
static void
model_rate_of(const char *model, char *rate, size_t len)
{
	char   line[300];
	double bps = 0;
	FILE  *f = fopen(model, "r");

	rate[0] = '\0';
	while (f && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "rate = %lfbps", &bps) == 1 && bps > 0)
			snprintf(rate, len, "%.0fbps", bps);
	if (f)
		fclose(f);
}

/* The measured sweep of issue 40's goal with the model at rate. */
static int
measured(const char *dir, const char *n, const char *rate, const char *model,
         const char *bytes, const char *delays, const char *tag,
         struct tally *t)
{
	char  bin[256], out[400];
	char *m[] = {
	    (char *)(uintptr_t)proc_bin("ocs-sweep", bin, sizeof(bin)),
	    "--measure",
	    "--local",
	    "--model",
	    (char *)(uintptr_t)model,
	    "--rate",
	    (char *)(uintptr_t)rate,
	    "--algo",
	    "retri,bridge,static",
	    "--nodes",
	    (char *)(uintptr_t)n,
	    "--bytes",
	    (char *)(uintptr_t)bytes,
	    "--delay",
	    (char *)(uintptr_t)delays,
	    "--repeat",
	    "3",
	    "--out",
	    out,
	    NULL};

	snprintf(out, sizeof(out), "%s/sweep-%s", dir, tag);
	printf("measured sweep (%s): %s agents, fibres at %s, %s a node, "
	       "delta %s, 3 runs a point\n",
	       tag, n, rate, bytes, delays);
	if (sweep(m, NULL) != 0)
		return (-1);
	return (table(out, t));
}

static void
uptime(void)
{
	FILE  *f = fopen("/proc/loadavg", "r");
	double l1 = -1;

	if (f) {
		if (fscanf(f, "%lf", &l1) != 1)
			l1 = -1;
		fclose(f);
	}
	printf("(load average %.2f on %ld cores)\n", l1,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

int
main(void)
{
	char       *dir = proc_tmpdir("bench-sweep"), m1[400], m2[400];
	char        u1[420], u2[420], chosen[32];
	const char *rate =
	    getenv("OCS_BENCH_RATE") ? getenv("OCS_BENCH_RATE") : "auto";
	struct tally t = {0}, t2 = {0};
	double       b1, b2;
	int          rv = 0;

	model_rate();
	if (dir == NULL)
		return (1);
	snprintf(m1, sizeof(m1), "%s/model-1", dir);
	snprintf(m2, sizeof(m2), "%s/model-2", dir);
	/* Issue 40's goals: two calibrations in a row agree within 5% on
	 * the bandwidth; measured points within 15% or flagged CPU-bound
	 * with the reason, at the calibration's rate and at half of it
	 * (the bandwidth scaled). */
	printf("calibration, twice in a row: 9 agents, fibres at %s ", rate);
	uptime();
	b1 = calibrate("9", rate, m1, u1, sizeof(u1));
	/* The second at the rate the first chose: the same conditions. */
	model_rate_of(u1, chosen, sizeof(chosen));
	if (chosen[0]) {
		rate = chosen;
		printf("  the rate: %s\n", rate);
	}
	b2 = calibrate("9", rate, m2, u2, sizeof(u2));
	printf("  bandwidths %.2f and %.2f Mbps: %.1f%% apart (goal 5%%)\n\n",
	       b1 / 1e6, b2 / 1e6,
	       b1 > 0 && b2 > 0 ? 100 * fabs(b1 / b2 - 1) : 100.0);
	if (b1 == 0 || measured(dir, "9", rate, u1, "16MiB,64MiB",
	                        "0,1ms,10ms", "rate", &t) != 0)
		rv = 1;
	else {
		char   half[32];
		double r;

		if (unit_parse_rate(rate, &r) != 0)
			r = 0;
		snprintf(half, sizeof(half), "%.0fbps", r / 2);
		if (r == 0 || measured(dir, "9", half, u1, "16MiB", "1ms",
		                       "half", &t2) != 0)
			rv = 1;
	}
	printf("\n%d of %d measured points within 15%% of the model, %d "
	       "flagged CPU-bound, %d neither (goal: 0) ",
	       t.within + t2.within, t.n + t2.n, t.flagged + t2.flagged,
	       t.off + t2.off);
	uptime();
	proc_rmtree(dir);
	free(dir);
	return (rv);
}
