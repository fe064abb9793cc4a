/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A model file: the cost model's parameters for one testbed, as
 * ocs-sweep --calibrate measures them, read by ocs-plan --model,
 * ocs-sweep --model and ocsd's [run] model = FILE.  INI, one section:
 *
 *	[model]
 *	name = lab-a             the CSV's model column (no blanks or commas)
 *	bandwidth = 10Gbps       per link
 *	alpha_s = 20us           per phase: start-up and the barrier
 *	alpha_h = 5us            per hop: a block's first byte through a link
 *	reconf_overhead = 300us  per reconfiguration beyond the switch's delta
 *	                         (the controller's command, read-back and
 *	                         light check)
 *	frame = 64KiB            what a relay holds whole before forwarding
 *	                         (the agents' frame payload; 0: no such term,
 *	                         see cost.h)
 *
 * Keys left out keep the values the caller set.  An unknown section or
 * key, or a bad value, is an error naming the file, the line and the
 * key.  Lines starting with ';' or '#' are comments (the calibration's
 * measurements are written there).
 */
#ifndef OCS_CMODEL_H
#define OCS_CMODEL_H

#include <stddef.h>

#include "collectives/cost.h"

struct cmodel {
	char   name[64];
	double bps;      /* per-link bandwidth, bits a second */
	double alpha_s;  /* s a phase */
	double alpha_h;  /* s a hop */
	double reconf_s; /* s a reconfiguration, on top of the delta */
	double frame;    /* bytes, store-and-forward unit, 0: none */
};

/* A model file is a few lines: more than this is not one. */
#define CMODEL_MAX_BYTES (64u << 10)

/* Read path (a file or a pipe, at most CMODEL_MAX_BYTES) into m; 0, or
 * -1 with "path:line: why" in err. */
int cmodel_load(struct cmodel *m, const char *path, char *err, size_t len);
/* The same from a string (fuzzing); name stands for the file. */
int cmodel_parse(struct cmodel *m, const char *text, const char *name,
                 char *err, size_t len);
/* Write m to path with the comment lines (each without its ';'), atomically
 * (a temporary file renamed); 0 or -errno. */
int cmodel_write(const struct cmodel *m, const char *path,
                 const char *comment);
/* The cost parameters for a switch whose delay is delta: the model's
 * rates and latencies, a reconfiguration costing delta + reconf_s. */
void cmodel_params(const struct cmodel *m, double delta,
                   struct cost_params *cp);

#endif
