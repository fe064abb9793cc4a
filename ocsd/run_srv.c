/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run with servers (FAST's server level executed, --gpus-per-server):
 * node i is GPU i % g of server i / g; the planner plans the server
 * matrix, skew_srv_build makes the GPU schedule whose balancing and
 * redistribution go over local links between the agents of a server
 * (each agent's listener, said at its join), and the model prices those
 * links at the servers' own rate.  Each plan then names its node's
 * local peers, their addresses, the run's token and the rate.  With
 * ocsd.conf's [servers], the run's nodes are first renumbered so that
 * each server's hosts are consecutive (run_srv_group).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The node of m[0..n) on host h, or -1. */
static int
node_of(const struct run_member *m, uint32_t n, const char *h)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (strcmp(m[i].host, h) == 0)
			return ((int)i);
	return (-1);
}

/* "s1 (h01 h03)" for messages. */
static void
srv_label(const struct conf_server *s, uint32_t g, char *buf, size_t len)
{
	size_t   at = (size_t)snprintf(buf, len, "%s (", s->name);
	uint32_t k;

	for (k = 0; k < g && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		                       k ? " " : "", s->host[k]);
	if (at < len)
		snprintf(buf + at, len - at, ")");
}

/* perm[a]: the old node of new node a, server by server in the
 * section's order; every node in a whole server.  0 or -OCSD_EREQUEST. */
static int
srv_perm(const struct run_env *env, const struct run_member *m, uint32_t mn,
         uint32_t *perm, char *err, size_t len)
{
	uint32_t s, k, i, at = 0, g = env->srv_size;
	char     lab[CONF_SERVER_HOSTS * CONF_NAME_MAX + 64];
	int      x;

	for (s = 0; s < env->nsrv; s++) {
		const struct conf_server *sv = &env->srv[s];
		uint32_t                  have = 0;

		for (k = 0; k < g; k++)
			have += node_of(m, mn, sv->host[k]) >= 0;
		if (have == 0)
			continue;
		for (k = 0; k < g; k++) {
			if ((x = node_of(m, mn, sv->host[k])) >= 0) {
				perm[at++] = (uint32_t)x;
				continue;
			}
			srv_label(sv, g, lab, sizeof(lab));
			snprintf(err, len,
			         "server %s of ocsd.conf's [servers]: %s is "
			         "not among the run's %u nodes (a run takes "
			         "whole servers)",
			         lab, sv->host[k], mn);
			return (-OCSD_EREQUEST);
		}
	}
	if (at == mn)
		return (0);
	/* Some node is in no server (a server found is taken whole). */
	for (i = 0; i < mn; i++) {
		for (s = 0, x = -1; s < env->nsrv && x < 0; s++)
			for (k = 0; k < g && x < 0; k++)
				if (strcmp(env->srv[s].host[k], m[i].host) ==
				    0)
					x = (int)s;
		if (x < 0)
			break;
	}
	snprintf(err, len,
	         "agent %s (node %u) is in no server of ocsd.conf's "
	         "[servers]",
	         m[i < mn ? i : 0].host, i < mn ? i : 0);
	return (-OCSD_EREQUEST);
}

int
run_srv_group(const struct run_env *env, struct run_req *q,
              struct run_member *m, uint32_t n, uint64_t *matrix, char *err,
              size_t len)
{
	uint32_t           g = env->srv_size, mn = q->mn, a, b, *perm;
	struct run_member *om;
	uint64_t          *ox;
	char               lab[CONF_SERVER_HOSTS * CONF_NAME_MAX + 64];
	int                rv;

	if (env->nsrv == 0 || q->gpus == 1)
		return (0); /* none, or asked for none */
	if (q->gpus > 1 && q->gpus != g) {
		srv_label(&env->srv[0], g, lab, sizeof(lab));
		snprintf(err, len,
		         "gpus-per-server %u: ocsd.conf's [servers] makes "
		         "servers of %u (%s): leave it out, or give %u",
		         q->gpus, g, lab, g);
		return (-OCSD_EUSAGE);
	}
	/* Servers are FAST's level: other runs are flat, as ever. */
	if (matrix == NULL || !run_is_skew(q->algo) ||
	    q->collective[0] != '\0' || mn > n || mn < 2)
		return (0);
	perm = calloc(mn, sizeof(*perm));
	om = calloc(mn, sizeof(*om));
	ox = calloc((size_t)mn * mn, sizeof(*ox));
	if (perm == NULL || om == NULL || ox == NULL) {
		snprintf(err, len, "out of memory for the servers");
		rv = -ENOMEM;
	} else if ((rv = srv_perm(env, m, mn, perm, err, len)) == 0) {
		memcpy(om, m, mn * sizeof(*om));
		memcpy(ox, matrix, (size_t)mn * mn * sizeof(*ox));
		for (a = 0; a < mn; a++) {
			m[a] = om[perm[a]];
			for (b = 0; b < mn; b++)
				matrix[(size_t)a * mn + b] =
				    ox[(size_t)perm[a] * mn + perm[b]];
		}
		q->gpus = g;
	}
	free(perm);
	free(om);
	free(ox);
	return (rv);
}
