/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_plan: planning costs of the All-to-All algorithms.  For each
 * algorithm and n: the time to find R* and the predicted time from the
 * compact profile (no blocks), the time to materialise and validate the IR
 * where feasible, the IR's memory against n * phases * (average blocks per
 * transfer), and the peak RSS of a process doing only that case (each case
 * runs in its own child, measured with wait4).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectives/a2a.h"

#define MAX_BLOCKS ((uint64_t)1 << 26)

struct result {
	int      ok, built;
	uint32_t nph, rstar;
	double   predicted, t_plan, t_build, t_valid;
	double   ir_mem, avg_blk;
	uint64_t nblk;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec * 1e-9);
}

static void
one_case(const char *algo, uint32_t n, struct result *r)
{
	struct cost_params   cp = {.alpha_s = 1.7e-6,
	                           .alpha_h = 1e-6,
	                           .beta = 8.0 / 400e9,
	                           .delta = 1e-6};
	struct reconf_result res;
	struct a2a           a;
	struct sched         s;
	double               t0, best = 1e30, pred = 0;
	int                  rep;

	memset(r, 0, sizeof(*r));
	/* Cost-only: instantiate the profile, optimise, predict.  Best of
	 * 5 runs, each from scratch. */
	for (rep = 0; rep < 5; rep++) {
		t0 = now();
		if (a2a_init(&a, algo, n) != 0)
			return;
		if (a2a_optimise(&a, 1 << 20, &cp, &res) != 0)
			return;
		if (a2a_predict(&a, 1 << 20, &cp,
		                res.place + (size_t)res.rstar * res.nph,
		                &pred) != 0)
			return;
		if (now() - t0 < best)
			best = now() - t0;
		r->nph = res.nph;
		r->rstar = res.rstar;
		reconf_free(&res);
		if (rep < 4)
			a2a_fini(&a);
	}
	r->t_plan = best;
	r->predicted = pred;
	r->ok = 1;
	r->nblk = a2a_ir_blocks(&a);
	if (r->nblk <= MAX_BLOCKS) {
		uint8_t before[64] = {0};
		double  ir;

		if (a2a_optimise(&a, 1 << 20, &cp, &res) != 0)
			return;
		memcpy(before, res.place + (size_t)res.rstar * res.nph,
		       res.nph);
		reconf_free(&res);
		t0 = now();
		if (a2a_build(&a, 1 << 20, before, MAX_BLOCKS, &s) != 0)
			return;
		r->t_build = now() - t0;
		t0 = now();
		if (sched_validate(&s, NULL) != 0 ||
		    cost_sched(&s, &cp, &ir, NULL) != 0)
			return;
		r->t_valid = now() - t0;
		r->ir_mem = (double)sched_mem(&s);
		r->avg_blk = (double)s.nblk / s.nxf;
		r->built = 1;
		sched_free(&s);
	}
	a2a_fini(&a);
}

static const char *
fmt_t(double t, char *b, size_t len)
{
	if (t < 1e-3)
		snprintf(b, len, "%.1f us", t * 1e6);
	else if (t < 1)
		snprintf(b, len, "%.2f ms", t * 1e3);
	else
		snprintf(b, len, "%.2f s", t);
	return (b);
}

/*
 * ReTri of radix 3, 5, 7 at n = b^s up to about 20 000 nodes: cost-only
 * planning (profile + R* DP + prediction), best of 5, in this process.
 */
