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
/* A line at most: longer ones are skipped unread (a record that would be
 * longer is kept without its timeline). */
#define RUNS_LINE_MAX (16 << 20)

/* Append one report, whole or not at all (a short write is cut back, a
 * torn last line ended first); 0 or -errno (logged by the caller). */
int runs_append(const char *path, const json_t *report);

/* Cut a torn last line (a crash mid-write): 0 with *cut bytes removed,
 * or -errno. */
int runs_repair(const char *path, size_t *cut);

/* ocsd's hooks (run.h's struct run_hooks): every run's record, and the
 * intent a run leaves before it changes the switch (with the record it
 * would be if ocsd stopped then). */
struct ocsd;
struct run_report;
void runs_keep(void *d, const struct run_report *, const char *aborted);
int  runs_intent(void *d, const struct run_report *, char *err, size_t len);
/* At start: the torn tail cut, and a run the last ocsd left in progress
 * (its intent) recorded as interrupted.  Logs what it did. */
void runs_recover(struct ocsd *);

/*
 * The reports kept: with id 0 the newest RUNS_LIST_MAX, oldest first;
 * else run id alone.  *out is a new JSON array.  0, -ENOENT (no such run;
 * err says so) or -errno.
 */
int runs_read(const char *path, uint64_t id, json_t **out, char *err,
              size_t len);

/*
 * An index of the file (runs_index.c): each run id's line, where it
 * starts and how long, made by reading the file once (at ocsd's start)
 * and kept as runs_index_append adds to it, so `runs ID` reads one line
 * and a listing the newest RUNS_LIST_MAX lines only, however long the
 * history.  The file is the operator's to trim: a line that is no longer
 * where the index says, or a file of another size than the index
 * knows, has it made again.  Any thread (it has its own lock).
 */
struct runs_index;
struct runs_index *runs_index_new(const char *path); /* NULL: no memory */
void               runs_index_free(struct runs_index *);
/* runs_append, and the line indexed. */
int runs_index_append(struct runs_index *, const json_t *report);
/* runs_read through the index. */
int runs_index_read(struct runs_index *, uint64_t id, json_t **out, char *err,
                    size_t len);

#endif
