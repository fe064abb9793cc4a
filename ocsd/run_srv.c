/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run with servers (FAST's server level executed, --gpus-per-server):
 * node i is GPU i % g of server i / g; the planner plans the server
 * matrix, skew_srv_build makes the GPU schedule whose balancing and
 * redistribution go over local links between the agents of a server
 * (each agent's listener, said at its join), and the model prices those
 * links at the servers' own rate.  Each plan then names its node's
 * local peers, their addresses, the run's token and the rate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "ocsd/run_int.h"

int
run_srv_check(const struct run_req *q, const struct run_member *act,
              uint32_t n, char *err, size_t len)
{
	uint32_t g = q->gpus, i;

	if (g < 2)
		return (0);
	if (!run_is_skew(q->algo) || q->collective[0] != '\0') {
		snprintf(err, len,
		         "gpus-per-server %u: only with a skewed planner "
		         "(%s or auto) and a matrix",
		         g, skew_names());
		return (-OCSD_EUSAGE);
	}
	if (n % g != 0 || n / g < 2) {
		snprintf(err, len,
		         "gpus-per-server %u: %u nodes are not 2 or more "
		         "whole servers",
		         g, n);
		return (-OCSD_EUSAGE);
	}
	for (i = 0; i < n; i++)
		if (act[i].laddr[0] == '\0') {
			snprintf(err, len,
			         "agent %s (node %u) has no local link "
			         "(ocs-agent --local-link): servers of %u "
			         "need one",
			         act[i].host, i, g);
			return (-OCSD_EREQUEST);
		}
	return (0);
}

int
run_srv_build(struct run *r, const struct run_req *q,
              const struct skew_watch *hook, char *err, size_t len)
{
	struct tmat        m = {q->mn, (uint64_t *)(uintptr_t)q->matrix}, srv;
	struct skew_params sp = {.cp = r->cp,
	                         .gpus = r->gpus,
	                         .su_alpha = r->su_alpha,
	                         .su_beta = 8.0 / r->su_bps,
	                         .watch = hook};
	struct skew_su     su;
	struct skew_plan   pl;
	uint32_t           k;
	int                rv;

	if ((rv = skew_servers(&m, &sp, &srv, &su)) != 0) {
		snprintf(err, len, "servers of %u: %s", r->gpus,
		         coll_strerror(rv));
		return (rv);
	}
	rv = skew_plan(q->algo, &srv, &sp, &su, &pl, NULL, NULL);
	tmat_free(&srv);
	if (rv != 0) {
		snprintf(err, len, "planning %s on %u servers: %s", q->algo,
		         r->n / r->gpus,
		         rv == -ECANCELED ? "given up" : coll_strerror(rv));
		return (rv);
	}
	if (strcmp(q->algo, "auto") == 0)
		snprintf(r->algo, sizeof(r->algo), "auto:%s", pl.algo);
	if (pl.nride > 0 || pl.nst + 2 > RUN_MAX_PHASES) {
		snprintf(err, len,
		         "%s on %s: %u stages over servers; a run has at most "
		         "%u phases",
		         pl.algo, q->matrix_name, pl.nst, RUN_MAX_PHASES - 2);
		skew_plan_free(&pl);
		return (-OCSD_EUSAGE);
	}
	rv = skew_srv_build(&pl, &m, r->gpus, &r->s);
	skew_plan_free(&pl);
	if (rv != 0) {
		snprintf(err, len, "servers of %u: building the schedule: %s",
		         r->gpus, coll_strerror(rv));
		return (rv);
	}
	r->nph = r->s.nph;
	memset(r->before, 0, sizeof(r->before));
	for (k = 1; k < r->nph; k++)
		r->before[k] = r->s.ph[k].cfg >= 0;
	/* The local links' hellos prove the plan came from this run. */
	if (getrandom(r->ltoken, sizeof(r->ltoken), 0) !=
	    (ssize_t)sizeof(r->ltoken)) {
		snprintf(err, len, "no random token for the local links");
		return (-EIO);
	}
	return (0);
}

int
run_srv_predict(struct run *r)
{
	double total;
	int    rv;

	if (r->gpus < 2)
		return (0);
	memset(r->by, 0, sizeof(r->by));
	if ((rv = skew_srv_cost(&r->s, &r->cp, r->su_alpha, 8.0 / r->su_bps,
	                        r->pc, &total, r->by)) != 0)
		return (rv);
	r->predicted = total;
	return (0);
}

void
run_srv_plan(const struct run *r, struct plan *p)
{
	uint32_t j;

	if (r->gpus < 2)
		return;
	for (j = 0; j < p->nlocal; j++)
		snprintf(p->laddr[j], sizeof(p->laddr[j]), "%s",
		         r->member[p->lnode[j]].laddr);
	memcpy(p->ltoken, r->ltoken, sizeof(p->ltoken));
	p->local_bps = r->su_bps;
}
