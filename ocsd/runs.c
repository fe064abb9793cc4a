/* SPDX-License-Identifier: BSD-2-Clause */
/* The kept runs: STATE/runs.jsonl (see runs.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ocsd/runs.h"
#include "ocsd/runs_int.h"
#include "proto/base/log.h"

/* The file's last byte, or '\n' for an empty one; -errno. */
static int
last_byte(int fd, off_t *size)
{
	struct stat st;
	char        c;

	if (fstat(fd, &st) != 0)
		return (-errno);
	*size = st.st_size;
	if (st.st_size == 0)
		return ('\n');
	if (pread(fd, &c, 1, st.st_size - 1) != 1)
		return (-EIO);
	return ((unsigned char)c);
}

/* One write, or none: a short one is cut back (a full disk). */
static int
write_whole(int fd, off_t was, const char *buf, size_t n)
{
	ssize_t w = write(fd, buf, n);
	int     rv;

	if (w == (ssize_t)n)
		return (0);
	rv = w < 0 ? -errno : -ENOSPC;
	if (ftruncate(fd, was) != 0)
		log_warnx("runs: cannot cut a short write back: %s",
		          strerror(errno));
	return (rv);
}

int
runs_append(const char *path, const json_t *report)
{
	off_t  at;
	size_t len;

	return (runs_append_at(path, report, &at, &len));
}

int
runs_append_at(const char *path, const json_t *report, off_t *at, size_t *len)
{
	json_t *r = json_deep_copy(report);
	char   *line = NULL;
	size_t  n = 0;
	off_t   size;
	int     fd = -1, rv, c;

	if (r == NULL)
		return (-ENOMEM);
	/* A record too long to read back loses its timeline, and says so. */
	if ((line = json_dumps(r, JSON_COMPACT)) != NULL &&
	    strlen(line) + 1 > RUNS_LINE_MAX) {
		free(line);
		json_object_del(r, "timeline");
		json_object_set_new(r, "timeline_dropped",
		                    json_string("too large to keep"));
		line = json_dumps(r, JSON_COMPACT);
	}
	json_decref(r);
	if (line == NULL || (n = strlen(line)) + 1 > RUNS_LINE_MAX) {
		free(line);
		return (-E2BIG);
	}
	line[n++] = '\n'; /* over the NUL: written by length */
	/* O_APPEND: a line is never interleaved.  A tail torn by a crash
	 * (a line without its newline) is ended first, so this record is
	 * not glued to it and lost with it. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0640)) <
	    0)
		rv = -errno;
	else if ((c = last_byte(fd, &size)) < 0)
		rv = c;
	else if (c != '\n' && (rv = write_whole(fd, size, "\n", 1)) != 0)
		;
	else {
		*at = c != '\n' ? size + 1 : size;
		*len = n;
		rv = write_whole(fd, *at, line, n);
	}
	if (fd >= 0 && close(fd) != 0 && rv == 0)
		rv = -errno;
	free(line);
	return (rv);
}

int
runs_repair(const char *path, size_t *cut)
{
	char  buf[4096];
	off_t size, end;
	int   fd, c, rv = 0;

	*cut = 0;
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return (errno == ENOENT ? 0 : -errno);
	if ((c = last_byte(fd, &size)) < 0 || c == '\n') {
		close(fd);
		return (c < 0 ? c : 0);
	}
	/* Back to the last whole line. */
	for (end = size; end > 0;) {
		size_t k =
		    end < (off_t)sizeof(buf) ? (size_t)end : sizeof(buf);
		ssize_t r = pread(fd, buf, k, end - (off_t)k), i;

		if (r != (ssize_t)k) {
			rv = -EIO;
			break;
		}
		for (i = r - 1; i >= 0 && buf[i] != '\n'; i--)
			;
		if (i >= 0) {
			end -= (off_t)k - (off_t)i - 1;
			break;
		}
		end -= (off_t)k;
	}
	if (rv == 0 && ftruncate(fd, end) != 0)
		rv = -errno;
	if (rv == 0)
		*cut = (size_t)(size - end);
	close(fd);
	return (rv);
}

json_t *
runs_parse_line(const char *path, unsigned lineno, const char *line, size_t n)
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

long
runs_next_line(FILE *f, char **b, size_t *cap)
{
	size_t n = 0;
	int    big = 0;
	char  *nb;

	for (;;) {
		if (!big && *cap - n < 65536) {
			size_t c = *cap ? *cap * 2 : 65536;

			/* Never more than a line may hold, and a read more. */
			if (c > RUNS_LINE_MAX + 131072)
				c = RUNS_LINE_MAX + 131072;
			if ((nb = realloc(*b, c)) == NULL)
				return (-ENOMEM);
			*b = nb;
			*cap = c;
		}
		if (fgets(*b + (big ? 0 : n), (int)(big ? *cap : *cap - n),
		          f) == NULL)
			return (big ? -E2BIG : (long)n);
		if (big) {
			if (strchr(*b, '\n') != NULL)
				return (-E2BIG);
			continue;
		}
		n += strlen(*b + n);
		if (n > RUNS_LINE_MAX && (*b)[n - 1] == '\n')
			return (-E2BIG);
		if (n > 0 && (*b)[n - 1] == '\n')
			return ((long)n);
		if (n > RUNS_LINE_MAX)
			big = 1;
	}
}

int
runs_read(const char *path, uint64_t id, json_t **out, char *err, size_t len)
{
	return (runs_read_from(path, 0, id, out, err, len));
}

int
runs_read_from(const char *path, off_t from, uint64_t id, json_t **out,
               char *err, size_t len)
{
	json_t  *all = json_array(), *o;
	FILE    *f;
	char    *line = NULL;
	size_t   cap = 0;
	long     n;
	unsigned lineno = 0;

	*out = NULL;
	if (all == NULL)
		return (-ENOMEM);
	if ((f = fopen(path, "re")) == NULL && errno != ENOENT) {
		json_decref(all);
		return (-errno);
	}
	if (f && from > 0 && fseeko(f, from, SEEK_SET) != 0) {
		fclose(f);
		json_decref(all);
		return (-EIO);
	}
	while (f && (n = runs_next_line(f, &line, &cap)) != 0) {
		++lineno;
		if (n == -ENOMEM)
			break;
		if (n < 0) {
			log_warnx("%s:%u: skipped: longer than %d bytes", path,
			          lineno, RUNS_LINE_MAX);
			continue;
		}
		if ((o = runs_parse_line(path, lineno, line, (size_t)n)) ==
		    NULL)
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
