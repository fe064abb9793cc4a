/* SPDX-License-Identifier: BSD-2-Clause */
/* A run's report in the timeline's form (see report_tl.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/report.h"
#include "proto/report_tl.h"

/* Seconds as whole nanoseconds; what cannot be one (NaN, negative, out
 * of range) is 0: the page draws nothing for it rather than a wild bar. */
static long long
ns(double s)
{
	if (!(s > 0) || s > 1e9)
		return (0);
	return (llround(s * 1e9));
}

/* One column of an agent's phase times: ,"KEY":[v,v,...] */
static void
column(FILE *f, const Ocs__AgentTimeline *t, const char *key, int which)
{
	size_t k;

	fprintf(f, ",\"%s\":[", key);
	for (k = 0; k < t->n_phases; k++) {
		const Ocs__PhaseTime *p = t->phases[k];

		if (k > 0)
			fputc(',', f);
		if (which == 0)
			fprintf(f, "%u", p->phase);
		else
			fprintf(f, "%lld",
			        ns(which == 1   ? p->wait_s
			           : which == 2 ? p->data_s
			                        : p->verify_s));
	}
	fputc(']', f);
}

/* ,"agents":[...] (0, or -1 when out of memory). */
static int
agents(FILE *f, const Ocs__RunReport *rr)
{
	size_t  i;
	json_t *h;
	char   *hs;

	fputs(",\"agents\":[", f);
	for (i = 0; i < rr->n_timeline; i++) {
		const Ocs__AgentTimeline *t = rr->timeline[i];

		/* The host as JSON (jansson escapes it). */
		if ((h = json_string(t->host ? t->host : "")) == NULL)
			return (-1);
		hs = json_dumps(h, JSON_ENCODE_ANY);
		json_decref(h);
		if (hs == NULL)
			return (-1);
		fprintf(f, "%s{\"host\":%s,\"node\":%u", i > 0 ? "," : "", hs,
		        t->node);
		free(hs);
		if (t->has_setup_s)
			fprintf(f, ",\"setup_ns\":%lld", ns(t->setup_s));
		column(f, t, "phase", 0);
		column(f, t, "wait_ns", 1);
		column(f, t, "data_ns", 2);
		column(f, t, "verify_ns", 3);
		fputc('}', f);
	}
	fputs("]}", f);
	return (0);
}

char *
report_timeline_json(const Ocs__RunReport *rr, size_t *len)
{
	Ocs__RunReport head = *rr;
	json_t        *j;
	char          *h, *out = NULL;
	size_t         hl, ol = 0;
	FILE          *f;
	int            rv;

	/* The report's own JSON without its timeline (a shallow copy: the
	 * record is not ours to change). */
	head.n_timeline = 0;
	head.timeline = NULL;
	if ((j = report_to_json(&head)) == NULL)
		return (NULL);
	/* Reals to 6 digits, as ocsctl -j prints them (ocsctl_out.c). */
	h = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(j);
	if (h == NULL)
		return (NULL);
	hl = strlen(h);
	if ((f = open_memstream(&out, &ol)) == NULL) {
		free(h);
		return (NULL);
	}
	/* Its closing brace is ours to write, after the agents. */
	fwrite(h, 1, hl - 1, f);
	free(h);
	rv = agents(f, rr);
	if (fclose(f) != 0 || rv != 0 || out == NULL) {
		free(out);
		return (NULL);
	}
	*len = ol;
	return (out);
}
