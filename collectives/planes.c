/* SPDX-License-Identifier: BSD-2-Clause */
/* Planes together or apart, and a schedule spread over planes (planes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/planes.h"

int
planes_parse(const char *v, enum planes_mode *m)
{
	if (strcmp(v, "together") == 0)
		*m = PLANES_TOGETHER;
	else if (strcmp(v, "apart") == 0)
		*m = PLANES_APART;
	else if (strcmp(v, "auto") == 0)
		*m = PLANES_AUTO;
	else
		return (-COLL_ERANGE);
	return (0);
}

const char *
planes_name(enum planes_mode m)
{
	switch (m) {
	case PLANES_TOGETHER:
		return ("together");
	case PLANES_APART:
		return ("apart");
	case PLANES_AUTO:
		return ("auto");
	default:
		return ("");
	}
}

static void
together(struct sched *s)
{
	uint32_t k;

	for (k = 0; k < s->nph; k++)
		s->ph[k].planes = 0;
}

int
planes_choose(struct sched *s, const struct cost_params *cp,
              enum planes_mode mode, double *tg, double *ap)
{
	double t, a;
	int    rv;

	together(s);
	if ((rv = cost_sched(s, cp, &t, NULL)) != 0)
		return (rv);
	if (tg != NULL)
		*tg = t;
	if (ap != NULL)
		*ap = t;
	if (s->nplanes < 2)
		return (mode == PLANES_APART ? -EINVAL : 0);
	if ((rv = sched_apart(s)) != 0 ||
	    (rv = cost_sched(s, cp, &a, NULL)) != 0)
		return (rv);
	if (ap != NULL)
		*ap = a;
	if (mode == PLANES_APART || (mode == PLANES_AUTO && a < t))
		return (1);
	together(s);
	return (0);
}

/* Configuration c of src, on plane j of out (ports shifted by j P). */
static int
cfg_on(struct sched *out, const struct sched *src, int32_t c, uint32_t j)
{
	uint32_t i, sh = j * src->ports;
	int      rv = 0;

	for (i = 0; i < src->cfg[c].ncirc && rv == 0; i++) {
		const struct sched_circuit *e =
		    &src->circ[src->cfg[c].circ_off + i];

		rv = e->oneway
		         ? sched_add_link(out, e->a, (uint16_t)(e->pa + sh),
		                          e->b, (uint16_t)(e->pb + sh))
		         : sched_add_circuit(out, e->a, (uint16_t)(e->pa + sh),
		                             e->b, (uint16_t)(e->pb + sh));
	}
	return (rv);
}

/* Blocks [from, to) of transfer x of src, on plane j of out. */
static int
xfer_on(struct sched *out, const struct sched *src, const struct sched_xfer *x,
        uint32_t j, uint32_t from, uint32_t to)
{
	struct sched_seg seg[16] = {{0}}, *sg = seg;
	uint32_t         i;
	int              rv;

	if (from >= to)
		return (0);
	if (x->nseg > 16 && (sg = malloc(x->nseg * sizeof(*sg))) == NULL)
		return (-ENOMEM);
	for (i = 0; i < x->nseg; i++) {
		sg[i] = src->seg[x->seg_off + i];
		sg[i].port = (uint16_t)(sg[i].port + j * src->ports);
	}
	rv = sched_add_xfer(out, x->src, x->dst, src->blk + x->blk_off + from,
	                    to - from, sg, x->nseg);
	if (sg != seg)
		free(sg);
	return (rv);
}

/* Apart: which epoch's configuration each plane holds from the barrier
 * that starts epoch e (SCHED_NONE: none yet); 1 if it changed. */
static int
turn(uint32_t *pc, uint32_t q, uint32_t e, uint32_t ne)
{
	uint32_t j;

	if (e == 0) {
		for (j = 0; j < q; j++)
			pc[j] = j < ne ? j : SCHED_NONE;
		return (1);
	}
	if (e - 1 + q >= ne)
		return (0);
	pc[(e - 1) % q] = e - 1 + q;
	return (1);
}

