/* SPDX-License-Identifier: BSD-2-Clause */
/* The kept runs: STATE/runs.jsonl (see runs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ocsd/runs.h"
#include "proto/base/log.h"

int
runs_append(const char *path, const json_t *report)
{
	char  *line = json_dumps(report, JSON_COMPACT);
	size_t n;
	int    fd, rv = 0;

	if (line == NULL)
		return (-ENOMEM);
	n = strlen(line);
	line[n++] = '\n'; /* over the NUL: written by length */
	/* One write with O_APPEND: a line is never interleaved. */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	               0640)) < 0)
		rv = -errno;
	else if (write(fd, line, n) != (ssize_t)n)
		rv = errno ? -errno : -EIO;
	if (fd >= 0 && close(fd) != 0 && rv == 0)
		rv = -errno;
	free(line);
	return (rv);
}

/* One line: a report object with a run id, or NULL after a warning. */
static json_t *
parse_line(const char *path, unsigned lineno, const char *line, size_t n)
{
	json_error_t je;
	json_t      *o = json_loadb(line, n, 0, &je);
	json_t      *id = json_object_get(o, "run_id");

	if (o == NULL)
		log_warnx("%s:%u: skipped: %s", path, lineno, je.text);
	else if (!json_is_object(o) || !json_is_integer(id))
		log_warnx("%s:%u: skipped: not a report with a run_id", path,
		          lineno);
	else
		return (o);
	json_decref(o);
	return (NULL);
}

int
runs_read(const char *path, uint64_t id, json_t **out, char *err, size_t len)
{
	json_t  *all = json_array(), *o;
	FILE    *f;
	char    *line = NULL;
	size_t   cap = 0;
	ssize_t  n;
	unsigned lineno = 0;

	*out = NULL;
	if (all == NULL)
		return (-ENOMEM);
	if ((f = fopen(path, "re")) == NULL && errno != ENOENT) {
		json_decref(all);
		return (-errno);
	}
	while (f && (n = getline(&line, &cap, f)) > 0) {
		if ((o = parse_line(path, ++lineno, line, (size_t)n)) == NULL)
			continue;
		if (id != 0 && (uint64_t)json_integer_value(
		                   json_object_get(o, "run_id")) != id) {
			json_decref(o);
			continue;
		}
		json_array_append_new(all, o);
		/* Only the newest are listed: drop the oldest as we go. */
		if (json_array_size(all) > RUNS_LIST_MAX)
			json_array_remove(all, 0);
	}
	free(line);
	if (f)
		fclose(f);
	if (id != 0 && json_array_size(all) == 0) {
		snprintf(err, len, "run %llu: not in %s",
		         (unsigned long long)id, path);
		json_decref(all);
		return (-ENOENT);
	}
	/* A run id seen twice (a file put together by hand): the last. */
	while (id != 0 && json_array_size(all) > 1)
		json_array_remove(all, 0);
	*out = all;
	return (0);
}
