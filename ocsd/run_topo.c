/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A synthesised collective's run (AllGather, ReduceScatter, AllReduce):
 * the topology of hosts it is planned on, the schedule synthesised and
 * validated, then put on the agents' circuits (tsyn_on_circuits), whose
 * configurations are the run's reconfigurations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/cost.h"
#include "collectives/tsyn.h"
#include "ocsd/run_int.h"
#include "proto/base/units.h"

static int
coll_parse(const char *s, enum sched_coll *c)
{
	if (strcmp(s, "allgather") == 0)
		*c = SCHED_ALLGATHER;
	else if (strcmp(s, "reducescatter") == 0)
		*c = SCHED_REDUCESCATTER;
	else if (strcmp(s, "allreduce") == 0)
		*c = SCHED_ALLREDUCE;
	else
		return (-1);
	return (0);
}

/* Does a generator spec end in RATE:TIME? */
static int
has_rate(const char *spec)
{
	const char *t = strrchr(spec, ':'), *r;
	char        rate[64];
	double      x;

	if (t == NULL || t == spec)
		return (0);
	for (r = t - 1; r > spec && *r != ':'; r--)
		;
	if (*r != ':' || (size_t)(t - r - 1) >= sizeof(rate))
		return (0);
	memcpy(rate, r + 1, (size_t)(t - r - 1));
	rate[t - r - 1] = '\0';
	return (unit_parse_rate(rate, &x) == 0 &&
	        unit_parse_time(t + 1, &x) == 0);
}

/* The request's topology into r->topo: JSON text, or a generator given
 * the run's rate and per-hop latency when it names none; ring:N when
 * there is none at all. */
static int
load(struct run *r, const struct run_req *q, uint32_t joined, char *err,
     size_t len)
{
	const char *spec = q->topology;
	char        gen[256], why[256] = "";
	int         rv;

	if (spec != NULL && spec[strspn(spec, " \t\r\n")] == '{') {
		rv =
		    topo_parse(spec, strlen(spec), &r->topo, why, sizeof(why));
	} else {
		if (spec == NULL)
			snprintf(gen, sizeof(gen), "ring:%u",
			         q->nodes ? q->nodes : joined);
		else
			snprintf(gen, sizeof(gen), "%.180s", spec);
		if (!has_rate(gen))
			snprintf(gen + strlen(gen), sizeof(gen) - strlen(gen),
			         ":%.0fbps:%.0fns", 8.0 / r->cp.beta,
			         r->cp.alpha_h * 1e9);
		rv = topo_generate(gen, &r->topo, why, sizeof(why));
	}
	if (rv == -ENOMEM)
		return (rv);
	if (rv != 0) {
		snprintf(err, len, "topology: %s", why);
		return (-OCSD_EUSAGE);
	}
	r->has_topo = 1;
	return (0);
}

int
run_topo_request(struct run *r, const struct run_req *q, uint32_t *n,
                 char *err, size_t len)
{
	uint32_t c = q->chunks ? q->chunks : 1, joined = *n, i;
	uint64_t unit;
	int      rv;

	if (coll_parse(q->collective, &r->coll) != 0) {
		snprintf(err, len,
		         "collective \"%.40s\": expected allgather, "
		         "reducescatter or allreduce",
		         q->collective);
		return (-OCSD_EUSAGE);
	}
	if (tsyn_algo_parse(q->algo, &r->talgo) != 0) {
		snprintf(err, len,
		         "algo \"%.40s\": not a synthesiser of collectives "
		         "(ten, mteg, ring, spt, sph, scalecc)",
		         q->algo);
		return (-OCSD_EUSAGE);
	}
	if (q->matrix != NULL || q->radix || q->reconfig[0] != '\0') {
		snprintf(err, len,
		         "collective %s: --matrix, --radix and --reconfig are "
		         "All-to-All's (reconfigurations follow the "
		         "topology's circuits)",
		         q->collective);
		return (-OCSD_EUSAGE);
	}
	if ((rv = load(r, q, joined, err, len)) != 0)
		return (rv);
	for (i = 0; i < r->topo.n; i++)
		if (r->topo.node[i].gpu < 0) {
			snprintf(err, len,
			         "topology %s: %s is not a GPU; circuits join "
			         "hosts only",
			         r->topo.name, r->topo.node[i].name);
			return (-OCSD_EUSAGE);
		}
	*n = r->topo.n;
	if (q->nodes > 0 && q->nodes != *n) {
		snprintf(err, len, "nodes %u: the topology %s has %u",
		         q->nodes, r->topo.name, *n);
		return (-OCSD_EUSAGE);
	}
	if (*n > joined || *n < 2) {
		snprintf(err, len,
		         "topology %s of %u hosts: %u agents have joined",
		         r->topo.name, *n, joined);
		return (-OCSD_EREQUEST);
	}
	/* Every chunk whole, of whole int32 elements where sums are. */
	unit = (uint64_t)*n * c * (r->coll == SCHED_ALLGATHER ? 1 : 4);
	if (q->bytes < unit || q->bytes > ((uint64_t)1 << 34) ||
	    q->bytes % unit != 0) {
		snprintf(err, len,
		         "bytes %llu: %s on %u nodes of %u chunks needs a "
		         "multiple of %llu up to 16 GiB%s",
		         (unsigned long long)q->bytes, q->collective, *n, c,
		         (unsigned long long)unit,
		         r->coll == SCHED_ALLGATHER
		             ? ""
		             : " (chunks of whole int32 elements)");
		return (-OCSD_EUSAGE);
	}
	snprintf(r->algo, sizeof(r->algo), "%s %s", q->algo, q->collective);
	return (0);
}

