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
 *	scaleup_bandwidth = 400Mbps  a server's local links (FAST's scale-up:
 *	scaleup_alpha = 20us         the agents of one server), per GPU
 *	frame = 64KiB            what a relay holds whole before forwarding
 *	                         (the agents' frame payload; 0: no such term,
 *	                         see cost.h)
 *
 *	[conditions]             where a calibration measured it (optional)
 *	rate = 100Mbps           the fibres' line rate
 *	nodes = 9                agents
 *	cores = 2                the machine's
 *	cpu_max = 0.41           the busiest testbed process, in cores
 *	cpu_sum = 0.97           all of the testbed's processes, in cores
 *	cpu_host = 1.10          the whole machine, in cores
 *	residual_max = 0.062     the fit's worst |measured / fitted - 1|
 *
 * Keys left out keep the values the caller set.  An unknown section or
 * key, or a bad value, is an error naming the file, the line and the
 * key.  Lines starting with ';' or '#' are comments (the calibration's
 * measurements are written there).
 */
#ifndef OCS_CMODEL_H
#define OCS_CMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/cost.h"

/* The conditions of a calibration: 0 where unknown. */
struct cmodel_cond {
	double   rate_bps;
	uint32_t nodes, cores;
	double   cpu_max, cpu_sum, cpu_host;
	double   residual_max;
};

struct cmodel {
	char   name[64];
	double bps;      /* per-link bandwidth, bits a second */
	double alpha_s;  /* s a phase */
	double alpha_h;  /* s a hop */
	double reconf_s; /* s a reconfiguration, on top of the delta */
	double frame;    /* bytes, store-and-forward unit, 0: none */
	double su_bps;   /* a server's local links, bits a second (0: unset) */
	double su_alpha; /* s, their latency */
	struct cmodel_cond cond;
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
/* A hash of every parameter of the model (its name too) and of extra
 * (what else decides a result: the reconfiguration mode, the backend),
 * as 16 hex digits and a NUL in hex[17]; the conditions are not in it
 * (they say where the parameters came from, not what they are). */
void cmodel_hash(const struct cmodel *m, const char *extra, char hex[17]);
/* The cost parameters for a switch whose delay is delta: the model's
 * rates and latencies, a reconfiguration costing delta + reconf_s. */
void cmodel_params(const struct cmodel *m, double delta,
                   struct cost_params *cp);

#endif
