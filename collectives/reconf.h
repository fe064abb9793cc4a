/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where to reconfigure: the exact optimum over all placements of
 * reconfigurations between phases, by dynamic programming over phase
 * boundaries, and the best cost for every number R of reconfigurations.
 *
 * Input is a cost matrix c[j * nph + k]: the cost of phase k when it runs
 * on the configuration set before phase j (j <= k), and delta[k], the cost
 * of reconfiguring before phase k (k = 1 .. nph-1).  A placement is
 * before[k] in {0,1} for k = 1..nph-1 (before[0] is ignored: phase 0's
 * configuration is set up before the collective and is free).
 */
#ifndef COLL_RECONF_H
#define COLL_RECONF_H

#include <stdint.h>

struct reconf_result {
	uint32_t nph;
	uint32_t rstar; /* the optimal number of reconfigurations */
	double   best;  /* its cost */
	double  *by_r;  /* by_r[R]: best cost with exactly R, R < nph */
	uint8_t *place; /* place[R * nph + k]: placement achieving by_r[R] */
};

/*
 * Solve.  Ties between R prefer fewer reconfigurations; ties between
 * placements for one R prefer reconfiguring later.  O(nph^3) time,
 * O(nph^2) memory.  Returns 0, -EINVAL (nph == 0), -ENOMEM.
 */
int  reconf_solve(uint32_t nph, const double *c, const double *delta,
                  struct reconf_result *);
void reconf_free(struct reconf_result *);

/* Cost of one placement under the same model. */
double reconf_eval(uint32_t nph, const double *c, const double *delta,
                   const uint8_t *before);

/* Number of reconfigurations in a placement. */
uint32_t reconf_count(uint32_t nph, const uint8_t *before);

#endif
