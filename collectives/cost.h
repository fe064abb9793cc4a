/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The alpha-beta-delta cost model of spec/alltoall-ocs.md, computed from
 * the IR: a phase costs
 *
 *	alpha_s + alpha_h * h + beta * L
 *
 * where h is the longest path (hops) of any transfer in the phase and L
 * the bytes carried by the most loaded directed link (so L = m_k * c_k
 * for the spec's uniform phases, and the per-link maximum for uneven
 * traffic).  A reconfiguration before phase k adds delta_k.  Block bytes
 * are the real-valued m / (n * parts), which keeps closed forms exact.
 *
 * Measured testbeds add one term (sf_bytes > 0): a relay forwards a frame
 * only once it holds all of it, so each hop after the first delays the
 * tail by one frame, beta * min(sf_bytes, D) with D the largest
 * transfer's bytes: (h - 1) * beta * min(sf_bytes, D).  With sf_bytes 0
 * (the papers' model, every closed form) it is absent.
 *
 * Planes apart (a phase that names its planes, sched.h): each plane p
 * carries its own links' load L_p and is dark only while it changes, so
 * the data and reconfiguration terms become max over planes of
 * (delta_p if p changes) + beta * L_p: a plane that keeps its circuits
 * carries data while another is dark.  Together, the slowest plane's
 * delta comes first and then every plane's data.
 */
#ifndef COLL_COST_H
#define COLL_COST_H

#include <stdint.h>

#include "collectives/sched.h"

struct cost_params {
	double alpha_s; /* s, start-up per phase */
	double alpha_h; /* s, per hop */
	double beta;    /* s per byte (8 / bit rate) */
	double delta;   /* s, reconfiguration delay, all boundaries */
	/* Optional per-boundary delays: delta_k[k] is the cost of
	 * reconfiguring before phase k (k >= 1); overrides delta. */
	const double *delta_k;
	uint32_t      ndelta_k; /* entries in delta_k (index 0 unused) */
	double        sf_bytes; /* store-and-forward frame, 0: none */
	/* Optional per-plane delays (a fabric's switches differ):
	 * delta_plane[p] replaces delta for plane p where it is > 0. */
	const double *delta_plane;
	uint32_t      ndelta_plane;
};

/* The store-and-forward term of a phase (see above). */
static inline double
cost_sf(const struct cost_params *p, uint32_t hops, double dir_bytes)
{
	if (p->sf_bytes <= 0 || hops < 2)
		return (0);
	return ((double)(hops - 1) * p->beta *
	        (dir_bytes < p->sf_bytes ? dir_bytes : p->sf_bytes));
}

static inline double
cost_delta(const struct cost_params *p, uint32_t k)
{
	if (p->delta_k != NULL && k < p->ndelta_k)
		return (p->delta_k[k]);
	return (p->delta);
}

/* One phase's share of the cost. */
struct cost_phase {
	double   total;      /* reconf + alpha_s + alpha_h*hops + beta*L */
	double   reconf;     /* delta paid before this phase, or 0: apart,
	                      * what it adds beyond the data (overlap hides
	                      * the rest) */
	double   dark;       /* the longest a plane is dark, or 0 */
	uint32_t hops;       /* longest path */
	double   link_bytes; /* L: model bytes on the busiest link */
	double   dir_bytes;  /* largest model bytes of one transfer */
};

/*
 * Cost of a whole schedule.  per_phase (nullable) gets s->nph entries.
 * Phase 0's configuration is set up before the collective and is free.
 * Returns 0, -ENOMEM, or -COLL_EDARK/-COLL_EPATH/-COLL_EPORT for a path
 * that cannot be walked (validate first for a precise message).
 */
int cost_sched(const struct sched *, const struct cost_params *, double *total,
               struct cost_phase *per_phase);

#endif
