/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * All-to-All registry, optimisation from the profile, and the generic
 * materialiser shared by every ring algorithm: configurations are the
 * rings i.R - (i + stride).L of the phase that set them, and every class
 * is routed by circ_route(), the same routine the cost-only path uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/a2a.h"

static const struct a2a_ops *const a2a_algos[] = {
    &a2a_retri_ops,  &a2a_bridge_ops, &a2a_bruck_ops,
    &a2a_bruck2_ops, &a2a_static_ops, NULL,
};

const struct a2a_ops *
a2a_lookup(const char *name)
{
	size_t i;

	for (i = 0; a2a_algos[i] != NULL; i++)
		if (strcmp(a2a_algos[i]->name, name) == 0)
			return (a2a_algos[i]);
	return (NULL);
}

const char *
a2a_names(void)
{
	return ("retri, bridge, static, bruck, bruck2");
}

int
a2a_init(struct a2a *a, const char *name, uint32_t n)
{
	return (a2a_init_radix(a, name, n, 0));
}

int
a2a_init_radix(struct a2a *a, const char *name, uint32_t n, uint32_t radix)
{
	const struct a2a_ops *ops = a2a_lookup(name);
	int                   rv;

	memset(a, 0, sizeof(*a));
	if (ops == NULL)
		return (-COLL_EALGO);
	if (n < 2 || (radix != 0 && radix != ops->radix &&
	              strcmp(ops->name, "retri") != 0))
		return (-EINVAL);
	a->ops = ops;
	a->n = n;
	a->radix = radix;
	if ((rv = ops->init(a)) != 0) {
		a2a_fini(a);
		return (rv);
	}
	circ_normalise(&a->prof);
	return (0);
}

void
a2a_fini(struct a2a *a)
{
	circ_free(&a->prof);
	memset(a, 0, sizeof(*a));
}

static double
blk_model_bytes(const struct a2a *a, uint64_t bytes)
{
	return ((double)bytes / ((double)a->n * a->prof.parts));
}

static double *
delta_vec(const struct a2a *a, const struct cost_params *cp)
{
	double  *d = calloc(a->prof.nph, sizeof(*d));
	uint32_t k;

	if (d != NULL)
		for (k = 1; k < a->prof.nph; k++)
			d[k] = cost_delta(cp, k);
	return (d);
}

int
a2a_optimise(const struct a2a *a, uint64_t bytes, const struct cost_params *cp,
             struct reconf_result *res)
{
	uint32_t nph = a->prof.nph;
	double  *c, *d;
	int      rv;

	memset(res, 0, sizeof(*res));
	c = malloc((size_t)nph * nph * sizeof(*c));
	d = delta_vec(a, cp);
	if (c == NULL || d == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	rv = circ_cost_matrix(&a->prof, cp, blk_model_bytes(a, bytes), c);
	if (rv == 0)
		rv = reconf_solve(nph, c, d, res);
out:
	free(c);
	free(d);
	return (rv);
}

int
a2a_predict(const struct a2a *a, uint64_t bytes, const struct cost_params *cp,
            const uint8_t *before, double *cost)
{
	uint32_t nph = a->prof.nph;
	double  *c, *d;
	int      rv;

	c = malloc((size_t)nph * nph * sizeof(*c));
	d = delta_vec(a, cp);
	if (c == NULL || d == NULL) {
		rv = -ENOMEM;
		goto out;
	}
	rv = circ_cost_matrix(&a->prof, cp, blk_model_bytes(a, bytes), c);
	if (rv == 0)
		*cost = reconf_eval(nph, c, d, before);
out:
	free(c);
	free(d);
	return (rv);
}

uint32_t
a2a_rings(const struct a2a *a)
{
	uint32_t k, r = 1;

	for (k = 0; k < a->prof.nph; k++)
		r = circ_nring(&a->prof.ph[k]) > r ? circ_nring(&a->prof.ph[k])
		                                   : r;
	return (r);
}

uint64_t
a2a_ir_blocks(const struct a2a *a)
{
	uint64_t sum = 0;
	uint32_t k, i;

	for (k = 0; k < a->prof.nph; k++)
		for (i = 0; i < a->prof.ph[k].ncls; i++)
			sum += (uint64_t)a->prof.ph[k].cls[i].units * a->n;
	return (sum);
}

int
a2a_build(const struct a2a *a, uint64_t bytes, const uint8_t *before,
          uint64_t max_blocks, struct sched *s)
{
	const struct circ_prof *p = &a->prof;
	uint32_t  n = a->n, k, i, c, nx = 0, cur = 0, umax = 0, r;
	uint32_t *buf = NULL;
	uint64_t  nb = a2a_ir_blocks(a);
	int       rv;

	rv = sched_init(s, a->ops->name, SCHED_ALLTOALL, n, 2 * a2a_rings(a),
	                p->parts, bytes);
	if (rv != 0)
		return (rv);
	if (nb > max_blocks || nb > UINT32_MAX)
		return (-COLL_ETOOBIG);
	for (k = 0; k < p->nph; k++)
		for (i = 0; i < p->ph[k].ncls; i++) {
			nx += p->ph[k].cls[i].units ? n : 0;
			if (p->ph[k].cls[i].units > umax)
				umax = p->ph[k].cls[i].units;
		}
	if ((rv = sched_reserve(s, p->nph, n * p->nph, nx, (uint32_t)nb,
	                        nx)) != 0)
		return (rv);
	if ((buf = malloc((umax ? umax : 1) * sizeof(*buf))) == NULL)
		return (-ENOMEM);

	for (k = 0; k < p->nph; k++) {
		int set = k == 0 || before[k];

		if (set)
			cur = k;
		rv = sched_add_phase(s, set, (uint32_t)p->ph[k].stride);
		if (rv < 0)
			goto out;
		for (r = 0; set && r < circ_nring(&p->ph[k]); r++)
			/* A ring of stride n would join nodes to themselves:
			 * no circuit (no class is routed on it). */
			for (i = 0;
			     circ_stride(&p->ph[k], r) % n != 0 && i < n;
			     i++) {
				rv = sched_add_circuit(
				    s, i, (uint16_t)(2 * r + SCHED_PORT_R),
				    (uint32_t)((i +
				                circ_stride(&p->ph[k], r)) %
				               n),
				    (uint16_t)(2 * r + SCHED_PORT_L));
				if (rv != 0)
					goto out;
			}
		for (c = 0; c < p->ph[k].ncls; c++) {
			const struct circ_class *cl = &p->ph[k].cls[c];
			struct sched_seg         seg;
			uint64_t                 hops;
			int                      dir;

			if (cl->units == 0)
				continue;
			rv = circ_route_cfg(p, cur, cl, &r, &hops, &dir);
			if (rv != 0)
				goto out;
			memset(&seg, 0, sizeof(seg));
			seg.port =
			    (uint16_t)(2 * r + (dir > 0 ? SCHED_PORT_R
			                                : SCHED_PORT_L));
			seg.hops = (uint32_t)hops;
			for (i = 0; i < n; i++) {
				uint64_t dst;
				uint32_t nblk;

				dst = ((int64_t)i + cl->offset % (int64_t)n +
				       (int64_t)n) %
				      n;
				nblk = circ_blocks(p, k, c, i, buf);
				seg.node = i;
				rv = sched_add_xfer(s, i, (uint32_t)dst, buf,
				                    nblk, &seg, 1);
				if (rv != 0)
					goto out;
			}
		}
	}
	rv = 0;
out:
	free(buf);
	return (rv);
}
