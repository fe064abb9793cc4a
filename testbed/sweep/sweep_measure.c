/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A measured point: the model's plan (its reconfigurations, given to
 * ocsd explicitly so the run is the plan the row predicts) run K times
 * on the testbed's agents by ocsctl, every block verified; the row gets
 * the mean, least and greatest completion time and the blocks verified.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "testbed/sweep/sweep.h"

/* "1;2" (the CSV's) as ocsctl's --reconfig: "1,2", or "none". */
static void
reconfig_arg(const char *before, char *buf, size_t len)
{
	size_t i;

	if (before[0] == '\0') {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s", before);
	for (i = 0; buf[i]; i++)
		if (buf[i] == ';')
			buf[i] = ',';
}

/* One verified run's report: its total time and blocks.  0, or -1 with
 * why in err. */
int
sweep_run_once(const struct sweep_bed *b, const struct sweep_row *r,
               const char *reconfig, json_t **report, struct cpu_use *cpu,
               char *err, size_t len)
{
	char            bytes[32], nodes[16], why[400], *out = NULL;
	json_t         *j, *rep;
	const char     *ab;
	struct cpu_snap c0, c1;
	int             st, have;

	snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)r->bytes);
	snprintf(nodes, sizeof(nodes), "%u", r->nodes);
	have = cpu && bed_cpu_snap(b, &c0) == 0;
	st = bed_ctl(b, &out, why, sizeof(why), "run", "--algo", r->algo,
	             "--bytes", bytes, "--nodes", nodes, "--reconfig",
	             reconfig, NULL);
	if (cpu) {
		memset(cpu, 0, sizeof(*cpu));
		if (have && bed_cpu_snap(b, &c1) == 0)
			cpu_used(&c0, &c1, cpu);
	}
	j = out ? json_loads(out, 0, NULL) : NULL;
	free(out);
	rep = json_object_get(j, "report");
	if (st != 0 || rep == NULL) {
		ab = json_string_value(json_object_get(j, "error"));
		snprintf(err, len, "the run failed: %s",
		         ab       ? ab
		         : why[0] ? why
		                  : "no report");
		json_decref(j);
		return (-1);
	}
	if (!json_is_true(json_object_get(rep, "verified"))) {
		ab = json_string_value(json_object_get(rep, "aborted"));
		snprintf(err, len, "the run did not verify: %lld errors%s%s",
		         (long long)json_integer_value(
		             json_object_get(rep, "errors")),
		         ab ? ", aborted: " : "", ab ? ab : "");
		json_decref(j);
		return (-1);
	}
	*report = json_incref(rep);
	json_decref(j);
	return (0);
}

int
sweep_measure(const struct sweep *s, const struct sweep_bed *b,
              struct sweep_row *r, char *err, size_t len)
{
	char           rc[300];
	double         sum = 0, lo = INFINITY, hi = 0;
	uint64_t       blocks = 0;
	uint32_t       k;
	struct cpu_use worst = {0}, u;

	reconfig_arg(r->before, rc, sizeof(rc));
	for (k = 0; k < s->repeat; k++) {
		json_t *rep;
		double  t;

		if (sweep_run_once(b, r, rc, &rep, &u, err, len) != 0)
			return (-1);
		cpu_worst(&worst, &u);
		t = json_real_value(json_object_get(rep, "total_s"));
		blocks += (uint64_t)json_integer_value(
		    json_object_get(rep, "blocks_verified"));
		json_decref(rep);
		sum += t;
		lo = fmin(lo, t);
		hi = fmax(hi, t);
	}
	r->measured_s = sum / s->repeat;
	r->measured_min_s = lo;
	r->measured_max_s = hi;
	r->repeats = s->repeat;
	r->verified = blocks;
	/* The worst of the repeats: one CPU-bound run is enough to doubt
	 * the mean. */
	r->cpu_max = worst.max;
	r->cpu_sum = worst.sum;
	r->cpu_host = worst.host;
	cpu_bound(&worst, r->cpu_bound, sizeof(r->cpu_bound));
	return (0);
}