/* The fewest transceivers among the run's agents. */
static uint32_t
min_trx(const struct run_member *act, uint32_t n)
{
	uint32_t i, m = UINT32_MAX;

	for (i = 0; i < n; i++)
		m = act[i].ntrx < m ? act[i].ntrx : m;
	return (m);
}

static int
on_circuits(struct run *r, const struct sched *ts,
            const struct run_member *act, char *err, size_t len)
{
	struct sched_verr ve;
	uint32_t          k;
	int               rv;

	if ((rv = tsyn_on_circuits(ts, min_trx(act, r->n), &r->s, err, len)) !=
	    0)
		return (rv == -EINVAL ? -OCSD_EUSAGE : rv);
	if ((rv = sched_validate_circuits(&r->s, &ve)) != 0) {
		snprintf(err, len, "%s on circuits: %s", r->algo, ve.msg);
		return (rv);
	}
	r->nph = r->s.nph;
	if (r->nph > RUN_MAX_PHASES) {
		snprintf(err, len,
		         "%s on %s: %u phases on circuits; a run has at most "
		         "%u (fewer chunks, or hosts with more transceivers)",
		         r->algo, r->topo.name, r->nph, RUN_MAX_PHASES);
		return (-OCSD_EUSAGE);
	}
	memset(r->before, 0, sizeof(r->before));
	for (k = 1; k < r->nph; k++)
		r->before[k] = r->s.ph[k].cfg >= 0;
	return (0);
}

int
run_topo_build(struct run *r, const struct run_req *q,
               const struct run_member *act, char *err, size_t len)
{
	struct tsyn_params p = {.algo = r->talgo,
	                        .coll = r->coll,
	                        .bytes = q->bytes,
	                        .chunks = q->chunks ? q->chunks : 1};
	struct sched       ts;
	char               why[256];
	double             total;
	uint32_t           slots;
	int                rv;

	if ((rv = tsyn_synth(&r->topo, &p, &ts, why, sizeof(why))) != 0) {
		snprintf(err, len, "planning %s on %s: %s", r->algo,
		         r->topo.name, why);
		return (rv == -ENOMEM ? rv : -OCSD_EUSAGE);
	}
	if ((rv = tsyn_validate(&ts, &slots, why, sizeof(why))) != 0) {
		snprintf(err, len, "planning %s on %s: %s", r->algo,
		         r->topo.name, why);
		sched_free(&ts);
		return (rv);
	}
	rv = on_circuits(r, &ts, act, err, len);
	sched_free(&ts);
	if (rv != 0)
		return (rv);
	if ((rv = sched_plans(&r->s, &r->plans)) != 0 ||
	    (rv = cost_sched(&r->s, &r->cp, &total, r->pc)) != 0) {
		snprintf(err, len, "planning %s on %s: %s", r->algo,
		         r->topo.name, coll_strerror(rv));
		return (rv);
	}
	r->predicted = total;
	return (0);
}
