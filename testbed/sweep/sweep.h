/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep: "is reconfiguring worth it at this delta?" over algorithms,
 * node counts, message sizes and reconfiguration delays, from the model
 * (every point) and the link simulator (--simulate), into a CSV that a
 * second run resumes, with heatmaps of speedup drawn by gnuplot.
 */
#ifndef OCS_SWEEP_H
#define OCS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/cost.h"
#include "testbed/sweep/sweep_csv.h"

enum sweep_reconf { SWEEP_AUTO, SWEEP_NONE, SWEEP_ALL };

struct sweep_model {
	char   name[64]; /* the CSV's model column */
	double bps, alpha_s, alpha_h;
};

/* One pair a heatmap compares: time(b at nb) / time(a at na). */
struct sweep_pair {
	char     a[16], b[16];
	uint32_t na, nb;
};

#define SWEEP_MAX_ALGOS 8
#define SWEEP_MAX_PAIRS 16

struct sweep {
	const char        *algo[SWEEP_MAX_ALGOS];
	size_t             nalgo;
	double            *nodes, *bytes, *delay;
	size_t             nnodes, nbytes, ndelay;
	struct sweep_model m;
	enum sweep_reconf  reconf;
	int                simulate, plots;
	char               out[512];
	struct sweep_pair  pair[SWEEP_MAX_PAIRS];
	size_t             npair;
	const char        *preset;
};

/* Read a model file into m (sweep_model.c); 0, or -1 with the file,
 * line and key in err. */
int sweep_model_load(struct sweep_model *m, const char *path, char *err,
                     size_t len);

/* The model's point (and the simulator's, with simulate): the row's
 * algo, nodes, bytes, delta_s and model are set by the caller.  0, or
 * <0 with the reason in err. */
int sweep_point(const struct sweep *, struct sweep_row *, char *err,
                size_t len);

/* Heatmaps of every pair and completion-time plots from the CSV's rows
 * (sweep_plot.c), PNGs in s->out.  0, or -1 with the reason in err. */
int sweep_plots(const struct sweep *, const struct sweep_row *, size_t nrows,
                char *err, size_t len);

#endif
