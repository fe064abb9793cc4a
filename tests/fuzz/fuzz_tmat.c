/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: traffic matrices (ocs-plan --matrix), as CSV/JSON
 * text or as a generator spec (first byte picks).  An accepted matrix
 * of a few nodes is planned by every planner and auto (circuit reuse),
 * checked, and its IR validated; packing on planes never costs more:
 * no crash, no invalid plan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/skew.h"
#include "collectives/tmat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
plan_small(const struct tmat *m)
{
	static const char *const algos[] = {"fast",    "spreadout", "solstice",
	                                    "eclipse", "sorted",    "auto"};
	struct skew_params       sp = {
	          .cp = {.alpha_s = 1e-6,
	                 .alpha_h = 1e-6,
	                 .beta = 2e-11,
	                 .delta = 1e-5},
	          .gpus = 1,
        };
	struct skew_plan  pl;
	struct sched      s;
	struct sched_verr ve;
	size_t            i;

	if (m->n > 8 || tmat_rho(m) > ((uint64_t)1 << 40))
		return;
	for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
		if (skew_plan(algos[i], m, &sp, NULL, &pl, NULL, NULL) != 0)
			abort();
		if (skew_check(&pl, m, NULL, 0) != 0 ||
		    skew_build(&pl, m, &s) != 0 ||
		    sched_validate(&s, &ve) != 0)
			abort();
		sched_free(&s);
		if (skew_cost_planes(&pl, &sp.cp, 3, NULL) >
		    skew_cost(&pl, &sp.cp) * (1 + 1e-9))
			abort();
		skew_plan_free(&pl);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct tmat m;
	char       *text, err[256];
	int         rv;

	if (len < 1 || len > 4096)
		return (0);
	if ((text = malloc(len)) == NULL)
		return (0);
	memcpy(text, data + 1, len - 1);
	text[len - 1] = '\0';
	if (data[0] & 1)
		rv = tmat_generate(text, 4096, &m, err, sizeof(err));
	else
		rv = tmat_parse(text, len - 1, &m, err, sizeof(err));
	free(text);
	if (rv != 0)
		return (0);
	if (m.n < 2 || m.n > TMAT_MAX_N)
		abort();
	plan_small(&m);
	tmat_free(&m);
	return (0);
}
