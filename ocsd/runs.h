/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The runs ocsd keeps: every report, ended or aborted, appended as one
 * JSON line to STATE/runs.jsonl (proto/report.h's schema), and read back
 * for `ocsctl runs`.  JSON in, JSON out: reply.c turns them into
 * replies.  A line that does not parse is skipped with a warning naming
 * it, never fatal: the file is the operator's to trim.
 */
#ifndef OCS_RUNS_H
#define OCS_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define RUNS_LIST_MAX 200 /* newest reports in one listing */

/* Append one report; 0 or -errno (logged by the caller). */
int runs_append(const char *path, const json_t *report);

/*
 * The reports kept: with id 0 the newest RUNS_LIST_MAX, oldest first;
 * else run id alone.  *out is a new JSON array.  0, -ENOENT (no such run;
 * err says so) or -errno.
 */
int runs_read(const char *path, uint64_t id, json_t **out, char *err,
              size_t len);

#endif
