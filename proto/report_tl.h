/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A run's report in the timeline's form (ocs-web's /api/timeline/ID): the
 * report as report_to_json makes it (ocsctl -j runs ID) without its
 * "timeline", and the agents' phase times as columns of integer
 * nanoseconds instead:
 *   "agents": [{"host": "h00", "node": 0, "setup_ns": 50000000,
 *               "phase": [0, 1, ...], "wait_ns": [...],
 *               "data_ns": [...], "verify_ns": [...]}, ...]
 * 81 agents x 256 phases: ~0.5 MB where ocsctl's objects are 1.4 MB, and
 * arrays of numbers where a browser made 20 000 objects.
 */
#ifndef OCS_REPORT_TL_H
#define OCS_REPORT_TL_H

#include <stddef.h>

#include "proto/ocs.pb-c.h"

/* The record as compact JSON (malloc'd, *len its length), or NULL when
 * out of memory. */
char *report_timeline_json(const Ocs__RunReport *, size_t *len);

#endif