static void
radix_table(void)
{
	static const uint32_t radices[] = {3, 5, 7};
	struct cost_params    cp = {.alpha_s = 1.7e-6,
	                            .alpha_h = 1e-6,
	                            .beta = 8.0 / 400e9,
	                            .delta = 1e-6};
	char                  b1[32], b2[32];
	size_t                i;

	printf("\nReTri by radix (radix - 1 transceivers a node), n = b^s, "
	       "1 MiB per node: plan+cost best of 5 (goal < 10 ms)\n");
	printf("%5s %6s %3s %3s %12s %11s\n", "radix", "n", "P", "R*",
	       "predicted", "plan+cost");
	for (i = 0; i < 3; i++) {
		uint32_t b = radices[i], n;

		for (n = b * b; n <= 20000; n *= b) {
			struct reconf_result res;
			struct a2a           a;
			double               t0, best = 1e30, pred = 0;
			uint32_t             rstar = 0, nph = 0;
			int                  rep;

			for (rep = 0; rep < 5; rep++) {
				t0 = now();
				if (a2a_init_radix(&a, "retri", n, b) != 0 ||
				    a2a_optimise(&a, 1u << 20, &cp, &res) != 0)
					return;
				pred = res.best;
				rstar = res.rstar;
				nph = a2a_nphases(&a);
				reconf_free(&res);
				a2a_fini(&a);
				best = now() - t0 < best ? now() - t0 : best;
			}
			printf("%5u %6u %3u %3u %12s %11s\n", b, n, nph, rstar,
			       fmt_t(pred, b1, 32), fmt_t(best, b2, 32));
		}
	}
}

int
main(void)
{
	static const char *const algos[] = {"retri", "bridge"};
	static const uint32_t    ns[] = {27, 81, 243, 729, 2187, 19683};
	char                     b1[32], b2[32], b3[32];
	size_t                   ai, ni;

	printf("bench_plan: All-to-All planning, 1 MiB per node, 400 Gbps, "
	       "alpha-s 1.7us, alpha-h 1us, delta 1us\n");
	printf("plan+cost = profile + DP over all placements + prediction "
	       "(best of 5); materialise+validate = IR for the R* placement,"
	       "\nthen validate and cost it; IR/(n*P*b) = IR bytes per "
	       "node x phase x average blocks per transfer\n\n");
	printf("%-7s %6s %3s %3s %12s %11s %12s %12s %10s %9s %10s\n", "algo",
	       "n", "P", "R*", "predicted", "plan+cost", "materialise",
	       "validate", "IR memory", "IR/(nPb)", "peak RSS");
	fflush(stdout);
	for (ai = 0; ai < 2; ai++)
		for (ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
			struct result r;
			struct rusage ru;
			int           fd[2], st;
			pid_t         pid;

			if (pipe2(fd, O_CLOEXEC) != 0)
				return (1);
			if ((pid = fork()) == 0) {
				close(fd[0]);
				one_case(algos[ai], ns[ni], &r);
				if (write(fd[1], &r, sizeof(r)) !=
				    (ssize_t)sizeof(r))
					_exit(1);
				_exit(0);
			}
			close(fd[1]);
			memset(&r, 0, sizeof(r));
			if (read(fd[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
				r.ok = 0;
			close(fd[0]);
			if (wait4(pid, &st, 0, &ru) != pid || !r.ok) {
				printf("%-7s %6u  failed\n", algos[ai],
				       ns[ni]);
				continue;
			}
			printf("%-7s %6u %3u %3u %12s %11s", algos[ai], ns[ni],
			       r.nph, r.rstar, fmt_t(r.predicted, b1, 32),
			       fmt_t(r.t_plan, b2, 32));
			if (r.built)
				printf(" %12s %12s %8.1f MB %9.2f",
				       fmt_t(r.t_build, b1, 32),
				       fmt_t(r.t_valid, b3, 32),
				       r.ir_mem / 1e6,
				       r.ir_mem / ((double)ns[ni] * r.nph *
				                   r.avg_blk));
			else
				printf(" %12s %12s %11s %9s", "-", "-", "-",
				       "-");
			printf(" %7.1f MB", ru.ru_maxrss / 1024.0);
			if (!r.built)
				printf("  (%llu block ids > %llu: not "
				       "materialised)",
				       (unsigned long long)r.nblk,
				       (unsigned long long)MAX_BLOCKS);
			printf("\n");
			fflush(stdout);
		}
	radix_table();
	return (0);
}