/* Phase k of src into out: its configuration (together, every plane
 * its copy; apart, each plane its epoch's) and its transfers. */
static int
spread_phase(struct sched *out, const struct sched *src, uint32_t q, int apart,
             uint32_t k, int emit, const uint32_t *pc, const int32_t *ecfg,
             uint32_t e)
{
	const struct sched_phase *ph = &src->ph[k];
	uint32_t                  i, j;
	int                       rv;

	if ((rv = sched_add_phase(out, emit, 0)) < 0)
		return (rv);
	rv = 0;
	for (j = 0; emit && j < q; j++) {
		int32_t c =
		    apart ? (pc[j] == SCHED_NONE ? -1 : ecfg[pc[j]]) : ph->cfg;

		if (c >= 0 && (rv = cfg_on(out, src, c, j)) != 0)
			return (rv);
	}
	for (i = 0; i < ph->nxfer; i++) {
		const struct sched_xfer *x = &src->xf[ph->xfer_off + i];

		if (apart)
			rv = xfer_on(out, src, x, e % q, 0, x->nblk);
		for (j = 0; !apart && j < q && rv == 0; j++)
			rv = xfer_on(
			    out, src, x, j,
			    (uint32_t)((uint64_t)x->nblk * j / q),
			    (uint32_t)((uint64_t)x->nblk * (j + 1) / q));
		if (rv != 0)
			return (rv);
	}
	return (0);
}

int
planes_spread(const struct sched *src, uint32_t q, int apart,
              struct sched *out)
{
	uint8_t  plane[SCHED_MAX_PLANES];
	uint32_t pc[SCHED_MAX_PLANES], P = src->ports, k, ne = 0, e = 0;
	int32_t *ecfg;
	int      rv, emit;

	memset(out, 0, sizeof(*out));
	if (q < 2 || (uint64_t)q * P > SCHED_MAX_PLANES ||
	    src->coll != SCHED_ALLTOALL || src->vb != NULL || src->nph == 0)
		return (-EINVAL);
	if ((rv = sched_init(out, src->algo, src->coll, src->n, q * P,
	                     src->parts, src->bytes)) != 0)
		return (rv);
	if ((ecfg = malloc(src->nph * sizeof(*ecfg))) == NULL)
		return (-ENOMEM);
	for (k = 0; k < src->nph; k++)
		if (src->ph[k].cfg >= 0)
			ecfg[ne++] = src->ph[k].cfg;
	for (k = 0; k < q * P; k++)
		plane[k] = (uint8_t)(k / P);
	rv = sched_set_planes(out, q, plane);
	for (k = 0; k < src->nph && rv == 0; k++) {
		emit = src->ph[k].cfg >= 0;
		if (emit && k > 0)
			e++;
		if (apart && emit)
			emit = turn(pc, q, e, ne);
		rv = spread_phase(out, src, q, apart, k, emit, pc, ecfg, e);
	}
	free(ecfg);
	if (rv == 0 && apart)
		rv = sched_apart(out);
	return (rv);
}

int
planes_spread_choose(const struct sched *src, uint32_t q,
                     const struct cost_params *cp, enum planes_mode mode,
                     struct sched *out, double *tg, double *ap)
{
	struct sched t, a;
	double       ct = 0, ca = 0;
	int          rv, pick;

	memset(out, 0, sizeof(*out));
	if ((rv = planes_spread(src, q, 0, &t)) != 0 ||
	    (rv = planes_spread(src, q, 1, &a)) != 0 ||
	    (rv = cost_sched(&t, cp, &ct, NULL)) != 0 ||
	    (rv = cost_sched(&a, cp, &ca, NULL)) != 0) {
		sched_free(&t);
		sched_free(&a);
		return (rv);
	}
	if (tg != NULL)
		*tg = ct;
	if (ap != NULL)
		*ap = ca;
	pick = mode == PLANES_APART || (mode == PLANES_AUTO && ca < ct);
	*out = pick ? a : t;
	sched_free(pick ? &t : &a);
	return (pick);
}
