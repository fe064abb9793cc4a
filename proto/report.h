/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run's report as one JSON object, and back: the one schema of
 * `ocsctl run -j`, `ocsctl runs -j` and ocsd's STATE/runs.jsonl (one
 * report a line), so what a script reads today it can read from the file
 * tomorrow.
 */
#ifndef OCS_REPORT_H
#define OCS_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "proto/ocs.pb-c.h"

/* A new reference, or NULL when out of memory. */
json_t *report_to_json(const Ocs__RunReport *);

/*
 * A report from its JSON (what report_to_json wrote).  Every field is
 * checked; *out is freed with report_free.  0, or -MSG_EFIELD with the
 * field and what is wrong with it in err, or -ENOMEM.
 */
int  report_from_json(const json_t *, Ocs__RunReport **out, char *err,
                      size_t len);
void report_free(Ocs__RunReport *);
/* Drop the phases and the timeline (a listing needs neither). */
void report_strip(Ocs__RunReport *);

#endif
