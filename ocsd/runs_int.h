/* SPDX-License-Identifier: BSD-2-Clause */
/* runs.c's parts its index (runs_index.c) reads the file with. */
#ifndef OCS_RUNS_INT_H
#define OCS_RUNS_INT_H

#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

/* runs_append, and where its line went: at, len bytes (newline in). */
int runs_append_at(const char *path, const json_t *report, off_t *at,
                   size_t *len);
/* runs_read from byte from on (a line's start). */
int runs_read_from(const char *path, off_t from, uint64_t id, json_t **out,
                   char *err, size_t len);
/* One line: a report object with a run id, or NULL after a warning. */
json_t *runs_parse_line(const char *path, unsigned lineno, const char *line,
                        size_t n);
/*
 * The next line into *b (grown up to RUNS_LINE_MAX): its length, 0 at
 * the end, -E2BIG for a longer one (read past and dropped, never held
 * whole), -ENOMEM.
 */
long runs_next_line(FILE *f, char **b, size_t *cap);

#endif
