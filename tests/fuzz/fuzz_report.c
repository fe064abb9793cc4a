/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: a line of STATE/runs.jsonl, the file ocsd reads back
 * for `ocsctl runs` (an operator may edit or truncate it).  A refusal
 * must say why; what is accepted must survive a round trip: formatted
 * and parsed again, it is the same report.  Its timeline's form
 * (proto/report_tl.c, ocs-web's) is JSON with an agent for each of the
 * report's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/report.h"
#include "proto/report_tl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void
timeline_form(const Ocs__RunReport *r)
{
	json_t *t;
	char   *s;
	size_t  len;

	if ((s = report_timeline_json(r, &len)) == NULL)
		abort();
	if ((t = json_loadb(s, len, 0, NULL)) == NULL ||
	    json_array_size(json_object_get(t, "agents")) != r->n_timeline ||
	    json_object_get(t, "timeline") != NULL)
		abort();
	json_decref(t);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	Ocs__RunReport *r, *r2;
	json_t         *j, *k, *k2;
	char            err[256];

	if ((j = json_loadb((const char *)data, len, JSON_DECODE_ANY, NULL)) ==
	    NULL)
		return (0);
	err[0] = '\0';
	if (report_from_json(j, &r, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || r != NULL)
			abort();
		json_decref(j);
		return (0);
	}
	timeline_form(r);
	if ((k = report_to_json(r)) == NULL)
		abort();
	if (report_from_json(k, &r2, err, sizeof(err)) != 0)
		abort();
	k2 = report_to_json(r2);
	if (!json_equal(k, k2))
		abort();
	json_decref(k2);
	json_decref(k);
	report_free(r2);
	report_free(r);
	json_decref(j);
	return (0);
}
