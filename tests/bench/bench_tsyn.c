/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_tsyn: AllGather synthesis on every shipped topology for 1 MB,
 * 64 MB and 1 GB per GPU (one chunk per GPU share, and 4 at 1 GB), with
 * every algorithm: completion (replayed with the real latencies), the
 * cut lower bound, their ratio, and the synthesis time (median of 3).
 * Every schedule is validated; an invalid one fails the bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectives/tplan.h"
#include "collectives/tsyn.h"
#include "proto/base/units.h"

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

int
main(void)
{
	static const char *const topos[] = {
	    "dgx1",    "dgx2", "amd",  "ndv2:1", "ndv2:2", "ndv2:4", "ndv2:8",
	    "ndv2:10", "wan2", "wan3", "wan2p",  "wan3p",  "wan4p",
	};
	static const struct {
		uint64_t    bytes;
		uint32_t    chunks;
		const char *name;
	} sizes[] = {
	    {1000000, 1, "1MB"},
	    {64000000, 1, "64MB"},
	    {1000000000, 1, "1GB"},
	    {1000000000, 4, "1GB/4"},
	};
	static const enum tsyn_algo algos[] = {
	    TSYN_TEN, TSYN_MTEG, TSYN_SCALECC, TSYN_SPH, TSYN_SPT, TSYN_RING};
	char   err[400], b1[32], b2[32], b3[32];
	size_t i, j, a;
	int    bad = 0;

	printf("bench_tsyn: AllGather, completion with real latencies / cut "
	       "lower bound, synthesis median of 3\n");
	printf("(size/4: four chunks per GPU share; ratio = completion / "
	       "bound)\n\n");
	printf("%-8s %-6s %-8s %6s %11s %11s %7s %10s\n", "topology", "size",
	       "algo", "slots", "completion", "bound", "ratio", "synthesis");
	for (i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		struct topo t;

		if (tplan_load(topos[i], &t, err, sizeof(err)) != 0) {
			fprintf(stderr, "bench_tsyn: %s\n", err);
			return (1);
		}
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
			for (a = 0; a < sizeof(algos) / sizeof(algos[0]);
			     a++) {
				struct tsyn_params q = {
				    .algo = algos[a],
				    .coll = SCHED_ALLGATHER,
				    .bytes = sizes[j].bytes,
				    .chunks = sizes[j].chunks};
				struct sched s;
				double       ts[3], done, bound;
				uint32_t     slots = 0;
				int          r, exh, ok = 1;

				for (r = 0; r < 3 && ok; r++) {
					double t0 = now_s();

					if (tsyn_synth(&t, &q, &s, err,
					               sizeof(err)) != 0) {
						ok = 0;
						break;
					}
					ts[r] = now_s() - t0;
					if (r < 2)
						sched_free(&s);
				}
				if (!ok) {
					printf("%-8s %-6s %-8s  %s\n",
					       topos[i], sizes[j].name,
					       tsyn_algo_name(algos[a]), err);
					bad = 1;
					continue;
				}
				if (tsyn_validate(&s, &slots, err,
				                  sizeof(err)) != 0) {
					printf("%-8s %-6s %-8s  INVALID: %s\n",
					       topos[i], sizes[j].name,
					       tsyn_algo_name(algos[a]), err);
					bad = 1;
				}
				done = tsyn_replay(&s);
				bound = tsyn_cut_bound(&t, SCHED_ALLGATHER,
				                       sizes[j].bytes, &exh);
				qsort(ts, 3, sizeof(*ts), cmp_d);
				printf("%-8s %-6s %-8s %6u %11s %11s %7.3f "
				       "%10s\n",
				       topos[i], sizes[j].name,
				       tsyn_algo_name(algos[a]), slots,
				       unit_fmt_time(done, b1, sizeof(b1)),
				       unit_fmt_time(bound, b2, sizeof(b2)),
				       done / bound,
				       unit_fmt_time(ts[1], b3, sizeof(b3)));
				fflush(stdout);
				sched_free(&s);
			}
		topo_free(&t);
	}
	return (bad);
}
