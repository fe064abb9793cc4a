/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: ocs-sweep's readers of outside input, the value
 * lists (as sizes, times and counts), the CSV rows a resumed sweep
 * reads back, the model file (collectives/cmodel.c) and /proc's lines
 * the CPU accounting reads (sweep_cpu.c): no crash, and
 * what is accepted is sorted, distinct and in range, a row written back
 * reads the same, and an accepted model has a positive bandwidth.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/cmodel.h"
#include "testbed/sweep/sweep_cpu.h"
#include "testbed/sweep/sweep_csv.h"
#include "testbed/sweep/sweep_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct sweep_row r, back;
	char            *s = malloc(len + 1), err[300], line[1200];
	double          *v;
	size_t           n, i;
	int              k;

	if (s == NULL)
		return (0);
	memcpy(s, data, len);
	s[len] = '\0';
	for (k = 0; k < 3; k++)
		if (sweep_list_parse(s, (enum sweep_kind)k, &v, &n, err,
		                     sizeof(err)) == 0) {
			if (n == 0 || n > SWEEP_LIST_MAX)
				abort();
			for (i = 1; i < n; i++)
				if (!(v[i] > v[i - 1]))
					abort();
			free(v);
		}
	if (sweep_row_parse(s, &r, err, sizeof(err)) == 0) {
		int w = sweep_row_fmt(&r, line, sizeof(line));

		if (w > 0) {
			line[w - 1] = '\0';
			if (sweep_row_parse(line, &back, err, sizeof(err)) !=
			        0 ||
			    back.nodes != r.nodes || back.bytes != r.bytes ||
			    strcmp(back.algo, r.algo) != 0)
				abort();
		}
	}
	{
		struct cmodel m = {.name = "x", .bps = 1e9};

		if (cmodel_parse(&m, s, "fuzz", err, sizeof(err)) == 0 &&
		    !(m.bps > 0 && m.alpha_s >= 0 && m.alpha_h >= 0 &&
		      m.reconf_s >= 0))
			abort();
	}
	{
		char     name[16];
		uint64_t t, b, a;

		/* /proc's lines: a name is always terminated, busy never
		 * above all. */
		if (cpu_parse_stat(s, name, sizeof(name), &t) == 0 &&
		    strlen(name) >= sizeof(name))
			abort();
		if (cpu_parse_host(s, &b, &a) == 0 && b > a)
			abort();
	}
	free(s);
	return (0);
}
