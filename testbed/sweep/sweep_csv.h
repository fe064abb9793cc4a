/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ocs-sweep's CSV: one row a point, the columns of SWEEP_CSV_HEADER;
 * empty cells for what was not computed.  reconfigure_before lists the
 * phases before which the switch is reconfigured, separated by ';'.
 *
 * A point is known by algo, nodes, bytes, delta_s and model_hash: a hash
 * of every parameter of the model, the reconfiguration mode and the
 * backends that filled the row (sweep_model_hash), so a sweep run again
 * with the same of all these skips the points already in its file, and
 * one with another model, --reconfig or backend adds rows of its own
 * beside them instead of taking theirs.
 *
 * Measured rows also say what the CPU did while they ran (cpu_max: the
 * busiest process of the testbed, in cores; cpu_sum: all of them; host:
 * the whole machine, from /proc/stat) and, in cpu_bound, why the point is
 * not a measurement of the links when it is not (empty when it is).
 */
#ifndef OCS_SWEEP_CSV_H
#define OCS_SWEEP_CSV_H

#include <stddef.h>
#include <stdint.h>

#define SWEEP_CSV_HEADER                                                      \
	"algo,nodes,bytes,delta_s,reconfigurations,reconfigure_before,"       \
	"predicted_s,simulated_s,packet_s,measured_s,measured_min_s,"         \
	"measured_max_s,repeats,verified_blocks,cpu_max,cpu_sum,cpu_host,"    \
	"cpu_bound,model,model_hash"
/* What ocs-sweep wrote before rows were keyed by the model's hash. */
#define SWEEP_CSV_HEADER_V1                                                   \
	"algo,nodes,bytes,delta_s,reconfigurations,reconfigure_before,"       \
	"predicted_s,simulated_s,measured_s,measured_min_s,measured_max_s,"   \
	"repeats,verified_blocks,model"

struct sweep_row {
	char     algo[16];
	uint32_t nodes;
	uint64_t bytes;
	double   delta_s;
	uint32_t reconfs;
	char     before[256]; /* "1;2", "" for none */
	/* NAN: not computed */
	double   predicted_s, simulated_s, packet_s;
	double   measured_s, measured_min_s, measured_max_s;
	uint32_t repeats;
	uint64_t verified;
	double   cpu_max, cpu_sum, cpu_host; /* cores, NAN: not measured */
	char     cpu_bound[96];              /* why, "" if not */
	char     model[64];
	char     hash[17]; /* 16 hex digits */
};

/* The row as one CSV line with its newline; its length, or -1 if it does
 * not fit. */
int sweep_row_fmt(const struct sweep_row *, char *buf, size_t len);
/* One line (without its newline) into a row; 0, or -1 with the column
 * named in err. */
int sweep_row_parse(const char *line, struct sweep_row *, char *err,
                    size_t len);
/* The point's key: algo,nodes,bytes,delta,model_hash. */
void sweep_row_key(const struct sweep_row *, char *buf, size_t len);

/* The keys of a file's rows, sorted, for resuming. */
struct sweep_done {
	char **key;
	size_t n, cap;
};
/* Read path (absent: nothing done).  A last line without its newline (a
 * sweep killed while writing it) is cut off the file.  0, or -1 with the
 * file and line named in err (a CSV of an older ocs-sweep is refused
 * with what to do). */
int  sweep_done_load(struct sweep_done *, const char *path, char *err,
                     size_t len);
int  sweep_done_has(const struct sweep_done *, const char *key);
void sweep_done_free(struct sweep_done *);

#endif
